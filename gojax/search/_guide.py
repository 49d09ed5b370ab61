"""A network's guidance of the tree search: a policy prior and a value mixed with the playouts.

:class:`gojax.search.TreeSearch` takes an optional **guide**, an evaluator
(:data:`gojax.mcts.Evaluator`, what every search of gojax takes)
``guide(config, states, key) -> (logits, value)`` of a batch of ``K``
positions (``states``: :class:`gojax.GoState` ``[K]``):

* ``logits``: ``float32[K, A]`` move logits (pass is ``P``); the search
  takes their softmax as the policy ``p`` (the tree masks illegal moves
  itself);
* ``value``: ``float32[K]`` the expected result for the player to move, in
  ``[-1, 1]``.

It must be a pure JAX function: the search compiles it once per batch shape
(``jax.jit``) and runs it on the same positions as the playouts, one call
per batch step, its key ``fold_in(seed, batch)``.
:func:`gojax.alphazero.network_evaluator` makes one from an AlphaZero
network.

The search uses it twice, as AlphaGo (Silver et al. 2016) combined a
policy network and a value network with fast rollouts:

* **Prior** (:func:`guided_rates`): each point's prior win rate (the
  equivalent experience of :mod:`gojax.search._select`) becomes
  ``(1 - w) * r + w * p / max(p)``, where ``r`` is the rule-of-thumb rate
  of :mod:`gojax.search._prior`, ``p`` the policy over the legal points
  and ``w`` :attr:`TreeSearchSettings.policy_weight`. The move the network
  likes best starts with the prior samples at a win rate near 1, unlikely
  moves near ``(1 - w) * r``. Pass keeps ``pass_prior``. With a guide the
  prior counts as :data:`gojax.search.GUIDED_PRIOR_VISITS`
  samples unless ``prior_visits`` is set.
* **Value** (:func:`mixed_black_wins`): a leaf's ``M`` playouts count as
  ``M`` visits whose black wins are ``(1 - l) * b + l * M * (1 + v) / 2``,
  with ``b`` the playouts' black wins, ``v`` the network's value for black
  and ``l`` :attr:`TreeSearchSettings.value_weight` (0 by default: the
  playouts alone). A finished game keeps its exact result. The AMAF
  statistics stay the playouts' own.
"""

from __future__ import annotations

import jax
import numpy as np

from gojax._core.types import GoConfig, GoState
from gojax.mcts import Evaluator

__all__ = ["guide_policy", "guided_rates", "mixed_black_wins"]


def guide_policy(
    config: GoConfig, guide: Evaluator, states: GoState, key: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """``(policy float32[K, A], value float32[K])``: the softmax of the guide's logits, and its value."""
    logits, value = guide(config, states, key)
    return jax.nn.softmax(logits.astype(jax.numpy.float32), axis=-1), value.astype(jax.numpy.float32)


def guided_rates(rates: np.ndarray, policy: np.ndarray, legal: np.ndarray, weight: float) -> np.ndarray:
    """``float32[A]``: prior win rates with the policy blended in (pass unchanged).

    Args:
      rates: ``float[A]`` the rule-of-thumb prior win rates (pass last).
      policy: ``float[A]`` the guide's move probabilities.
      legal: ``bool[A]`` the legal moves.
      weight: ``w`` in ``[0, 1]``.
    """
    points = np.where(legal[:-1], np.maximum(policy[:-1], 0.0), 0.0)
    top = points.max() if points.size else 0.0
    liked = points / top if top > 0 else np.full_like(points, 0.5)
    blended = np.asarray(rates, np.float64).copy()
    blended[:-1] = (1.0 - weight) * blended[:-1] + weight * liked
    return blended.astype(np.float32)


def mixed_black_wins(
    black_wins: float, count: float, value: float, to_play: int, weight: float, done: bool
) -> float:
    """Black's wins of a leaf's ``count`` playouts mixed with the guide's value.

    Args:
      black_wins: the playouts' black wins (a draw 1/2).
      count: ``M``, the playouts of the leaf.
      value: the guide's value for the player to move at the leaf, in ``[-1, 1]``.
      to_play: the colour to move at the leaf (0 black, 1 white).
      weight: ``l`` in ``[0, 1]``.
      done: the game is over at the leaf (its result is exact: no mixing).
    """
    if done or weight <= 0:
        return black_wins
    black_value = float(np.clip(value if to_play == 0 else -value, -1.0, 1.0))
    return (1.0 - weight) * black_wins + weight * count * 0.5 * (1.0 + black_value)
