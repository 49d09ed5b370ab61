"""The GTP engine (gojax.gtp), and the client and referee that drive it (gojax.arena).

* Transcripts through ``python -m gojax.gtp`` in a subprocess (importing this
  checkout's ``gojax``, whatever is installed): every reply is
  read (up to its empty line) before the next command is sent, so a missing
  flush hangs the test; ids echoed, ``=``/``?`` framing, comments and empty
  lines ignored, control characters, tabs, non-UTF-8 bytes and a 100 kB line
  survived; every listed command run.
* Rules through GTP, with positions and scores worked out by hand: an
  occupied point, suicide and a ko recapture refused; undo; showboard against
  hand-written diagrams; final_score of hand-counted positions; loadsgf of a
  hand-written file (size, komi, move number) and of a shared 9x9 record
  against sgfmill's board.
* The listed extras: ``all_legal`` and ``gojax-legal_moves`` against
  ``gojax.legal_action_mask`` and hand-worked lists (a suicide point, a ko
  ban, a positional-superko ban), ``cputime`` against the process time,
  ``final_status_list`` parsed back into the board.
* Time: the time commands answered through the console (their effect is
  checked on the engine's clocks), and one loose real-time test: a player that
  turns slow after the warm-up is cut off long before it ends. The budgets,
  the level chosen and the cut-off are checked against a hand-advanced clock
  in ``tests/test_gtp_clock.py``.
* The engine around its player: the ladder of each player kind (full, a
  quarter, the heuristic), a pass after the opponent's pass only when it wins
  on the area score, boards 2 and 25 accepted, the logs on stderr.
* Hypothesis fuzzing of the in-process ``handle_line`` (derandomized; set
  ``GOJAX_FUZZ_EXAMPLES`` for a longer random campaign): every line gets one
  well-framed reply or none, never an exception.
* A full 5x5 game against GNU Go (skipped without it): the final board
  matches GNU Go's ``list_stones`` and gojax's Tromp-Taylor score GNU Go's
  ``final_score``.
"""

from __future__ import annotations

import dataclasses
import os
import queue
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

import jax.numpy as jnp
import numpy as np
import pytest
from conftest import SGF_DATA, gnugo_binary, jitted, needs, sgfmill_grid
from hypothesis import HealthCheck, given, note, settings
from hypothesis import strategies as st

import gojax
from gojax import arena, gtp
from gojax._host.results import format_margin
from gojax.gtp import EngineOptions, Level, PlayerSpec
from gojax.gtp._analysis import STREAMING
from gojax.gtp._commands import COMMANDS
from gojax.gtp._players import MOST_SIMULATIONS, player_levels
from gojax.gtp._protocol import parse_command

DATA = SGF_DATA
REPO = Path(__file__).resolve().parents[1]
# The engine subprocess runs in a temporary folder: it imports this checkout's gojax, not an installed one.
ENGINE_ENV = {
    **os.environ,
    "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
    "GOJAX_COMPILE_CACHE": "off",  # every test run compiles afresh and writes nothing to the user's cache
}
SHARED_9X9 = DATA / "small_gnugo_cgf2005_9x9_aya2.sgf"
LISTED = {
    "protocol_version", "name", "version", "known_command", "list_commands", "quit", "boardsize",
    "clear_board", "komi", "play", "genmove", "undo", "showboard", "final_score", "loadsgf",
    "time_settings", "time_left",
}  # fmt: skip
EXTRAS = {
    "kgs-time_settings", "reg_genmove", "final_status_list", "printsgf", "all_legal", "gojax-legal_moves",
    "gojax-info", "gojax-warmup", "cputime", "fixed_handicap", "place_free_handicap", "set_free_handicap",
    "kgs-genmove_cleanup", "list_stones", "lz-analyze", "kata-analyze", "lz-genmove_analyze",
    "kata-genmove_analyze", "gogui-analyze_commands",
}  # fmt: skip
# Fuzz budget: derandomized (the same examples every run) unless GOJAX_FUZZ_EXAMPLES is set.
FUZZ_EXAMPLES = int(os.environ.get("GOJAX_FUZZ_EXAMPLES", "100"))
FUZZ_DERANDOMIZE = "GOJAX_FUZZ_EXAMPLES" not in os.environ
RULES_5 = gojax.GoConfig(size=5)  # the engine's rules on 5x5 (the default move cap, 50)


class Transcript:
    """``python -m gojax.gtp`` with raw access: one reply read completely before the next command."""

    def __init__(self, argv, cwd: Path):
        self.log = open(cwd / "engine_stderr.log", "wb")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "gojax.gtp", *argv],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.log,
            cwd=cwd,
            bufsize=0,
            env=ENGINE_ENV,
        )
        self.lines: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for raw in iter(self.process.stdout.readline, b""):
            self.lines.put(raw.decode())
        self.lines.put(None)

    def write(self, data: bytes | str) -> None:
        self.process.stdin.write(data.encode() if isinstance(data, str) else data)
        self.process.stdin.flush()

    def reply(self, timeout: float = 120.0) -> str:
        """One whole reply, up to and including its empty line."""
        deadline = time.monotonic() + timeout
        text = ""
        while True:
            line = self.lines.get(timeout=max(0.01, deadline - time.monotonic()))
            assert line is not None, f"engine exited; output so far {text!r}"
            text += line
            if line == "\n":
                return text

    def ask(self, line: bytes | str, timeout: float = 120.0) -> str:
        self.write(line if (isinstance(line, bytes) or line.endswith("\n")) else line + "\n")
        return self.reply(timeout)

    def ok(self, line: str) -> str:
        """The response text of a successful command."""
        text = self.ask(line)
        assert text.startswith("="), (line, text)
        return text[1:].strip()

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
        self.process.wait()
        self.log.close()


@pytest.fixture(scope="module")
def engine(tmp_path_factory):
    folder = tmp_path_factory.mktemp("gtp")
    transcript = Transcript(["--size", "5", "--player", "random", "--seed", "1"], folder)
    transcript.folder = folder
    yield transcript
    transcript.close()


@pytest.fixture(scope="module")
def local():
    """An in-process engine with the random player on 5x5."""
    return gtp.GTPEngine(gojax.GoConfig(size=5), PlayerSpec("random", seed=2))


def _new_game(engine, komi="7.5"):
    engine.ok("boardsize 5")
    engine.ok("clear_board")
    engine.ok(f"komi {komi}")


def _alive(engine) -> list[str]:
    """The stones on the board in board order (top row first), from ``list_stones``."""
    stones = engine.ok("list_stones black").split() + engine.ok("list_stones white").split()
    return sorted(stones, key=lambda v: (-int(v[1:]), "ABCDEFGHJKLMNOPQRSTUVWXYZ".index(v[0])))


