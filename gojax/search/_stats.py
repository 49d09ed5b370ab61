"""``SearchStats``: the root statistics of a :class:`gojax.search.TreeSearch`, on the host."""

from __future__ import annotations

import dataclasses

import numpy as np

__all__ = ["SearchStats"]


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
