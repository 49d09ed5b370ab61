"""Feature building blocks: hand-checked positions and brute-force cross-checks.

Positions are ASCII diagrams (``X`` black, ``O`` white, ``.`` empty, row 0 at
the top). Expected values are written by hand from the rules of Go, or come
from the plain-Python reference below (flood fill, play the move, count) and
from playing each move with ``gojax.step`` - never from the functions tested.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import jitted as compiled
from conftest import random_boards, ref_chain, ref_chains, ref_neighbours, stack_states

import gojax
from gojax import features as F

CONFIG = gojax.GoConfig(size=7, ko_rule="simple")
SUICIDE = gojax.GoConfig(size=7, ko_rule="simple", suicide=True)
N = CONFIG.size
P = CONFIG.num_points


def jitted(name, config=CONFIG):
    """The compiled ``features.<name>`` (or ``gojax.<name>``) of ``config``."""
    return compiled(getattr(F, name, name), config)


def state_of(diagram, to_play=gojax.BLACK, config=CONFIG):
    return gojax.from_ascii(config, diagram, to_play)


# --------------------------------------------------------------------------- plain-Python reference


def ref_outcomes(grid, mover):
    """Liberties after, capture size, self-atari size of a ``mover`` stone on each empty point."""
    size = grid.shape[0]
    out = np.zeros((3, size, size), int)
    for r in range(size):
        for c in range(size):
            if grid[r, c]:
                continue
            board = grid.copy()
            board[r, c] = mover
            taken = 0
            for q in ref_neighbours(r * size + c, size):
                if board.flat[q] == 3 - mover:
                    stones, libs = ref_chain(board, q)
                    if not libs:
                        board.flat[list(stones)] = 0
                        taken += len(stones)
            stones, libs = ref_chain(board, r * size + c)
            out[0, r, c] = len(libs)
            out[1, r, c] = taken
            out[2, r, c] = len(stones) if len(libs) == 1 else 0
    return out


@pytest.fixture(scope="module")
def random_positions():
    boards = random_boards(0, 48, N)
    states = [gojax.from_board(CONFIG, b, 1 + i % 2) for i, b in enumerate(boards)]
    return boards, states


# --------------------------------------------------------------------------- chains


def test_chains_hand_checked():
    state = state_of(
        """
        X X . O . . .
        X . O O O . .
        . . . O . X X
        . . . . . X .
        O . . . . . .
        . . . . . . .
        . . . . . . X
        """
    )
    chains = jitted("chains")(state)
    labels, sizes, libs = (np.asarray(x) for x in chains)
    # Black (0,0) (0,1) (1,0): liberties (0,2), (1,1), (2,0) -> 3 ((1,1) touches it twice).
    assert labels[0, 0] == labels[0, 1] == labels[1, 0] == 0
    assert sizes[0, 0] == sizes[1, 0] == 3 and libs[0, 1] == 3
    # White (0,3) (1,2) (1,3) (1,4) (2,3): liberties (0,2) (0,4) (1,1) (1,5) (2,2) (2,4) (3,3)
    # -> 7, though (0,2), (0,4), (2,2) and (2,4) each touch it twice.
    assert labels[1, 2] == labels[2, 3] == 3 and sizes[1, 4] == 5 and libs[0, 3] == 7
    # Black (2,5) (2,6) (3,5): liberties (1,5) (1,6) (2,4) (3,4) (3,6) (4,5) -> 6.
    assert labels[3, 5] == 2 * 7 + 5 and sizes[2, 6] == 3 and libs[2, 5] == 6
    # Lone stones: white on the edge (4,0) has 3 liberties, black in the corner (6,6) has 2.
    assert (labels[4, 0], sizes[4, 0], libs[4, 0]) == (28, 1, 3)
    assert (labels[6, 6], sizes[6, 6], libs[6, 6]) == (48, 1, 2)
    # Empty points.
    assert labels[1, 1] == -1 and sizes[1, 1] == 0 and libs[1, 1] == 0
    assert labels.dtype == sizes.dtype == libs.dtype == np.int32


def test_chains_of_a_board_long_spiral():
    # A single black chain that winds over the 7x7 board; labels must meet in the middle.
    state = state_of(
        """
        X X X X X X X
        . . . . . . X
        X X X X X . X
        X . . . X . X
        X . X X X . X
        X . . . . . X
        X X X X X X X
        """
    )
    labels, sizes, libs = (np.asarray(x) for x in jitted("chains")(state))
    black = np.asarray(gojax.board(CONFIG, state)) == 1
    assert set(labels[black].tolist()) == {0}
    assert set(sizes[black].tolist()) == {int(black.sum())}
    # Liberties: every empty point touches the chain.
    assert set(libs[black].tolist()) == {int((~black).sum())}


def test_chains_match_reference_on_random_boards(random_positions):
    boards, states = random_positions
    labels, sizes, libs = (
        np.asarray(x) for x in jax.jit(jax.vmap(functools.partial(F.chains, CONFIG)))(stack_states(states))
    )
    for i, grid in enumerate(boards):
        want = ref_chains(grid)
        np.testing.assert_array_equal(labels[i], want[0], err_msg=f"labels, board {i}")
        np.testing.assert_array_equal(sizes[i], want[1], err_msg=f"sizes, board {i}")
        np.testing.assert_array_equal(libs[i], want[2], err_msg=f"liberties, board {i}")


def test_single_plane_wrappers_agree():
    state = state_of(
        """
        . X O . . . .
        X O . . . . .
        . X . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
        gojax.WHITE,
    )
    chains = jitted("chains")(state)
    outcomes = jitted("move_outcomes")(state)
    np.testing.assert_array_equal(jitted("chain_labels")(state), chains.labels)
    np.testing.assert_array_equal(jitted("chain_sizes")(state), chains.sizes)
    np.testing.assert_array_equal(jitted("liberties")(state), chains.liberties)
    np.testing.assert_array_equal(jitted("liberties_after_move")(state), outcomes.liberties_after)
    np.testing.assert_array_equal(jitted("capture_size")(state), outcomes.capture_size)
    np.testing.assert_array_equal(jitted("self_atari_size")(state), outcomes.self_atari_size)


