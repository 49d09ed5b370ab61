"""Ladder reads pooled over a whole batch: only the reads that are needed run, a chunk at a time.

Under ``jax.vmap`` a loop runs as long as its longest lane, and every lane
does the work of every round: vmapping one game's reads over a batch would
read ``batch x candidates`` ladders to the length of the longest. Instead,
:func:`pooled_reads` has a batching rule (``jax.custom_batching.custom_vmap``)
that takes the active reads of every game of the batch (most candidates
are settled without a read) and runs them ``SLOTS`` at a time; nested
``vmap`` levels flatten again. The result is the same as reading each game
on its own. The active reads are not listed: each game's flags are packed
into words and a slot finds its next read by the games' running counts and
a set-bit search in one game's words, and task arrays that are the same for
every game (the read's kind, AlphaGo's candidate moves) are not copied per
game, so nothing but the packing is computed over every candidate of the
batch.

A read is a *task* of a game: its kind, whether the side to move attacks,
the first move (``"capture"`` reads) and a stone of the runner; the game's
ko point binds the read's first move when the side to move makes it. See
:mod:`gojax.features.ladders._read` for the chase itself.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from gojax._core import bitboard as bb
from gojax._core import loops
from gojax.features import _native_calls
from gojax.features.ladders import _read

__all__ = ["SLOTS", "pooled_reads"]

SLOTS = 128  # reads run together; each chunk runs to its longest chase


def _pool(size: int, stones, atari, turn, ko_point, mode, mover_attacks, move, prey, active):
    """``bool[G, T]``: whether each active task's runner is captured (False for inactive ones).

    ``stones``, ``atari``: ``uint32[G, 2, W]``, ``G`` games; ``turn``,
    ``ko_point``: ``int32[G]``; ``active``: ``bool[G, T]``, each game's tasks;
    the other task arrays ``int32[G, T]`` or ``int32[1, T]`` (the same for
    every game). ``SLOTS`` reads run side by side, one move tried per loop step
    (:func:`gojax.features.ladders._read.step`); a slot whose read ends takes the
    next active task at the next step, so the loop runs about
    ``(total moves) / SLOTS + (longest read)`` steps.

    The active tasks are found without listing them: each game's flags are
    packed into words, a slot's ``k``-th active task is in the game whose
    running count passes ``k`` and is the right set bit of that game's words
    (the popcounts of its prefixes), so nothing is computed over every task
    of the batch but the packing.
    """
    games, tasks = active.shape
    slots = min(games * tasks, SLOTS)
    packed = bb.pack(active)  # uint32[G, ceil(T / 32)]
    ends = jnp.cumsum(bb.count(packed))  # active tasks of the games up to each
    count = ends[-1]

    def locate(rank):
        # The game: how many games' active tasks end at or before the rank; then the word of
        # its packed flags, and the bit inside it, that hold the rank-th active task.
        game = jnp.minimum(jnp.sum((ends <= rank[:, None]).astype(jnp.int32), axis=1), games - 1)
        rank = rank - jnp.where(game > 0, ends[jnp.maximum(game - 1, 0)], 0)
        words = packed[game]  # [SLOTS, ceil(T / 32)]
        counts = jax.lax.population_count(words).astype(jnp.int32)
        through = jnp.cumsum(counts, axis=1)
        word = jnp.minimum(jnp.sum((through <= rank[:, None]).astype(jnp.int32), axis=1), words.shape[1] - 1)
        rank = rank - jnp.take_along_axis(through - counts, word[:, None], axis=1)[:, 0]
        bits = jnp.take_along_axis(words, word[:, None], axis=1)  # [SLOTS, 1]
        prefixes = (jnp.uint32(2) << jnp.arange(32, dtype=jnp.uint32)) - jnp.uint32(1)
        within = jax.lax.population_count(bits & prefixes).astype(jnp.int32)  # set bits in [0, b]
        bit = jnp.sum((within <= rank[:, None]).astype(jnp.int32), axis=1)
        return game, jnp.minimum(word * 32 + bit, tasks - 1)

    def per_task(x, game, task):
        return x[jnp.minimum(game, x.shape[0] - 1), jnp.minimum(task, x.shape[1] - 1)]

    def opening(game, task):
        # The chases' bitboards are words first (uint32[W, SLOTS]): see _read.
        a = jnp.where(per_task(mover_attacks, game, task) != 0, turn[game], 1 - turn[game])
        # The game's ko point binds the first mover if it is the side to move.
        attacker_first = per_task(mode, game, task) == _read.MODES.index("capture")
        first = jnp.where(attacker_first, a, 1 - a)
        ko = jnp.where(first == turn[game], ko_point[game], -1)
        prey_point = per_task(prey, game, task)
        return _read.start(size, stones[game, a].T, stones[game, 1 - a].T, atari[game, a].T, ko, prey_point)

    def body(carry):
        taken, game, task, search, result = carry
        free = search.status != _read.RUNNING
        pick = taken + jnp.cumsum(free.astype(jnp.int32)) - 1
        take = free & (pick < count)
        picked_game, picked_task = locate(pick)
        game = jnp.where(take, picked_game, game)
        task = jnp.where(take, picked_task, task)
        search = jax.lax.cond(
            jnp.any(take),
            lambda: _traced_once(_read.restart, size)(
                search,
                take,
                opening(game, task),
                per_task(mode, game, task),
                per_task(move, game, task),
            ),
            lambda: search,
        )
        taken = taken + jnp.sum(take.astype(jnp.int32))
        running = search.status == _read.RUNNING
        search = _traced_once(_read.step, size)(search)
        done = running & (search.status != _read.RUNNING)
        where = jnp.where(done, game * tasks + task, games * tasks)
        result = result.at[where].set(search.status == _read.CAPTURED, mode="drop")
        return taken, game, task, search, result

    def cond(carry):
        taken, _, _, search, _ = carry
        return (taken < count) | jnp.any(search.status == _read.RUNNING)

    none = jnp.zeros((slots,), jnp.int32)
    start = (jnp.int32(0), none, none, _read.idle(size, slots), jnp.zeros((games * tasks,), jnp.bool_))
    return loops.while_loop(cond, body, start)[-1].reshape(games, tasks)


@functools.cache
def _traced_once(function, size: int):
    """``function(size, ...)`` traced once per board size and argument shapes.

    The reader's step and restart are most of the pool's trace, and the pool is
    traced several times for one observation (``custom_vmap`` traces it for one
    game and again in its batching rule, for each ladder preset's planes). A
    ``jax.jit`` keeps their traces (its cache is keyed by the shapes); inside
    the caller's program XLA inlines the call, so what runs is unchanged.
    """
    return jax.jit(functools.partial(function, size))


# The arguments of the pool whose games may be shared (a leading axis of 1): the tasks'.
_SHARED = (False, False, False, False, True, True, True, True, False)


@functools.cache
def _pooled(size: int):
    @jax.custom_batching.custom_vmap
    def pooled(stones, atari, turn, ko_point, mode, mover_attacks, move, prey, active):
        return _pool(size, stones, atari, turn, ko_point, mode, mover_attacks, move, prey, active)

    @pooled.def_vmap
    def rule(axis_size, in_batched, *args):
        pairs = list(zip(args, in_batched, strict=True))
        games = max(x.shape[1] if batched else x.shape[0] for x, batched in pairs)

        def flat(x, batched, shared):
            if not batched and shared and x.shape[0] == 1:
                return x  # the same tasks for every game: kept as they are
            if not batched:
                x = x[None]
            x = jnp.broadcast_to(x, (axis_size, games, *x.shape[2:]))
            return x.reshape((axis_size * games, *x.shape[2:]))

        out = pooled(*(flat(*a) for a in zip(args, in_batched, _SHARED, strict=True)))
        return out.reshape(axis_size, games, -1), True

    return pooled


def pooled_reads(
    size: int, mode, stones, atari, turn, ko_point, mover_attacks, move, prey, active
) -> jax.Array:
    """Ladder reads of ONE game's tasks, pooled with the other games' under ``vmap``.

    Args:
      size: ``N``.
      mode: ``"capture"``, ``"extend"`` or ``"defend"`` (see :func:`gojax.features.ladders._read.read`)
        for every read, or ``int32[T]`` each read's (:func:`gojax.features.ladders._read.mode_code`):
        reads of several kinds share one pool.
      stones: ``uint32[2, W]`` the game's stones, black then white.
      atari: ``uint32[2, W]`` its stones whose chain has one liberty, by colour.
      turn: ``int[]`` the colour index to move (0 black, 1 white).
      ko_point: ``int[]`` the point the side to move may not play (-1: none);
        it binds the first move of a read made by that side.
      mover_attacks: ``bool[T]`` (or one for all) whether the side to move is
        the attacker of each read.
      move: ``int32[T]`` (or one for all) the attacker's first atari (``"capture"``; else ignored).
      prey: ``int32[T]`` a stone of the runner.
      active: ``bool[T]`` the reads to make.

    Returns:
      ``bool[T]``: the runner is captured (False where not active).

    Arrays the same for every game of a batch (the modes, the moves of
    AlphaGo's candidates) are not copied per game. On the CPU the reads are
    made by the native kernel (:mod:`gojax.features._native_calls`).
    """
    mode = _read.mode_code(mode)

    tasks = active.shape

    def native():
        columns = [
            jnp.broadcast_to(jnp.asarray(x, jnp.int32), tasks) for x in (mode, mover_attacks, move, prey)
        ]
        return _native_calls.ladder_reads(size, stones, turn, ko_point, *columns, active)

    return _native_calls.on_cpu(
        native,
        lambda: _xla_reads(size, mode, stones, atari, turn, ko_point, mover_attacks, move, prey, active),
    )


def _xla_reads(size, mode, stones, atari, turn, ko_point, mover_attacks, move, prey, active):
    """:func:`pooled_reads` in XLA (the pool of :func:`_pool`)."""

    def per_task(x):
        x = jnp.asarray(x, jnp.int32)
        return x.reshape(1, -1) if x.ndim else x.reshape(1, 1)

    pooled = _pooled(size)(
        stones[None],
        atari[None],
        jnp.asarray(turn, jnp.int32).reshape(1),
        jnp.asarray(ko_point, jnp.int32).reshape(1),
        per_task(mode),
        per_task(mover_attacks),
        per_task(move),
        per_task(prey),
        active[None],
    )
    return pooled[0]
