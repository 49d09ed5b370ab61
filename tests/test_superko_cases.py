"""Superko cases built by hand, each aimed at one part of the repeat test.

* Capturing moves are hashed and tested against the history a few at a time,
  in point order: a repeat far down the list of capturing moves (past the
  8th and the 16th) is banned, and only it.
* The Zobrist keys tell the colours apart: no two keys are equal, a
  position and its colour swap hash differently, every one-stone change
  changes the hash, and a position that differs from an earlier one only in
  its colours is not a repeat.
* Plain (non-capturing) moves are tested by walking one bucket of the
  history: a white or black plain move that recreates an earlier position is
  banned under ``"positional"``, and under ``"situational"`` only when the
  earlier position had the same player to move.

Every diagram is ``X`` black, ``O`` white, ``.`` empty, row 0 at the top,
point ``row * N + col``; the expected results are written from the rules of
Go, not computed by gojax. No hash value is written down: the tests hold for
any Zobrist arithmetic.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import assert_trees_equal

import gojax
from gojax._core import history, zobrist
from gojax._host.chains import chains

POSITIONAL_9 = gojax.GoConfig(size=9)
SITUATIONAL_9 = gojax.GoConfig(size=9, ko_rule="situational")
SUICIDE_9 = gojax.GoConfig(size=9, suicide=True)
POSITIONAL_19 = gojax.GoConfig(size=19)
SUICIDE_19 = gojax.GoConfig(size=19, suicide=True)

_JITTED: dict = {}


@pytest.fixture(autouse=True)
def _both_paths(rules_path):
    """Every case on the rules in C and in XLA (``rules_path``), each traced anew."""
    _JITTED.clear()
    yield
    _JITTED.clear()


def jitted(name: str, config: gojax.GoConfig):
    """``jax.jit(partial(gojax.<name>, config))``, built once per (name, config)."""
    key = (name, config)
    if key not in _JITTED:
        _JITTED[key] = jax.jit(functools.partial(getattr(gojax, name), config))
    return _JITTED[key]


def mask(config, state) -> np.ndarray:
    """``bool[A]`` legal actions."""
    return np.asarray(jitted("legal_action_mask", config)(state))


def grid(config, state) -> np.ndarray:
    """``int8[N, N]`` board."""
    return np.asarray(jitted("board", config)(state))


def play(config, state, *actions):
    """Plays actions one by one, checking each is in the mask and accepted."""
    for action in actions:
        assert mask(config, state)[action], f"action {action} should be legal"
        state = jitted("step", config)(state, action)
        assert not bool(state.illegal_move), f"action {action} was rejected"
    return state


def banned_empty_points(config, state) -> list[int]:
    """The empty points that are not legal for the player to move."""
    empty = grid(config, state).reshape(-1) == gojax.EMPTY
    return np.flatnonzero(empty & ~mask(config, state)[: config.num_points]).tolist()


def assert_banned(config, state, action):
    """``action`` is out of the mask, and ``step`` forfeits it with the board untouched."""
    assert not mask(config, state)[action], f"action {action} should be banned"
    after = jitted("step", config)(state, action)
    assert bool(after.illegal_move) and int(after.loser) == int(state.turn) + 1
    np.testing.assert_array_equal(after.stones, state.stones)


def swap_colours(board: np.ndarray) -> np.ndarray:
    """Black stones become white and white ones black."""
    return np.choose(board, [gojax.EMPTY, gojax.WHITE, gojax.BLACK]).astype(np.int8)


def atari_liberties(board: np.ndarray, colour: int) -> list[int]:
    """Sorted points where the other colour captures: the liberties of ``colour``'s chains in atari."""
    flat = board.reshape(-1)
    points = {
        int(chain.liberties[0])
        for chain in chains(board)
        if flat[chain.points[0]] == colour and chain.liberties.size == 1
    }
    return sorted(points)


# --------------------------------------------------------------------------- capturing moves in chunks

