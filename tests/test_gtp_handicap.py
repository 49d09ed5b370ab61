"""GTP handicap commands: ``fixed_handicap``, ``place_free_handicap``, ``set_free_handicap``.

* ``fixed_handicap`` against GNU Go's placement (an engine no one here wrote)
  for 2..10 stones on 7x7 to 13x13 and 19x19: the same vertex sets, and the same
  requests refused.
* ``place_free_handicap``: the fixed layout where there is one; otherwise
  spread, legal stones that GNU Go accepts through its ``set_free_handicap``.
* ``set_free_handicap``'s checks (board not empty, repeats, pass, too few or
  too many stones), white moving first after handicap stones, and the SGF
  that ``printsgf`` writes (``HA``, ``AB``, ``PL``) read back by sgfmill and by
  ``loadsgf``.

No JAX compile: the engines here never run ``genmove``.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import gnugo_client, needs

import gojax
from gojax import gtp
from gojax.gtp import PlayerSpec

SIZES = (7, 8, 9, 10, 11, 12, 13, 19)


def _engine(size: int) -> gtp.GTPEngine:
    return gtp.GTPEngine(gojax.GoConfig(size=size), PlayerSpec("random", seed=3))


def _reply(client_or_engine, command: str) -> tuple[bool, str]:
    """``(ok, text)`` of one command sent to an engine or a client."""
    try:
        return True, client_or_engine.send(command)
    except gtp.GTPError as error:
        return False, error.message


def _vertices(text: str) -> set[str]:
    return {word.upper() for word in text.split()}


def _stones(engine: gtp.GTPEngine) -> set[str]:
    """The vertices of the stones on the engine's board (read from its game, not a command)."""
    points = np.flatnonzero(engine.game.board().reshape(-1))
    return {gojax.to_gtp(engine.config, int(p)) for p in points}


@pytest.fixture(scope="module")
def gnugo():
    yield from gnugo_client(level=1, timeout=60)


def test_fixed_handicap_matches_gnugo(gnugo):
    compared = 0
    for size in SIZES:
        ours = _engine(size)
        gnugo.send(f"boardsize {size}")
        for count in range(1, 11):
            ours.send("clear_board")
            gnugo.send("clear_board")
            ok, text = _reply(ours, f"fixed_handicap {count}")
            gnu_ok, gnu_text = _reply(gnugo, f"fixed_handicap {count}")
            assert ok == gnu_ok, (size, count, text, gnu_text)
            if not ok:
                assert text.startswith("invalid number of stones"), text
                continue
            assert _vertices(text) == _vertices(gnu_text), (size, count)
            assert _vertices(gnugo.send("list_stones black")) == _vertices(text)
            assert _stones(ours) == _vertices(text)  # the stones are on our board
            compared += 1
    assert compared == 4 * 3 + 4 * 8  # 7, 8, 10, 12: 2..4 stones; 9, 11, 13, 19: 2..9


