"""Tromp-Taylor area scoring, the winner and per-player rewards.

Scoring floods empty regions, so it is computed only when asked for - never
inside :func:`gojax.step`.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from gojax._core import bitboard as bb
from gojax._core import guards as _guards
from gojax._core.types import GoConfig, GoState

__all__ = ["area", "rewards", "score", "score_if_ended", "winner"]


def area(config: GoConfig, state: GoState) -> jax.Array:
    """Tromp-Taylor area of each colour: ``int32[2]`` (black, white).

    A point counts for a colour if it holds a stone of that colour, or if it
    is empty and every empty region path from it reaches stones of that colour
    only (an empty region touching both colours, or neither, counts for no one).
    """
    _guards.check_state(config, state, "gojax.area")
    size = config.size
    stones = state.stones
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

    The score is taken on a copy of the board whose stones are cleared unless
    ``ended``: the flood fill of an empty board stops after its first test, so
    a step that did not just end a game pays almost nothing for it - also
    under ``jax.vmap``, where the fill runs as long as the slowest game of the
    batch needs. Combine it with ``state.loser`` for a game lost by
    resignation or an illegal move (see :func:`winner`).

    Args:
      config: the rules.
      state: one game.
      ended: ``bool[]``, usually "this step ended the game".
    """
    stones = jnp.where(ended, state.stones, jnp.zeros_like(state.stones))
    margin = score(config, state.replace(stones=stones))
    return jnp.where(ended, margin, jnp.float32(0)).astype(jnp.float32)


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
    return jnp.stack([black, -black])