MANY_CAPTURES = """
. . . . . . . . .
X O X O X O X O X
O X O X O X O X O
. . . . . . . . .
X O X O X O X O X
O X O X O X O X O
. . . . . . . . .
O O X . . X . . X
O X . X . O X . O
"""
# Black to capture: 18 single white stones in atari (rows 1-2 and 4-5, their
# liberties on rows 0, 3 and 6), then a ko at the bottom left, then two more
# white stones in atari (F1 and J1, liberties E1 and H1). White starts by
# taking the ko at C1 (point 74), capturing B1 (73); black's retake at 73
# would bring back the start position.
KO_TAKE, KO_RETAKE = 8 * 9 + 2, 8 * 9 + 1
BEFORE_KO = [1, 3, 5, 7, 27, 28, 29, 30, 31, 32, 33, 34, 35, 54, 56, 58, 60, 62]
AFTER_KO = [8 * 9 + 4, 8 * 9 + 7]


def _many_captures(before: int, after: int) -> np.ndarray:
    """The 9x9 board with only the first ``before`` stones in atari ahead of the
    ko and the first ``after`` behind it (the others removed)."""
    board = gojax.parse_board(MANY_CAPTURES, 9)
    dropped = set(BEFORE_KO[before:]) | set(AFTER_KO[after:])
    flat = board.reshape(-1)
    for chain in chains(board):
        if flat[chain.points[0]] == gojax.WHITE and set(chain.liberties.tolist()) <= dropped:
            flat[chain.points] = gojax.EMPTY
    return board


def _on_19(board9: np.ndarray) -> tuple[np.ndarray, dict[int, int]]:
    """The 9x9 board in the bottom-left corner of a 19x19 one, walled off on
    its right by a black column; and the map from 9x9 points to 19x19 ones."""
    board = np.zeros((19, 19), np.int8)
    board[10:, :9] = board9
    board[10:, 9] = gojax.BLACK
    return board, {r * 9 + c: (r + 10) * 19 + c for r in range(9) for c in range(9)}


CHUNK_CASES = [
    # (candidates ahead of the ko retake, candidates behind it)
    (7, 2),  # the retake is the 8th: the last of the first chunk
    (8, 0),  # 9 capturing moves, the retake the 9th (index 8)
    (8, 2),  # index 8, followed by two more
    (15, 0),  # 16 capturing moves, the retake the last of the second chunk
    (16, 0),  # 17 capturing moves, the retake first of the third chunk (index 16)
    (18, 2),  # 21 capturing moves, the retake at index 18
]


def _name(config: gojax.GoConfig) -> str:
    return f"{config.size}x{config.size}-{config.ko_rule}" + ("-suicide" if config.suicide else "")


@pytest.mark.parametrize("config", [POSITIONAL_9, SITUATIONAL_9, SUICIDE_9, POSITIONAL_19], ids=_name)
@pytest.mark.parametrize(("before", "after"), CHUNK_CASES)
def test_a_repeating_capture_far_down_the_list_is_the_only_one_banned(config, before, after):
    board = _many_captures(before, after)
    points = {p: p for p in range(81)}
    if config.size == 19:
        board, points = _on_19(board)
    take, retake = points[KO_TAKE], points[KO_RETAKE]
    start = gojax.from_board(config, board, to_play=gojax.WHITE)
    state = play(config, start, take)
    assert np.asarray(state.captures).tolist() == [0, 1]

    # Black's capturing moves, in point order, with the retake at index ``before``.
    candidates = atari_liberties(grid(config, state), gojax.WHITE)
    expected = [points[p] for p in BEFORE_KO[:before]] + [retake] + [points[p] for p in AFTER_KO[:after]]
    assert candidates == expected
    assert candidates.index(retake) == before
    # No empty point is suicide for black: each one but the retake has an empty neighbour.
    empty = np.pad(grid(config, state) == gojax.EMPTY, 1)
    beside = empty[:-2, 1:-1] | empty[2:, 1:-1] | empty[1:-1, :-2] | empty[1:-1, 2:]
    assert np.flatnonzero(empty[1:-1, 1:-1] & ~beside).tolist() == [retake]

    assert banned_empty_points(config, state) == [retake]
    assert_banned(config, state, retake)
    for point in candidates:  # every other capture is legal and captures one stone
        if point != retake:
            after_capture = play(config, state, point)
            assert np.asarray(after_capture.captures).tolist() == [1, 1]


# --------------------------------------------------------------------------- colours in the keys


