"""MoGo's 3x3 patterns on bitboards (gojax/search/_patterns.py) against a plain point-by-point matcher.

The reference here reads each empty point's 3x3 window from a NumPy grid and
tries every pattern under the eight rotations and reflections of the window
coordinates and both colourings; the bitboard version (shifted planes ANDed
per variant, precomputed symmetries) must find the same points on random
boards of two sizes, edges and corners included.
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
