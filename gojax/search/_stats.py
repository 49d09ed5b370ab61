"""``SearchStats``: the root statistics of a :class:`gojax.search.TreeSearch`, read off its tree."""

from __future__ import annotations

import dataclasses

import numpy as np

from gojax._core.types import GoConfig
from gojax.search._select import child_values
from gojax.search._settings import TreeSearchSettings
from gojax.search._tree import Tree

__all__ = ["SearchStats", "root_stats"]


@dataclasses.dataclass(frozen=True)
class SearchStats:
    """What a search knows about the root position (host NumPy; ``P`` points, ``A = P + 1``).

    Attributes:
      to_play: 1 black, 2 white: the player to move at the root.
      visits: ``int64[A]`` playouts through each root child (0 where unvisited
        or illegal).
      winrate: ``float32[A]`` each child's mean result for the root's player
        to move, in [0, 1] (a draw counts 1/2); NaN where unvisited.
      prior: ``float32[A]`` the root prior: sums to 1 over the legal moves, 0
        on illegal ones.
      root_winrate: the root player's estimated win probability, in [0, 1].
      best_action: the move the search would play (legal; pass only when
        passing is judged best).
      pvs: for each visited root child, its principal variation starting with
        that action (the most visited child at each step).
      ownership: ``float32[P]`` mean final ownership over the playouts run
        since the root was set, black's view (+1 black, -1 white, 0 neither),
        or ``None`` before any playout.
      playouts: playouts in the current tree (reused ones included).
      seconds: wall-clock seconds of the last ``search`` call (0 from
        ``TreeSearch.stats``).
      score_lead: ``float32[A]`` each child's mean final score (Tromp-Taylor
        area minus komi) for the root's player to move: positive when that
        player is ahead; NaN where unvisited.
      root_score_lead: the root player's mean final score over the root's
        playouts (0 before any).
      komi_offset: the extra komi the last search's playouts were scored
        with (``TreeSearchSettings.dynamic_komi``; positive: against black),
        which the win rates are against; 0 without dynamic komi.
    """

    to_play: int
    visits: np.ndarray
    winrate: np.ndarray
    prior: np.ndarray
    root_winrate: float
    best_action: int
    pvs: dict[int, tuple[int, ...]]
    ownership: np.ndarray | None
    playouts: int
    seconds: float
    score_lead: np.ndarray
    root_score_lead: float
    komi_offset: float = 0.0


def root_stats(
    tree: Tree,
    config: GoConfig,
    settings: TreeSearchSettings,
    ownership: np.ndarray,
    ownership_count: int,
    seconds: float,
) -> SearchStats:
    """The :class:`SearchStats` of ``tree``'s root.

    Args:
      tree: the search tree (node 0 is the root, expanded).
      config: the rules.
      settings: the search settings (for the selection value of an unvisited root).
      ownership: ``float[P]`` summed final ownership of the playouts since the root was set.
      ownership_count: how many playouts ``ownership`` sums.
      seconds: the duration to report.
    """
    kids = tree.children[0]
    visits = np.where(kids >= 0, tree.visits[np.maximum(kids, 0)], 0.0)

    def mean(totals: np.ndarray) -> np.ndarray:  # per child, NaN where unvisited
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(visits > 0, totals[np.maximum(kids, 0)] / visits, np.nan).astype(np.float32)

    winrate = mean(tree.wins)
    sign = 1.0 if tree.to_play[0] == 0 else -1.0  # the root player's view of black's score
    prior = np.where(tree.legal[0], tree.prior_rate[0], 0.0)
    prior = (prior / prior.sum()).astype(np.float32)
    root_visits = tree.visits[0]
    root_winrate = 1.0 - tree.wins[0] / root_visits if root_visits > 0 else 0.5
    root_score_lead = sign * tree.black_score[0] / root_visits if root_visits > 0 else 0.0
    pvs = {int(a): _pv(tree, int(kids[a]), int(a)) for a in np.flatnonzero(visits > 0)}
    return SearchStats(
        to_play=int(tree.to_play[0]) + 1,
        visits=visits.astype(np.int64),
        winrate=winrate,
        prior=prior,
        root_winrate=float(root_winrate),
        score_lead=sign * mean(tree.black_score),
        root_score_lead=float(root_score_lead),
        best_action=_best(tree, config, settings, visits, winrate),
        pvs=pvs,
        ownership=(ownership / ownership_count).astype(np.float32) if ownership_count else None,
        playouts=int(root_visits),
        seconds=float(seconds),
    )


def _best(
    tree: Tree, config: GoConfig, settings: TreeSearchSettings, visits: np.ndarray, winrate: np.ndarray
) -> int:
    """The most visited child (ties: higher win rate, then a point before pass).

    Pass only when passing is judged to win (win rate >= 1/2) or every
    visited point is judged clearly worse than passing (by more than
    0.05): in a lost position, where every move is estimated near 0, the
    search plays on rather than giving the game up.
    """
    pass_ = config.pass_action
    if visits.max() <= 0:
        return int(np.argmax(child_values(tree, 0, settings, tree.prior_rate[0])))
    rate = np.nan_to_num(winrate, nan=-1.0)
    order = np.lexsort((-np.arange(visits.shape[0]), rate, visits))
    best = int(order[-1])
    if best != pass_:
        return best
    points = visits[:pass_] > 0
    if rate[pass_] >= 0.5 or not points.any() or rate[:pass_][points].max() < rate[pass_] - 0.05:
        return pass_
    return int(np.argmax(np.where(points, visits[:pass_], -1)))


def _pv(tree: Tree, node: int, action: int) -> tuple[int, ...]:
    """The principal variation from the root's child ``node`` (reached by ``action``)."""
    line = [action]
    while node >= 0 and len(line) < 64:
        kids = tree.children[node]
        seen = kids >= 0
        if not seen.any():
            break
        visits = np.where(seen, tree.visits[np.maximum(kids, 0)], 0.0)
        if visits.max() <= 0:
            break
        best = int(np.argmax(visits))
        line.append(best)
        node = int(kids[best])
    return tuple(line)