# ---------------------------------------------------------------------------------------------------
# Framing and the administrative commands, through the subprocess.


def test_the_engine_subprocess_imports_this_checkout(engine):
    probe = subprocess.run(
        [sys.executable, "-c", "import gojax; print(gojax.__file__)"],
        cwd=engine.folder,
        env=ENGINE_ENV,
        capture_output=True,
        text=True,
        check=True,
    )
    assert Path(probe.stdout.strip()).resolve() == (REPO / "gojax" / "__init__.py").resolve()


def test_framing_ids_comments_and_flushing(engine):
    assert engine.ask("protocol_version") == "= 2\n\n"
    assert engine.ask("17 name") == "=17 gojax\n\n"
    assert engine.ask("3 version").startswith(f"=3 {gojax.__version__}")
    engine.write("# a comment line, no reply\n")
    engine.write("\n")
    engine.write("   \t  \n")
    assert engine.ask("8 name # trailing comment") == "=8 gojax\n\n"  # the next reply is this one
    assert engine.ask("5 no_such_command") == "?5 unknown command\n\n"
    assert engine.ask("known_command play") == "= true\n\n"
    assert engine.ask("9 known_command frobnicate") == "=9 false\n\n"
    assert engine.ask("4 boardsize 26") == "?4 unacceptable size\n\n"
    assert engine.ask("boardsize 1") == "? unacceptable size\n\n"
    assert engine.ask("boardsize five").startswith("? syntax error")
    assert engine.ask("6 clear_board") == "=6\n\n"
    listed = engine.ask("list_commands")
    assert listed.startswith("= protocol_version\nname\n") and listed.endswith("\n\n")
    names = listed[1:].split()
    assert LISTED | EXTRAS <= set(names)
    for name in names:
        assert engine.ask(f"known_command {name}") == "= true\n\n"
    # Every command the engine answers is listed: the table's and the streaming ones of the console loop.
    assert set(COMMANDS) | set(STREAMING) == set(names)


def test_play_refuses_occupied_suicide_and_ko(engine):
    _new_game(engine)
    assert engine.ask("play b c3") == "=\n\n"
    assert engine.ask("play w C3") == "? illegal move\n\n"  # occupied (upper-case vertex)
    assert engine.ask("play w c3") == "? illegal move\n\n"
    assert engine.ask("play w i3").startswith("? syntax error")  # GTP has no column I
    assert engine.ask("play w f3").startswith("? syntax error")  # off a 5x5 board
    assert engine.ask("play purple c2").startswith("? syntax error")
    assert engine.ask("play b").startswith("? syntax error")
    # Suicide: white A2 and B1 surround the corner A1.
    _new_game(engine)
    for move in ("b e5", "w a2", "b e4", "w b1"):
        assert engine.ask(f"play {move}") == "=\n\n"
    assert engine.ask("play b a1") == "? illegal move\n\n"
    # Ko: black B4 A3 B2 and white C4 D3 C2; white B3, black C3 captures it; white may not retake.
    _new_game(engine)
    for move in ("b b4", "w c4", "b a3", "w d3", "b b2", "w c2", "b e1", "w b3", "b c3"):
        assert engine.ask(f"play {move}") == "=\n\n", move
    assert engine.ask("play w b3") == "? illegal move\n\n"
    assert "captures: black 1, white 0" in engine.ok("showboard")
    assert engine.ask("play w e5") == "=\n\n"  # a ko threat elsewhere is fine
    assert engine.ask("play b pass") == "=\n\n"
    assert engine.ask("play w b3") == "=\n\n"  # now the recapture is a new position


def test_showboard_and_undo(engine):
    _new_game(engine)
    assert engine.ask("undo") == "? cannot undo\n\n"
    assert engine.ask("3 showboard").startswith("=3\n   A B C D E\n 5 . . . . . 5\n")  # GNU Go's layout
    engine.ok("play b c3")
    engine.ok("play w d4")
    board = engine.ok("showboard").splitlines()
    assert board[:7] == [
        "A B C D E",
        " 5 . . . . . 5",
        " 4 . . .(O). 4",
        " 3 . . X . . 3",
        " 2 . . . . . 2",
        " 1 . . . . . 1",
        "   A B C D E",
    ]
    assert board[7].startswith("black to move; move 2; komi 7.5")
    assert engine.ask("undo") == "=\n\n"
    board = engine.ok("showboard").splitlines()
    assert board[2:4] == [" 4 . . . . . 4", " 3 . .(X). . 3"] and board[7].startswith("white to move; move 1")
    assert engine.ask("play b d4") == "=\n\n"  # black twice: a white pass goes in between
    assert _alive(engine) == ["D4", "C3"]
    assert engine.ask("undo") == "=\n\n"  # takes back the move and the inserted pass
    assert engine.ok("showboard").splitlines()[7].startswith("white to move; move 1")
    assert engine.ask("undo") == "=\n\n"
    assert engine.ask("undo") == "? cannot undo\n\n"


def test_final_score_of_hand_counted_positions(engine):
    _new_game(engine, komi="0.5")
    assert engine.ok("final_score") == "W+0.5"  # empty board: nobody's area, komi only
    for row in range(5, 0, -1):
        engine.ok(f"play b b{row}")
        engine.ok(f"play w c{row}")
    # Black: column B and the empty column A = 10; white: column C and the empty D, E = 15.
    assert engine.ok("final_score") == "W+5.5"
    assert engine.ok("undo") == ""
    # Without C1 the empty C1, D, E region touches black at B1: neutral. Black 10, white 4.
    assert engine.ok("final_score") == "B+5.5"
    assert engine.ok("final_status_list dead") == ""
    assert engine.ask("final_status_list sleepy").startswith("? syntax error")


def test_genmove_is_played_and_passes_when_over(engine):
    _new_game(engine)
    vertex = engine.ok("genmove b")
    assert vertex.upper() != "PASS"
    assert _alive(engine) == [vertex.upper()]
    assert engine.ok("genmove w").upper() in _alive(engine)
    engine.ok("play b pass")
    engine.ok("play w pass")  # two passes: the game is over
    assert engine.ok("genmove b") == "pass"
    assert engine.ok("reg_genmove w") == "pass"
    assert engine.ask("play b a1") == "=\n\n"  # a controller may play on after two passes


