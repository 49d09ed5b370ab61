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

from gojax.features import _ladder_read as _read

__all__ = ["SLOTS", "pooled_reads"]

SLOTS = 256  # reads run together; each chunk runs to its longest chase


def _pool(size: int, mode: str, stones, atari, board, attacker, ko, move, prey, active):
    """``bool[T]``: whether each active task's runner is captured (False for inactive ones)."""
    tasks = active.shape[0]
    slots = min(tasks, SLOTS)
    (order,) = jnp.nonzero(active, size=tasks, fill_value=tasks)
    order = jnp.concatenate([order, jnp.full((slots,), tasks, order.dtype)])
    count = jnp.sum(active.astype(jnp.int32))

    def one(index, on):
        g, a = board[index], attacker[index]
        ours, theirs = stones[g, a], stones[g, 1 - a]
        position = _read.start(size, ours, theirs, atari[g, a], ko[index], prey[index])
        return _read.read(size, position, mode, move[index], on) == _read.CAPTURED

    def body(carry):
        begin, result = carry
        index = jax.lax.dynamic_slice(order, (begin,), (slots,))
        valid = index < tasks
        captured = jax.vmap(one)(jnp.minimum(index, tasks - 1), valid)
        result = result.at[index].set(captured & valid, mode="drop")
        return begin + slots, result

    start = (jnp.int32(0), jnp.zeros((tasks,), jnp.bool_))
    return jax.lax.while_loop(lambda carry: carry[0] < count, body, start)[1]


@functools.cache
def _pooled(size: int, mode: str):
    @jax.custom_batching.custom_vmap
    def pooled(stones, atari, board, attacker, ko, move, prey, active):
        return _pool(size, mode, stones, atari, board, attacker, ko, move, prey, active)

    @pooled.def_vmap
    def rule(axis_size, in_batched, stones, atari, board, attacker, ko, move, prey, active):
        args = [stones, atari, board, attacker, ko, move, prey, active]
        args = [
            x if batched else jnp.broadcast_to(x, (axis_size, *x.shape))
            for x, batched in zip(args, in_batched, strict=True)
        ]
        stones, atari, board, attacker, ko, move, prey, active = args
        games = stones.shape[1]
        board = board + (jnp.arange(axis_size, dtype=board.dtype) * games)[:, None]

        def flat(x):
            return x.reshape((-1, *x.shape[2:]))

        out = pooled(*(flat(x) for x in (stones, atari, board, attacker, ko, move, prey, active)))
        return out.reshape(active.shape), True

    return pooled


def pooled_reads(size: int, mode: str, stones, atari, attacker, ko, move, prey, active) -> jax.Array:
    """Ladder reads of ONE game's tasks, pooled with the other games' under ``vmap``.

    Args:
      size: ``N``.
      mode: ``"capture"``, ``"extend"`` or ``"defend"`` (see :func:`gojax.features._ladder_read.read`).
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
    return _pooled(size, mode)(
        stones[None], atari[None], board, as_int(attacker), as_int(ko), as_int(move), as_int(prey), active
    )
