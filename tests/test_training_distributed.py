"""Training over several processes (JAX's multi-controller runtime, CPU collectives through gloo).

In-process: the replay buffer's rings (one per self-play game) against the
one-ring buffer, the sampling groups, the network checksum, the collective
byte count, the launcher's arguments. In subprocesses, on one CPU device per
process: ``gojax-train --local-processes 2`` trains three iterations once
for the module (the fixture ``two``: both processes play, their networks
agree bit for bit after every step, one checkpoint is written by both),
``--resume`` on one process continues it, and a fresh one-process run
computes the same games and, to rounding, the same network; two processes
started with ``--coordinator``/``--num-processes``/``--process-id``: one
killed once the run has started stops the other within 60 s, naming it;
started with different settings, both refuse to run.
"""

from __future__ import annotations

import csv
import dataclasses
import functools
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import TEST_EXTRA

pytest.importorskip("flax", reason=TEST_EXTRA)
pytest.importorskip("orbax.checkpoint", reason=TEST_EXTRA)
pytest.importorskip("mctx", reason=TEST_EXTRA)

import gojax
from gojax import alphazero as az
from gojax import training
from gojax.training import launch

ROOT = Path(__file__).resolve().parents[1]
CONFIG = gojax.GoConfig(size=5, komi=0.5, max_moves=8, ko_rule="simple")
CHANNELS = az.BASIC_CHANNELS.num_channels

# Tiny runs: every game ends within 8 moves, so games finish from the second iteration on.
SETTINGS = {
    "size": 5,
    "blocks": 1,
    "channels": 8,
    "simulations": 4,
    "full_search_fraction": 1.0,  # one compiled self-play
    "batch": 8,
    "moves_per_iteration": 4,
    "train_batch": 16,
    "train_steps": 2,
    "replay_capacity": 512,
    "min_replay": 1,
    "max_moves": 8,
    "ko_rule": "simple",
    "optimizer": "sgd",
    "learning_rate": 0.05,
    "eval_every": 0,
    "final_eval_games": 0,
    "sgf_games": 0,
    "checkpoint_every": 100,
}
FLAGS = [a for k, v in SETTINGS.items() for a in (training.flag_name(k), str(v))] + ["--no-progress"]
TRAIN = [sys.executable, "-c", "import sys; from gojax.training import main; sys.exit(main(sys.argv[1:]))"]


# ----------------------------------------------------------------- in one process


@pytest.fixture(scope="module")
def network():
    from flax import nnx

    return az.split(az.PolicyValueNet(az.NetworkConfig(blocks=1, channels=8), 5, CHANNELS, rngs=nnx.Rngs(0)))


