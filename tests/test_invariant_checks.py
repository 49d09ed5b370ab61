"""Each check of :func:`gojax.check_invariants`, one corruption at a time.

The checker is the oracle of the stress and replay tests, so every check it
makes must be able to fail. A short game (a capture, a pass, a second
capture) gives well-formed states on 9x9 (with liberty labels), on 19x19
(without) and under the situational rule; each test corrupts one field, or
one relation between fields, and expects the message that names it.
"""

from __future__ import annotations

import functools

import jax
import numpy as np
import pytest

import gojax
from gojax import InvariantError
from gojax._core import bitboard as bb
from gojax._core import history as _history

POSITIONAL_9 = gojax.GoConfig(size=9)
SITUATIONAL_9 = gojax.GoConfig(size=9, ko_rule="situational")
POSITIONAL_19 = gojax.GoConfig(size=19)
SIMPLE_9 = gojax.GoConfig(size=9, ko_rule="simple")
CONFIGS = [POSITIONAL_9, SITUATIONAL_9, POSITIONAL_19]

GAME = """
. X O . . . . . .
X O . . . . O . .
. X . . . O X O .
. . . . . . . . .
. . . . . . O O .
. . . . . O X X O
. . . . . . O . .
. . . . . . . . .
. . . . . . . . .
"""
# In the top-left corner of the board, on 9x9 and 19x19 alike (named here by
# their 9x9 vertices). Black takes B8 at C8, white passes, black plays B2,
# white takes G7 at G6. Then in atari: white C9 (liberty D9) and black G4-H4
# (liberty H3).
MOVES = [(1, 2), None, (7, 1), (3, 6)]
WHITE_IN_ATARI, WHITE_LIBERTY = (0, 2), (0, 3)
BLACK_IN_ATARI, BLACK_LIBERTY = [(5, 6), (5, 7)], (6, 7)
A_BLACK_STONE = (1, 0)  # A8, a black chain with liberties to spare
AN_EMPTY_POINT = (8, 8)


def _name(config: gojax.GoConfig) -> str:
    return f"{config.size}x{config.size}-{config.ko_rule}"


def point(config, row_col) -> int:
    row, col = row_col
    return row * config.size + col


@functools.cache
def game(config: gojax.GoConfig) -> tuple[gojax.GoState, np.ndarray]:
    """The state after :data:`MOVES`, and the stones each colour has placed."""
    board = np.zeros((config.size, config.size), np.int8)
    board[:9, :9] = gojax.parse_board(GAME, 9)
    placed = np.array([(board == gojax.BLACK).sum(), (board == gojax.WHITE).sum()])
    state = gojax.from_board(config, board)
    step = jax.jit(functools.partial(gojax.step, config))
    for move in MOVES:
        action = config.pass_action if move is None else point(config, move)
        placed[int(state.turn)] += move is not None
        state = step(state, action)
        assert not bool(state.illegal_move)
    return jax.tree.map(np.asarray, state), placed


def corrupt(state: gojax.GoState, field: str, change) -> gojax.GoState:
    """``state`` with ``change(copy)`` applied in place to a copy of ``field``."""
    value = np.array(getattr(state, field))
    change(value)
    return state.replace(**{field: value})


def flip(config, array, lead, row_col):
    """Toggles the bit of a point in the bitboard ``array[lead]`` (in place)."""
    word, bit = divmod(point(config, row_col), 32)
    array[(*lead, word)] ^= np.uint32(1 << bit)


def raises(config, state, message, placed=None):
    with pytest.raises(InvariantError, match=message):
        gojax.check_invariants(config, state, placed)


@pytest.mark.parametrize("config", [*CONFIGS, SIMPLE_9], ids=_name)
def test_the_game_is_well_formed(config):
    state, placed = game(config)
    gojax.check_invariants(config, state, placed)
    atari = bb.to_grid_np(np.asarray(state.atari), config.size)
    assert np.argwhere(atari[1]).tolist() == [list(WHITE_IN_ATARI)]
    assert np.argwhere(atari[0]).tolist() == [list(p) for p in BLACK_IN_ATARI]
    assert np.asarray(state.captures).tolist() == [1, 1] and int(state.move_number) == 4
    batch = jax.tree.map(lambda x: np.stack([x, x]), state)
    gojax.check_invariants(config, batch, np.stack([placed, placed]))


