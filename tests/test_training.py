"""AlphaZero self-play training: replay buffer, self-play targets, augmentation, loss, resume, devices.

Tiny settings throughout (5x5, a 1-block 8-channel network, 4 simulations);
each jitted function is compiled once per module. Expected values come from
hand-written ring positions, from replaying the self-play games with
:func:`gojax.step` and scoring them with the plain-Python Tromp-Taylor scorer
below, and from gojax's legal mask. Two tests start ``experiments/train.py``
or the trainer in a subprocess: the kill -9 / resume test, and the 4-device
test (``--xla_force_host_platform_device_count=4``); both share a persistent
JAX compilation cache under ``tmp_path`` between their processes.
"""

from __future__ import annotations

import csv
import functools
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import CI, TEST_EXTRA, gnugo_binary, ref_area_difference

pytest.importorskip("flax", reason=TEST_EXTRA)
pytest.importorskip("optax", reason=TEST_EXTRA)
pytest.importorskip("orbax.checkpoint", reason=TEST_EXTRA)
pytest.importorskip("mctx", reason=TEST_EXTRA)

import gojax
from gojax import symmetry
from gojax.alphazero import _network as net_lib
from gojax.alphazero import _observe, _replay, _selfplay, _training

ROOT = Path(__file__).resolve().parents[1]
# Positional superko (the default), a short move cap so that every game ends within the test.
CONFIG = gojax.GoConfig(size=5, komi=0.5, max_moves=16)
CHANNELS = _observe.BASIC_CHANNELS
BATCH = 4
TINY = [
    "--size",
    "5",
    "--blocks",
    "1",
    "--channels",
    "8",
    "--simulations",
    "4",
    "--batch",
    "4",
    "--moves-per-iteration",
    "4",
    "--train-batch",
    "16",
    "--replay-capacity",
    "512",
    "--min-replay",
    "8",
    "--max-moves",
    "16",
    "--ko-rule",
    "simple",
    "--eval-every",
    "0",
    "--final-eval-games",
    "0",
    "--sgf-games",
    "0",
    "--no-progress",
]


# ----------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def network():
    from flax import nnx

    net = net_lib.PolicyValueNet(
        net_lib.NetworkConfig(blocks=1, channels=8), 5, CHANNELS.num_channels, rngs=nnx.Rngs(0)
    )
    return net_lib.split(net)


@pytest.fixture(scope="module")
def selfplay_games(network):
    """Self-play one move per call, recording each finished game's rows and moves on the host."""
    graphdef, variables = network
    settings = _selfplay.SelfPlaySettings(num_simulations=4, explore_moves=4)
    play = jax.jit(functools.partial(_selfplay.selfplay, CONFIG, settings, graphdef, num_moves=1))
    actor = _selfplay.selfplay_init(CONFIG, BATCH)
    buffer = _replay.replay_init(BATCH * CONFIG.move_cap * 4, 5, CHANNELS.num_channels)  # no wrap-around
    rows = [[] for _ in range(BATCH)]
    games, pending_ready = [], []
    key = jax.random.PRNGKey(7)
    for move in range(3 * CONFIG.move_cap):
        position = int(buffer.position)
        ply = np.asarray(actor.games.move_number)
        actor, buffer, _ = play(variables, actor, buffer, jax.random.fold_in(key, move))
        host = jax.device_get(actor)
        for b in range(BATCH):
            rows[b].append(position + b)
            if int(host.games.move_number[b]) == 0:  # the game in slot b ended and was reset
                length = int(ply[b]) + 1
                moves = [int(m) for m in host.last_moves[b, :length]]
                games.append({"rows": rows[b], "moves": moves, "result": float(host.last_result[b])})
                rows[b] = []
        ready = np.asarray(buffer.ready)
        pending_ready += [bool(ready[r]) for slot in rows for r in slot]
    return games, jax.device_get(buffer), pending_ready


@pytest.fixture(scope="module")
def jitted_step():
    """``(state, action) -> (next state, legal mask of next, planes of next)``, compiled once."""

    def one(state, action):
        after = gojax.step(CONFIG, state, action)
        return after, gojax.legal_action_mask(CONFIG, after), _observe.basic_planes(CONFIG, after)

    return jax.jit(one)


@functools.cache
def _start():
    """The empty board, its legal mask and planes (computed once)."""
    state = gojax.init(CONFIG)
    return (
        state,
        np.asarray(gojax.legal_action_mask(CONFIG, state)),
        np.asarray(_observe.basic_planes(CONFIG, state)),
    )


