"""Hand-checked rules of Go: captures, suicide, ko and superko cycles, scoring, game end.

Every position is an ASCII diagram (``X`` black, ``O`` white, ``.`` empty,
row 0 at the top, point ``row * N + col``); a lowercase letter other than
``x``/``o`` marks a named *empty* point used in the test. The expected results
are written from the rules of Go, never computed by gojax.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import re
import textwrap

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import jitted

import gojax

pytestmark = pytest.mark.usefixtures("rules_path")  # each test on the rules in C, then in XLA

# A handful of configs: each one compiles step / legal_action_mask once.
POSITIONAL = gojax.GoConfig(size=7)
SIMPLE = gojax.GoConfig(size=7, ko_rule="simple")
SITUATIONAL = gojax.GoConfig(size=7, ko_rule="situational")
SUICIDE_POSITIONAL = gojax.GoConfig(size=7, suicide=True)
SUICIDE_SITUATIONAL = gojax.GoConfig(size=7, ko_rule="situational", suicide=True)
SUICIDE_SIMPLE = gojax.GoConfig(size=7, ko_rule="simple", suicide=True)
CAPPED = gojax.GoConfig(size=7, max_moves=4)
KO_RULES = (SIMPLE, POSITIONAL, SITUATIONAL)

PASS = POSITIONAL.pass_action  # 49 on every 7x7 config
GOSTATE_FIELDS = [field.name for field in dataclasses.fields(gojax.GoState)]


def setup(config, diagram, to_play=gojax.BLACK):
    """State of a diagram and ``{letter: point}`` for its lowercase marks."""
    rows = [line.split() for line in textwrap.dedent(diagram).strip().splitlines()]
    size = len(rows)
    marks, clean = {}, []
    for r, row in enumerate(rows):
        cells = []
        for c, ch in enumerate(row):
            if ch.islower() and ch not in "xo":
                marks[ch] = r * size + c
                ch = "."
            cells.append(ch)
        clean.append(" ".join(cells))
    return gojax.from_ascii(config, "\n".join(clean), to_play), marks


def grid(config, state) -> np.ndarray:
    return np.asarray(jitted("board", config)(state))


def expect_board(config, state, diagram):
    text = "\n".join(
        " ".join("." if ch.islower() and ch not in "xo" else ch for ch in line.split())
        for line in textwrap.dedent(diagram).strip().splitlines()
    )
    np.testing.assert_array_equal(grid(config, state), gojax.parse_board(text, config.size))


def mask(config, state) -> np.ndarray:
    out = np.asarray(jitted("legal_action_mask", config)(state))
    assert out.shape == (config.num_actions,)
    return out


def step(config, state, action):
    return jitted("step", config)(state, action)


def play(config, state, *actions):
    """Plays legal actions one by one, checking each is in the mask and accepted."""
    for action in actions:
        assert mask(config, state)[action], f"action {action} should be legal"
        before = int(state.move_number)
        state = step(config, state, action)
        assert not bool(state.illegal_move), f"action {action} was rejected"
        assert int(state.move_number) == before + 1
    return state


def assert_rejected(config, state, action):
    """``action`` is not in the mask, and stepping it forfeits with the board untouched."""
    assert not mask(config, state)[action], f"action {action} should be illegal"
    after = step(config, state, action)
    mover = int(state.turn) + 1
    assert bool(after.illegal_move) and bool(after.terminated) and not bool(after.truncated)
    assert int(after.loser) == mover
    assert int(after.move_number) == int(state.move_number)
    np.testing.assert_array_equal(after.stones, state.stones)
    np.testing.assert_array_equal(after.captures, state.captures)
    assert int(jitted("winner", config)(after)) == 3 - mover
    expected = [-1.0, 1.0] if mover == 1 else [1.0, -1.0]
    np.testing.assert_array_equal(jitted("rewards", config)(after), expected)


def captures(state):
    return np.asarray(state.captures).tolist()


# --------------------------------------------------------------------------- captures


def test_single_stone_capture_in_the_centre():
    state, m = setup(
        POSITIONAL,
        """
        . . . . . . .
        . . . X . . .
        . . X O a . .
        . . . X . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
    )
    state = play(POSITIONAL, state, m["a"])
    expect_board(
        POSITIONAL,
        state,
        """
        . . . . . . .
        . . . X . . .
        . . X . X . .
        . . . X . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
    )
    assert captures(state) == [1, 0]
    centre = 2 * 7 + 3
    # White may not refill the hole (no liberty, captures nothing); black may.
    assert not mask(POSITIONAL, state)[centre]
    state = play(POSITIONAL, state, PASS)
    assert mask(POSITIONAL, state)[centre]


def test_one_move_captures_three_separate_chains():
    state, m = setup(
        POSITIONAL,
        """
        X O O a O X .
        . X X O X . .
        . . . X . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
    )
    # a has no liberty of its own: the move is legal only because it captures.
    state = play(POSITIONAL, state, m["a"])
    expect_board(
        POSITIONAL,
        state,
        """
        X . . X . X .
        . X X . X . .
        . . . X . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
    )
    assert captures(state) == [4, 0]
    legal = mask(POSITIONAL, state)
    # White to move: the two-stone hole has liberties, the single holes are suicide.
    assert legal[1] and legal[2]
    assert not legal[4] and not legal[7 + 3]
    gojax.check_invariants(POSITIONAL, state)


def test_white_captures_on_the_edge():
    state, m = setup(
        POSITIONAL,
        """
        . . O X a . .
        . . . O . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
        to_play=gojax.WHITE,
    )
    state = play(POSITIONAL, state, m["a"])
    expect_board(
        POSITIONAL,
        state,
        """
        . . O . O . .
        . . . O . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
    )
    assert captures(state) == [0, 1]
    assert int(state.turn) == 0
    assert not mask(POSITIONAL, state)[3]  # black: suicide
    state = play(POSITIONAL, state, PASS)
    assert mask(POSITIONAL, state)[3]  # white may fill its own eye


def test_capture_in_the_corner():
    state, m = setup(
        POSITIONAL,
        """
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . X
        . . . . . a O
        """,
    )
    state = play(POSITIONAL, state, m["a"])
    corner = 48
    assert grid(POSITIONAL, state)[6, 6] == gojax.EMPTY
    assert grid(POSITIONAL, state)[6, 5] == gojax.BLACK
    assert captures(state) == [1, 0]
    assert not mask(POSITIONAL, state)[corner]
    state = play(POSITIONAL, state, PASS)
    assert mask(POSITIONAL, state)[corner]
    state = play(POSITIONAL, state, corner)
    assert grid(POSITIONAL, state)[6, 6] == gojax.BLACK


@pytest.mark.parametrize("config", KO_RULES, ids=lambda c: c.ko_rule)
def test_snapback(config):
    # White's group has two liberties, p and q. Black throws in at p; white
    # captures the stone at q - and its whole group is left with the single
    # liberty p, so black takes eight stones back. Not a ko: legal under
    # every ko rule.
    state, m = setup(
        config,
        """
        X O O q p O X
        X X O O O O X
        . X X X X X X
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
    )
    state = play(config, state, m["p"])
    assert captures(state) == [0, 0]
    state = play(config, state, m["q"])
    assert captures(state) == [0, 1]
    assert grid(config, state)[0, 4] == gojax.EMPTY
    if config.ko_rule == "simple":
        assert int(state.ko_point) == -1  # the capturing stone joined a chain
    state = play(config, state, m["p"])
    assert captures(state) == [8, 1]
    expect_board(
        config,
        state,
        """
        X . . . X . X
        X X . . . . X
        . X X X X X X
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
    )


# --------------------------------------------------------------------------- suicide

SUICIDE_DIAGRAM = """
X X b O . . .
O O O . . . .
X . . . . . .
c X . . . . .
X . . . . . .
. . . . . O .
. . . . O a O
"""
# a: single-stone suicide for black, b: three-stone suicide for black,
# c: single-stone suicide for white.


@pytest.mark.parametrize("config", KO_RULES, ids=lambda c: c.ko_rule)
def test_suicide_is_illegal_when_not_allowed(config):
    state, m = setup(config, SUICIDE_DIAGRAM)
    assert_rejected(config, state, m["a"])
    assert_rejected(config, state, m["b"])
    white, _ = setup(config, SUICIDE_DIAGRAM, to_play=gojax.WHITE)
    assert_rejected(config, white, m["c"])
    # Every other empty point is fine for black.
    legal = mask(config, state)
    empty = grid(config, state).reshape(-1) == gojax.EMPTY
    expected = empty.copy()
    expected[[m["a"], m["b"]]] = False
    np.testing.assert_array_equal(legal[:-1], expected)


@pytest.mark.parametrize(
    "config", (SUICIDE_SIMPLE, SUICIDE_POSITIONAL, SUICIDE_SITUATIONAL), ids=lambda c: c.ko_rule
)
def test_multi_stone_suicide_removes_the_chain(config):
    state, m = setup(config, SUICIDE_DIAGRAM)
    state = play(config, state, m["b"])
    expect_board(
        config,
        state,
        """
        . . . O . . .
        O O O . . . .
        X . . . . . .
        . X . . . . .
        X . . . . . .
        . . . . . O .
        . . . . O . O
        """,
    )
    assert captures(state) == [0, 3]  # white is credited with black's three stones
    assert int(state.turn) == 1
    gojax.check_invariants(config, state, placed=[6, 7])


def test_single_stone_suicide_repeats_the_position_so_positional_superko_bans_it():
    config = SUICIDE_POSITIONAL
    state, m = setup(config, SUICIDE_DIAGRAM)
    assert mask(config, state)[m["b"]]  # a multi-stone suicide makes a new position
    assert_rejected(config, state, m["a"])  # a single-stone suicide does not


@pytest.mark.parametrize("config", (SUICIDE_SIMPLE, SUICIDE_SITUATIONAL), ids=lambda c: c.ko_rule)
def test_single_stone_suicide_is_legal_under_simple_and_situational(config):
    state, m = setup(config, SUICIDE_DIAGRAM)
    start = grid(config, state)
    state = play(config, state, m["a"])
    np.testing.assert_array_equal(grid(config, state), start)  # the stone is gone at once
    assert captures(state) == [0, 1]
    assert int(state.turn) == 1 and int(state.passes) == 0 and not bool(state.terminated)
    # White now answers with its own single-stone suicide: the position comes
    # back with black to move, which is where the game started.
    if config.ko_rule == "situational":
        assert_rejected(config, state, m["c"])
    else:
        state = play(config, state, m["c"])
        np.testing.assert_array_equal(grid(config, state), start)
        assert captures(state) == [1, 1]


@pytest.mark.parametrize(
    "config", (SUICIDE_SIMPLE, SUICIDE_POSITIONAL, SUICIDE_SITUATIONAL), ids=lambda c: c.ko_rule
)
def test_multi_stone_suicide_that_recreates_an_earlier_position(config):
    state, m = setup(
        config,
        """
        d e O . . . .
        O O O . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        . . . . . . .
        """,
    )
    start = grid(config, state)
    state = play(config, state, m["d"], PASS)
    # Black's second stone kills both: the start position again, white to move.
    if config.ko_rule == "positional":
        assert_rejected(config, state, m["e"])
    else:
        state = play(config, state, m["e"])
        np.testing.assert_array_equal(grid(config, state), start)
        assert captures(state) == [0, 2] and int(state.turn) == 1


# --------------------------------------------------------------------------- simple ko

KO_STONE = 2 * 7 + 2  # the white stone black takes at m

KO_DIAGRAM = """
. . . . . . .
. . X O . . .
. X O m O . .
. . X O . . .
. . . . . . .
. . . . . . .
. . . . . . .
"""


@pytest.mark.parametrize("config", KO_RULES, ids=lambda c: c.ko_rule)
def test_ko_immediate_recapture_is_banned(config):
    state, m = setup(config, KO_DIAGRAM)
    state = play(config, state, m["m"])
    assert captures(state) == [1, 0]
    assert grid(config, state)[2, 2] == gojax.EMPTY
    if config.ko_rule == "simple":
        assert int(state.ko_point) == KO_STONE
    assert_rejected(config, state, KO_STONE)


@pytest.mark.parametrize("config", KO_RULES, ids=lambda c: c.ko_rule)
def test_ko_retake_is_legal_after_a_threat_and_answer(config):
    state, m = setup(config, KO_DIAGRAM)
    threat, answer = 5 * 7 + 5, 5 * 7 + 4
    state = play(config, state, m["m"], threat, answer)
    if config.ko_rule == "simple":
        assert int(state.ko_point) == -1
    state = play(config, state, KO_STONE)
    assert captures(state) == [1, 1]
    assert grid(config, state)[2, 3] == gojax.EMPTY
    assert grid(config, state)[2, 2] == gojax.WHITE
    if config.ko_rule == "simple":
        assert int(state.ko_point) == m["m"]
    assert_rejected(config, state, m["m"])  # now black must find a threat


def test_simple_ko_ban_lifts_after_a_pass_and_two_passes_end_the_game():
    config = SIMPLE
    state, m = setup(config, KO_DIAGRAM)
    state = play(config, state, m["m"])
    assert int(state.ko_point) == KO_STONE
    state = play(config, state, PASS)
    assert int(state.ko_point) == -1 and int(state.passes) == 1
    assert not bool(state.terminated)
    state = play(config, state, PASS)
    assert bool(state.terminated) and not bool(state.truncated) and not bool(state.illegal_move)
    assert int(state.loser) == 0


# --------------------------------------------------------------------------- superko

TWO_KOS = """
. X O . . . .
X O a O . . .
. X O . . . .
. . . . . . .
. O X . . . .
O X b X . . .
. O X . . . .
"""
# The upper ko is black's to take (at a), the lower one white's (at b).


@pytest.mark.parametrize("config", KO_RULES, ids=lambda c: c.ko_rule)
def test_a_pass_separates_positional_from_situational_superko(config):
    state, m = setup(config, TWO_KOS)
    start = grid(config, state)
    upper_stone, lower_stone = 1 * 7 + 1, 5 * 7 + 1
    state = play(config, state, m["a"], m["b"], PASS)  # black takes, white takes, black passes
    assert captures(state) == [1, 1]
    state = play(config, state, upper_stone)  # white retakes the upper ko (ban lifted by the pass)
    assert captures(state) == [1, 2]
    # Black retaking the lower ko now recreates the starting position, but
    # with white to move - at the start black was to move.
    if config.ko_rule == "positional":
        assert_rejected(config, state, lower_stone)
    else:
        state = play(config, state, lower_stone)
        np.testing.assert_array_equal(grid(config, state), start)
        assert int(state.turn) == 1
        assert captures(state) == [2, 2]


SEND_TWO = """
r X p O . . .
X O O O . . .
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
"""
# Sending two, returning one: black plays p (two stones in atari), white takes
# both at r, black takes r back at the X point - the starting position again,
# now with white to move.


@pytest.mark.parametrize("config", KO_RULES, ids=lambda c: c.ko_rule)
def test_sending_two_returning_one(config):
    state, m = setup(config, SEND_TWO)
    start = grid(config, state)
    q = 1
    state = play(config, state, m["p"], m["r"])
    assert captures(state) == [0, 2]
    expect_board(config, state, "O . . O . . .\nX O O O . . .\n" + ". . . . . . .\n" * 5)
    if config.ko_rule == "positional":
        assert_rejected(config, state, q)  # would repeat the start position
        return
    state = play(config, state, q)
    np.testing.assert_array_equal(grid(config, state), start)
    assert captures(state) == [1, 2]
    if config.ko_rule == "simple":
        assert int(state.ko_point) == -1  # the retaking stone has two liberties: not a ko
    state = play(config, state, PASS)  # the start position, black to move, again
    if config.ko_rule == "situational":
        assert_rejected(config, state, m["p"])  # p would repeat (position after move 1, white to move)
        return
    # Under the simple ko rule the cycle goes on for ever.
    state = play(config, state, m["p"], m["r"], q, PASS, m["p"])
    assert captures(state) == [2, 4]


TRIPLE_KO = """
X O a O . . .
. X O . . . .
. . . . . . O
. . . . . O X
. . . . . X b
. X O . . . X
X O c O . . .
"""
# Three kos: a and c are black's to take, b is white's.


@pytest.mark.parametrize("config", KO_RULES, ids=lambda c: c.ko_rule)
def test_triple_ko_cycle(config):
    state, m = setup(config, TRIPLE_KO)
    start = grid(config, state)
    a_stone, b_stone, c_stone = 1, 3 * 7 + 6, 6 * 7 + 1
    # Each move takes a ko that was not just taken, so the simple ko rule
    # never objects; five moves make five new positions.
    cycle = [m["a"], m["b"], m["c"], a_stone, b_stone]
    state = play(config, state, *cycle)
    assert captures(state) == [3, 2]
    assert not np.array_equal(grid(config, state), start)
    # Black just retook at b_stone: white's immediate retake at b is banned by every rule.
    assert not mask(config, state)[m["b"]]
    # White's sixth capture (at the c stone) would bring back the start position, black to move.
    if config.ko_rule == "simple":
        assert int(state.ko_point) == m["b"]
        state = play(config, state, c_stone)
        np.testing.assert_array_equal(grid(config, state), start)
        assert int(state.turn) == 0 and captures(state) == [3, 3]
        state = play(config, state, *cycle)  # and around again
        assert captures(state) == [6, 5]
    else:
        assert_rejected(config, state, c_stone)


# --------------------------------------------------------------------------- scoring

SEKI = """
. X O . X O .
. X O . X O .
. X O X X O .
. X X O O O .
. . . X . O .
. . . X . O .
. . . X . O .
"""
# The white stones at the top of column C and the black chain beside them
# share the two liberties on column D: seki, those points are nobody's. Column
# E below row 4 is dame. Black: 12 stones + 13 territory; white: 12 + 7.


def test_area_counts_seki_and_dame_for_nobody():
    state, _ = setup(POSITIONAL, SEKI)
    np.testing.assert_array_equal(jitted("area", POSITIONAL)(state), [25, 19])
    assert float(jitted("score", POSITIONAL)(state)) == pytest.approx(25 - 19 - 7.5)


def test_filling_a_seki_liberty_is_self_atari():
    state, _ = setup(POSITIONAL, SEKI)
    shared = (0 * 7 + 3, 1 * 7 + 3)
    # Filling a shared liberty is a legal self-atari for either side; the
    # other side then captures.
    state = play(POSITIONAL, state, shared[0])
    assert captures(state) == [0, 0]
    state = play(POSITIONAL, state, shared[1])
    assert captures(state) == [0, 5]  # black's inner chain of four plus the stone that filled


@pytest.mark.parametrize(
    ("komi", "score", "winner", "reward"),
    [(7.5, -1.5, 2, [-1.0, 1.0]), (6.0, 0.0, 0, [0.0, 0.0]), (0.5, 5.5, 1, [1.0, -1.0])],
)
def test_result_after_two_passes(komi, score, winner, reward):
    scored = dataclasses.replace(POSITIONAL, komi=komi)  # same shapes: only komi differs
    state, _ = setup(POSITIONAL, SEKI)
    # While the game runs the rewards are zero, whatever the score.
    np.testing.assert_array_equal(jitted("rewards", scored)(state), [0.0, 0.0])
    state = play(POSITIONAL, state, PASS)
    np.testing.assert_array_equal(jitted("rewards", scored)(state), [0.0, 0.0])
    state = play(POSITIONAL, state, PASS)
    assert bool(state.terminated)
    assert float(jitted("score", scored)(state)) == score
    assert int(jitted("winner", scored)(state)) == winner
    np.testing.assert_array_equal(jitted("rewards", scored)(state), reward)


def test_empty_board_scores_minus_komi():
    state = gojax.init(POSITIONAL)
    np.testing.assert_array_equal(jitted("area", POSITIONAL)(state), [0, 0])
    assert float(jitted("score", POSITIONAL)(state)) == -7.5
    state = play(POSITIONAL, state, 24)  # one black stone owns the whole board
    np.testing.assert_array_equal(jitted("area", POSITIONAL)(state), [49, 0])


# --------------------------------------------------------------------------- game end


def test_two_consecutive_passes_end_the_game():
    config = POSITIONAL
    state = gojax.init(config)
    state = play(config, state, PASS)
    assert int(state.passes) == 1 and not bool(state.terminated)
    state = play(config, state, 10)  # a move resets the count
    assert int(state.passes) == 0
    state = play(config, state, PASS)
    assert int(state.passes) == 1 and not bool(state.terminated)
    state = play(config, state, PASS)
    assert int(state.passes) == 2 and bool(state.terminated) and not bool(state.truncated)
    assert int(state.loser) == 0 and not bool(state.illegal_move)
    assert int(state.move_number) == 4
    # A finished game no longer changes, even for an illegal action.
    for action in (11, PASS, -1):
        after = step(config, state, action)
        for name in state.__dataclass_fields__:
            np.testing.assert_array_equal(getattr(after, name), getattr(state, name), err_msg=name)


def test_move_cap_truncates():
    config = CAPPED
    state = gojax.init(config)
    state = play(config, state, 0, 48, PASS)
    assert not bool(state.truncated) and not bool(state.terminated)
    state = play(config, state, 42)
    assert int(state.move_number) == 4
    assert bool(state.truncated) and not bool(state.terminated)
    assert int(state.loser) == 0
    # The score would give white the game (komi), but a truncated game has no result.
    assert int(jitted("winner", config)(state)) == gojax.WHITE
    np.testing.assert_array_equal(jitted("rewards", config)(state), [0.0, 0.0])
    for action in (6, PASS, -1, 0):
        after = step(config, state, action)
        for name in state.__dataclass_fields__:
            np.testing.assert_array_equal(getattr(after, name), getattr(state, name), err_msg=name)


def test_second_pass_on_the_move_cap_terminates():
    config = CAPPED
    state = play(config, gojax.init(config), 0, 48, PASS, PASS)
    assert bool(state.terminated) and not bool(state.truncated)


def test_resignation():
    config = POSITIONAL
    state, _ = setup(config, SEKI)  # white is ahead on the board with komi
    resign = jitted("resign", config)
    state = play(config, state, PASS)
    resigned = resign(state)  # white resigns
    assert bool(resigned.terminated) and not bool(resigned.illegal_move)
    assert int(resigned.loser) == gojax.WHITE
    assert int(jitted("winner", config)(resigned)) == gojax.BLACK
    np.testing.assert_array_equal(jitted("rewards", config)(resigned), [1.0, -1.0])
    np.testing.assert_array_equal(resigned.stones, state.stones)
    again = resign(resigned)
    assert int(again.loser) == gojax.WHITE
    # Black resigning a fresh game loses it.
    fresh = resign(gojax.init(config))
    assert int(fresh.loser) == gojax.BLACK
    np.testing.assert_array_equal(jitted("rewards", config)(fresh), [-1.0, 1.0])


def test_reset_if_done_replaces_only_finished_games():
    """Under vmap: terminated and truncated games become ``init``, a live game
    (and a finished one's neighbour in the batch) stays as it is."""
    config = POSITIONAL
    live, _ = setup(config, SEKI)
    terminated = play(config, play(config, live, PASS), PASS)
    truncated = live.replace(truncated=jnp.bool_(True))
    assert bool(terminated.terminated) and not bool(live.done)
    batch = jax.tree.map(lambda *games: jnp.stack(games), live, terminated, truncated, live)
    reset = jax.jit(jax.vmap(functools.partial(gojax.reset_if_done, config)))(batch)
    fresh = gojax.init(config)
    for index, expected in enumerate([live, fresh, fresh, live]):
        game = jax.tree.map(lambda x, i=index: x[i], reset)
        for name, got, want in zip(
            GOSTATE_FIELDS, jax.tree.leaves(game), jax.tree.leaves(expected), strict=True
        ):
            np.testing.assert_array_equal(got, want, err_msg=f"game {index}: {name}")


@pytest.mark.parametrize("action", [-1, PASS + 1, 1000, -50])
def test_out_of_range_action_forfeits(action):
    config = POSITIONAL
    state = play(config, gojax.init(config), 24)
    after = step(config, state, action)
    assert bool(after.illegal_move) and bool(after.terminated)
    assert int(after.loser) == gojax.WHITE
    np.testing.assert_array_equal(after.stones, state.stones)
    assert int(after.move_number) == 1


def test_playing_on_an_occupied_point_forfeits():
    state, _ = setup(POSITIONAL, SEKI, to_play=gojax.WHITE)
    assert_rejected(POSITIONAL, state, 1)  # black stone
    assert_rejected(POSITIONAL, state, 2)  # own stone
    legal = mask(POSITIONAL, state)
    assert not legal[:-1][grid(POSITIONAL, state).reshape(-1) != gojax.EMPTY].any()
    assert legal[PASS]


# --------------------------------------------------------------------------- every size


def _sequence(config, actions):
    """Plays ``actions`` from the empty board: boards, captures after each; masks at start and end."""
    start = gojax.init(config)

    def body(state, action):
        state = gojax.step(config, state, action)
        return state, (gojax.board(config, state), state.captures, state.illegal_move)

    final, trail = jax.lax.scan(body, start, actions)
    both = jax.tree.map(lambda a, b: jnp.stack([a, b]), start, final)
    masks = jax.vmap(functools.partial(gojax.legal_action_mask, config))(both)
    return final, trail, masks


@pytest.mark.parametrize("size", range(2, 26))
def test_every_board_size(size):
    n, points = size, size * size
    # The simple ko rule keeps the compile cheap (superko on the largest board is tested below).
    config = gojax.GoConfig(size=n, ko_rule="simple")
    near, corner, beside = (n - 2) * n + (n - 1), points - 1, points - 2
    final, (boards, caps, illegal), masks = jax.jit(functools.partial(_sequence, config))(
        jnp.array([near, corner, beside], jnp.int32)
    )
    masks = np.asarray(masks)
    assert masks.shape == (2, points + 1)
    assert masks[0].all()  # the empty board: every point and pass
    assert not np.asarray(illegal).any()
    expected = np.zeros((n, n), np.int8)
    expected[n - 2, n - 1] = gojax.BLACK
    np.testing.assert_array_equal(boards[0], expected)
    expected[n - 1, n - 1] = gojax.WHITE
    np.testing.assert_array_equal(boards[1], expected)
    expected[n - 1, n - 2] = gojax.BLACK
    expected[n - 1, n - 1] = gojax.EMPTY  # captured in the far corner
    np.testing.assert_array_equal(boards[2], expected)
    np.testing.assert_array_equal(caps, [[0, 0], [0, 0], [1, 0]])
    # White to move: the far corner is suicide, every other empty point is
    # legal (on 2x2 the other empty point is suicide too); pass always is.
    legal = (expected.reshape(-1) == gojax.EMPTY) & (np.arange(points) != corner)
    if n == 2:
        legal[:] = False
    np.testing.assert_array_equal(masks[1][:-1], legal)
    assert masks[1][-1]
    # ASCII round trip of the rendered board (coordinates and last move mark included).
    text = gojax.render(config, final)
    assert "(X)" in text
    back = gojax.from_ascii(config, text, to_play=gojax.WHITE)
    np.testing.assert_array_equal(np.asarray(gojax.board(config, back)), expected)
    plain = gojax.render(config, back, coordinates=False)
    assert plain == "\n".join(" ".join(".XO"[v] for v in row) for row in expected)


def test_superko_on_the_largest_board():
    config = gojax.GoConfig(size=25)  # the default rules: positional superko
    rows = ["." * 25] * 21 + ["." * 22 + "XO.", "." * 21 + "XO.O", "." * 22 + "XO.", "." * 25]
    state = gojax.from_ascii(config, "\n".join(rows))
    take, stone = 22 * 25 + 23, 22 * 25 + 22  # black takes the ko; the white stone it captures
    assert mask(config, state)[take]
    state = play(config, state, take)
    assert captures(state) == [1, 0] and grid(config, state)[22, 22] == gojax.EMPTY
    assert_rejected(config, state, stone)
    legal = mask(config, state)
    assert legal.shape == (626,) and legal.sum() == 625 - 7 - 1 + 1  # empties but the ko, plus pass
    state = play(config, state, 0, 624, stone)  # threat, answer, retake at last
    assert captures(state) == [1, 1]
    assert_rejected(config, state, take)


def test_gtp_coordinates_every_size():
    for n in range(2, 26):
        config = gojax.GoConfig(size=n, ko_rule="simple")
        points, last = n * n, gojax.COLUMNS[n - 1]
        assert gojax.from_gtp(config, "A1") == (n - 1) * n
        assert gojax.from_gtp(config, f"A{n}") == 0
        assert gojax.from_gtp(config, f"{last}1") == points - 1
        assert gojax.from_gtp(config, f"{last.lower()}{n}") == n - 1
        assert gojax.from_gtp(config, "pass") == points
        assert gojax.from_gtp(config, "PASS") == points
        assert gojax.to_gtp(config, points) == "pass"
        assert gojax.to_gtp(config, 0) == f"A{n}"
        assert gojax.to_gtp(config, points - 1) == f"{last}1"
        names = [gojax.to_gtp(config, a) for a in range(points)]
        assert len(set(names)) == points and not any(name.startswith("I") for name in names)
        assert [gojax.from_gtp(config, name) for name in names] == list(range(points))
        for bad in ("I5", "Z99", "", "A0", f"A{n + 1}", "5A", "pas"):
            with pytest.raises(ValueError, match=re.escape(repr(bad))):
                gojax.from_gtp(config, bad)
        with pytest.raises(ValueError, match=re.escape("3.5")):
            gojax.from_gtp(config, 3.5)
        with pytest.raises(ValueError, match=re.escape("3.5")):
            gojax.to_gtp(config, 3.5)
        for bad in (-1, points + 1):
            with pytest.raises(ValueError, match=str(bad)):
                gojax.to_gtp(config, bad)
    # The column after H is J: I is skipped.
    nine = gojax.GoConfig(size=9)
    assert gojax.to_gtp(nine, 8) == "J9" and gojax.from_gtp(nine, "J9") == 8
    assert gojax.to_gtp(gojax.GoConfig(size=25), 24) == "Z25"
    assert gojax.from_gtp(gojax.GoConfig(size=19), "D4") == 15 * 19 + 3


def test_diagram_round_trip():
    state, _ = setup(POSITIONAL, SEKI)
    text = "\n".join(" ".join(line.split()) for line in SEKI.strip().splitlines())
    assert gojax.render(POSITIONAL, state, coordinates=False) == text
    back = gojax.from_ascii(POSITIONAL, gojax.render(POSITIONAL, state), to_play=gojax.WHITE)
    np.testing.assert_array_equal(back.stones, state.stones)
    assert int(back.turn) == 1


# --------------------------------------------------------------------------- config


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"size": 1}, "1"),
        ({"size": 26}, "26"),
        ({"size": "9"}, "'9'"),
        ({"ko_rule": "japanese"}, "'japanese'"),
        ({"komi": "x"}, "'x'"),
        ({"komi": math.nan}, "nan"),
        ({"komi": math.inf}, "inf"),
        ({"max_moves": 0}, "0"),
        ({"suicide": "yes"}, "'yes'"),
    ],
)
def test_config_validation(kwargs, named):
    with pytest.raises(ValueError) as error:
        gojax.GoConfig(**kwargs)
    message = str(error.value)
    assert named in message
    assert next(iter(kwargs)) in message


