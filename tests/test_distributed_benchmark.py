"""``experiments/distributed_benchmark.py``: its layouts and the median of its repeated runs."""

from __future__ import annotations

import pytest
from conftest import experiment_module


@pytest.fixture(scope="module")
def benchmark():
    return experiment_module("distributed_benchmark")


def test_layouts_name_processes_devices_and_pinning(benchmark):
    assert benchmark._layout("1x2") == (1, 2, True)
    assert benchmark._layout("2x1-free") == (2, 1, False)
    assert benchmark._layout("4X2") == (4, 2, True)
    for bad in ("2x1-loose", "2x", "two"):
        with pytest.raises(ValueError):
            benchmark._layout(bad)


def test_a_row_is_the_median_run_with_the_range_of_all(benchmark):
    runs = [
        {"positions_per_s": 500.0, "train_step_s": 0.5},
        {"positions_per_s": 300.0, "train_step_s": 0.3},
        {"positions_per_s": 900.0, "train_step_s": 0.9},
    ]
    row = benchmark._median_row(runs)
    assert row["positions_per_s"] == 500.0 and row["train_step_s"] == 0.5  # one run's figures, together
    assert (row["repeats"], row["positions_per_s_low"], row["positions_per_s_high"]) == (3, 300.0, 900.0)
    # An even number of runs: the lower of the two middle runs.
    row = benchmark._median_row([*runs, {"positions_per_s": 100.0, "train_step_s": 0.1}])
    assert row["positions_per_s"] == 300.0 and row["repeats"] == 4
    single = benchmark._median_row(runs[:1])
    low, high = single["positions_per_s_low"], single["positions_per_s_high"]
    assert single["positions_per_s"] == low == high == 500.0