# ----------------------------------------------------------------- replay buffer


def test_replay_ring_wraps_around_and_masks():
    buf = _replay.replay_init(5, 2, 1, dtype=jnp.float32)
    planes = lambda vals: jnp.asarray(vals, jnp.float32)[:, None, None, None] * jnp.ones((1, 2, 2, 1))  # noqa: E731
    policy = jnp.tile(jnp.eye(5)[None, 0], (4, 1))
    buf = _replay.replay_add(buf, planes([1, 2, 3]), policy[:3], jnp.asarray([1.0, -1.0, 1.0]))
    assert int(buf.position) == 3 and int(buf.written) == 3
    buf = _replay.replay_add(buf, planes([4, 5, 6, 7]), policy, jnp.asarray([-1.0, 1.0, -1.0, 1.0]))
    # Rows 0..4 received examples 1..5, then 6 and 7 overwrote rows 0 and 1.
    assert np.asarray(buf.planes)[:, 0, 0, 0].tolist() == [6, 7, 3, 4, 5]
    assert np.asarray(buf.value).tolist() == [-1, 1, 1, -1, 1]
    assert int(buf.position) == 2 and int(buf.written) == 7 and bool(np.all(buf.ready))
    # A mask stores only the chosen examples, in consecutive rows.
    buf = _replay.replay_add(
        buf, planes([8, 9, 10]), policy[:3], jnp.zeros(3), jnp.asarray([True, False, True])
    )
    assert np.asarray(buf.planes)[:, 0, 0, 0].tolist() == [6, 7, 8, 10, 5]
    assert int(buf.position) == 4


def test_replay_samples_only_finished_rows():
    buf = _replay.replay_init(8, 2, 1, dtype=jnp.float32)
    policy = jnp.tile(jnp.eye(5)[None, 4], (3, 1))
    buf, rows = _replay.replay_write(buf, jnp.zeros((3, 2, 2, 1)), policy)
    assert np.asarray(rows).tolist() == [0, 1, 2] and not bool(np.any(buf.ready))
    buf = _replay.replay_finish(buf, rows, jnp.asarray([1.0, -1.0, 1.0]), jnp.asarray([False, True, False]))
    _, _, z, drawn = _replay.replay_sample(buf, jax.random.PRNGKey(0), 200)
    assert set(np.asarray(drawn).tolist()) == {1} and np.all(np.asarray(z) == -1.0)
    buf = _replay.replay_finish(buf, rows, jnp.asarray([1.0, -1.0, 0.5]), jnp.ones(3, bool))
    _, _, _, drawn = _replay.replay_sample(buf, jax.random.PRNGKey(1), 300)
    assert set(np.asarray(drawn).tolist()) == {0, 1, 2}
    with pytest.raises(ValueError, match="smaller than games"):
        _replay.check_capacity(100, 4, 32)


# ----------------------------------------------------------------- self-play targets


def test_selfplay_outcomes_match_an_independent_score(selfplay_games, jitted_step):
    games, buffer, pending_ready = selfplay_games
    assert len(games) >= BATCH
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
        for ply, row in enumerate(game["rows"]):
            assert bool(buffer.ready[row])
            mover_sign = 1.0 if ply % 2 == 0 else -1.0
            assert buffer.value[row] == black * mover_sign, (ply, row)
    assert 0 < ended_by_passes < len(games), "want both passed-out and move-capped games"


def test_selfplay_policy_targets_on_legal_moves(selfplay_games, jitted_step):
    games, buffer, _ = selfplay_games
    for game in games:
        state, legal, expected = _start()
        for row, move in zip(game["rows"], game["moves"], strict=True):
            legal = np.asarray(legal)
            target = np.asarray(buffer.policy[row])
            assert abs(target.sum() - 1.0) < 1e-5
            assert np.all(target[~legal] == 0.0), np.flatnonzero(target[~legal] > 0)
            np.testing.assert_array_equal(np.asarray(buffer.planes[row], np.float32), np.asarray(expected))
            state, legal, expected = jitted_step(state, move)


# ----------------------------------------------------------------- augmentation and loss


def _legal_mass_outside(planes: np.ndarray, policy: np.ndarray) -> float:
    legal = np.concatenate(
        [planes[..., CHANNELS.legal].reshape(planes.shape[0], -1), np.ones((planes.shape[0], 1))], axis=1
    )
    return float(np.sum(policy * (legal == 0)))


