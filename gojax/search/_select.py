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

Two ways to the same numbers: :func:`child_values` computes a node's values
from the tree's statistics as they stand (for the root's statistics, and by
hand); the search's descent reads them from the tree's cache ``Tree.blend``
(:func:`selection_values`), the value of each edge without the UCB term and
the jitter. :func:`refresh` first brings the cache up to date where the
tree marked its statistics changed: the rows of the nodes that backups and
expansions touched in one vectorized :func:`_blend` (the computation of
:func:`child_values`), the few edges that a path's virtual loss touched one
by one in Python floats (:func:`_blend_edges`: the same operations in the
same order). IEEE 754 arithmetic rounds alike in both, so the values, and
the trees a search grows, are bit-identical to those of :func:`child_values`;
a descent costs one small refresh and one addition per node instead of some
twenty NumPy calls per node.
"""

from __future__ import annotations

import math

import numpy as np

from gojax.search._settings import TreeSearchSettings
from gojax.search._tree import Tree

__all__ = ["child_values", "prior_rates", "refresh", "selection_values"]


def prior_rates(num_actions: int, settings: TreeSearchSettings) -> np.ndarray:
    """``float64[A]``: the prior win rate of each action (1/2 on points, ``pass_prior`` on pass)."""
    rates = np.full(num_actions, 0.5)
    rates[-1] = settings.pass_prior
    return rates


def _prior_visits(settings: TreeSearchSettings) -> float:
    """The prior's equivalent visits: as set, or (``None``) those of a search without a guide
    (:meth:`TreeSearchSettings.resolved`; a :class:`~gojax.search.TreeSearch` resolves its own)."""
    return settings.resolved(guided=False).prior_visits  # type: ignore[return-value]


def _blend(
    n: np.ndarray,
    w: np.ndarray,
    amaf_visits: np.ndarray,
    amaf_wins: np.ndarray,
    rates: np.ndarray,
    is_pass: np.ndarray,
    settings: TreeSearchSettings,
) -> np.ndarray:
    """``float64[...]``: the value of each edge without the UCB term, its legality ignored.

    All arguments have one shape (any): the child's visits ``n`` and wins
    ``w`` (0 without a child), the node's AMAF samples and wins for the
    action, its prior rate and whether the action is pass. Elementwise, so
    one edge's value does not depend on which others are computed with it.
    """
    prior_n = _prior_visits(settings)
    amaf_n = amaf_visits + prior_n
    amaf_w = amaf_wins + prior_n * rates
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
        beta = np.where(is_pass, prior_n / (n + prior_n), beta)
        amaf_mean = np.where(is_pass, rates, amaf_mean)
    else:
        beta = np.where(is_pass, np.where(n > 0, 0.0, 1.0), beta)
        amaf_mean = np.where(is_pass, settings.first_play_urgency, amaf_mean)
    mean = w / np.maximum(n, 1e-300)  # 0 where unvisited (w = 0 there)
    return mean + beta * (amaf_mean - mean)


def _child_counts(tree: Tree, kids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The visits and wins (``float64``, shaped as ``kids``) of the children ``kids`` (0 where -1)."""
    index = np.maximum(kids, 0)
    seen = kids >= 0
    return tree.visits[index] * seen, tree.wins[index] * seen


def _exploration(tree: Tree, node: int, n: np.ndarray, settings: TreeSearchSettings) -> np.ndarray:
    """``float64[A]``: the UCB term of each child of ``node`` (``n``: their visits)."""
    return settings.exploration * np.sqrt(np.log(tree.visits[node] + 1.0) / (n + 1.0))


def child_values(
    tree: Tree,
    node: int,
    settings: TreeSearchSettings,
    rates: np.ndarray,
    jitter: np.ndarray | None = None,
) -> np.ndarray:
    """``float64[A]``: the selection value of each action at ``node`` (``-inf`` where illegal).

    Computed from the tree's statistics as they stand (the cache is not read).

    Args:
      tree: the tree.
      node: an expanded node.
      settings: the search settings (RAVE constant, exploration, prior).
      rates: ``float[A]`` the prior win rates (``Tree.prior_rate[node]``, or :func:`prior_rates`).
      jitter: ``float64[A]`` added to break ties, or ``None``.
    """
    n, w = _child_counts(tree, tree.children[node])
    is_pass = np.arange(tree.num_actions) == tree.num_actions - 1
    value = _blend(n, w, tree.amaf_visits[node], tree.amaf_wins[node], rates, is_pass, settings)
    if settings.exploration > 0:
        value += _exploration(tree, node, n, settings)
    if jitter is not None:
        value += jitter
    return np.where(tree.legal[node], value, -np.inf)


