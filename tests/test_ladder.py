"""Ladders read by search: hand-built positions with hand-read answers.

Diagrams: ``X`` black, ``O`` white, ``.`` empty, row 0 at the top; points are
written ``(row, col)``. In every capture position white (``O``) is the
attacker and black (``X``) the runner. Each expected answer is read by hand in
the comment above it, move by move where the chase matters.

The basic ladder used throughout (9x9, white to move)::

    . . . . . . . . .
    . . O . . . . . .
    . O X . . . . . .
    . O . . . . . . .
    . . . . . . . . .      (rows 4-8 empty)

Black (2,2) has two liberties, (2,3) and (3,2).

* White (3,2): black extends to (2,3) and has (1,3), (2,4), (3,3): escaped.
* White (2,3): black extends to (3,2) and has (3,3), (4,2) ((3,1) is white).
  White must atari from (4,2) - an atari at (3,3) lets black out at (4,2) with
  (4,1), (4,3), (5,2). Black extends to (3,3): liberties (3,4), (4,3); white
  (3,4), black (4,3): liberties (4,4), (5,3); white (5,3), black (4,4) ...
  the runner zig-zags along the diagonal (3,3), (4,4), (5,5), (6,6), (7,7)
  and dies at the lower edge: after black (7,7) and white (7,8), black's
  extension at (8,7) has the one liberty (8,8).

So the capture plane is exactly {(2,3)}.
"""

from __future__ import annotations

import functools
import os

import jax
import ladder_reference
import numpy as np
import pytest
from conftest import jitted, points_of, random_boards, ref_chain, sgf_positions, stack_states

import gojax
from gojax import features as F

# On the XLA code, the reference; tests/test_native.py compares the native kernels with it.
pytestmark = pytest.mark.usefixtures("xla_path")

CONFIG = gojax.GoConfig(size=9, ko_rule="simple")
BIG = gojax.GoConfig(size=19, ko_rule="simple")


def plane_fn(name, config=CONFIG):
    return jitted(getattr(F, name), config)


def board(rows, size=9):
    """A diagram from ``{row: text}``; other rows empty."""
    lines = []
    for r in range(size):
        lines.append(rows.get(r, " ".join("." * size)))
    return "\n".join(lines)


def plane(name, diagram, to_play, config=CONFIG):
    state = gojax.from_ascii(config, diagram, to_play)
    return np.asarray(plane_fn(name, config)(state))


BASIC = {
    1: ". . O . . . . . .",
    2: ". O X . . . . . .",
    3: ". O . . . . . . .",
}


def with_rows(base, **changes):
    rows = dict(base)
    for key, text in changes.items():
        rows[int(key[1:])] = text
    return rows


# --------------------------------------------------------------------------- 1. working ladder


def test_working_ladder():
    got = plane("ladder_capture_plane", board(BASIC), gojax.WHITE)
    assert points_of(got) == {(2, 3)}


def test_working_ladder_cannot_be_escaped():
    # White has played the atari (2,3); black to move. Extending at (3,2) gives two
    # liberties and the chase of the module docstring: the escape plane is empty.
    rows = with_rows(BASIC, r2=". O X O . . . . .")
    got = plane("ladder_escape_plane", board(rows), gojax.BLACK)
    assert points_of(got) == set()


# --------------------------------------------------------------------------- 2. broken by a stone


BREAKER = with_rows(BASIC, r6=". . . . . . X . .")


def test_ladder_breaker_makes_the_capture_fail():
    # A black stone at (6,6), on the runner's diagonal. When the runner reaches (5,5) with
    # liberties (5,6), (6,5), either white atari lets it connect to (6,6): after white (5,6),
    # black (6,5)+(6,6) has (7,5), (7,6), (6,7); after white (6,5), black (5,6)+(6,6) has
    # (4,6), (5,7), (6,7), (7,6). Escaped, so no working ladder anywhere.
    got = plane("ladder_capture_plane", board(BREAKER), gojax.WHITE)
    assert points_of(got) == set()


def test_ladder_breaker_makes_the_escape_work():
    rows = with_rows(BREAKER, r2=". O X O . . . . .")
    got = plane("ladder_escape_plane", board(rows), gojax.BLACK)
    assert points_of(got) == {(3, 2)}


