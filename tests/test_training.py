"""AlphaZero self-play training: replay buffer, self-play targets, augmentation, loss, resume, devices.

Tiny settings throughout (5x5, a 1-block 8-channel network, 4 simulations);
each jitted function is compiled once per module. Expected values come from
hand-written ring positions, from replaying the self-play games with
:func:`gojax.step` and scoring them with the plain-Python Tromp-Taylor scorer
below, and from gojax's legal mask. Two tests start ``experiments/train.py``
or the trainer in a subprocess: the kill -9 / resume test, and the 4-device
test (``--xla_force_host_platform_device_count=4``). Their processes share the
test session's persistent JAX compilation cache (tests/conftest.py), and the
kill / resume runs use the settings and the 4 virtual devices (one of them) of
the 4-device test's one-device run, so that the second of the two tests loads
the compiled self-play and training steps instead of compiling them again.
"""

from __future__ import annotations

import argparse
import ast
import csv
import dataclasses
import functools
import json
import math
import os
import re
import signal
import subprocess
import sys
import time
import types
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import CI, TEST_EXTRA, gnugo_binary, ref_area_difference, ref_owners

pytest.importorskip("flax", reason=TEST_EXTRA)
pytest.importorskip("optax", reason=TEST_EXTRA)
pytest.importorskip("orbax.checkpoint", reason=TEST_EXTRA)
pytest.importorskip("mctx", reason=TEST_EXTRA)

import gojax
from gojax import alphazero as az
from gojax import mcts, symmetry, training

ROOT = Path(__file__).resolve().parents[1]
# Positional superko (the default), a short move cap so that every game ends within the test.
CONFIG = gojax.GoConfig(size=5, komi=0.5, max_moves=16)
CHANNELS = az.BASIC_CHANNELS
BATCH = 4
# The kill -9 / resume runs and the one-device run of the 4-device test (_MULTI) share
# every setting their compiled self-play and training steps depend on, and run in processes
# with the same 4 virtual CPU devices (using one of them), so that whichever test runs
# second loads both programs from the shared compilation cache instead of compiling them.
TINY_SETTINGS = {
    "devices": 1,
    "size": 5,
    "blocks": 1,
    "channels": 8,
    "simulations": 4,
    "batch": 8,
    "moves_per_iteration": 4,
    "train_batch": 16,
    "replay_capacity": 512,
    "min_replay": 1,
    "max_moves": 8,
    "ko_rule": "simple",
    "optimizer": "sgd",
    "learning_rate": 0.05,
    "eval_every": 0,
    "final_eval_games": 0,
    "sgf_games": 0,
}
TINY = [arg for name, value in TINY_SETTINGS.items() for arg in (training.flag_name(name), str(value))]
TINY.append("--no-progress")
POSITIONS_PER_ITERATION = TINY_SETTINGS["batch"] * TINY_SETTINGS["moves_per_iteration"]


# ----------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def network():
    from flax import nnx

    net = az.PolicyValueNet(
        az.NetworkConfig(blocks=1, channels=8), 5, CHANNELS.num_channels, rngs=nnx.Rngs(0)
    )
    return az.split(net)


@pytest.fixture(scope="module")
def selfplay_games(network):
    """Self-play one move per call, recording each finished game's rows and moves on the host."""
    graphdef, variables = network
    settings = az.SelfPlaySettings(search=az.SearchSettings(num_simulations=4), explore_moves=4)
    play = jax.jit(functools.partial(az.selfplay, CONFIG, settings, graphdef, num_moves=1))
    actor = az.selfplay_init(CONFIG, BATCH)
    buffer = az.replay_init(BATCH * CONFIG.move_cap * 4, 5, CHANNELS.num_channels)  # no wrap-around
    rows = [[] for _ in range(BATCH)]
    games, pending_ready, searched = [], [], []
    key = jax.random.PRNGKey(7)
    for move in range(3 * CONFIG.move_cap):
        position = int(buffer.position)
        ply = np.asarray(actor.games.move_number)
        actor, buffer, _ = play(variables, actor, buffer, jax.random.fold_in(key, move))
        host = jax.device_get(actor)
        written = np.asarray(buffer.value[position : position + BATCH])
        searched.append(written[~np.asarray(buffer.ready[position : position + BATCH])])
        for b in range(BATCH):
            rows[b].append(position + b)
            if int(host.games.move_number[b]) == 0:  # the game in slot b ended and was reset
                length = int(ply[b]) + 1
                moves = [int(m) for m in host.last_moves[b, :length]]
                games.append({"rows": rows[b], "moves": moves, "result": float(host.last_result[b])})
                rows[b] = []
        ready = np.asarray(buffer.ready)
        pending_ready += [bool(ready[r]) for slot in rows for r in slot]
    return games, jax.device_get(buffer), pending_ready, np.concatenate(searched)


@pytest.fixture(scope="module")
def jitted_step():
    """``(state, action) -> (next state, legal mask of next, planes of next)``, compiled once."""

    def one(state, action):
        after = gojax.step(CONFIG, state, action)
        return after, gojax.legal_action_mask(CONFIG, after), az.basic_planes(CONFIG, after)

    return jax.jit(one)


@functools.cache
def _start():
    """The empty board, its legal mask and planes (once, in one compiled call: op by op takes seconds)."""

    def start():
        state = gojax.init(CONFIG)
        return state, gojax.legal_action_mask(CONFIG, state), az.basic_planes(CONFIG, state)

    state, legal, planes = jax.jit(start)()
    return state, np.asarray(legal), np.asarray(planes)


# ----------------------------------------------------------------- replay buffer


def test_replay_ring_wraps_around_and_masks():
    buf = az.replay_init(5, 2, 1, dtype=jnp.float32)
    planes = lambda vals: jnp.asarray(vals, jnp.float32)[:, None, None, None] * jnp.ones((1, 2, 2, 1))  # noqa: E731
    policy = jnp.tile(jnp.eye(5)[None, 0], (4, 1))
    buf = az.replay_add(buf, planes([1, 2, 3]), policy[:3], jnp.asarray([1.0, -1.0, 1.0]))
    assert int(buf.position) == 3 and int(buf.written) == 3
    buf = az.replay_add(buf, planes([4, 5, 6, 7]), policy, jnp.asarray([-1.0, 1.0, -1.0, 1.0]))
    # Rows 0..4 received examples 1..5, then 6 and 7 overwrote rows 0 and 1.
    assert np.asarray(buf.planes)[:, 0, 0, 0].tolist() == [6, 7, 3, 4, 5]
    assert np.asarray(buf.value).tolist() == [-1, 1, 1, -1, 1]
    assert int(buf.position) == 2 and int(buf.written) == 7 and bool(np.all(buf.ready))
    # A mask stores only the chosen examples, in consecutive rows.
    buf = az.replay_add(buf, planes([8, 9, 10]), policy[:3], jnp.zeros(3), jnp.asarray([True, False, True]))
    assert np.asarray(buf.planes)[:, 0, 0, 0].tolist() == [6, 7, 8, 10, 5]
    assert int(buf.position) == 4


def test_replay_samples_only_finished_rows():
    buf = az.replay_init(8, 2, 1, dtype=jnp.float32)
    policy = jnp.tile(jnp.eye(5)[None, 4], (3, 1))
    buf, rows = az.replay_write(buf, jnp.zeros((3, 2, 2, 1)), policy)
    assert np.asarray(rows).tolist() == [0, 1, 2] and not bool(np.any(buf.ready))
    buf = az.replay_finish(buf, rows, jnp.asarray([1.0, -1.0, 1.0]), jnp.asarray([False, True, False]))
    sample = az.replay_sample(buf, jax.random.PRNGKey(0), 200)
    z, drawn = sample.value, sample.rows
    assert set(np.asarray(drawn).tolist()) == {1} and np.all(np.asarray(z) == -1.0)
    buf = az.replay_finish(buf, rows, jnp.asarray([1.0, -1.0, 0.5]), jnp.ones(3, bool))
    drawn = az.replay_sample(buf, jax.random.PRNGKey(1), 300).rows
    assert set(np.asarray(drawn).tolist()) == {0, 1, 2}
    with pytest.raises(ValueError, match="smaller than games"):
        az.check_capacity(100, 4, 32)