def test_augmentation_keeps_policy_on_legal_points(selfplay_games):
    _, buffer, _ = selfplay_games
    ready = np.flatnonzero(buffer.ready)[:64]
    planes = jnp.asarray(buffer.planes[ready], jnp.float32)
    policy = jnp.asarray(buffer.policy[ready])
    assert _legal_mass_outside(np.asarray(planes), np.asarray(policy)) == 0.0
    moved_planes, moved_policy = _training.augment_batch(jax.random.PRNGKey(3), planes, policy)
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
    _, buffer, _ = selfplay_games
    ready = np.flatnonzero(buffer.ready)[:32]
    batch = (
        jnp.asarray(buffer.planes[ready], jnp.float32),
        jnp.asarray(buffer.policy[ready]),
        jnp.asarray(buffer.value[ready]),
    )
    optimizer = _training.make_optimizer(_training.OptimizerConfig(learning_rate=1e-2, warmup_steps=0))
    step = jax.jit(functools.partial(_training.train_step, graphdef, optimizer))
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


# ----------------------------------------------------------------- subprocesses


def _env(tmp_path: Path, devices: int | None = None) -> dict[str, str]:
    env = dict(os.environ)
    env["JAX_COMPILATION_CACHE_DIR"] = str(tmp_path / "jax_cache")
    env["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "0"
    env["JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES"] = "0"
    env["JAX_PLATFORMS"] = "cpu"
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


def test_kill_and_resume(tmp_path):
    run_dir = tmp_path / "run"
    args = [sys.executable, str(ROOT / "experiments" / "train.py"), *TINY, "--run-dir", str(run_dir)]
    first = subprocess.Popen(
        [*args, "--minutes", "60", "--checkpoint-every", "0"],
        env=_env(tmp_path),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        cwd=ROOT,
    )
    checkpoints = run_dir / "checkpoints"
    deadline = time.monotonic() + 240
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
        ],
        env=_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=240,
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
    assert counters["iteration"] == target and counters["positions"] == target * 4 * 4
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
    assert summary["iteration"] == target and summary["positions"] == target * 16
    assert not any(np.isnan(v).any() for v in final.values() if v.dtype.kind == "f")


_MULTI = r"""
import json, os, sys
import jax, numpy as np
import orbax.checkpoint as ocp
from gojax.alphazero._trainer import TrainConfig, train
root = sys.argv[1]
common = dict(size=5, blocks=1, channels=8, simulations=4, moves_per_iteration=4, max_moves=8,
              train_batch=16, replay_capacity=512, min_replay=1, train_steps=2, max_iterations=3,
              eval_every=0, optimizer="sgd", learning_rate=0.05, final_eval_games=0, sgf_games=0,
              checkpoint_every=100, progress=False, ko_rule="simple")
out = {"device_count": jax.device_count()}
for name, extra in (("one", dict(devices=1, batch=8)), ("four", dict(devices=4, batch_per_device=2))):
    summary = train(TrainConfig(run_dir=os.path.join(root, name), **common, **extra))
    keys = ("devices", "batch", "positions", "games", "black_wins", "white_wins", "train_steps",
            "selfplay_shards")
    out[name] = {k: summary[k] for k in keys}
    with ocp.CheckpointManager(os.path.join(root, name, "checkpoints"), item_names=("arrays",)) as m:
        args = ocp.args.Composite(arrays=ocp.args.StandardRestore())
        arrays = m.restore(m.latest_step(), args=args)["arrays"]
    np.savez(os.path.join(root, name + ".npz"), **{k: np.asarray(v) for k, v in arrays.items()})
print("RESULT " + json.dumps(out))
"""


def test_four_devices_match_one(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-c", _MULTI, str(tmp_path)],
        env=_env(tmp_path, devices=4),
        capture_output=True,
        text=True,
        timeout=300,
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
    for name in a.files:
        x, y = a[name], b[name]
        if "policy" in name or "variables" in name or "opt_state" in name:
            # Float sums split in 4 partial sums: equal to rounding, not bit for bit.
            np.testing.assert_allclose(
                x.astype(np.float64), y.astype(np.float64), rtol=1e-4, atol=1e-5, err_msg=name
            )
        else:  # games, moves, planes, outcomes, counters, keys: identical
            np.testing.assert_array_equal(x, y, err_msg=name)