def test_komi_as_data_scores_as_a_static_komi_with_one_trace():
    """GoConfig.with_komi(array) inside a jitted function: one compile, every komi scored exactly."""
    config = gojax.GoConfig(size=5, komi=0.5)
    drawn = gojax.from_ascii(config, ". X . O .\n" * 5)  # 10 points each: komi decides
    ended = gojax.step(config, gojax.step(config, drawn, config.pass_action), config.pass_action)
    games = jax.tree.map(lambda a, b: jnp.stack([a, b]), ended, drawn)
    traces = []

    @jax.jit
    def results(games, komi):
        traces.append(1)
        c = config.with_komi(komi)
        score_if_ended = functools.partial(gojax._core.scoring.score_if_ended, c)
        pooled = jax.vmap(score_if_ended)(games, jnp.array([True, False]))
        one = jax.tree.map(lambda x: x[0], games)
        return gojax.score(c, one), gojax.winner(c, one), gojax.rewards(c, one), pooled

    for komi in (0.5, -0.5, 0.0, 6.5, -7.5):
        static = config.with_komi(komi)
        score, winner, rewards, pooled = results(games, jnp.float32(komi))
        assert float(score) == float(gojax.score(static, ended)) == -komi
        assert int(winner) == int(gojax.winner(static, ended))
        np.testing.assert_array_equal(rewards, gojax.rewards(static, ended))
        assert pooled.tolist() == [-komi, 0.0]
    assert len(traces) == 1
    with pytest.raises(TypeError, match="unhashable"):  # never a static argument
        jax.jit(lambda k: hash(config.with_komi(k)))(jnp.float32(1))
    with pytest.raises(ValueError, match=r"GoConfig\.komi as an array"):
        config.with_komi(jnp.zeros(2))
    assert config.with_komi(6.5) == gojax.GoConfig(size=5, komi=6.5)