def test_value_targets_blend_the_outcome_with_the_stored_root_values():
    buf = az.replay_init(8, 2, 1, dtype=jnp.float32)
    policy = jnp.tile(jnp.eye(5)[None, 4], (3, 1))
    root = jnp.asarray([0.5, -0.25, 0.75])
    buf, rows = az.replay_write(buf, jnp.zeros((3, 2, 2, 1)), policy, root_value=root)
    assert np.asarray(buf.value[:3]).tolist() == [0.5, -0.25, 0.75] and not np.any(buf.ready)
    z = jnp.asarray([1.0, 1.0, -1.0])
    blended = az.replay_finish(buf, rows, z, jnp.asarray([True, True, False]), root_weight=0.25)
    # (1 - w) z + w v for the finished rows; the third keeps its root value and is not ready.
    assert np.asarray(blended.value[:3]).tolist() == [0.875, 0.6875, 0.75]
    assert np.asarray(blended.ready[:3]).tolist() == [True, True, False]
    exact = az.replay_finish(buf, rows, z, jnp.ones(3, bool))  # weight 0: the outcome alone
    assert np.asarray(exact.value[:3]).tolist() == [1.0, 1.0, -1.0]
    with pytest.raises(ValueError, match="root_value_weight"):
        az.SelfPlaySettings(root_value_weight=1.5)
    assert training.TrainConfig(root_value_weight=0.25).selfplay_settings().root_value_weight == 0.25


# ----------------------------------------------------------------- self-play targets


def test_selfplay_outcomes_match_an_independent_score(selfplay_games, jitted_step):
    games, buffer, pending_ready, searched = selfplay_games
    assert len(games) >= BATCH
    # A row not finished yet holds the search's root value (for the blend): in [-1, 1], not a constant.
    assert np.all(np.abs(searched) <= 1.0) and np.unique(searched).size > 10
    assert not any(pending_ready), "rows of unfinished games must not be ready"
    ended_by_passes = 0
    for game in games:
        state, legal, _ = _start()
        for move in game["moves"]:
            assert bool(legal[move])
            state, legal, _ = jitted_step(state, move)
        assert bool(state.done)
        ended_by_passes += bool(state.terminated)
        margin = ref_area_difference(np.asarray(gojax.board(CONFIG, state))) - CONFIG.komi
        black = float(np.sign(margin))
        assert game["result"] == black
        owners = ref_owners(np.asarray(gojax.board(CONFIG, state)))
        for ply, row in enumerate(game["rows"]):
            assert bool(buffer.ready[row])
            mover_sign = 1.0 if ply % 2 == 0 else -1.0
            assert buffer.value[row] == black * mover_sign, (ply, row)
            # KataGo's auxiliary targets: the final owner of every point and the final score, for the mover.
            np.testing.assert_array_equal(np.asarray(buffer.ownership[row]), owners * mover_sign)
            assert float(buffer.score[row]) == pytest.approx(margin * mover_sign)
            assert float(buffer.policy_weight[row]) == 1.0  # every move searched in full
            # KataGo's opponent-move target: the move played after this position's move (none after the last).
            answer = game["moves"][ply + 1] if ply + 1 < len(game["moves"]) else -1
            assert int(buffer.opponent_move[row]) == answer, (ply, row)
    assert 0 < ended_by_passes < len(games), "want both passed-out and move-capped games"


def test_selfplay_policy_targets_on_legal_moves(selfplay_games, jitted_step):
    games, buffer, _, _ = selfplay_games
    for game in games:
        state, legal, expected = _start()
        for row, move in zip(game["rows"], game["moves"], strict=True):
            legal = np.asarray(legal)
            target = np.asarray(buffer.policy[row])
            assert abs(target.sum() - 1.0) < 1e-5
            assert np.all(target[~legal] == 0.0), np.flatnonzero(target[~legal] > 0)
            np.testing.assert_array_equal(np.asarray(buffer.planes[row], np.float32), np.asarray(expected))
            state, legal, expected = jitted_step(state, move)


def test_playout_cap_randomization_marks_the_cheap_moves(network):
    """A fraction of the moves is searched in full; only those rows carry a policy target that trains."""
    graphdef, variables = network
    search = az.SearchSettings(num_simulations=8)
    settings = az.SelfPlaySettings(search=search, full_search_fraction=0.25, cheap_simulations=2)
    assert settings.cheap_search.num_simulations == 2 and settings.cheap_search.algorithm == search.algorithm
    moves = 40
    play = jax.jit(functools.partial(az.selfplay, CONFIG, settings, graphdef, num_moves=moves))
    buffer = az.replay_init(BATCH * moves, 5, CHANNELS.num_channels)
    _, buffer, stats = play(variables, az.selfplay_init(CONFIG, BATCH), buffer, jax.random.PRNGKey(3))
    weight = np.asarray(buffer.policy_weight)
    assert set(np.unique(weight)) == {0.0, 1.0}
    # One draw per move for the whole batch: the rows of a move share their weight.
    per_move = weight.reshape(moves, BATCH)
    assert np.all(per_move == per_move[:, :1])
    full = int(per_move[:, 0].sum())
    assert int(stats.full) == full * BATCH
    assert 3 <= full <= 18  # 10 expected of 40 at 0.25 (binomial: outside [3, 18] with p < 0.002)
    with pytest.raises(ValueError, match="full_search_fraction"):
        az.SelfPlaySettings(full_search_fraction=1.5)
    with pytest.raises(ValueError, match="cheap_simulations"):
        az.SelfPlaySettings(cheap_simulations=0)


def _with_other_value_head(network):
    """The network with its value head's last layer changed (policy and the rest untouched)."""
    graphdef, variables = network
    net = az.merge(graphdef, variables)
    net.value_out.kernel[...] = -3.0 * net.value_out.kernel[...] + 0.5
    net.value_out.bias[...] = net.value_out.bias[...] + 1.0
    other = az.split(net)[1]
    planes = jnp.zeros((1, 5, 5, CHANNELS.num_channels))
    apply = functools.partial(az.apply, graphdef, train=False)
    assert float(apply(variables, planes)[1][0]) != float(apply(other, planes)[1][0])
    np.testing.assert_array_equal(apply(variables, planes)[0], apply(other, planes)[0])
    return other


def test_playout_weight_one_values_leaves_by_playouts_alone(network):
    """With ``playout_weight`` 1 the search never reads the network's value: two networks that differ
    only there play the same games with the same policy targets; with 0.5 they do not."""
    graphdef, variables = network
    other = _with_other_value_head(network)
    outputs = {}
    for weight in (1.0, 0.5):
        settings = az.SelfPlaySettings(
            search=az.SearchSettings(num_simulations=8), explore_moves=0, playout_weight=weight
        )
        assert isinstance(settings.evaluator(graphdef, variables), mcts.MixedEvaluator)
        play = jax.jit(functools.partial(az.selfplay, CONFIG, settings, graphdef, num_moves=6))
        for name, params in (("net", variables), ("other", other)):
            buffer = az.replay_init(BATCH * 6, 5, CHANNELS.num_channels)
            actor, buffer, _ = play(params, az.selfplay_init(CONFIG, BATCH), buffer, jax.random.PRNGKey(4))
            outputs[weight, name] = (np.asarray(actor.moves), np.asarray(buffer.policy))
    for a, b in zip(outputs[1.0, "net"], outputs[1.0, "other"], strict=True):
        np.testing.assert_array_equal(a, b)
    assert not np.array_equal(outputs[0.5, "net"][1], outputs[0.5, "other"][1])
    plain = az.SelfPlaySettings()
    assert not isinstance(plain.evaluator(graphdef, variables), mcts.MixedEvaluator)
    with pytest.raises(ValueError, match="playout_weight"):
        az.SelfPlaySettings(playout_weight=-0.5)
    with pytest.raises(ValueError, match="playout_policy"):
        az.SelfPlaySettings(playout_policy="random")
    config = training.TrainConfig(playout_weight=0.5, playout_policy="light").selfplay_settings()
    assert (config.playout_weight, config.playout_policy) == (0.5, "light")


def _resign_run(network, threshold: float, check_fraction: float, moves: int = 48):
    """Self-play from fresh games with resignation settings; the buffer, stats and the games' endings."""
    graphdef, variables = network
    settings = az.SelfPlaySettings(
        search=az.SearchSettings(num_simulations=4),
        explore_moves=2,
        resign_threshold=threshold,
        resign_check_fraction=check_fraction,
    )
    play = jax.jit(functools.partial(az.selfplay, CONFIG, settings, graphdef, num_moves=1))
    actor = az.selfplay_init(CONFIG, BATCH)
    actor = dataclasses.replace(actor, no_resign=jnp.full(BATCH, check_fraction >= 1.0))
    buffer = az.replay_init(BATCH * moves, 5, CHANNELS.num_channels)
    ended, totals = [], None
    for move in range(moves):
        position, ply = int(buffer.position), np.asarray(actor.games.move_number)
        actor, buffer, stats = play(
            variables, actor, buffer, jax.random.fold_in(jax.random.PRNGKey(11), move)
        )
        totals = stats if totals is None else jax.tree.map(lambda a, b: a + b, totals, stats)
        host = jax.device_get(actor)
        for b in np.flatnonzero(host.games.move_number == 0):
            length = int(ply[b]) + 1
            ended.append(
                (int(host.last_moves[b, length - 1]), length, float(host.last_result[b]), position + b)
            )
    return jax.device_get(buffer), jax.device_get(totals), ended


