"""Does a run over two processes learn what the same run learns in one? Its loss, iteration by iteration.

::

    python experiments/distributed_loss.py --iterations 60

Runs ``gojax-train`` twice with the same flags and seed (the default 9x9
recipe, ``--max-iterations N``, no evaluation): one process with two CPU
devices (``--host-devices 2``) and two processes with one device each
(``--local-processes 2``). Either way the games are split over two devices
and each game draws its own random numbers
(:func:`gojax.alphazero.selfplay_sharded`), each device samples its half of
a training batch from its own rings, and the gradient is the mean over the
same examples: the runs differ only where sums are split another way (the
all-reduce of two processes goes through gloo), so their losses should
agree to rounding, and stay close as rounding grows through training.

Writes ``docs/results/distributed_loss.csv``, one row per iteration that
trained (the positions played and each run's loss), which
``experiments/report.py`` renders in ``docs/scaling.md``, and
``docs/results/distributed_loss.png``.
"""

from __future__ import annotations

import argparse
import csv
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from provenance import append_rows, provenance

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
ARMS = {"one_process": ["--host-devices", "2"], "two_processes": ["--local-processes", "2"]}
"""Each run's own flags: one process of two devices, two processes of one device."""


def _train(folder: Path, arm: str, iterations: int, batch: int) -> list[dict[str, str]]:
    """Runs one arm to ``iterations`` iterations; returns its ``metrics.csv`` rows that trained."""
    run_dir = folder / arm
    command = [sys.executable, "-c", "import sys; from gojax.scripts import train; sys.exit(train())"]
    command += ARMS[arm]
    command += ["--run-dir", str(run_dir), "--max-iterations", str(iterations), "--minutes", "600"]
    command += ["--batch", str(batch), "--eval-every", "0", "--final-eval-games", "0", "--sgf-games", "0"]
    command += ["--no-progress", "--seed", "0"]
    env = {k: v for k, v in os.environ.items() if k != "XLA_FLAGS"}  # the runs split the CPU themselves
    subprocess.run(command, env=env, check=True, cwd=ROOT)
    with open(run_dir / "metrics.csv", newline="") as handle:
        return [r for r in csv.DictReader(handle) if r["kind"] == "train" and r.get("loss")]


def _plot(rows: list[dict], path: Path) -> None:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(6, 3.5))
    FigureCanvasAgg(figure)
    axis = figure.add_subplot()
    positions = [r["positions"] for r in rows]
    axis.plot(positions, [r["loss_one_process"] for r in rows], label="1 process x 2 devices")
    axis.plot(positions, [r["loss_two_processes"] for r in rows], "--", label="2 processes x 1 device")
    axis.set_xlabel("self-play positions")
    axis.set_ylabel("training loss")
    axis.set_title("gojax-train, 9x9 recipe, the same run in one process and in two")
    axis.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=100)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--iterations", type=int, default=60, help="iterations of each run")
    parser.add_argument("--batch", type=int, default=128, help="self-play games, both devices together")
    parser.add_argument("--csv", type=Path, default=RESULTS / "distributed_loss.csv")
    args = parser.parse_args()
    common = provenance("distributed_loss.py")
    with tempfile.TemporaryDirectory() as folder:
        runs = {arm: _train(Path(folder), arm, args.iterations, args.batch) for arm in ARMS}
    one = {r["iteration"]: r for r in runs["one_process"]}
    two = {r["iteration"]: r for r in runs["two_processes"]}
    rows = []
    for iteration in sorted(set(one) & set(two), key=int):
        a, b = one[iteration], two[iteration]
        if a["positions"] != b["positions"]:
            played = f"{a['positions']} and {b['positions']}"
            raise RuntimeError(f"iteration {iteration}: the runs played {played} positions")
        rows.append(
            {
                **common,
                "iteration": int(iteration),
                "positions": int(a["positions"]),
                "loss_one_process": float(a["loss"]),
                "loss_two_processes": float(b["loss"]),
            }
        )
    if not rows:
        raise RuntimeError("no iteration trained in both runs: raise --iterations")
    if args.csv.exists():
        args.csv.unlink()  # one measurement per file: the runs' curves, not a history
    append_rows(args.csv, rows, list(rows[0]))
    _plot(rows, args.csv.with_suffix(".png"))
    print(f"{len(rows)} iterations compared -> {args.csv}, {args.csv.with_suffix('.png')}")


if __name__ == "__main__":
    main()
