"""SGF reading, writing and replay (``gojax.sgf``), checked against sgfmill and hand-made records.

* Every one of the 250 real games in ``shared/data/sgf`` is read with gojax's
  own parser and with sgfmill (the independent reference): size, komi, setup,
  main-line moves, result and player names must agree, and match the manifest.
* Round trip: read -> write -> read gives the same game, and sgfmill reads the
  written file to the same moves.
* Replay: every game's final board (from sgfmill's ``Board``) and capture
  counts (from the manifest, checked by the data's authors against GNU Go)
  match gojax's; the two games that repeat a position raise ``SGFError`` at
  the manifest's move under positional superko and replay under simple ko.
* Records from the wild: a property the moves do not need that cannot be
  read (``KM[3又3/4]``, ``PL[X]``, setup and a move in one node) is left out
  with an ``SGFWarning`` by default and refused with ``strict=True``; checked
  on hand-written records and on shared records altered the way copies of
  them circulate, whose moves and final board must still match sgfmill's
  reading of the unaltered file.
* Malformed input and illegal games raise ``SGFError`` with the file, the
  line or move number and the problem; variations, ``[tt]`` passes, setup
  stones, character sets, Fox komi and batch writing are checked on small
  hand-written records.
* Fuzz (hypothesis): random bytes, SGF-alphabet soup and mutated real games
  raise nothing but ``SGFError``, and whatever parses round-trips. Inputs that
  crashed the parser while it was written are kept as explicit cases.
"""

from __future__ import annotations

import functools
import json
import os
import re
import warnings

import numpy as np
import pytest
from conftest import SGF_DATA, sgfmill_grid
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gojax
from gojax import sgf
from gojax.sgf import SGFError, SGFWarning

sgfmill_sgf = pytest.importorskip("sgfmill.sgf")
sgfmill_boards = pytest.importorskip("sgfmill.boards")

DATA = SGF_DATA
needs_data = pytest.mark.skipif(
    not (DATA / "manifest.json").is_file(), reason=f"game records not found at {DATA}"
)
REPEATING_GAMES = {"tactic_gnugo_pending_ko6.sgf", "tactic_gnugo_gifu2006_gnugo-gorimu.sgf"}
_CAPTURES_NOTE = re.compile(r"captures: (\d+) black / (\d+) white stones")
_REPEAT_NOTE = re.compile(r"WARNING: move (\d+) recreates")
_STONE = {None: gojax.EMPTY, "b": gojax.BLACK, "w": gojax.WHITE}
# Fuzz budget per hypothesis test. By default the examples are derandomized (the same every run);
# GOJAX_FUZZ_EXAMPLES=20000 runs a long campaign with fresh random examples.
FUZZ_EXAMPLES = int(os.environ.get("GOJAX_FUZZ_EXAMPLES", "300"))
FUZZ_DERANDOMIZE = "GOJAX_FUZZ_EXAMPLES" not in os.environ


@functools.cache
def _manifest() -> dict[str, dict]:
    return {entry["file"]: entry for entry in json.loads((DATA / "manifest.json").read_text())}


@functools.cache
def _records() -> dict[str, sgf.GameRecord]:
    return {name: sgf.read_sgf(DATA / name) for name in _manifest()}


def _action(size: int, point) -> int:
    """gojax action of an sgfmill point (row 0 at the BOTTOM) or None (pass)."""
    if point is None:
        return size * size
    row, col = point
    return (size - 1 - row) * size + col


@functools.cache
def _reference(name: str) -> dict:
    """What sgfmill reads from a file, and its board after the main line."""
    data = (DATA / name).read_bytes()
    try:
        data.decode("utf-8")
        encoding = "UTF-8"  # sgfmill's default is ISO-8859-1; gojax's is UTF-8
    except UnicodeDecodeError:
        encoding = None  # text differs between the two readers; compared only for valid UTF-8
    game = sgfmill_sgf.Sgf_game.from_bytes(data, override_encoding=encoding)
    size = game.get_size()
    root = game.get_root()
    black, white, empty = root.get_setup_stones()
    board = sgfmill_boards.Board(size)
    assert board.apply_setup(black, white, empty)
    setup = sgfmill_grid(board)
    moves = []
    for node in game.get_main_sequence():
        colour, point = node.get_move()
        if colour is None:
            continue
        moves.append((_STONE[colour], _action(size, point)))
        if point is not None:
            board.play(point[0], point[1], colour)
    text = {}
    if encoding is not None:
        for ident in ("PB", "PW", "RE", "DT"):
            if root.has_property(ident):
                text[ident] = root.get(ident)
    return {
        "size": size,
        "komi": game.get_komi(),
        "setup": setup,
        "moves": moves,
        "final": sgfmill_grid(board),
        "result": root.get("RE") if root.has_property("RE") else None,
        "text": text,
    }