def test_resignation_loses_and_is_checked(network):
    buffer, stats, ended = _resign_run(network, threshold=0.01, check_fraction=0.0)
    resigned = [(length, result, row) for last, length, result, row in ended if last == -1]
    assert int(stats.resigned) == len(resigned) > 0  # the rare event happened
    for length, result, row in resigned:
        resigner_black = (length - 1) % 2 == 0
        assert result == (-1.0 if resigner_black else 1.0)  # the resigner lost
        assert bool(buffer.ready[row]) and float(buffer.value[row]) == -1.0  # its last position: a loss
    # Games that never resign play the same moves as with resignation off, and count the would-be resigners.
    plain, plain_stats, _ = _resign_run(network, threshold=0.0, check_fraction=0.0)
    checked, checked_stats, _ = _resign_run(network, threshold=0.01, check_fraction=1.0)
    np.testing.assert_array_equal(checked.value, plain.value)
    np.testing.assert_array_equal(checked.policy, plain.policy)
    assert int(checked_stats.resigned) == 0 and int(plain_stats.resign_checks) == 0
    assert 0 < int(checked_stats.resign_checks) and int(checked_stats.false_resigns) <= int(
        checked_stats.resign_checks
    )
    with pytest.raises(ValueError, match="resign_threshold"):
        az.SelfPlaySettings(resign_threshold=1.5)


# 5x5, every point settled: a black chain with three one-point eyes, a white one with three.
SETTLED_5X5 = """
. X O . O
X X O O O
. X O . O
X X O O O
. X O . O
"""


def test_a_settled_game_ends_scored_as_it_stands(network):
    graphdef, variables = network
    settings = az.SelfPlaySettings(search=az.SearchSettings(num_simulations=4), end_settled=True)
    play = jax.jit(functools.partial(az.selfplay, CONFIG, settings, graphdef, num_moves=1))
    start = gojax.from_ascii(CONFIG, SETTLED_5X5)
    actor = az.selfplay_init(CONFIG, BATCH)
    actor = dataclasses.replace(actor, games=jax.tree.map(lambda x: jnp.stack([x] * BATCH), start))
    buffer = az.replay_init(BATCH * CONFIG.move_cap, 5, CHANNELS.num_channels)
    actor, buffer, stats = play(variables, actor, buffer, jax.random.PRNGKey(5))
    host = jax.device_get(actor)
    # Black's move (a pass, or one of its own eyes: the board stays settled) ends every game.
    assert int(stats.games) == BATCH == int(stats.settled) and int(stats.truncated) == 0
    assert (np.asarray(host.games.move_number) == 0).all()  # reset for the next game
    for b in range(BATCH):
        state = gojax.step(CONFIG, start, int(host.last_moves[b, 0]))
        grid = np.asarray(gojax.board(CONFIG, state))
        margin = ref_area_difference(grid) - CONFIG.komi  # an independent Tromp-Taylor count
        assert float(host.last_score[b]) == margin and float(host.last_result[b]) == np.sign(margin)
        assert bool(buffer.ready[b]) and float(buffer.value[b]) == np.sign(margin)  # black's row: its result
    with pytest.raises(TypeError, match="end_settled"):
        az.SelfPlaySettings(end_settled=1)


def test_each_slot_plays_and_scores_its_games_at_its_own_komi():
    """Komi randomization: each slot's game is scored, and its planes made, at the slot's komi."""
    from flax import nnx

    komis = np.asarray([-20.5, 0.5, 3.5, 30.5], np.float32)
    net = az.PolicyValueNet(
        az.NetworkConfig(blocks=1, channels=8), 5, gojax.features.BASIC_KOMI_NUM_CHANNELS, rngs=nnx.Rngs(0)
    )
    graphdef, variables = az.split(net)
    observe = gojax.features.basic_komi_planes
    search = az.SearchSettings(num_simulations=4)
    settings = az.SelfPlaySettings(search=search, end_settled=True, observe=observe)
    mesh = az.make_mesh(1)
    play = jax.jit(functools.partial(az.selfplay_sharded, CONFIG, settings, graphdef, num_moves=1, mesh=mesh))
    start = gojax.from_ascii(CONFIG, SETTLED_5X5)
    actor = az.selfplay_init(CONFIG, BATCH, komi=komis)
    actor = dataclasses.replace(actor, games=jax.tree.map(lambda x: jnp.stack([x] * BATCH), start))
    channels = gojax.features.BASIC_KOMI_NUM_CHANNELS
    buffer = az.replay_init(BATCH * (CONFIG.move_cap + 1), 5, channels, dtype=jnp.float32, slots=BATCH)
    actor, buffer, stats = play(variables, actor, buffer, jax.random.PRNGKey(5))
    host = jax.device_get(actor)
    assert int(stats.games) == BATCH == int(stats.settled)
    np.testing.assert_array_equal(np.asarray(host.komi), komis)  # the slots keep their komi
    for b in range(BATCH):
        state = gojax.step(CONFIG, start, int(host.last_moves[b, 0]))
        margin = ref_area_difference(np.asarray(gojax.board(CONFIG, state))) - komis[b]
        assert float(host.last_score[b]) == margin and float(host.last_result[b]) == np.sign(margin)
        # Ring b's first row: black to move, the komi plane -komi / 20; the score target at this komi.
        np.testing.assert_allclose(np.asarray(buffer.planes[b, 0, ..., -1]), -komis[b] / 20.0)
        assert float(buffer.score[b, 0]) == margin and bool(buffer.ready[b, 0])
    assert {float(np.sign(m)) for m in np.asarray(host.last_result)} == {-1.0, 1.0}  # the komi decided
    with pytest.raises(ValueError, match="selfplay_sharded"):
        az.selfplay(CONFIG, settings, graphdef, variables, actor, buffer, jax.random.PRNGKey(0), 1)
    with pytest.raises(ValueError, match=r"one komi per slot, shape \(4,\)"):
        az.selfplay_init(CONFIG, BATCH, komi=[7.5, 7.5])
    with pytest.raises(ValueError, match="finite"):
        az.selfplay_init(CONFIG, 2, komi=[7.5, float("nan")])


def _sample(rows: int, size: int = 5, seed: int = 0) -> az.ReplaySample:
    rng = np.random.default_rng(seed)
    points = size * size
    policy = rng.random((rows, points + 1)).astype(np.float32)
    return az.ReplaySample(
        planes=jnp.asarray(rng.integers(0, 2, (rows, size, size, CHANNELS.num_channels)), jnp.float32),
        policy=jnp.asarray(policy / policy.sum(axis=1, keepdims=True)),
        value=jnp.asarray(rng.choice([-1.0, 1.0], rows), jnp.float32),
        rows=jnp.arange(rows, dtype=jnp.int32),
        policy_weight=jnp.asarray(np.arange(rows) % 2, jnp.float32),
        ownership=jnp.asarray(rng.choice([-1.0, 0.0, 1.0], (rows, points)), jnp.float32),
        score=jnp.asarray(rng.normal(0.0, 5.0, rows), jnp.float32),
        # Every kind of answer: none (-1), a point, and pass (P).
        opponent_move=jnp.asarray(np.r_[-1, points, rng.integers(-1, points + 1, rows - 2)], jnp.int32),
    )


