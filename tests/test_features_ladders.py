"""Ladders whose atari takes a ko, KataGo's whole-board ladder and the reads' budget, through the public
feature functions.

A ladder that hangs on a ko is no ladder (KataGo's rule, which gojax
follows): when the attacker's atari captures a single stone and leaves a ko
the runner could retake, the runner is not counted as captured, even though
it cannot retake at once. Each position here is read twice: as drawn, and
with the captured stone replaced by an attacker's stone, where the same atari
takes no ko and the ladder works. Both are checked on the AlphaGo planes
(:func:`gojax.features.ladder_capture_plane`, the ladder plane of
:func:`gojax.features.alphago_planes`, :func:`gojax.features.ladder_capture`)
and on KataGo's ladder planes (:func:`gojax.features.katago_planes`), on the
native kernels and on the XLA code (``conftest.kernel_path``).

KataGo's "WholeBoardLadder" (cpp/tests/testboardbasic.cpp) holds a chase
that only a reader that backs up finds: a plain-Python copy of KataGo's
search (every atari of the attacker and every answer of the runner, backing
up) gives KataGo's answers on every chain of it; gojax's reader, on the
native kernels and on the XLA code, gives the same, and the chase turns on
an atari tried second, after the first was read out for a whole round.

Diagrams: ``X`` black, ``O`` white, ``.`` empty, row 0 at the top; points
``(row, col)``. White (the attacker) is to move; the answers are read by
hand in the comments.
"""

from __future__ import annotations

import functools
from pathlib import Path

import jax
import ladder_reference
import numpy as np
import pytest
from conftest import jitted, points_of, random_boards, ref_chain, ref_neighbours, stack_states, swap_colours

import gojax
from gojax import features as F

CONFIG = gojax.GoConfig(size=9, ko_rule="simple")
EMPTY_ROWS = "\n".join([". . . . . . . . ."] * 4)

# The runner: black (0,1), (1,0), (1,1), (2,1), liberties (0,0) and (2,0). White (0,0) is
# suicide (it captures nothing: the runner keeps (2,0)). White (2,0) captures the black stone
# (3,0) (its one liberty) and is left alone with the one liberty (3,0): a ko. The runner, in
# atari on (0,0), has no answer on the board: its extension at (0,0) has no liberty, and
# taking white (2,0) back at (3,0) is the ko. A ladder that hangs on a ko: not captured.
# With (3,0) white instead, white (2,0) joins the stones below and takes no ko: captured.
CORNER = (
    """
. X O . . . . . .
X X O . . . . . .
. X O . . . . . .
X O . . . . . . .
O O . . . . . . .
"""
    + EMPTY_ROWS
)
CORNER_RUNNER = {(0, 1), (1, 0), (1, 1), (2, 1)}
CORNER_ATARI, CORNER_TAKEN = (2, 0), (3, 0)

# The runner: the black U (0,1), (1,1), (1,2), (1,3), (0,3), (2,1), (2,3) around its eye (0,2)
# (white's suicide), its other liberty (2,2). White (2,2) captures the black stone (3,2) and is
# left alone with the one liberty (3,2): a ko. The runner, in atari on its eye, cannot fill
# it (no liberty), nor retake at (3,2) at once; white's walls have many liberties, so there is
# no other capture. A group with one eye and a ko: not captured by the ladder. With (3,2)
# white, white (2,2) takes no ko: captured.
EYE = (
    """
O X . X O . . . .
O X X X O . . . .
O X . X O . . . .
O O X O O . . . .
O O O O O . . . .
"""
    + EMPTY_ROWS
)
EYE_RUNNER = {(0, 1), (1, 1), (1, 2), (1, 3), (0, 3), (2, 1), (2, 3)}
EYE_ATARI, EYE_TAKEN = (2, 2), (3, 2)

CASES = {
    "corner": (CORNER, CORNER_RUNNER, CORNER_ATARI, CORNER_TAKEN),
    "eye": (EYE, EYE_RUNNER, EYE_ATARI, EYE_TAKEN),
}