# --------------------------------------------------------------------------- move outcomes


def outcomes_of(state, config=CONFIG):
    return tuple(np.asarray(x) for x in jitted("move_outcomes", config)(state))


def test_move_outcomes_double_capture_in_the_corner():
    state = state_of(
        """
        . O X . . . .
        O X . X . . .
        X . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """
    )
    libs_after, capture, self_atari = outcomes_of(state)
    # White (0,1) has one liberty, (0,0); so has white (1,0). Black at (0,0) captures both;
    # its stone then stands alone with the two freed points as liberties.
    assert (capture[0, 0], libs_after[0, 0], self_atari[0, 0]) == (2, 2, 0)
    # Black at (1,2) joins (0,2), (1,1), (1,3): liberties (0,3), (1,4), (2,1), (2,2), (2,3).
    assert (capture[1, 2], libs_after[1, 2], self_atari[1, 2]) == (0, 5, 0)
    # Black at (2,1) joins (1,1) and (2,0): liberties (1,2), (2,2), (3,1), (3,0).
    assert (capture[2, 1], libs_after[2, 1]) == (0, 4)
    # An empty point far away: 4 liberties; occupied points read 0.
    assert (capture[4, 4], libs_after[4, 4], self_atari[4, 4]) == (0, 4, 0)
    assert libs_after[0, 1] == capture[0, 1] == self_atari[0, 1] == 0
    # White to move: white at (0,0) joins (0,1) and (1,0) and has no liberty left (all
    # neighbours of the three stones are black or off the board), capturing nothing: 0.
    libs_after_w, capture_w, self_atari_w = outcomes_of(state.replace(turn=jnp.int8(1)))
    assert (libs_after_w[0, 0], capture_w[0, 0], self_atari_w[0, 0]) == (0, 0, 0)


