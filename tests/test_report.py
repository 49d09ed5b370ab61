"""The tables README.md and docs/ show agree with the data files they are generated from.

``experiments/report.py`` renders each table between its markers from
``docs/results/<name>.csv``; a table edited by hand, or a CSV row added without
rerunning the script, fails here.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from conftest import experiment_module

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def report():
    return experiment_module("report")


def test_every_table_matches_its_data(report):
    marked = 0
    for path in report.DOCUMENTS:
        text = path.read_text()
        marked += len(report.MARKER.findall(text))
        assert report.render(text) == text, f"{path.relative_to(ROOT)}: run python experiments/report.py"
    assert marked >= 1


def test_a_row_out_of_step_with_its_header_is_refused(report, tmp_path, monkeypatch):
    """A cell too many (a comma left unquoted) or too few would shift a row's columns in its table."""
    monkeypatch.setattr(report, "ROOT", tmp_path)
    monkeypatch.setattr(report, "RESULTS", tmp_path)
    (tmp_path / "good.csv").write_text('a,b,c\n1,"x, y",3\n')
    assert report._rows("good") == [{"a": "1", "b": "x, y", "c": "3"}]
    for text in ("a,b,c\n1,x, y,3\n", "a,b,c\n1,2\n"):
        (tmp_path / "bad.csv").write_text(text)
        with pytest.raises(ValueError, match=r"bad\.csv: line 2 has not one cell per header column"):
            report._rows("bad")


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
    first = next(i for i, r in enumerate(rows) if r["headline"] == "yes")
    rows[first] = {**rows[first], "wins": "0", "runs": ""}
    assert "| 0 / 40 | 0.00-0.09 |" in report.strength_9x9(rows)
    low, high = report._wilson(24, 40)
    assert (round(low, 2), round(high, 2)) == (0.45, 0.74)  # as the match runner's Wilson interval
    # Only the headline rows reach the README; docs/players.md shows them all.
    assert report.strength_9x9(rows).count("\n| ") < report.strength_gnugo_9x9(rows).count("\n| ")


# A figure of each table's CSV: changing it in the first row must change the table.
FIGURES = {
    "alphabeta": "nodes",
    "benchmark_cpu": "rate",
    "benchmark_cpu_detail": "compile_s",
    "classic_players_9x9": "wins",
    "compile_times": "median_s",
    "cost_model": "predicted_16k",
    "distributed_cpu": "positions_per_s",
    "distributed_loss": "loss_two_processes",
    "feature_speed": "boards_per_s",
    "ffi_speed": "us_per_call",
    "goenv_ratio": "goenv_over_rules",
    "gtp_start": "first_genmove_s",
    "gtp_startup": "genmove_s",
    "guided_search_9x9": "guided_seconds",
    "mcts_throughput_9x9": "moves_per_s",
    "mutation": "survived",
    "native_vs_xla": "boards_per_s",
    "pgx_example": "equal",
    "playout_accuracy": "balanced",
    "playout_rate_9x9": "rate",
    "playout_rate_19x19": "rate",
    "scaling_model": "positions_per_s",
    "strength_19x19": "games",
    "strength_9x9": "games",
    "test_tiers": "seconds",
    "strength_gnugo_9x9": "games",
    "supervised": "top1",
    "train_9x9_cpu": "minutes",
    "training_ab": "positions",
    "training_runs": "positions",
    "az_search_9x9": "player_seconds",
}


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_a_changed_figure_changes_its_table(report, name):
    assert set(FIGURES) == set(report.TABLES)
    rows = report._rows(name)
    column = FIGURES[name]
    # The first row the table shows (headline rows for the README's strength table, eval rows for a run's).
    index = next(
        i
        for i, r in enumerate(rows)
        if r.get("headline", "yes") == "yes"
        and r.get("kind", "eval") == "eval"
        and r.get("section", "engines") == "engines"
    )
    if name in ("test_tiers", "mutation", "feature_speed"):
        index = len(rows) - 1  # each tier's (group's, board's) latest run is the one shown
    changed = [dict(r) for r in rows]
    value = changed[index][column]
    changed[index][column] = "9" + value if value[:1].isdigit() else value + "9"
    if name.startswith("strength"):
        changed[index]["runs"] = ""  # the runs must add up to the row; without runs there is nothing to add
    assert report.TABLES[name](changed) != report.TABLES[name](rows)