# A long black chain as the breaker, walled in by white but for two liberties at its far
# end, (1,7) and (0,6). When the runner extends to (5,5) it joins the chain at (5,6) and has
# (6,5), (1,7) and (0,6): three liberties, escaped. A reader that stopped filling the
# runner's new chain once it had seen two liberties would count two and read on.
LONG_BREAKER = with_rows(
    BASIC,
    r0=". . . . . . . X X",
    r1=". . O . . . . . X",
    r2=". O X . . . . O X",
    r3=". O . . . . . O X",
    r4=". . . . . . O O X",
    r5=". . . . . . X X X",
    r6=". . . . . . O O O",
)


def test_a_long_breaker_chain_counts_its_far_liberties():
    state = gojax.from_ascii(CONFIG, board(LONG_BREAKER), gojax.WHITE)
    grid = np.asarray(gojax._host.diagram.parse_board(board(LONG_BREAKER), 9))
    want_capture, _, reads = ladder_reference.planes(grid, gojax.WHITE)
    assert reads > 0 and points_of(want_capture) == set()
    np.testing.assert_array_equal(plane_fn("ladder_capture_plane")(state), want_capture)


def test_attackers_stone_on_the_path_does_not_break_it():
    # A white stone at (6,6) instead: when the runner at (5,5) has (5,6), (6,5), white (5,6)
    # leaves black's extension (6,5) with only (7,5) ((6,4) and (6,6) white): captured sooner.
    rows = with_rows(BASIC, r6=". . . . . . O . .")
    got = plane("ladder_capture_plane", board(rows), gojax.WHITE)
    assert points_of(got) == {(2, 3)}


# --------------------------------------------------------------------------- 3. the edge


def test_edge_decides_second_line_ladder():
    # The same three stones on the second line and in the centre.
    #
    # Second line: black (7,2), white (6,2), (7,1); black's liberties (7,3), (8,2).
    # White (7,3): black extends to (8,2) and has (8,1), (8,3) only - the edge takes the
    # rest. White (8,3) (connected to (7,3)): black's extension (8,1) has the one liberty
    # (8,0). Captured. White (8,2) instead: black (7,3) has (6,3), (7,4), (8,3): escaped.
    edge = {6: ". . O . . . . . .", 7: ". O X . . . . . ."}
    assert points_of(plane("ladder_capture_plane", board(edge), gojax.WHITE)) == {(7, 3)}
    # Centre (three rows up): white (4,3), black (5,2) has (5,1), (5,3), (6,2); white (5,2),
    # black (4,3) has (3,3), (4,4), (5,3). Three liberties either way: no ladder.
    centre = {3: ". . O . . . . . .", 4: ". O X . . . . . ."}
    assert points_of(plane("ladder_capture_plane", board(centre), gojax.WHITE)) == set()


def test_first_line_self_atari_is_refused():
    # Black (7,2) with white (6,2), (7,1), and a black stone (8,3) on the first line.
    # White (8,2) would be a stone with the one liberty (8,1) (the edge below, black
    # (7,2) and (8,3) beside it): black captures it and escapes. White (7,3) still works:
    # black (8,2) joins (8,3) with liberties (8,1), (8,4); white (8,4), black (8,1) has only
    # (8,0). The ladder plane is {(7,3)}; (8,2) is not in it.
    rows = {6: ". . O . . . . . .", 7: ". O X . . . . . .", 8: ". . . X . . . . ."}
    assert points_of(plane("ladder_capture_plane", board(rows), gojax.WHITE)) == {(7, 3)}


# --------------------------------------------------------------------------- 4. escape by capture


COUNTER = with_rows(BASIC, r0=". . X . . . . . .", r1=". . O X . . . . .")


def test_escape_by_capturing_an_attacker_in_atari():
    # The basic ladder plus black (0,2) and (1,3): white (1,2) is left with the one liberty
    # (1,1). Whichever atari white plays on black (2,2), black captures (1,2) at (1,1) and
    # is out. Black (0,2) (liberties (0,1), (0,3)) cannot be laddered either: each atari on
    # it is answered by the same capture. No working ladder.
    assert points_of(plane("ladder_capture_plane", board(COUNTER), gojax.WHITE)) == set()


