"""AlphaGo's 48 (+1) planes: every group checked by hand on three positions, batched.

Diagrams: ``X`` black, ``O`` white, ``.`` empty, row 0 at the top; points are
``(row, col)``. Integer groups are one-hot with plane ``k`` meaning the value
``k + 1`` (the last plane "8 or more"), so "value v at p" below means channel
``group.start + v - 1`` is set at ``p`` and the other 7 are not.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import stack_states

import gojax
from gojax import features as F
from gojax.features import ALPHAGO_CHANNELS as CH

CONFIG = gojax.GoConfig(size=9, ko_rule="simple")
N = 9


def pt(r, c):
    return r * N + c


def played(moves, start=None):
    """State and history after playing ``moves`` (each must be legal)."""
    state = gojax.init(CONFIG) if start is None else start
    hist = F.history_init(CONFIG, state)
    for move in moves:
        state = gojax.step(CONFIG, state, move)
        assert not bool(state.illegal_move), move
        hist = F.history_push(CONFIG, hist, state)
    return state, hist


# A: the basic ladder, reached by moves, white to move:
#    r0  . . . . . . X X X
#    r1  . . O . . . . . .
#    r2  . O X . . . . . .
#    r3  . O . . . . . . .
# moves: B (2,2), W (1,2), B (0,8), W (2,1), B (0,7), W (3,1), B (0,6).
MOVES_A = [pt(2, 2), pt(1, 2), pt(0, 8), pt(2, 1), pt(0, 7), pt(3, 1), pt(0, 6)]

# B: a setup position, black to move.
DIAGRAM_B = """
. X . . . . . . .
X X . . . . . . .
. . . . . . . . .
. . . O O . . . .
. . O X . . . . .
. . . O O . . . .
O . . . . . . . .
. O . . . . . X .
O . . . . . X O .
"""

# C: a ko. White (1,1) has just taken black (1,2); black to move may not retake.
DIAGRAM_C = """
. X O . . . . . .
X . X O . . . . .
. X O . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
"""


@pytest.fixture(scope="module")
def planes():
    state_a, hist_a = played(MOVES_A)
    state_b = gojax.from_ascii(CONFIG, DIAGRAM_B, gojax.BLACK)
    hist_b = F.history_init(CONFIG, state_b)
    state_c, hist_c = played([pt(1, 1)], gojax.from_ascii(CONFIG, DIAGRAM_C, gojax.WHITE))
    # D: a black chain of 9 across the middle row (18 liberties); E: the empty board.
    state_d = gojax.from_ascii(CONFIG, "\n".join(["." * 9] * 4 + ["X" * 9] + ["." * 9] * 4))
    hist_d = F.history_init(CONFIG, state_d)
    state_e = gojax.init(CONFIG)
    hist_e = F.history_init(CONFIG, state_e)
    all_states = (state_a, state_b, state_c, state_d, state_e)
    states = stack_states(all_states)
    hists = stack_states([hist_a, hist_b, hist_c, hist_d, hist_e])
    fn = functools.partial(F.alphago_planes, CONFIG, player_colour=True, ladder_chunk=1)
    out = np.asarray(jax.jit(jax.vmap(fn))(states, hists))
    boards = np.asarray(jax.vmap(functools.partial(gojax.board, CONFIG))(states))
    return out, boards


def value_at(group_planes, r, c):
    """The integer encoded one-hot at (r, c) (0 when no plane is set)."""
    hot = np.flatnonzero(group_planes[r, c])
    assert len(hot) <= 1, hot
    return int(hot[0]) + 1 if len(hot) else 0


def values(group_planes):
    return np.vectorize(lambda r, c: value_at(group_planes, r, c))(*np.indices((N, N)))


def test_layout():
    assert F.ALPHAGO_NUM_CHANNELS == 48 and F.ALPHAGO_VALUE_NUM_CHANNELS == 49
    assert (CH.mover, CH.opponent, CH.empty, CH.ones) == (0, 1, 2, 3)
    assert CH.turns_since == slice(4, 12) and CH.liberties == slice(12, 20)
    assert CH.capture_size == slice(20, 28) and CH.self_atari_size == slice(28, 36)
    assert CH.liberties_after == slice(36, 44)
    assert (CH.ladder_capture, CH.ladder_escape, CH.sensibleness, CH.zeros, CH.player_colour) == (
        44,
        45,
        46,
        47,
        48,
    )


def test_shapes_and_dtype(planes):
    out, _ = planes
    assert out.shape == (5, N, N, 49) and out.dtype == np.float32
    assert set(np.unique(out).tolist()) <= {0.0, 1.0}
    state = gojax.init(CONFIG)
    policy = jax.eval_shape(
        functools.partial(F.alphago_planes, CONFIG, dtype=jnp.bool_), state, F.history_init(CONFIG, state)
    )
    assert policy.shape == (N, N, 48) and policy.dtype == jnp.bool_
    # E: empty board, black to move: "empty", "ones", "sensibleness", the colour plane, and
    # the liberties after a move: 2 in the corners, 3 on the edges, 4 inside.
    on = {int(k) for k in np.flatnonzero(out[4].any(axis=(0, 1)))}
    after = CH.liberties_after.start
    assert on == {CH.empty, CH.ones, CH.sensibleness, CH.player_colour, after + 1, after + 2, after + 3}
    assert out[4, ..., CH.sensibleness].all()
    want = np.full((N, N), 4)
    want[0, :] = want[-1, :] = want[:, 0] = want[:, -1] = 3
    want[0, 0] = want[0, -1] = want[-1, 0] = want[-1, -1] = 2
    np.testing.assert_array_equal(values(out[4, ..., CH.liberties_after]), want)


def test_stone_colour_ones_zeros_player_colour(planes):
    out, boards = planes
    for i, mover in enumerate((2, 1, 1, 1, 1)):  # A white to move, the others black
        np.testing.assert_array_equal(out[i, ..., CH.mover], boards[i] == mover)
        np.testing.assert_array_equal(out[i, ..., CH.opponent], boards[i] == 3 - mover)
        np.testing.assert_array_equal(out[i, ..., CH.empty], boards[i] == 0)
        assert (out[i, ..., CH.ones] == 1).all() and (out[i, ..., CH.zeros] == 0).all()
        assert (out[i, ..., CH.player_colour] == (mover == 1)).all()


def test_turns_since(planes):
    out, _ = planes
    since = values(out[0, ..., CH.turns_since])
    # A: B (2,2) 7 moves ago, W (1,2) 6, B (0,8) 5, W (2,1) 4, B (0,7) 3, W (3,1) 2, B (0,6) 1.
    want = np.zeros((N, N), int)
    for ago, move in zip(range(7, 0, -1), MOVES_A, strict=True):
        want[divmod(move, N)] = ago
    np.testing.assert_array_equal(since, want)
    # B: setup stones count as played the move before the history began: 1.
    np.testing.assert_array_equal(
        values(out[1, ..., CH.turns_since]), (out[1, ..., CH.empty] == 0).astype(int)
    )
    # C: the white capturer (1,1) was played 1 move ago; the setup stones 2 moves ago.
    since_c = values(out[2, ..., CH.turns_since])
    assert since_c[1, 1] == 1 and since_c[0, 1] == since_c[2, 2] == since_c[1, 3] == 2
    assert since_c[1, 2] == 0  # the captured stone's point is empty


def test_liberties(planes):
    out, _ = planes
    libs = values(out[0, ..., CH.liberties])
    # A: white (1,2) has (0,2) (1,1) (1,3); white (2,1)-(3,1) has (1,1) (2,0) (3,0) (4,1) (3,2);
    # black (2,2) has (2,3) (3,2); black (0,6)-(0,8) has (0,5) (1,6) (1,7) (1,8).
    assert libs[1, 2] == 3 and libs[2, 1] == libs[3, 1] == 5
    assert libs[2, 2] == 2 and libs[0, 6] == libs[0, 7] == libs[0, 8] == 4
    assert (libs[out[0, ..., CH.empty] == 1] == 0).all()
    libs_b = values(out[1, ..., CH.liberties])
    # B: black (4,3) has only (4,4); white (3,3)-(3,4) has (2,3) (2,4) (3,2) (3,5) (4,4);
    # white (8,7) has only (8,8); black (0,1)-(1,0)-(1,1) has (0,0) (0,2) (1,2) (2,0) (2,1).
    assert libs_b[4, 3] == 1 and libs_b[3, 3] == 5 and libs_b[8, 7] == 1 and libs_b[1, 1] == 5


def test_liberties_eight_or_more(planes):
    out, _ = planes
    # D: the black chain of 9 across the middle row has 18 liberties: "8 or more", the
    # last liberty plane. A black stone above it would join it: 8+ liberties after too
    # (17: the 18 minus the point played plus (2,c) and its two sides... at least 8).
    libs = out[3, 4, :, CH.liberties]  # [9, 8]
    assert (libs[:, 7] == 1).all() and libs[:, :7].sum() == 0
    assert value_at(out[3, ..., CH.liberties_after], 3, 4) == 8


def test_capture_size_self_atari_liberties_after(planes):
    out, _ = planes
    capture_b = values(out[1, ..., CH.capture_size])
    self_atari_b = values(out[1, ..., CH.self_atari_size])
    after_b = values(out[1, ..., CH.liberties_after])
    # B, black to move. (8,8): captures white (8,7) (1 stone); black (8,8) then has (7,8) and
    # the freed (8,7): 2 liberties.
    assert (capture_b[8, 8], after_b[8, 8], self_atari_b[8, 8]) == (1, 2, 0)
    # (4,4): black (4,3)+(4,4) has only (4,5) left: a self-atari of 2 stones, 1 liberty.
    assert (capture_b[4, 4], after_b[4, 4], self_atari_b[4, 4]) == (0, 1, 2)
    # (7,0): white on all sides, none in atari: suicide, illegal - no move feature.
    assert (capture_b[7, 0], after_b[7, 0], self_atari_b[7, 0]) == (0, 0, 0)
    # (0,0): joins the corner chain: (0,0) (0,1) (1,0) (1,1) with (0,2) (1,2) (2,0) (2,1).
    assert after_b[0, 0] == 4
    # An open point: 4 liberties, nothing captured.
    assert (capture_b[2, 6], after_b[2, 6]) == (0, 4)
    # Only the one capture on the board.
    assert set(zip(*np.nonzero(capture_b), strict=True)) == {(8, 8)}
    # A, white to move: (3,2) joins (2,1)-(3,1): (1,1) (2,0) (3,0) (4,1) (4,2) (3,3) -> 6;
    # (2,3) alone: (1,3) (2,4) (3,3) -> 3. No capture or self-atari anywhere.
    after_a = values(out[0, ..., CH.liberties_after])
    assert after_a[3, 2] == 6 and after_a[2, 3] == 3
    assert out[0, ..., CH.capture_size].sum() == 0 and out[0, ..., CH.self_atari_size].sum() == 0


def test_move_features_are_masked_by_legality(planes):
    out, _ = planes
    # C: black retaking the ko at (1,2) would capture white (1,1) - but it is banned now, so
    # no capture-size or liberties-after plane is set there, and it is not sensible.
    assert out[2, 1, 2, CH.capture_size].sum() == 0
    assert out[2, 1, 2, CH.liberties_after].sum() == 0
    assert out[2, 1, 2, CH.sensibleness] == 0
    # Another empty point is still described: (3,3) has 4 liberties after.
    assert value_at(out[2, ..., CH.liberties_after], 3, 3) == 4


def test_ladder_planes(planes):
    out, _ = planes
    # A: the basic ladder (see tests/test_ladder.py): white (2,3) captures; no white chain
    # is in atari, so no escape.
    assert set(zip(*np.nonzero(out[0, ..., CH.ladder_capture]), strict=True)) == {(2, 3)}
    assert out[0, ..., CH.ladder_escape].sum() == 0
    # B: black (4,3) is in atari, but extending at (4,4) leaves it 1 liberty: no escape.
    # The only white chain with two liberties is (8,0) ((7,0), (8,1)): black (7,0) is a
    # suicide, and black (8,1) is itself left in atari next to (8,0), so white captures it
    # and is out. No ladder capture.
    assert out[1, ..., CH.ladder_escape].sum() == 0
    assert out[1, ..., CH.ladder_capture].sum() == 0


def test_sensibleness(planes):
    out, boards = planes
    # B: legal and not an own eye. (0,0) is black's eye (corner, (0,1) (1,0) black, (1,1)
    # black). (7,0) is a suicide. Every other empty point is legal and sensible.
    want = boards[1] == 0
    want[0, 0] = False
    want[7, 0] = False
    np.testing.assert_array_equal(out[1, ..., CH.sensibleness], want)