# --------------------------------------------------------------------------- stones and chains


@pytest.mark.parametrize("config", CONFIGS, ids=_name)
def test_a_liberty_beside_two_stones_of_a_chain_counts_once(config):
    # The black chain's last liberty (A8) touches two of its stones (A9, B8): it is one
    # liberty, so the chain is in atari, and the engine's state says so.
    board = np.zeros((config.size, config.size), np.int8)
    board[:4, :4] = gojax.parse_board("X X O .\n. X O .\n. O . .\n. . . .", 4)
    state = gojax.from_board(config, board)
    atari = bb.to_grid_np(np.asarray(state.atari), config.size)
    assert np.argwhere(atari[0]).tolist() == [[0, 0], [0, 1], [1, 1]]
    gojax.check_invariants(config, jax.tree.map(np.asarray, state))


@pytest.mark.parametrize("config", CONFIGS, ids=_name)
def test_bits_beyond_the_board(config):
    state, _ = game(config)
    # The last word's top bit is past the last point on both boards (81 and 361 points).
    assert bb.num_words(config.size) * 32 > config.num_points + 1
    raises(config, corrupt(state, "stones", lambda a: a.__setitem__((1, -1), a[1, -1] | (1 << 31))), "beyond")


@pytest.mark.parametrize("config", CONFIGS, ids=_name)
def test_two_stones_on_one_point(config):
    state, _ = game(config)
    raises(
        config, corrupt(state, "stones", lambda a: flip(config, a, (1,), A_BLACK_STONE)), "holds two stones"
    )


@pytest.mark.parametrize("config", CONFIGS, ids=_name)
@pytest.mark.parametrize("victim", ["white", "black"])
def test_a_chain_with_no_liberty(config, victim):
    state, _ = game(config)
    # Fill the last liberty of a chain in atari with a stone of the other colour.
    if victim == "white":
        filled, colour, first = WHITE_LIBERTY, 0, WHITE_IN_ATARI
    else:
        filled, colour, first = BLACK_LIBERTY, 1, BLACK_IN_ATARI[0]
    broken = corrupt(state, "stones", lambda a: flip(config, a, (colour,), filled))
    raises(config, broken, f"chain at point {point(config, first)} has no liberty")


@pytest.mark.parametrize("config", CONFIGS, ids=_name)
@pytest.mark.parametrize(
    ("colour", "where"), [(1, WHITE_IN_ATARI), (0, BLACK_IN_ATARI[1]), (0, A_BLACK_STONE), (1, A_BLACK_STONE)]
)
def test_atari_bitboards(config, colour, where):
    # A stone of a chain in atari missing from them, a safe stone in them, a stone of the wrong colour.
    state, _ = game(config)
    broken = corrupt(state, "atari", lambda a: flip(config, a, (colour,), where))
    raises(config, broken, "atari bitboards differ from the chains with one liberty")


@pytest.mark.parametrize("config", [POSITIONAL_9, POSITIONAL_19], ids=_name)
@pytest.mark.parametrize(
    ("plane", "where"),
    [
        (0, WHITE_IN_ATARI),  # D9 (D19) is point 3: bit 0 set; clear it
        (2, WHITE_IN_ATARI),  # set bit 2
        (0, BLACK_IN_ATARI[0]),  # only one stone of the chain relabelled (H3's index is odd on both)
        (1, A_BLACK_STONE),  # a label on a stone in no atari
    ],
)
def test_liberty_labels(config, plane, where):
    state, _ = game(config)
    assert np.asarray(state.atari_liberty).shape == (config.liberty_label_planes, bb.num_words(config.size))
    broken = corrupt(state, "atari_liberty", lambda a: flip(config, a, (plane,), where))
    raises(config, broken, "atari_liberty differs from the liberties of the chains in atari")


