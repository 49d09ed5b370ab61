"""KataGo v7-style planes: layout, every plane group on hand-read positions, the move history
(derived and carried), the globals per rule set, equivariance under the 8 symmetries, vmap
against one game, and the KataGo layout against the compact one.

Diagrams: ``X`` black, ``O`` white, ``.`` empty, row 0 at the top; points ``(row, col)``.
Compile time dominates: the full preset is compiled twice (one game, compact layout; a
vmapped batch of 8, KataGo layout and area), everything else is cheap.
"""

from __future__ import annotations

import functools
import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import jitted, stack_states
from conftest import points_of as points

import gojax
from gojax import features as F
from gojax import symmetry as sym
from gojax.features import KATAGO_CHANNELS as CH
from gojax.features import KATAGO_GLOBALS as GL
from gojax.features import KATAGO_V7_CHANNELS as V7
from gojax.features import KATAGO_V7_GLOBALS as V7G

CONFIG = gojax.GoConfig(size=9, komi=7.5)  # positional superko
N = 9
PASS = CONFIG.pass_action


def pt(r, c):
    return r * N + c


def fns():
    return {
        "planes": jitted(F.katago_planes, CONFIG),
        "step": jitted("step", CONFIG),
        "push": jitted(F.history_push, CONFIG),
        "push_moves": jitted(F.move_history_push, CONFIG),
        "legal": jitted("legal_action_mask", CONFIG),
    }


def play(actions, start=None):
    """(state, board history, move history) after ``actions`` (each must be legal)."""
    f = fns()
    state = gojax.init(CONFIG) if start is None else start
    hist, moves = F.history_init(CONFIG, state), F.move_history_init(CONFIG, state)
    for action in actions:
        state = f["step"](state, action)
        assert not bool(state.illegal_move), action
        hist, moves = f["push"](hist, state), f["push_moves"](moves, state)
    return state, hist, moves


def features(state, hist, moves):
    spatial, globals_ = fns()["planes"](state, hist, moves)
    return np.asarray(spatial), np.asarray(globals_)


# --------------------------------------------------------------------------- layout


def test_layouts():
    assert CH.num_channels == 18 and GL.num_features == 11
    assert (CH.on_board, CH.own, CH.opponent, CH.ko_banned, CH.ladder_moves) == (0, 1, 2, 6, 15)
    assert (CH.liberties, CH.last_moves, CH.ladderable) == (slice(3, 6), slice(7, 12), slice(12, 15))
    assert (CH.area_own, CH.area_opponent) == (16, 17)
    # KataGo's own indices (nninputs.cpp, fillRowV7).
    assert V7.num_channels == 22 and V7G.num_features == 19
    assert (V7.on_board, V7.own, V7.opponent, V7.ko_banned, V7.ladder_moves) == (0, 1, 2, 6, 17)
    assert (V7.liberties, V7.last_moves, V7.ladderable) == (slice(3, 6), slice(9, 14), slice(14, 17))
    assert (V7.area_own, V7.area_opponent) == (18, 19)
    assert (GL.passes, GL.komi, GL.superko, GL.superko_kind, GL.suicide) == (slice(0, 5), 5, 6, 7, 8)
    assert (GL.pass_ends_game, GL.komi_parity) == (9, 10)
    assert (V7G.passes, V7G.komi, V7G.superko, V7G.superko_kind, V7G.suicide) == (slice(0, 5), 5, 6, 7, 8)
    assert (V7G.pass_ends_game, V7G.komi_parity) == (14, 18)


def test_bad_options():
    state = gojax.init(CONFIG)
    hist = F.history_init(CONFIG, state)
    with pytest.raises(ValueError, match="layout"):
        F.katago_planes(CONFIG, state, hist, layout="nchw")
    with pytest.raises(ValueError, match="area"):
        F.katago_planes(CONFIG, state, hist, area="territory")
    with pytest.raises(ValueError, match="chunk"):
        F.katago_planes(CONFIG, state, hist, ladder_chunk=0)
    with pytest.raises(ValueError, match="layout"):
        F.katago_globals(CONFIG, state, hist, layout="v8")


# --------------------------------------------------------------------------- hand positions

