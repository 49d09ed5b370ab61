"""Selection in the tree: the RAVE blend of a child's own mean and its AMAF mean, plus a prior.

For the player to move at a node and a legal action ``a`` whose child has
``n`` visits and ``w`` wins, and ``n~``, ``w~`` AMAF samples and wins at the
node (:class:`gojax.search._tree.Tree`):

    value(a) = (1 - beta) * w / n + beta * w~' / n~'  + C * sqrt(ln(N + 1) / (n + 1))
    beta     = sqrt(k / (3 n + k))                     (MoGo's RAVE schedule; 1 when n = 0)

where ``n~' = n~ + prior_visits`` and ``w~' = w~ + prior_visits * r`` add the
prior as equivalent experience (``r = 1/2`` on points, ``pass_prior`` on pass,
which never gets AMAF samples), ``k`` is ``rave_equivalence``, ``C``
``exploration`` and ``N`` the node's visits. Pass has no AMAF samples, so
its value is its own mean with the prior as ``prior_visits`` equivalent
visits: ``(w + prior_visits * pass_prior) / (n + prior_visits)`` (plus the
UCB term). With no sample at all the value
is ``first_play_urgency``. Illegal actions are ``-inf``: the tree never
selects them. Ties are broken by a tiny random jitter from the search's
seeded generator, so a search is reproducible.
"""

from __future__ import annotations

import numpy as np

from gojax.search._settings import TreeSearchSettings
from gojax.search._tree import Tree

__all__ = ["child_values", "prior_rates"]


def prior_rates(num_actions: int, settings: TreeSearchSettings) -> np.ndarray:
    """``float64[A]``: the prior win rate of each action (1/2 on points, ``pass_prior`` on pass)."""
    rates = np.full(num_actions, 0.5)
    rates[-1] = settings.pass_prior
    return rates


def child_values(
    tree: Tree,
    node: int,
    settings: TreeSearchSettings,
    rates: np.ndarray,
    jitter: np.ndarray | None = None,
) -> np.ndarray:
    """``float64[A]``: the selection value of each action at ``node`` (``-inf`` where illegal).

    Args:
      tree: the tree.
      node: an expanded node.
      settings: the search settings (RAVE constant, exploration, prior).
      rates: :func:`prior_rates`.
      jitter: ``float64[A]`` added to break ties, or ``None``.
    """
    kids = tree.children[node]
    index = np.maximum(kids, 0)
    seen = kids >= 0
    n = tree.visits[index] * seen
    w = tree.wins[index] * seen
    prior_n = settings.prior_visits
    amaf_n = tree.amaf_visits[node] + prior_n
    amaf_w = tree.amaf_wins[node] + prior_n * rates
    if prior_n > 0:  # every count is positive
        amaf_mean = amaf_w / amaf_n
    else:
        urgency = np.full_like(amaf_n, settings.first_play_urgency)
        amaf_mean = np.divide(amaf_w, amaf_n, out=urgency, where=amaf_n > 0)
    if settings.rave_equivalence > 0:
        k = settings.rave_equivalence
        beta = np.sqrt(k / (3.0 * n + k))
    else:
        beta = (n == 0).astype(np.float64)
        amaf_mean = (
            rates.astype(np.float64) if prior_n > 0 else np.full_like(amaf_n, settings.first_play_urgency)
        )
    # Pass never gets AMAF samples: its prior is equivalent experience on its own mean.
    if prior_n > 0:
        beta[-1] = prior_n / (n[-1] + prior_n)
        amaf_mean[-1] = rates[-1]
    else:
        beta[-1] = 0.0 if n[-1] > 0 else 1.0
        amaf_mean[-1] = settings.first_play_urgency
    mean = w / np.maximum(n, 1e-300)  # 0 where unvisited (w = 0 there)
    value = mean + beta * (amaf_mean - mean)
    if settings.exploration > 0:
        value += settings.exploration * np.sqrt(np.log(tree.visits[node] + 1.0) / (n + 1.0))
    if jitter is not None:
        value += jitter
    return np.where(tree.legal[node], value, -np.inf)
