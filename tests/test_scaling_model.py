"""``experiments/scaling_model.py``: the all-reduce and iteration model on numbers worked out by hand."""

from __future__ import annotations

import pytest
from conftest import experiment_module


@pytest.fixture(scope="module")
def model():
    return experiment_module("scaling_model")


def test_a_ring_all_reduce_sends_twice_the_gradient_less_one_share(model):
    # 4 processes, 1 GB/s, 1 ms a hop: 2 * 3/4 * 1e9 bytes / 1e9 B/s = 1.5 s, and 6 hops of 1 ms.
    assert model.allreduce_s(1e9, 4, 1e9, 1e-3) == pytest.approx(1.5 + 0.006)
    assert model.allreduce_s(1e9, 1, 1e9, 1e-3) == 0.0  # one process exchanges nothing


def test_an_iteration_adds_self_play_training_and_the_all_reduce(model):
    net = {"forward_flops": 1e6, "forward_kernels": 10, "gradient_bytes": 4e6}
    recipe = {"batch_per_gpu": 100, "train_batch_per_gpu": 50, "moves": 2, "evaluations": 3, "steps": 4}
    assumed = {"tflops": 1e-3, "launch_us": 100.0, "bandwidth_gbs": 1.0, "latency_us": 0.0}  # 1 GFLOP/s
    # A forward of 100 positions: 1e8 FLOPs / 1e9 = 0.1 s, plus 10 launches of 100 us = 0.001 s.
    # Self-play: 2 moves x 3 evaluations x (0.01 s of rules + 0.101 s) = 0.666 s.
    # Training: 4 steps x (3 x 1e6 x 50 / 1e9 + 3 x 10 x 1e-4) = 4 x 0.153 = 0.612 s.
    # All-reduce over 2 processes: 4 steps x 2 * 1/2 * 4e6 / 1e9 = 0.016 s.
    out = model.iteration(net, recipe, 0.01, 2, assumed)
    assert out["selfplay_s"] == pytest.approx(0.666)
    assert out["train_compute_s"] == pytest.approx(0.612)
    assert out["allreduce_s"] == pytest.approx(0.016)
    assert out["iteration_s"] == pytest.approx(1.294)
    assert out["positions_per_s"] == pytest.approx(2 * 100 * 2 / 1.294)
    assert out["allreduce_share"] == pytest.approx(0.016 / 1.294)
    alone = model.iteration(net, recipe, 0.01, 1, assumed)
    assert alone["allreduce_s"] == 0.0 and alone["iteration_s"] == pytest.approx(1.278)