def test_loadsgf_hand_written_file(engine):
    path = engine.folder / "small.sgf"
    path.write_text("(;GM[1]FF[4]SZ[5]KM[2.5];B[cc];W[dc];B[cd];W[dd])")
    engine.ok("boardsize 7")
    assert engine.ask(f"loadsgf {path}") == "=\n\n"
    assert _alive(engine) == ["C3", "D3", "C2", "D2"]  # cc is C3, dd is D2 on 5x5
    assert engine.ok("final_score") == "W+2.5"  # 2 stones each, the rest neutral, komi 2.5
    assert engine.ok("showboard").splitlines()[0] == "A B C D E"
    assert engine.ask(f"loadsgf {path} 3") == "=\n\n"  # up to, not including, move 3
    assert _alive(engine) == ["C3", "D3"]
    assert engine.ask(f"loadsgf {engine.folder / 'missing.sgf'}").startswith("? cannot load file")
    bad = engine.folder / "bad.sgf"
    bad.write_text("(;GM[1]SZ[5];B[cc];W[cc])")
    assert "occupied" in engine.ask(f"loadsgf {bad}")
    printed = engine.ok("printsgf")
    assert "SZ[5]" in printed and ";B[cc];W[dc]" in printed


def _clock_line(engine, colour: str) -> str:
    (line,) = [line for line in engine.ok("gojax-info").splitlines() if line.startswith(f"clock {colour}:")]
    return line


def test_time_commands_through_the_console(engine):
    _new_game(engine)
    assert "limited=False" in _clock_line(engine, "black")
    assert engine.ask("time_settings 0 1 1", timeout=120) == "=\n\n"  # 1 s per move; warms up
    assert "byo_time=1.0, byo_stones=1, in_byoyomi=True, period_left=1.0" in _clock_line(engine, "white")
    for colour in "bwb":
        assert engine.ok(f"genmove {colour}").upper() in _alive(engine)
    assert engine.ask("time_left w 0.3 1") == "=\n\n"
    assert "in_byoyomi=True, period_left=0.3, stones_left=1" in _clock_line(engine, "white")
    assert engine.ok("genmove w").upper() in _alive(engine)
    assert engine.ask("time_left b 12.5 0") == "=\n\n"
    assert "main=12.5, byo_time=1.0, byo_stones=1, in_byoyomi=False" in _clock_line(engine, "black")
    assert engine.ask("time_left w abc 1").startswith("? syntax error")
    assert engine.ask("time_settings 0 1 0") == "=\n\n"  # byo-yomi time without stones: no limit
    assert "limited=False" in _clock_line(engine, "black")
    assert engine.ask("kgs-time_settings canadian 0 1 1") == "=\n\n"
    assert "limited=True" in _clock_line(engine, "black")
    assert engine.ask("kgs-time_settings none") == "=\n\n"
    assert "limited=False" in _clock_line(engine, "white")
    assert engine.ask("kgs-time_settings sundial 5").startswith("? syntax error")
    log = (engine.folder / "engine_stderr.log").read_text()
    assert " gojax-gtp INFO genmove white: " in log  # the logs go to stderr, the replies alone to stdout


# Positions reached by ``play`` commands (black first, alternating) and the
# colour whose legal points are listed; ``banned`` is the one empty point that
# colour may not play, worked out by hand.
LEGAL_CASES = {
    # White A2 and B1 surround the corner: black A1 would be suicide.
    "suicide": ("b e5 w a2 b e4 w b1", "b", "A1"),
    # Black B4 A3 B2 and white C4 D3 C2; white B3, black C3 takes it: white may not retake at once.
    "ko": ("b b4 w c4 b a3 w d3 b b2 w c2 b e1 w b3 b c3", "w", "B3"),
    # Sending two, returning one: black C5 puts B5 C5 in atari, white A5 takes both; black
    # B5 would take A5 back and repeat the position before C5 (no ko: it has two liberties).
    "superko": ("b b5 w d5 b a4 w b4 b e1 w c4 b e2 w d4 b c5 w a5", "b", "B5"),
}


def _replayed(moves: list[str]):
    """The gojax state after ``moves`` (GTP vertices, black first, alternating) on the engine's 5x5 rules."""
    step = jitted("step", RULES_5)
    state = gojax.init(RULES_5)
    for vertex in moves:
        state = step(state, gojax.from_gtp(RULES_5, vertex))
    return state


def _mask_vertices(state) -> list[str]:
    mask = np.asarray(jitted("legal_action_mask", RULES_5)(state))[: RULES_5.pass_action]
    return [gojax.to_gtp(RULES_5, int(point)) for point in np.flatnonzero(mask)]


@pytest.mark.parametrize("case", sorted(LEGAL_CASES))
def test_all_legal_and_legal_moves_follow_legal_action_mask(engine, case):
    line, mover, banned = LEGAL_CASES[case]
    words = line.split()
    _new_game(engine)
    for colour, vertex in zip(words[::2], words[1::2], strict=True):
        assert engine.ask(f"play {colour} {vertex}") == "=\n\n", vertex
    assert engine.ask(f"play {mover} {banned}") == "? illegal move\n\n"
    stones = set(_alive(engine))
    by_hand = [gojax.to_gtp(RULES_5, p) for p in range(25)]
    by_hand = [v for v in by_hand if v not in stones and v != banned]
    state = _replayed(words[1::2])
    expected = _mask_vertices(state)
    assert expected == by_hand  # gojax's mask agrees with the hand-worked list
    assert engine.ok(f"all_legal {mover}").split() == expected
    assert engine.ok("all_legal").split() == expected  # the mover is to play
    assert engine.ok(f"gojax-legal_moves {mover}").split() == expected
    assert engine.ok("gojax-legal_moves").split() == expected
    # The other colour: a pass of the mover goes in between.
    other = "w" if mover == "b" else "b"
    after_pass = jitted("step", RULES_5)(state, RULES_5.pass_action)
    assert engine.ok(f"all_legal {other}").split() == _mask_vertices(after_pass)
    assert engine.ok(f"gojax-legal_moves {other.upper()}").split() == _mask_vertices(after_pass)
    assert engine.ask("all_legal purple").startswith("? syntax error")
    engine.ok("play b pass")
    engine.ok("play w pass")
    assert engine.ask("all_legal") == "=\n\n"  # the game is over: nothing to list


def test_final_status_list_parses_back_into_the_board(engine):
    _new_game(engine)
    moves = "c3 d4 b2 e1 a5".split()
    for colour, vertex in zip("bwbwb", moves, strict=True):
        engine.ok(f"play {colour} {vertex}")
    board = np.zeros(25, np.int8)
    for colour, vertex in zip("bwbwb", moves, strict=True):
        board[gojax.from_gtp(RULES_5, vertex)] = 1 if colour == "b" else 2
    listed = []
    for status in ("alive", "DEAD", "seki"):
        vertices = engine.ok(f"final_status_list {status}").split()
        points = [gojax.from_gtp(RULES_5, vertex) for vertex in vertices]
        assert points == sorted(points) and len(set(points)) == len(points)
        listed += points
    assert sorted(listed) == np.flatnonzero(board).tolist()  # every stone once
    # White D4 and E1 cannot live against black C3, B2, A5 on 5x5: GNU Go lists them dead too.
    assert engine.ok("final_status_list dead") == "D4 E1"
    assert engine.ask("final_status_list").startswith("? syntax error")


