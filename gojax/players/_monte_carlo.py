"""Pure Monte-Carlo Go: N playouts after every legal move, play the best mean.

The flat Monte-Carlo player of Bruegmann (1993) and Bouzy & Helmstetter
(2003), without a tree: for each candidate move ``a`` it plays ``a``, runs
``num_playouts`` playouts from the resulting position and scores ``a`` by the
mean result for the mover. All ``A * num_playouts`` playouts of one decision
run at once (``vmap`` over moves and playouts), so a batch of ``B`` games
holds ``B * A * num_playouts`` game states in memory while it thinks (9x9,
positional superko: 2,444 bytes a state, so 16 playouts and 256 games are about
820 MB) and its cost is that many playouts per move - the reason this player
is a baseline, not a practical one.

Candidates are the legal moves (pass included) minus the mover's own
one-point eyes (``avoid_eyes``). An illegal action is never chosen: its mean
is set to ``-inf`` before the arg-max. Ties between equal means are broken at
random.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from gojax._core import checks
from gojax._core.rules import legal_action_mask, step
from gojax._core.types import GoConfig, GoState
from gojax.playouts import Player, own_eyes, playout, random_playout_policy, result_for

__all__ = ["PureMonteCarlo", "pure_monte_carlo"]


@dataclasses.dataclass(frozen=True)
class PureMonteCarlo:
    """Flat Monte-Carlo player (see the module docstring).

    Attributes:
      num_playouts: playouts per candidate move.
      playout_policy: the playout policy for both sides.
      max_playout_moves: cap on the moves of one playout (``None``: to the
        end of the game).
      avoid_eyes: never consider filling one of the mover's own eyes.
    """

    num_playouts: int = 16
    playout_policy: Player = random_playout_policy
    max_playout_moves: int | None = None
    avoid_eyes: bool = True

    def __post_init__(self):
        object.__setattr__(self, "num_playouts", checks.integer(self.num_playouts, "num_playouts", least=1))

    def candidates(self, config: GoConfig, state: GoState) -> jax.Array:
        """``bool[A]``: the moves this player considers (legal, not an own eye)."""
        legal = legal_action_mask(config, state)
        if self.avoid_eyes:
            eyes = jnp.concatenate([own_eyes(config, state), jnp.zeros((1,), bool)])
            legal = legal & ~eyes
        return legal

    def action_values(self, config: GoConfig, state: GoState, key: jax.Array) -> jax.Array:
        """``float32[A]``: mean playout result of each move for the mover; ``-inf`` if not a candidate."""
        actions = jnp.arange(config.num_actions, dtype=jnp.int32)
        children = jax.vmap(step, in_axes=(None, None, 0))(config, state, actions)
        keys = jax.random.split(key, (config.num_actions, self.num_playouts))

        def one_playout(child, k):
            final = playout(config, child, k, self.playout_policy, self.max_playout_moves)
            return result_for(config, final, state.turn)

        per_move = jax.vmap(one_playout, in_axes=(None, 0))
        results = jax.vmap(per_move)(children, keys)  # [A, num_playouts]
        means = jnp.mean(results, axis=1)
        return jnp.where(self.candidates(config, state), means, -jnp.inf)

    def choose(self, values: jax.Array, key: jax.Array) -> jax.Array:
        """``int32[]``: the arg-max of ``values`` (``float32[A]``), ties broken at random."""
        noise = jax.random.uniform(key, values.shape, maxval=1e-3 / self.num_playouts)
        return jnp.argmax(values + noise).astype(jnp.int32)

    def __call__(self, config: GoConfig, state: GoState, key: jax.Array) -> jax.Array:
        """``int32[]``: the move with the best mean playout result (random tie-break)."""
        value_key, tie_key = jax.random.split(key)
        return self.choose(self.action_values(config, state, value_key), tie_key)


def pure_monte_carlo(
    num_playouts: int = 16,
    playout_policy: Player = random_playout_policy,
    max_playout_moves: int | None = None,
) -> PureMonteCarlo:
    """A :class:`PureMonteCarlo` player with ``num_playouts`` playouts per candidate move."""
    return PureMonteCarlo(num_playouts, playout_policy, max_playout_moves)
