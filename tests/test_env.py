"""The environment on small boards with player 0 as black (``init(None)``): init/step against the
rules, rewards of finished games, the move cap, auto-reset, vmap against per-game runs, and the
observation options. The pgx interface, seat order and the comparison with pgx are in
tests/test_pgx_api.py."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import assert_trees_equal

import gojax
from gojax import features
from gojax.env import GoEnv, auto_reset

# Komi 0.5: a lone black stone owns the board and wins; an empty board loses on komi.
CONFIG = gojax.GoConfig(size=5, komi=0.5, max_moves=8)
PASS = CONFIG.pass_action
CENTRE = 12
ENV = GoEnv(CONFIG)


@pytest.fixture(scope="module")
def env_fns():
    return {
        "init": jax.jit(ENV.init),
        "step": jax.jit(ENV.step),
        # The generic wrapper (not GoEnv's own methods, so not its fused step_and_reset) ...
        "auto": jax.jit(auto_reset(lambda s, a, k=None: ENV.step(s, a, k), lambda k: ENV.init(k))),
        # ... and the fused one that auto_reset(env.step, env.init) returns.
        "fused": jax.jit(auto_reset(ENV.step, ENV.init)),
    }


def _run(step, state, actions):
    for action in actions:
        state = step(state, jnp.int32(action))
    return state


def test_init(env_fns):
    state = env_fns["init"](jax.random.PRNGKey(0))
    assert state.observation.shape == (5, 5, 17) and state.observation.dtype == jnp.bool_
    assert ENV.observation_shape == (5, 5, 17) and ENV.num_actions == 26 and ENV.num_players == 2
    np.testing.assert_array_equal(state.observation[..., features.AGZ_CHANNELS.colour], 1)
    assert not np.asarray(state.observation[..., :16]).any()
    assert np.asarray(state.legal_action_mask).all() and state.legal_action_mask.shape == (26,)
    np.testing.assert_array_equal(state.rewards, [0, 0])
    assert state.rewards.dtype == jnp.float32
    assert int(state.current_player) == 0 and not bool(state.terminated) and not bool(state.truncated)
    assert int(state._step_count) == 0 and int(state._black) == 0  # init(key) draws seats; None: 0 is black
    assert_trees_equal(state._game, gojax.init(CONFIG))


def test_step_follows_the_rules(env_fns):
    legal = jax.jit(functools.partial(gojax.legal_action_mask, CONFIG))
    planes = jax.jit(functools.partial(features.alphago_zero_planes, CONFIG))
    state = env_fns["init"](None)
    for number, action in enumerate([CENTRE, 6, 7, PASS], start=1):
        state = env_fns["step"](state, jnp.int32(action), jax.random.PRNGKey(number))
        assert int(state.current_player) == number % 2  # player 0 is black, to move after even moves
        assert int(state._game.move_number) == number == int(state._step_count)
        np.testing.assert_array_equal(state.rewards, [0, 0])
        np.testing.assert_array_equal(state.legal_action_mask, legal(state._game))
        np.testing.assert_array_equal(state.observation, planes(state._game, state._history))
    assert not bool(state.legal_action_mask[CENTRE]) and not bool(state.legal_action_mask[6])
    board = np.asarray(gojax.board(CONFIG, state._game))
    assert board[2, 2] == gojax.BLACK and board[1, 1] == gojax.WHITE and board[1, 2] == gojax.BLACK
    # Mover is black: own stones now are the two black ones; white's stone one move ago.
    own_now = np.asarray(state.observation[..., features.AGZ_CHANNELS.own][..., 0])
    assert own_now.sum() == 2 and own_now[2, 2] == 1 and own_now[1, 2] == 1


def test_two_passes_score_the_game_then_nothing_changes(env_fns):
    state = _run(env_fns["step"], env_fns["init"](None), [CENTRE, PASS, PASS])
    assert bool(state.terminated) and not bool(state.truncated)
    np.testing.assert_array_equal(state.rewards, [1, -1])  # black owns all 25 points, komi 0.5
    assert np.asarray(state.legal_action_mask).all()  # as pgx: all True once over
    after = env_fns["step"](state, jnp.int32(3))
    np.testing.assert_array_equal(after.rewards, [0, 0])  # a step on a finished game gives nothing
    assert_trees_equal(after._game, state._game)
    assert_trees_equal(after._history, state._history)
    assert bool(after.terminated) and int(after._step_count) == 3  # a step on a finished game does not count


def test_two_passes_on_an_empty_board_lose_on_komi(env_fns):
    state = _run(env_fns["step"], env_fns["init"](None), [PASS, PASS])
    assert bool(state.terminated)
    np.testing.assert_array_equal(state.rewards, [-1, 1])


@pytest.mark.parametrize(
    "actions, rewards",
    [
        ([CENTRE, CENTRE], [1, -1]),  # white plays on an occupied point and loses
        ([CENTRE, 6, -1], [-1, 1]),  # black plays an out-of-range action and loses
        ([CENTRE, 6, PASS + 1], [-1, 1]),
    ],
)
def test_illegal_action_loses(env_fns, actions, rewards):
    state = _run(env_fns["step"], env_fns["init"](None), actions)
    assert bool(state.terminated) and bool(state._game.illegal_move)
    np.testing.assert_array_equal(state.rewards, rewards)
    assert np.asarray(state.legal_action_mask).all()


def test_move_cap_terminates_and_scores_as_pgx(env_fns):
    # 8 moves: black 0, 6, 10, 16 and white 4, 8, 14, 18; the cap ends the game, scored as pgx does.
    state = _run(env_fns["step"], env_fns["init"](None), [0, 4, 6, 8, 10, 14, 16, 18][:7])
    assert not bool(state.terminated)
    np.testing.assert_array_equal(state.rewards, [0, 0])
    state = env_fns["step"](state, jnp.int32(18))
    assert bool(state.terminated) and not bool(state.truncated) and bool(state._game.truncated)
    margin = float(gojax.score(CONFIG, state._game))
    assert margin != 0
    np.testing.assert_array_equal(state.rewards, [np.sign(margin), -np.sign(margin)])
    assert np.asarray(state.legal_action_mask).all()


@pytest.mark.parametrize("wrapper", ["auto", "fused"])
def test_auto_reset(env_fns, wrapper):
    init = env_fns["init"](None)
    state = _run(env_fns[wrapper], init, [CENTRE, PASS])
    assert int(state._game.move_number) == 2
    state = env_fns[wrapper](state, jnp.int32(PASS), jax.random.PRNGKey(0))
    # The game ended: the fresh game is returned, carrying the end flags and rewards.
    assert bool(state.terminated) and not bool(state.truncated)
    np.testing.assert_array_equal(state.rewards, [1, -1])
    assert_trees_equal(state._game, init._game)
    assert_trees_equal(state._history, init._history)
    np.testing.assert_array_equal(state.observation, init.observation)
    black = int(state._black)  # the new game's seats come from the reset key
    assert int(state.current_player) == black and np.asarray(state.legal_action_mask).all()
    # A plain step ignores the action on that flagged state, as pgx's does: rewards 0, nothing else moves.
    for action in (CENTRE, PASS, -1):
        kept = env_fns["step"](state, jnp.int32(action))
        assert_trees_equal(kept, state.replace(rewards=jnp.zeros(2, jnp.float32)), f"action {action}")
    played = env_fns["step"](state.cleared(), jnp.int32(CENTRE))  # cleared, the new game is played
    assert int(played._game.move_number) == 1 and int(played._step_count) == 1
    # The next step clears them and plays on the new game.
    state = env_fns[wrapper](state, jnp.int32(CENTRE))
    assert not bool(state.terminated)
    np.testing.assert_array_equal(state.rewards, [0, 0])
    assert int(state._game.move_number) == 1 and int(state.current_player) == 1 - black


def test_vmapped_env_equals_per_game(env_fns):
    """The batch runs GoEnv.step_and_reset (auto_reset's fused path), each single game the generic wrapper."""
    batch, steps = 4, 18  # the move cap is 8: games end, by passes, illegal moves or the cap, and reset
    assert auto_reset(ENV.step, ENV.init) == ENV.step_and_reset
    init = jax.jit(jax.vmap(ENV.init))
    step = jax.jit(jax.vmap(auto_reset(ENV.step, ENV.init)))
    key = jax.random.PRNGKey(7)
    seats = jax.random.split(key, batch)  # each game draws its seats from its key
    state = init(seats)
    singles = [env_fns["init"](seats[g]) for g in range(batch)]
    ended = 0
    for _ in range(steps):
        key, k_action, k_wild, k_step = jax.random.split(key, 4)
        logits = jnp.where(state.legal_action_mask, 0.0, -jnp.inf).at[:, PASS].add(1.0)
        action = jax.random.categorical(k_action, logits)
        wild = jax.random.uniform(k_wild, (batch,)) < 0.05
        action = jnp.where(wild, jax.random.randint(k_wild, (batch,), -1, PASS + 2), action)
        keys = jax.random.split(k_step, batch)
        state = step(state, action, keys)
        ended += int(jnp.sum(state.terminated))
        for g in range(batch):
            singles[g] = env_fns["auto"](singles[g], action[g], keys[g])
            assert_trees_equal(jax.tree.map(lambda x, g=g: x[g], state), singles[g], f"game {g}")
    assert ended >= batch


def test_observation_none_skips_it_and_changes_nothing_else(env_fns):
    bare = GoEnv(CONFIG, observation=None)
    assert bare.observation_shape is None
    step = jax.jit(bare.step)
    state, full = bare.init(None), env_fns["init"](None)
    assert state.observation is None
    for action in [CENTRE, 6, PASS, PASS]:
        state, full = step(state, jnp.int32(action)), env_fns["step"](full, jnp.int32(action))
        assert state.observation is None
        assert_trees_equal(state.replace(observation=full.observation), full)
    # One stone each, the empty region touches both: 1 - 1 - 0.5, white wins.
    np.testing.assert_array_equal(state.rewards, [-1, 1])


def test_custom_observation_function(env_fns):
    def stones(config, game, history):
        del history
        return gojax.board(config, game)[..., None]

    env = GoEnv(CONFIG, observation=stones)
    assert env.observation_shape == (5, 5, 1)
    played = env_fns["step"](env_fns["init"](None), jnp.int32(CENTRE))
    observation = env.observe(played)
    assert observation.shape == (5, 5, 1) and int(observation[2, 2, 0]) == gojax.BLACK
    assert observation.dtype == gojax.board(CONFIG, played._game).dtype  # your own function: no bool cast
    assert int(np.asarray(observation).sum()) == gojax.BLACK


def test_observation_by_registered_name_and_dtype(env_fns):
    played = env_fns["step"](env_fns["init"](None), jnp.int32(CENTRE))
    basic = GoEnv(CONFIG, observation="basic")
    assert basic.observation_spec is features.observation("basic")
    assert basic.observation_shape == (5, 5, features.BASIC_NUM_CHANNELS)
    planes = basic.observe(played)
    assert planes.dtype == jnp.bool_
    np.testing.assert_array_equal(planes, features.basic_planes(CONFIG, played._game))
    as_float = GoEnv(CONFIG, observation_dtype=jnp.float32)
    assert as_float.observation_spec is features.observation("alphago_zero")
    floats = as_float.observe(played)
    assert floats.dtype == jnp.float32
    np.testing.assert_array_equal(floats, features.alphago_zero_planes(CONFIG, played._game, played._history))
    np.testing.assert_array_equal(floats, played.observation)  # the bool default holds the same 0/1
    step = jax.jit(as_float.step)
    assert step(as_float.init(None), jnp.int32(CENTRE)).observation.dtype == jnp.float32
    spec = features.observation("alphago")
    assert GoEnv(CONFIG, observation=spec).observation_shape == (5, 5, features.ALPHAGO_NUM_CHANNELS)


def test_bad_arguments_raise():
    with pytest.raises(ValueError, match=r"'katago9'.*alphago_zero, basic"):
        GoEnv(CONFIG, observation="katago9")
    with pytest.raises(ValueError, match="observation_dtype"):
        GoEnv(CONFIG, observation_dtype="no such dtype")
    with pytest.raises(ValueError, match="17"):
        GoEnv(CONFIG, observation=17)
    with pytest.raises(ValueError, match="GoConfig"):
        GoEnv({"size": 5})


def test_env_is_hashable_so_it_can_be_a_static_argument():
    same = GoEnv(gojax.GoConfig(size=5, komi=0.5, max_moves=8))
    assert same == ENV and hash(same) == hash(ENV)
    assert GoEnv(CONFIG, observation=None) != ENV


def test_katago_preset_observes_planes_and_globals():
    env = GoEnv(CONFIG, observation="katago")
    planes, globals_ = jax.eval_shape(env.init, None).observation  # traced only: the ladders compile slowly
    channels = features.KATAGO_CHANNELS.num_channels
    assert planes.shape == (5, 5, channels) and planes.dtype == jnp.bool_
    assert globals_.shape == (features.KATAGO_GLOBALS.num_features,) and globals_.dtype == jnp.float32


def test_rewards_are_never_negative_zero(env_fns):
    """pgx-style rewards: 0.0 while a game runs, after a draw and for both seats - never -0.0."""
    seats = [ENV.init(jax.random.PRNGKey(k)) for k in range(8)]
    assert {int(s._black) for s in seats} == {0, 1}  # both seat orders
    for state in seats:
        for action in (CENTRE, 6):  # a game still running: rewards 0 for both
            state = env_fns["step"](state, jnp.int32(action))
            assert not np.signbit(np.asarray(state.rewards)).any()
    drawn = gojax.GoConfig(size=5, komi=0.0)
    state = gojax.from_ascii(drawn, ". X . O .\n" * 5)  # 10 points each and a neutral column: a draw
    state = gojax.step(drawn, gojax.step(drawn, state, PASS), PASS)
    rewards = np.asarray(gojax.rewards(drawn, state))
    assert bool(state.terminated) and rewards.tolist() == [0.0, 0.0] and not np.signbit(rewards).any()
    running = np.asarray(gojax.rewards(CONFIG, gojax.init(CONFIG)))
    assert not np.signbit(running).any()