def _without_ko(diagram: str, taken: tuple[int, int]) -> str:
    """The diagram with the stone the atari would capture replaced by a white stone."""
    rows = [line.split() for line in diagram.strip().splitlines()]
    assert rows[taken[0]][taken[1]] == "X"
    rows[taken[0]][taken[1]] = "O"
    return "\n".join(" ".join(row) for row in rows)


def _features(config: gojax.GoConfig, state: gojax.GoState):
    """``(ladder capture plane, AlphaGo's ladder plane, KataGo's planes)`` of one game."""
    hist = F.history_init(config, state)
    alphago = F.alphago_planes(config, state, hist)[..., F.ALPHAGO_CHANNELS.ladder_capture]
    katago, _ = F.katago_planes(config, state, hist)
    return F.ladder_capture_plane(config, state), alphago, katago


def _positions():
    """``(name, state, runner, atari, taken, ko)`` of every case, with and without the ko, in both
    colourings (white attacks as drawn, black once swapped)."""
    for case, (diagram, runner, atari, taken) in CASES.items():
        for ko in (True, False):
            drawn = diagram if ko else _without_ko(diagram, taken)
            for swapped in (False, True):
                text, attacker = (swap_colours(drawn), gojax.BLACK) if swapped else (drawn, gojax.WHITE)
                name = f"{case}, {'ko' if ko else 'no ko'}, {'swapped' if swapped else 'as drawn'}"
                yield name, gojax.from_ascii(CONFIG, text, to_play=attacker), runner, atari, taken, ko


@pytest.mark.usefixtures("kernel_path")
def test_a_ladder_whose_atari_takes_a_ko_is_no_ladder():
    cases = list(_positions())
    states = stack_states([state for _, state, *_ in cases])
    planes = jax.device_get(jitted(_features, CONFIG, batched=True)(states))
    read = jitted(F.ladder_capture, CONFIG, batched=True)
    ataris = np.array([r * 9 + c for *_, (r, c), _, _ in cases], np.int32)
    preys = np.array([min(runner)[0] * 9 + min(runner)[1] for _, _, runner, *_ in cases], np.int32)
    singles = np.asarray(read(states, ataris, preys))
    steps = jitted("step", CONFIG, batched=True)(states, ataris)  # the ataris, on the real rules
    for k, (name, _, runner, atari, taken, ko) in enumerate(cases):
        assert not bool(steps.illegal_move[k]), name
        assert (int(steps.ko_point[k]) == taken[0] * 9 + taken[1]) == ko, name
        capture_plane, alphago_plane, katago = (x[k] for x in planes)
        works = not ko
        assert points_of(capture_plane) == ({atari} if works else set()), name
        assert points_of(alphago_plane) == points_of(capture_plane), name
        assert bool(singles[k]) == works, name
        # KataGo: the runner's stones are ladderable (the board now) only without the ko, and
        # the atari is then the mover's ladder move. The stone the ko atari would capture has
        # one liberty, and its extension joins the runner with one liberty left: ladderable.
        ladderable = points_of(katago[..., F.KATAGO_CHANNELS.ladderable][..., 0])
        assert ladderable == (runner if works else {taken}), name
        assert points_of(katago[..., F.KATAGO_CHANNELS.ladder_moves]) == ({atari} if works else set()), name


# --------------------------------------------------------------------------- KataGo's whole-board ladder