# The basic ladder, reached by moves; white to move:
#    r0  . . . . . . X X X
#    r1  . . O . . . . . .
#    r2  . O X . . . . . .
#    r3  . O . . . . . . .
# Black (2,2) has 2 liberties; white (2,3) ataris it and the runner zig-zags down to the edge
# and dies (tests/test_ladder.py reads it move by move); white (3,2) lets it out.
MOVES_A = [pt(2, 2), pt(1, 2), pt(0, 8), pt(2, 1), pt(0, 7), pt(3, 1), pt(0, 6)]


def test_basic_ladder_position():
    state, hist, moves = play(MOVES_A)
    spatial, globals_ = features(state, hist, moves)
    assert spatial.shape == (N, N, 18) and spatial.dtype == np.float32
    assert spatial[..., CH.on_board].all()
    assert points(spatial[..., CH.own]) == {(1, 2), (2, 1), (3, 1)}  # white moves
    assert points(spatial[..., CH.opponent]) == {(2, 2), (0, 6), (0, 7), (0, 8)}
    libs = spatial[..., CH.liberties]
    # (2,2): 2 liberties; (1,2): (0,2), (1,1), (1,3); the others have 4 or 5.
    assert [points(libs[..., i]) for i in range(3)] == [set(), {(2, 2)}, {(1, 2)}]
    assert not spatial[..., CH.ko_banned].any()
    recent = spatial[..., CH.last_moves]
    assert [points(recent[..., i]) for i in range(5)] == [{(0, 6)}, {(3, 1)}, {(0, 7)}, {(2, 1)}, {(0, 8)}]
    ladder = spatial[..., CH.ladderable]
    assert points(ladder[..., 0]) == {(2, 2)}
    assert points(ladder[..., 1]) == {(2, 2)}  # before black (0,6): the same ladder
    # Before white (3,1), black (2,2) extends to 3 liberties whichever side white ataris.
    assert points(ladder[..., 2]) == set()
    assert points(spatial[..., CH.ladder_moves]) == {(2, 3)}
    assert not spatial[..., CH.area_own].any() and not spatial[..., CH.area_opponent].any()
    # Globals: no pass; white to move sees +7.5; positional superko; no suicide; on 81 points
    # (odd) the drawable komis are odd: 7.5 is 0.5 above 7, so the wave is 1 - 0.5.
    np.testing.assert_allclose(globals_, [0, 0, 0, 0, 0, 7.5 / 20, 1, 0.5, 0, 0, 0.5])


def test_runner_in_atari_is_ladderable_now_and_before():
    # White (2,3) ataris; black (2,2) (the mover's chain) can only extend at (3,2) into the
    # ladder: ladderable now, and (with 2 liberties) 1 and 2 moves ago.
    state, hist, moves = play([*MOVES_A, pt(2, 3)])
    spatial, _ = features(state, hist, moves)
    ladder = spatial[..., CH.ladderable]
    assert [points(ladder[..., i]) for i in range(3)] == [{(2, 2)}, {(2, 2)}, {(2, 2)}]
    assert points(spatial[..., CH.liberties][..., 0]) == {(2, 2)}
    assert points(spatial[..., CH.last_moves][..., 0]) == {(2, 3)}
    assert not spatial[..., CH.ladder_moves].any()  # no white chain with 2 liberties


# White to move. Black (0,0) is in atari: extending at (1,0) leaves one liberty, (2,0), so it
# is ladderable. Black (4,4) is in atari too, but with black to move (KataGo reads a chain in
# atari with its owner to move) it extends at (5,4) to 3 liberties: not ladderable, though
# white could simply capture it now.
ATARIS = """
X O . . . . . . .
. O . . . . . . .
. . . . . . . . .
. . . . O . . . .
. . . O X O . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
"""


def test_chains_in_atari_are_read_with_their_owner_to_move():
    state = gojax.from_ascii(CONFIG, ATARIS, gojax.WHITE)
    spatial, globals_ = features(state, F.history_init(CONFIG, state), F.move_history_init(CONFIG, state))
    ladder = spatial[..., CH.ladderable]
    # No history: the "ago" planes repeat the board (KataGo uses the current board).
    assert [points(ladder[..., i]) for i in range(3)] == [{(0, 0)}] * 3
    assert points(spatial[..., CH.liberties][..., 0]) == {(0, 0), (4, 4)}
    assert not spatial[..., CH.last_moves].any() and not globals_[GL.passes].any()


