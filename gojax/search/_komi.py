"""Dynamic komi: the extra komi that makes a search that is far ahead play for points.

A Monte-Carlo search judges moves by their win rate. Far ahead, nearly every
move wins nearly every playout, so the search stops telling a solid move
from a slack one, and a lead can drain away move by move (MoGo's and
Pachi's "dynamic komi", Baudis 2011). With ``TreeSearchSettings.dynamic_komi``
at ``f > 0``, each search's playouts are scored with the game's komi plus
an offset that asks the player to move to win by ``f`` of its lead:

* the lead is black's mean playout score (area minus the game's komi) at the
  root of the previous search of the same game, as the player to move sees
  it;
* only a lead counts: a player that is behind gets no help (offset 0);
* the offset fades linearly from the first move to move ``P / 2``
  (180 on 19x19, 40 on 9x9), where the endgame must count exactly;
* it is a whole number of points, so a half-point komi stays one.

The tree's win rates are then win rates against the shifted komi; scores
(ownership, the lead reported to GTP analysis) always use the game's komi.
"""

from __future__ import annotations

__all__ = ["komi_offset"]


def komi_offset(lead: float, to_play: int, move_number: int, num_points: int, fraction: float) -> float:
    """The extra komi (added to the game's, so positive makes black's task harder) for a search.

    Args:
      lead: black's expected score lead in points (mean playout area score minus the game's komi).
      to_play: the player to move at the root, 0 black or 1 white.
      move_number: the root's move number (0 at the empty board).
      num_points: ``P``, the points of the board.
      fraction: ``f`` in [0, 1], the part of the mover's lead it must win by (0: none).

    Returns:
      ``round(f * lead * (1 - move_number / (P / 2)))`` against the player to move when it
      leads and the game is before move ``P / 2``; else 0.
    """
    mine = lead if to_play == 0 else -lead
    phase = 1.0 - move_number / (0.5 * num_points)
    if fraction <= 0.0 or mine <= 0.0 or phase <= 0.0:
        return 0.0
    extra = float(round(fraction * mine * phase))
    return extra if to_play == 0 else -extra
