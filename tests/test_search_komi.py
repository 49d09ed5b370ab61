"""Dynamic komi (``TreeSearchSettings.dynamic_komi``): the offset rule, and a search that uses it.

The 5x5 config and settings of tests/test_search.py, so the batch step is
compiled once.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import gojax
from gojax.search import TreeSearch, TreeSearchSettings, komi_offset

CONFIG = gojax.GoConfig(size=5, komi=0.5)
SETTINGS = TreeSearchSettings(leaves_per_batch=8, playouts_per_leaf=4)

# Black to move and ahead: two walls, black's with the larger side and most of the middle
# column; the playouts give black about 15 points to white's 10.
AHEAD = """
. X . O .
. X X O .
X X . O O
. X X O .
. X . O .
"""


def test_the_offset_asks_the_leader_only_and_fades_out():
    P = 361
    # Black leads by 20 at the start: half of it, against black (positive komi).
    assert komi_offset(20.0, 0, 0, P, 0.5) == 10.0
    # White to move and leading by 20 (black's lead -20): half of it against white.
    assert komi_offset(-20.0, 1, 0, P, 0.5) == -10.0
    # The player to move is behind: no offset, whichever colour.
    assert komi_offset(-20.0, 0, 0, P, 0.5) == 0.0 and komi_offset(20.0, 1, 0, P, 0.5) == 0.0
    # Linear fade: at move P / 4 half of it is left, from move P / 2 on none.
    assert komi_offset(20.0, 0, 90, P, 1.0) == pytest.approx(round(20.0 * (1 - 90 / 180.5)))
    assert komi_offset(20.0, 0, 181, P, 1.0) == 0.0 and komi_offset(20.0, 0, 400, P, 1.0) == 0.0
    # Off, and whole points (a half-point komi stays one).
    assert komi_offset(20.0, 0, 0, P, 0.0) == 0.0
    offsets = [komi_offset(lead, 0, 7, P, 0.37) for lead in np.linspace(0.1, 60, 50)]
    assert all(float(x).is_integer() for x in offsets) and max(offsets) > 0
    assert offsets == sorted(offsets)  # a larger lead never asks for less


def _searches(fraction: float, seed: int = 3) -> tuple[TreeSearch, list[float], list[float]]:
    """Two searches of the AHEAD position (the second reuses the first's tree): the search, the
    offset each used and black's playout win rate in each (white is to move at the root's
    children: the root's wins are white's)."""
    search = TreeSearch(CONFIG, dataclasses.replace(SETTINGS, dynamic_komi=fraction), seed=seed)
    search.set_root(gojax.from_ascii(CONFIG, AHEAD))
    offsets, black_wins, before = [], [], (0.0, 0.0)
    for _ in range(2):
        search.search(playouts=512)
        tree = search._tree
        visits, white_wins = tree.visits[0] - before[0], tree.wins[0] - before[1]
        offsets.append(search.komi_offset)
        black_wins.append(1.0 - white_wins / visits)
        before = (tree.visits[0], tree.wins[0])
    return search, offsets, black_wins


def test_a_search_ahead_plays_against_the_shifted_komi():
    """The first search has no lead to go by (the game's komi); the second asks black for the
    lead the first found; its playouts, scored with that komi, win less often than the same
    search's without dynamic komi (the same seed: the same first search, the same tree)."""
    plain, offsets_a, wins_a = _searches(0.0)
    dynamic, offsets_b, wins_b = _searches(1.0)
    assert offsets_a == [0.0, 0.0] and offsets_b[0] == 0.0
    assert dynamic.stats().komi_offset == offsets_b[1] and plain.stats().komi_offset == 0.0
    assert wins_a[0] == wins_b[0]  # identical until the komi moves
    lead = dynamic._tree.black_score[0] / dynamic._tree.visits[0]
    assert lead > 1.5  # black is ahead by the playouts' count
    assert offsets_b[1] == round(lead_after_first(dynamic_komi=1.0))
    assert wins_a[1] > 0.95 and wins_b[1] < wins_a[1] - 0.05
    # Scores keep the game's komi: the lead the two trees report is the same measure.
    assert abs(plain._tree.black_score[0] / plain._tree.visits[0] - lead) < 1


def lead_after_first(dynamic_komi: float) -> float:
    """Black's mean playout score at the root after the first search."""
    search = TreeSearch(CONFIG, dataclasses.replace(SETTINGS, dynamic_komi=dynamic_komi), seed=3)
    search.set_root(gojax.from_ascii(CONFIG, AHEAD))
    search.search(playouts=512)
    return search._tree.black_score[0] / search._tree.visits[0]


def test_a_new_game_or_a_new_komi_starts_without_an_offset():
    search, offsets, _ = _searches(1.0)
    assert offsets[1] > 0
    search.set_root(gojax.init(CONFIG))  # a new game: move 0 again, its first search at the game's komi
    search.search(playouts=64)
    assert search.komi_offset == 0.0
    search.set_root(gojax.from_ascii(CONFIG, AHEAD))
    search.search(playouts=64)
    search.set_komi(1.5)  # the tree and the lead it found are dropped
    search.set_root(gojax.from_ascii(CONFIG.with_komi(1.5), AHEAD))
    search.search(playouts=64)
    assert search.komi_offset == 0.0


@pytest.mark.parametrize("value", [-0.1, 1.5, float("nan")])
def test_bad_dynamic_komi_names_the_value(value):
    with pytest.raises(ValueError, match=r"TreeSearchSettings\.dynamic_komi"):
        TreeSearchSettings(dynamic_komi=value)
