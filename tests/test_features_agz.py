"""AlphaGo Zero's 17 planes: hand-checked positions, a NumPy reference on random
games, vmap, dtypes and equivariance under the 8 symmetries."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import jitted

import gojax
from gojax import features
from gojax import symmetry as sym
from gojax.features import AGZ_CHANNELS

CONFIG = gojax.GoConfig(size=5, max_moves=60)
N = CONFIG.size
PASS = CONFIG.pass_action


@pytest.fixture(scope="module")
def fns():
    return {
        "step": jitted("step", CONFIG),
        "push": jitted(features.history_push, CONFIG),
        "planes": jitted(features.alphago_zero_planes, CONFIG),
    }


def _points(*coords):
    grid = np.zeros((N, N), bool)
    for r, c in coords:
        grid[r, c] = True
    return grid


def _play(fns, actions, state=None):
    """States and histories after each action (index 0: before the first)."""
    state = gojax.init(CONFIG) if state is None else state
    hist = features.history_init(CONFIG, state)
    states, hists = [state], [hist]
    for action in actions:
        state = fns["step"](state, action)
        hist = fns["push"](hist, state)
        states.append(state)
        hists.append(hist)
    return states, hists


def test_channel_layout_constants():
    assert AGZ_CHANNELS.num_channels == features.AGZ_NUM_CHANNELS == 17
    assert list(range(17))[AGZ_CHANNELS.own] == [0, 2, 4, 6, 8, 10, 12, 14]
    assert list(range(17))[AGZ_CHANNELS.opponent] == [1, 3, 5, 7, 9, 11, 13, 15]
    assert AGZ_CHANNELS.colour == 16


def test_empty_board_and_history_before_the_first_move(fns):
    planes = np.asarray(fns["planes"](gojax.init(CONFIG), features.history_init(CONFIG, gojax.init(CONFIG))))
    assert planes.shape == (N, N, 17) and planes.dtype == np.float32
    assert not planes[..., :16].any()
    assert (planes[..., AGZ_CHANNELS.colour] == 1).all()  # black to move


def test_setup_position_has_empty_history_and_white_to_move(fns):
    grid = np.zeros((N, N), np.int8)
    grid[2, 2], grid[1, 3] = gojax.BLACK, gojax.WHITE
    state = gojax.from_board(CONFIG, grid, to_play=gojax.WHITE)
    planes = np.asarray(fns["planes"](state, features.history_init(CONFIG, state)))
    own, opponent = planes[..., AGZ_CHANNELS.own], planes[..., AGZ_CHANNELS.opponent]
    np.testing.assert_array_equal(own[..., 0], _points((1, 3)))  # white is the mover
    np.testing.assert_array_equal(opponent[..., 0], _points((2, 2)))
    assert not own[..., 1:].any() and not opponent[..., 1:].any()
    assert (planes[..., AGZ_CHANNELS.colour] == 0).all()


def test_hand_checked_capture_then_history(fns):
    # 1. B B5 (0,1)  2. W A5 (0,0)  3. B A4 (1,0) captures A5  4. W E1 (4,4)  5. B pass  6. W C3 (2,2)
    actions = [1, 0, 5, 24, PASS, 12]
    states, hists = _play(fns, actions)
    assert int(states[3].captures[0]) == 1
    empty, b5, w_a5, two, e1 = (
        _points(),
        _points((0, 1)),
        _points((0, 0)),
        _points((0, 1), (1, 0)),
        _points((4, 4)),
    )
    cases = {
        # move: (expected own planes t..t-7, expected opponent planes t..t-7, colour)
        3: ([empty, w_a5, empty, empty], [two, b5, b5, empty], 0),  # white to move; A5 only in t-1
        5: ([e1, e1, empty, w_a5, empty], [two, two, two, b5, b5, empty], 0),  # white to move after a pass
        6: ([two, two, two, two, b5, b5, empty], [_points((4, 4), (2, 2)), e1, e1, empty, w_a5, empty], 1),
    }
    for move, (expected_own, expected_opponent, colour) in cases.items():
        planes = np.asarray(fns["planes"](states[move], hists[move]))
        own, opponent = planes[..., AGZ_CHANNELS.own], planes[..., AGZ_CHANNELS.opponent]
        for i in range(8):
            want = expected_own[i] if i < len(expected_own) else empty
            np.testing.assert_array_equal(own[..., i], want, err_msg=f"move {move}, own t-{i}")
            want = expected_opponent[i] if i < len(expected_opponent) else empty
            np.testing.assert_array_equal(opponent[..., i], want, err_msg=f"move {move}, opponent t-{i}")
        assert (planes[..., AGZ_CHANNELS.colour] == colour).all(), move


def _reference_planes(boards, t, to_play):
    """NumPy AGZ planes at move ``t`` from the list of ``int8[N, N]`` boards after each move."""
    out = np.zeros((N, N, 17), np.float32)
    for i in range(8):
        board = boards[t - i] if t - i >= 0 else np.zeros((N, N), np.int8)
        out[..., 2 * i] = board == to_play
        out[..., 2 * i + 1] = board == 3 - to_play
    out[..., 16] = to_play == gojax.BLACK
    return out


def test_random_game_matches_reference_and_drops_old_boards(fns):
    rng = np.random.default_rng(0)
    mask = jax.jit(functools.partial(gojax.legal_action_mask, CONFIG))
    state = gojax.init(CONFIG)
    actions = []
    for _ in range(24):  # long enough for the oldest boards to fall out
        legal = np.flatnonzero(np.asarray(mask(state))[:PASS])
        action = int(rng.choice(legal)) if len(legal) and rng.random() > 0.1 else PASS
        if actions and actions[-1] == PASS and action == PASS:
            action = int(rng.choice(legal))
        actions.append(action)
        state = fns["step"](state, action)
    states, hists = _play(fns, actions)
    assert not bool(states[-1].done)
    boards = [np.asarray(gojax.board(CONFIG, s)) for s in states]
    planes_bool = jax.jit(functools.partial(features.alphago_zero_planes, CONFIG, dtype=jnp.bool_))
    pgx_planes = jax.jit(functools.partial(features.observation("pgx"), CONFIG))
    for t, (s, h) in enumerate(zip(states, hists, strict=True)):
        expected = _reference_planes(boards, t, int(gojax.to_play(CONFIG, s)))
        np.testing.assert_array_equal(fns["planes"](s, h), expected, err_msg=f"move {t}")
        as_bool = np.asarray(planes_bool(s, h))
        assert as_bool.dtype == np.bool_
        np.testing.assert_array_equal(as_bool, expected.astype(bool), err_msg=f"move {t}")
        # pgx's observation: the same planes, the colour plane set when white is to move.
        expected[..., AGZ_CHANNELS.colour] = 1 - expected[..., AGZ_CHANNELS.colour]
        np.testing.assert_array_equal(pgx_planes(s, h), expected.astype(bool), err_msg=f"pgx, move {t}")
    with pytest.raises(ValueError, match="colour_plane must be 'black' or 'white', got 'red'"):
        features.alphago_zero_planes(CONFIG, states[0], hists[0], colour_plane="red")


def test_planes_are_equivariant_under_the_8_symmetries_and_vmap_equals_per_game(fns):
    games, moves = 3, 30
    step = jax.vmap(jax.vmap(functools.partial(gojax.step, CONFIG)))
    legal = jax.vmap(functools.partial(gojax.legal_action_mask, CONFIG))
    push = jax.vmap(jax.vmap(functools.partial(features.history_push, CONFIG)))
    planes_fn = jax.vmap(jax.vmap(functools.partial(features.alphago_zero_planes, CONFIG)))
    ks = jnp.arange(8)[:, None]

    def move(carry, key):
        state, hist = carry
        mask = legal(jax.tree.map(lambda x: x[0], state))
        action = jax.random.categorical(key, jnp.where(mask, 0.0, -jnp.inf).at[:, PASS].add(-4.0))
        actions = sym.transform_action(CONFIG, ks, action[None, :])  # [8, G]
        state = step(state, actions)
        hist = push(hist, state)
        return (state, hist), planes_fn(state, hist)

    @jax.jit
    def run(key):
        state = jax.vmap(jax.vmap(lambda _: gojax.init(CONFIG)))(jnp.zeros((8, games)))
        hist = jax.vmap(jax.vmap(functools.partial(features.history_init, CONFIG)))(state)
        return jax.lax.scan(move, (state, hist), jax.random.split(key, moves))

    final, planes = run(jax.random.PRNGKey(5))
    planes = np.asarray(planes)  # [T, 8, G, N, N, 17]
    assert planes[-1, 0, :, :, :, :16].any()
    for k, g in [(0, 0), (3, 1), (7, 2)]:  # the vmapped planes are the per-game ones
        one = jax.tree.map(lambda x, k=k, g=g: x[k, g], final)
        np.testing.assert_array_equal(planes[-1, k, g], fns["planes"](*one))
    for k in range(1, 8):
        expected = jax.vmap(jax.vmap(functools.partial(sym.transform_board, k)))(planes[:, 0])
        np.testing.assert_array_equal(planes[:, k], expected, err_msg=f"symmetry {k}")


def test_19x19_planes_from_a_setup():
    config = gojax.GoConfig(size=19)
    grid = np.zeros((19, 19), np.int8)
    grid[3, 3], grid[15, 16] = gojax.BLACK, gojax.WHITE
    state = gojax.from_board(config, grid)
    hist = features.history_init(config, state)
    hist = features.history_push(config, hist, state)  # a pass-like repeat of the position
    planes = np.asarray(jax.jit(functools.partial(features.alphago_zero_planes, config))(state, hist))
    assert planes.shape == (19, 19, 17)
    for i in (0, 1):
        assert planes[3, 3, 2 * i] == 1 and planes[15, 16, 2 * i + 1] == 1
        assert planes[..., 2 * i].sum() == 1 and planes[..., 2 * i + 1].sum() == 1
    assert not planes[..., 4:16].any()