def _board_of(state, size) -> np.ndarray:
    """``int8[N, N]`` from a state's bitboards (point ``p``: bit ``p % 32`` of word ``p // 32``)."""
    stones = np.asarray(state.stones).astype(np.int64)
    points = np.arange(size * size)
    bits = (stones[:, points // 32] >> (points % 32)) & 1
    return (bits[0] + 2 * bits[1]).astype(np.int8).reshape(size, size)


def _same_game(a: sgf.GameRecord, b: sgf.GameRecord) -> None:
    assert a.config == b.config
    assert a.moves == b.moves
    np.testing.assert_array_equal(a.setup, b.setup)
    assert a.first_player == b.first_player
    assert a.result == b.result
    # The writer adds AP (its name) and RU (the config's rules) when the record has none.
    expected = {"AP": f"gojax:{gojax.__version__}", "RU": sgf.rules_string(a.config), **a.metadata}
    assert b.metadata == expected


def _same_reading(a: sgf.GameRecord, b: sgf.GameRecord) -> None:
    """Two readings of the same text (lenient and strict) agree on everything."""
    assert (a.config, a.moves, a.first_player, a.metadata) == (b.config, b.moves, b.first_player, b.metadata)
    np.testing.assert_array_equal(a.setup, b.setup)


# ---------------------------------------------------------------------------
# The 250 real games.


@needs_data
def test_every_file_reads_as_sgfmill_and_the_manifest_say():
    manifest = _manifest()
    assert len(manifest) == 250
    for name, entry in manifest.items():
        record, reference = _records()[name], _reference(name)
        assert record.name == str(DATA / name)
        assert record.config.size == reference["size"] == entry["size"], name
        assert record.config.komi == reference["komi"] == entry["komi"], name  # as recorded, Fox x100 kept
        assert record.config.ko_rule == "positional", name
        assert record.moves == reference["moves"], name
        assert len(record.moves) == entry["moves"], name
        np.testing.assert_array_equal(record.setup, reference["setup"], err_msg=name)
        assert record.result == reference["result"] == entry["result"], name
        for ident, value in reference["text"].items():
            assert record.metadata[ident] == value, (name, ident)
    assert sum(bool(record.setup.any()) for record in _records().values()) == 11
    assert sum(record.variations > 0 for record in _records().values()) > 0  # Fox files keep variations


@needs_data
def test_round_trip_every_file(tmp_path):
    for name, record in _records().items():
        path = tmp_path / name
        text = sgf.write_sgf(record, path)
        assert path.read_bytes().decode("utf-8") == text
        assert text.startswith("(;GM[1]FF[4]CA[UTF-8]"), name
        again = sgf.read_sgf(path)
        _same_game(record, again)
        assert again.variations == 0 and not again.ignored, name
        # An independent reader of what we wrote.
        game = sgfmill_sgf.Sgf_game.from_bytes(text.encode("utf-8"))
        moves = [node.get_move() for node in game.get_main_sequence()]
        moves = [(_STONE[c], _action(record.config.size, p)) for c, p in moves if c is not None]
        assert moves == record.moves, name
        assert game.get_komi() == record.config.komi and game.get_size() == record.config.size, name
    assert not list(tmp_path.glob(".*.tmp")), "temporary files left behind"


@needs_data
def test_replay_every_file_matches_sgfmill_board_and_manifest_captures():
    problems = []
    for name, record in _records().items():
        entry = _manifest()[name]
        captured = _CAPTURES_NOTE.search(entry["note"])
        # gojax counts stones removed BY black, BY white; the note, stones OF black, OF white.
        expected_captures = [int(captured[2]), int(captured[1])]
        if name in REPEATING_GAMES:
            bad = int(_REPEAT_NOTE.search(entry["note"])[1])
            with pytest.raises(SGFError, match=rf"{re.escape(name)}: move {bad} \(.*recreates an earlier"):
                record.replay()
            final = record.replay(ko_rule="simple")
        else:
            final = record.replay()
        if not np.array_equal(_board_of(final, record.config.size), _reference(name)["final"]):
            problems.append(f"{name}: final board differs")
        if np.asarray(final.captures).tolist() != expected_captures:
            problems.append(f"{name}: captures {np.asarray(final.captures).tolist()} != {expected_captures}")
        if bool(final.illegal_move):
            problems.append(f"{name}: illegal move flagged")
    assert not problems, "\n".join(problems[:20])


@needs_data
def test_states_along_a_game_match_sgfmill_after_every_move():
    name = "small_gnugo_cgf2005_9x9_aya2.sgf"
    record = _records()[name]
    states = record.states_along()
    moves = len(record.moves)
    assert np.shape(states.stones) == (moves + 1, 2, 3)  # W = ceil(81 / 32) words
    game = sgfmill_sgf.Sgf_game.from_bytes((DATA / name).read_bytes())
    board = sgfmill_boards.Board(9)
    expected = [sgfmill_grid(board)]
    for node in game.get_main_sequence():
        colour, point = node.get_move()
        if colour is None:
            continue
        if point is not None:
            board.play(point[0], point[1], colour)
        expected.append(sgfmill_grid(board))
    boards = np.stack([_board_of(_index(states, t), 9) for t in range(moves + 1)])
    np.testing.assert_array_equal(boards[-1], np.asarray(gojax.board(record.config, _index(states, moves))))
    np.testing.assert_array_equal(boards, np.stack(expected))
    np.testing.assert_array_equal(np.asarray(states.move_number), np.arange(moves + 1))
    final = record.replay()
    np.testing.assert_array_equal(np.asarray(final.stones), np.asarray(states.stones[-1]))


def _index(states, t):
    return type(states)(**{f: getattr(states, f)[t] for f in states.__dataclass_fields__})


@needs_data
def test_example_games_ship_and_replay_to_their_result():
    """``sgf.example_games()``: the 9x9 records of gojax against GNU Go shipped as package data.

    Each reads as sgfmill reads it, replays to sgfmill's final board, and its
    result (gojax's Tromp-Taylor score after two passes) is the replay's.
    """
    paths = sgf.example_games()
    assert [p.name for p in paths] == [f"game_{i:03d}.sgf" for i in range(5)]
    assert sum(p.stat().st_size for p in paths) < 8_000  # small: they ship in the wheel
    for path in paths:
        record = sgf.read_sgf(path)
        assert record.config.size == 9 and record.config.komi == 7.5 and record.config.ko_rule == "positional"
        assert record.metadata["AP"].startswith("gojax:") and "gnugo:1" in (
            record.metadata["PB"],
            record.metadata["PW"],
        )
        game = sgfmill_sgf.Sgf_game.from_bytes(path.read_bytes())
        board = sgfmill_boards.Board(9)
        moves = []
        for node in game.get_main_sequence():
            colour, point = node.get_move()
            if colour is not None:
                moves.append((_STONE[colour], _action(9, point)))
                if point is not None:
                    board.play(point[0], point[1], colour)
        assert moves == record.moves and [action for _, action in moves[-2:]] == [81, 81], path.name
        final = record.replay()
        assert bool(final.terminated), path.name  # two passes
        np.testing.assert_array_equal(_board_of(final, 9), sgfmill_grid(board))
        assert sgf.result_string(record.config, final) == record.result == game.get_root().get("RE")


def test_fox_komi_is_converted_only_when_asked():
    by_km = {}
    for name, record in _records().items():
        if name.startswith("pro19_fox") and record.komi_recorded:
            by_km.setdefault((record.komi_recorded, record.metadata.get("RU")), name)
    assert set(by_km) == {(650.0, "Japanese"), (750.0, "Japanese"), (375.0, "Chinese")}
    expected = {650.0: 6.5, 750.0: 7.5, 375.0: 7.5}  # 375: 3.75 stones of Chinese counting
    for (km, _), name in by_km.items():
        assert sgf.read_sgf(DATA / name).config.komi == km
        converted = sgf.read_sgf(DATA / name, fox_komi=True)
        assert converted.config.komi == expected[km] and converted.komi_recorded == km


# ---------------------------------------------------------------------------
# Hand-written records.


def test_main_line_skips_variations_like_sgfmill():
    texts = {
        "(;SZ[5];B[aa](;W[bb];B[cc])(;W[dd]))": [(1, 0), (2, 6), (1, 12)],
        "(;SZ[5](;B[aa](;W[bb])(;W[cc]))(;B[dd];W[ee]))": [(1, 0), (2, 6)],
        "(;SZ[5];B[aa](;W[bb](;B[cc];W[dd])(;B[ee]))(;W[])(;W[ba]))": [(1, 0), (2, 6), (1, 12), (2, 18)],
    }
    for text, moves in texts.items():
        record = sgf.parse_sgf(text)
        assert record.moves == moves, text
        game = sgfmill_sgf.Sgf_game.from_string(text)
        reference = [node.get_move() for node in game.get_main_sequence()]
        assert [(_STONE[c], _action(5, p)) for c, p in reference if c] == moves, text
    assert sgf.parse_sgf("(;SZ[5];B[aa](;W[bb])(;W[cc])(;W[dd]))").variations == 2


def test_passes_empty_and_tt():
    record = sgf.parse_sgf("(;SZ[19];B[tt];W[];B[aa])")
    assert record.moves == [(1, 361), (2, 361), (1, 0)]
    assert sgf.parse_sgf("(;SZ[9];B[tt];W[ ])").moves == [(1, 81), (2, 81)]
    # Above 19x19, tt is a point: column t (19), row t (19).
    assert sgf.parse_sgf("(;SZ[21];B[tt];W[])").moves == [(1, 19 * 21 + 19), (2, 21 * 21)]
    assert sgf.parse_sgf("(;SZ[20];W[tt])").moves == [(2, 19 * 20 + 19)]
    # Passes are always written [].
    text = sgf.to_sgf(gojax.GoConfig(size=19), [361, 361])
    assert ";B[];W[]" in text and "tt" not in text
    # tt is no setup point on a 19x19 board.
    with pytest.raises(SGFError, match=r"AB\[tt\] is off the 19x19 board"):
        sgf.parse_sgf("(;AB[tt])")


def test_setup_stones_rectangles_and_first_player():
    record = sgf.parse_sgf("(;SZ[5]AB[aa:bb][ee]AW[ca]PL[W])")
    expected = np.zeros((5, 5), np.int8)
    expected[0:2, 0:2] = 1
    expected[4, 4] = 1
    expected[0, 2] = 2
    np.testing.assert_array_equal(record.setup, expected)
    assert record.first_player == gojax.WHITE and record.moves == []
    state = record.replay()
    assert int(gojax.to_play(record.config, state)) == gojax.WHITE
    np.testing.assert_array_equal(np.asarray(gojax.board(record.config, state)), expected)
    _same_game(record, sgf.parse_sgf(record.to_sgf()))
    # Setup in a node after the root but before the first move, and AE removing a stone.
    record = sgf.parse_sgf("(;SZ[5]AB[aa][bb];AE[aa]AW[cc];W[dd])")
    assert record.setup[0, 0] == 0 and record.setup[1, 1] == 1 and record.setup[2, 2] == 2
    assert record.first_player == gojax.WHITE
    _same_game(record, sgf.parse_sgf(record.to_sgf()))


def test_metadata_text_escapes_and_charsets():
    config = gojax.GoConfig(size=9, komi=6.5)
    tricky = {"PB": "Lee ]\\[ Sedol", "PW": "AlphaGo\\", "C": "line one\nline ]two]", "GN": "囲碁 ☯"}
    text = sgf.to_sgf(config, [40, 41], result="W+R", metadata=tricky)
    assert r"PB[Lee \]\\[ Sedol]" in text
    record = sgf.parse_sgf(text)
    for ident, value in tricky.items():
        assert record.metadata[ident] == value
    assert record.result == "W+R" and record.winner == gojax.WHITE
    root = sgfmill_sgf.Sgf_game.from_bytes(text.encode()).get_root()
    for ident in ("PB", "PW", "GN"):
        assert root.get(ident) == tricky[ident]
    # Soft line breaks ("\" + newline) disappear; other escapes keep the character.
    assert sgf.parse_sgf("(;PB[a\\\nb\\:c])").metadata["PB"] == "ab:c"
    # CA names the character set; bytes that do not decode become U+FFFD, never an error.
    assert sgf.parse_sgf("(;CA[GB18030]PB[围棋])".encode("gb18030")).metadata["PB"] == "围棋"
    assert sgf.parse_sgf(b"(;PB[caf\xe9])").metadata["PB"] == "caf\ufffd"
    assert sgf.parse_sgf(b"(;PB[caf\xe9])", encoding="latin-1").metadata["PB"] == "café"
    odd = sgf.parse_sgf(b"(;CA[rot13]PB[x])")
    assert odd.metadata["PB"] == "x" and "unknown character set CA[rot13]" in odd.warnings[0]
    with pytest.raises(SGFError, match="unknown character set 'klingon'"):
        sgf.parse_sgf(b"(;PB[x])", encoding="klingon")


def test_rules_string_round_trips_the_config():
    for config in (
        gojax.GoConfig(size=7, komi=0.5, ko_rule="simple", suicide=True),
        gojax.GoConfig(size=25, komi=-3.0, ko_rule="situational"),
        gojax.GoConfig(size=2, komi=7.25),
    ):
        text = sgf.to_sgf(config, [0, config.pass_action])
        assert f"RU[{sgf.rules_string(config)}]" in text
        assert sgf.parse_sgf(text).config == config
    assert sgf.rules_string(gojax.GoConfig()) == "koPOSITIONALscoreAREAtaxNONEsui0"
    # Plain rule names leave the defaults; the ko_rule argument overrides.
    assert sgf.parse_sgf("(;RU[Japanese])").config.ko_rule == "positional"
    assert sgf.parse_sgf("(;RU[koSIMPLEscoreAREA])", ko_rule="situational").config.ko_rule == "situational"


def test_winner_of_result():
    cases = {"B+3.5": 1, "W+R": 2, "w+resign": 2, "0": 0, "Draw": 0, "Void": None, "?": None, None: None}
    for text, winner in cases.items():
        assert sgf.winner_of_result(text) == winner, text


def test_collections_and_junk_around_the_game():
    games = sgf.parse_sgf_collection("junk before (;SZ[5];B[aa])\n(;SZ[7];W[bb]) trailing")
    assert [g.config.size for g in games] == [5, 7]
    assert games[1].moves == [(2, 8)] and games[1].first_player == gojax.WHITE
    assert "ignored 8 byte(s) after the last tree" in games[0].warnings[0]
    assert sgf.parse_sgf("(;SZ[5];B[aa])(;SZ[7])").config.size == 5
    # FF[3] long property names: lower-case letters are dropped.
    assert sgf.parse_sgf("(;SiZe[5];Black[bb])").moves == [(1, 6)]


# ---------------------------------------------------------------------------
# Malformed input: SGFError naming where and what.

MALFORMED = [
    ("(;SZ[9];B[aa]", r"line 1, column 14 \(byte 13\): unexpected end of file, 1 game tree\(s\) not closed"),
    ("(;SZ[9];B[aa", r"line 1, column 10 \(byte 9\): unterminated value of property B"),
    ("(;SZ[9]\n;B[aa]\n;W[bb)", r"line 3, column 3 .*unterminated value of property W"),
    (";B[aa])", r"no game tree"),
    ("", r"no game tree"),
    ("(B[aa])", r"line 1, column 2 .*expected ';' after '\('"),
    ("(;B)", r"property B has no value"),
    ("(;[aa])", r"value '\[' without a property name"),
    ("(;B[aa](;W[bb]);B[cc])", r"column 16 .*a node ';' after '\)'"),
    ("(;B[aa](;W[bb])C[x])", r"a property after '\)'"),
    ("(;a[1])", r"property name 'a' has no upper-case letter"),
    ("(;B[aa]%)", r"column 8 .*unexpected '%\)'"),
    ("(;GM[2])", r"GM\[2\] is not a game of Go"),
    ("(;SZ[26])", r"SZ\[26\]: gojax plays on boards from 2x2 to 25x25"),
    ("(;SZ[1])", r"SZ\[1\]: gojax plays on boards from 2x2"),
    ("(;SZ[19:13])", r"SZ\[19:13\]: gojax plays on square boards only"),
    ("(;SZ[nine])", r"SZ\[nine\] is not a board size"),
    ("(;SZ[²])", r"is not a board size"),
    ("(;SZ[9];B[jj])", r"move 1 \(line 1\): B\[jj\] is off the 9x9 board"),
    ("(;SZ[9];B[dd];W[a])", r"move 2 \(line 1\): W\[a\] is not a point"),
    ("(;SZ[9];B[dd]\n;W[a1])", r"move 2 \(line 2\): W\[a1\] is off the 9x9 board"),
    ("(;SZ[9];B[aa]W[bb])", r"move 1 \(line 1\): B and W in one node"),
    ("(;SZ[9];B[aa][bb])", r"move 1 .*B has 2 values"),
    ("(;SZ[9];B[aa];AB[cc])", r"setup property AB after move 1"),
    ("(;SZ[9]AB[aa:zz])", r"AB\[zz\] is off the 9x9 board"),
]


@pytest.mark.parametrize(("text", "message"), MALFORMED)
def test_malformed_input_raises_sgf_error(text, message):
    with pytest.raises(SGFError, match=message) as error:
        sgf.parse_sgf(text, name="bad.sgf")
    assert str(error.value).startswith("bad.sgf: ")
    assert isinstance(error.value, ValueError)


# ---------------------------------------------------------------------------
# Records from the wild: lenient by default (warn, leave the property out, keep the moves), strict on request.

LENIENT = [  # text, the problem, what a lenient read does about it
    (
        "(;SZ[9]KM[3又3/4];B[aa];W[bb])",
        r"KM\[3又3/4\] is not a number",
        r"left out \(komi 0, as without KM\)",
    ),
    ("(;SZ[9]KM[six])", r"line 1: KM\[six\] is not a number", "left out"),
    ("(;SZ[9]\nKM[nan];B[cc])", r"line 1: KM\[nan\] is not a finite number", "left out"),
    ("(;SZ[9]PL[X];W[aa])", r"PL\[X\] is not B or W", r"left out \(the first move decides\)"),
    (
        "(;SZ[9]AB[cc]B[aa];W[bb])",
        r"setup AB and move B in one node \(FF\[4\] keeps them apart\)",
        "read as the setup stones, then the move",
    ),
    (
        "(;SZ[9]\n;AW[cc]AE[dd]W[aa];B[bb])",
        r"line 2: setup AW/AE and move W in one node \(FF\[4\] keeps them apart\)",
        "read as the setup stones, then the move",
    ),
]


@pytest.mark.parametrize(("text", "problem", "done"), LENIENT)
def test_lenient_reading_warns_leaves_the_property_out_and_keeps_the_moves(text, problem, done):
    message = f"{problem}: {done}"
    with pytest.warns(SGFWarning, match=message) as caught:
        record = sgf.parse_sgf(text, name="wild.sgf")
    assert len(caught) == 1 and str(caught[0].message).startswith("wild.sgf: line ")
    assert len(record.warnings) == 1 and re.search(message, record.warnings[0])
    # The moves, read straight from the text (no parser), are all kept.
    found = re.findall(r"(?<![A-Z])([BW])\[([a-i]{2})\]", text)
    expected = [(_STONE[c.lower()], 9 * (ord(v[1]) - 97) + ord(v[0]) - 97) for c, v in found]
    assert len(expected) == text.count("B[") + text.count("W[") - text.count("AB[") - text.count("AW[")
    assert record.moves == expected
    assert record.config.komi == 0.0 and record.komi_recorded is None
    with pytest.raises(SGFError, match=rf"^wild\.sgf: .*{problem} \(strict=True; the default reading"):
        sgf.parse_sgf(text, name="wild.sgf", strict=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", SGFWarning)  # the documented way to refuse such records everywhere
        with pytest.raises(SGFWarning, match=message):
            sgf.parse_sgf(text, name="wild.sgf")


def test_lenient_reading_places_setup_before_the_move_of_the_same_node():
    with pytest.warns(SGFWarning):
        record = sgf.parse_sgf("(;SZ[5]AB[aa][ac]AW[ab]B[bb])")
    # Setup first, then the move: the move captures the white stone at ab (row 1, col 0).
    final = np.asarray(gojax.board(record.config, record.replay()))
    assert final[1, 0] == gojax.EMPTY and final[1, 1] == gojax.BLACK and final[0, 0] == gojax.BLACK
    assert np.count_nonzero(record.setup) == 3


def test_strict_and_lenient_agree_on_clean_records():
    text = "(;GM[1]FF[4]SZ[9]KM[6.5]PL[B]AB[cc];W[dd];B[ee])"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lenient = sgf.parse_sgf(text)
    strict = sgf.parse_sgf(text, strict=True)
    _same_reading(lenient, strict)
    assert lenient.config.komi == 6.5 and not lenient.warnings


def _as_found_elsewhere(name: str) -> tuple[str, str]:
    """A shared record altered the way copies of it circulate, and the warning it must give."""
    text = (DATA / name).read_text(encoding="utf-8")
    if "alphago_FH" in name:
        # The widely shared AlphaGo - Fan Hui records give the komi in stones, as a Chinese fraction.
        return text.replace("SZ[19]", "SZ[19]KM[3又3/4]", 1), r"KM\[3又3/4\] is not a number"
    # A handicap game whose first move sits in the root with the handicap stones.
    first = re.search(r";([BW])\[", text)
    assert first is not None and "AB[" in text[: first.start()]
    return text[: first.start()] + text[first.start() + 1 :], rf"setup AB and move {first[1]} in one node"


@needs_data
@pytest.mark.parametrize("name", ["pro19_yenw_alphago_FH_vs_AG_G1.sgf", "small_gnugo_kgs_PsyDuck-GNU.sgf"])
def test_shared_records_as_found_elsewhere_keep_their_moves(name):
    text, message = _as_found_elsewhere(name)
    reference = _reference(name)  # sgfmill on the unaltered file
    with pytest.warns(SGFWarning, match=message):
        record = sgf.parse_sgf(text, name=name)
    assert record.moves == reference["moves"] and len(record.moves) == _manifest()[name]["moves"]
    np.testing.assert_array_equal(record.setup, reference["setup"])
    assert record.config.size == reference["size"] and record.result == reference["result"]
    final = record.replay()
    np.testing.assert_array_equal(_board_of(final, record.config.size), reference["final"])
    with pytest.raises(SGFError, match=rf"{re.escape(name)}: line \d+: {message}"):
        sgf.parse_sgf(text, name=name, strict=True)
    # The unaltered file reads without a warning in either mode.
    with warnings.catch_warnings():
        warnings.simplefilter("error", SGFWarning)
        _same_reading(sgf.read_sgf(DATA / name), sgf.read_sgf(DATA / name, strict=True))


def test_file_errors_name_the_file(tmp_path):
    path = tmp_path / "broken game.sgf"
    path.write_text("(;SZ[9];B[aa];W[zz])")
    with pytest.raises(SGFError, match=r"broken game\.sgf: move 2 \(line 1\): W\[zz\] is off the 9x9 board"):
        sgf.read_sgf(path)
    with pytest.raises(SGFError, match=r"missing\.sgf: cannot read the file"):
        sgf.read_sgf(tmp_path / "missing.sgf")
    with pytest.raises(SGFError, match=r"huge\.sgf: 200 bytes is over the size limit of 100 bytes"):
        (tmp_path / "huge.sgf").write_text("(;C[" + "x" * 194 + "])")
        sgf.read_sgf(tmp_path / "huge.sgf", max_bytes=100)
    assert sgf.read_sgf(tmp_path / "huge.sgf", max_bytes=None).metadata["C"] == "x" * 194
    with pytest.raises(SGFError, match=r"over the size limit of 8,388,608 bytes"):
        sgf.parse_sgf(b"(;C[" + b"x" * sgf.MAX_SGF_BYTES + b"])")


# Replay errors on 5x5 (one compiled step for all of them).
ILLEGAL_GAMES = [
    (
        "(;SZ[5];B[cc];W[cc])",
        r"move 2 \(W\[cc\] = C3, line 1\): illegal: the point is occupied by a black stone",
    ),
    ("(;SZ[5];B[cc];W[ba];B[dd];W[ab];B[aa])", r"move 5 \(B\[aa\] = A5, line 1\): illegal: it is suicide"),
    (
        "(;SZ[5]AB[ba][ab][bc]AW[ca][bb][db][cc]\n;B[cb]\n;W[bb])",
        r"move 2 \(W\[bb\] = B4, line 3\): illegal: it retakes the ko at once",
    ),
    ("(;SZ[5];B[aa];B[bb])", r"move 2 \(B\[bb\] = B4, line 1\): black plays but it is white's turn"),
    ("(;SZ[5];B[];W[];B[aa])", r"move 3 \(B\[aa\] = A5, line 1\): a stone is played after two passes"),
    ("(;SZ[5]AB[aa]AW[ab][ba])", r"setup stones: the chain at A5 has no liberty"),
]


@pytest.mark.parametrize(("text", "message"), ILLEGAL_GAMES)
def test_illegal_games_raise_sgf_error_naming_the_move(text, message):
    record = sgf.parse_sgf(text, name="game.sgf")
    with pytest.raises(SGFError, match=r"^game\.sgf: " + message):
        record.replay()


def test_replay_details():
    # A pass after two passes is a no-op.
    record = sgf.parse_sgf("(;SZ[5];B[cc];W[];B[];W[])")
    final = record.replay()
    assert bool(final.terminated) and int(final.move_number) == 3
    states = record.states_along()
    assert np.shape(states.move_number) == (5,)
    assert np.asarray(states.move_number).tolist() == [0, 1, 2, 3, 3]
    # Captures are applied: black takes the white stone at A5.
    final = sgf.parse_sgf("(;SZ[5];B[ba];W[aa];B[ab])").replay()
    assert np.asarray(final.captures).tolist() == [1, 0]
    assert np.asarray(gojax.board(gojax.GoConfig(size=5), final))[0, 0] == 0
    with pytest.raises(SGFError, match="the record's board is"):
        record.replay(gojax.GoConfig(size=9))
    # More moves than the move cap.
    with pytest.raises(SGFError, match="over the config's move cap of 3"):
        sgf.parse_sgf("(;SZ[5];B[aa];W[bb];B[cc];W[dd])").replay(max_moves=3)


# ---------------------------------------------------------------------------
# Writing.


def test_to_sgf_layout_and_validation():
    config = gojax.GoConfig(size=9, komi=7.5)
    text = sgf.to_sgf(config, [40, 30, 81, 81], result="B+7.5", metadata={"PB": "a", "PW": "b", "DT": "2026"})
    assert text.startswith(
        "(;GM[1]FF[4]CA[UTF-8]AP[gojax:0.1.0]SZ[9]KM[7.5]RU[koPOSITIONALscoreAREAtaxNONEsui0]PB[a]PW[b]"
    )
    assert "RE[B+7.5]" in text and text.endswith(";B[ee];W[dd];B[];W[])\n")
    assert sgf.to_sgf(config, [(2, 0), (1, 1)]).count("PL[") == 0
    assert ";W[aa];B[ba]" in sgf.to_sgf(config, [(2, 0), (1, 1)])
    for bad, message in (
        ([82], "move 1: action 82 is out of range"),
        ([(3, 0)], "move 1: colour must be 1"),
        ([1.5], "action must be an integer"),
    ):
        with pytest.raises(ValueError, match=message):
            sgf.to_sgf(config, bad)
    with pytest.raises(ValueError, match="metadata name 'pb' is not an SGF property name"):
        sgf.to_sgf(config, [], metadata={"pb": "x"})
    with pytest.raises(ValueError, match=r"setup must be an int8\[9, 9\] board"):
        sgf.to_sgf(config, [], setup=np.zeros((5, 5)))


def test_games_to_sgf_writes_a_batch_atomically(tmp_path):
    config = gojax.GoConfig(size=5, komi=0.5)
    pass_ = config.pass_action
    actions = np.array(
        [
            [12, 6, 18, -1, -1, -1],  # padded with -1
            [0, 24, pass_, pass_, 7, 8],  # two passes end the game: 7, 8 are padding
            [1, 2, 3, 4, 5, 9],  # full length
        ]
    )
    paths = sgf.games_to_sgf(config, actions, tmp_path / "out", results=["B+R", None, "W+0.5"], prefix="g")
    assert [p.name for p in paths] == ["g_000000.sgf", "g_000001.sgf", "g_000002.sgf"]
    records = [sgf.read_sgf(p) for p in paths]
    assert [r.actions.tolist() for r in records] == [[12, 6, 18], [0, 24, pass_, pass_], [1, 2, 3, 4, 5, 9]]
    assert [r.result for r in records] == ["B+R", None, "W+0.5"]
    assert all(r.config == config for r in records)
    assert records[1].replay().terminated
    lengths = sgf.games_to_sgf(config, actions, tmp_path / "out", lengths=[1, 0, 2], start=7)
    assert [sgf.read_sgf(p).actions.tolist() for p in lengths] == [[12], [], [1, 2]]
    assert lengths[0].name == "game_000007.sgf"
    # Overwriting replaces the file whole; no temporary file is left.
    sgf.games_to_sgf(config, actions[:1, :1], tmp_path / "out", prefix="g")
    assert sgf.read_sgf(paths[0]).actions.tolist() == [12]
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == sorted(
        [
            "g_000000.sgf",
            "g_000001.sgf",
            "g_000002.sgf",
            "game_000007.sgf",
            "game_000008.sgf",
            "game_000009.sgf",
        ]
    )
    with pytest.raises(ValueError, match="game 0: move 2: action 99 is out of range"):
        sgf.games_to_sgf(config, np.array([[0, 99]]), tmp_path)
    with pytest.raises(ValueError, match=r"actions must be int\[B, T\]"):
        sgf.games_to_sgf(config, np.array([0, 1]), tmp_path)


def test_atomic_write_leaves_the_old_file_on_failure(tmp_path, monkeypatch):
    path = tmp_path / "game.sgf"
    path.write_text("old")

    def fail(*args):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        sgf.atomic_write(path, "new")
    assert path.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["game.sgf"]


def test_result_string():
    config = gojax.GoConfig(size=5, komi=0.5)
    state = sgf.parse_sgf("(;SZ[5])").replay()  # the empty board (replay's step is compiled once per config)
    assert sgf.result_string(config, state) is None
    assert sgf.result_string(config, state, adjudicate=True) == "W+0.5"  # komi decides
    assert sgf.result_string(config, state.replace(terminated=True, loser=1)) == "W+R"  # black resigned
    assert sgf.result_string(config, state.replace(terminated=True, loser=2, illegal_move=True)) == "B+F"
    # Two black columns, white to play; two passes. Black's area: 10 stones + 15 empty points.
    state = sgf.parse_sgf("(;SZ[5]AB[aa:be];W[];B[])").replay()
    assert bool(state.terminated)
    assert sgf.result_string(config, state) == "B+24.5"
    assert sgf.result_string(gojax.GoConfig(size=5, komi=25.0), state) == "0"


# ---------------------------------------------------------------------------
# Fuzzing: only SGFError, and whatever parses round-trips.

SGF_ALPHABET = "()[];\\:\n ABWCEGKLMPSTZaebcdst019]"
SEED_GAME = (
    "(;GM[1]FF[4]CA[UTF-8]SZ[9]KM[6.5]RU[Japanese]PB[x]PW[y]RE[B+R]HA[0]AB[cc]AW[gg:hh]C[hi \\] there]"
    ";B[ee];W[ce]C[a];B[](;W[tt];B[dc])(;W[dd]LB[aa:A];B[ab:cd]))"
)


def _check_any_input(data: bytes | str) -> None:
    try:
        strict = sgf.parse_sgf_collection(data, name="fuzz.sgf", max_bytes=1 << 16, strict=True)
    except SGFError:
        strict = None
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", SGFWarning)
            records = sgf.parse_sgf_collection(data, name="fuzz.sgf", max_bytes=1 << 16)
    except SGFError as error:
        assert str(error).startswith("fuzz.sgf: ") or str(error).startswith("<sgf>"), str(error)
        assert strict is None, "lenient refused what strict read"
        return
    left_out = [str(w.message) for w in caught if issubclass(w.category, SGFWarning)]
    assert (strict is None) == bool(left_out), "lenient warns exactly when strict refuses"
    for record in records:
        again = sgf.parse_sgf(sgf.write_sgf(record))
        _same_game(record, again)
    for record, other in zip(records, strict or [], strict=False):
        _same_reading(record, other)


# Inputs that crashed (or failed the round trip) while the parser was written; kept as regressions.
FOUND_BY_FUZZING = [
    "(;SZ[²])",  # str.isdigit() accepts '²', int() does not
    "(;CA[rot13]PB[x])",  # a str-to-str codec: bytes.decode raised LookupError
    "(;CA[base64]PB[x])",
    "(;CA[hex]PB[x])",
    "(;CA[utf-8-sig]PB[a])",
    "(;ABCDEFGHIJK[x])",  # a long property name in the metadata was refused by the writer
    "(;SZ[0019])",
    "(;KM[1_0])",  # float() accepts underscores: komi 10, written back as 10
    "(;KM[-0])",
    "(;KM[1e308])",
    "(;HA[x]PL[w])",
    "(;PB[\\\\\\]])",
    "(;PB[a\\\r\nb])",
    "(;C[\r])",
    "(;AB[aa]AE[aa]AW[aa])",
    "(;SZ[5];B[EE])",  # upper-case coordinates are 26.. and off the board
    "((;B[aa]))",
    "(;)",
]


@pytest.mark.parametrize("text", FOUND_BY_FUZZING)
def test_found_by_fuzzing(text):
    _check_any_input(text)
    _check_any_input(text.encode("utf-8"))


_fuzz_settings = settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    derandomize=FUZZ_DERANDOMIZE,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


@_fuzz_settings
@given(st.binary(max_size=300))
def test_fuzz_random_bytes(data):
    _check_any_input(data)
    _check_any_input(b"(;" + data)


@_fuzz_settings
@given(st.text(alphabet=SGF_ALPHABET, max_size=120))
def test_fuzz_sgf_alphabet(text):
    _check_any_input("(;" + text)
    _check_any_input("(;SZ[9]" + text + ")")


_IDENTS = ["B", "W", "AB", "AW", "AE", "PL", "SZ", "KM", "CA", "GM", "FF", "HA", "RE", "RU", "PB", "C", "LB"]
_VALUES = [
    "",
    "tt",
    "aa",
    "ee",
    "aa:cc",
    "zz",
    "19",
    "9",
    "5:5",
    "7.5",
    "-0",
    "nan",
    "inf",
    "1e400",
    "²",
    "٩",
]
_VALUES += ["rot13", "base64", "utf-16", "latin-1", "gb18030", "koSIMPLEsui1", "B", "W", "1_0"]


def _sgf_value(text: str) -> str:
    return "[" + text.replace("\\", "\\\\").replace("]", "\\]") + "]"


_property = st.tuples(
    st.sampled_from(_IDENTS) | st.from_regex(r"[A-Z][A-Za-z]{0,11}", fullmatch=True),
    st.lists(st.sampled_from(_VALUES) | st.text(max_size=8), min_size=1, max_size=3),
)
_node = st.lists(_property, max_size=4).map(
    lambda ps: ";" + "".join(i + "".join(map(_sgf_value, v)) for i, v in ps)
)


@_fuzz_settings
@given(st.lists(_node, min_size=1, max_size=6), st.sampled_from(["", "(;B[aa])(;W[bb])"]))
def test_fuzz_property_soup(nodes, variations):
    """Well-formed syntax, arbitrary properties and values: only SGFError, and a lossless round trip."""
    _check_any_input("(" + "".join(nodes) + variations + ")")


@st.composite
def _mutated(draw, seeds):
    data = bytearray(draw(st.sampled_from(seeds)))
    for _ in range(draw(st.integers(1, 6))):
        where = draw(st.integers(0, len(data)))
        kind = draw(st.sampled_from(["delete", "insert", "replace", "duplicate"]))
        if kind == "delete":
            del data[where : where + draw(st.integers(1, 8))]
        elif kind == "insert":
            data[where:where] = draw(
                st.sampled_from([b"(", b")", b"[", b"]", b";", b"\\", b"B[", b"]]", b"tt"])
            )
        elif kind == "replace" and where < len(data):
            data[where] = draw(st.integers(0, 255))
        else:
            data[where:where] = data[max(0, where - 10) : where]
    return bytes(data)


@_fuzz_settings
@given(_mutated([SEED_GAME.encode()]))
def test_fuzz_mutated_seed_game(data):
    _check_any_input(data)


@needs_data
@_fuzz_settings
@given(st.data())
def test_fuzz_mutated_real_games(data):
    names = sorted(name for name in _manifest() if name.startswith("small"))
    seeds = [(DATA / name).read_bytes() for name in names[:8]]
    _check_any_input(data.draw(_mutated(seeds)))


@settings(max_examples=max(20, FUZZ_EXAMPLES // 10), deadline=None, derandomize=FUZZ_DERANDOMIZE)
@given(st.lists(st.tuples(st.sampled_from("BW"), st.sampled_from(["aa", "ab", "ba", "bb", "cc", "", "tt"]))))
def test_fuzz_replay_raises_only_sgf_error(moves):
    """Random 5x5 games (colours may repeat, points may be taken): replay or SGFError, nothing else."""
    text = "(;SZ[5]" + "".join(f";{c}[{p}]" for c, p in moves) + ")"
    record = sgf.parse_sgf(text)
    try:
        final = record.replay()
    except SGFError as error:
        assert "move" in str(error) or "setup" in str(error)
        return
    assert int(final.move_number) <= len(moves)
