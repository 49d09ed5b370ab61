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
from a network; :class:`MixedEvaluator` blends another evaluator's value
with the results of fast playouts (AlphaGo's leaf evaluation).

Shapes: ``B`` batch, ``N`` board side, ``P = N * N``, ``A = P + 1``.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import jax
import jax.numpy as jnp

from gojax._core import checks
from gojax._core.types import GoConfig, GoState
from gojax.playouts import Player, playout_wins, random_playout_policy, rollout

__all__ = ["MIXED_POLICIES", "Evaluator", "MixedEvaluator", "RolloutEvaluator", "uniform_logits"]

MIXED_POLICIES = ("light", "heavy")
"""Playout policies of :class:`MixedEvaluator` (the light kernel's: :func:`gojax.playouts.playout_wins`)."""

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


@dataclasses.dataclass(frozen=True)
class MixedEvaluator:
    """Another evaluator's prior, and its value blended with playouts' results (AlphaGo's mixed evaluation).

    ``value = (1 - weight) * v + weight * r``: ``v`` the value of
    ``evaluate`` (a network's, say), ``r`` the mean result of ``playouts``
    playouts from the position for the player to move (+1 a win, -1 a loss,
    0 a draw), played by the light kernel (:func:`gojax.playouts.playout_wins`:
    under ``vmap`` the playouts of every mapped search run as one batch;
    ``"light"``: uniformly random, own eyes never filled; ``"heavy"``:
    MoGo's priorities and 3x3 patterns). The logits are ``evaluate``'s.

    A network that knows little is then corrected by the playouts, which
    know the end of the game: a search of a young network values its leaves
    by what the playouts find, and its policy targets improve on the network
    from the first move of training.

    Attributes:
      evaluate: the evaluator whose prior and value are used
        (:data:`Evaluator`).
      weight: ``w`` in ``[0, 1]`` (0: ``evaluate`` alone, 1: the playouts'
        value alone).
      policy: one of :data:`MIXED_POLICIES`.
      playouts: playouts per position.
      playout_moves: most moves of one playout (``None``: the game's move cap).

    Raises:
      TypeError, ValueError: naming the field and the value.
    """

    evaluate: Evaluator
    weight: float = 0.5
    policy: str = "heavy"
    playouts: int = 1
    playout_moves: int | None = None

    def __post_init__(self):
        if not callable(self.evaluate):
            raise TypeError(f"MixedEvaluator.evaluate must be an evaluator (callable), got {self.evaluate!r}")
        weight = checks.number(self.weight, "MixedEvaluator.weight", least=0.0, most=1.0)
        object.__setattr__(self, "weight", weight)
        if self.policy not in MIXED_POLICIES:
            raise ValueError(f"MixedEvaluator.policy must be one of {MIXED_POLICIES}, got {self.policy!r}")
        object.__setattr__(
            self, "playouts", checks.integer(self.playouts, "MixedEvaluator.playouts", least=1)
        )
        if self.playout_moves is not None:
            moves = checks.integer(self.playout_moves, "MixedEvaluator.playout_moves", least=1)
            object.__setattr__(self, "playout_moves", moves)

    def __call__(self, config: GoConfig, states: GoState, key: jax.Array) -> tuple[jax.Array, jax.Array]:
        """``(logits float32[B, A], value float32[B])`` of a batch of positions."""
        guide_key, playout_key = jax.random.split(key)
        logits, value = self.evaluate(config, states, guide_key)
        batch, many = states.turn.shape[0], self.playouts
        moves = config.move_cap if self.playout_moves is None else self.playout_moves
        repeated = jax.tree.map(lambda x: jnp.repeat(x, many, axis=0), states)
        wins = playout_wins(config, self.policy, moves, repeated, jax.random.split(playout_key, batch * many))
        black = 2.0 * jnp.mean(wins.reshape(batch, many), axis=1) - 1.0  # [-1, 1] for black
        mine = jnp.where(states.turn == 0, black, -black)
        return logits, ((1.0 - self.weight) * value + self.weight * mine).astype(jnp.float32)