def test_rings_hold_what_the_one_ring_buffer_holds(network):
    """Self-play into one ring per game stores each game's positions, in order, in its own ring,
    with the same planes, targets and outcomes (here blended with the root values) as the
    one-ring buffer (checked against an independent scorer in test_training.py)."""
    graphdef, variables = network
    search = az.SearchSettings(num_simulations=4)
    settings = az.SelfPlaySettings(search=search, explore_moves=4, root_value_weight=0.5)
    batch, moves = 4, 12
    play = jax.jit(functools.partial(az.selfplay, CONFIG, settings, graphdef, num_moves=moves))
    key = jax.random.PRNGKey(5)
    flat = az.replay_init(batch * moves, 5, CHANNELS)
    rings = az.replay_init(batch * 16, 5, CHANNELS, slots=batch)
    assert rings.slots == batch and rings.capacity == 16 and flat.slots is None
    actor_a, flat, stats_a = play(variables, az.selfplay_init(CONFIG, batch), flat, key)
    actor_b, rings, stats_b = play(variables, az.selfplay_init(CONFIG, batch), rings, key)
    # The same games (only the row numbers they keep differ: rows of the buffer, rows of a ring).
    same_a = (dataclasses.replace(actor_a, rows=None), stats_a)
    same_b = (dataclasses.replace(actor_b, rows=None), stats_b)
    for a, b in zip(jax.tree.leaves(same_a), jax.tree.leaves(same_b), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    assert int(stats_b.games) >= batch  # games ended: their rows are finished
    np.testing.assert_array_equal(np.asarray(rings.written), [moves] * batch)
    for name in ("planes", "policy", "policy_weight", "value", "ownership", "score", "ready"):
        one = np.asarray(getattr(flat, name))  # row t * B + b: game slot b's move t
        per_game = one.reshape((moves, batch, *one.shape[1:])).swapaxes(0, 1)
        stored = np.asarray(getattr(rings, name))[:, :moves]
        if name == "value":  # outcomes blended with root values: two programs, equal to rounding
            np.testing.assert_allclose(stored, per_game, rtol=1e-6, atol=1e-7, err_msg=name)
        else:
            np.testing.assert_array_equal(stored, per_game, err_msg=name)
    finished = np.asarray(rings.value)[np.asarray(rings.ready)]  # outcomes blended with root values
    assert finished.size and np.any(finished % 1 != 0)
    with pytest.raises(ValueError, match="rings"):
        play(variables, az.selfplay_init(CONFIG, batch), az.replay_init(64, 5, CHANNELS, slots=2), key)
    with pytest.raises(ValueError, match="move cap"):
        az.check_capacity(8 * 8, 8, 8, slots=True)  # a ring of 8 rows for games of up to 8 moves


def test_sampling_groups_draw_ready_rows_of_their_own_rings():
    rings, ring_rows, batch = 6, 5, 4  # gcd(6, 4) = 2 groups: rings 0-2 (examples 0, 1), rings 3-5 (2, 3)
    buffer = az.replay_init(rings * ring_rows, 2, 1, dtype=jnp.float32, slots=rings)
    ready = np.zeros((rings, ring_rows), bool)
    ready[1, [0, 3]] = True
    ready[4, 2] = True
    buffer = buffer.replace(ready=jnp.asarray(ready))
    np.testing.assert_array_equal(np.asarray(az.replay_ready_groups(buffer, batch)), [2, 1])
    drawn = set()
    for seed in range(40):
        rows = np.asarray(az.replay_sample(buffer, jax.random.PRNGKey(seed), batch).rows)
        assert set(rows[:2]) <= {1 * ring_rows + 0, 1 * ring_rows + 3}, rows
        assert set(rows[2:]) == {4 * ring_rows + 2}, rows
        drawn |= set(rows[:2].tolist())
    assert drawn == {5, 8}  # both ready rows of the first group are drawn
    with pytest.raises(ValueError, match="rings"):
        az.replay_ready_groups(az.replay_init(8, 2, 1), 4)


def test_checksum_sees_one_bit_and_replicas_are_compared():
    params = {"w": jnp.linspace(-1.0, 1.0, 12).reshape(3, 4), "b": jnp.zeros(4)}
    base = int(training.checksum(params))
    bits = np.asarray(params["w"]).view(np.uint32).copy()
    bits[2, 1] ^= 1  # the last bit of one entry
    flipped = {"w": jnp.asarray(bits.view(np.float32)), "b": params["b"]}
    assert int(training.checksum(flipped)) != base
    swapped = {"w": params["w"].T.reshape(3, 4), "b": params["b"]}  # the same values elsewhere
    assert int(training.checksum(swapped)) != base
    assert int(jax.jit(training.checksum)(params)) == base
    # One process: its devices' checksums are compared (here two devices that disagree at step 3).
    training.same_network_everywhere(np.array([[7, 7], [9, 9]], np.uint32), first_step=0)
    with pytest.raises(RuntimeError, match="after training step 3"):
        training.same_network_everywhere(np.array([[7, 7], [9, 8]], np.uint32), first_step=1)


def test_collective_bytes_reads_the_compiled_program():
    text = "\n".join(
        [
            "  %a = f32[8,16]{1,0} all-reduce(f32[8,16]{1,0} %x), replica_groups={{0,1}}",
            "  %b = (f32[4]{0}, s8[10]{0}) all-reduce-start(f32[4]{0} %y, s8[10]{0} %z)",
            "  %c = (f32[4]{0}, s8[10]{0}) all-reduce-done((f32[4]{0}, s8[10]{0}) %b)",
            "  %d = pred[2,3]{1,0} all-gather(pred[1,3]{1,0} %p), dimensions={0}",
            "  %e = f32[1000]{0} add(f32[1000]{0} %q, f32[1000]{0} %q)",
        ]
    )
    assert training.collective_bytes(text) == 8 * 16 * 4 + (4 * 4 + 10) + 6
    assert training.collective_bytes("%f = f32[3]{0} multiply(f32[3]{0} %a, f32[3]{0} %a)") == 0


def test_launcher_arguments_and_core_shares():
    argv = ["--batch", "8", "--local-processes", "2", "--host-devices=3", "--run-dir", "r"]
    child = launch.child_arguments(argv, 2, 1, 4567, 1)
    assert child == [
        "--batch",
        "8",
        "--run-dir",
        "r",
        "--coordinator",
        "127.0.0.1:4567",
        "--num-processes",
        "2",
        "--process-id",
        "1",
        "--host-devices",
        "1",
    ]
    assert launch.share_of_cores(2, [8, 16], cores=2) == 1
    assert launch.share_of_cores(2, [8, 16], cores=8) == 4
    assert launch.share_of_cores(2, [12, 16], cores=8) == 2  # 2 * 4 and 2 * 3 do not divide 12 and 16
    assert launch.share_of_cores(4, [8], cores=2) == 1
    assert az.process_devices() == jax.devices()
    with pytest.raises(ValueError, match="devices per process"):
        az.process_devices(len(jax.devices()) + 1)


# ----------------------------------------------------------------- several processes


@pytest.fixture(scope="module")
def env(tmp_path_factory) -> dict[str, str]:
    """The subprocesses' environment: this checkout first on the path, one compilation cache."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), *filter(None, [env.get("PYTHONPATH")])])
    env.setdefault("JAX_COMPILATION_CACHE_DIR", str(tmp_path_factory.mktemp("jax_cache")))
    env["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = "0"
    env["JAX_PLATFORMS"] = "cpu"
    # The suite's compile flags (conftest) without a device count: each run splits its own CPU.
    env["XLA_FLAGS"] = " ".join(f for f in env.get("XLA_FLAGS", "").split() if "device_count" not in f)
    return env


def _steps(directory: Path) -> list[int]:
    if not directory.is_dir():
        return []
    return sorted(int(p.name) for p in directory.iterdir() if p.name.isdigit() and (p / "arrays").is_dir())


def _checkpoint(directory: Path, step: int) -> tuple[dict[str, np.ndarray], dict]:
    import orbax.checkpoint as ocp

    handlers = {"arrays": ocp.StandardCheckpointHandler(), "meta": ocp.JsonCheckpointHandler()}
    with ocp.CheckpointManager(directory, item_handlers=handlers) as manager:
        # Onto this process's one device, whatever devices wrote it.
        here = jax.sharding.SingleDeviceSharding(jax.devices()[0])
        saved = manager.item_metadata(step)["arrays"]
        target = {k: jax.ShapeDtypeStruct(m.shape, m.dtype, sharding=here) for k, m in saved.items()}
        restored = manager.restore(
            step,
            args=ocp.args.Composite(arrays=ocp.args.StandardRestore(target), meta=ocp.args.JsonRestore()),
        )
    return {k: np.asarray(v) for k, v in restored["arrays"].items()}, restored["meta"]


def _params(arrays: dict[str, np.ndarray]) -> list[tuple[str, np.ndarray]]:
    """The network's parameters among a run checkpoint's arrays."""
    return [(k, v) for k, v in arrays.items() if "variables_params" in k]


def _process_logs(run_dir: Path) -> list[list[dict]]:
    return [
        [json.loads(line) for line in (run_dir / "processes" / f"{p}.jsonl").read_text().splitlines()]
        for p in range(2)
    ]


def _run(args: list[str], env: dict[str, str], timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(args, env=env, capture_output=True, text=True, timeout=timeout, cwd=ROOT)


THREE = [*FLAGS, "--max-iterations", "3"]


@pytest.fixture(scope="module")
def two(tmp_path_factory, env) -> tuple[Path, str]:
    """``gojax-train --local-processes 2``, three iterations: the run the tests below read (once a module).

    Returns:
      ``(run_dir, output)``.
    """
    run_dir = tmp_path_factory.mktemp("two") / "run"
    result = _run([*TRAIN, *THREE, "--run-dir", str(run_dir), "--local-processes", "2"], env)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    return run_dir, result.stdout


def test_both_processes_play_and_their_networks_agree_after_every_step(two):
    run_dir, output = two
    assert "2 process(es), 2 device(s): the devices exchange" in output
    # Both processes played: rows of their own games are ready; their networks agreed after every step.
    logs = _process_logs(run_dir)
    assert [len(log) for log in logs] == [3, 3]
    assert logs[0][0]["pid"] != logs[1][0]["pid"]
    for log in logs:
        assert log[-1]["local_devices"] == 1
        assert log[-1]["positions_written"] == 3 * 4 * SETTINGS["batch"] // 2
        assert log[-1]["positions_ready"] > 0
    steps = [[c for record in log for c in record["checksums"]] for log in logs]
    assert len(steps[0]) == logs[0][-1]["train_steps"] > 0 and steps[0] == steps[1]
    assert len(set(steps[0])) == len(steps[0])  # every step changed the network
    # A training step all-reduces at least the gradient: as many float32 numbers as parameters.
    with open(run_dir / "metrics.csv", newline="") as handle:
        rows = list(csv.DictReader(handle))
    params_bytes = sum(v.nbytes for _, v in _params(_checkpoint(run_dir / "checkpoints", 3)[0]))
    assert int(rows[-1]["exchanged_per_train_step_bytes"]) >= params_bytes > 0
    assert int(rows[-1]["exchanged_per_selfplay_bytes"]) < 1000  # the game counts, not the games


def test_the_processes_write_one_checkpoint_together(two):
    run_dir, _ = two
    train_steps = _process_logs(run_dir)[0][-1]["train_steps"]
    checkpoints = run_dir / "checkpoints"
    assert _steps(checkpoints) == [3]  # the final one (--checkpoint-every 100)
    assert not [p for p in checkpoints.iterdir() if "tmp" in p.name]
    _, meta = _checkpoint(checkpoints, 3)
    assert meta["counters"]["iteration"] == 3 and meta["counters"]["train_steps"] == train_steps
    assert meta["counters"]["positions"] == 3 * 4 * SETTINGS["batch"]
    assert az.load_checkpoint(run_dir / "network")[2]["train_steps"] == train_steps


def test_one_process_resumes_the_checkpoint_of_two(two, tmp_path, env):
    run_dir = tmp_path / "two"
    shutil.copytree(two[0], run_dir)  # the module's run stays as it was
    arrays, _ = _checkpoint(run_dir / "checkpoints", 3)
    resume = ["--run-dir", str(run_dir), "--resume", "--max-iterations", "4", "--host-devices", "1"]
    more = _run([*TRAIN, *resume], env)
    assert more.returncode == 0, more.stderr[-3000:]
    resumed = json.loads((run_dir / "resume_log.jsonl").read_text().splitlines()[-1])
    params = sum(float(np.abs(v.astype(np.float64)).sum()) for k, v in _params(arrays))
    assert resumed["resumed_from"] == 3 and resumed["params_abs_sum"] == params
    assert _steps(run_dir / "checkpoints")[-1] == 4
    assert _checkpoint(run_dir / "checkpoints", 4)[1]["counters"]["positions"] == 4 * 4 * SETTINGS["batch"]


def test_one_process_computes_what_two_did(two, tmp_path, env):
    """The same games and, to rounding, the same network."""
    arrays, _ = _checkpoint(two[0] / "checkpoints", 3)
    alone = tmp_path / "one"
    one = _run([*TRAIN, *THREE, "--run-dir", str(alone), "--host-devices", "1"], env)
    assert one.returncode == 0, one.stderr[-3000:]
    single, _ = _checkpoint(alone / "checkpoints", 3)
    assert sorted(single) == sorted(arrays)
    ready = next(v for k, v in arrays.items() if k.endswith("buffer_ready"))
    for name, value in arrays.items():
        if "variables" in name or "opt_state" in name or "policy" in name:
            # Gradients summed in 2 partial sums instead of 1: equal to rounding, not bit for bit.
            np.testing.assert_allclose(single[name], value, rtol=1e-4, atol=1e-5, err_msg=name)
        elif name.endswith("buffer_value"):
            # The search's root value (a network output computed on other batches: equal to
            # rounding), blended half and half with the outcome once the game is finished (another
            # outcome would move a row by 1; the outcomes' scores and owners compare exactly).
            assert ready.any()
            np.testing.assert_allclose(single[name], value, rtol=1e-4, atol=1e-5, err_msg=name)
        else:  # games, positions, outcomes, keys: identical
            np.testing.assert_array_equal(single[name], value, err_msg=name)


def _start(args: list[str], env: dict[str, str], port: int, count: int = 2) -> list[subprocess.Popen]:
    common = ["--coordinator", f"127.0.0.1:{port}", "--num-processes", str(count), "--host-devices", "1"]
    return [
        subprocess.Popen(
            [*TRAIN, *args[index], *common, "--process-id", str(index)],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=ROOT,
        )
        for index in range(count)
    ]


def test_a_killed_process_stops_the_other_naming_it(tmp_path, env):
    run_dir = tmp_path / "run"
    args = [*FLAGS, "--minutes", "60", "--run-dir", str(run_dir)]
    processes = _start([args, args], env, launch.free_port())
    try:
        # Process 0 writes config.json once the run is built (both processes are watching each
        # other by then), and goes on to compile and play its first iteration.
        started = run_dir / "config.json"
        deadline = time.monotonic() + 600
        while not started.exists():
            assert all(p.poll() is None for p in processes), processes[0].communicate()[0][-3000:]
            assert time.monotonic() < deadline, "the run did not start within the deadline"
            time.sleep(0.1)
        processes[1].send_signal(signal.SIGKILL)
        killed = time.monotonic()
        out, _ = processes[0].communicate(timeout=60)
        stopped = time.monotonic() - killed
    finally:
        for process in processes:
            process.kill()
            process.wait()
    assert processes[0].returncode != 0
    assert stopped < 60
    pid = processes[1].pid
    assert f"gojax-train: process 0: process 1 of 2 (pid {pid}) stopped; stopping" in out, out[-3000:]


def test_processes_with_different_settings_are_refused(tmp_path, env):
    run_dir = str(tmp_path / "run")
    first = [*FLAGS, "--run-dir", run_dir, "--max-iterations", "1"]
    second = [*first, "--batch", "16", "--seed", "3"]
    processes = _start([first, second], env, launch.free_port())
    outputs = [p.communicate(timeout=300)[0] for p in processes]
    for process, out in zip(processes, outputs, strict=True):
        assert process.returncode == 2, out[-3000:]
        assert "different settings" in out
        assert "batch: process 0 has 8, process 1 has 16" in out
        assert "seed: process 0 has 0, process 1 has 3" in out
    assert not (tmp_path / "run" / "checkpoints").exists()