def test_cputime_is_the_process_time(engine, local):
    first = engine.ok("cputime")
    assert re.fullmatch(r"\d+\.\d{3}", first) and float(first) > 0  # the engine has imported JAX
    engine.ok("showboard")
    assert float(engine.ok("cputime")) >= float(first)
    before = time.process_time()
    reply = float(local.send("cputime"))
    after = time.process_time()
    assert before - 0.0005 <= reply <= after + 0.0005  # printed to the millisecond


def test_nasty_lines_never_kill_the_engine(engine):
    assert engine.ask(b"\x00\x01 4\x02 name\x7f\r\n") == "=4 gojax\n\n"  # control characters removed
    assert engine.ask(b"\t5\tname\t\n") == "=5 gojax\n\n"  # tabs are spaces
    assert engine.ask(b"\xff\xfe play b c3\n").startswith("? unknown command")
    assert engine.ask("x" * 100_000) == "? unknown command\n\n"
    assert engine.ask("7") == "?7 unknown command\n\n"
    assert engine.ask("play b c3 c4 c5").startswith("? syntax error")
    assert engine.ask("komi nan").startswith("? syntax error")
    assert engine.ask("time_settings -1 0 0").startswith("? syntax error")
    assert engine.ask("loadsgf /dev/null").startswith("? cannot load file")
    assert engine.ask("12 name") == "=12 gojax\n\n"


def test_quit_ends_the_process(engine):
    assert engine.ask("99 quit") == "=99\n\n"
    assert engine.process.wait(timeout=30) == 0


# ---------------------------------------------------------------------------------------------------
# In process.

_WORDS = st.sampled_from(
    ["b", "w", "black", "WHITE", "x", "c3", "C3", "a1", "e5", "pass", "resign", "i3", "z9", "0", "1", "5",
     "-1", "1e400", "nan", "inf", "0.5", "abc", "#", "\x00", "\t", "é", "alive", "dead", "9999999999999"]
)  # fmt: skip
_NAMES = st.sampled_from(
    sorted(LISTED - {"loadsgf", "quit", "boardsize"} | EXTRAS - {"printsgf", "gojax-warmup"})
)
_LINES = st.one_of(
    st.text(max_size=40),
    st.builds(
        lambda ident, name, args: " ".join(([ident] if ident else []) + [name, *args]),
        st.sampled_from(["", "1", "42", "007"]),
        _NAMES,
        st.lists(_WORDS, max_size=3),
    ),
)