@pytest.mark.parametrize("size", [2, 5, 9, 13, 19, 25])
def test_zobrist_keys_are_all_distinct(size):
    tables = zobrist.tables(size)
    keys = tables.points.reshape(-1, 2)  # [2 * P, 2]: black keys, then white keys
    assert len(np.unique(keys, axis=0)) == 2 * size * size
    assert not np.any(np.all(tables.points[0] == tables.points[1], axis=-1))  # no point's two colours agree
    assert not np.any(np.all(keys == 0, axis=-1))
    assert len(np.unique(tables.side, axis=0)) == 2


def _random_board(size: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).choice([0, 1, 2], size=(size, size), p=[0.4, 0.3, 0.3]).astype(np.int8)


@pytest.mark.parametrize("size", [5, 9, 19])
def test_a_position_and_its_colour_swap_hash_differently(size):
    for seed in range(20):
        board = _random_board(size, seed)
        assert not np.array_equal(
            zobrist.hash_of_board(size, board), zobrist.hash_of_board(size, swap_colours(board))
        )


def test_a_state_and_its_colour_swap_hash_differently():
    board = gojax.parse_board(MANY_CAPTURES, 9)
    state = gojax.from_board(POSITIONAL_9, board)
    swapped = gojax.from_board(POSITIONAL_9, swap_colours(board))
    assert not np.array_equal(state.hash, swapped.hash)
    np.testing.assert_array_equal(state.hash, zobrist.hash_of_board(9, board))


@pytest.mark.parametrize("size", [5, 9, 19])
def test_every_one_stone_change_changes_the_hash(size):
    board = _random_board(size, 7)
    hashes = {tuple(zobrist.hash_of_board(size, board))}
    for point in range(size * size):
        for value in (0, 1, 2):  # add, remove or recolour a stone
            if value == board.reshape(-1)[point]:
                continue
            changed = board.copy()
            changed.reshape(-1)[point] = value
            hashes.add(tuple(zobrist.hash_of_board(size, changed)))
    assert len(hashes) == 1 + 2 * size * size  # all different, and from the board's


def _xor_to_zero(vectors: list[int]) -> list[int]:
    """Indices of a nonempty subset of ``vectors`` whose XOR is 0 (Gaussian elimination over GF(2))."""
    basis: dict[int, tuple[int, set[int]]] = {}  # leading bit -> (vector, the indices XOR-ed into it)
    for index, vector in enumerate(vectors):
        used = {index}
        while vector:
            top = vector.bit_length() - 1
            if top not in basis:
                basis[top] = (vector, used)
                break
            vector ^= basis[top][0]
            used ^= basis[top][1]
        else:
            return sorted(used)
    raise AssertionError("the vectors are independent")


def test_positions_whose_hashes_agree_in_one_word_are_told_apart():
    # Two 9x9 positions of five black stones each, built so that the first words of their
    # hashes agree: an even set of black keys whose first words XOR to 0 (33 bits - the word and
    # a parity bit - so any 34 keys hold one), split in two halves. The second word must tell
    # them apart, and the rules must let a game that saw one of them play into the other.
    config = POSITIONAL_9
    keys = zobrist.tables(9).points[0]  # [P, 2]: the black keys
    points = _xor_to_zero([int(word) | 1 << 32 for word in keys[:, 0]])
    half = len(points) // 2
    made, earlier = np.zeros(81, np.int8), np.zeros(81, np.int8)
    made[points[:half]], earlier[points[half:]] = gojax.BLACK, gojax.BLACK
    made_hash = zobrist.hash_of_board(9, made.reshape(9, 9))
    earlier_hash = zobrist.hash_of_board(9, earlier.reshape(9, 9))
    assert made_hash[0] == earlier_hash[0]  # one word agrees, by construction
    assert made_hash[1] != earlier_hash[1]  # the other tells them apart

    move = points[half - 1]  # black's plain move that makes `made`
    before = made.copy()
    before[move] = gojax.EMPTY

    def with_earlier(situation: np.ndarray) -> gojax.GoState:
        """``before``, black to move, in a game whose move 1 made a position of hash ``situation``
        with as many stones as ``made`` (so in the history list that ``move`` is tested against)."""
        state = gojax.from_board(config, before.reshape(9, 9))
        key = history.PositionKey(jnp.asarray(situation), jnp.int32(half), jnp.int32(0))
        lists = history.record(config, history.HistoryLists.of(state), 1, key)
        return lists.into(state).replace(move_number=jnp.int32(1))

    state = with_earlier(earlier_hash)
    assert banned_empty_points(config, state) == []
    after = play(config, state, move)
    np.testing.assert_array_equal(grid(config, after).reshape(-1), made)
    # The same history holding `made` itself bans the move: the entry is read.
    assert_banned(config, with_earlier(made_hash), move)