def refresh(tree: Tree, settings: TreeSearchSettings) -> None:
    """Recomputes ``tree.blend`` where the tree marked it stale (all of it for other settings).

    Each stale edge ``(i, a)`` gets the value of :func:`child_values` with
    the rates ``tree.prior_rate[i]``, without the UCB term and jitter
    (``-inf`` where illegal). Stale nodes (after backups and expansions:
    many) are recomputed in one vectorized :func:`_blend` over their rows;
    the other stale edges (a path's virtual loss: a few) one by one in
    Python floats (:func:`_blend_edges`), where NumPy's cost per call would
    dominate.
    """
    if tree.blend_settings is not settings and tree.blend_settings != settings:
        tree.stale_rows.update(range(tree.size))
        tree.blend_settings = settings
    rows, edges = tree.stale_rows, tree.stale_edges
    if rows:
        nodes = np.fromiter(rows, np.int64, len(rows))
        n, w = _child_counts(tree, tree.children[nodes])
        is_pass = np.arange(tree.num_actions) == tree.num_actions - 1
        rates = tree.prior_rate[nodes]
        value = _blend(n, w, tree.amaf_visits[nodes], tree.amaf_wins[nodes], rates, is_pass, settings)
        tree.blend[nodes] = np.where(tree.legal[nodes], value, -np.inf)
        edges = [edge for edge in edges if edge[0] not in rows]
    _blend_edges(tree, edges, settings)
    tree.stale_rows.clear()
    tree.stale_edges.clear()


def _blend_edges(tree: Tree, edges: list[tuple[int, int]], settings: TreeSearchSettings) -> None:
    """Sets ``tree.blend`` at each edge ``(i, a)``: :func:`_blend`'s operations, in the same order, on floats.

    Python's float arithmetic and ``math.sqrt`` round as NumPy's ``float64``
    does (IEEE 754), and the prior's wins ``prior_visits * r`` are a
    ``float32`` product there as in :func:`_blend` (``r`` is ``float32``), so
    each value is bit-identical to the vectorized one.
    """
    prior_n, k, urgency = _prior_visits(settings), settings.rave_equivalence, settings.first_play_urgency
    prior32 = np.float32(prior_n)
    passing = tree.num_actions - 1
    children, visits, wins, legal = tree.children, tree.visits, tree.wins, tree.legal
    amaf_visits, amaf_wins, rates, blend = tree.amaf_visits, tree.amaf_wins, tree.prior_rate, tree.blend
    for node, action in edges:
        if not legal[node, action]:
            blend[node, action] = -math.inf
            continue
        kid = children[node, action]
        n, w = (float(visits[kid]), float(wins[kid])) if kid >= 0 else (0.0, 0.0)
        if action == passing:
            if prior_n > 0:
                beta, amaf_mean = prior_n / (n + prior_n), float(rates[node, action])
            else:
                beta, amaf_mean = (0.0 if n > 0 else 1.0), urgency
        elif k > 0:
            beta = math.sqrt(k / (3.0 * n + k))
            amaf_n = float(amaf_visits[node, action]) + prior_n
            amaf_w = float(amaf_wins[node, action]) + float(prior32 * rates[node, action])
            amaf_mean = amaf_w / amaf_n if prior_n > 0 or amaf_n > 0 else urgency
        else:
            beta = 1.0 if n == 0 else 0.0
            amaf_mean = float(rates[node, action]) if prior_n > 0 else urgency
        mean = w / (n if n > 1e-300 else 1e-300)  # np.maximum(n, 1e-300): n is never NaN
        blend[node, action] = mean + beta * (amaf_mean - mean)


def selection_values(tree: Tree, node: int, settings: TreeSearchSettings, jitter: np.ndarray) -> np.ndarray:
    """``float64[A]``: :func:`child_values` at ``node`` (rates ``tree.prior_rate[node]``), from the cache.

    The tree's cache must be fresh (:func:`refresh` since its last change).

    Args:
      tree: the tree.
      node: an expanded node.
      settings: the search settings (those of the last :func:`refresh`).
      jitter: ``float64[A]`` added to break ties.
    """
    value = tree.blend[node]
    if settings.exploration > 0:
        value = value + _exploration(tree, node, _child_counts(tree, tree.children[node])[0], settings)
    return value + jitter
