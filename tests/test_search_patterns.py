"""MoGo's 3x3 patterns on bitboards (gojax/playouts/_patterns.py): hand-made positions, a point matcher.

Hand-made positions: for each of the 12 patterns of Gelly, Wang, Munos and
Teytaud (2006), a 5x5 board drawn from the paper's picture of the pattern,
its wildcards filled with the stones they allow ("not O" holding an X, "not
X" an O or nothing, the edge row off the board), and near misses that break
one wildcard (an O where "not O" is asked, an edge pattern away from the
edge). Each is checked in its eight rotations and reflections and with the
colours swapped; the expected answers are written here, not computed from
the pattern table. Where one position fits only its own pattern (noted), a
slip in that pattern's row of the table makes it fail.

The point-by-point matcher reads each empty point's 3x3 window from a NumPy
grid and tries every pattern of the table under the eight rotations and
reflections of the window coordinates and both colourings; the bitboard
version (shifted planes ANDed per variant, precomputed symmetries) must find
the same points on random boards of two sizes, edges and corners included.
"""

from __future__ import annotations

import functools

import jax
import numpy as np
import pytest
from conftest import random_boards

from gojax._core import bitboard as bb
from gojax._core.bitboard import WordTuples as words
from gojax.playouts import _patterns

_TRANSFORMS = [(a, b, c, d) for a, b, c, d in ((1, 0, 0, 1), (0, -1, 1, 0), (-1, 0, 0, -1), (0, 1, -1, 0))]
_TRANSFORMS += [(a, b, -c, -d) for a, b, c, d in _TRANSFORMS]  # the reflections


def _cell_ok(char: str, value: int | None, x: int) -> bool:
    """Whether ``value`` (1 black, 2 white, 0 empty, None off the board) fits ``char``, colour ``x`` as X."""
    o = 3 - x
    return {
        "?": True,
        "#": value is None,
        ".": value == 0,
        "X": value == x,
        "O": value == o,
        "x": value != x,
        "o": value != o,
    }[char]


def _reference(grid: np.ndarray) -> np.ndarray:
    size = grid.shape[0]
    found = np.zeros_like(grid, bool)
    for r in range(size):
        for c in range(size):
            if grid[r, c]:
                continue
            for pattern in _patterns.PATTERNS:
                for a, b, t, d in _TRANSFORMS:
                    for x in (1, 2):
                        ok = True
                        for i in range(3):
                            for j in range(3):
                                di, dj = i - 1, j - 1
                                rr, cc = r + a * di + b * dj, c + t * di + d * dj
                                inside = 0 <= rr < size and 0 <= cc < size
                                ok &= _cell_ok(pattern[i][j], int(grid[rr, cc]) if inside else None, x)
                        found[r, c] |= ok
    return found


@pytest.mark.parametrize("size", [5, 9])
def test_patterns_match_a_point_by_point_reference(size):
    boards = random_boards(seed=size, count=12, size=size, density=(0.2, 0.7))
    run = jax.jit(jax.vmap(functools.partial(_patterns.pattern_points, size)))
    black = np.stack([bb.from_grid_np(g == 1, size) for g in boards])
    white = np.stack([bb.from_grid_np(g == 2, size) for g in boards])
    found = jax.device_get(words.stacked(run(words.words(black), words.words(white))))
    total = 0
    for k, grid in enumerate(boards):
        want = _reference(grid)
        got = bb.to_grid_np(found[k], size).astype(bool)
        np.testing.assert_array_equal(got, want, err_msg=f"board {k}\n{grid}")
        total += int(want.sum())
    assert total >= 20  # the boards hold many matches


# --------------------------------------------------------------------------- hand-made positions


def _inside(top: str, middle: str, bottom: str) -> tuple[np.ndarray, tuple[int, int]]:
    """A 5x5 board: the 3x3 window (rows of ``.XO``) around the point (2, 2), empty elsewhere."""
    grid = np.zeros((5, 5), np.int8)
    grid[1:4, 1:4] = [[".XO".index(c) for c in row] for row in (top, middle, bottom)]
    return grid, (2, 2)


def _edge(top: str, middle: str, column: int = 2) -> tuple[np.ndarray, tuple[int, int]]:
    """A 5x5 board whose point (4, ``column``) on the lower edge has the two rows above and beside it
    (the window's third row is off the board; cells left of column 0 are off it too)."""
    grid = np.zeros((5, 5), np.int8)
    for row, text in ((3, top), (4, middle)):
        for offset, char in enumerate(text):
            if 0 <= column - 1 + offset < 5:
                grid[row, column - 1 + offset] = ".XO".index(char)
    return grid, (4, column)