def test_loss_reads_each_target_with_its_weight():
    """Cheap rows' policies do not count; the auxiliary terms count only with their weights and heads."""
    from flax import nnx

    config = az.NetworkConfig(
        blocks=1, channels=8, ownership_head=True, score_head=True, global_pooling=True, opponent_head=True
    )
    graphdef, variables = az.split(az.PolicyValueNet(config, 5, CHANNELS.num_channels, rngs=nnx.Rngs(1)))
    sample = _sample(8)
    loss = jax.jit(lambda s, w: az.loss_fn(variables, graphdef, s, w)[0], static_argnums=1)
    base = az.LossWeights()
    cheap = np.asarray(sample.policy_weight) == 0
    garbage = np.asarray(sample.policy).copy()
    garbage[cheap] = np.eye(garbage.shape[1])[0]
    assert float(loss(sample._replace(policy=jnp.asarray(garbage)), base)) == pytest.approx(
        float(loss(sample, base)), rel=1e-6
    )
    full = sample._replace(policy_weight=jnp.ones(8))
    assert float(loss(full._replace(policy=jnp.asarray(garbage)), base)) != pytest.approx(
        float(loss(full, base))
    )
    _, (_, metrics) = az.loss_fn(variables, graphdef, sample, base)
    assert float(metrics.policy_fraction) == 0.5
    with_aux = az.LossWeights(ownership=1.5, score=0.5)
    expected = float(metrics.loss) + 1.5 * float(metrics.ownership_loss) + 0.5 * float(metrics.score_loss)
    assert float(loss(sample, with_aux)) == pytest.approx(expected, rel=1e-5)
    assert float(metrics.ownership_loss) > 0 and float(metrics.score_loss) > 0
    with_opponent = az.LossWeights(opponent=0.15)
    expected = float(metrics.loss) + 0.15 * float(metrics.opponent_loss)
    assert float(loss(sample, with_opponent)) == pytest.approx(expected, rel=1e-5)
    # The opponent term: a cross-entropy over the examples with an answer, by a plain computation.
    out, _ = az.apply_outputs(graphdef, variables, sample.planes, train=True)
    logits, answers = np.asarray(out.opponent_logits, np.float64), np.asarray(sample.opponent_move)
    log_probs = logits - np.log(np.exp(logits).sum(axis=1, keepdims=True))
    known = np.flatnonzero(answers >= 0)
    assert 0 < known.size < answers.size
    expected = -np.mean([log_probs[i, answers[i]] for i in known])
    assert float(metrics.opponent_loss) == pytest.approx(expected, rel=1e-4)
    none = sample._replace(opponent_move=jnp.full((8,), -1, jnp.int32))
    assert float(az.loss_fn(variables, graphdef, none, with_opponent)[1][1].opponent_loss) == 0.0
    with pytest.raises(ValueError, match="ownership"):
        az.LossWeights(ownership=-1.0)
    with pytest.raises(ValueError, match="opponent"):
        az.LossWeights(opponent=-0.1)


def test_ownership_targets_move_with_the_board():
    sample = _sample(16, seed=2)
    # The target is a copy of the first plane: after augmentation it must still be one.
    owner = sample.planes[..., 0].reshape(16, -1)
    planes, _, moved = az.augment_batch(jax.random.PRNGKey(5), sample.planes, sample.policy, owner)
    np.testing.assert_array_equal(np.asarray(moved), np.asarray(planes[..., 0]).reshape(16, -1))
    assert not np.array_equal(np.asarray(moved), np.asarray(owner))  # something really moved


def test_opponent_moves_move_with_the_policy():
    """The answer moves as the policy does (a one-hot policy on the same point), pass and -1 stay."""
    sample = _sample(32, seed=3)
    answers = np.asarray(sample.opponent_move)
    actions = sample.policy.shape[1]
    policy = jnp.asarray(np.eye(actions, dtype=np.float32)[np.where(answers < 0, 0, answers)])
    key = jax.random.PRNGKey(6)
    _, moved_policy, _, moved = az.augment_batch(
        key, sample.planes, policy, sample.ownership, sample.opponent_move
    )
    moved, moved_policy = np.asarray(moved), np.asarray(moved_policy)
    known = answers >= 0
    np.testing.assert_array_equal(moved[known], moved_policy[known].argmax(axis=1))
    np.testing.assert_array_equal(moved[~known], -1)
    np.testing.assert_array_equal(moved[answers == actions - 1], actions - 1)  # pass
    assert np.any(moved[known] != answers[known])  # something really moved


# ----------------------------------------------------------------- augmentation and loss


def _legal_mass_outside(planes: np.ndarray, policy: np.ndarray) -> float:
    legal = np.concatenate(
        [planes[..., CHANNELS.legal].reshape(planes.shape[0], -1), np.ones((planes.shape[0], 1))], axis=1
    )
    return float(np.sum(policy * (legal == 0)))


def test_augmentation_keeps_policy_on_legal_points(selfplay_games):
    _, buffer, _, _ = selfplay_games
    ready = np.flatnonzero(buffer.ready)[:64]
    planes = jnp.asarray(buffer.planes[ready], jnp.float32)
    policy = jnp.asarray(buffer.policy[ready])
    assert _legal_mass_outside(np.asarray(planes), np.asarray(policy)) == 0.0
    moved_planes, moved_policy = az.augment_batch(jax.random.PRNGKey(3), planes, policy)
    moved_planes, moved_policy = np.asarray(moved_planes), np.asarray(moved_policy)
    assert _legal_mass_outside(moved_planes, moved_policy) < 1e-6
    np.testing.assert_allclose(moved_policy[:, -1], np.asarray(policy)[:, -1])  # pass stays
    assert not np.array_equal(moved_planes, np.asarray(planes))  # something really moved
    # The check can fail: planes and policies moved by different symmetries leave mass on illegal points.
    ks = jax.random.randint(jax.random.PRNGKey(4), (len(ready),), 0, 8)
    wrong_planes = jax.vmap(symmetry.transform_board)(ks, planes)
    wrong_policy = jax.vmap(symmetry.transform_policy)((ks + 1) % 8, policy)
    assert _legal_mass_outside(np.asarray(wrong_planes), np.asarray(wrong_policy)) > 0.01


def test_training_overfits_a_fixed_batch(network, selfplay_games):
    graphdef, variables = network
    _, buffer, _, _ = selfplay_games
    ready = np.flatnonzero(buffer.ready)[:32]
    batch = az.replay_gather(jax.device_put(buffer), ready)
    optimizer = az.make_optimizer(az.OptimizerConfig(learning_rate=1e-2, warmup_steps=0))
    step = jax.jit(functools.partial(az.train_step, graphdef, optimizer))
    opt_state = optimizer.init(variables["params"])
    kl, value = [], []
    for _ in range(60):
        variables, opt_state, metrics = step(variables, opt_state, batch)
        # The cross-entropy cannot go below the targets' entropy: watch the KL divergence.
        kl.append(float(metrics.policy_loss - metrics.policy_entropy))
        value.append(float(metrics.value_loss))
    assert np.all(np.isfinite(kl + value))
    assert kl[-1] < 0.3 * kl[0], kl[::10]
    assert value[-1] < 0.3 * value[0], value[::10]


def test_the_moving_average_of_the_variables_weighs_each_step_by_the_decay():
    """Held at ``v`` for ``k`` steps from ``a``, the average is ``v + decay**k (a - v)`` (a closed form,
    not the recurrence); dtypes are kept and an integer array is the latest one."""
    averaged = {
        "params": {"w": jnp.full((3,), 4.0), "h": jnp.full((2,), 2.0, jnp.float16)},
        "n": jnp.int32(1),
    }
    latest = {"params": {"w": jnp.arange(3.0), "h": jnp.zeros(2, jnp.float16)}, "n": jnp.int32(7)}
    step = jax.jit(az.average_variables, static_argnums=2)
    for decay in (0.0, 0.5, 0.9):
        out = averaged
        for _ in range(5):
            out = step(out, latest, decay)
        np.testing.assert_allclose(
            out["params"]["w"], np.arange(3.0) + decay**5 * (4.0 - np.arange(3.0)), 1e-6
        )
        np.testing.assert_allclose(np.float32(out["params"]["h"]), 2.0 * decay**5 * np.ones(2), 1e-3)
        assert out["params"]["h"].dtype == jnp.float16 and int(out["n"]) == 7
    for bad in (1.0, -0.1, float("nan")):  # 1 would never move from the initial weights
        with pytest.raises(ValueError, match=r"TrainConfig\.average_decay"):
            training.TrainConfig(average_decay=bad)


def test_the_learning_rate_scale_is_a_half_cosine_of_the_run_and_scales_the_update(network, selfplay_games):
    """``TrainConfig.lr_scale``: 1 at the start, ``final_lr_fraction`` at the end of ``minutes`` or of
    ``max_iterations``, whichever is the larger share; ``train_step(..., lr_scale=s)`` is the step
    of the learning rate times ``s``, weight decay included."""
    cfg = training.TrainConfig(minutes=10, final_lr_fraction=0.1)
    assert cfg.lr_scale(0, 0) == 1.0 and cfg.lr_scale(10, 0) == pytest.approx(0.1)
    assert cfg.lr_scale(5, 3) == pytest.approx(0.55) and cfg.lr_scale(20, 0) == pytest.approx(0.1)
    assert cfg.lr_scale(2.5, 0) == pytest.approx(0.1 + 0.9 * (1 + math.cos(math.pi / 4)) / 2)
    both = training.TrainConfig(minutes=10, max_iterations=100, final_lr_fraction=0.0)
    assert both.lr_scale(1, 50) == pytest.approx(0.5)  # iterations are the larger share
    assert training.TrainConfig(minutes=10).lr_scale(9, 0) == 1.0  # the default: constant
    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match=r"TrainConfig\.final_lr_fraction"):
            training.TrainConfig(final_lr_fraction=bad)
    graphdef, variables = network
    _, buffer, _, _ = selfplay_games
    batch = az.replay_gather(jax.device_put(buffer), np.flatnonzero(buffer.ready)[:16])
    params = {}
    for rate, scale in ((1e-2, 0.3), (3e-3, None), (1e-2, None)):
        optimizer = az.make_optimizer(
            az.OptimizerConfig(learning_rate=rate, warmup_steps=0, weight_decay=0.1)
        )
        step = functools.partial(az.train_step, graphdef, optimizer, lr_scale=scale)
        params[rate, scale] = jax.jit(step)(variables, optimizer.init(variables["params"]), batch)[0][
            "params"
        ]
    jax.tree.map(
        functools.partial(np.testing.assert_allclose, rtol=1e-5, atol=1e-7),
        params[1e-2, 0.3],
        params[3e-3, None],
    )
    moved = jax.tree.leaves(
        jax.tree.map(lambda a, b: float(jnp.abs(a - b).max()), params[1e-2, 0.3], params[1e-2, None])
    )
    assert max(moved) > 1e-4