def test_escape_plane_with_a_counter_capture_later():
    # White has played (2,3); black to move. Extending at (3,2) leaves black with (3,3),
    # (4,2); after either white atari black captures (1,2) (still in atari) and escapes.
    rows = with_rows(COUNTER, r2=". O X O . . . . .")
    assert points_of(plane("ladder_escape_plane", board(rows), gojax.BLACK)) == {(3, 2)}


def test_extension_joining_a_friendly_stone():
    # Black (4,3) is in atari (liberty (4,4)); black (5,4) is next to that liberty.
    # Extending at (4,4) joins them: (4,3) (4,4) (5,4) has (3,4), (4,5), (5,5), (6,4).
    # The capture of white (5,3) at (6,3) would save black too, but it is a different move
    # and the escape plane marks only extensions.
    rows = {
        3: ". . . O . . . . .",
        4: ". . O X . . . . .",
        5: ". . X O X . . . .",
    }
    assert points_of(plane("ladder_escape_plane", board(rows), gojax.BLACK)) == {(4, 4)}


def test_extension_into_a_dead_end_is_no_escape():
    # Black (2,2) in atari at (2,3), hemmed in: extending to (2,3) gives (1,3) and... white
    # (1,3), (2,4), (3,3) leave it no liberty -> illegal (suicide); no escape anywhere.
    rows = {
        1: ". . O O . . . . .",
        2: ". O X . O . . . .",
        3: ". . O O . . . . .",
    }
    assert points_of(plane("ladder_escape_plane", board(rows), gojax.BLACK)) == set()


# --------------------------------------------------------------------------- 5. long diagonal


def test_long_diagonal_ladder_on_19x19():
    # The basic ladder in the top-left corner of a 19x19 board: the chase runs 16 rows down
    # the diagonal to the lower-right edge (about 32 ataris) and captures.
    empty = ". " * 18 + "."
    rows = {r: empty for r in range(19)}
    rows[1] = ". . O" + " ." * 16
    rows[2] = ". O X" + " ." * 16
    rows[3] = ". O ." + " ." * 16
    diagram = "\n".join(rows[r] for r in range(19))
    got = plane("ladder_capture_plane", diagram, gojax.WHITE, BIG)
    assert points_of(got) == {(2, 3)}
    # A black stone at (16,16), near the far corner on the diagonal, breaks it.
    rows[16] = ". " * 16 + "X . ."
    diagram = "\n".join(rows[r] for r in range(19))
    got = plane("ladder_capture_plane", diagram, gojax.WHITE, BIG)
    assert points_of(got) == set()


# --------------------------------------------------------------------------- random positions
#
# A plain-Python reader with the rules of the module docstring (its own board code, no
# gojax), compared with the planes on random boards: this checks the candidate search,
# the chunked loop and the reading plumbing, while the hand positions above check that
# the rules themselves read ladders right.


@pytest.mark.reference
def test_planes_match_a_plain_python_reader_on_random_boards():
    capture_fn, escape_fn = plane_fn("ladder_capture_plane"), plane_fn("ladder_escape_plane")
    seen, most_reads, stats = [0, 0], 0, {}
    for i, grid in enumerate(random_boards(1, 24, 9, density=(0.3, 0.6))):
        mover = 1 + i % 2
        state = gojax.from_board(CONFIG, grid, mover)
        want_capture, want_escape, reads = ladder_reference.planes(grid, mover, stats)
        most_reads = max(most_reads, reads)
        np.testing.assert_array_equal(capture_fn(state), want_capture, err_msg=f"capture, board {i}")
        np.testing.assert_array_equal(escape_fn(state), want_escape, err_msg=f"escape, board {i}")
        seen[0] += int(want_capture.sum())
        seen[1] += int(want_escape.sum())
    # The boards do hold ladders of both kinds, and some board needs more reads than one
    # chunk (8) holds, so the chunk loop runs more than once (a read of a point next to
    # two 2-liberty chains counts twice here; the plane reads each chain once too).
    assert seen[0] >= 3 and seen[1] >= 3, seen
    assert most_reads > 8, most_reads
    # And reads that back up: a line read out for a whole round, answered, another tried.
    assert stats["backups"] >= 10, stats


