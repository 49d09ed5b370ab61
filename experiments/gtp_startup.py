"""Time to the first move of ``gojax-gtp``: from a cold (empty) and a warm compilation cache.

::

    python experiments/gtp_startup.py                       # 9x9, UCT 128, 2 warm runs
    python experiments/gtp_startup.py --player mcts --warm 3 --skip-no-cache \\
        --csv docs/results/gtp_startup.csv

Starts ``python -m gojax.gtp --size N --player P --compile-cache DIR`` as a
subprocess with a fresh, empty ``DIR`` (cold), then ``--warm`` more times with
the same ``DIR`` (warm), and once with ``--no-compile-cache``. Each run sends
``boardsize N``, ``clear_board``, ``genmove b``, ``quit`` and times, end to
end from the start of the process, the reply to ``genmove`` (the time a GUI
waits for the engine's first move) and the whole process, and reads the
process's CPU time (user + system: on a busy machine the wall times grow, the
CPU time much less). Prints a table; with ``--csv`` appends one row per run
(date, machine, command, the run and its times, load average before and
after); ``experiments/report.py`` renders ``docs/gtp.md``'s table from it.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from provenance import append_rows, provenance

REPO = Path(__file__).resolve().parents[1]


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--player", default="uct")
    parser.add_argument("--simulations", type=int, default=128)
    parser.add_argument("--warm", type=int, default=2, help="warm runs (default 2)")
    parser.add_argument("--skip-no-cache", action="store_true", help="leave out the run without a cache")
    parser.add_argument("--csv", type=Path, help="append one row per run to this CSV")
    return parser.parse_args(argv)


FIELDS = ["date", "machine", "command", "size", "player", "run", "genmove_s", "process_s", "cpu_s"]
FIELDS += ["load_before", "load_after"]


def _append(path: Path, rows: list[dict], argv: list[str] | None, load_before: float) -> None:
    common = provenance("gtp_startup.py", argv)
    common.update(load_before=f"{load_before:.1f}", load_after=f"{os.getloadavg()[0]:.1f}")
    times = ("genmove_s", "process_s", "cpu_s")
    rows = [{**common, **row, **{k: f"{row[k]:.1f}" for k in times}} for row in rows]
    append_rows(path, rows, FIELDS, extrasaction="ignore")  # a row's "move" is printed, not kept


def one_run(args: argparse.Namespace, cache: list[str]) -> dict:
    """Seconds to the ``genmove`` reply and to the end of the process, from the start of the process."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-m", "gojax.gtp", "--size", str(args.size), "--player", args.player]
    command += ["--simulations", str(args.simulations), "--log-level", "WARNING", *cache]
    start = time.perf_counter()
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env
    )
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(f"boardsize {args.size}\nclear_board\ngenmove b\n")
    process.stdin.flush()
    replies = 0
    move = ""
    while replies < 3:
        line = process.stdout.readline()
        if not line:
            raise RuntimeError("the engine exited early")
        if line.startswith("="):
            replies += 1
            move = line[1:].strip()
    first_move = time.perf_counter() - start
    process.stdin.write("quit\n")
    process.stdin.close()
    _, _, usage = os.wait4(process.pid, 0)
    process.returncode = 0
    cpu = usage.ru_utime + usage.ru_stime
    return {"genmove_s": first_move, "process_s": time.perf_counter() - start, "cpu_s": cpu, "move": move}


def main(argv=None) -> int:
    args = parse_args(argv)
    load_before = os.getloadavg()[0]
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        cache = ["--compile-cache", str(Path(folder) / "cache")]
        runs = [("cold", cache)] + [("warm", cache)] * args.warm
        if not args.skip_no_cache:
            runs.append(("no cache", ["--no-compile-cache"]))
        for label, flags in runs:
            result = one_run(args, flags)
            rows.append({"size": args.size, "player": args.player, "run": label, **result})
            seconds = f"genmove after {result['genmove_s']:6.1f} s  process {result['process_s']:6.1f} s"
            seconds += f"  (CPU {result['cpu_s']:5.1f} s)"
            print(f"{label:9s} {seconds}", flush=True)
    warm = [r["genmove_s"] for r in rows if r["run"] == "warm"]
    board = f"{args.size}x{args.size} {args.player}"
    print(f"\n{board}: first genmove cold {rows[0]['genmove_s']:.1f} s, ", end="")
    print(f"warm median {statistics.median(warm):.1f} s")
    print("\n| run | genmove reply (s) | process (s) | process CPU (s) |\n|---|---|---|---|")
    for row in rows:
        print(f"| {row['run']} | {row['genmove_s']:.1f} | {row['process_s']:.1f} | {row['cpu_s']:.1f} |")
    if args.csv is not None:
        _append(args.csv, rows, argv, load_before)
    return 0


if __name__ == "__main__":
    sys.exit(main())