def test_a_run_saves_evaluates_and_resumes_the_moving_average(tmp_path):
    """``average_decay``: self-play and the optimizer go on with the latest weights, while the run
    keeps their moving average - one step per training step - and saves, evaluates, checkpoints and
    restores the average (an independent running average of the latest weights after each step)."""
    decay = 0.5
    settings = {**TINY_SETTINGS, "train_steps": 1, "average_decay": decay}
    settings.update(final_lr_fraction=0.25, max_iterations=8)  # the learning rate's schedule too
    cfg = training.TrainConfig(**settings, run_dir=str(tmp_path / "run"))
    tree = lambda x: jax.tree.map(np.asarray, jax.device_get(x))  # noqa: E731
    run = training.TrainingRun(cfg, resume=False)
    try:
        expected = tree(run.state.variables)
        jax.tree.map(np.testing.assert_array_equal, tree(run.state.averaged), expected)
        while run.counters.train_steps < 3:
            assert run.counters.iteration < 8, "no training within 8 iterations"
            before, done = run.counters.train_steps, run.counters.iteration
            row = run.iteration()
            if run.counters.train_steps > before:  # one step: the average moves toward its weights
                latest = tree(run.state.variables)
                expected = jax.tree.map(lambda a, v: decay * a + (1 - decay) * v, expected, latest)
                # A half cosine from 1 to 0.25 over the 8 iterations (minutes are the longer budget).
                assert row["lr_scale"] == pytest.approx(0.25 + 0.75 * (1 + math.cos(math.pi * done / 8)) / 2)
        jax.tree.map(
            functools.partial(np.testing.assert_allclose, rtol=1e-5, atol=1e-7),
            tree(run.state.averaged),
            expected,
        )
        latest = tree(run.state.variables)
        gap = max(
            float(np.abs(a - v).max())
            for a, v in zip(jax.tree.leaves(expected), jax.tree.leaves(latest), strict=True)
        )
        assert gap > 1e-3  # the average is not the latest weights
        seen = []
        run.evaluator.evaluate = lambda variables, *args, **kwargs: seen.append(tree(variables)) or {}
        run.evaluate(2)
        jax.tree.map(np.testing.assert_array_equal, seen[0], tree(run.state.averaged))
        net, _, _ = az.load_checkpoint(run.save_network())
        saved = tree(az.split(net)[1])
        jax.tree.map(np.testing.assert_array_equal, saved["params"], tree(run.state.averaged["params"]))
        run.save()
    finally:
        run.close()
    resumed = training.TrainingRun(cfg, resume=True)
    try:
        jax.tree.map(np.testing.assert_array_equal, tree(resumed.state.averaged), tree(run.state.averaged))
        jax.tree.map(np.testing.assert_array_equal, tree(resumed.state.variables), latest)
    finally:
        resumed.close()
    (tmp_path / "run" / "config.json").write_text(json.dumps(cfg.to_dict()))  # as train() writes it
    _, _, variables, _ = training.restore_run(cfg.run_dir)
    jax.tree.map(np.testing.assert_array_equal, tree(variables), tree(run.state.averaged))


# ----------------------------------------------------------------- settings and flags


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser()
    training.add_arguments(parser)
    return parser


def test_every_config_field_has_a_flag_with_its_help_and_default():
    parser = _parser()
    actions = {a.dest: a for a in parser._actions if a.dest != "help"}
    fields = dataclasses.fields(training.TrainConfig)
    assert sorted(actions) == sorted(f.name for f in fields)
    for field in fields:
        action = actions[field.name]
        assert training.flag_name(field.name) in action.option_strings
        assert field.metadata["help"] and field.metadata["help"] in action.help
        assert "default" in action.help
    assert "--replay-dtype" in actions["replay_dtype"].option_strings
    assert "--lr" in actions["learning_rate"].option_strings
    # Nothing given: nothing set, the defaults stay.
    assert training.from_arguments(parser.parse_args([])) == training.TrainConfig()


def test_flags_round_trip_to_an_equal_config():
    parser = _parser()
    changed = training.TrainConfig(
        size=7,
        komi=9.0,
        ko_rule="simple",
        max_moves=40,
        algorithm="puct",
        gumbel_scale=0.5,
        dirichlet_alpha=0.1,
        batch_per_device=8,
        reuse=2.5,
        replay_dtype="float16",
        optimizer="sgd",
        learning_rate=3e-4,
        augment=False,
        max_iterations=5,
        devices=1,
        eval_opponents=(),
        final_eval_opponents=("pure_mc",),
        run_dir="runs/x y",
        progress=False,
    )
    for config in (training.TrainConfig(), changed):
        argv = training.to_arguments(config)
        assert training.from_arguments(parser.parse_args(argv)) == config
    # Only the changed fields, on top of the defaults.
    short = training.to_arguments(changed, only_changed=True)
    assert "--size" in short and "--blocks" not in short
    assert training.from_arguments(parser.parse_args(short)) == changed
    assert training.from_arguments(parser.parse_args(["--max-moves", "none", "--lr", "0.5"])) == (
        training.TrainConfig(learning_rate=0.5)
    )
    with pytest.raises(SystemExit):
        parser.parse_args(["--replay-dtype", "int4"])


def test_config_builds_the_parts_of_a_run_in_one_place():
    config = training.TrainConfig(
        size=7, komi=9, max_moves=30, blocks=2, channels=16, simulations=12, algorithm="puct",
        dirichlet_fraction=0.1, explore_moves=3, eval_gumbel_scale=0.0, optimizer="sgd",
        learning_rate=0.01, weight_decay=0.0, warmup_steps=7,
    )  # fmt: skip
    assert config.rules() == gojax.GoConfig(size=7, komi=9.0, max_moves=30)
    assert config.network_config() == az.NetworkConfig(
        blocks=2, channels=16, ownership_head=True, score_head=True, global_pooling=True
    )
    assert config.loss_weights() == az.LossWeights(value=1.0, ownership=1.5, score=0.5)
    plain = config.replace(ownership_weight=0.0, score_weight=0.0, global_pooling=False)
    assert plain.network_config() == az.NetworkConfig(blocks=2, channels=16)
    search = config.search_settings()
    assert (search.num_simulations, search.algorithm, search.dirichlet_fraction) == (12, "puct", 0.1)
    selfplay = config.selfplay_settings()
    assert selfplay.search == search and selfplay.explore_moves == 3
    evaluation = config.eval_search_settings()
    assert evaluation == search.for_play().replace(gumbel_scale=0.0)
    assert search.fill_own_eyes and not evaluation.fill_own_eyes  # match play never fills its own eyes
    sparing = config.replace(fill_own_eyes=False)
    assert not sparing.selfplay_settings().search.fill_own_eyes
    assert training.TrainConfig.from_dict({k: v for k, v in config.to_dict().items() if k != "fill_own_eyes"})
    assert config.optimizer_config() == az.OptimizerConfig(
        kind="sgd", learning_rate=0.01, weight_decay=0.0, warmup_steps=7
    )
    assert training.TrainConfig.from_dict(config.to_dict()) == config
    with pytest.raises(ValueError, match=r"SearchSettings\.gumbel_scale .*-1"):
        training.TrainConfig(gumbel_scale=-1.0)
    with pytest.raises(TypeError, match=r"TrainConfig\.batch .*'8'"):
        training.TrainConfig(batch="8")
    with pytest.raises(ValueError, match=r"TrainConfig\.eval_games .*3"):
        training.TrainConfig(eval_games=3)
    with pytest.raises(ValueError, match="unknown opponents"):
        training.TrainConfig(eval_opponents=("gnugo",))
    assert config.observation_spec().name == "basic" and selfplay.observe is az.basic_planes
    ladders = config.replace(observation="basic_ladders")
    assert ladders.selfplay_settings().observe is gojax.features.basic_ladder_planes
    usable = r"\['basic', 'basic_komi', 'basic_ladders'"
    with pytest.raises(ValueError, match=r"'alphago' reads more than the position .*" + usable):
        training.TrainConfig(observation="alphago")
    with pytest.raises(ValueError, match=r"'ladders' is not registered"):
        training.TrainConfig(observation="ladders")


