"""An AlphaZero network plus search as a gojax player (``player(config, state, key) -> action``).

::

    player = AlphaZeroPlayer(graphdef, variables, num_simulations=64)
    result = players.play_match(config, player, players.random_player, num_games=100, key=key)

**Hashing and jit.** ``variables`` is a pytree of arrays, so the player
cannot be hashed by value. :class:`AlphaZeroPlayer` is a frozen dataclass
with ``eq=False`` - hashed and compared by identity - so
:func:`gojax.players.play_match` (which caches its compiled function per
matchup, keyed by the players' hashes) keeps one compiled function per
player object; the network's arrays are then constants of that function.
The player is also a registered pytree whose only leaves are ``variables``
(everything else is static), so a jitted function can take it as an
argument and a new set of weights does not recompile::

    move = jax.jit(lambda p, s, k: p(config, s, k))(player, state, key)
"""

from __future__ import annotations

import dataclasses
from typing import Literal

import jax
import jax.numpy as jnp
from flax import nnx

from gojax._core.types import GoConfig, GoState
from gojax.alphazero._network import Variables
from gojax.alphazero._search import search
from gojax.features import Observation, basic_planes

__all__ = ["AlphaZeroPlayer"]

_STATIC_FIELDS = (
    "graphdef",
    "num_simulations",
    "algorithm",
    "observe",
    "temperature",
    "dirichlet_fraction",
    "gumbel_scale",
    "max_num_considered_actions",
)


@dataclasses.dataclass(frozen=True, eq=False)
class AlphaZeroPlayer:
    """Plays the move of :func:`search` (batch of 1) for ONE game; pass once the game is over.

    Attributes:
      graphdef, variables: the network (:func:`split`).
      num_simulations: simulations per move.
      algorithm: ``"gumbel"`` or ``"puct"``.
      observe: the network's observation (must match its training).
      temperature: ``"puct"``: 0 plays the most visited move (ties at random),
        1 samples from the visit counts.
      dirichlet_fraction: ``"puct"`` root noise (0 for evaluation games).
      gumbel_scale: ``"gumbel"`` root noise (1 as in training; 0 deterministic).
      max_num_considered_actions: ``"gumbel"`` root actions considered.
    """

    graphdef: nnx.GraphDef
    variables: Variables
    num_simulations: int = 64
    algorithm: Literal["gumbel", "puct"] = "gumbel"
    observe: Observation = basic_planes
    temperature: float = 0.0
    dirichlet_fraction: float = 0.0
    gumbel_scale: float = 1.0
    max_num_considered_actions: int = 16

    def __post_init__(self):
        if self.algorithm not in ("gumbel", "puct"):
            raise ValueError(f"algorithm must be 'gumbel' or 'puct', got {self.algorithm!r}")
        n = self.num_simulations
        if isinstance(n, bool) or not isinstance(n, int) or n < 1:
            raise ValueError(f"num_simulations must be a positive int, got {n!r}")

    def __call__(self, config: GoConfig, state: GoState, key: jax.Array) -> jax.Array:
        """``int32[]``: the search's move for ``state`` (one game, no batch axis)."""
        batch = jax.tree.map(lambda x: x[None], state)
        out = search(
            config,
            self.graphdef,
            self.variables,
            batch,
            key,
            num_simulations=self.num_simulations,
            algorithm=self.algorithm,
            observe=self.observe,
            temperature=self.temperature,
            dirichlet_fraction=self.dirichlet_fraction,
            gumbel_scale=self.gumbel_scale,
            max_num_considered_actions=self.max_num_considered_actions,
        )
        return jnp.where(state.done, config.pass_action, out.action[0]).astype(jnp.int32)


jax.tree_util.register_dataclass(AlphaZeroPlayer, data_fields=["variables"], meta_fields=list(_STATIC_FIELDS))