def test_liberties_after_count_freed_points_next_to_the_joined_chains():
    state = state_of(
        """
        . X O O X . .
        . X O . X . .
        . . X X . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """
    )
    libs_after, capture, self_atari = outcomes_of(state)
    # White (0,2) (0,3) (1,2) has one liberty, (1,3). Black at (1,3) captures the three and
    # joins (1,4)-(0,4) and (2,3)-(2,2). The new chain (1,3) (1,4) (0,4) (2,3) (2,2) has the
    # liberties (0,3) and (1,2) (freed, next to it), (0,5), (1,5), (2,4), (3,3), (3,2), (2,1);
    # the freed (0,2) touches only (0,1) (another chain), (0,3) and (1,2): not a liberty.
    assert (capture[1, 3], libs_after[1, 3], self_atari[1, 3]) == (3, 8, 0)
    # Black at (2,1) joins (0,1)-(1,1) and (2,2)-(2,3): liberties (0,0), (1,0), (2,0), (3,1),
    # (3,2), (3,3), (2,4), (1,3) -> 8.
    assert (capture[2, 1], libs_after[2, 1]) == (0, 8)
    # White to move at (1,3): joins its three stones, captures nothing (black (1,4)-(0,4)
    # keeps (0,5), (1,5), (2,4); black (2,2)-(2,3) keeps (2,1), ...): no liberty, suicide.
    libs_after_w, capture_w, _ = outcomes_of(state.replace(turn=jnp.int8(1)))
    assert (libs_after_w[1, 3], capture_w[1, 3]) == (0, 0)


SELF_ATARI = """
    . . . . . . .
    . . . . . . .
    . . . O O . .
    . . O X . . .
    . . . O O . .
    . . . . . . O
    . . . . . . .
"""


def test_self_atari_size():
    state = state_of(SELF_ATARI)
    libs_after, capture, self_atari = outcomes_of(state)
    # Black (3,3) has one liberty, (3,4). Extending there: chain (3,3) (3,4) with the one
    # liberty (3,5): a self-atari of 2 stones.
    assert (libs_after[3, 4], capture[3, 4], self_atari[3, 4]) == (1, 0, 2)
    # Black at (6,6): neighbours (5,6) white, (6,5) empty: self-atari of 1 stone.
    assert (libs_after[6, 6], self_atari[6, 6]) == (1, 1)
    # Black at (3,5): neighbours (2,5), (4,5), (3,6) empty, (3,4) empty -> 4, no self-atari.
    assert (libs_after[3, 5], self_atari[3, 5]) == (4, 0)
    # White to move at (3,4) captures black (3,3) and joins (2,3)-(2,4) and (4,3)-(4,4):
    # liberties (1,3), (2,2), (1,4), (2,5), (3,5), (3,3) (freed), (5,3), (4,2), (5,4), (4,5).
    libs_after_w, capture_w, self_atari_w = outcomes_of(state.replace(turn=jnp.int8(1)))
    assert (libs_after_w[3, 4], capture_w[3, 4], self_atari_w[3, 4]) == (10, 1, 0)


