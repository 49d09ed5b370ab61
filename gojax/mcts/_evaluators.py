"""Evaluators: what a search asks of a position, ``evaluate(config, states, key) -> (logits, value)``.

Every search of gojax takes one signature for what it knows about positions
besides the rules: the mctx search of :func:`gojax.mcts.search` (UCT, PUCT,
Gumbel), the players built on it (:class:`gojax.players.UCTPlayer`,
:class:`gojax.alphazero.AlphaZeroPlayer`) and the host tree search's guide
(:class:`gojax.search.TreeSearch`)::

    logits, value = evaluate(config, states, key)

* ``config``: the static :class:`gojax.GoConfig`;
* ``states``: :class:`gojax.GoState` with a leading ``[B]`` axis;
* ``key``: a PRNG key (an evaluator that needs no randomness ignores it);
* ``logits``: ``float32[B, A]`` prior logits of the moves, pass last. Any
  finite values; the search masks the illegal moves itself;
* ``value``: ``float32[B]`` the expected result for the player to move at
  each position, in ``[-1, 1]``. The search never uses the value of a
  finished game (its result is exact).

An evaluator is a pure JAX function (the searches trace it under
``jax.jit``); a frozen dataclass with a ``__call__`` is a hashable one.
:class:`RolloutEvaluator` is the Monte-Carlo one (a uniform prior and the
result of one playout); :func:`gojax.alphazero.network_evaluator` makes one
from a network.

Shapes: ``B`` batch, ``N`` board side, ``P = N * N``, ``A = P + 1``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import jax
import jax.numpy as jnp

from gojax._core import checks
from gojax._core.types import GoConfig, GoState
from gojax.playouts import Player, random_playout_policy, rollout

__all__ = ["Evaluator", "RolloutEvaluator", "uniform_logits"]

Evaluator = Callable[[GoConfig, GoState, jax.Array], tuple[jax.Array, jax.Array]]
"""``evaluate(config, states[B], key) -> (logits float32[B, A], value float32[B])``."""


def uniform_logits(config: GoConfig, batch: int) -> jax.Array:
    """``float32[B, A]`` zeros: the uniform prior over every move."""
    return jnp.zeros((batch, config.num_actions), jnp.float32)


@dataclasses.dataclass(frozen=True)
class RolloutEvaluator:
    """A uniform prior and the result of one rollout per position (Monte-Carlo evaluation).

    The value of a position is :func:`gojax.playouts.rollout`: ``policy``
    plays both sides to the end (or for ``max_moves`` moves), and the area
    score decides (+1 the player to move wins, -1 loses, 0 a draw).

    Attributes:
      policy: the playout policy, a player ``(config, state, key) -> action``.
      max_moves: most moves of one rollout (``None``: to the end of the game).
    """

    policy: Player = random_playout_policy
    max_moves: int | None = None

    def __post_init__(self):
        if not callable(self.policy):
            raise TypeError(f"RolloutEvaluator.policy must be a player (callable), got {self.policy!r}")
        if self.max_moves is not None:
            object.__setattr__(self, "max_moves", checks.integer(self.max_moves, "max_moves", least=0))

    def __call__(self, config: GoConfig, states: GoState, key: jax.Array) -> tuple[jax.Array, jax.Array]:
        """``(logits float32[B, A], value float32[B])`` of a batch of positions."""
        batch = states.turn.shape[0]
        keys = jax.random.split(key, batch)
        one = lambda state, k: rollout(config, state, k, self.policy, self.max_moves)  # noqa: E731
        return uniform_logits(config, batch), jax.vmap(one)(states, keys).astype(jnp.float32)