def test_komi_randomization_needs_a_network_that_sees_the_komi():
    with pytest.raises(ValueError, match=r"komi_spread 2.0 .* 'basic' does not show it: .*\['basic_komi'\]"):
        training.TrainConfig(komi_spread=2)
    with pytest.raises(ValueError, match="komi_spread"):
        training.TrainConfig(komi_spread=-1, observation="basic_komi")
    with pytest.raises(ValueError, match=r"'uint8' would round the planes of the observation 'basic_komi'"):
        training.TrainConfig(observation="basic_komi", replay_dtype="uint8")
    plain = training.TrainConfig()
    assert plain.replay_storage() == np.uint8 and plain.slot_komis(8) is None
    config = training.TrainConfig(observation="basic_komi", komi_spread=3.0, seed=4)
    assert config.replay_storage() == np.float16  # the komi plane is not 0 or 1
    komis = config.slot_komis(512)
    assert komis.dtype == np.float32 and komis.shape == (512,)
    np.testing.assert_array_equal(komis, config.slot_komis(512))  # the seed decides
    offsets = komis - config.komi
    np.testing.assert_array_equal(offsets, np.round(offsets))  # whole numbers: 7.5 stays x.5, no draw
    assert 2.5 < float(np.std(offsets)) < 3.5 and abs(float(np.mean(offsets))) < 0.5
    assert not np.array_equal(komis, config.replace(seed=5).slot_komis(512))


def test_a_run_trains_and_saves_the_network_of_its_observation(tmp_path):
    """``--observation basic_komi --komi-spread 2``: the network reads 16 planes, self-play stores
    them (as float16), each slot at its own komi, and the saved network names its observation, so
    that the GTP engine's players compute the same planes, at the komi of their game."""
    from gojax import gtp
    from gojax.gtp._players import player_levels

    settings = {**TINY_SETTINGS, "size": 5, "komi": 0.5, "train_steps": 1}
    cfg = training.TrainConfig(
        **settings, observation="basic_komi", komi_spread=2.0, run_dir=str(tmp_path / "run")
    )
    run = training.TrainingRun(cfg, resume=False)
    try:
        buffer = run.state.buffer
        assert buffer.planes.shape[-1] == gojax.features.BASIC_KOMI_NUM_CHANNELS == 16
        assert buffer.planes.dtype == jnp.float16
        komis = np.asarray(run.state.actor.komi)
        np.testing.assert_array_equal(komis, cfg.slot_komis(cfg.batch))
        assert len(set(komis.tolist())) > 2
        while run.counters.train_steps == 0 and run.counters.iteration < 4:  # training waits for a game
            run.iteration()
        assert run.counters.games > 0 and run.counters.train_steps == 1
        # Every position written shows its slot's komi, for the player to move.
        planes = np.asarray(run.state.buffer.planes[:, :, 0, 0], np.float32)  # [B, rows, 16]
        written = planes[..., CHANNELS.ones] == 1
        black = planes[..., CHANNELS.black_to_move] == 1
        expected = np.where(black, -komis[:, None], komis[:, None]) / 20.0
        assert written.sum() >= cfg.batch * cfg.moves_per_iteration
        np.testing.assert_allclose(planes[..., -1][written], expected[written], rtol=1e-3)
        path = run.save_network()
    finally:
        run.close()
    levels, size = player_levels(gtp.PlayerSpec("policy", checkpoint=path))
    assert size == 5 and levels[0].make(cfg.rules()).observe is gojax.features.basic_komi_planes
    engine = gtp.GTPEngine(gojax.GoConfig(size=5), gtp.PlayerSpec("policy", checkpoint=path))
    try:
        for komi in ("6.5", "-3"):  # komi as data: the network's planes read whatever komi is set
            assert engine.send(f"komi {komi}") == ""
            assert 0 <= gojax.from_gtp(gojax.GoConfig(size=5), engine.send("genmove b")) <= 25
    finally:
        engine.close()


def test_resume_keeps_the_saved_settings_but_the_resumable_ones(tmp_path, capsys):
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    saved = training.TrainConfig(size=5, blocks=1, run_dir=str(run_dir), minutes=1.0)
    (run_dir / "config.json").write_text(json.dumps(saved.to_dict()))
    parser = training.build_parser()
    args = parser.parse_args(["--run-dir", str(run_dir), "--resume", "--blocks", "4", "--minutes", "9"])
    config = training.config_from_arguments(args)
    assert config == saved.replace(minutes=9.0)
    assert "ignoring ['blocks']" in capsys.readouterr().err
    # A moved or copied run resumes in the folder given, not in the one its config.json names.
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "config.json").write_text(json.dumps(saved.to_dict()))
    moved = training.config_from_arguments(parser.parse_args(["--run-dir", str(copy), "--resume"]))
    assert moved == saved.replace(run_dir=str(copy))
    fresh = training.config_from_arguments(parser.parse_args(["--size", "7"]))
    assert fresh == training.TrainConfig(size=7, komi=9.0)  # the fair 7x7 komi


def test_resume_refuses_a_folder_without_a_checkpoint(tmp_path, capsys, monkeypatch):
    from gojax.training import cli

    monkeypatch.delenv("XLA_FLAGS", raising=False)  # restored afterwards, whatever main does
    monkeypatch.setattr(os, "cpu_count", lambda: 4)  # main would split the CPU on a run it starts

    def no_run(*args, **kwargs):  # a run started in place of the refusal fails here, not hours later
        raise AssertionError("gojax-train --resume started a run")

    monkeypatch.setattr(cli, "train", no_run)
    typo = tmp_path / "rnu"
    assert training.main(["--run-dir", str(typo), "--resume"]) == 2
    message = capsys.readouterr().err
    assert message.count("\n") == 1 and f"'{typo}' does not exist" in message
    assert not typo.exists()  # nothing created
    started = tmp_path / "started"  # a run stopped before its first checkpoint: config.json only
    started.mkdir()
    (started / "config.json").write_text(json.dumps(training.TrainConfig(run_dir=str(started)).to_dict()))
    (started / "checkpoints").mkdir()
    assert training.main(["--run-dir", str(started), "--resume"]) == 2
    assert f"'{started}' holds no checkpoint to resume" in capsys.readouterr().err
    assert "XLA_FLAGS" not in os.environ  # a refused run leaves the process's devices alone


def test_host_devices_default_to_one_per_core_that_divides_the_batches(monkeypatch):
    from gojax._host.cpu_devices import FLAG
    from gojax.training.cli import host_devices

    parser = training.build_parser()

    def chosen(*argv):
        args = parser.parse_args(list(argv))
        return host_devices(args, training.config_from_arguments(args))

    monkeypatch.delenv("XLA_FLAGS", raising=False)
    monkeypatch.setattr(os, "cpu_count", lambda: 6)
    assert chosen() == 4  # 6 cores; 4 divides the batches of 128 and 256 games, 6 and 5 do not
    assert chosen("--batch", "96", "--train-batch", "192") == 6
    assert chosen("--batch-per-device", "5") == 4  # --train-batch 256 still divides
    assert chosen("--devices", "2") == 2
    assert chosen("--host-devices", "3") == 3  # asked for: taken as it is
    assert chosen("--distributed") is None
    monkeypatch.setattr(os, "cpu_count", lambda: 64)
    assert chosen() == 8  # at most 8
    monkeypatch.setenv("XLA_FLAGS", f"{FLAG}=2")
    assert chosen() is None  # the environment decides


def _imports(path: Path) -> set[str]:
    """Every module a file imports (top level or not), absolute names."""
    tree = ast.parse(path.read_text())
    package = ".".join(path.relative_to(ROOT).with_suffix("").parts[:-1])
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:  # relative: resolved against the file's package
                parts = package.split(".")
                base = ".".join([*parts[: len(parts) - node.level + 1], base]).rstrip(".")
            names.add(base)
            names |= {f"{base}.{alias.name}" for alias in node.names}
    return names