def test_suicide_reads_zero_liberties():
    state = state_of(
        """
        . . . . . . .
        . . . . . . .
        . . . O O O .
        . . O X X . O
        . . O X X O .
        . . . O O . .
        . . . . . . .
        """
    )
    # Black (3,3)(3,4)(4,3)(4,4) has the one liberty (3,5); extending there leaves it none
    # ((2,5) white, (3,6) white, (4,5) white) and captures nothing: a suicide.
    for config in (CONFIG, SUICIDE):
        same = gojax.from_board(config, np.asarray(gojax.board(CONFIG, state)), gojax.BLACK)
        libs_after, capture, self_atari = outcomes_of(same, config)
        assert (libs_after[3, 5], capture[3, 5], self_atari[3, 5]) == (0, 0, 0)
    # White at (3,5) captures the four and joins (2,3)-(2,4)-(2,5), (3,6) and (4,5):
    # liberties (1,3) (1,4) (1,5) (2,2) (2,6) (4,6) (5,5) and the freed (3,3) (3,4) (4,4)
    # -> 10. The freed (4,3) touches only other white chains and freed points: not one.
    libs_after_w, capture_w, _ = outcomes_of(state.replace(turn=jnp.int8(1)))
    assert (capture_w[3, 5], libs_after_w[3, 5]) == (4, 10)


def test_thirteen_liberties_after_capturing_two():
    state = state_of(
        """
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . O O O . .
        . O X X . O .
        . . O O O . .
        . . . . . . .
        """,
        gojax.WHITE,
    )
    libs_after, capture, _ = outcomes_of(state)
    # White at (4,4) captures black (4,2)-(4,3) and joins (3,2..4), (5,2..4), (4,5): 8
    # stones with the liberties (2,2) (3,1) (2,3) (2,4) (3,5) (4,6) (5,5) (5,1) (6,2) (6,3)
    # (6,4) and the freed (4,2), (4,3) -> 13.
    assert (capture[4, 4], libs_after[4, 4]) == (2, 13)


def test_move_outcomes_match_reference_on_random_boards(random_positions):
    boards, states = random_positions
    got = jax.jit(jax.vmap(functools.partial(F.move_outcomes, CONFIG)))(stack_states(states))
    got = np.stack([np.asarray(x) for x in got], axis=1)  # [B, 3, N, N]
    for i, grid in enumerate(boards):
        want = ref_outcomes(grid, 1 + i % 2)
        np.testing.assert_array_equal(got[i], want, err_msg=f"board {i}")


def test_liberties_after_for_either_colour_with_and_without_captures(random_positions):
    """The ladder readers' table: a stone of either colour, its captures taken off or not."""
    from gojax.features import _chains

    variants = tuple(
        (colour, captures) for colour in (_chains._MOVER, _chains._OPPONENT) for captures in (True, False)
    )

    def tables(state):
        return _chains._liberties_after(CONFIG, _chains._analyse(CONFIG, state), variants)

    boards, states = random_positions
    got = np.asarray(jax.jit(jax.vmap(tables))(stack_states(states)))  # [B, 4, P]
    for i, grid in enumerate(boards):
        mover = 1 + i % 2
        for k, (colour, captures) in enumerate(variants):
            stone = mover if colour == _chains._MOVER else 3 - mover
            if captures:
                want = ref_outcomes(grid, stone)[0]
            else:
                want = np.zeros((N, N), int)
                for p in np.flatnonzero(grid.reshape(-1) == 0):
                    board = grid.copy()
                    board.flat[p] = stone
                    want.flat[p] = len(ref_chain(board, int(p))[1])
            np.testing.assert_array_equal(
                got[i, k].reshape(N, N), want, err_msg=f"board {i}, {colour, captures}"
            )


