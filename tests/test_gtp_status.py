"""The engine's dead stones: ``final_status_list``, ``final_score``, ``kgs-genmove_cleanup``.

Hand-made 9x9 positions, each loaded as an SGF setup (``loadsgf``, as a GUI
does), with the answers worked out by hand and checked against GNU Go's
``final_status_list`` (an engine no one here wrote):

* lone stones inside the other colour's large territory are dead, and
  ``final_score`` counts the board without them (by hand, and by the
  reference Tromp-Taylor count of tests/conftest.py);
* a seki in a corner (two inner chains with one eye each and one shared
  liberty) is listed as seki, and its points count for no one;
* a pass-alive group deep inside the opponent's area stays alive;
* ``kgs-genmove_cleanup`` with a player that always passes takes the dead
  stones off, then passes, while ``genmove`` passes at once;
* on the last position of three real 9x9 game records, the dead list is
  GNU Go's.

One 9x9 compile of the estimate is shared by every test (module scope).
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SGF_DATA, gnugo_client, ref_area_difference

import gojax
from gojax import gtp
from gojax._host.results import format_margin
from gojax.gtp import EngineOptions, Level, PlayerSpec
from gojax.gtp._status import judge

CONFIG = gojax.GoConfig(size=9)
KOMI = 7.5

# Black owns columns A-D, white E-J; white B8 and black H2 are lone stones in the other's area.
DEAD = """
. . . X O . . . .
. O . X O . . . .
. . . X O . . . .
. . . X O . . . .
. . . X O . . . .
. . . X O . . . .
. . . X O . . . .
. . . X O . . X .
. . . X O . . . .
"""
# Black's inner chain (B9 A8 B8 C8, eye A9) and white's (D9 D8 E8 F8 F9, eye E9) share C9:
# whoever fills C9 is left in atari. Outer white (left) and outer black (right) live; A5 and G4 are dead.
SEKI = """
. X . O . O X . .
X X X O O O X . .
O O O X X X X . .
. . O X . . . . .
X . O X . . . . .
. . O X . . O . .
. . O X . . . . .
. . O X . . . . .
. . O X . . . . .
"""
# A black group with two one-point eyes (G1 and J1) inside white's area: pass-alive.
PASS_ALIVE = """
. . . X O . . . .
. . . X O . . . .
. . . X O . . . .
. . . X O . . . .
. . . X O . . . .
. . . X O . . . .
. . . X O . . . .
. . . X O X X X X
. . . X O X . X .
"""
FINISHED = ("small_gnugo_cgf2005_9x9_katsunari2.sgf", "small_gnugo_kgs_tournament8_viking5-GNU.sgf",
            "small_gnugo_scoring_score46.sgf")  # fmt: skip


def _vertices(mask: np.ndarray) -> set[str]:
    return {gojax.to_gtp(CONFIG, int(p)) for p in np.flatnonzero(mask.reshape(-1))}


def _load(engine: gtp.GTPEngine, diagram: str, folder) -> np.ndarray:
    """Loads ``diagram`` into ``engine`` as an SGF setup position; returns its board."""
    grid = gojax.parse_board(diagram)
    path = folder / "position.sgf"
    path.write_text(gojax.sgf.to_sgf(CONFIG, [], setup=grid))
    engine.send(f"loadsgf {path}")
    return grid


def _listed(engine, status: str) -> set[str]:
    return set(engine.send(f"final_status_list {status}").split())


@pytest.fixture(scope="module")
def engine():
    return gtp.GTPEngine(CONFIG, PlayerSpec("random", seed=0))


@pytest.fixture(scope="module")
def gnugo():
    yield from gnugo_client(level=10, timeout=120)


def _gnugo_status(gnugo, grid: np.ndarray, status: str) -> set[str]:
    gnugo.send("boardsize 9")
    gnugo.send("clear_board")
    for point in np.flatnonzero(grid.reshape(-1)):
        colour = "b" if grid.reshape(-1)[point] == gojax.BLACK else "w"
        gnugo.send(f"play {colour} {gojax.to_gtp(CONFIG, int(point))}")
    return {v.upper() for v in gnugo.send(f"final_status_list {status}").split()}


def test_lone_stones_in_territory_are_dead_and_leave_the_score(engine, gnugo, tmp_path):
    grid = _load(engine, DEAD, tmp_path)
    assert _listed(engine, "dead") == {"B8", "H2"} == _gnugo_status(gnugo, grid, "dead")
    assert _listed(engine, "seki") == set()
    assert _listed(engine, "alive") == _vertices(grid != 0) - {"B8", "H2"}
    # Without B8 and H2: black 4 columns (36 points), white 5 (45); komi 7.5.
    assert engine.send("final_score") == "W+16.5"
    # The bare Tromp-Taylor count: each dead stone makes its region neutral.
    assert format_margin(engine.game.score()) == "W+7.5"


def test_seki_is_listed_and_its_liberty_is_no_ones(engine, gnugo, tmp_path):
    grid = _load(engine, SEKI, tmp_path)
    inner = {"B9", "A8", "B8", "C8", "D9", "D8", "E8", "F8", "F9"}
    assert _listed(engine, "seki") == inner == _gnugo_status(gnugo, grid, "seki")
    assert _listed(engine, "dead") == {"A5", "G4"} == _gnugo_status(gnugo, grid, "dead")
    assert _listed(engine, "alive") == _vertices(grid != 0) - inner - {"A5", "G4"}
    cleared = grid.copy()
    for vertex in ("A5", "G4"):
        cleared.reshape(-1)[gojax.from_gtp(CONFIG, vertex)] = gojax.EMPTY
    assert engine.send("final_score") == format_margin(ref_area_difference(cleared) - KOMI)


def test_a_pass_alive_group_inside_the_opponents_area_is_alive(engine, gnugo, tmp_path):
    grid = _load(engine, PASS_ALIVE, tmp_path)
    group = {"F2", "G2", "H2", "J2", "F1", "H1"}
    assert group <= _listed(engine, "alive") and _listed(engine, "dead") == set()
    assert _gnugo_status(gnugo, grid, "dead") == set()


def _always_pass(config, state, key):
    return config.pass_action


def test_kgs_genmove_cleanup_takes_dead_stones_off_before_passing(tmp_path):
    level = Level("always pass", lambda config: _always_pass, "pass", jit=False)
    engine = gtp.GTPEngine(CONFIG, PlayerSpec(seed=0), EngineOptions(levels=[level], allow_early_pass=True))
    grid = _load(engine, DEAD, tmp_path)
    engine.send("play b A8")
    engine.send("play b C8")  # white B8 keeps two liberties, B9 and B7
    assert engine.send("genmove b") == "pass"
    engine.send("undo")
    played = []
    for _ in range(4):
        move = engine.send("kgs-genmove_cleanup b")
        played.append(move)
        if move == "pass":
            break
        engine.send("play w pass")
    assert sorted(played[:2]) == ["B7", "B9"] and played[2] == "pass", played
    assert set(engine.send("list_stones white").split()) == _vertices(grid == gojax.WHITE) - {"B8"}
    assert _listed(engine, "dead") == {"H2"}
    assert engine.send("final_score") == "W+16.5"  # black filled its own area: the same score
    # Two passes ended the game: genmove passes, the cleanup goes on (white still has H2 to take).
    assert engine.send("reg_genmove w") == "pass"
    assert engine.send("kgs-genmove_cleanup w") in {"G2", "H3", "J2", "H1"}


@pytest.mark.skipif(not SGF_DATA.exists(), reason="shared SGF data not present")
@pytest.mark.parametrize("name", FINISHED)
def test_dead_stones_of_finished_games_are_gnugos(engine, gnugo, name):
    path = SGF_DATA / name
    engine.send(f"loadsgf {path}")
    gnugo.send(f"loadsgf {path}")
    theirs = {v.upper() for v in gnugo.send("final_status_list dead").split()}
    assert len(theirs) >= 10  # games that end with dead stones on the board
    assert _listed(engine, "dead") == theirs


def test_bad_playout_counts_are_refused():
    for bad in (0, -3, 2.5, True, "64"):
        with pytest.raises(ValueError, match="playouts must be a positive int"):
            judge(CONFIG, np.zeros((9, 9), np.int8), playouts=bad)