def test_alphazero_imports_neither_gtp_nor_training_and_gtp_not_training():
    for package, forbidden in (
        ("alphazero", ("gojax.gtp", "gojax.arena", "gojax.training")),
        ("gtp", ("gojax.arena", "gojax.training")),
        ("arena", ("gojax.training",)),
    ):
        for path in sorted((ROOT / "gojax" / package).glob("*.py")):
            bad = sorted(n for n in _imports(path) if n.startswith(forbidden))
            assert not bad, (path.name, bad)
    # At run time too: alphazero loads neither; gtp and arena load no flax (its AlphaZero player loads it
    # when asked), and gtp does not load the arena.
    for module, unwanted in (
        ("gojax.alphazero", ("gojax.gtp", "gojax.arena", "gojax.training")),
        ("gojax.gtp", ("gojax.arena", "gojax.training", "gojax.alphazero", "flax")),
        ("gojax.arena", ("gojax.training", "gojax.alphazero", "flax")),
    ):
        code = f"import sys, {module}; print(sorted(m for m in sys.modules if m.startswith({unwanted!r})))"
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=ROOT, check=True
        )
        assert out.stdout.strip() == "[]", (module, out.stdout)


def test_training_modules_keep_private_names_home():
    # A module is as long as its concept needs; tests/test_architecture.py bounds functions.
    for path in sorted((ROOT / "gojax" / "training").glob("*.py")):
        private = [n for n in _imports(path) if re.search(r"gojax\.(?!training)\w+\._", n)]
        private = [n for n in private if not n.startswith(("gojax._core", "gojax._host", "gojax._version."))]
        assert not private, (path.name, private)


# ----------------------------------------------------------------- subprocesses