# Black to move. Black (2,2) is in atari (liberty (2,3)), but white (1,2), touching it, is in
# atari too (liberty (0,2)): black escapes by capturing, so (2,2) is not ladderable. Read with
# white to move, white (1,2) escapes the same way (it can capture (2,2)). White (2,1) has 2
# liberties, but either black atari lets it capture (2,2). Nothing is ladderable.
COUNTER = """
. X . X . . . . .
. X O X . . . . .
. O X . . . . . .
. . O . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
"""


def test_counter_capture_is_an_escape():
    state = gojax.from_ascii(CONFIG, COUNTER, gojax.BLACK)
    spatial, _ = features(state, F.history_init(CONFIG, state), F.move_history_init(CONFIG, state))
    assert points(spatial[..., CH.liberties][..., 0]) == {(1, 2), (2, 2)}
    assert points(spatial[..., CH.liberties][..., 1]) == {(2, 1)}
    assert not spatial[..., CH.ladderable].any()
    assert not spatial[..., CH.ladder_moves].any()


# A ko: black's (1,2) has just taken white's (1,1). White to move may not retake at (1,1)
# (ko-banned: empty, it would capture, so no suicide, yet illegal). White at (0,0) would be a
# suicide (black (0,1) keeps the liberty (1,1)): illegal but not a ko ban.
KO_SETUP = """
. X O . . . . . .
X O . O . . . . .
. X O . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
"""


def test_ko_banned_point():
    start = gojax.from_ascii(CONFIG, KO_SETUP, gojax.BLACK)
    state, hist, moves = play([pt(1, 2)], start)
    assert int(state.ko_point) == pt(1, 1)
    spatial, _ = features(state, hist, moves)
    assert points(spatial[..., CH.ko_banned]) == {(1, 1)}
    assert not np.asarray(fns()["legal"](state))[pt(0, 0)]  # the suicide point: illegal, not marked
    # One move known (the setup is the start of the history).
    recent = spatial[..., CH.last_moves]
    assert points(recent[..., 0]) == {(1, 2)} and not recent[..., 1:].any()


def test_passes_and_the_end_of_the_game():
    # B (4,4), W (2,2), B pass, W (6,6), B pass: white to move.
    state, hist, moves = play([pt(4, 4), pt(2, 2), PASS, pt(6, 6), PASS])
    spatial, globals_ = features(state, hist, moves)
    recent = spatial[..., CH.last_moves]
    assert [points(recent[..., i]) for i in range(5)] == [set(), {(6, 6)}, set(), {(2, 2)}, {(4, 4)}]
    np.testing.assert_array_equal(globals_[GL.passes], [1, 0, 1, 0, 0])
    assert globals_[GL.pass_ends_game] == 1
    # White passes too: the game is over and KataGo hides the history.
    state, hist, moves = play([pt(4, 4), pt(2, 2), PASS, pt(6, 6), PASS, PASS])
    assert bool(state.terminated)
    spatial, globals_ = features(state, hist, moves)
    assert not spatial[..., CH.last_moves].any()
    assert not globals_[GL.passes].any() and globals_[GL.pass_ends_game] == 0
    assert globals_[GL.komi] == -7.5 / 20  # black to move


# Black's corner group has two eyes, (0,0) and (0,2): pass-alive, with that territory.
ALIVE = """
. X . X O . . . .
X X X X O . . . .
O O O O O . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
. . . . . . . . .
"""


@pytest.mark.parametrize("to_play", [gojax.BLACK, gojax.WHITE])
def test_area_planes_follow_the_mover(to_play):
    state = gojax.from_ascii(CONFIG, ALIVE, to_play)
    spatial, _ = features(state, F.history_init(CONFIG, state), F.move_history_init(CONFIG, state))
    black_area = {(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2), (1, 3)}
    own, other = spatial[..., CH.area_own], spatial[..., CH.area_opponent]
    if to_play == gojax.BLACK:
        assert points(own) == black_area and not other.any()
    else:
        assert points(other) == black_area and not own.any()


# --------------------------------------------------------------------------- move history