# KataGo's cpp/tests/testboardbasic.cpp, "WholeBoardLadder": the board, and KataGo's answer for
# each stone (searchIsLadderCapturedAttackerFirst2Libs: 1 where the stone's chain has two
# liberties and the attacker, moving first, captures it by ladder).
WHOLE_BOARD = """
   A B C D E F G H J K L M N O P Q R S T
19 . . . . O . . . . . . . . . . . . . .
18 O . . . . . . . . . . . . . . . . . O
17 . . . . . . . . . . . . . . . . . . O
16 . . . O O X O . . . . . . . . . . . .
15 O . . . O X O O O O . O . . . . . O .
14 O X X X X X X X X X O . . . . . . . .
13 X O O O . X . . . . X . . . . . . . O
12 X . O O O X . . . . X O . . . . . . .
11 X O O O O X . . . . X . . . . . . . .
10 O X X X X X X X X X O . . . . . . . O
 9 O O . . . X O . . O . . . . . . . . .
 8 . O . O . X . O . . . . . . . . . . .
 7 . . . . . . O . . . . . . . . . . . .
 6 . . . . O . . . . X . . . . . . . . .
 5 O . . . . X . . . X . . . X O . . . .
 4 . . . . . X . . . X . . . X . . . . .
 3 . . . . . X . . . X . . . X . . . . .
 2 . . . . O . X X X X X X X O . . . O .
 1 . O . . . . O O O O O O O . O . . . .
"""
WHOLE_BOARD_KATAGO = """
....0..............
0.................0
..................0
...0000............
0...000000.0.....0.
00000000000........
0000.0....0.......0
0.0000....00.......
000000....0........
00000000000.......0
00...00..0.........
.0.0.0.0...........
......0............
....0....0.........
0....0...0...00....
.....0...0...0.....
.....0...0...0.....
....0.00000000...0.
.0....1111111.0....
"""
BIG = gojax.GoConfig(size=19, ko_rule="simple")
COLUMNS = "ABCDEFGHJKLMNOPQRST"


def _katago_19(rows: str) -> np.ndarray:
    """A 19x19 KataGo diagram (with its coordinates) as a grid."""
    lines = [line[3:].replace(" ", "") for line in rows.strip("\n").split("\n")[1:]]
    return np.array([[".XO".index(c) for c in line] for line in lines], np.int8)


def _vertex(point: int) -> str:
    row, col = divmod(point, 19)
    return f"{COLUMNS[col]}{19 - row}"


def _point(vertex: str) -> int:
    return (19 - int(vertex[1:])) * 19 + COLUMNS.index(vertex[0])


NODE_BUDGET = 25_000  # KataGo's MAX_LADDER_SEARCH_NODE_BUDGET: past it, "not captured"


class _OverBudget(Exception):
    pass


def katago_captures(grid: np.ndarray, prey: int, after: tuple[int, ...] = ()) -> list[int]:
    """The attacker's ataris that capture the chain through ``prey`` by KataGo's ladder search.

    KataGo's rules (``Board::searchIsLadderCaptured``), on plain-Python boards
    (:func:`ladder_reference.play`, simple ko): the runner in atari tries every
    capture of an adjacent attacker chain in atari, then its extension, and
    is captured only if every answer is; with 2 liberties or more after its
    move it is out. The attacker tries the atari on each of the runner's two
    liberties and wins if either wins; 3 liberties or more: lost. An attacker's
    atari that leaves a ko the runner could retake lets it out, except the
    first (KataGo clears the ko for the runner's first answer, which may then
    retake it). Illegal moves are skipped. Past :data:`NODE_BUDGET` moves a
    read counts as "not captured". ``after``: moves played first (attacker
    and runner alternately, the attacker first), a line of the chase to
    start from; the ataris returned are then the attacker's next move.
    """
    runner = int(grid.flat[prey])
    nodes = [0]

    def play(board, move, colour, ko):
        nodes[0] += 1
        if nodes[0] > NODE_BUDGET:
            raise _OverBudget
        return ladder_reference.play(board, move, colour, ko)

    def runner_captured(board, ko, first) -> bool:
        stones, libs = ref_chain(board, prey)
        if len(libs) >= 2 or (ko is not None and not first):
            return False
        captures: list[int] = []
        seen: set[int] = set()
        for stone in stones:
            for q in ref_neighbours(stone, 19):
                if board.flat[q] == 3 - runner and q not in seen:
                    chain, chain_libs = ref_chain(board, q)
                    seen |= chain
                    captures += sorted(chain_libs) if len(chain_libs) == 1 else []
        for move in captures + sorted(libs):
            answered, next_ko = play(board, move, runner, None if first else ko)
            if answered is not None and not attacker_wins(answered, next_ko):
                return False
        return True

    def attacker_wins(board, ko) -> bool:
        libs = ref_chain(board, prey)[1]
        if len(libs) != 2:
            return len(libs) <= 1
        for move in sorted(libs):
            attacked, next_ko = play(board, move, 3 - runner, ko)
            if attacked is not None and runner_captured(attacked, next_ko, False):
                return True
        return False

    board, ko = grid, None
    for k, move in enumerate(after):
        board, ko = ladder_reference.play(board, move, 3 - runner if k % 2 == 0 else runner, ko)
        assert board is not None, f"move {k} of the line is illegal"
    found = []
    for move in sorted(ref_chain(board, prey)[1]):
        attacked, next_ko = ladder_reference.play(board, move, 3 - runner, ko)
        try:
            if attacked is not None and runner_captured(attacked, next_ko, not after):
                found.append(move)
        except _OverBudget:
            pass
    return found


