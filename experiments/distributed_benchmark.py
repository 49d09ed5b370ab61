"""Self-play and training speed of ``gojax-train`` on one process or several, and what crosses between them.

::

    python experiments/distributed_benchmark.py                 # 1x1, 1x2, 2x1 (processes x devices)
    python experiments/distributed_benchmark.py --layouts 1x1 2x1 2x1-free --repeats 3

For each layout ``PxD`` it runs ``P`` processes of ``D`` CPU devices each
(``P > 1``: :func:`gojax.training.run_local_processes`, gloo over the
loopback interface, each process pinned to its own ``D`` cores; ``P = 1``:
one process pinned to ``D`` cores; ``PxD-free``: every process free to run on
every core, as ``gojax-train --local-processes`` starts them) with the default 9x9 recipe of
:class:`gojax.training.TrainConfig` and ``--batch`` games in all. Each
process builds the run (:class:`gojax.training.TrainingRun`), compiles the
full and the cheap self-play and the training step, then times
``--iterations`` self-play iterations (the same full / cheap draws in every
layout) and ``--steps`` training steps. It records, per layout:

* ``positions_per_s``: self-play positions per second, all processes together;
* ``train_step_s``: seconds per training step;
* ``compiled_*_bytes``: the bytes of the collectives of the compiled self-play
  call and training step (:func:`gojax.training.collective_bytes`);
* ``loopback_*_bytes``: the bytes that crossed the loopback interface
  (``/proc/net/dev``, received) during the timed self-play calls and training
  steps, per call and per step: what the processes really sent each other
  (with anything else using the loopback meanwhile);
* the load average before and after (the machine may be shared);
* the date, the machine and the command.

The layouts take turns ``--repeats`` times (1x1, 1x2, 2x1, 1x1, ...), so a
change of the machine's load meets every layout; a row gives the median run's
figures and the lowest and highest positions per second.

Results go to ``docs/results/distributed_cpu.csv`` (one row per layout; the
file is rewritten; ``experiments/report.py`` renders its table in
``docs/scaling.md``) and ``docs/results/distributed_cpu.png``.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from provenance import provenance

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
FIELDS = [
    "date",
    "machine",
    "command",
    "layout",
    "pinned",
    "processes",
    "devices_per_process",
    "batch",
    "iterations",
    "repeats",
    "positions_per_s",
    "positions_per_s_low",
    "positions_per_s_high",
    "selfplay_s_per_iteration",
    "train_step_s",
    "compiled_selfplay_bytes",
    "compiled_train_step_bytes",
    "loopback_selfplay_bytes",
    "loopback_train_step_bytes",
    "load_before",
    "load_after",
]


def _loopback() -> int:
    """Bytes received so far on the loopback interface (0 where /proc/net/dev is missing)."""
    try:
        for line in Path("/proc/net/dev").read_text().splitlines():
            name, _, rest = line.partition(":")
            if name.strip() == "lo":
                return int(rest.split()[0])
    except OSError:
        pass
    return 0


def _worker(args: argparse.Namespace) -> None:
    """One process of a layout: build the run, compile, time self-play and training, report (process 0)."""
    import jax

    from gojax import alphazero as az
    from gojax.training import TrainConfig, TrainingRun, gather_json

    if args.num_processes and args.num_processes > 1:
        az.initialize_distributed(args.coordinator, args.num_processes, args.process_id)
    # The run folder is the launcher's, shared by the processes (orbax's checkpoints would be).
    cfg = TrainConfig(
        batch=args.batch, min_replay=10**9, eval_every=0, progress=False, run_dir=args.run_dir, seed=0
    )
    run = TrainingRun(cfg, resume=False)
    state = run.state
    for full in (True, False):  # compile both self-plays, outside the timing
        actor, buffer, *_ = run.play(state.variables, state.actor, state.buffer, state.key, full)
        state = state.replace(actor=actor, buffer=buffer)
    run.state = state
    traffic = run.measure_traffic()  # compiles the training step too
    start, received = time.perf_counter(), _loopback()
    for _ in range(args.iterations):
        run.iteration()
    positions = run.counters.positions
    selfplay_s, selfplay_bytes = time.perf_counter() - start, _loopback() - received
    state = run.state
    variables, opt_state, averaged = state.variables, state.opt_state, state.averaged
    scale = run.lr_scale()
    variables, opt_state, averaged, *_ = run.learn(
        variables, opt_state, averaged, state.buffer, state.key, scale
    )  # warm
    jax.block_until_ready(variables)
    start, received = time.perf_counter(), _loopback()
    for key in jax.random.split(state.key, args.steps):
        variables, opt_state, averaged, *_ = run.learn(
            variables, opt_state, averaged, state.buffer, key, scale
        )
    jax.block_until_ready(variables)
    step_s, step_bytes = time.perf_counter() - start, _loopback() - received
    gather_json(0)  # every process is done before the report
    if jax.process_index() == 0:
        row = {
            "batch": run.batch,
            "iterations": args.iterations,
            "positions_per_s": positions / selfplay_s,
            "selfplay_s_per_iteration": selfplay_s / args.iterations,
            "train_step_s": step_s / args.steps,
            "compiled_selfplay_bytes": traffic["exchanged_per_selfplay"],
            "compiled_train_step_bytes": traffic["exchanged_per_train_step"],
            "loopback_selfplay_bytes": selfplay_bytes / args.iterations,
            "loopback_train_step_bytes": step_bytes / args.steps,
        }
        Path(args.out).write_text(json.dumps(row))
    run.close()


def _layout(text: str) -> tuple[int, int, bool]:
    """``"PxD"`` or ``"PxD-free"`` -> (processes, devices per process, pinned)."""
    shape, _, free = text.lower().partition("-")
    if free not in ("", "free"):
        raise ValueError(f"a layout is PxD or PxD-free, got {text!r}")
    processes, devices = (int(x) for x in shape.split("x"))
    return processes, devices, not free


def _measure(layout: str, args: argparse.Namespace) -> dict:
    """Runs one layout in fresh processes; returns its row."""
    from gojax.training import run_local_processes

    processes, devices, pinned = _layout(layout)
    with tempfile.TemporaryDirectory() as folder:
        out = os.path.join(folder, "row.json")
        flags = [
            "--worker",
            "--out",
            out,
            "--run-dir",
            os.path.join(folder, "run"),
            "--batch",
            str(args.batch),
        ]
        flags += ["--iterations", str(args.iterations), "--steps", str(args.steps)]
        load = os.getloadavg()[0]
        if processes == 1:
            env = dict(os.environ, XLA_FLAGS=f"--xla_force_host_platform_device_count={devices}")
            cores = set(sorted(os.sched_getaffinity(0))[: devices if pinned else None])
            command = [sys.executable, __file__, *flags]
            status = subprocess.run(
                command, env=env, preexec_fn=lambda: os.sched_setaffinity(0, cores)
            ).returncode
        else:
            command = [sys.executable, __file__]
            status = run_local_processes(
                flags, processes, devices, pin=pinned, command=command, name="distributed_benchmark.py"
            )
        if status != 0:
            raise RuntimeError(f"layout {layout} failed with status {status}")
        row = json.loads(Path(out).read_text())
    row.update(layout=layout, pinned=pinned, processes=processes, devices_per_process=devices)
    row["load_before"] = load
    row["load_after"] = os.getloadavg()[0]
    return row


def _median_row(runs: list[dict]) -> dict:
    """The run of median positions per second, with the repeats and the lowest and highest rates."""
    ordered = sorted(runs, key=lambda r: r["positions_per_s"])
    rates = [r["positions_per_s"] for r in ordered]
    return {
        **ordered[(len(ordered) - 1) // 2],
        "repeats": len(runs),
        "positions_per_s_low": rates[0],
        "positions_per_s_high": rates[-1],
    }


def _rounded(value):
    """Floats to 4 significant digits (the timings are not better than that); the rest unchanged."""
    return float(f"{value:.4g}") if isinstance(value, float) else value


def _plot(rows: list[dict], path: Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(6, 3.5))
    FigureCanvasAgg(figure)
    axis = figure.add_subplot()
    names = [r["layout"] for r in rows]
    rates = [r["positions_per_s"] for r in rows]
    spread = [
        [r["positions_per_s"] - r["positions_per_s_low"] for r in rows],
        [r["positions_per_s_high"] - r["positions_per_s"] for r in rows],
    ]
    axis.bar(names, rates, yerr=spread, capsize=4, color="#4a7fb5")
    axis.set_xlabel("processes x devices per process")
    axis.set_ylabel("self-play positions / s")
    axis.set_title(
        f"gojax-train self-play, 9x9 recipe, batch {rows[0]['batch']}, CPU\n"
        f"median of {rows[0]['repeats']} runs, bars from the lowest to the highest"
    )
    figure.tight_layout()
    figure.savefig(path, dpi=100)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--layouts", nargs="+", default=["1x1", "1x2", "2x1"])
    parser.add_argument("--batch", type=int, default=128, help="self-play games, all processes together")
    parser.add_argument("--iterations", type=int, default=6, help="timed self-play iterations")
    parser.add_argument("--steps", type=int, default=8, help="timed training steps")
    parser.add_argument("--repeats", type=int, default=3, help="runs of each layout, taking turns")
    parser.add_argument("--csv", type=Path, default=RESULTS / "distributed_cpu.csv")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--run-dir", help=argparse.SUPPRESS)
    for name in ("--coordinator", "--num-processes", "--process-id", "--host-devices"):
        parser.add_argument(name, type=str if name == "--coordinator" else int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        if args.host_devices:
            from gojax._host.cpu_devices import split_host_cpu

            split_host_cpu(args.host_devices)
        _worker(args)
        return
    common = provenance("distributed_benchmark.py")
    for layout in args.layouts:
        _layout(layout)  # a bad layout fails before any run
    runs: dict[str, list[dict]] = {layout: [] for layout in args.layouts}
    for _ in range(args.repeats):
        for layout in args.layouts:
            runs[layout].append({**common, **_measure(layout, args)})
            print(json.dumps(runs[layout][-1]), flush=True)
    rows = [_median_row(runs[layout]) for layout in args.layouts]
    args.csv.parent.mkdir(parents=True, exist_ok=True)
    with open(args.csv, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows([{k: _rounded(r[k]) for k in FIELDS} for r in rows])
    _plot(rows, args.csv.with_suffix(".png"))
    print(f"-> {args.csv}, {args.csv.with_suffix('.png')}")


if __name__ == "__main__":
    main()