def test_last_moves_derived_from_the_board_history():
    rng = np.random.default_rng(7)
    f = fns()
    last = jax.jit(functools.partial(F.last_moves, CONFIG))
    state = gojax.init(CONFIG)
    hist, moves = F.history_init(CONFIG, state), F.move_history_init(CONFIG, state)
    played = []
    for t in range(70):
        legal = np.flatnonzero(np.asarray(f["legal"](state))[:PASS])
        action = PASS if t in (9, 17) else int(rng.choice(legal))
        state = f["step"](state, action)
        hist, moves = f["push"](hist, state), f["push_moves"](moves, state)
        played.insert(0, action)
        want = (played + [-1] * 5)[:5]
        np.testing.assert_array_equal(last(state, hist, moves), want, err_msg=f"move {t}")
        np.testing.assert_array_equal(last(state, hist, None), want, err_msg=f"derived, move {t}")
    assert int(state.captures.sum()) > 0  # captures happened on the way


def test_a_suicide_reads_as_a_pass_without_a_move_history():
    # Under the suicide rule white played (0,0), a suicide that removed its own stone (the
    # board did not change), then black played (2,2) = 12: white to move, 2 moves known.
    config = gojax.GoConfig(size=5, ko_rule="simple", suicide=True)
    before = ". X . . .\nX . . . .\n. . . . .\n. . . . .\n. . . . ."
    after = ". X . . .\nX . . . .\n. . X . .\n. . . . .\n. . . . ."
    start = gojax.from_ascii(config, before, gojax.WHITE)
    state = gojax.from_ascii(config, after, gojax.WHITE)
    state = state.replace(move_number=jnp.int32(2), last_move=jnp.int16(12))
    hist = F.history_init(config, start)
    hist = F.history_push(config, F.history_push(config, hist, start), state)
    moves = F.MoveHistory(actions=jnp.asarray([12, 0, -1, -1, -1], jnp.int16))
    np.testing.assert_array_equal(F.last_moves(config, state, hist, moves), [12, 0, -1, -1, -1])
    np.testing.assert_array_equal(F.last_moves(config, state, hist), [12, 25, -1, -1, -1])
    pushed = F.move_history_push(
        config, F.move_history_init(config, start), state.replace(last_move=jnp.int16(0))
    )
    np.testing.assert_array_equal(pushed.actions, [0, -1, -1, -1, -1])


# --------------------------------------------------------------------------- globals


@pytest.mark.parametrize(
    ("ko_rule", "suicide", "expected"),
    [("simple", False, (0, 0, 0)), ("positional", True, (1, 0.5, 1)), ("situational", False, (1, -0.5, 0))],
)
def test_rule_globals(ko_rule, suicide, expected):
    config = gojax.GoConfig(size=5, komi=6.5, ko_rule=ko_rule, suicide=suicide)
    state = gojax.init(config)
    globals_ = np.asarray(F.katago_globals(config, state, F.history_init(config, state)))
    np.testing.assert_allclose(globals_[[GL.superko, GL.superko_kind, GL.suicide]], expected)
    v7 = np.asarray(F.katago_globals(config, state, F.history_init(config, state), layout="katago"))
    assert v7.shape == (19,)
    np.testing.assert_allclose(v7[[6, 7, 8]], expected)
    kept = [*range(9), 14, 18]
    np.testing.assert_array_equal(v7[kept], globals_)
    assert not np.delete(v7, kept).any()


@pytest.mark.parametrize(
    ("size", "komi", "black", "white"),
    [
        # 25 points (odd): drawable komis are odd. White 6.5: 5 + 1.5 -> wave 1.5 - 2 = -0.5;
        # black -6.5: -7 + 0.5 -> 1 - 0.5 = 0.5.
        (5, 6.5, 0.5, -0.5),
        # 16 points (even): drawable komis are even. White 7: 6 + 1 -> 0; black -7: -8 + 1 -> 0.
        (4, 7.0, 0.0, 0.0),
        # White 0.25 -> 0.25 (rising edge); black -0.25: -2 + 1.75 -> 1.75 - 2 = -0.25.
        (4, 0.25, -0.25, 0.25),
    ],
)
def test_komi_and_its_parity_wave(size, komi, black, white):
    config = gojax.GoConfig(size=size, komi=komi, ko_rule="simple")
    empty = np.zeros((size, size), np.int8)
    g_black, g_white = (
        np.asarray(F.katago_globals(config, state, F.history_init(config, state)))
        for state in (gojax.from_board(config, empty, colour) for colour in (gojax.BLACK, gojax.WHITE))
    )
    np.testing.assert_allclose([g_black[GL.komi], g_white[GL.komi]], [-komi / 20, komi / 20])
    np.testing.assert_allclose([g_black[GL.komi_parity], g_white[GL.komi_parity]], [black, white], atol=1e-6)


