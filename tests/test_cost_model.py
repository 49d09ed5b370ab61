"""``experiments/cost_model.py``: its loop-trip counter, kernel count and model, on cases read by hand.

The counter must give each game its own trips under ``jax.vmap`` (a batched
loop runs until its slowest game is done, but each game's counter stops with
its own condition) and count a loop inside another loop's body over all of
the outer loop's trips.
"""

from __future__ import annotations

import csv

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import experiment_module

from gojax._core import loops


@pytest.fixture(scope="module")
def cost_model():
    return experiment_module("cost_model")


def _nested(n):
    """An outer loop of ``n`` trips whose trip ``i`` runs an inner loop of ``i`` trips."""

    def outer(carry):
        i, total = carry
        inner = loops.while_loop(lambda c: c[0] < i, lambda c: (c[0] + 1, c[1] + 1), (jnp.int32(0), total))
        return i + 1, inner[1]

    plain = loops.while_loop(lambda c: c < 2 * n, lambda c: c + 1, jnp.int32(0))
    return loops.while_loop(lambda c: c[0] < n, outer, (jnp.int32(0), plain))[1]


def test_each_game_counts_its_own_trips_and_inner_loops_sum_over_the_outer(cost_model):
    n = jnp.array([0, 3, 5, 1], jnp.int32)
    function = cost_model.counted(_nested)
    with cost_model.counted_loops():
        totals, trips = jax.jit(jax.vmap(function))(n)
    assert loops.while_loop is cost_model._ORIGINAL  # restored after the block
    expected_total = 2 * n + n * (n - 1) // 2
    np.testing.assert_array_equal(totals, expected_total)  # the program computes what it did uncounted
    np.testing.assert_array_equal(totals, jax.vmap(_nested)(n))
    sites = [site for site, _ in function.sites]
    assert len(sites) == 3 and all(site.endswith("test_cost_model._nested") for site in sites[:2])
    by_site = np.asarray(trips).T  # [loops, games]: the plain loop, the outer loop, the inner loop's sum
    np.testing.assert_array_equal(by_site[0], 2 * n)
    np.testing.assert_array_equal(by_site[1], n)
    np.testing.assert_array_equal(by_site[2], n * (n - 1) // 2)
    assert [nbytes for _, nbytes in function.sites] == [4, 8, 8]  # an int32; two int32s; two int32s


HLO = """HloModule m

%body.1 (p: (s32[], u32[8])) -> (s32[], u32[8]) {
  %p = (s32[], u32[8]) parameter(0)
  %i = s32[] get-tuple-element(%p), index=0
  %fusion.2 = u32[8] fusion(%p), kind=kLoop, calls=%fused
  %add = s32[] add(%i, %i)
  ROOT %t = (s32[], u32[8]) tuple(%add, %fusion.2)
}

%cond.1 (p: (s32[], u32[8])) -> pred[] {
  %p = (s32[], u32[8]) parameter(0)
  %c = s32[] constant(3)
  %i = s32[] get-tuple-element(%p), index=0
  ROOT %lt = pred[] compare(%i, %c), direction=LT
}

ENTRY %main (a: u32[8]) -> u32[8] {
  %a = u32[8] parameter(0)
  %fusion = u32[8] fusion(%a), kind=kLoop, calls=%fused.0
  %copy = u32[8] copy(%fusion)
  %w = (s32[], u32[8]) while(%t0), condition=%cond.1, body=%body.1
  ROOT %g = u32[8] get-tuple-element(%w), index=1
}
"""


def test_kernels_are_counted_once_and_per_trip(cost_model):
    # Entry: fusion and copy (the while itself, parameters, tuples and constants launch nothing);
    # the loop: fusion.2 and add in the body, compare in the condition.
    assert cost_model.kernel_counts(HLO) == (2, 3)
    compiled = jax.jit(lambda x: x * 2 + 1).lower(jnp.ones(8)).compile().as_text()
    assert cost_model.kernel_counts(compiled)[1] == 0 and cost_model.kernel_counts(compiled)[0] >= 1


def test_the_model_is_bound_by_launches_at_small_batches_and_by_memory_at_large(cost_model):
    row = {"kernels_once": 10, "batch_trips_median": 20.0, "kernels_per_trip": 3.0, "bytes_per_game": 1000}
    settings = dict(launch=1e-6, sync=2e-6, bandwidth=1e9, efficiency=0.5)
    launch_time = 10 * 1e-6 + 20 * (3 * 1e-6 + 2e-6)  # 110 us
    rate, bound = cost_model.predict(row, 10, **settings)
    assert rate == pytest.approx(10 / (launch_time + 10 * 1000 / 5e8)) and bound == "launch"
    rate, bound = cost_model.predict(row, 10**6, **settings)
    assert rate == pytest.approx(1e6 / (launch_time + 1e9 / 5e8)) and bound == "bandwidth"


def test_the_script_writes_a_row_per_size(cost_model, tmp_path, capsys):
    out = tmp_path / "cost.csv"
    cost_model.main(["--sizes", "5", "--batch", "8", "--warmup", "4", "--plies", "6", "--csv", str(out)])
    (row,) = list(csv.DictReader(open(out, newline="")))
    assert list(row) == cost_model.FIELDS and row["size"] == "5" and row["plies"] == "6"
    assert int(row["loops_per_ply"]) >= 2 and float(row["game_trips_median"]) >= 1
    assert float(row["batch_trips_median"]) >= float(row["game_trips_median"])
    assert int(row["bytes_per_game"]) > 2 * int(row["state_bytes"]) > 0
    assert 0 < float(row["predicted_16k"]) and row["bound_64k"] in ("launch", "bandwidth")
    assert "5x5 " in capsys.readouterr().out  # the loops one by one
