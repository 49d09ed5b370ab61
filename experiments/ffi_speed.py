"""The native kernels as XLA FFI custom calls against another revision's: feature planes and GTP start-up.

Two measurements, each of this checkout and of ``--against REV`` (a git
revision of this repository, exported with ``git archive`` and its kernels
compiled as an install would: ``feature_speed.import_revision``), side by
side in the same run:

* **Features** (default): ``jit(vmap(...))`` of the AlphaGo planes, the
  KataGo planes and Benson's pass-alive analysis (``features.pass_alive``)
  on whole-game positions (``benchmark.steady_state``), at each ``--sizes``
  and ``--batches``. A timing is the mean time of as many calls as fill
  ``--seconds`` (one call at least); the candidates are timed in turn within
  each of ``--repeats`` rounds (the order reversed every other round), and a
  row holds the median over rounds, and the median of the per-round ratio
  ``REV / this`` (above 1: this checkout is faster).
* **GTP start** (``--gtp``): ``python -m gojax.gtp --size 9`` (the default
  player) with a warm compilation cache (one start of each revision fills
  its own cache first): the seconds from the process's start to the answer
  of its first ``genmove``, and to that of a ``final_status_list dead``
  after it (the dead-stone judgement, Benson's analysis included), median
  of ``--repeats`` interleaved starts.

Rows go to ``--csv`` (default ``docs/results/ffi_speed.csv``, replaced) with
the date, the machine, the load average before and after, and the command;
``--plot`` draws the features' ratios.

    PYTHONPATH=. python experiments/ffi_speed.py --against 585599b
    PYTHONPATH=. python experiments/ffi_speed.py --against 585599b --gtp --csv docs/results/gtp_start.csv
"""

from __future__ import annotations

import argparse
import atexit
import csv
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import jax

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchmark import goenv_engine, steady_state
from feature_speed import _build_kernels as build_kernels
from feature_speed import as_revision, import_revision
from provenance import provenance

import gojax

ROOT = Path(__file__).resolve().parents[1]
PRESETS = ("alphago", "katago", "benson")


def _preset(package, name: str, config):
    features = package.features
    if name == "alphago":
        return lambda g, h: features.alphago_planes(config, g, h, dtype=jax.numpy.bool_)
    if name == "katago":
        return lambda g, h: features.katago_planes(config, g, h, dtype=jax.numpy.bool_)
    return lambda g, h: features.pass_alive(config, g)


def _per_call(compiled, args, seconds: float) -> float:
    """Mean seconds a call of ``compiled(*args)`` over at least ``seconds`` (one call at least)."""
    calls, begin = 0, time.perf_counter()
    while True:
        jax.block_until_ready(compiled(*args))
        calls += 1
        elapsed = time.perf_counter() - begin
        if elapsed >= seconds:
            return elapsed / calls


def _git(*args: str) -> list[str]:
    return ["git", "-C", str(ROOT), *args]


def _load() -> str:
    return f"{os.getloadavg()[0]:.1f}"


def measure_features(args, base) -> list[dict]:
    """Rows of the features' timings (see the module docstring)."""
    rows = []
    for size in args.sizes:
        config, base_config = gojax.GoConfig(size=size), base.GoConfig(size=size)
        pool = steady_state(goenv_engine(size, observation=None), 64, 2 * size * size, jax.random.PRNGKey(7))
        for batch in args.batches:
            tile = jax.tree.map(lambda x, n=batch: x[jax.numpy.arange(n) % x.shape[0]], pool)
            mine = (tile._game, tile._history)
            theirs = (as_revision(tile._game), as_revision(tile._history))
            runs = {}
            for name in args.presets:
                for who, package, cfg, inputs in (
                    ("this", gojax, config, mine),
                    (args.against, base, base_config, theirs),
                ):
                    function = jax.jit(jax.vmap(_preset(package, name, cfg)))
                    compiled = function.lower(*inputs).compile()
                    jax.block_until_ready(compiled(*inputs))
                    runs[(name, who)] = (compiled, inputs, [])
            load_before = _load()
            order = list(runs)
            for repeat in range(args.repeats):
                for key in order if repeat % 2 == 0 else order[::-1]:
                    compiled, inputs, times = runs[key]
                    times.append(_per_call(compiled, inputs, args.seconds))
            load_after = _load()
            for name in args.presets:
                this, that = runs[(name, "this")][2], runs[(name, args.against)][2]
                ratio = statistics.median(b / a for a, b in zip(this, that, strict=True))
                for who, times in (("this", this), (args.against, that)):
                    per_call = statistics.median(times)
                    rows.append(
                        {
                            "size": size,
                            "batch": batch,
                            "preset": name,
                            "revision": args.head if who == "this" else args.against,
                            "us_per_call": f"{per_call * 1e6:.1f}",
                            "boards_per_s": f"{batch / per_call:.0f}",
                            "ratio_against_over_this": f"{ratio:.3f}",
                            "repeats": args.repeats,
                            "load_before": load_before,
                            "load_after": load_after,
                        }
                    )
                    print(rows[-1], flush=True)
    return rows