# --------------------------------------------------------------------------- hash and counters


@pytest.mark.parametrize("config", CONFIGS, ids=_name)
@pytest.mark.parametrize("word", [0, 1])
def test_incremental_hash(config, word):
    state, _ = game(config)
    broken = corrupt(state, "hash", lambda a: a.__setitem__(word, a[word] ^ np.uint32(1 << 7)))
    raises(config, broken, "incremental hash differs from the hash from scratch")


COUNTERS = [
    ("turn", 2, "turn is not 0 or 1"),
    ("turn", -1, "turn is not 0 or 1"),
    ("move_number", -1, "negative move number"),
    ("passes", 3, "passes out of range"),
    ("passes", -1, "passes out of range"),
    ("captures", [1, -1], "negative captures"),
    ("loser", 3, "loser is not 0, 1 or 2"),
    ("loser", -1, "loser is not 0, 1 or 2"),
    ("ko_point", -2, "ko point is not -1 or an empty point"),
]


@pytest.mark.parametrize(
    ("config", "field", "value", "message"),
    [
        pytest.param(config, *counter, id=f"{_name(config)}-{counter[0]}={counter[1]}")
        for config in [*CONFIGS, SIMPLE_9]
        for counter in COUNTERS
        # Turn 2 under the situational rule: see test_turn_two_under_the_situational_rule.
        if not (config.ko_rule == "situational" and counter[:2] == ("turn", 2))
    ],
)
def test_counters_out_of_range(config, field, value, message):
    state, _ = game(config)
    broken = state.replace(**{field: np.asarray(value, np.asarray(getattr(state, field)).dtype)})
    raises(config, broken, message)


def test_turn_two_under_the_situational_rule():
    state, _ = game(SITUATIONAL_9)
    raises(SITUATIONAL_9, state.replace(turn=np.int8(2)), "turn is not 0 or 1")


@pytest.mark.parametrize("config", [*CONFIGS, SIMPLE_9], ids=_name)
def test_move_number_beyond_the_move_cap(config):
    state, _ = game(config)
    raises(
        config, state.replace(move_number=np.int32(config.move_cap + 1)), "move number beyond the move cap"
    )


@pytest.mark.parametrize("config", [*CONFIGS, SIMPLE_9], ids=_name)
def test_ko_point_off_the_board_or_on_a_stone(config):
    state, _ = game(config)
    message = "ko point is not -1 or an empty point"
    for ko in (config.num_points, 32767, point(config, A_BLACK_STONE), point(config, WHITE_IN_ATARI)):
        raises(config, state.replace(ko_point=np.int16(ko)), message)
    # Any empty point passes: the checker does not replay the ko.
    gojax.check_invariants(config, state.replace(ko_point=np.int16(point(config, AN_EMPTY_POINT))))


@pytest.mark.parametrize("config", [*CONFIGS, SIMPLE_9], ids=_name)
def test_both_terminated_and_truncated(config):
    state, _ = game(config)
    raises(config, state.replace(terminated=np.True_, truncated=np.True_), "both terminated and truncated")
    gojax.check_invariants(config, state.replace(terminated=np.True_))
    gojax.check_invariants(config, state.replace(truncated=np.True_))


@pytest.mark.parametrize("config", [*CONFIGS, SIMPLE_9], ids=_name)
def test_placed_stones(config):
    state, placed = game(config)
    assert placed.tolist() == [6 + 2, 10 + 1]  # the diagram, then the moves
    for error in ([1, 0], [0, -1]):
        raises(config, state, "stones on board \\+ stones lost != stones placed", placed + error)
    # Stones lost are the other side's captures: one more white stone placed
    # and taken by black keeps the count; the same capture of a black stone breaks it.
    one_more = state.replace(captures=np.asarray(state.captures) + np.array([1, 0], np.int16))
    gojax.check_invariants(config, one_more, placed + np.array([0, 1]))
    raises(config, one_more, "stones on board \\+ stones lost != stones placed", placed + np.array([1, 0]))


