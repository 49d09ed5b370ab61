"""Adds a finished mutation session's score to docs/results/mutation.csv (the table in docs/testing.md).

    python mutation/record.py NAME [SESSION]

NAME is the group (mutation/NAME.toml), SESSION its session database
(default mutation/NAME.sqlite). The row holds the date, the machine, the
command, the group's modules and tests, and the mutants by outcome: killed
(a test failed, or the tests ran past the group's timeout), survived (every
test passed), incompetent (the mutant could not run), skipped (left out by
the config's operator filter or a ``# pragma: no mutate``) and pending (not
run yet). A session with mutants still pending is refused: finish it first
(mutation/run.sh NAME goes on where it stopped). Run
``python experiments/report.py`` after it to rewrite the table.
"""

from __future__ import annotations

import argparse
import csv
import datetime
import os
import platform
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CSV = ROOT / "docs" / "results" / "mutation.csv"
COLUMNS = (
    *("date", "machine", "command", "group", "modules", "tests"),
    *("mutants", "killed", "survived", "incompetent", "skipped"),
)


def count(results, pending: int = 0) -> dict[str, int]:
    """Mutants by outcome (see the module docstring) from cosmic-ray's work results (each with a
    ``worker_outcome`` and a ``test_outcome``): ``mutants`` (all, ``pending`` included),
    ``killed``, ``survived``, ``incompetent``, ``skipped``, ``pending``."""
    counts = dict.fromkeys(("killed", "survived", "incompetent", "skipped"), 0)
    counts.update(mutants=pending, pending=pending)
    for result in results:
        counts["mutants"] += 1
        if result.worker_outcome == "skipped":
            counts["skipped"] += 1
        elif result.test_outcome == "survived":
            counts["survived"] += 1
        elif result.test_outcome == "killed":
            counts["killed"] += 1
        else:
            counts["incompetent"] += 1
    return counts


def outcomes(session: Path) -> dict[str, int]:
    """:func:`count` of a session database."""
    from cosmic_ray.work_db import WorkDB, use_db  # the dev extra

    with use_db(str(session), WorkDB.Mode.open) as db:
        pending = sum(1 for _ in db.pending_work_items)
        return count([result for _, result in db.completed_work_items], pending)


def row(name: str, session: Path) -> dict[str, str]:
    """The CSV row of group ``name``'s finished ``session``."""
    config = tomllib.loads((ROOT / "mutation" / f"{name}.toml").read_text())["cosmic-ray"]
    modules = config["module-path"]
    modules = " ".join(modules) if isinstance(modules, list) else modules
    tests = " ".join(word for word in config["test-command"].split() if word.startswith("tests/"))
    counts = outcomes(session)
    if counts["pending"]:
        raise SystemExit(f"{session}: {counts['pending']} mutants not run yet; finish the session first")
    machine = f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_version()}"
    return {
        "date": datetime.date.today().isoformat(),
        "machine": machine,
        "command": f"mutation/run.sh {name}",
        "group": name,
        "modules": modules,
        "tests": tests,
        **{key: str(counts[key]) for key in ("mutants", "killed", "survived", "incompetent", "skipped")},
    }


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("name", help="the group: mutation/NAME.toml")
    parser.add_argument("session", nargs="?", help="its session database (default mutation/NAME.sqlite)")
    args = parser.parse_args()
    session = Path(args.session or ROOT / "mutation" / f"{args.name}.sqlite")
    if not session.is_file():
        parser.error(f"no session database {session}")
    new = row(args.name, session)
    fresh = not CSV.exists()
    with open(CSV, "a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS)
        if fresh:
            writer.writeheader()
        writer.writerow(new)
    print(f"{args.name}: {new['killed']} killed, {new['survived']} survived of {new['mutants']} -> {CSV}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