def test_komi_is_clamped_to_the_board_area():
    config = gojax.GoConfig(size=3, komi=100.0, ko_rule="simple")
    state = gojax.init(config)
    globals_ = np.asarray(F.katago_globals(config, state, F.history_init(config, state)))
    assert globals_[GL.komi] == pytest.approx(-(9 + 20) / 20)


# --------------------------------------------------------------------------- symmetries, vmap, layouts


def test_equivariance_vmap_and_the_katago_layout():
    """8 copies of a random game, each played through one symmetry; planes in the KataGo
    layout and area, vmapped. Checks: (1) copy k's planes are copy 0's transformed by k and
    the globals agree; (2) each copy's planes equal the single-game compact planes on the
    KataGo indices, the area planes equal KataGo's area map, the omitted channels are zero."""
    f = fns()
    rng = np.random.default_rng(11)
    planes8 = jax.jit(jax.vmap(functools.partial(F.katago_planes, CONFIG, layout="katago", area="katago")))
    area_map = jax.jit(
        functools.partial(
            F.pass_alive_area,
            CONFIG,
            safe_big_territories=True,
            unsafe_big_territories=True,
            non_pass_alive_stones=True,
        )
    )
    every = jnp.arange(CONFIG.num_actions)
    action_maps = np.stack([np.asarray(sym.transform_action(CONFIG, k, every)) for k in range(8)])

    games = [(gojax.init(CONFIG), None, None) for _ in range(8)]
    games = [(s, F.history_init(CONFIG, s), F.move_history_init(CONFIG, s)) for s, _, _ in games]
    seen = np.zeros(3)
    for t in range(52):
        legal = np.flatnonzero(np.asarray(f["legal"](games[0][0]))[:PASS])
        action = PASS if t == 44 else int(rng.choice(legal))
        games = [
            (
                state := f["step"](s, int(action_maps[k, action])),
                f["push"](h, state),
                f["push_moves"](m, state),
            )
            for k, (s, h, m) in enumerate(games)
        ]
        if t not in (30, 45, 51):
            continue
        batch = stack_states(games)
        spatial, globals_ = (np.asarray(x) for x in planes8(*batch))
        assert spatial.shape == (8, N, N, 22) and globals_.shape == (8, 19)
        for k in range(1, 8):
            want = np.asarray(sym.transform_board(k, spatial[0]))
            np.testing.assert_array_equal(spatial[k], want, err_msg=f"move {t}, symmetry {k}")
            np.testing.assert_array_equal(globals_[k], globals_[0])
        for k in (0, 5):
            compact, compact_globals = features(*games[k])
            kept = [i for i in range(22) if i not in (7, 8, 18, 19, 20, 21)]
            np.testing.assert_array_equal(spatial[k][..., kept], np.delete(compact, [16, 17], axis=-1))
            np.testing.assert_array_equal(globals_[k][[*range(9), 14, 18]], compact_globals)
            assert not spatial[k][..., [7, 8, 20, 21]].any()
            owner = np.asarray(area_map(games[k][0]))
            mover = int(gojax.to_play(CONFIG, games[k][0]))
            np.testing.assert_array_equal(spatial[k][..., V7.area_own], owner == mover)
            np.testing.assert_array_equal(spatial[k][..., V7.area_opponent], owner == 3 - mover)
        seen += [
            spatial[0][..., V7.ladderable].sum() + spatial[0][..., V7.ladder_moves].sum(),
            spatial[0][..., V7.liberties].sum(),
            spatial[0][..., V7.area_own].sum() + spatial[0][..., V7.area_opponent].sum(),
        ]
    assert (seen > 0).all(), seen  # the positions do exercise ladders, liberties and area


# --------------------------------------------------------------------------- the history's ko points