def test_runs_must_add_up_to_their_row(report):
    rows = report._rows("strength_9x9")
    assert report._runs(rows[0])  # the CSV's runs parse
    bad = {**rows[0], "runs": "101:1/20 202:0/20"}
    with pytest.raises(ValueError, match="do not add up"):
        report.strength_gnugo_9x9([bad])


def test_mutation_records_count_each_outcome():
    from types import SimpleNamespace

    spec = importlib.util.spec_from_file_location("record", ROOT / "mutation" / "record.py")
    record = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(record)
    results = [
        SimpleNamespace(worker_outcome=worker, test_outcome=test)
        for worker, test in [
            ("normal", "killed"),
            ("normal", "killed"),
            ("normal", "survived"),
            ("skipped", None),
            ("exception", "incompetent"),
            ("abnormal", "killed"),  # past the timeout
        ]
    ]
    counts = record.count(results, pending=2)
    assert counts == {"mutants": 8, "killed": 3, "survived": 1, "incompetent": 1, "skipped": 1, "pending": 2}


@pytest.fixture(scope="module")
def provenance():
    spec = importlib.util.spec_from_file_location("provenance", ROOT / "experiments" / "provenance.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_rows_command_names_paths_inside_the_repository_relative_to_it(provenance):
    inside, outside = ROOT / "docs" / "results" / "a b.csv", "/elsewhere/x.csv"
    command = provenance.command("x.py", ["--csv", str(inside), f"--out={inside}", outside, "-n", "2"])
    assert (
        command
        == f"python experiments/x.py --csv 'docs/results/a b.csv' '--out=docs/results/a b.csv' {outside} -n 2"
    )
    row = provenance.provenance("x.py", [], packages=("no-such-distribution",))
    assert row["command"] == "python experiments/x.py" and row["date"][:2] == "20"
    assert "cores" in row["machine"] and ", jax " in row["machine"] and "no-such" not in row["machine"]


def test_rows_are_appended_under_one_header(provenance, tmp_path):
    path = tmp_path / "new" / "rows.csv"
    provenance.append_rows(path, [{"a": 1, "b": 2}], ["a", "b"])
    provenance.append_rows(path, [{"a": 3, "b": 4}, {"a": 5, "b": 6}], ["a", "b"])
    assert path.read_text().splitlines() == ["a,b", "1,2", "3,4", "5,6"]
    with pytest.raises(ValueError):
        provenance.append_rows(path, [{"a": 1, "c": 2}], ["a", "b"])


def test_a_rerun_of_the_same_feature_command_replaces_the_earlier_run(report):
    rows = [r for r in report._rows("feature_speed") if r["size"] == "19"]
    starts = [i for i, r in enumerate(rows) if r["what"] == "step"]
    run = rows[starts[-1] :]  # the latest run: its step row, then the legal mask and the presets
    assert len(run) >= 3 and run[0]["what"] == "step"
    earlier = [{**r, "date": "2000-01-01", "boards_per_s": "1"} for r in run]
    shown = report.TABLES["feature_speed"](earlier + run)
    assert shown == report.TABLES["feature_speed"](run)
    assert "| 1 |" not in shown
    # A later run is a run of its own even when its first row is not `step`.
    later = [{**r, "date": "2999-01-01", "boards_per_s": "7"} for r in run[1:]]
    assert report.TABLES["feature_speed"](run + later) == report.TABLES["feature_speed"](later)


def test_goenv_ratios_of_other_rules_or_observations_are_rows_of_their_own(report):
    # The same board and command measured with and without an observation: two rows, each
    # with its own runs and median (merged, the median would mix the two).
    rows = [r for r in report._rows("goenv_ratio") if r["rules"] == "C kernels" and r["board"] == "19"]
    assert {r["observation"] for r in rows} == {"17 planes (C kernel)", "none"}
    shown = report.TABLES["goenv_ratio"](rows)
    lines = [line for line in shown.splitlines() if line.startswith("| 19x19 |")]
    assert len(lines) == 2
    for observation in ("17 planes (C kernel)", "none"):
        ratios = [float(r["goenv_over_rules"]) for r in rows if r["observation"] == observation]
        line = next(line for line in lines if f"| {observation} |" in line)
        assert f"| {report._median(ratios):.3f} | {len(ratios)} |" in line