def test_liberties_after_at_more_merge_points_than_one_pass_counts():
    """Stones on every other point of every other row: most empty points join two or more
    chains, more than the bitboard pass counts at once (an eighth of the points a game), so
    its loop runs several passes - alone, under ``vmap`` and under nested ``vmap``."""
    grid = np.zeros((N, N), np.int8)
    grid[::2, ::2] = 1
    grid[1::4, 1::2] = 2
    merges = sum(
        len({tuple(ref_chain(grid, q)[0]) for q in ref_neighbours(p, N) if grid.flat[q] == colour}) >= 2
        for p in np.flatnonzero(grid.reshape(-1) == 0)
        for colour in (1, 2)
    )
    assert merges > 2 * P // 8
    states = [gojax.from_board(CONFIG, grid, mover) for mover in (1, 2)]
    want = np.stack([ref_outcomes(grid, mover) for mover in (1, 2)])
    outcomes = functools.partial(F.move_outcomes, CONFIG)
    alone = np.stack([np.stack([np.asarray(x) for x in jax.jit(outcomes)(s)]) for s in states])
    np.testing.assert_array_equal(alone, want)
    batch = stack_states(states)
    once = np.stack([np.asarray(x) for x in jax.jit(jax.vmap(outcomes))(batch)], axis=1)
    np.testing.assert_array_equal(once, want)
    nested = jax.tree.map(lambda x: jnp.stack([x, x[::-1]]), batch)  # [2, 2, ...]
    twice = np.stack([np.asarray(x) for x in jax.jit(jax.vmap(jax.vmap(outcomes)))(nested)], axis=2)
    np.testing.assert_array_equal(twice, np.stack([want, want[::-1]]))


def test_not_suicide_read_off_the_neighbours_matches_the_liberty_count(random_positions):
    """KataGo's ko-banned plane reads "not a suicide" off the neighbours alone; it must be
    exactly the points where the counted liberties after the move are above 0."""
    from gojax.features import _chains

    def both(state):
        analysis = _chains._analyse(CONFIG, state)
        after = _chains._move_outcomes_of(CONFIG, analysis).liberties_after
        return _chains._not_suicide(CONFIG, analysis), after > 0

    boards, states = random_positions
    read, counted = (np.asarray(x) for x in jax.jit(jax.vmap(both))(stack_states(states)))
    np.testing.assert_array_equal(read, counted)
    suicides = [(grid == 0) & (ref_outcomes(grid, 1 + i % 2)[0] == 0) for i, grid in enumerate(boards)]
    assert sum(int(s.sum()) for s in suicides) > 0  # the boards have suicide points to tell apart


def test_move_outcomes_match_gojax_step(random_positions):
    """Play every legal move with gojax.step and count the result on the board it returns."""
    boards, states = random_positions
    outcomes = jax.jit(jax.vmap(functools.partial(F.move_outcomes, CONFIG)))(stack_states(states))
    libs_after, capture, self_atari = (np.asarray(x) for x in outcomes)

    def play_all(s):
        boards = jax.vmap(lambda a: gojax.board(CONFIG, gojax.step(CONFIG, s, a)))(jnp.arange(P))
        return boards, gojax.legal_action_mask(CONFIG, s)

    after, legal = (np.asarray(x) for x in jax.jit(jax.vmap(play_all))(stack_states(states)))
    checked = 0
    for i, grid in enumerate(boards):
        mover = 1 + i % 2
        for p in np.flatnonzero(legal[i, :P]):
            r, c = divmod(int(p), N)
            board = after[i, p]
            stones, libs = ref_chain(board, int(p))
            taken = int(np.sum(grid == 3 - mover) - np.sum(board == 3 - mover))
            assert libs_after[i, r, c] == len(libs), (i, p)
            assert capture[i, r, c] == taken, (i, p)
            assert self_atari[i, r, c] == (len(stones) if len(libs) == 1 else 0), (i, p)
            checked += 1
        # Illegal empty points here are suicides (no ko in these setups): 0 liberties.
        empty_illegal = (grid.reshape(-1) == 0) & ~legal[i, :P]
        assert (libs_after[i].reshape(-1)[empty_illegal] == 0).all()
    assert checked > 500


# --------------------------------------------------------------------------- stones, legal, eyes