def test_ko_after_reads_the_engines_ko_point_off_two_boards():
    """The ko point a history board is read with: as ``gojax.step`` set it, on random 5x5 games."""
    from conftest import random_game

    from gojax.features.ladders._katago import ko_after

    config = gojax.GoConfig(size=5, komi=0.5, ko_rule="simple", max_moves=200)
    derive = jax.jit(functools.partial(ko_after, config))
    rng = np.random.default_rng(5)
    kos = 0
    for _ in range(6):
        states, _ = random_game(config, rng, fill_own_eyes=False)
        for before, after in itertools.pairwise(states):
            if bool(after.done):
                break
            mover = int(before.turn)
            assert int(derive(after.stones, before.stones, mover)) == int(after.ko_point)
            kos += int(after.ko_point) >= 0
    assert kos >= 5, f"only {kos} kos in the sample"


def test_env_katago_observation_from_the_previous_one_is_the_stateless_one():
    """``GoEnv`` reads only the board now for ladders and takes the earlier boards' from its last
    observation: the same planes as :func:`katago_planes` from the game and its history, over
    random 5x5 games with resets, kos and ladders on the history boards."""
    from gojax.env import GoEnv, auto_reset
    from gojax.features.ladders._katago import ko_after

    config = gojax.GoConfig(size=5, komi=0.5, ko_rule="simple", max_moves=60)
    env = GoEnv(config, observation="katago")
    batch = 16
    step = jax.jit(jax.vmap(auto_reset(env.step, env.init)))
    observe = jax.jit(jax.vmap(env.observe))

    def board_ko(game, history):  # the ko point of the board one move ago
        return ko_after(config, history.stones[1], history.stones[2], game.turn.astype(jnp.int32))

    history_ko = jax.jit(jax.vmap(board_ko))
    keys = jax.random.split(jax.random.PRNGKey(0), batch)
    state = jax.jit(jax.vmap(env.init))(keys)
    rng = np.random.default_rng(11)
    resets = history_kos = ladders_ago = 0
    for t in range(90):
        mask = np.asarray(state.legal_action_mask)
        points = [np.flatnonzero(m[:-1]) for m in mask]  # random legal points; a pass when none
        actions = jnp.asarray([rng.choice(p) if p.size else config.pass_action for p in points])
        state = step(state, actions, jax.random.split(jax.random.PRNGKey(t), batch))
        carried, stateless = state.observation, observe(state)
        for got, want in zip(carried, stateless, strict=True):
            np.testing.assert_array_equal(np.asarray(got), np.asarray(want))
        game, planes = state._game, np.asarray(carried[0])
        moves = np.asarray(game.move_number)
        resets += int(np.sum(moves == 0))
        known = (moves >= 2) & ~np.asarray(game.done)
        history_kos += int(np.sum(known & (np.asarray(history_ko(game, state._history)) >= 0)))
        ladders_ago += int(np.sum(planes[..., CH.ladderable][..., 1:].any(axis=(1, 2, 3)) & known))
    assert resets >= 8 and history_kos >= 5 and ladders_ago >= 50, (resets, history_kos, ladders_ago)


def test_planes_from_the_previous_position_in_kata_gos_own_layout():
    """``katago_planes(previous=...)`` finds the ladder planes at KataGo's indices too, from
    float planes, and gives the planes computed from scratch along a random 5x5 game."""
    from conftest import random_game

    config = gojax.GoConfig(size=5, komi=0.5, ko_rule="simple", max_moves=40)
    scratch = jax.jit(functools.partial(F.katago_planes, config, layout="katago"))
    carried = jax.jit(lambda s, h, p: F.katago_planes(config, s, h, layout="katago", previous=p))
    states, _ = random_game(config, np.random.default_rng(3), moves=24, fill_own_eyes=False)
    hist = F.history_init(config, states[0])
    previous = scratch(states[0], hist)
    ladders_ago = 0
    for state in states[1:]:
        hist = F.history_push(config, hist, state)
        want = scratch(state, hist)
        got = carried(state, hist, previous)
        for a, b in zip(got, want, strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        ladders_ago += int(np.asarray(want[0])[..., V7.ladderable][..., 1:].any())
        previous = want
    assert ladders_ago >= 3, ladders_ago