SWAP_BY_SUICIDE = """
X . O . . . . . .
O O . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . X X
. . . . . . X . O
"""
# Black fills B9 (point 1) and its pair A9-B9 dies by suicide; white fills H1
# (79) and its pair H1-J1 dies too. Black then plays J1 (80) and white A9 (0):
# every point holds a stone exactly where it did at the start, with A9 and J1
# of the other colour, and as many white stones - a new position.


def test_a_position_that_differs_from_an_earlier_one_only_in_colours_is_legal():
    config = SUICIDE_9
    start = gojax.from_ascii(config, SWAP_BY_SUICIDE)
    state = play(config, start, 1, 79)
    assert np.asarray(state.captures).tolist() == [2, 2]
    state = play(config, state, 80)
    assert banned_empty_points(config, state) == [79]  # a one-stone suicide that repeats the board
    state = play(config, state, 0)
    before, after = grid(config, start), grid(config, state)
    np.testing.assert_array_equal(before > 0, after > 0)
    np.testing.assert_array_equal(np.flatnonzero(before != after), [0, 80])
    assert (before == gojax.WHITE).sum() == (after == gojax.WHITE).sum()
    gojax.check_invariants(config, state)


def test_recolouring_one_stone_on_a_large_board_is_legal():
    # On 19x19 positions are grouped by stone count alone: the start (A19
    # black) and the end (A19 white) have as many stones.
    config = SUICIDE_19
    board = np.zeros((19, 19), np.int8)
    board[0, :3] = [gojax.BLACK, gojax.EMPTY, gojax.WHITE]
    board[1, :2] = gojax.WHITE
    start = gojax.from_board(config, board)
    state = play(config, start, 1)  # the pair A19-B19 dies by suicide
    assert np.asarray(state.captures).tolist() == [0, 2]
    assert banned_empty_points(config, state) == []
    state = play(config, state, 0)
    before, after = grid(config, start), grid(config, state)
    np.testing.assert_array_equal(before > 0, after > 0)
    assert before[0, 0] == gojax.BLACK and after[0, 0] == gojax.WHITE


# --------------------------------------------------------------------------- plain moves that repeat

PLAIN_REPEAT = """
y p x c O . . . .
X X X O . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
"""
# p and x are white stones (liberties y and c). White fills y (self-atari),
# black takes the three stones at c, white takes c back at x, black passes,
# and white's plain move at p brings back the start board.
Y, P, X, C = 0, 1, 2, 3


def _plain_repeat(mover: int) -> np.ndarray:
    text = PLAIN_REPEAT.replace("y", ".").replace("c", ".").replace("p", "O").replace("x", "O")
    board = gojax.parse_board(text, 9)
    return board if mover == gojax.WHITE else swap_colours(board)


@pytest.mark.parametrize("mover", [gojax.WHITE, gojax.BLACK], ids=["white", "black"])
@pytest.mark.parametrize("earlier_to_move", ["same", "other"])
@pytest.mark.parametrize("config", [POSITIONAL_9, SITUATIONAL_9], ids=lambda c: c.ko_rule)
def test_a_plain_move_that_recreates_an_earlier_position(config, earlier_to_move, mover):
    opponent = 3 - mover
    board = _plain_repeat(mover)
    pass_ = config.pass_action
    if earlier_to_move == "same":
        # The start board with the opponent to move - as after the repeating move.
        start = gojax.from_board(config, board, to_play=opponent)
        state = play(config, start, pass_)
    else:
        # The start board with the mover to move; a pass would record it with the opponent to move.
        start = gojax.from_board(config, board, to_play=mover)
        state = start
    state = play(config, state, Y, C, X, pass_)
    assert int(state.turn) + 1 == mover
    captures = np.zeros(2, int)
    captures[opponent - 1], captures[mover - 1] = 3, 1
    np.testing.assert_array_equal(state.captures, captures)
    assert P not in atari_liberties(grid(config, state), opponent)  # a plain move: it captures nothing
    expected = board.reshape(-1).copy()
    expected[P] = gojax.EMPTY
    np.testing.assert_array_equal(grid(config, state).reshape(-1), expected)

    if config.ko_rule == "positional" or earlier_to_move == "same":
        assert banned_empty_points(config, state) == [P]
        assert_banned(config, state, P)
    else:
        assert banned_empty_points(config, state) == []
        state = play(config, state, P)
        np.testing.assert_array_equal(grid(config, state), board)
        assert int(state.turn) + 1 == opponent
        np.testing.assert_array_equal(state.captures, captures)