# Black (4,4)-(4,5) in atari at (4,6), next to white (3,4)-(3,5) in atari at (3,6).
# Extending at (4,6) leaves (3,6), (5,6); white ataris at (3,6), saving its two stones,
# and the ladder runs down to the corner: captured. Capturing at (3,6) first would give
# black (3,4), (3,5), (4,6): out. The escape plane is about the extension only.
CAPTURE_FIRST = {
    2: ". . . . X X . . .",
    3: ". . . X O O . . .",
    4: ". . . O X X . O .",
    5: ". . . . O O . . .",
}


def test_the_escape_plane_reads_the_extension_not_a_capture_first():
    grid = np.asarray(gojax.parse_board(board(CAPTURE_FIRST), 9))
    prey = 4 * 9 + 4
    assert ladder_reference.read(grid, prey, "extend") == "captured"
    assert ladder_reference.read(grid, prey, "defend") == "escaped"
    assert points_of(plane("ladder_escape_plane", board(CAPTURE_FIRST), gojax.BLACK)) == set()


def test_alphago_preset_shares_one_pool_and_matches_the_reference():
    # The preset reads both planes in one pool, batched over boards: the reads of every
    # board and of both kinds mixed in one loop must still land on their own board and plane.
    def ladder_channels(config, state):
        out = F.alphago_planes(config, state, F.history_init(config, state))
        return out[..., F.ALPHAGO_CHANNELS.ladder_capture], out[..., F.ALPHAGO_CHANNELS.ladder_escape]

    # Twelve random boards, then CAPTURE_FIRST (black to move, as board 12 is).
    grids = [
        *random_boards(2, 12, 9, density=(0.3, 0.6)),
        np.asarray(gojax.parse_board(board(CAPTURE_FIRST), 9)),
    ]
    states = stack_states(gojax.from_board(CONFIG, grid, 1 + i % 2) for i, grid in enumerate(grids))
    captures, escapes = jitted(ladder_channels, CONFIG, batched=True)(states)
    seen = [0, 0]
    for i, grid in enumerate(grids):
        want_capture, want_escape, _ = ladder_reference.planes(grid, 1 + i % 2)
        got_capture, got_escape = np.asarray(captures[i]) > 0, np.asarray(escapes[i]) > 0
        np.testing.assert_array_equal(got_capture, want_capture, err_msg=f"capture, board {i}")
        np.testing.assert_array_equal(got_escape, want_escape, err_msg=f"escape, board {i}")
        seen[0] += int(want_capture.sum())
        seen[1] += int(want_escape.sum())
    assert seen[0] >= 2 and seen[1] >= 2, seen


# --------------------------------------------------------------------------- single reads


def test_single_reads():
    capture = jax.jit(functools.partial(F.ladder_capture, CONFIG))
    escape = jax.jit(functools.partial(F.ladder_escape, CONFIG))
    basic = gojax.from_ascii(CONFIG, board(BASIC), gojax.WHITE)
    assert bool(capture(basic, 2 * 9 + 3, 2 * 9 + 2))
    assert not bool(capture(basic, 3 * 9 + 2, 2 * 9 + 2))
    # Not an atari (the prey is white's own stone, or the move leaves two liberties).
    assert not bool(capture(basic, 2 * 9 + 3, 1 * 9 + 2))
    assert not bool(capture(basic, 4 * 9 + 4, 2 * 9 + 2))
    broken = gojax.from_ascii(CONFIG, board(with_rows(BREAKER, r2=". O X O . . . . .")), gojax.BLACK)
    working = gojax.from_ascii(CONFIG, board(with_rows(BASIC, r2=". O X O . . . . .")), gojax.BLACK)
    assert bool(escape(broken, 2 * 9 + 2))
    assert not bool(escape(working, 2 * 9 + 2))
    # A chain that is not in atari is not "escaping".
    assert not bool(escape(basic.replace(turn=basic.turn * 0), 2 * 9 + 2))


def test_bad_chunk():
    state = gojax.init(CONFIG)
    with pytest.raises(ValueError, match="chunk"):
        F.ladder_capture_plane(CONFIG, state, chunk=0)


