"""Rollouts (playouts): play a game to its end with a policy and read the result.

The *simulation* phase of Monte-Carlo tree search and the whole evaluation of
pure Monte-Carlo Go. One game per call (``jax.vmap`` it); the game loop is a
``lax.while_loop`` bounded by the move cap, so under ``vmap`` it runs as long
as the longest rollout of the batch.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from gojax._core import loops
from gojax._core.rules import step
from gojax._core.types import GoConfig, GoState
from gojax.playouts._common import Player, result_for
from gojax.playouts._random import random_playout_policy

__all__ = ["playout", "rollout"]


def playout(
    config: GoConfig,
    state: GoState,
    key: jax.Array,
    policy: Player = random_playout_policy,
    max_moves: int | None = None,
) -> GoState:
    """Plays ``policy`` for both sides from ``state`` until the game is over.

    Args:
      config: the rules.
      state: the start position (returned unchanged if already over).
      key: PRNG key.
      policy: a player ``(config, state, key) -> action`` used for both sides.
      max_moves: stop after this many moves of the playout even if the game
        is not over (static int); ``None``: until two passes, a forfeit or
        the game's move cap.

    Returns:
      The final :class:`GoState` (over, or stopped after ``max_moves``).
    """
    limit = config.move_cap if max_moves is None else int(max_moves)
    if limit < 0:
        raise ValueError(f"max_moves must be >= 0, got {max_moves!r}")

    def running(carry):
        game, _, moves = carry
        return ~game.done & (moves < limit)

    def one_move(carry):
        game, key, moves = carry
        key, sub = jax.random.split(key)
        game = step(config, game, policy(config, game, sub))
        return game, key, moves + 1

    return loops.while_loop(running, one_move, (state, key, jnp.int32(0)))[0]


def rollout(
    config: GoConfig,
    state: GoState,
    key: jax.Array,
    policy: Player = random_playout_policy,
    max_moves: int | None = None,
) -> jax.Array:
    """Result of one playout from ``state``, from the view of the player to move there.

    Args:
      config: the rules.
      state: the position; ``state.turn`` is the player whose view is taken.
      key: PRNG key.
      policy: the playout policy for both sides (default: random, own eyes
        never filled).
      max_moves: see :func:`playout`.

    Returns:
      ``float32[]``: +1 if the player to move at ``state`` wins the playout,
      -1 if they lose, 0 for a draw. A forfeit (resignation, illegal move)
      decides; otherwise the Tromp-Taylor area score of the final position,
      also when the playout was stopped by the move cap or ``max_moves``
      (adjudication by area, as Monte-Carlo Go programs do).
    """
    final = playout(config, state, key, policy, max_moves)
    return result_for(config, final, state.turn)