# --------------------------------------------------------------------------- step_with_mask


@pytest.mark.parametrize("config", [POSITIONAL_9, SITUATIONAL_9], ids=lambda c: c.ko_rule)
def test_step_with_mask_reads_the_repeat_verdict_from_the_mask(config):
    board = _plain_repeat(gojax.WHITE)
    state = play(config, gojax.from_board(config, board, to_play=gojax.BLACK), config.pass_action)
    state = play(config, state, Y, C, X, config.pass_action)
    legal = mask(config, state)
    assert not legal[P]  # the plain move at P would recreate the start board
    step = jitted("step", config)
    with_mask = jax.jit(functools.partial(gojax.step_with_mask, config))

    # With the state's own mask: exactly `step`, for the banned repeat, every other action and bad ones.
    for action in [P, -1, config.num_actions, *range(config.num_actions)]:
        assert_trees_equal(with_mask(state, action, legal), step(state, action), f"action {action}")

    # A mask that allows the repeat plays it (the documented precondition is broken on purpose).
    allowed = legal.copy()
    allowed[P] = True
    repeated = with_mask(state, P, allowed)
    assert not bool(repeated.illegal_move)
    np.testing.assert_array_equal(grid(config, repeated), board)

    # The board is never corrupted: an occupied point still forfeits, whatever the mask says.
    occupied = int(np.flatnonzero(grid(config, state).reshape(-1))[0])
    everything = np.ones_like(legal)
    after = with_mask(state, occupied, everything)
    assert bool(after.illegal_move) and int(after.loser) == int(state.turn) + 1
    np.testing.assert_array_equal(after.stones, state.stones)

    # A mask that bans a legal move forfeits it.
    legal_point = int(np.flatnonzero(legal[: config.num_points])[0])
    banned = legal.copy()
    banned[legal_point] = False
    assert bool(with_mask(state, legal_point, banned).illegal_move)
    assert not bool(step(state, legal_point).illegal_move)


SUICIDE_POINT = """
. O . . . . . . .
O . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
"""


def test_step_with_mask_still_refuses_a_suicide_the_mask_allows():
    # Black at the corner (point 0) has no liberty and captures nothing: a suicide,
    # forfeited with the board untouched even by a mask that allows everything.
    config = POSITIONAL_9
    state = gojax.from_board(config, gojax.parse_board(SUICIDE_POINT, 9), to_play=gojax.BLACK)
    assert not mask(config, state)[0]
    after = jax.jit(functools.partial(gojax.step_with_mask, config))(
        state, 0, np.ones(config.num_actions, bool)
    )
    assert bool(after.illegal_move) and int(after.loser) == gojax.BLACK
    np.testing.assert_array_equal(after.stones, state.stones)


def test_step_with_mask_refuses_a_mask_of_the_wrong_shape_or_dtype():
    config = POSITIONAL_9
    state = gojax.init(config)
    good = np.ones(config.num_actions, bool)
    for bad, named in [
        (good[:-1], r"bool\[81\]"),
        (good.astype(np.int32), r"int32\[82\]"),
        (good[None], r"bool\[1, 82\]"),
        ([True] * config.num_actions, "list"),
    ]:
        with pytest.raises(
            ValueError, match=rf"gojax.step_with_mask: mask must be .*bool\[82\].*got {named}"
        ):
            gojax.step_with_mask(config, state, 0, bad)