# --------------------------------------------------------------------------- captures in the chase


# 9x9, black to move, the rest empty. White (0,1)-(1,1) has two liberties, (0,2) and (1,2).
# Black (1,2) ataris it; black (1,2) itself has the one liberty (0,2) (white (1,1), (1,3),
# (2,2) around it). White's only move is (0,2), which captures black (1,2) - and leaves the
# white chain (0,1) (1,1) (0,2) with the one liberty (1,2) ((0,3) is black): black plays
# (1,2) again and takes all three (no ko: three stones). The capture freed nothing.
RETAKE = {
    0: "X O . X . . . . .",
    1: "X O . O . . . . .",
    2: "X X O . . . . . .",
}


def test_a_capture_that_does_not_free_the_runner_is_no_escape():
    got = plane("ladder_capture_plane", board(RETAKE), gojax.BLACK)
    assert (1, 2) in points_of(got)
    grid = gojax._host.diagram.parse_board(board(RETAKE), 9)
    prey = 0 * 9 + 1
    assert ladder_reference.read(grid, prey, "capture", 1 * 9 + 2) == "captured"


# Black (2,2) in atari at (3,2) after white (2,3); white (1,2) next to it is in atari too at
# (1,1). Capturing there leaves black (2,2) with (1,2), (3,2): two liberties, and the chase
# goes on from the new position: white (3,2), black (1,2)... runs up into white (0,2)? No:
# (0,2) is empty, black extends to (1,2) with (0,2), (1,1)... The capture plane of white
# and the reference agree on the whole board (a chase that continues after a capture).
def test_the_chase_continues_after_a_capture():
    rows = with_rows(BASIC, r1=". . O X . . . . .", r0=". . X . . . . . .", r2=". O X O . . . . .")
    state = gojax.from_ascii(CONFIG, board(rows), gojax.BLACK)
    grid = np.asarray(gojax._host.diagram.parse_board(board(rows), 9))
    want_capture, want_escape, _ = ladder_reference.planes(grid, gojax.BLACK)
    np.testing.assert_array_equal(plane_fn("ladder_escape_plane")(state), want_escape)
    np.testing.assert_array_equal(plane_fn("ladder_capture_plane")(state), want_capture)


# A capture by the extension, away from the runner. White to move. Black (4,4) has (4,3) and (4,5);
# white (4,6) is in atari at (4,5) but does not touch black (4,4). White (4,3): black
# extends to (4,5) with the one liberty (5,5) on the board as it is - but the extension
# captures (4,6), which gives it (4,6) too. White's ataris then fail: (5,5) lets black
# join its stones around (4,6), and (4,6) is suicide. So (4,3) is no ladder capture.
EXTENSION_CAPTURES = {
    3: ". . . . O O X . .",
    4: ". . . . X . O X .",
    5: ". . . . O . X . .",
}


def test_an_extension_that_captures_away_from_the_runner():
    diagram = board(EXTENSION_CAPTURES)
    got = plane("ladder_capture_plane", diagram, gojax.WHITE)
    assert (4, 3) not in points_of(got)
    grid = np.asarray(gojax._host.diagram.parse_board(diagram, 9))
    assert ladder_reference.read(grid, 4 * 9 + 4, "capture", 4 * 9 + 3) == "escaped"
    want_capture, _, _ = ladder_reference.planes(grid, gojax.WHITE)
    np.testing.assert_array_equal(got, want_capture)


# --------------------------------------------------------------------------- KataGo's ladder tests
#
# Positions of KataGo's cpp/tests/testboardbasic.cpp ("Ladders 2 Libs", "LaddersMultiKo",
# "LaddersBigBoard", "WholeBoardLadder"), written here as diagrams (x black, o white), with
# KataGo's answers of searchIsLadderCapturedAttackerFirst2Libs: 1 where a chain with two
# liberties is captured by a ladder with its opponent to move. Only chains with 2 liberties
# are compared (KataGo answers 0 for the others).

KATAGO_2_LIBS = (
    """
xo.x..oxo
xo.o..o..
xxo......
..o.x....
xo..xo...
...ooxo..
.....xo..
xoox..xo.
.xx.o.xxo
""",
    """
11.1..000
11.0..0..
110......
..0.0....
10..00...
...0010..
.....10..
1110..01.
.11.0.000
""",
)

