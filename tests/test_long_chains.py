"""Long chains: flood fill must be exact for any shape and length.

An engine that caps its propagation rounds captures only part of a long
serpentine; these positions catch that.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest
from conftest import jitted, ref_fill

import gojax
from gojax._core import bitboard as bb

SIZE = 19
CONFIG = gojax.GoConfig(size=SIZE)


def _thick_serpentine():
    """199 black stones: three-row bands joined at alternating ends, one liberty.

    White fills three-row bands between them (the middle row of each white band
    has empty points, its eyes, touching only white). Black's single liberty
    is ``liberty``, next to both colours.
    """
    board = np.full((SIZE, SIZE), gojax.WHITE, np.int8)
    black_bands = [(0, 3), (6, 9), (12, 15), (18, 19)]
    for top, bottom in black_bands:
        board[top:bottom] = gojax.BLACK
    # Connectors through the white bands, alternating ends: a serpentine.
    for gap, (top, _) in enumerate([(3, 6), (9, 12), (15, 18)]):
        column = SIZE - 1 if gap % 2 == 0 else 0
        board[top : top + 3, column] = gojax.BLACK
    for eye_row in (4, 10, 16):
        board[eye_row, 3:16:3] = gojax.EMPTY
    liberty = (17, 10)  # in the last white band, next to the bottom black row, no eye beside it
    board[liberty] = gojax.EMPTY
    return board, liberty


def _thin_serpentine():
    """A one-stone-wide black serpentine (107 stones, a path 107 points long)."""
    board = np.full((SIZE, SIZE), gojax.WHITE, np.int8)
    for row in range(0, SIZE, 4):
        board[row] = gojax.BLACK
    for gap, row in enumerate(range(1, SIZE - 2, 4)):
        column = SIZE - 1 if gap % 2 == 0 else 0
        board[row : row + 3, column] = gojax.BLACK
    for eye_row in range(2, SIZE, 4):
        board[eye_row, 3:16:3] = gojax.EMPTY
    liberty = (SIZE - 2, 10)  # below the last black row, no eye beside it
    board[liberty] = gojax.EMPTY
    return board, liberty


@pytest.fixture(scope="module")
def rules():
    return jitted("step", CONFIG), jitted("legal_action_mask", CONFIG)


@pytest.mark.parametrize("make, stones", [(_thick_serpentine, 199), (_thin_serpentine, 107)])
def test_long_chain_is_captured_whole(rules, make, stones):
    step, legal = rules
    board, liberty = make()
    assert np.count_nonzero(board == gojax.BLACK) == stones
    white_to_move = gojax.from_board(CONFIG, board, to_play=gojax.WHITE)
    gojax.check_invariants(CONFIG, white_to_move)
    point = liberty[0] * SIZE + liberty[1]
    mask = np.asarray(legal(white_to_move))
    assert mask[point], "filling black's last liberty captures, so it is legal"

    after = step(white_to_move, point)
    gojax.check_invariants(CONFIG, after)
    assert not bool(after.illegal_move)
    expected = board.copy()
    expected[board == gojax.BLACK] = gojax.EMPTY
    expected[liberty] = gojax.WHITE
    np.testing.assert_array_equal(np.asarray(gojax.board(CONFIG, after)), expected)
    assert int(after.captures[1]) == stones
    assert int(after.captures[0]) == 0

    black_to_move = gojax.from_board(CONFIG, board, to_play=gojax.BLACK)
    assert not np.asarray(legal(black_to_move))[point], "for black the same point is suicide"


def test_flood_fill_follows_a_spiral_to_its_end():
    """A one-wide spiral path of every other ring, filled from its outer end."""
    grid = np.zeros((SIZE, SIZE), bool)
    top, left, bottom, right = 0, 0, SIZE - 1, SIZE - 1
    while top <= bottom and left <= right:
        grid[top, left : right + 1] = True
        grid[top : bottom + 1, right] = True
        grid[bottom, left : right + 1] = True
        grid[top + 2 : bottom + 1, left] = True
        if top + 2 <= bottom:
            grid[top + 2, left : left + 3] = True  # step inwards to the next ring
        top, left, bottom, right = top + 2, left + 2, bottom - 2, right - 2
    path = bb.from_grid(jax.numpy.asarray(grid), SIZE)
    seed = bb.point_bits(jax.numpy.int32(0), SIZE)
    filled = np.asarray(bb.to_grid(jax.jit(bb.flood_fill, static_argnums=2)(seed, path, SIZE), SIZE))
    assert grid.sum() > 180
    start = np.zeros_like(grid)
    start[0, 0] = True
    np.testing.assert_array_equal(filled, ref_fill(start, grid))
