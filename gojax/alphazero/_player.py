"""An AlphaZero network plus search as a gojax player (``player(config, state, key) -> action``).

::

    player = AlphaZeroPlayer(graphdef, variables, SearchSettings(num_simulations=64).for_play())
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

import jax
import jax.numpy as jnp
from flax import nnx

from gojax._core.types import GoConfig, GoState
from gojax.alphazero._network import Variables, apply
from gojax.alphazero._search import search
from gojax.alphazero._settings import SearchSettings
from gojax.features import Observation, basic_planes

__all__ = ["PLAY_SETTINGS", "AlphaZeroPlayer", "network_guide"]

PLAY_SETTINGS = SearchSettings(num_simulations=64).for_play()
"""The default search of :class:`AlphaZeroPlayer`: Gumbel, 64 simulations, no PUCT noise."""


@dataclasses.dataclass(frozen=True, eq=False)
class AlphaZeroPlayer:
    """Plays the move of :func:`search` (batch of 1) for ONE game; pass once the game is over.

    Attributes:
      graphdef, variables: the network (:func:`split`).
      settings: the search (:class:`SearchSettings`; use
        :meth:`SearchSettings.for_play` for match games: no PUCT noise, the
        most visited move).
      observe: the network's observation (must match its training).

    Raises:
      TypeError: if ``settings`` is not a :class:`SearchSettings`.
    """

    graphdef: nnx.GraphDef
    variables: Variables
    settings: SearchSettings = PLAY_SETTINGS
    observe: Observation = basic_planes

    def __post_init__(self):
        if not isinstance(self.settings, SearchSettings):
            raise TypeError(f"AlphaZeroPlayer.settings must be a SearchSettings, got {self.settings!r}")

    def __call__(self, config: GoConfig, state: GoState, key: jax.Array) -> jax.Array:
        """``int32[]``: the search's move for ``state`` (one game, no batch axis)."""
        batch = jax.tree.map(lambda x: x[None], state)
        out = search(config, self.graphdef, self.variables, batch, key, self.settings, observe=self.observe)
        return jnp.where(state.done, config.pass_action, out.action[0]).astype(jnp.int32)


jax.tree_util.register_dataclass(
    AlphaZeroPlayer, data_fields=["variables"], meta_fields=["graphdef", "settings", "observe"]
)


def network_guide(graphdef: nnx.GraphDef, variables: Variables, observe: Observation = basic_planes):
    """A guide for :class:`gojax.search.TreeSearch` from a network: its policy and its value.

    ::

        search = TreeSearch(config, TreeSearchSettings(), guide=network_guide(graphdef, variables))

    Args:
      graphdef, variables: the network (:func:`split`).
      observe: the network's observation of one position (must match its training).

    Returns:
      ``guide(config, states) -> (policy float32[K, A], value float32[K])``:
      the softmax of the logits and the value for the player to move, for a
      batch of ``K`` states (see :mod:`gojax.search`).
    """

    def guide(config: GoConfig, states: GoState) -> tuple[jax.Array, jax.Array]:
        planes = jax.vmap(lambda state: observe(config, state))(states).astype(jnp.float32)
        logits, value, _ = apply(graphdef, variables, planes)
        return jax.nn.softmax(logits, axis=-1), value

    return guide
