"""The uniformly random player and the random playout policy.

A uniformly random player that treats pass as one legal move among the others
ends most games within a few dozen moves: as soon as both players happen to
pass in a row, the game is over (with roughly 1/(number of legal moves) per
move). So :class:`RandomPlayer` passes only when it has no other legal move,
or with a small, explicit ``pass_probability``.

Filling one's own eyes is legal, and a uniformly random player does it, so its
groups never live. The **random playout policy** of Monte-Carlo Go
(Bruegmann 1993; Bouzy & Helmstetter 2003; MoGo, Pachi, Michi) excludes the
mover's one-point eyes (:func:`gojax.playouts.own_eyes`); games then end
naturally, by two passes, when only eye-filling moves are left.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from gojax._core.rules import legal_action_mask
from gojax._core.types import GoConfig, GoState
from gojax.playouts._common import own_eyes, sample_uniform

__all__ = ["RandomPlayer", "random_player", "random_playout_policy"]


@dataclasses.dataclass(frozen=True)
class RandomPlayer:
    """A uniformly random legal point; pass only when no point is left (or by chance).

    Attributes:
      pass_probability: probability of passing even though a point is
        available (default 0: pass only when it is the only legal move).
      avoid_eyes: never fill the mover's own one-point eyes (the playout
        policy of Monte-Carlo Go). Default ``False``: every legal point.
    """

    pass_probability: float = 0.0
    avoid_eyes: bool = False

    def __post_init__(self):
        if not 0.0 <= float(self.pass_probability) <= 1.0:
            raise ValueError(f"pass_probability must be in [0, 1], got {self.pass_probability!r}")

    def __call__(self, config: GoConfig, state: GoState, key: jax.Array) -> jax.Array:
        """``int32[]``: the action for ONE game (``P`` = pass)."""
        points = config.num_points
        moves = legal_action_mask(config, state)[:points]
        if self.avoid_eyes:
            moves = moves & ~own_eyes(config, state)
        pass_key, move_key = jax.random.split(key)
        choice = sample_uniform(move_key, moves)
        play = jnp.any(moves)
        if self.pass_probability > 0.0:
            play = play & (jax.random.uniform(pass_key) >= self.pass_probability)
        return jnp.where(play, choice, points).astype(jnp.int32)


random_player = RandomPlayer()
"""Uniform over the legal points (own eyes included); pass only when nothing else is legal."""

random_playout_policy = RandomPlayer(avoid_eyes=True)
"""Uniform over the legal points that are not the mover's own eyes; else pass."""
