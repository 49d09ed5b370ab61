"""Ladder reads pooled over a whole batch: only the reads that are needed run, a chunk at a time.

Under ``jax.vmap`` a loop runs as long as its longest lane, and every lane
does the work of every round: vmapping one game's reads over a batch would
read ``batch x candidates`` ladders to the length of the longest. Instead,
:func:`pooled_reads` has a batching rule (``jax.custom_batching.custom_vmap``)
that flattens the reads of every game of the batch into one list, keeps the
active ones (most candidates are settled without a read) and runs them
``SLOTS`` at a time; nested ``vmap`` levels flatten again. The result is the
same as reading each game on its own.

A read is a *task*: a board (index into the boards' stones), the attacker's
colour, the ko point forbidden to the first mover, the first move
(``"capture"`` reads) and a stone of the runner; see
:mod:`gojax.features._ladder_read` for the chase itself.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from gojax._core import loops
from gojax.features import _ladder_read as _read

__all__ = ["SLOTS", "pooled_reads"]

SLOTS = 128  # reads run together; each chunk runs to its longest chase


def _pool(size: int, mode, stones, atari, board, attacker, ko, move, prey, active):
    """``bool[T]``: whether each active task's runner is captured (False for inactive ones).

    ``SLOTS`` chases run side by side, one round per loop step; a slot whose
    chase ends takes the next active task at the next step, so the loop runs
    about ``(total rounds) / SLOTS + (longest chase)`` steps.
    """
    tasks = active.shape[0]
    slots = min(tasks, SLOTS)
    (order,) = jnp.nonzero(active, size=tasks, fill_value=tasks)
    count = jnp.sum(active.astype(jnp.int32))
    limit = _read.max_rounds(size)

    def opening(index):
        # The chases' bitboards are words first (uint32[W, SLOTS]): see _ladder_read.
        g, a = board[index], attacker[index]
        return _read.start(size, stones[g, a].T, stones[g, 1 - a].T, atari[g, a].T, ko[index], prey[index])

    def body(carry):
        taken, task, position, status, rounds, result = carry
        free = status != _read.RUNNING
        pick = taken + jnp.cumsum(free.astype(jnp.int32)) - 1
        take = free & (pick < count)
        task = jnp.where(take, order[jnp.minimum(pick, tasks - 1)], task)
        fresh = jax.lax.cond(jnp.any(take), lambda: opening(task), lambda: position)
        position = jax.tree.map(lambda new, old: _where(take, new, old), fresh, position)
        status = jnp.where(take, _read.RUNNING, status)
        rounds = jnp.where(take, 0, rounds)
        taken = taken + jnp.sum(take.astype(jnp.int32))
        running = status == _read.RUNNING
        advanced, next_status = _read.advance(size, position, mode[task], move[task], rounds)
        position = jax.tree.map(lambda new, old: _where(running, new, old), advanced, position)
        rounds = rounds + running.astype(jnp.int32)
        status = jnp.where(running, next_status, status)
        status = jnp.where((status == _read.RUNNING) & (rounds >= limit), _read.CAPTURED, status)
        done = running & (status != _read.RUNNING)
        result = result.at[jnp.where(done, task, tasks)].set(status == _read.CAPTURED, mode="drop")
        return taken, task, position, status, rounds, result

    def cond(carry):
        taken, _, _, status, _, _ = carry
        return (taken < count) | jnp.any(status == _read.RUNNING)

    empty = jnp.zeros((stones.shape[-1], slots), jnp.uint32)
    start = (
        jnp.int32(0),
        jnp.zeros((slots,), jnp.int32),
        _read.Position(empty, empty, empty, empty, empty),
        jnp.full((slots,), _read.ESCAPED, jnp.int32),
        jnp.zeros((slots,), jnp.int32),
        jnp.zeros((tasks,), jnp.bool_),
    )
    return loops.while_loop(cond, body, start)[-1]


def _where(flags, new, old):
    """``new`` where ``flags`` (``bool[SLOTS]``), else ``old`` (``[SLOTS]`` or ``uint32[W, SLOTS]``)."""
    return jnp.where(flags, new, old)


@functools.cache
def _pooled(size: int):
    @jax.custom_batching.custom_vmap
    def pooled(stones, atari, board, mode, attacker, ko, move, prey, active):
        return _pool(size, mode, stones, atari, board, attacker, ko, move, prey, active)

    @pooled.def_vmap
    def rule(axis_size, in_batched, stones, atari, board, mode, attacker, ko, move, prey, active):
        args = [stones, atari, board, mode, attacker, ko, move, prey, active]
        args = [
            x if batched else jnp.broadcast_to(x, (axis_size, *x.shape))
            for x, batched in zip(args, in_batched, strict=True)
        ]
        stones, atari, board, mode, attacker, ko, move, prey, active = args
        games = stones.shape[1]
        board = board + (jnp.arange(axis_size, dtype=board.dtype) * games)[:, None]

        def flat(x):
            return x.reshape((-1, *x.shape[2:]))

        out = pooled(*(flat(x) for x in (stones, atari, board, mode, attacker, ko, move, prey, active)))
        return out.reshape(active.shape), True

    return pooled


def pooled_reads(size: int, mode, stones, atari, attacker, ko, move, prey, active) -> jax.Array:
    """Ladder reads of ONE game's tasks, pooled with the other games' under ``vmap``.

    Args:
      size: ``N``.
      mode: ``"capture"``, ``"extend"`` or ``"defend"`` (see :func:`gojax.features._ladder_read.read`)
        for every read, or ``int32[T]`` each read's (:func:`gojax.features._ladder_read.mode_code`):
        reads of several kinds share one pool.
      stones: ``uint32[2, W]`` the game's stones, black then white.
      atari: ``uint32[2, W]`` its stones whose chain has one liberty, by colour.
      attacker: ``int32[T]`` the attacker's colour index (0 black, 1 white) of each read.
      ko: ``int32[T]`` the point the first mover may not play (-1: none).
      move: ``int32[T]`` the attacker's first atari (``"capture"``; else ignored).
      prey: ``int32[T]`` a stone of the runner.
      active: ``bool[T]`` the reads to make.

    Returns:
      ``bool[T]``: the runner is captured (False where not active).
    """
    tasks = active.shape[0]
    board = jnp.zeros((tasks,), jnp.int32)
    as_int = functools.partial(jnp.asarray, dtype=jnp.int32)
    mode = jnp.broadcast_to(_read.mode_code(mode), (tasks,))
    return _pooled(size)(
        stones[None],
        atari[None],
        board,
        mode,
        as_int(attacker),
        as_int(ko),
        as_int(move),
        as_int(prey),
        active,
    )
