"""jit, vmap, shard_map: batched and per-device results equal per-game ones; one trace per config."""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import assert_trees_equal, game_at, jitted
from jax.sharding import Mesh, PartitionSpec

import gojax
from gojax import features
from gojax.env import GoEnv
from gojax.players import playout

CONFIG = gojax.GoConfig(size=7, max_moves=60)
BATCH = 12


def _random_batch(config, batch, moves, seed):
    """A batch of mid-game states and the actions each game played to reach them."""
    step = jitted("step", config, batched=True)
    legal = jitted("legal_action_mask", config, batched=True)
    state = jax.vmap(lambda _: gojax.init(config))(jnp.arange(batch))
    key = jax.random.PRNGKey(seed)
    played = []
    for _ in range(moves):
        key, sub = jax.random.split(key)
        logits = jnp.where(legal(state), 0.0, -jnp.inf).at[:, config.num_points].add(-3.0)
        action = jax.random.categorical(sub, logits)
        played.append(np.asarray(action))
        state = step(state, action)
    return state, np.stack(played, axis=1)


@pytest.fixture(scope="module")
def batch():
    return _random_batch(CONFIG, BATCH, moves=40, seed=1)


def test_batched_replay_equals_unbatched_replay(batch):
    batched, played = batch
    single_step = jax.jit(functools.partial(gojax.step, CONFIG))  # jit, no vmap
    for game in (0, 5, BATCH - 1):
        single = gojax.init(CONFIG)
        for number, action in enumerate(played[game]):
            if game == 0 and number < 6:
                single = gojax.step(CONFIG, single, int(action))  # eager: no jit, no vmap
            else:
                single = single_step(single, int(action))
        expected = game_at(batched, game)
        for name in single.__dataclass_fields__:
            np.testing.assert_array_equal(getattr(single, name), getattr(expected, name), err_msg=name)


def test_vmapped_mask_and_score_equal_per_game_results(batch):
    batched, _ = batch
    masks = jax.jit(jax.vmap(functools.partial(gojax.legal_action_mask, CONFIG)))(batched)
    scores = jax.jit(jax.vmap(functools.partial(gojax.score, CONFIG)))(batched)
    single_mask = jax.jit(functools.partial(gojax.legal_action_mask, CONFIG))  # jit, no vmap
    single_score = jax.jit(functools.partial(gojax.score, CONFIG))
    for game in range(BATCH):
        one = game_at(batched, game)
        np.testing.assert_array_equal(masks[game], single_mask(one))
        assert float(scores[game]) == float(single_score(one))
    one = game_at(batched, 0)  # eager: no jit, no vmap
    np.testing.assert_array_equal(masks[0], gojax.legal_action_mask(CONFIG, one))


def test_step_traces_once_per_config():
    traces = []

    def counted(config, state, action):
        traces.append(config)
        return gojax.step(config, state, action)

    jitted = jax.jit(counted, static_argnums=0)
    first, second = gojax.GoConfig(size=5), gojax.GoConfig(size=5)
    assert first == second and hash(first) == hash(second) and first is not second
    state = gojax.init(first)
    for config, action in ((first, 3), (second, 7), (first, 25), (second, 12)):
        state = jitted(config, state, jnp.int32(action))
    assert len(traces) == 1
    jitted(gojax.GoConfig(size=5, komi=0.5), gojax.init(gojax.GoConfig(size=5, komi=0.5)), jnp.int32(0))
    assert len(traces) == 2


