"""What ``gojax-train`` would do on 8 hosts x 8 GPUs: a model from counted compute and measured traffic.

::

    python experiments/scaling_model.py
    python experiments/scaling_model.py --gpus 64 --tflops 50 --bandwidth-gbs 25

No run of ``gojax-train`` on GPUs has been made. This script computes what
one iteration of the default recipe (:class:`gojax.training.TrainConfig`)
would cost each of ``G`` GPUs, one process each, for three networks (the
default 3 blocks x 32 channels, 6 x 96 and 20 x 256) on 9x9 and 19x19.

Counted or measured:

* the network's gradient (its ``float32`` parameters: what the all-reduce
  carries every training step; ``gojax-train`` measures the same bytes on
  a CPU, ``exchanged_per_train_step_bytes`` in ``metrics.csv``), its forward
  FLOPs per position (XLA's cost analysis of the compiled forward pass) and
  its kernels (fusions of the optimized program);
* the rules' time per search step at the per-GPU batch, from
  ``docs/results/cost_model.csv`` (``experiments/cost_model.py``'s model:
  kernel launches, loop trips, bytes);
* the recipe: evaluations per self-play move under playout cap
  randomization (``f * S + (1 - f) * C``), moves per iteration, training
  steps per iteration (``reuse``), the training batch.

Assumed (flags, written into every row): the GPU's effective FLOP/s on
these convolutions, the kernel launch time (the cost model's), the
all-reduce's bandwidth and latency per hop between hosts (a ring over the
``G`` processes: ``2 (G - 1) / G`` times the gradient over the slowest
link, ``2 (G - 1)`` hops). An iteration is::

    self-play = moves x evaluations a move x (rules step + forward at B games)
    training  = steps x (3 x forward FLOPs x training rows / FLOP/s + 3 x forward kernels x launch
                         + all-reduce)

and the run plays ``G x B x moves`` positions an iteration. Results go to
``docs/results/scaling_model.csv`` (rewritten), rendered by
``experiments/report.py`` in ``docs/scaling.md``.
"""

from __future__ import annotations

import argparse
import csv
import math
import sys
from pathlib import Path

from provenance import append_rows, provenance

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
NETWORKS = ((3, 32), (6, 96), (20, 256))
"""(blocks, channels): the default network, and two larger ones."""


def allreduce_s(gradient_bytes: float, gpus: int, bandwidth: float, latency: float) -> float:
    """Seconds of a ring all-reduce of ``gradient_bytes`` over ``gpus`` processes (0 for one)."""
    if gpus <= 1:
        return 0.0
    return 2 * (gpus - 1) / gpus * gradient_bytes / bandwidth + 2 * (gpus - 1) * latency


def iteration(net: dict, recipe: dict, rules_step_s: float, gpus: int, assumed: dict) -> dict:
    """One iteration's seconds on each GPU, and the run's self-play positions a second."""
    flops, launch = assumed["tflops"] * 1e12, assumed["launch_us"] * 1e-6
    forward = net["forward_flops"] * recipe["batch_per_gpu"] / flops + net["forward_kernels"] * launch
    selfplay = recipe["moves"] * recipe["evaluations"] * (rules_step_s + forward)
    rows = recipe["train_batch_per_gpu"]
    step = 3 * net["forward_flops"] * rows / flops + 3 * net["forward_kernels"] * launch
    compute = recipe["steps"] * step
    reduce = recipe["steps"] * allreduce_s(
        net["gradient_bytes"], gpus, assumed["bandwidth_gbs"] * 1e9, assumed["latency_us"] * 1e-6
    )
    total = selfplay + compute + reduce
    positions = gpus * recipe["batch_per_gpu"] * recipe["moves"]
    return {
        "selfplay_s": selfplay,
        "train_compute_s": compute,
        "allreduce_s": reduce,
        "iteration_s": total,
        "positions_per_s": positions / total,
        "allreduce_share": reduce / total,
    }