@settings(
    max_examples=FUZZ_EXAMPLES,
    deadline=None,
    derandomize=FUZZ_DERANDOMIZE,
    print_blob=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(lines=st.lists(_LINES, min_size=1, max_size=8))
def test_fuzz_handle_line_always_replies(local, lines):
    note(f"input lines: {lines!r}")
    for line in lines:
        reply = local.handle_line(line)
        assert isinstance(reply, str)
        command = parse_command(line)
        if command is None:
            assert reply == ""
            continue
        assert reply[0] in "=?" and reply.endswith("\n\n") and "\n\n" not in reply[:-2], (line, reply)
        assert reply[1:].startswith(command.id or "")
    assert local.handle_line("1 name") == "=1 gojax\n\n"


def test_same_colour_twice_and_moves_after_two_passes(local):
    local.send("boardsize 5")
    local.send("clear_board")
    local.send("play b c3")
    local.send("play b d3")  # handicap-style: a white pass is inserted
    game = local.game
    assert [a for _, a in game.moves] == [12, 25, 13]
    local.send("play w pass")
    local.send("play b pass")
    assert game.over
    local.send("play w b2")  # reopened
    assert not local.game.over and local.game.to_play == gojax.BLACK
    with pytest.raises(gtp.GTPError, match="illegal move"):
        local.send("play w c3")  # occupied; the black pass it needed is not kept either
    assert local.send("showboard").splitlines()[3:5] == [" 3 . . X X . 3", " 2 .(O). . . 2"]


def test_deadline_cuts_off_a_late_search_in_real_time():
    """The one real-time test: a player fast in the warm-up, then a minute slow, is cut off long before.

    The budget is 0.8 s; the margin allowed is many seconds. The exact
    budgets and cut-offs are checked against a hand-advanced clock in
    ``tests/test_gtp_clock.py``.
    """
    calls = []
    release = threading.Event()

    def sneaky(config, state, key):
        calls.append(len(calls))
        if len(calls) > 1:
            release.wait(60.0)
        return config.pass_action  # never seen after the warm-up: the search is always late

    level = Level("sneaky", lambda config: sneaky, "sneaky", jit=False)
    engine = gtp.GTPEngine(gojax.GoConfig(size=5), PlayerSpec(seed=3), EngineOptions(levels=[level]))
    engine.send("komi 7.5")
    engine.send("time_settings 0 1 1")  # warm-up: one fast call
    assert len(calls) == 1
    start = time.monotonic()
    try:
        vertex = engine.send("genmove b")
        elapsed = time.monotonic() - start
    finally:
        release.set()
    assert elapsed < 20.0  # the search alone would take 60 s
    assert vertex != "pass" and engine.game.board().reshape(-1)[gojax.from_gtp(engine.config, vertex)] == 1


def test_early_pass_is_replaced_by_a_safe_move():
    def always_pass(config, state, key):
        return config.pass_action

    passer = Level("always pass", lambda config: always_pass, "pass", jit=False)
    engine = gtp.GTPEngine(gojax.GoConfig(size=5), PlayerSpec(seed=4), EngineOptions(levels=[passer]))
    engine.send("play b c3")
    vertex = engine.send("genmove w")
    assert vertex != "pass" and engine.game.board().reshape(-1)[gojax.from_gtp(engine.config, vertex)] == 2
    engine.send("play b pass")
    assert engine.send("genmove w") == "pass"  # after the opponent's pass, a pass is the player's to make
    options = EngineOptions(levels=[passer], allow_early_pass=True)
    allowed = gtp.GTPEngine(gojax.GoConfig(size=5), options=options)
    assert allowed.send("genmove b") == "pass"


def _first_legal_point(config, state, key):
    return int(np.argmax(np.asarray(jitted("legal_action_mask", config)(state))))


def test_after_the_opponents_pass_it_passes_only_when_that_wins():
    level = Level("first legal point", lambda config: _first_legal_point, "first", jit=False)
    for komi, expected in (("7.5", "pass"), ("0.5", "A5")):
        engine = gtp.GTPEngine(gojax.GoConfig(size=5), PlayerSpec(seed=6), EngineOptions(levels=[level]))
        engine.send(f"komi {komi}")
        for move in ("b c3", "b b3", "b d3", "w a1", "b pass"):  # black 3 stones, white 1, the rest neutral
            engine.send(f"play {move}")
        # The Tromp-Taylor score of the board (final_score would take white A1 off as dead).
        assert format_margin(engine.game.score()) == ("W+5.5" if komi == "7.5" else "B+1.5")
        assert engine.send("genmove w") == expected  # passing ends the game: it wins at 7.5, loses at 0.5
    engine = gtp.GTPEngine(
        gojax.GoConfig(size=5), options=EngineOptions(levels=[level], pass_when_ahead=False)
    )
    for move in ("b c3", "w a1", "b pass"):
        engine.send(f"play {move}")
    assert engine.send("genmove w") == "A5"  # pass_when_ahead=False: the player's move


def test_the_player_ladder_is_full_quarter_heuristic():
    def ladder(spec):
        levels, size = player_levels(spec)
        assert size is None
        return [(level.label, level.family, level.cost) for level in levels]

    heuristic = ("heuristic playout policy", "heuristic", 1.0)
    assert ladder(PlayerSpec("uct", simulations=256)) == [
        ("UCT 256 simulations, random playouts", "uct", 256),
        ("UCT 64 simulations, random playouts", "uct", 64),
        heuristic,
    ]
    assert ladder(PlayerSpec("uct", simulations=16, rollout="heuristic")) == [
        ("UCT 16 simulations, heuristic playouts", "uct", 16),  # a quarter, 4, is under 8: left out
        heuristic,
    ]
    assert ladder(PlayerSpec("mc", playouts=8)) == [
        ("pure Monte-Carlo, 8 playouts/move", "mc", 8),
        ("pure Monte-Carlo, 2 playouts/move", "mc", 2),
        heuristic,
    ]
    assert ladder(PlayerSpec("heuristic")) == [heuristic]
    assert ladder(PlayerSpec("random")) == [("random (no own-eye filling)", "random", 1.0)]


def test_boards_from_2_to_25():
    engine = gtp.GTPEngine(gojax.GoConfig(size=5), PlayerSpec("random"))
    for size, columns in ((2, "A B"), (25, "A B C D E F G H J K L M N O P Q R S T U V W X Y Z")):
        assert engine.handle_line(f"boardsize {size}") == "=\n\n"
        assert engine.send("showboard").splitlines()[0] == columns
    for size in (1, 26):
        assert engine.handle_line(f"boardsize {size}") == "? unacceptable size\n\n"


def test_clock_budgets_by_hand():
    assert gtp.Clock().budget(81, 0) is None
    assert gtp.Clock.from_settings(0, 1, 0).budget(81, 0) is None  # byo-yomi time, no stones: no limit
    absolute = gtp.Clock.from_settings(60, 0, 0)
    # 9x9: 0.9 * 81 / 2 = 36.45 moves expected; 60 / 36.45 = 1.646; 85% of it minus 0.05 s.
    assert absolute.budget(81, 0) == pytest.approx(60 / 36.45 * 0.85 - 0.05)
    absolute.set_left(1.0, 0)
    assert absolute.budget(81, 70) == pytest.approx(1.0 / 8 * 0.85 - 0.05)  # at least 8 moves left
    canadian = gtp.Clock.from_settings(1, 10, 2)
    assert canadian.budget(81, 0) == pytest.approx(min(max(1 / 36.45, 5.0), 6.0) * 0.85 - 0.05)
    canadian.spend(1.5)  # 0.5 s into byo-yomi: the first stone of the period
    assert (canadian.in_byoyomi, canadian.period_left, canadian.stones_left) == (True, 9.5, 1)
    assert canadian.budget(81, 2) == pytest.approx(9.5 * 0.85 - 0.05)
    canadian.spend(1.0)  # period done: a new one
    assert (canadian.period_left, canadian.stones_left) == (10.0, 2)
    with pytest.raises(ValueError):
        gtp.Clock.from_settings(-1, 0, 0)


def test_parse_score():
    assert arena.parse_score("B+3.5") == 3.5
    assert arena.parse_score("W+12.0") == -12.0
    assert arena.parse_score("0") == 0.0
    assert (
        arena.parse_score("W+R") is None and arena.parse_score("") is None and arena.parse_score(None) is None
    )


@pytest.mark.skipif(not SHARED_9X9.exists(), reason="shared SGF data not present")
def test_loadsgf_shared_game_matches_sgfmill(local):
    from sgfmill import sgf, sgf_moves

    local.send(f"loadsgf {SHARED_9X9}")
    game = sgf.Sgf_game.from_bytes(SHARED_9X9.read_bytes())
    board, plays = sgf_moves.get_setup_and_moves(game)
    for colour, move in plays:
        if move is not None:
            board.play(move[0], move[1], colour)
    np.testing.assert_array_equal(local.game.board(), sgfmill_grid(board))
    assert local.config.komi == 6.5 and local.config.size == 9


@pytest.mark.skipif(gnugo_binary() is None, reason="GNU Go is not installed")
def test_full_5x5_game_against_gnugo():
    config = gojax.GoConfig(size=5, komi=7.5)  # the engine's rules: nothing to compile
    ours = gtp.GTPEngine(gojax.GoConfig(size=5), PlayerSpec("random", seed=5))
    with arena.GTPClient(arena.gnugo_command(level=1, seed=1), timeout=60) as gnugo:
        game = arena.referee_game(config, ours, gnugo, names=("gojax", "GNU Go"))
        assert game.reason == "two passes", game.reason
        listed = np.zeros(25, np.int8)
        for value, colour in ((1, "black"), (2, "white")):
            for vertex in gnugo.send(f"list_stones {colour}").split():
                listed[gojax.from_gtp(config, vertex)] = value
        with pytest.raises(gtp.GTPError):
            gnugo.send("play b Z99")
    np.testing.assert_array_equal(ours.game.board().reshape(-1), listed)
    theirs = arena.parse_score(game.engine_scores["GNU Go"])
    assert theirs == pytest.approx(game.score) and not game.disagreements, game.engine_scores
    record = gojax.sgf.parse_sgf(game.sgf())
    assert len(record.moves) == len(game.moves) and record.result == game.result


def test_client_timeout_and_dead_engine(tmp_path):
    sleeper = [sys.executable, "-c", "import time; time.sleep(30)"]
    with arena.GTPClient(sleeper, timeout=0.5) as client:
        with pytest.raises(arena.GTPTimeout):
            client.send("name")
        client.close(timeout=0.2)
    assert client.process.poll() is not None  # killed after quit went unanswered
    with arena.GTPClient([sys.executable, "-c", "pass"]) as client:
        with pytest.raises(gtp.GTPError, match=r"exited|not running"):
            client.send("name")


def test_client_close_reads_the_engine_to_its_end_and_a_closed_stream_ends_the_reader_quietly():
    """``close`` lets the reader thread read the engine's output to its end before closing the pipe
    (nothing the engine wrote is lost, no read of a closed pipe); a reader whose stream is closed
    under it ends as at the end of the output, raising nothing."""
    tail = 20_000  # lines written after the answer to quit: more than a pipe's buffer holds
    answer = "import sys\nfor line in sys.stdin:\n print('=' + line.split()[0] + ' x\\n', flush=True)\n"
    finish = f" if line.split()[1:] == ['quit']: print('# tail\\n' * {tail}, flush=True); break"
    with arena.GTPClient([sys.executable, "-c", answer + finish], timeout=30) as client:
        assert client.send("name") == "x"
    assert not client._reader.is_alive() and client.process.stdout.closed
    lines = []
    while (line := client._lines.get_nowait()) is not None:
        lines.append(line)
    assert lines.count("# tail\n") == tail
    client._read()  # the stream now closed: a read raises inside, the reader ends
    assert client._lines.get_nowait() is None


# ---------------------------------------------------------------------------------------------
# The engine's arguments: rules, player, options.


def test_engine_arguments_from_the_command_line():
    from gojax.gtp._main import build_parser, engine_arguments

    argv = ["--size", "7", "--komi", "5", "--ko-rule", "simple", "--suicide", "--max-moves", "60"]
    argv += ["--player", "mc", "--playouts", "3", "--rollout", "heuristic", "--seed", "9", "--name", "x"]
    argv += ["--no-warmup", "--no-pass-when-ahead", "--allow-early-pass"]
    rules, player, options = engine_arguments(build_parser().parse_args(argv))
    assert rules == gojax.GoConfig(size=7, komi=5.0, ko_rule="simple", suicide=True, max_moves=60)
    assert player == PlayerSpec("mc", simulations=128, playouts=3, rollout="heuristic", seed=9)
    assert options == EngineOptions(name="x", warm_up=False, pass_when_ahead=False, allow_early_pass=True)
    rules, player, options = engine_arguments(build_parser().parse_args([]))
    assert (rules, player, options) == (gojax.GoConfig(size=19), PlayerSpec(), EngineOptions())


def test_the_tree_search_playout_policy_from_the_command_line():
    from gojax.gtp._main import build_parser, engine_arguments
    from gojax.search import TreeSearchSettings

    for policy in ("heavy", "light"):
        _, player, _ = engine_arguments(build_parser().parse_args(["--playout-policy", policy]))
        assert player.search == TreeSearchSettings(playout_policy=policy)
    with pytest.raises(ValueError, match="'smart'"):
        engine_arguments(build_parser().parse_args(["--playout-policy", "smart"]))
    with pytest.raises(ValueError, match="--player mcts, not 'uct'"):
        engine_arguments(build_parser().parse_args(["--player", "uct", "--playout-policy", "heavy"]))
    weights = ["--policy-weight", "0.25", "--value-weight", "0.75"]
    argv = ["--playout-policy", "light", *weights, "--checkpoint", "runs/net"]
    _, player, _ = engine_arguments(build_parser().parse_args(argv))
    assert player.search == TreeSearchSettings(playout_policy="light", policy_weight=0.25, value_weight=0.75)
    assert player.checkpoint == "runs/net"
    with pytest.raises(ValueError, match=r"value_weight .*1\.5"):
        engine_arguments(build_parser().parse_args(["--value-weight", "1.5", "--checkpoint", "runs/net"]))
    with pytest.raises(ValueError, match=r"--policy-weight, --value-weight: .*--checkpoint"):
        engine_arguments(build_parser().parse_args(weights))
    with pytest.raises(ValueError, match="--value-weight: for --player mcts, not 'az'"):
        engine_arguments(build_parser().parse_args(["--player", "az", "--value-weight", "0.5"]))
    mixed = ["--player", "az", "--checkpoint", "runs/net", "--playout-weight", "0.5"]
    _, player, _ = engine_arguments(build_parser().parse_args(mixed))
    assert (player.kind, player.playout_weight) == ("az", 0.5)
    assert engine_arguments(build_parser().parse_args(mixed[:4]))[1].playout_weight == 0.0
    with pytest.raises(ValueError, match=r"PlayerSpec\.playout_weight .*1\.5"):
        engine_arguments(build_parser().parse_args([*mixed[:4], "--playout-weight", "1.5"]))
    with pytest.raises(ValueError, match="playout_weight is for kind 'az', not 'mcts'"):
        engine_arguments(build_parser().parse_args(["--playout-weight", "0.5"]))
    raw = ["--player", "policy", "--checkpoint", "runs/net"]
    assert engine_arguments(build_parser().parse_args(raw))[1].network_symmetries == 8
    assert engine_arguments(build_parser().parse_args([*raw, "--symmetries", "1"]))[1].network_symmetries == 1
    assert engine_arguments(build_parser().parse_args(mixed[:4]))[1].network_symmetries == 1  # a search's
    averaged = engine_arguments(build_parser().parse_args([*mixed[:4], "--symmetries", "8"]))[1]
    assert averaged.network_symmetries == 8
    guided = ["--checkpoint", "runs/net", "--symmetries", "8"]
    assert engine_arguments(build_parser().parse_args(guided))[1].network_symmetries == 8
    spec = gtp.PlayerSpec("policy", checkpoint="runs/net")  # the default is the kind's, kept as None
    assert spec.symmetries is None and dataclasses.replace(spec, kind="az").network_symmetries == 1
    assert dataclasses.replace(gtp.PlayerSpec("mcts"), seed=3).network_symmetries == 1
    with pytest.raises(ValueError, match=r"symmetries is for a network .*kind 'mcts' has none"):
        engine_arguments(build_parser().parse_args(["--symmetries", "8"]))
    with pytest.raises(SystemExit):
        build_parser().parse_args([*raw, "--symmetries", "4"])
    with pytest.raises(ValueError, match=r"PlayerSpec\.symmetries must be 1 or 8, got 4"):
        gtp.PlayerSpec("policy", checkpoint="runs/net", symmetries=4)
    batch = ["--playouts-per-leaf", "16", "--leaves-per-batch", "64", "--prior-visits", "40"]
    _, player, _ = engine_arguments(build_parser().parse_args(batch))
    assert player.search == TreeSearchSettings(playouts_per_leaf=16, leaves_per_batch=64, prior_visits=40.0)
    with pytest.raises(ValueError, match="prior_visits"):
        engine_arguments(build_parser().parse_args(["--prior-visits", "-1"]))
    _, player, _ = engine_arguments(
        build_parser().parse_args(["--opening-prior", "1", "--prior-visits", "1000"])
    )
    assert player.search == TreeSearchSettings(opening_prior=True, prior_visits=1000.0)
    with pytest.raises(SystemExit):
        build_parser().parse_args(["--opening-prior", "yes"])
    with pytest.raises(TypeError, match=r"TreeSearchSettings.opening_prior must be a bool, got 1"):
        TreeSearchSettings(opening_prior=1)
    _, player, _ = engine_arguments(build_parser().parse_args(["--dynamic-komi", "0.5"]))
    assert player.search == TreeSearchSettings(dynamic_komi=0.5)
    with pytest.raises(ValueError, match=r"dynamic_komi must be .*1.5"):
        engine_arguments(build_parser().parse_args(["--dynamic-komi", "1.5"]))
    with pytest.raises(ValueError, match="--playouts-per-leaf: for --player mcts, not 'uct'"):
        engine_arguments(build_parser().parse_args(["--player", "uct", "--playouts-per-leaf", "4"]))


def test_the_alphazero_search_from_the_command_line():
    from gojax.gtp._main import build_parser, engine_arguments

    needs("flax")
    from gojax import alphazero

    az = ["--player", "az", "--checkpoint", "runs/net"]
    # PUCT by default, as the engine's PlayerSpec without a search.
    _, player, _ = engine_arguments(build_parser().parse_args(az))
    assert player.search == alphazero.SearchSettings(algorithm="puct").for_play()
    assert player.search.temperature == 0.0 and player.search.dirichlet_fraction == 0.0
    gumbel = [*az, "--algorithm", "gumbel"]
    _, player, _ = engine_arguments(build_parser().parse_args(gumbel))
    assert player.search == alphazero.SearchSettings(algorithm="gumbel").for_play()
    assert (player.search.gumbel_scale, player.search.max_num_considered_actions) == (1.0, 16)
    argv = [*gumbel, "--gumbel-scale", "0", "--considered-actions", "32"]
    _, player, _ = engine_arguments(build_parser().parse_args(argv))
    wide = alphazero.SearchSettings(algorithm="gumbel", gumbel_scale=0.0, max_num_considered_actions=32)
    assert player.search == wide.for_play()
    with pytest.raises(ValueError, match="--considered-actions: for --algorithm gumbel, not 'puct'"):
        engine_arguments(build_parser().parse_args([*az, "--considered-actions", "8"]))
    with pytest.raises(ValueError, match=r"max_num_considered_actions .*0"):
        engine_arguments(build_parser().parse_args([*gumbel, "--considered-actions", "0"]))
    with pytest.raises(ValueError, match="for --player az, not 'mcts'"):
        engine_arguments(build_parser().parse_args(["--gumbel-scale", "0"]))


def test_host_devices_split_the_cpu_before_jax_starts(monkeypatch, capsys):
    from gojax._host.cpu_devices import FLAG, split_host_cpu
    from gojax.gtp._main import main

    monkeypatch.setenv("XLA_FLAGS", f"--xla_cpu_use_thunk_runtime=true {FLAG}=4")
    split_host_cpu(2)
    assert os.environ["XLA_FLAGS"] == f"--xla_cpu_use_thunk_runtime=true {FLAG}=2"  # replaced, others kept
    for bad, error in ((0, ValueError), (True, TypeError)):
        with pytest.raises(error, match="host devices"):
            split_host_cpu(bad)
    assert main(["--host-devices", "0"]) == 2
    assert "--host-devices: host devices must be" in capsys.readouterr().err


def test_engine_keeps_its_rules_across_boardsize():
    engine = gtp.GTPEngine(gojax.GoConfig(size=5, ko_rule="situational", suicide=True), PlayerSpec("random"))
    assert engine.config == gojax.GoConfig(size=5, ko_rule="situational", suicide=True)
    assert engine.config.move_cap == 50 == gojax.MOVE_CAP_PER_POINT * 25  # the library's default cap
    engine.send("boardsize 7")
    assert engine.config == gojax.GoConfig(size=7, ko_rule="situational", suicide=True)
    assert engine.config.move_cap == 98
    capped = gtp.GTPEngine(gojax.GoConfig(size=5, max_moves=30), PlayerSpec("random"))
    capped.send("boardsize 6")
    assert capped.config.max_moves == 30 and capped.config.size == 6
    named = gtp.GTPEngine(gojax.GoConfig(size=5), PlayerSpec("random"), EngineOptions(name="me"))
    assert named.send("name") == "me"


@pytest.mark.parametrize(
    ("make", "error", "match"),
    [
        (lambda: PlayerSpec("alphabeta"), ValueError, r"PlayerSpec\.kind .*'alphabeta'"),
        (lambda: PlayerSpec(simulations=0), ValueError, r"PlayerSpec\.simulations .*0"),
        (lambda: PlayerSpec(playouts=2.5), TypeError, r"PlayerSpec\.playouts .*2\.5"),
        (lambda: PlayerSpec(rollout="smart"), ValueError, r"PlayerSpec\.rollout .*'smart'"),
        (lambda: PlayerSpec("az"), ValueError, r"PlayerSpec\.checkpoint"),
        (lambda: PlayerSpec("policy"), ValueError, r"PlayerSpec\.checkpoint .*'policy'"),
        (lambda: PlayerSpec("mc", checkpoint="net"), ValueError, r"PlayerSpec\.checkpoint .*'mc'"),
        (lambda: PlayerSpec("uct", search=object()), ValueError, r"PlayerSpec\.search"),
        (lambda: EngineOptions(levels=[]), ValueError, r"EngineOptions\.levels"),
        (lambda: gtp.GTPEngine(gojax.GoConfig(size=5), "random"), TypeError, r"GTPEngine player"),
        (lambda: gtp.GTPEngine(5), TypeError, r"GTPEngine rules"),
    ],
)
def test_engine_arguments_are_validated(make, error, match):
    with pytest.raises(error, match=match):
        make()


def _tiny_checkpoint(path: Path, policy_bias: np.ndarray | None = None) -> None:
    """A 5x5 network with no residual block saved at ``path``; ``policy_bias``: its policy is that bias."""
    for name in ("flax", "mctx", "optax", "orbax.checkpoint"):
        pytest.importorskip(name)
    from flax import nnx

    from gojax import alphazero as az

    network = az.NetworkConfig(blocks=0, channels=4)
    net = az.PolicyValueNet(network, 5, az.BASIC_NUM_CHANNELS, rngs=nnx.Rngs(0))
    if policy_bias is not None:
        net.policy_out.kernel[...] = jnp.zeros_like(net.policy_out.kernel[...])
        net.policy_out.bias[...] = jnp.asarray(policy_bias)
    az.save_checkpoint(path, net, network, board_size=5)


def test_alphazero_player_gets_the_search_settings(tmp_path):
    _tiny_checkpoint(tmp_path / "net")
    from gojax import alphazero as az

    search = az.SearchSettings(algorithm="puct", temperature=0.0, dirichlet_fraction=0.0, pb_c_init=2.0)
    spec = PlayerSpec(
        "az", simulations=8, checkpoint=str(tmp_path / "net"), search=search, seconds_per_move=None
    )
    engine = gtp.GTPEngine(gojax.GoConfig(size=9), spec)
    assert engine.searcher.seconds_per_move is None and len(engine.searcher.levels) == 3
    assert engine.config.size == 5  # the network's board
    config = engine.config
    made = [level.make(config) for level in engine.searcher.levels[:2]]
    assert [p.settings for p in made] == [search.replace(num_simulations=n) for n in (8, 2)]
    assert engine.searcher.levels[0].label == "AlphaZero puct 8 simulations"
    timed = gtp.GTPEngine(gojax.GoConfig(size=5), dataclasses.replace(spec, seconds_per_move=0.5))
    costs = [level.cost for level in timed.searcher.levels[:-1]]
    assert costs == [4096, 2048, 1024, 512, 256, 128, 64, 32, 16, 8, 2]  # the time ladder, then 8 and 2
    assert MOST_SIMULATIONS == 4096 and timed.searcher.seconds_per_move == 0.5
    assert timed.searcher.levels[0].make(config).settings == search.replace(num_simulations=4096)
    with pytest.raises(TypeError, match=r"PlayerSpec\.search"):
        gtp.GTPEngine(gojax.GoConfig(size=5), PlayerSpec("az", checkpoint=str(tmp_path / "net"), search=8))


def test_policy_player_plays_the_networks_first_legal_choice(tmp_path):
    """``--player policy --symmetries 1``: the network's highest legal logit, no search (C3 first,
    then B2); by default the mean over the 8 symmetries, which spreads B2's logit over its 4 images
    (5 each) while C3's four neighbours keep their 6."""
    bias = np.zeros(26, np.float32)
    bias[[gojax.from_gtp(gojax.GoConfig(size=5), v) for v in ("C3", "B2")]] = (30.0, 20.0)
    bias[[gojax.from_gtp(gojax.GoConfig(size=5), v) for v in ("C2", "B3", "D3", "C4")]] = 6.0
    _tiny_checkpoint(tmp_path / "net", bias)
    spec = PlayerSpec("policy", checkpoint=str(tmp_path / "net"), symmetries=1)
    engine = gtp.GTPEngine(gojax.GoConfig(size=9), spec)
    assert engine.config.size == 5
    assert engine.searcher.levels[0].label == "AlphaZero network's policy, no search"
    assert engine.send("genmove b") == "C3"
    assert engine.send("genmove w") == "B2"  # C3 is taken
    engine.close()
    engine = gtp.GTPEngine(gojax.GoConfig(size=5), PlayerSpec("policy", checkpoint=str(tmp_path / "net")))
    assert engine.searcher.levels[0].label == "AlphaZero network's policy, no search, mean over 8 symmetries"
    assert engine.send("genmove b") == "C3"  # the centre is its own image under every symmetry
    assert engine.send("genmove w") in ("C2", "B3", "D3", "C4")  # not B2: its 20 is 5 on each image
    engine.close()


def test_a_network_of_the_same_shape_compiles_nothing(tmp_path):
    """A network's weights are arguments of its compiled player: an engine on another checkpoint of
    the same shape (a training run's next network) reuses it, compiles nothing, and plays its own moves."""
    import jax.monitoring

    size5 = gojax.GoConfig(size=5)
    bias = np.zeros(26, np.float32)
    for name, top in (("first", "C3"), ("second", "B2")):
        bias[:] = 0.0
        bias[gojax.from_gtp(size5, top)] = 30.0
        _tiny_checkpoint(tmp_path / name, bias)
    spec = PlayerSpec("policy", checkpoint=str(tmp_path / "first"), symmetries=1, seed=1)
    first = gtp.GTPEngine(size5, spec)
    assert first.send("genmove b") == "C3"
    events: list = []
    listen = _compile_events(events)
    jax.monitoring.register_event_duration_secs_listener(listen)
    try:
        second = gtp.GTPEngine(size5, dataclasses.replace(spec, checkpoint=str(tmp_path / "second")))
        assert second.send("genmove b") == "B2"  # its own weights, not the first network's
    finally:
        jax.monitoring.unregister_event_duration_listener(listen)
    assert not [e for e in events if "backend_compile" in e], events  # loading the network traces only
    first.send("clear_board")
    assert first.send("genmove b") == "C3"  # the first engine still plays its own network
    first.close()
    second.close()


def _compile_events(events: list) -> Callable[..., None]:
    """A jax.monitoring listener noting every trace and compile (the events' names say which)."""

    def listen(name: str, *args, **kwargs) -> None:
        if "compile" in name or "trace" in name:
            events.append(name)

    return listen


def test_a_new_komi_compiles_nothing():
    """Komi is data to the compiled players: `komi` then genmove traces and compiles nothing new."""
    import jax.monitoring

    def scorer(config, state, key):  # a jitted level whose move depends on the komi
        del key
        behind = gojax.score(config, state) < 0  # black to move on the empty board
        return jnp.where(behind, 12, 0).astype(jnp.int32)

    levels = (Level("scorer", lambda config: scorer, "scorer"),)
    engine = gtp.GTPEngine(gojax.GoConfig(size=5, komi=0.5), PlayerSpec(seed=3), EngineOptions(levels=levels))
    assert engine.send("genmove b") == "C3"  # komi 0.5: the empty board is behind
    events: list = []
    listen = _compile_events(events)
    jax.monitoring.register_event_duration_secs_listener(listen)
    try:
        for komi, vertex in (("-0.5", "A5"), ("6.5", "C3"), ("-3", "A5")):
            engine.send(f"komi {komi}")
            engine.send("clear_board")
            assert engine.send("genmove b") == vertex, komi
    finally:
        jax.monitoring.unregister_event_duration_listener(listen)
    assert events == [], events
    assert len(engine.searcher._compiled) == 1  # one compiled level for every komi