def test_place_free_handicap_is_fixed_where_defined_and_legal_elsewhere(gnugo):
    for size, count in ((9, 5), (13, 9), (19, 4)):
        engine = _engine(size)
        placed = _vertices(engine.send(f"place_free_handicap {count}"))
        engine.send("clear_board")
        assert placed == _vertices(engine.send(f"fixed_handicap {count}"))
    for size, count in ((5, 2), (5, 4), (8, 6), (9, 12), (19, 20), (3, 8)):
        engine = _engine(size)
        placed = engine.send(f"place_free_handicap {count}").split()
        assert 2 <= len(placed) <= count and len(set(placed)) == len(placed), (size, placed)
        if size >= 5:
            assert len(placed) == count, (size, placed)
        points = [gojax.from_gtp(engine.config, v) for v in placed]
        grid = np.zeros((size + 2, size + 2), bool)
        for point in points:
            grid[point // size + 1, point % size + 1] = True
        for point in points:  # no two handicap stones side by side
            row, col = point // size + 1, point % size + 1
            assert not (grid[row - 1, col] or grid[row + 1, col] or grid[row, col - 1] or grid[row, col + 1])
        assert _stones(engine) == _vertices(" ".join(placed))
        if size >= 5:  # GNU Go accepts the placement as a free handicap
            gnugo.send(f"boardsize {size}")
            assert _vertices(gnugo.send(f"set_free_handicap {' '.join(placed)}")) == set()
            assert _vertices(gnugo.send("list_stones black")) == _vertices(" ".join(placed))


@pytest.mark.parametrize(
    ("command", "error"),
    [
        ("set_free_handicap A1", "bad vertex list: 1 stones"),
        ("set_free_handicap A1 A1", "bad vertex list: A1 is repeated"),
        ("set_free_handicap A1 pass", "bad vertex list: pass is not a point"),
        ("set_free_handicap A1 Z9", "syntax error: invalid vertex"),
        ("set_free_handicap", "syntax error"),
        ("fixed_handicap 1", "invalid number of stones"),
        ("fixed_handicap two", "syntax error"),
        ("place_free_handicap 1", "invalid number of stones"),
        ("place_free_handicap 25", "invalid number of stones"),
    ],
)
def test_bad_handicap_requests_are_gtp_errors(command, error):
    engine = _engine(5)
    with pytest.raises(gtp.GTPError, match=error.replace("(", r"\(")):
        engine.send(command)
    assert _stones(engine) == set()  # nothing was placed


def test_handicap_needs_an_empty_board_and_allows_all_but_one_point():
    engine = _engine(5)
    engine.send("play b C3")
    for command in ("set_free_handicap A1 B2", "fixed_handicap 2", "place_free_handicap 2"):
        with pytest.raises(gtp.GTPError, match="board not empty"):
            engine.send(command)
    engine.send("clear_board")
    every = [gojax.to_gtp(engine.config, p) for p in range(25)]
    with pytest.raises(gtp.GTPError, match="25 stones"):
        engine.send("set_free_handicap " + " ".join(every))
    assert engine.send("set_free_handicap " + " ".join(every[:-1])) == ""  # 24 stones, one liberty
    assert len(_stones(engine)) == 24


def test_white_moves_first_after_handicap_and_undo_keeps_the_stones():
    engine = _engine(9)
    assert _vertices(engine.send("fixed_handicap 2")) == {"C3", "G7"}
    assert engine.send("showboard").splitlines()[-1].startswith("white to move; move 0")
    engine.send("play w E5")
    assert engine.game.moves == [(gojax.WHITE, gojax.from_gtp(engine.config, "E5"))]  # no pass inserted
    engine.send("undo")
    with pytest.raises(gtp.GTPError, match="cannot undo"):
        engine.send("undo")
    assert _stones(engine) == {"C3", "G7"}
    engine.send("clear_board")
    assert _stones(engine) == set() and engine.game.handicap == 0


def test_printsgf_writes_the_handicap_and_loadsgf_reads_it_back(tmp_path):
    needs("sgfmill")
    from sgfmill import sgf, sgf_moves

    engine = _engine(9)
    engine.send("komi 0.5")
    placed = _vertices(engine.send("fixed_handicap 3"))
    engine.send("play w E5")
    engine.send("play b D5")
    text = engine.send("printsgf")
    game = sgf.Sgf_game.from_string(text)
    root = game.get_root()
    assert root.get("HA") == 3 and root.get("KM") == 0.5
    board, moves = sgf_moves.get_setup_and_moves(game)
    columns = "ABCDEFGHJ"
    occupied = board.list_occupied_points()
    setup = {f"{columns[col]}{row + 1}" for colour, (row, col) in occupied if colour == "b"}
    assert setup == placed and len(occupied) == 3
    assert [(colour, point) for colour, point in moves] == [("w", (4, 4)), ("b", (4, 3))]
    path = tmp_path / "handicap.sgf"
    engine.send(f"printsgf {path}")
    other = _engine(9)
    other.send(f"loadsgf {path}")
    assert other.game.handicap == 3 and other.game.first_player == gojax.WHITE
    assert _stones(other) == placed | {"E5", "D5"}
    assert other.send("printsgf") == text