def test_library_does_no_jax_work_at_import():
    import subprocess
    import sys

    # Any JAX computation initialises a backend; importing gojax must not.
    code = (
        "from jax._src import xla_bridge\n"
        "import gojax, gojax._core.rules, gojax._core.scoring, gojax._host.diagram, gojax._host.invariants\n"
        "assert not xla_bridge._backends, 'JAX work at import'\n"
        "print('ok')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def _per_device(function):
    """``function`` of batched arguments, run under ``jax.shard_map`` (``check_vma`` on) over the games."""
    mesh = Mesh(np.array(jax.devices()[:1]), ("games",))
    games = PartitionSpec("games")
    return jax.jit(jax.shard_map(function, mesh=mesh, in_specs=games, out_specs=games))


def _under_both(function, *args):
    """``(jit(function)(*args), the same under shard_map)``: ``function`` takes and returns batches."""
    return jax.jit(function)(*args), _per_device(function)(*args)


@pytest.mark.integration
def test_rules_features_and_env_run_under_shard_map(batch):
    # Inside shard_map every value carries the mesh axes it varies along; a loop whose
    # carry starts as a constant and is then computed from the device's data is refused
    # unless the library casts it (gojax._core.loops). The results must not change.
    state, played = batch
    actions = jnp.asarray(played[:, -1])
    history = jax.vmap(functools.partial(features.history_init, CONFIG))(state)
    runs = {
        "step": (jax.vmap(functools.partial(gojax.step, CONFIG)), state, actions),
        "legal_action_mask": (jax.vmap(functools.partial(gojax.legal_action_mask, CONFIG)), state),
        "step_with_mask": (
            jax.vmap(lambda s, a: gojax.step_with_mask(CONFIG, s, a, gojax.legal_action_mask(CONFIG, s))),
            state,
            actions,
        ),
        "score": (jax.vmap(functools.partial(gojax.score, CONFIG)), state),
        "playout": (
            jax.vmap(functools.partial(playout, CONFIG)),
            state,
            jax.random.split(jax.random.PRNGKey(5), BATCH),
        ),
    }
    # pgx's and AlphaGo's value observations are alphago_zero's and alphago's with one more plane;
    # basic_ladders and basic_komi are basic's planes and alphago's ladder planes, or a constant.
    for name, spec in features.OBSERVATIONS.items():
        if name in ("pgx", "alphago_value", "basic_ladders", "basic_komi"):
            continue
        observe = functools.partial(spec, CONFIG)
        if spec.needs_history:
            runs[name] = (jax.vmap(observe), state, history)
        else:
            runs[name] = (jax.vmap(observe), state)
    for name, (function, *args) in runs.items():
        plain, sharded = _under_both(function, *args)
        assert_trees_equal(plain, sharded, name)


@pytest.mark.integration
@pytest.mark.parametrize("observation", ["alphago_zero", "katago"])
def test_goenv_runs_under_shard_map(observation):
    env = GoEnv(gojax.GoConfig(size=5, ko_rule="simple"), observation=observation)
    keys = jax.random.split(jax.random.PRNGKey(2), 4)
    # Each game its own moves (per-device data, not constants that every device shares).
    # Two moves: a step from the first observation, and one from a later one.
    moves = jnp.array([[6, 7], [12, 13], [0, 24], [7, 6]], jnp.int32)

    def play(keys, moves):
        state = jax.vmap(env.init)(keys)
        for turn in range(moves.shape[1]):
            state = jax.vmap(env.step)(state, moves[:, turn])
        return state

    plain, sharded = _under_both(play, keys, moves)
    assert_trees_equal(plain, sharded, observation)


@pytest.fixture(scope="module")
def late_games():
    """96 9x9 games at plies spread over whole games (most of them past the opening)."""
    from conftest import whole_game_batch

    config = gojax.GoConfig(size=9)
    return config, whole_game_batch(config, 96, seed=4)._game


@pytest.mark.parametrize("ended_count", [0, 1, 5, 40, 96])
def test_pooled_scores_equal_per_game_scores(late_games, ended_count):
    # Under vmap the games that ended are gathered and scored a group (6 here) at a time; a
    # group per loop step until every one is: 0, 1 and 5 take at most one group, 40 and 96 many.
    from gojax._core.scoring import score_if_ended

    config, games = late_games
    full = np.asarray(jax.jit(jax.vmap(functools.partial(gojax.score, config)))(games))
    assert len(set(full.tolist())) > 10  # the positions differ
    order = np.random.default_rng(ended_count).permutation(96)
    ended = np.zeros(96, bool)
    ended[order[:ended_count]] = True
    scored = jax.jit(jax.vmap(functools.partial(score_if_ended, config)))(games, jnp.asarray(ended))
    np.testing.assert_array_equal(scored, np.where(ended, full, 0.0))
    # Nested vmap levels are pooled together; the same results.
    nested = jax.jit(jax.vmap(jax.vmap(functools.partial(score_if_ended, config))))(
        jax.tree.map(lambda x: x.reshape(8, 12, *x.shape[1:]), games), jnp.asarray(ended).reshape(8, 12)
    )
    np.testing.assert_array_equal(np.asarray(nested).reshape(-1), np.where(ended, full, 0.0))
    # One game alone (no vmap).
    first = int(order[0])
    alone = jax.jit(functools.partial(score_if_ended, config))(game_at(games, first), jnp.bool_(ended[first]))
    assert float(alone) == (full[first] if ended[first] else 0.0)


@pytest.mark.integration
def test_pooled_scores_with_a_shared_argument_and_under_shard_map(late_games):
    from gojax._core.scoring import score_if_ended

    config, games = late_games
    full = np.asarray(jax.jit(jax.vmap(functools.partial(gojax.score, config)))(games))
    every = jax.jit(jax.vmap(functools.partial(score_if_ended, config), in_axes=(0, None)))(games, True)
    np.testing.assert_array_equal(every, full)
    one = game_at(games, 7)
    flags = jnp.arange(96) % 3 == 0
    same_game = jax.jit(jax.vmap(functools.partial(score_if_ended, config), in_axes=(None, 0)))(one, flags)
    np.testing.assert_array_equal(same_game, np.where(flags, full[7], 0.0))
    score = jax.vmap(functools.partial(score_if_ended, config))
    plain, sharded = _under_both(score, games, flags)
    assert_trees_equal(plain, sharded, "score_if_ended")
    np.testing.assert_array_equal(plain, np.where(flags, full, 0.0))
    # Differentiating a function that also scores (integer inputs: no tangent reaches the pool).
    grad = jax.grad(lambda x: x * jnp.sum(score(games, flags)))(1.0)
    assert float(grad) == float(np.sum(np.where(flags, full, 0.0)))
