"""Tromp-Taylor area scoring, the winner and per-player rewards.

Scoring floods empty regions, so it is computed only when asked for - never
inside :func:`gojax.step`.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence

import jax
import jax.numpy as jnp

from gojax._core import bitboard as bb
from gojax._core import guards as _guards
from gojax._core import loops
from gojax._core.types import GoConfig, GoState

__all__ = ["area", "rewards", "score", "score_if_ended", "winner"]


def area(config: GoConfig, state: GoState) -> jax.Array:
    """Tromp-Taylor area of each colour: ``int32[2]`` (black, white).

    A point counts for a colour if it holds a stone of that colour, or if it
    is empty and every empty region path from it reaches stones of that colour
    only (an empty region touching both colours, or neither, counts for no one).
    """
    _guards.check_state(config, state, "gojax.area")
    return _area(config.size, state.stones)


def _area(size: int, stones: jax.Array) -> jax.Array:
    """:func:`area` of the board ``stones`` (``uint32[2, W]``)."""
    empty = jnp.asarray(bb.board_mask(size)) & ~(stones[0] | stones[1])
    reach = bb.flood_fill(bb.neighbours(stones, size), empty[None], size)
    territory = jnp.stack([reach[0] & ~reach[1], reach[1] & ~reach[0]])
    return bb.count(stones) + bb.count(territory)


def score(config: GoConfig, state: GoState) -> jax.Array:
    """Tromp-Taylor area score: black area minus white area minus komi, ``float32[]``."""
    _guards.check_state(config, state, "gojax.score")
    black, white = area(config, state)
    return (black - white).astype(jnp.float32) - jnp.float32(config.komi)


def score_if_ended(config: GoConfig, state: GoState, ended: jax.Array) -> jax.Array:
    """``float32[]``: :func:`score` of ``state`` where ``ended`` is true, else 0 - at almost no cost.

    Under ``jax.vmap`` (an environment's step over a batch, where only a few
    games end at each step) the games that ended are gathered and scored
    up to :data:`SCORE_GROUP` at a time, so the scoring's flood fill
    runs over those games instead of over the whole batch, and not at all
    when none ended; nested ``vmap`` levels are pooled together. One game
    alone is scored on a copy of its board whose stones are cleared unless
    ``ended``: the flood fill of an empty board stops after its first test.
    Every way gives :func:`score` where ``ended`` and 0 elsewhere. Combine it
    with ``state.loser`` for a game lost by resignation or an illegal move
    (see :func:`winner`).

    Args:
      config: the rules.
      state: one game.
      ended: ``bool[]``, usually "this step ended the game".
    """
    ended = jnp.asarray(ended, jnp.bool_)
    # The pool's function is keyed by a komi-free config (komi may be data): komi is taken off here.
    pool = _pooled_scores(dataclasses.replace(config.static, komi=0.0))
    pooled = pool(state.stones[None], ended.reshape(1))
    return jnp.where(ended, pooled[0] - jnp.float32(config.komi), jnp.float32(0))


SCORE_GROUP = 32
"""Most games :func:`score_if_ended` scores together under ``jax.vmap`` (fewer in a smaller batch)."""


def _cleared_score(config: GoConfig, stones: jax.Array, ended: jax.Array) -> jax.Array:
    """``float32[]``: the score of ``stones`` (``uint32[2, W]``) if ``ended``, else 0 (one game)."""
    black, white = _area(config.size, jnp.where(ended, stones, jnp.zeros_like(stones)))
    margin = (black - white).astype(jnp.float32) - jnp.float32(config.komi)
    return jnp.where(ended, margin, jnp.float32(0))


def _score_pool(config: GoConfig, stones: jax.Array, ended: jax.Array) -> jax.Array:
    """``float32[G]``: the games' scores where ``ended`` (``bool[G]``), 0 elsewhere.

    ``stones``: ``uint32[G, 2, W]``. The games that ended are listed in
    order and scored ``group`` at a time, one group per loop step, until
    all are; a small pool is scored game by game (the cleared-board way).
    """
    games = ended.shape[0]
    group = min(games, SCORE_GROUP, max(1, games // 16))
    if group < 4:
        return jax.vmap(functools.partial(_cleared_score, config))(stones, ended)
    count = jnp.sum(ended, dtype=jnp.int32)
    steps = -(-games // group)
    # The indices of the games that ended, in order, padded with ``games`` (past the end).
    listed = jnp.nonzero(ended, size=steps * group, fill_value=games)[0].astype(jnp.int32)

    def body(carry: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
        start, margins = carry
        index = jax.lax.dynamic_slice(listed, (start,), (group,))
        taken = index < games
        some = stones[jnp.minimum(index, games - 1)]
        scores = jax.vmap(functools.partial(_cleared_score, config))(some, taken)
        return start + group, margins.at[index].set(scores, mode="drop")

    start = (jnp.int32(0), jnp.zeros((games,), jnp.float32))
    return loops.while_loop(lambda carry: carry[0] < count, body, start)[1]


@functools.cache
def _pooled_scores(config: GoConfig) -> Callable[[jax.Array, jax.Array], jax.Array]:
    """:func:`_score_pool` for ``config``; its batching rule pools the games of every ``vmap`` level."""

    @jax.custom_batching.custom_vmap
    def pooled(stones: jax.Array, ended: jax.Array) -> jax.Array:
        return _score_pool(config, stones, ended)

    @pooled.def_vmap
    def rule(
        axis_size: int, in_batched: Sequence[bool], stones: jax.Array, ended: jax.Array
    ) -> tuple[jax.Array, bool]:
        games = stones.shape[1] if in_batched[0] else stones.shape[0]
        if not in_batched[0]:
            stones = jnp.broadcast_to(stones[None], (axis_size, *stones.shape))
        if not in_batched[1]:
            ended = jnp.broadcast_to(ended[None], (axis_size, *ended.shape))
        flat = pooled(stones.reshape(axis_size * games, *stones.shape[2:]), ended.reshape(-1))
        return flat.reshape(axis_size, games), True

    return pooled


def winner(config: GoConfig, state: GoState) -> jax.Array:
    """Stone value of the winner, ``int8[]``: 1 black, 2 white, 0 draw.

    A player who resigned or played an illegal move loses; otherwise the area
    score decides (also for a game still in progress or truncated - the caller
    decides whether that adjudication is meaningful).
    """
    _guards.check_state(config, state, "gojax.winner")
    result = score(config, state)
    by_score = jnp.where(result > 0, 1, jnp.where(result < 0, 2, 0))
    by_forfeit = 3 - state.loser
    return jnp.where(state.loser > 0, by_forfeit, by_score).astype(jnp.int8)


def rewards(config: GoConfig, state: GoState) -> jax.Array:
    """Reward of each player, ``float32[2]`` (black, white).

    +1 for the winner and -1 for the loser of a *terminated* game, 0 each for
    a draw; zero while the game runs and for a truncated game (the move cap
    is a time limit, not a result).
    """
    _guards.check_state(config, state, "gojax.rewards")
    won = winner(config, state)
    black = jnp.where(won == 1, 1.0, jnp.where(won == 2, -1.0, 0.0))
    black = jnp.where(state.terminated, black, 0.0).astype(jnp.float32)
    return jnp.stack([black, jnp.where(black == 0, jnp.float32(0), -black)])  # 0.0, never -0.0