# Multi-ko: every ladder here hangs on a ko, which KataGo counts as an escape.
KATAGO_MULTI_KO = (
    """
.xxxxxxo.
xoxox.xo.
ooo.oxoo.
..oooo...
.xxxx....
xx.x.xx..
xoxoxox..
xoooooxx.
o.ooo.ox.
""",
    "\n".join(["........."] * 9),
)


def _parse_katago(text):
    return np.array([[".xo".index(c) for c in row] for row in text.split()], np.int8)


def _katago_ladders(grid):
    """``bool[N, N]``: stones of chains with 2 liberties that ``ladder_capture`` captures (either atari)."""
    size = grid.shape[0]
    config = gojax.GoConfig(size=size, ko_rule="simple")
    pairs = []
    for p in range(size * size):
        if grid.flat[p]:
            libs = ref_chain(grid, p)[1]
            if len(libs) == 2:
                pairs += [(p, m, 1 if grid.flat[p] == gojax.BLACK else 0) for m in sorted(libs)]
    preys, moves, attackers = (np.array(x, np.int32) for x in zip(*pairs, strict=True))
    base = gojax.from_board(config, grid, gojax.BLACK)

    def one(prey, move, attacker):
        return F.ladder_capture(config, base.replace(turn=attacker.astype(base.turn.dtype)), move, prey)

    won = np.asarray(jax.jit(jax.vmap(one))(preys, moves, attackers))
    got = np.zeros(size * size, bool)
    np.logical_or.at(got, preys, won)
    two = np.zeros(size * size, bool)
    two[preys] = True
    return got.reshape(size, size), two.reshape(size, size)


@pytest.mark.reference
@pytest.mark.parametrize("case", [KATAGO_2_LIBS, KATAGO_MULTI_KO], ids=["2libs", "multiko"])
def test_katago_ladders_9x9(case):
    text, expected = case
    grid = _parse_katago(text)
    want = np.array([[c == "1" for c in row] for row in expected.split()])
    got, two = _katago_ladders(grid)
    np.testing.assert_array_equal(got & two, want & two)
    assert two.sum() >= 20


# --------------------------------------------------------------------------- other sizes


@pytest.mark.reference
@pytest.mark.parametrize("size", [5, 13])
def test_capture_plane_matches_the_reference_on_other_sizes(size):
    # Batched (vmap pools the reads of all boards), against the reference board by board.
    config = gojax.GoConfig(size=size, ko_rule="simple")
    grids = random_boards(size, 12, size, density=(0.3, 0.6))
    states = stack_states(gojax.from_board(config, grid, 1 + i % 2) for i, grid in enumerate(grids))
    got = np.asarray(jitted(F.ladder_capture_plane, config, batched=True)(states))
    seen = 0
    for i, grid in enumerate(grids):
        want = ladder_reference.planes(grid, 1 + i % 2)[0]
        np.testing.assert_array_equal(got[i], want, err_msg=f"capture, board {i}")
        seen += int(want.sum())
    assert seen >= 2, seen


# --------------------------------------------------------------------------- real games


@pytest.mark.reference
def test_planes_match_the_reference_on_real_games():
    # GOJAX_LADDER_POSITIONS=3000 runs the same comparison on that many positions.
    count = int(os.environ.get("GOJAX_LADDER_POSITIONS", "24"))
    capture_fn, escape_fn = plane_fn("ladder_capture_plane", BIG), plane_fn("ladder_escape_plane", BIG)
    seen, stats = 0, {}
    for i, (grid, mover) in enumerate(sgf_positions(count)):
        state = gojax.from_board(BIG, grid, mover)
        want_capture, want_escape, _ = ladder_reference.planes(grid, mover, stats)
        np.testing.assert_array_equal(capture_fn(state), want_capture, err_msg=f"capture, position {i}")
        np.testing.assert_array_equal(escape_fn(state), want_escape, err_msg=f"escape, position {i}")
        seen += int(want_capture.sum() + want_escape.sum())
    assert seen >= 2, seen
    assert stats["backups"] >= 10, stats