def network_costs(size: int, blocks: int, channels: int) -> dict:
    """Parameters, gradient bytes, forward FLOPs per position and kernels of the default heads' network."""
    import jax
    import jax.numpy as jnp
    from flax import nnx

    from gojax import alphazero as az
    from gojax.training import TrainConfig

    sys.path.insert(0, str(ROOT / "experiments"))
    from cost_model import kernel_counts

    config = TrainConfig(size=size, blocks=blocks, channels=channels).network_config()
    planes = TrainConfig().observation_spec().channels(TrainConfig(size=size).rules())
    net = az.PolicyValueNet(config, size, planes, rngs=nnx.Rngs(0))
    graphdef, variables = az.split(net)
    parameters = sum(int(x.size) for x in jax.tree.leaves(variables["params"]))
    batch = 64

    def forward(variables, x):
        return az.apply(graphdef, variables, x, train=False)

    compiled = jax.jit(forward).lower(variables, jnp.zeros((batch, size, size, planes))).compile()
    analysis = compiled.cost_analysis()
    analysis = analysis[0] if isinstance(analysis, list) else analysis
    once, _ = kernel_counts(compiled.as_text())
    return {
        "parameters": parameters,
        "gradient_bytes": 4 * parameters,
        "forward_flops": float(analysis["flops"]) / batch,
        "forward_kernels": once,
    }


def rules_step_s(size: int, batch: int, assumed: dict) -> float:
    """The rules' seconds per search step at ``batch`` games: the cost model's row for ``size``."""
    with open(RESULTS / "cost_model.csv", newline="") as handle:
        row = next(r for r in csv.DictReader(handle) if int(r["size"]) == size)
    launch = assumed["launch_us"] * 1e-6
    fixed = float(row["kernels_once"]) * launch
    trips = float(row["batch_trips_median"]) * (
        float(row["kernels_per_trip"]) * launch + float(row["trip_sync_us"]) * 1e-6
    )
    bandwidth = float(row["bandwidth_gbs"]) * 1e9 * float(row["efficiency"])
    memory = batch * float(row["bytes_per_game"]) / bandwidth
    return fixed + trips + memory


def recipe(batch_per_gpu: int, train_batch_per_gpu: int) -> dict:
    """The default recipe's evaluations a move, moves and training steps an iteration."""
    from gojax.training import TrainConfig

    cfg = TrainConfig()
    f = cfg.full_search_fraction
    evaluations = f * cfg.simulations + (1 - f) * cfg.cheap_simulations
    new_rows = batch_per_gpu * cfg.moves_per_iteration
    return {
        "batch_per_gpu": batch_per_gpu,
        "train_batch_per_gpu": train_batch_per_gpu,
        "moves": cfg.moves_per_iteration,
        "evaluations": evaluations,
        "steps": max(1, math.ceil(cfg.reuse * new_rows / train_batch_per_gpu)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--gpus", type=int, default=64, help="GPUs, one process each (8 hosts x 8)")
    parser.add_argument("--batch-per-gpu", type=int, default=256, help="self-play games of each GPU")
    parser.add_argument("--train-batch-per-gpu", type=int, default=256, help="training rows of each GPU")
    parser.add_argument("--tflops", type=float, default=50.0, help="effective TFLOP/s of a GPU")
    parser.add_argument("--launch-us", type=float, default=4.0, help="microseconds a kernel launch")
    parser.add_argument("--bandwidth-gbs", type=float, default=25.0, help="GB/s of the slowest link")
    parser.add_argument("--latency-us", type=float, default=10.0, help="microseconds a ring hop")
    parser.add_argument("--csv", type=Path, default=RESULTS / "scaling_model.csv")
    args = parser.parse_args()
    assumed = {k: getattr(args, k) for k in ("tflops", "launch_us", "bandwidth_gbs", "latency_us")}
    plan = recipe(args.batch_per_gpu, args.train_batch_per_gpu)
    common = provenance("scaling_model.py")
    rows = []
    for size in (9, 19):
        step = rules_step_s(size, args.batch_per_gpu, assumed)
        for blocks, channels in NETWORKS:
            net = network_costs(size, blocks, channels)
            one = iteration(net, plan, step, 1, assumed)
            many = iteration(net, plan, step, args.gpus, assumed)
            row = {
                **common,
                "size": size,
                "blocks": blocks,
                "channels": channels,
                **net,
                "gpus": args.gpus,
                **{k: plan[k] for k in ("batch_per_gpu", "train_batch_per_gpu", "evaluations", "steps")},
                "rules_step_s": step,
                **many,
                "scaling_efficiency": many["positions_per_s"] / (args.gpus * one["positions_per_s"]),
                **assumed,
            }
            rows.append({k: float(f"{v:.4g}") if isinstance(v, float) else v for k, v in row.items()})
            print(rows[-1], flush=True)
    if args.csv.exists():
        args.csv.unlink()  # one model, rewritten
    append_rows(args.csv, rows, list(rows[0]))
    print(f"-> {args.csv}")


if __name__ == "__main__":
    main()