def test_stone_planes_and_legal_plane_with_ko():
    state = state_of(
        """
        . X O . . . .
        X . X O . . .
        . X O . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
        gojax.WHITE,
    )
    # White takes the black stone (1,2) at (1,1): a ko, black may not retake at (1,2) at once.
    state = jitted("step")(state, 1 * N + 1)
    assert int(state.captures[1]) == 1 and not bool(state.illegal_move)
    legal = np.asarray(jitted("legal_plane")(state))
    assert not legal[1, 2]
    assert not legal[0, 1] and legal[0, 0] and legal[6, 6]
    board = np.asarray(gojax.board(CONFIG, state))
    assert board[1, 2] == 0 and board[1, 1] == 2
    # Black is to move: the mover's stones are black.
    np.testing.assert_array_equal(jitted("mover_stones")(state), board == 1)
    np.testing.assert_array_equal(jitted("opponent_stones")(state), board == 2)
    np.testing.assert_array_equal(jitted("empty_points")(state), board == 0)


def test_mover_eyes():
    state = state_of(
        """
        . X . X O . .
        X X X . X O .
        . X . X . . .
        X . X . . O .
        . X . . O . O
        . . . . . O .
        X . . . . . .
        """
    )
    want = np.zeros((N, N), bool)
    want[0, 0] = True  # corner: (0,1) (1,0) black; on-board diagonal (1,1) black
    want[0, 2] = True  # edge: (0,1) (0,3) (1,2) black; diagonals (1,1) black, (1,3) empty
    want[1, 3] = True  # (0,3) (1,2) (1,4) (2,3) black; one white diagonal (0,4): allowed inside
    want[2, 0] = True  # edge: (1,0) (2,1) (3,0) black; diagonals (1,1) black, (3,1) empty
    want[2, 2] = True  # (1,2) (2,1) (2,3) (3,2) black; diagonals (1,1) (1,3) (3,1) (3,3) no white
    want[3, 1] = True  # (2,1) (3,0) (3,2) (4,1) black; diagonals all empty
    np.testing.assert_array_equal(jitted("mover_eyes")(state), want)
    # White to move: (4,5) has white on all four sides and no black diagonal.
    white = np.asarray(jitted("mover_eyes")(state.replace(turn=jnp.int8(1))))
    want_white = np.zeros((N, N), bool)
    want_white[4, 5] = True
    np.testing.assert_array_equal(white, want_white)


def test_false_eye_on_the_edge():
    eye = state_of(
        """
        X . X O . . .
        . X . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """
    )
    # (0,1): (0,0) (0,2) (1,1) black, diagonals (1,0) and (1,2) empty: an eye.
    assert bool(jitted("mover_eyes")(eye)[0, 1])
    false_eye = state_of(
        """
        X . X O . . .
        . X O . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """
    )
    # Same, but white holds the diagonal (1,2): on the edge one white diagonal makes it false.
    assert not bool(jitted("mover_eyes")(false_eye)[0, 1])


# --------------------------------------------------------------------------- turns since


def test_turns_since_counts_moves_and_passes():
    push = jitted("history_push")
    step = jitted("step")
    state = gojax.init(CONFIG)
    hist = F.history_init(CONFIG, state)
    moves = [0, 6, 8, P, 10, 12, 14, 16, 18]  # black, white, black, white pass, ...
    for move in moves:
        state = step(state, move)
        hist = push(hist, state)
    since = np.asarray(jitted("turns_since")(state, hist))
    # 9 moves played; the move at index k (0-based) was played 9 - k moves ago.
    for k, move in enumerate(moves):
        if move == P:
            continue
        r, c = divmod(move, N)
        assert since[r, c] == min(9 - k, 8), (move, since[r, c])
    assert since[3, 3] == 0  # empty point
    assert since.dtype == np.int32
    want = np.zeros((N, N), int)
    for k, move in enumerate(moves):
        if move != P:
            want.flat[move] = min(9 - k, 8)
    planes = np.asarray(jitted("turns_since_planes")(state, hist))
    assert planes.shape == (N, N, 8) and planes.dtype == np.bool_
    np.testing.assert_array_equal(planes, want[..., None] == np.arange(1, 9))


def test_turns_since_after_a_capture_and_replay():
    step, push = jitted("step"), jitted("history_push")
    state = state_of(
        """
        . X . . . . .
        X O X . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """
    )
    hist = F.history_init(CONFIG, state)
    for move in (2 * N + 1, 6 * N + 0, P, 6 * N + 6, 1 * N + 1):
        state = step(state, move)
        hist = push(hist, state)
        assert not bool(state.illegal_move)
    since = np.asarray(jitted("turns_since")(state, hist))
    # Moves: B (2,1) captures W (1,1) [5 moves ago]; W (6,0) [4]; B pass [3]; W (6,6) [2];
    # B (1,1) - on the point where the white stone was captured [1].
    assert since[2, 1] == 5 and since[6, 0] == 4 and since[6, 6] == 2 and since[1, 1] == 1
    # Setup stones count as played the move before the history began: 5 + 1.
    assert since[0, 1] == 6 and since[1, 0] == 6 and since[1, 2] == 6


# --------------------------------------------------------------------------- small helpers


def test_edge_distance_ones_zeros():
    d = np.asarray(F.edge_distance(CONFIG))
    assert d.dtype == np.int32
    assert d[0, 0] == d[6, 3] == d[2, 0] == 0 and d[1, 1] == d[5, 3] == 1 and d[3, 3] == 3
    assert d[2, 3] == 2 and d[2, 4] == 2 and d[1, 5] == 1
    assert np.asarray(F.ones(CONFIG)).sum() == 49 and np.asarray(F.zeros(CONFIG, jnp.int8)).sum() == 0
    assert F.zeros(CONFIG, jnp.int8).dtype == jnp.int8


def test_one_hot_planes():
    values = jnp.asarray([[0, 1, 2], [7, 8, 30]])
    got = np.asarray(F.one_hot_planes(values, 8))
    assert got.shape == (2, 3, 8) and got.dtype == bool
    assert not got[0, 0].any()
    assert got[0, 1].tolist() == [True] + [False] * 7
    assert got[0, 2].tolist() == [False, True] + [False] * 6
    assert got[1, 0].tolist() == [False] * 6 + [True, False]
    assert got[1, 1].tolist() == [False] * 7 + [True]
    assert got[1, 2].tolist() == [False] * 7 + [True]
    assert np.asarray(F.one_hot_planes(values, 2))[1, 2].tolist() == [False, True]
    with pytest.raises(ValueError, match="num"):
        F.one_hot_planes(values, 0)


def test_stack_planes():
    a = jnp.ones((N, N), jnp.bool_)
    b = jnp.zeros((N, N, 3), jnp.int32)
    out = F.stack_planes(a, b, F.edge_distance(CONFIG))
    assert out.shape == (N, N, 5) and out.dtype == jnp.float32
    assert float(out[..., 0].sum()) == 49 and float(out[3, 3, 4]) == 3
    assert F.stack_planes(a, dtype=jnp.bfloat16).dtype == jnp.bfloat16
    with pytest.raises(ValueError, match="plane 1"):
        F.stack_planes(a, jnp.ones((N,)))
    with pytest.raises(ValueError, match="at least one"):
        F.stack_planes()


def test_composed_feature_set_under_vmap(random_positions):
    """A user's own set built from the blocks, vmapped and jitted."""
    _, states = random_positions

    def my_features(config, state):
        chains = F.chains(config, state)
        return F.stack_planes(
            F.mover_stones(config, state),
            F.opponent_stones(config, state),
            F.one_hot_planes(chains.liberties, 4),
            F.edge_distance(config) / config.size,
        )

    out = jax.jit(jax.vmap(functools.partial(my_features, CONFIG)))(stack_states(states[:4]))
    assert out.shape == (4, N, N, 7)
    for i in range(4):
        libs = ref_chains(np.asarray(gojax.board(CONFIG, states[i])))[2]
        np.testing.assert_array_equal(np.asarray(out[i, ..., 2]), (libs == 1).astype(np.float32))
        np.testing.assert_array_equal(np.asarray(out[i, ..., 5]), (libs >= 4).astype(np.float32))