@pytest.mark.reference
def test_katago_search_gives_katagos_answers_on_the_whole_board_ladder():
    # Every chain with two liberties, read by the search above, as KataGo answers: 0 but for
    # the seven white stones G1-N1 (liberties F1 and O1), which black captures with the atari
    # at F1 and a chase winding over the whole board.
    grid = _katago_19(WHOLE_BOARD)
    want = np.array([[c == "1" for c in row] for row in WHOLE_BOARD_KATAGO.split()])
    got = np.zeros((19, 19), bool)
    two = np.zeros((19, 19), bool)
    for point in np.flatnonzero(grid):
        stones, libs = ref_chain(grid, int(point))
        if len(libs) == 2 and int(point) == min(stones):
            two.flat[list(stones)] = True
            got.flat[list(stones)] = bool(katago_captures(grid, int(point)))
    stones = np.array([[c != "." for c in row] for row in WHOLE_BOARD_KATAGO.split()])
    np.testing.assert_array_equal(stones, grid != gojax.EMPTY)  # the two diagrams agree
    np.testing.assert_array_equal(got, want & two)
    assert two.sum() >= 20 and got.sum() == 7
    assert [_vertex(m) for m in katago_captures(grid, _point("G1"))] == ["F1"]


@pytest.mark.reference
def test_the_whole_board_ladder_turns_on_the_atari_at_q1():
    # Black F1, white O1 (its one answer, joining O2 and P1): the runner has the liberties P2
    # and Q1. KataGo's search wins with the atari at Q1 only. gojax's reference tries the
    # lower point, P2, first: the chase goes on from there for a whole round before it
    # fails, and only then is Q1 tried - a reader that kept its first line would miss it.
    grid = _katago_19(WHOLE_BOARD)
    prey = _point("G1")
    line = (_point("F1"), _point("O1"))
    assert [_vertex(m) for m in katago_captures(grid, prey, line)] == ["Q1"]
    board, ko = ladder_reference.play(grid, line[0], gojax.BLACK)
    board, ko = ladder_reference.play(board, line[1], gojax.WHITE, ko)
    assert sorted(_vertex(m) for m in ref_chain(board, prey)[1]) == ["P2", "Q1"]
    assert _point("P2") < _point("Q1")
    reader = ladder_reference.Reader(board, prey)
    assert not reader.attacker_wins(board, ko, [_point("P2")], 1)
    assert reader.nodes >= 3  # read out past the runner's answer
    assert ladder_reference.Reader(board, prey).attacker_wins(board, ko, [_point("Q1")], 1)
    stats: dict = {}
    liberties = sorted(ref_chain(grid, prey)[1])
    reads = [ladder_reference.read(grid, prey, "capture", m, stats=stats) for m in liberties]
    assert reads == ["captured", "escaped"]  # F1, O1
    assert stats["backups"] >= 1