def _env(tmp_path: Path, devices: int | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env.setdefault("JAX_COMPILATION_CACHE_DIR", str(tmp_path / "jax_cache"))  # conftest sets a shared one
    env["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "0"
    env["JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES"] = "0"
    env["JAX_PLATFORMS"] = "cpu"
    env["PYTHONFAULTHANDLER"] = "1"  # a crash prints every thread's stack
    if devices:
        env["XLA_FLAGS"] = (
            f"{env.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count={devices}".strip()
        )
    return env


def _complete_steps(directory: Path) -> list[int]:
    if not directory.is_dir():
        return []
    return sorted(int(p.name) for p in directory.iterdir() if p.name.isdigit() and (p / "arrays").is_dir())


def _raw_checkpoint(directory: Path, step: int) -> dict[str, np.ndarray]:
    import orbax.checkpoint as ocp

    with ocp.CheckpointManager(directory, item_names=("arrays", "meta")) as manager:
        restored = manager.restore(
            step, args=ocp.args.Composite(arrays=ocp.args.StandardRestore(), meta=ocp.args.JsonRestore())
        )
    return {k: np.asarray(v) for k, v in restored["arrays"].items()}, restored["meta"]


def test_a_run_checkpoint_of_another_state_is_refused_naming_it(tmp_path):
    """A state with another set of arrays (another gojax version's, or settings that add a head) or
    other shapes is refused with a message that names the checkpoint, not orbax's own error."""
    run = training.RunCheckpoints(tmp_path / "run")
    try:
        run.save(1, {"weights": np.arange(4.0), "step": np.int32(1)}, {"iteration": 1})
        state, meta, step = run.restore({"weights": np.zeros(4), "step": np.int32(0)})
        np.testing.assert_array_equal(state["weights"], np.arange(4.0))
        assert (meta, step) == ({"iteration": 1}, 1)
        grown = {"extra": np.zeros(2, np.int16), "weights": np.zeros(4), "step": np.int32(0)}
        with pytest.raises(ValueError, match=r"checkpoint 1 in .*checkpoints does not hold this"):
            run.restore(grown)
        with pytest.raises(ValueError, match=r"checkpoint 1\b"):
            run.restore({"weights": np.zeros(5), "step": np.int32(0)})
    finally:
        run.close()


def test_a_resumed_run_gets_the_cpu_devices_of_a_new_one(tmp_path):
    """``--resume`` reads the checkpoint (orbax starts JAX's backends) only after asking for the CPU
    devices: a resumed run trains on as many devices as a new one."""
    script = (
        "import jax, sys\n"
        "from gojax.training import cli\n"
        "def checked(run_dir):\n"
        "    jax.devices()  # what reading the checkpoint does: the backends start here\n"
        "cli._not_resumable = checked\n"
        "cli.train = lambda config, resume: print('devices', jax.local_device_count(), resume)\n"
        "sys.exit(cli.main(sys.argv[1:]))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}
    for extra in ([], ["--resume"]):
        argv = [sys.executable, "-c", script, "--run-dir", str(tmp_path), "--host-devices", "2", *extra]
        out = subprocess.run(argv, capture_output=True, text=True, env=env, timeout=300)
        assert out.returncode == 0, out.stderr[-2000:]
        assert f"devices 2 {bool(extra)}" in out.stdout, (extra, out.stdout, out.stderr[-2000:])


def test_kill_and_resume(tmp_path):
    run_dir = tmp_path / "run"
    args = [sys.executable, str(ROOT / "experiments" / "train.py"), *TINY, "--run-dir", str(run_dir)]
    first = subprocess.Popen(
        [*args, "--minutes", "60", "--checkpoint-every", "0"],
        env=_env(tmp_path, devices=4),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        cwd=ROOT,
    )
    checkpoints = run_dir / "checkpoints"
    deadline = time.monotonic() + 600
    try:
        while not [s for s in _complete_steps(checkpoints) if s >= 3]:
            assert first.poll() is None, first.stdout.read().decode()[-3000:]
            assert time.monotonic() < deadline, "no checkpoint within the deadline"
            time.sleep(0.05)
        first.send_signal(signal.SIGKILL)
    finally:
        first.kill()
        first.wait()
    assert first.returncode == -signal.SIGKILL
    saved_step = _complete_steps(checkpoints)[-1]  # orbax renames a checkpoint only once complete
    arrays, meta = _raw_checkpoint(checkpoints, saved_step)
    assert meta["counters"]["iteration"] == saved_step
    assert meta["counters"]["train_steps"] > 0  # the saved network is a trained one, not the initial one
    params_sum = sum(
        float(np.abs(v.astype(np.float64)).sum()) for k, v in arrays.items() if "variables_params" in k
    )

    target = saved_step + 3
    # The resumed run also plays its final games against GNU Go (when installed, as in CI).
    second = subprocess.run(
        [
            *args,
            "--resume",
            "--max-iterations",
            str(target),
            "--checkpoint-every",
            "100",
            "--gnugo-games",
            "2",
            "--gnugo-seconds-per-move",
            "0",  # the fixed search: a time budget would compile its ladder of larger searches too
        ],
        env=_env(tmp_path, devices=4),
        capture_output=True,
        text=True,
        timeout=600,
        cwd=ROOT,
    )
    assert second.returncode == 0, second.stdout[-2000:] + second.stderr[-3000:]
    log = [json.loads(line) for line in (run_dir / "resume_log.jsonl").read_text().splitlines()]
    assert log[-1]["resumed_from"] == saved_step and log[-1]["iteration"] == saved_step
    assert np.isclose(log[-1]["params_abs_sum"], params_sum, rtol=1e-12, atol=0)
    assert _complete_steps(checkpoints)[-1] == target
    assert not [p for p in checkpoints.iterdir() if "tmp" in p.name], "orbax temporary directories left"
    final, final_meta = _raw_checkpoint(checkpoints, target)
    counters = final_meta["counters"]
    assert counters["iteration"] == target and counters["positions"] == target * POSITIONS_PER_ITERATION
    assert counters["train_steps"] > meta["counters"]["train_steps"]
    with open(run_dir / "metrics.csv", newline="") as handle:
        rows = [r for r in csv.DictReader(handle) if r["kind"] == "train"]
    assert [int(r["iteration"]) for r in rows] == list(range(1, target + 1))
    if gnugo_binary() is not None or CI:  # under CI a missing GNU Go fails here
        with open(run_dir / "metrics.csv", newline="") as handle:
            gnugo = [r for r in csv.DictReader(handle) if r["opponent"] == "gnugo_level1"]
        assert len(gnugo) == 1 and gnugo[0]["kind"] == "eval", gnugo
        row = gnugo[0]
        assert int(row["games_played"]) == 2
        assert int(row["wins"]) + int(row["losses"]) + int(row["draws"]) == 2
        assert int(row["step"]) == counters["train_steps"] and int(row["iteration"]) == target
        assert float(row["mean_length"]) > 0
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["iteration"] == target and summary["positions"] == target * POSITIONS_PER_ITERATION
    assert not any(np.isnan(v).any() for v in final.values() if v.dtype.kind == "f")


_MULTI = r"""
import json, os, sys
import jax, numpy as np
import orbax.checkpoint as ocp
from gojax.training import TrainConfig, train
root, common = sys.argv[1], json.loads(sys.argv[2])
out = {"device_count": jax.device_count()}
for name, extra in (("one", {}), ("four", dict(devices=4, batch_per_device=2))):
    summary = train(TrainConfig(run_dir=os.path.join(root, name), **{**common, **extra}))
    keys = ("devices", "batch", "positions", "games", "black_wins", "white_wins", "train_steps",
            "selfplay_shards")
    out[name] = {k: summary[k] for k in keys}
    with ocp.CheckpointManager(os.path.join(root, name, "checkpoints"), item_names=("arrays",)) as m:
        args = ocp.args.Composite(arrays=ocp.args.StandardRestore())
        arrays = m.restore(m.latest_step(), args=args)["arrays"]
    np.savez(os.path.join(root, name + ".npz"), **{k: np.asarray(v) for k, v in arrays.items()})
# The run's latest checkpoint, and the network checkpoint written beside it.
from gojax import alphazero as az
from gojax.training import restore_run
cfg, graphdef, variables, counters = restore_run(os.path.join(root, "one"))
net, _, meta = az.load_checkpoint(os.path.join(root, "one", "network"))
total = lambda tree: float(sum(np.abs(np.asarray(x, np.float64)).sum() for x in jax.tree.leaves(tree)))
out["restored"] = {"iteration": counters.iteration, "train_steps": counters.train_steps, "blocks": cfg.blocks,
                   "params": total(variables["params"]), "network_params": total(az.split(net)[1]["params"]),
                   "network_steps": meta["train_steps"]}
print("RESULT " + json.dumps(out))
"""


# The one-device run compiles what the kill -9 / resume test compiles (same TINY_SETTINGS).
_MULTI_SETTINGS = {
    **TINY_SETTINGS,
    "train_steps": 2,
    "max_iterations": 3,
    "checkpoint_every": 100,
    "progress": False,
}


def test_four_devices_match_one(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-c", _MULTI, str(tmp_path), json.dumps(_MULTI_SETTINGS)],
        env=_env(tmp_path, devices=4),
        capture_output=True,
        text=True,
        timeout=900,  # about 100 s on an idle 2-core machine; room for a loaded one
        cwd=ROOT,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout.split("RESULT ", 1)[1])
    one, four = out["one"], out["four"]
    assert out["device_count"] == 4
    assert (one["devices"], four["devices"]) == (1, 4)
    assert one["batch"] == four["batch"] == 8  # --batch-per-device 2 on 4 devices is the global batch 8
    assert one["selfplay_shards"] == [8] and four["selfplay_shards"] == [2, 2, 2, 2]
    assert four["train_steps"] == one["train_steps"] > 0
    for name in ("positions", "games", "black_wins", "white_wins"):
        assert one[name] == four[name], name
    a, b = np.load(tmp_path / "one.npz"), np.load(tmp_path / "four.npz")
    assert sorted(a.files) == sorted(b.files)
    ready = next(a[k] for k in a.files if k.endswith("buffer_ready"))
    for name in a.files:
        x, y = a[name], b[name]
        if "policy" in name or "variables" in name or "opt_state" in name:
            # Float sums split in 4 partial sums: equal to rounding, not bit for bit.
            np.testing.assert_allclose(
                x.astype(np.float64), y.astype(np.float64), rtol=1e-4, atol=1e-5, err_msg=name
            )
        elif name.endswith("buffer_value"):
            # The search's root value (a network output computed on 1 or 4 devices: equal to
            # rounding), blended half and half with the outcome once the game is finished (another
            # outcome would move a row by 1; the outcomes' scores and owners compare exactly below).
            assert ready.any()
            np.testing.assert_allclose(x, y, rtol=1e-4, atol=1e-5, err_msg=name)
        else:  # games, moves, planes, outcomes, counters, keys: identical
            np.testing.assert_array_equal(x, y, err_msg=name)
    restored = out["restored"]
    saved = sum(float(np.abs(a[k].astype(np.float64)).sum()) for k in a.files if "variables_params" in k)
    assert (restored["iteration"], restored["train_steps"], restored["blocks"]) == (3, one["train_steps"], 1)
    assert restored["network_steps"] == one["train_steps"]
    assert saved > 0 and restored["params"] == saved and restored["network_params"] == saved


def test_the_gnugo_evaluation_plays_the_agents_own_fixed_search(monkeypatch, tmp_path):
    # The agent plays settings.num_simulations a move: no time ladder (which would compile a dozen
    # searches and leave late ones running when the run ends), and its engine is closed at the end.
    from gojax.arena import _match as arena_match
    from gojax.training import evaluation

    monkeypatch.chdir(tmp_path)

    made, closed = [], []

    class Engine:
        def __init__(self, rules, player, options):
            made.append(player)

        def close(self, timeout=30.0):
            closed.append(timeout)

    class Client:
        def __init__(self, command):
            pass

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return False

    asked = []

    def referee(config, black, white, **kwargs):
        asked.append(kwargs["ask_final_score"])
        return types.SimpleNamespace(
            winner=1,  # black wins every game: the agent wins the games it plays black
            moves=[(1, 0), (2, 1)],
            reason="two passes",
            result="B+1",
            seconds=[0.1, 0.2],
            engine_scores={},
            disagreements=0,
            sgf=lambda *args: "(;FF[4])",
        )

    monkeypatch.setattr(evaluation, "GTPEngine", Engine)
    monkeypatch.setattr(evaluation, "GTPClient", Client)
    monkeypatch.setattr(evaluation, "gnugo_command", lambda **kwargs: ["gnugo"])
    monkeypatch.setattr(arena_match, "referee_game", referee)
    settings = training.TrainConfig(simulations=12).eval_search_settings()
    result = evaluation.play_gnugo(CONFIG, "network", 2, settings=settings)
    (player,) = made
    assert player.kind == "az" and player.simulations == 12 and player.seconds_per_move is None
    assert player.search == settings
    assert closed == [None]  # waits for every background search (a timed player compiles some)
    assert (result.wins, result.losses) == (1, 1)  # colours alternate
    assert asked == [False, False]  # no final_score round trip
    assert not list(tmp_path.iterdir())  # no sgf_dir: no SGF
    evaluation.play_gnugo(CONFIG, "network", 2, settings=settings, sgf_dir=str(tmp_path / "games"))
    assert sorted(p.name for p in (tmp_path / "games").iterdir()) == ["game_000.sgf", "game_001.sgf"]
    # With a time budget the same search grows from 12 simulations to what fits.
    evaluation.play_gnugo(CONFIG, "network", 2, settings=settings, seconds_per_move=0.5)
    assert made[-1].simulations == 12 and made[-1].seconds_per_move == 0.5
    with pytest.raises(ValueError, match="seconds_per_move must be"):
        evaluation.play_gnugo(CONFIG, "network", 2, settings=settings, seconds_per_move=0)


def test_the_gnugo_ladder_climbs_at_half_score(monkeypatch, tmp_path):
    """During training the agent plays the level it is on, and moves up once it scores 0.5 there."""
    from types import SimpleNamespace

    from gojax.players.match import summarize_results
    from gojax.training import loop, run

    scores = iter([0.3, 0.5, 0.2, 1.0, 1.0])
    played, budgets = [], []

    def fake_play_gnugo(rules, network, games, *, settings, level, seed, sgf_dir, seconds_per_move):
        played.append(level)
        budgets.append(seconds_per_move)
        score = next(scores)
        wins = round(score * games)
        results = [1.0] * wins + [-1.0] * (games - wins)
        return summarize_results(results, [True, False] * (games // 2), [40] * games, [True] * games)

    monkeypatch.setattr(loop, "play_gnugo", fake_play_gnugo)
    monkeypatch.setattr(loop, "gnugo_available", lambda: True)
    cfg = training.TrainConfig(
        gnugo_every=1.0, gnugo_ladder=(1, 5, 10), gnugo_eval_games=4, run_dir=str(tmp_path)
    )
    logged = []
    fake = SimpleNamespace(
        cfg=cfg,
        counters=run.Counters(),
        rules=cfg.rules(),
        save_network=lambda: str(tmp_path / "network"),
        metrics=SimpleNamespace(log=logged.append),
    )
    for _ in range(5):
        loop._gnugo_rung(fake, lambda text: None)
    assert played == [1, 1, 5, 5, 10]
    assert budgets == [1.0] * 5  # the agent's search spends --gnugo-seconds-per-move, as gojax-gtp's
    assert [row["opponent"] for row in logged] == [f"gnugo_level{level}" for level in played]
    assert all(row["elo_lo"] <= row["elo"] <= row["elo_hi"] for row in logged)
    with pytest.raises(ValueError, match="gnugo_ladder"):
        training.TrainConfig(gnugo_ladder=(1, 11))
