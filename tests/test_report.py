"""The tables README.md and docs/ show agree with the data files they are generated from.

``experiments/report.py`` renders each table between its markers from
``docs/results/<name>.csv``; a table edited by hand, or a CSV row added without
rerunning the script, fails here.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def report():
    spec = importlib.util.spec_from_file_location("report", ROOT / "experiments" / "report.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["report"] = module
    spec.loader.exec_module(module)
    return module


def test_every_table_matches_its_data(report):
    marked = 0
    for path in report.DOCUMENTS:
        text = path.read_text()
        marked += len(report.MARKER.findall(text))
        assert report.render(text) == text, f"{path.relative_to(ROOT)}: run python experiments/report.py"
    assert marked >= 1


def test_a_hand_edit_is_caught(report):
    path = ROOT / "docs" / "training.md"
    text = path.read_text()
    start = text.index("<!-- table: training_ab -->")
    edited = text[:start] + text[start:].replace("0.830", "0.930", 1)
    assert edited != text and report.render(edited) == text
    with pytest.raises(KeyError, match="no renderer"):
        report.render("<!-- table: nothing_here -->\n<!-- /table -->")


def test_the_readme_tables_come_from_their_data(report):
    """The speed and strength headline tables: a changed CSV value changes the table."""
    readme = (ROOT / "README.md").read_text()
    for name in ("benchmark_cpu", "strength_9x9"):
        assert f"<!-- table: {name} -->" in readme
    rows = report._rows("strength_9x9")
    rows[0] = {**rows[0], "wins": "0"}
    assert "| 0 / 40 | 0.00-0.09 |" in report.strength_9x9(rows)
    low, high = report._wilson(24, 40)
    assert (round(low, 2), round(high, 2)) == (0.45, 0.74)  # as the match runner's Wilson interval