@pytest.mark.reference
@pytest.mark.usefixtures("kernel_path")
def test_gojax_reads_katagos_whole_board_ladder():
    # The single read, the capture planes (black to move) and KataGo's ladderable stones,
    # which on the chains with two liberties are KataGo's answers.
    grid = _katago_19(WHOLE_BOARD)
    state = gojax.from_board(BIG, grid, to_play=gojax.BLACK)
    prey, atari = _point("G1"), _point("F1")
    single = bool(jitted(F.ladder_capture, BIG)(state, np.int32(atari), np.int32(prey)))
    plane, alphago, katago = (np.asarray(x) for x in jitted(_features, BIG)(state))
    assert (single, bool(plane.flat[atari])) == (True, True)
    np.testing.assert_array_equal(plane, ladder_reference.planes(grid, gojax.BLACK)[0])
    np.testing.assert_array_equal(alphago > 0, plane)
    two = np.zeros((19, 19), bool)
    for point in np.flatnonzero(grid):
        two.flat[point] = len(ref_chain(grid, int(point))[1]) == 2
    want = np.array([[c == "1" for c in row] for row in WHOLE_BOARD_KATAGO.split()])
    ladderable = katago[..., F.KATAGO_CHANNELS.ladderable][..., 0] > 0
    np.testing.assert_array_equal(ladderable & two, want & two)
    assert (want & two).sum() == 7


# --------------------------------------------------------------------------- the budget
#
# A read that has tried BUDGET moves without an answer counts as "not captured" (KataGo's
# node budget, 25,000). No board here needs that many, so the XLA reader's budget is lowered
# and its reads are compared with the reference's under the same budget: every move tried
# counts, the atari and the runner's first answer tried in one loop step included.


def _all_reads(grid):
    """``(prey, move, attacker)`` of every capture read of a board: each atari on each chain
    with two liberties, by the chain's opponent."""
    reads = []
    for p in np.flatnonzero(grid):
        stones, libs = ref_chain(grid, int(p))
        if len(libs) == 2 and int(p) == min(stones):
            reads += [(int(p), m, 2 if grid.flat[p] == gojax.BLACK else 1) for m in sorted(libs)]
    return reads


@pytest.mark.parametrize("budget", [1, 2, 3, 6, 15])
def test_the_budget_cuts_reads_as_the_reference_does(monkeypatch, budget):
    from gojax.features.ladders import _read

    grids = random_boards(4, 16, 9, density=(0.35, 0.6))
    reads = [(i, *r) for i, grid in enumerate(grids) for r in _all_reads(grid)]
    states = stack_states(gojax.from_board(CONFIG, grids[i], attacker) for i, _, _, attacker in reads)
    preys, moves = (np.array([r[k] for r in reads], np.int32) for k in (1, 2))
    monkeypatch.setattr(_read, "BUDGET", budget)
    got = np.asarray(jax.jit(jax.vmap(functools.partial(F.ladder_capture, CONFIG)))(states, moves, preys))
    want, full = [], []
    for i, prey, move, _ in reads:
        want.append(ladder_reference.read(grids[i], prey, "capture", move, budget=budget) == "captured")
        full.append(ladder_reference.read(grids[i], prey, "capture", move) == "captured")
    np.testing.assert_array_equal(got, np.array(want))
    # The budget cut some reads that end captured with the full one (none with a budget of 1:
    # the atari and the runner's answer are two moves).
    cut = int(np.sum(np.array(full) & ~np.array(want)))
    assert cut >= 1 if budget > 1 else cut == sum(full), (budget, cut)
    assert sum(want) >= (1 if budget >= 3 else 0)


def test_the_native_kernels_share_the_budget():
    from gojax import _native
    from gojax.features.ladders import _read

    source = (Path(_native.__file__).parent / "kernels.c").read_text()
    assert f"#define LADDER_BUDGET {_read.BUDGET}\n" in source
    assert _read.BUDGET == ladder_reference.BUDGET == 25_000