# (name, position, whether a pattern matches at its point). "only": no other pattern matches it.
HAND_MADE = [
    # 1. hane, enclosing: XOX / ... / ??? .
    ("enclosing hane, only", _inside("XOX", "...", "..."), True),
    ("enclosing hane with the last row full, only", _inside("XOX", "...", "OXO"), True),
    ("enclosing hane with X beside the centre", _inside("XOX", "X..", "X.."), False),
    # 2. hane, non-cutting: XO. / ... / ?.? .
    ("non-cutting hane, only", _inside("XO.", "...", "X.O"), True),
    ("non-cutting hane with a stone below the centre", _inside("XO.", "...", ".X."), False),
    # 3. hane, magari: XO? / X.. / x.? ("x": not X).
    ("magari with O on the not-X point, only", _inside("XO.", "X..", "O.."), True),
    ("magari with the not-X point empty, only", _inside("XO.", "X..", "..X"), True),
    ("magari with X on the not-X point", _inside("XO.", "X..", "X.."), False),
    # 4. hane, diagonal attachment: .O. / X.. / ... .
    ("diagonal attachment, only", _inside(".O.", "X..", "..."), True),
    ("diagonal attachment with a stone beside it", _inside(".OX", "X..", "..."), False),
    # 5. cut 1, unprotected: XO? / O.o / ?o? ("o": not O). An X on a not-O point is the peeped
    # cut (6) in a reflection, so the not-O points hold nothing here, or an O for a near miss.
    ("unprotected cut, only", _inside("XO.", "O..", "..."), True),
    ("cut with O on the right not-O point", _inside("XO.", "O.O", "..."), False),
    ("cut with O on the lower not-O point", _inside("XO.", "O..", ".O."), False),
    # 6. cut 1, peeped: XO? / O.X / ??? .
    ("peeped cut (and the unprotected cut's X case)", _inside("XO.", "O.X", "..."), True),
    ("peeped cut with O on every free point, only", _inside("XOO", "O.X", "OOO"), True),
    # 7. cut 2: ?X? / O.O / ooo .
    ("cut 2 with X on the not-O points, only", _inside(".X.", "O.O", "X.X"), True),
    ("cut 2 with the not-O points empty, only", _inside(".X.", "O.O", "..."), True),
    ("cut 2 with O below the centre", _inside(".X.", "O.O", ".O."), False),
    ("cut 2 with O below on the left", _inside(".X.", "O.O", "O.."), False),
    # 8. edge, chase: X.? / O.? / ### .
    ("chase on the edge, only", _edge("X..", "O.."), True),
    ("chase with X on the edge", _edge("X..", "X.."), False),
    ("chase shape away from the edge, X below", _inside("X..", "O..", ".X."), False),
    ("chase shape away from the edge, O below", _inside("X..", "O..", "O.."), False),
    # 9. edge, block the side cut: OX? / X.O / ### - the peeped cut (6) with the colours swapped.
    ("block of the side cut (and both cuts)", _edge("OX.", "X.O"), True),
    # 10. edge, block the side connection: ?X? / x.O / ### .
    ("block of the side connection, only", _edge(".X.", "..O"), True),
    ("block of the side connection in the corner (not-X off the board), only", _edge("#X.", "#.O", 0), True),
    ("block of the side connection with X on the not-X point", _edge(".X.", "X.O"), False),
    ("block shape away from the edge, O below", _inside(".X.", "..O", "O.."), False),
    ("block shape away from the edge, X below", _inside(".X.", "..O", "X.."), False),
    # 11. edge, sagari: ?XO / x.x / ### .
    ("sagari, only", _edge(".XO", "..."), True),
    ("sagari with O on the left not-X point (and 10)", _edge(".XO", "O.."), True),
    ("sagari with X on a not-X point", _edge(".XO", "X.."), False),
    ("sagari shape away from the edge, O below", _inside(".XO", "...", ".O."), False),
    ("sagari shape away from the edge, X below", _inside(".XO", "...", ".X."), False),
    # 12. edge, cut: ?OX / X.O / ### - the peeped cut (6) with the colours swapped, in a reflection.
    ("cut on the edge (and both cuts)", _edge(".OX", "X.O"), True),
]


def _transformed(grid: np.ndarray, point: tuple[int, int], turn: int, flip: bool, swap: bool):
    """Board and point turned ``turn`` quarter turns, mirrored if ``flip``, colours swapped if ``swap``."""
    marked = np.zeros(grid.shape, bool)
    marked[point] = True
    grid, marked = np.rot90(grid, turn), np.rot90(marked, turn)
    if flip:
        grid, marked = np.fliplr(grid), np.fliplr(marked)
    if swap:
        grid = np.choose(grid, [0, 2, 1]).astype(np.int8)
    (row,), (col,) = np.nonzero(marked)
    return np.ascontiguousarray(grid), (int(row), int(col))


def test_hand_made_positions_of_every_pattern_in_every_symmetry():
    boards, points, expected, names = [], [], [], []
    for name, (grid, point), matches in HAND_MADE:
        for turn in range(4):
            for flip in (False, True):
                for swap in (False, True):
                    board, where = _transformed(grid, point, turn, flip, swap)
                    boards.append(board)
                    points.append(where)
                    expected.append(matches)
                    names.append(f"{name} (turn {turn}, flip {flip}, swap {swap})")
    run = jax.jit(jax.vmap(functools.partial(_patterns.pattern_points, 5)))
    black = np.stack([bb.from_grid_np(g == 1, 5) for g in boards])
    white = np.stack([bb.from_grid_np(g == 2, 5) for g in boards])
    found = jax.device_get(words.stacked(run(words.words(black), words.words(white))))
    wrong = [
        name
        for k, (name, point, want) in enumerate(zip(names, points, expected, strict=True))
        if bool(bb.to_grid_np(found[k], 5)[point]) != want
    ]
    assert not wrong, "\n".join(wrong)
    assert sum(expected) >= 12 * 16 and len(expected) - sum(expected) >= 10 * 16
