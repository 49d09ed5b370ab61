"""``experiments/playout_rate.py --csv``: a run's rows as the tables of docs/results/ name them."""

from __future__ import annotations

import csv
import re
from pathlib import Path

from conftest import experiment_module

RESULTS = Path(__file__).resolve().parents[1] / "docs" / "results"


def _script_rows() -> list[dict]:
    """Rows as the script's measurement loop names them (a two-loop run: C and XLA)."""
    rows = [
        {"row": "engine random moves", "policy": "uniform", "K": "", "M": "", "D": 1, "rate": 1.5e6},
        {"row": "engine random playouts", "policy": "random", "K": "", "M": "", "D": 1, "rate": 534.4},
        {"row": "engine random playout moves", "policy": "random", "K": "", "M": "", "D": 1, "rate": 9e4},
    ]
    for policy in ("heavy", "light"):
        for loop in ("C loop", "XLA loop"):
            rows.append(
                {"row": f"leaf batch, {loop}", "policy": policy, "K": 32, "M": 8, "D": 1, "rate": 9.6}
            )
        rows.append({"row": "search", "policy": policy, "K": 32, "M": 8, "D": 1, "rate": 99.5})
    for row in rows:
        row["unit"] = "moves/s" if "moves" in row["row"] else "playouts/s"
    return rows


def test_docs_rows_name_their_rows_as_the_tables_do():
    script = experiment_module("playout_rate")
    rows = script.docs_rows(_script_rows(), 256, 2)
    with open(RESULTS / "playout_rate_19x19.csv") as handle:
        known = {r["row"] for r in csv.DictReader(handle)}
    assert {r["row"] for r in rows} == known  # the names the 19x19 table already uses, each once
    assert len(rows) == len(_script_rows()) - 1  # the random playouts' moves are left out
    assert all(re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d", r["date"]) for r in rows)  # a run per minute
    assert all(r["command"].startswith("python experiments/playout_rate.py") for r in rows)
    assert {r["host_devices"] for r in rows} == {2}
    rates = {r["row"]: r["rate"] for r in rows}
    assert (
        rates["search, heavy"] == 100
        and rates["engine random playouts (`players.rollout`, batch 256)"] == 534
    )
    assert list(rows[0])[:3] == ["date", "machine", "command"]
    assert set(rows[0]) == {"date", "machine", "command", *script.DOCS_FIELDS}