# --------------------------------------------------------------------------- history


@pytest.mark.parametrize("config", CONFIGS, ids=_name)
@pytest.mark.parametrize("word", [0, 1])
def test_history_entry_of_the_current_move(config, word):
    state, _ = game(config)
    move = int(state.move_number)
    broken = corrupt(state, "history", lambda a: a.__setitem__((move, word), a[move, word] ^ np.uint32(1)))
    raises(config, broken, "history entry for the current move differs from the hash")


def test_the_player_to_move_is_part_of_a_situational_entry():
    # Under the situational rule the current entry encodes who is to move;
    # under the positional rule nothing tells black to move from white.
    for config in (SITUATIONAL_9, POSITIONAL_9):
        state, _ = game(config)
        other = state.replace(turn=np.int8(1 - int(state.turn)))
        if config.ko_rule == "situational":
            raises(config, other, "history entry for the current move differs from the hash")
        else:
            gojax.check_invariants(config, other)


@pytest.mark.parametrize("config", CONFIGS, ids=_name)
@pytest.mark.parametrize("later", [1, 7])
def test_history_entries_after_the_current_move(config, later):
    state, _ = game(config)
    move = int(state.move_number)
    broken = corrupt(state, "history", lambda a: a.__setitem__(move + later, a[move]))
    raises(config, broken, "history entries after the current move")


def _buckets(config, state):
    """Each bucket's list of entries, newest first: ``{bucket: [entries]}``."""
    head, prev = np.asarray(state.history_head), np.asarray(state.history_prev)
    lists = {}
    for bucket in np.flatnonzero(head >= 0):
        entries, entry = [], int(head[bucket])
        while entry >= 0:
            entries.append(entry)
            entry = int(prev[entry])
        lists[int(bucket)] = entries
    return lists


def _bucket_of(config, state):
    board = bb.board_np(np.asarray(state.stones), config.size)
    return int(_history.bucket_of(config, np.count_nonzero(board), np.count_nonzero(board == gojax.WHITE)))


def _unlinked(state, entry: int) -> gojax.GoState:
    """``state`` with history ``entry`` taken out of its bucket list."""
    head, prev = np.array(state.history_head), np.array(state.history_prev)
    newer = np.flatnonzero(prev == entry)
    if newer.size:
        prev[newer[0]] = prev[entry]
    else:
        head[head == entry] = prev[entry]
    prev[entry] = -1
    return state.replace(history_head=head, history_prev=prev)


@pytest.mark.parametrize("config", CONFIGS, ids=_name)
def test_the_game_has_the_bucket_lists_the_tests_rely_on(config):
    state, _ = game(config)
    # (stones, white stones) after each move: (16, 10) at the start; (16, 9)
    # after the capture and after the pass; (17, 9); (17, 10) after the capture.
    lists = sorted(_buckets(config, state).values())
    if config.size == 19:  # one list per stone count
        assert lists == [[1, 0], [4, 3]]
    elif config.ko_rule == "positional":  # the pass (entry 2) is stored but not linked
        assert lists == [[0], [1], [3], [4]]
    else:
        assert lists == [[0], [2, 1], [3], [4]]
    assert _buckets(config, state)[_bucket_of(config, state)][0] == 4


@pytest.mark.parametrize("config", CONFIGS, ids=_name)
def test_a_bucket_list_that_loops(config):
    state, _ = game(config)
    broken = corrupt(state, "history_prev", lambda a: a.__setitem__(4, 4))
    raises(config, broken, "bucket lists are corrupt at entry 4")