def _package_root(revision: str) -> Path:
    """A folder holding ``revision``'s package as an importable ``gojax``, its kernels built."""
    folder = Path(tempfile.mkdtemp(prefix="gojax_gtp_"))
    atexit.register(shutil.rmtree, folder, True)
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", revision, "gojax"], check=True, capture_output=True
    )
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive.stdout, check=True)
    build_kernels(folder / "gojax")
    return folder


def _gtp_start(root: Path, cache: Path) -> tuple[float, float]:
    """Seconds from the start of a GTP engine to its answers of ``genmove`` and ``final_status_list``."""
    env = {**os.environ, "PYTHONPATH": str(root), "GOJAX_COMPILE_CACHE": str(cache)}
    env.pop("JAX_COMPILATION_CACHE_DIR", None)
    begin = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "gojax.gtp", "--size", "9", "--seed", "1"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=root,
    )
    assert process.stdin is not None and process.stdout is not None
    answers = []
    for command in ("genmove b", "final_status_list dead"):
        process.stdin.write(command + "\n")
        process.stdin.flush()
        line = process.stdout.readline()
        assert line.startswith("="), f"{command}: {line!r}"
        while line.strip():
            line = process.stdout.readline()
        answers.append(time.perf_counter() - begin)
    process.stdin.write("quit\n")
    process.stdin.flush()
    process.wait(timeout=120)
    return answers[0], answers[1]


def measure_gtp(args) -> list[dict]:
    roots = {"this": ROOT, args.against: _package_root(args.against)}
    caches = {who: Path(tempfile.mkdtemp(prefix="gojax_cache_")) for who in roots}
    for who, root in roots.items():  # fill each cache
        _gtp_start(root, caches[who])
    load_before = _load()
    times: dict[str, list[tuple[float, float]]] = {who: [] for who in roots}
    for repeat in range(args.repeats):
        for who in list(roots) if repeat % 2 == 0 else list(roots)[::-1]:
            times[who].append(_gtp_start(roots[who], caches[who]))
    load_after = _load()
    rows = []
    for who, pairs in times.items():
        rows.append(
            {
                "revision": args.head if who == "this" else args.against,
                "first_genmove_s": f"{statistics.median(p[0] for p in pairs):.2f}",
                "then_final_status_s": f"{statistics.median(p[1] for p in pairs):.2f}",
                "repeats": args.repeats,
                "load_before": load_before,
                "load_after": load_after,
            }
        )
        print(rows[-1], flush=True)
    return rows


def plot(rows: list[dict], head: str, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sizes = sorted({int(r["size"]) for r in rows})
    figure, axes = plt.subplots(1, len(sizes), figsize=(5 * len(sizes), 3.6), squeeze=False)
    for axis, size in zip(axes[0], sizes, strict=True):
        for name in PRESETS:
            mine = [
                r for r in rows if int(r["size"]) == size and r["preset"] == name and r["revision"] == head
            ]
            if not mine:
                continue
            batches = [int(r["batch"]) for r in mine]
            axis.plot(batches, [float(r["ratio_against_over_this"]) for r in mine], marker="o", label=name)
        axis.axhline(1.0, color="grey", linewidth=0.8)
        axis.set_xscale("log", base=2)
        axis.set_xlabel("batch")
        axis.set_title(f"{size}x{size}")
        axis.set_ylabel("pure_callback time / FFI time")
        axis.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=110)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", required=True, metavar="REV")
    parser.add_argument("--sizes", type=int, nargs="+", default=[9, 19])
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 8, 1024])
    parser.add_argument("--presets", nargs="+", default=list(PRESETS), choices=PRESETS)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seconds", type=float, default=0.2, help="least time of one timing")
    parser.add_argument("--gtp", action="store_true", help="time the GTP engine's start instead")
    parser.add_argument("--csv", type=Path, default=ROOT / "docs" / "results" / "ffi_speed.csv")
    parser.add_argument("--plot", type=Path, default=None)
    args = parser.parse_args(argv)
    head = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    )
    dirty = subprocess.run(
        ["git", "-C", str(ROOT), "status", "--porcelain", "gojax"], capture_output=True, text=True
    )
    args.head = head.stdout.strip() + ("+" if dirty.stdout.strip() else "")
    rows = measure_gtp(args) if args.gtp else measure_features(args, import_revision(args.against))
    common = provenance("ffi_speed.py", argv)
    rows = [{**common, **row} for row in rows]
    args.csv.parent.mkdir(parents=True, exist_ok=True)
    with open(args.csv, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    if args.plot and not args.gtp:
        plot(rows, args.head, args.plot)


if __name__ == "__main__":
    main()
