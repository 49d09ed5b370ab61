"""How long the test suite takes, whole and by tier, as CI runs it (2 workers, ``CI=true``).

    python experiments/suite_times.py                         # unit tier, then the whole suite
    python experiments/suite_times.py --tiers unit --csv docs/results/test_tiers.csv

Each tier runs in a fresh ``pytest`` process with ``-n 2 --dist loadfile``
(the README's test command) and, by default, an empty JAX compilation cache
(as on a clean clone: ``--warm`` keeps the cache between the runs instead:
``--warm --tiers unit unit`` times the quick loop as a developer meets it,
the second run on the cache the first filled).
Appends one row per run to the CSV (date, machine, command, tier, tests,
failed, seconds, cache, load average before and after; a run
with failing tests is timed too, says so, and prints their names);
``experiments/report.py``
renders ``docs/testing.md``'s table from it.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from provenance import append_rows, provenance

ROOT = Path(__file__).resolve().parents[1]
FIELDS = [
    "date",
    "machine",
    "command",
    "tier",
    "tests",
    "failed",
    "seconds",
    "cache",
    "load_before",
    "load_after",
]
TIERS = {
    "unit": ["-m", "unit"],
    "reference": ["-m", "reference"],
    "integration": ["-m", "integration"],
    "all": [],
}


def run_tier(tier: str, cache: Path, workers: int) -> dict[str, str]:
    """Runs one tier; its row (without date, machine and command)."""
    env = {**os.environ, "CI": "true", "JAX_COMPILATION_CACHE_DIR": str(cache)}
    env.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", "0")  # what tests/conftest.py sets
    argv = [sys.executable, "-m", "pytest", "-q", "-rf", "-n", str(workers), "--dist", "loadfile"]
    argv += TIERS[tier]
    load_before = f"{os.getloadavg()[0]:.1f}"
    start = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr[-500:]
    passed, failed = re.search(r"(\d+) passed", summary), re.search(r"(\d+) failed", summary)
    if done.returncode != 0 and not failed:  # not a run of the tests (a collection or usage error)
        raise SystemExit(f"suite_times: the {tier} tier did not run: {summary}")
    if failed:
        names = [line for line in done.stdout.splitlines() if line.startswith("FAILED ")]
        print(f"suite_times: {tier}: {summary}", *names, sep="\n", file=sys.stderr)
    return {
        "tier": tier,
        "tests": str(int(passed[1] if passed else 0) + int(failed[1] if failed else 0)),
        "failed": failed[1] if failed else "0",
        "seconds": f"{seconds:.0f}",
        "load_before": load_before,
        "load_after": f"{os.getloadavg()[0]:.1f}",
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tiers", nargs="+", choices=sorted(TIERS), default=["unit", "all"])
    parser.add_argument("--workers", type=int, default=2, help="pytest-xdist workers (CI: 2)")
    parser.add_argument(
        "--warm", action="store_true", help="one JAX cache for every run (default: empty each)"
    )
    parser.add_argument("--csv", type=Path, default=ROOT / "docs" / "results" / "test_tiers.csv")
    args = parser.parse_args(argv)
    shared = Path(tempfile.mkdtemp(prefix="gojax-suite-cache-"))
    rows = []
    for i, tier in enumerate(args.tiers):
        cache = shared if args.warm else Path(tempfile.mkdtemp(prefix="gojax-suite-cache-"))
        row = run_tier(tier, cache, args.workers)
        row.update(
            provenance("suite_times.py", argv),
            cache="warm" if args.warm and i > 0 else "empty",  # with --warm, the first run fills it
        )
        rows.append(row)
        print(f"{tier}: {row['tests']} tests in {row['seconds']} s", flush=True)
    append_rows(args.csv, rows, FIELDS)
    return 0


if __name__ == "__main__":
    sys.exit(main())