@pytest.mark.parametrize("config", CONFIGS, ids=_name)
@pytest.mark.parametrize("field", ["history_head", "history_prev"])
def test_two_bucket_lists_that_share_an_entry(config, field):
    state, _ = game(config)
    if field == "history_head":  # an empty bucket's head set to an entry of another list
        free = int(np.flatnonzero(np.asarray(state.history_head) < 0)[0])
        broken = corrupt(state, field, lambda a: a.__setitem__(free, 3))
    else:  # the oldest entry of a list linked on to another list's newest
        broken = corrupt(state, field, lambda a: a.__setitem__(0, 3))
    raises(config, broken, "bucket lists are corrupt at entry 3")


@pytest.mark.parametrize("config", CONFIGS, ids=_name)
@pytest.mark.parametrize("field", ["history_head", "history_prev"])
def test_a_bucket_list_that_reaches_past_the_current_move(config, field):
    state, _ = game(config)
    if field == "history_head":
        bucket = _bucket_of(config, state)
        broken = corrupt(state, field, lambda a: a.__setitem__(bucket, 5))
    else:
        broken = corrupt(state, field, lambda a: a.__setitem__(0, 5))
    raises(config, broken, "bucket lists are corrupt at entry 5")


@pytest.mark.parametrize("config", CONFIGS, ids=_name)
@pytest.mark.parametrize("entry", [0, 3])
def test_an_entry_left_out_of_the_lists(config, entry):
    state, _ = game(config)
    raises(
        config,
        _unlinked(state, entry),
        f"history entry {entry} is neither linked nor a repeat of a linked one",
    )


def test_an_unlinked_entry_must_repeat_a_linked_one():
    # Under the positional rule the pass (entry 2) repeats entry 1 and is
    # stored unlinked; changed, it repeats nothing.
    config = POSITIONAL_9
    state, _ = game(config)
    broken = corrupt(state, "history", lambda a: a.__setitem__((2, 0), a[2, 0] ^ np.uint32(1)))
    raises(config, broken, "history entry 2 is neither linked nor a repeat of a linked one")


@pytest.mark.parametrize("config", CONFIGS, ids=_name)
def test_the_current_position_in_the_wrong_bucket(config):
    state, _ = game(config)
    right = _bucket_of(config, state)
    # The bucket of as many stones with one more white one on 9x9; of one
    # stone more on 19x19, where the lists are not split by white stones.
    board = bb.board_np(np.asarray(state.stones), config.size)
    count, white = np.count_nonzero(board), np.count_nonzero(board == gojax.WHITE)
    wrong = int(_history.bucket_of(config, count, white + 1))
    if config.size == 19:
        assert wrong == right
        wrong = int(_history.bucket_of(config, count + 1, white))
    head = np.array(state.history_head)
    assert head[wrong] == -1
    head[wrong], head[right] = head[right], -1  # the whole list moves
    raises(
        config,
        state.replace(history_head=head),
        "the current position is not in the bucket of its stone counts",
    )


# --------------------------------------------------------------------------- batches


def test_a_batch_names_the_broken_games():
    config = POSITIONAL_9
    state, placed = game(config)
    batch = jax.tree.map(lambda x: np.stack([x] * 7), state)
    passes = np.zeros(7, np.int8)
    passes[[2, 6]] = 3
    with pytest.raises(InvariantError) as error:
        gojax.check_invariants(config, batch.replace(passes=passes), np.stack([placed] * 7))
    assert str(error.value).splitlines() == ["game 2: passes out of range", "game 6: passes out of range"]
    # Leading axes of any shape; at most five games are named per problem.
    grid = jax.tree.map(lambda x: x.reshape(7, 1, *x.shape[1:]), batch.replace(loser=np.full(7, 5, np.int8)))
    with pytest.raises(InvariantError) as error:
        gojax.check_invariants(config, grid)
    assert str(error.value).splitlines() == [f"game {g}: loser is not 0, 1 or 2" for g in range(5)]


def test_move_number_beyond_the_move_cap_from_the_empty_board():
    config = POSITIONAL_9
    state = jax.jit(functools.partial(gojax.step, config))(gojax.init(config), 40)
    broken = state.replace(move_number=np.int32(config.move_cap + 1))
    raises(config, broken, "move number beyond the move cap")
