"""A heuristic playout policy: capture, escape atari, avoid self-atari, else random.

The rule-based playout policy of early Monte-Carlo Go programs (the "capture /
atari / self-atari" tiers of MoGo's and Pachi's playouts, Michi's
``gen_playout_moves``), in fixed priority order:

1. **Capture**: if a legal move captures opponent stones, play one of the
   moves capturing the *most* stones (ties broken at random).
2. **Escape atari by extending**: if some chain of the mover is in atari
   (one liberty), play at its liberty when the extended chain then has at
   least two liberties. (Escaping by capturing an attacker is tier 1.)
3. **Avoid self-atari**: play a random legal move that does not leave the
   mover's new chain with a single liberty.
4. **Else random**: any legal move.

Every tier excludes the mover's own one-point eyes (as the random playout
policy does); the policy passes when no other move is left. It works on ONE
game, like every player: usable as a player and as the rollout policy of
:func:`gojax.playouts.rollout`, :class:`PureMonteCarlo` and :class:`UCTPlayer`.

Cost: one chain analysis per move (:func:`gojax.features.move_outcomes`,
labels by pointer jumping, liberties by segment sums) on top of the legal
mask - several times a random playout move.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from gojax._core import bitboard as bb
from gojax._core.rules import legal_action_mask
from gojax._core.types import GoConfig, GoState
from gojax.features import move_outcomes
from gojax.playouts._common import own_eyes, sample_uniform

__all__ = ["HeuristicPolicy", "heuristic_playout_policy", "heuristic_tiers"]


def heuristic_tiers(config: GoConfig, state: GoState, avoid_eyes: bool = True) -> jax.Array:
    """``bool[4, P]``: the candidate points of each tier (capture, escape, safe, any legal).

    Tier 0 holds only the largest captures. The policy plays in the first
    non-empty tier.
    """
    size, points = config.size, config.num_points
    legal = legal_action_mask(config, state)[:points]
    if avoid_eyes:
        legal = legal & ~own_eyes(config, state)
    outcomes = move_outcomes(config, state)
    captured = jnp.where(legal, outcomes.capture_size.reshape(points), 0)
    most = jnp.max(captured)
    capture = legal & (captured == most) & (most > 0)
    stones = state.stones
    mover_atari = jnp.where(state.turn == 0, state.atari[0], state.atari[1])
    empty = jnp.asarray(bb.board_mask(size)) & ~(stones[0] | stones[1])
    atari_liberties = bb.to_grid(bb.neighbours(mover_atari, size) & empty, size).reshape(points)
    escape = legal & atari_liberties & (outcomes.liberties_after.reshape(points) >= 2)
    safe = legal & (outcomes.self_atari_size.reshape(points) == 0)
    return jnp.stack([capture, escape, safe, legal])


@dataclasses.dataclass(frozen=True)
class HeuristicPolicy:
    """Capture (largest first), else escape atari, else avoid self-atari, else random.

    Attributes:
      avoid_eyes: exclude the mover's own one-point eyes from every tier
        (default ``True``).
    """

    avoid_eyes: bool = True

    def __call__(self, config: GoConfig, state: GoState, key: jax.Array) -> jax.Array:
        """``int32[]``: the action for ONE game (``P`` = pass when nothing else is left)."""
        tiers = heuristic_tiers(config, state, self.avoid_eyes)
        nonempty = jnp.any(tiers, axis=1)
        first = jnp.argmax(nonempty)
        choice = sample_uniform(key, tiers[first])
        return jnp.where(nonempty[3], choice, config.num_points).astype(jnp.int32)


heuristic_playout_policy = HeuristicPolicy()
"""The heuristic playout policy with its defaults (own eyes never filled)."""
