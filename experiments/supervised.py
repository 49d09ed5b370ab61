"""Supervised policy + value training on real games, with held-out move prediction accuracy.

Builds a :mod:`gojax.dataset` from the SGF files in ``--data`` (default
``../shared/data/sgf``; one board size, the most common by default), splits it
**by game** into train and held-out games, trains a small
``gojax.alphazero.PolicyValueNet`` (cross-entropy on the next move with
illegal moves masked, plus the mean squared error of the value on games with a
known winner) with optax, and reports on the held-out games:

* top-1 accuracy of the move predicted (argmax over the legal moves), next to
  two baselines that say what the number is worth: a uniformly random legal
  move (its expected accuracy, ``mean(1 / legal moves)``) and the "most
  common point" prior (the training set's most frequent move among the legal
  ones, the same guess everywhere);
* value MSE, next to predicting 0 and predicting each colour's mean result
  on the training games.

Writes ``curve.csv`` (held-out metrics every ``--eval-every`` steps),
``summary.csv`` (the table) and ``learning_curve.png`` under ``--out``
(default ``experiments/results/supervised``). The dataset is cached in the
system's temporary folder (``--cache`` to change).

With ``--save DIR`` the trained network is written as a checkpoint
(:func:`gojax.alphazero.save_checkpoint`, the ``basic`` observation), which
``gojax-gtp --checkpoint DIR`` takes as the tree search's guide on that board
size, or plays with ``--player policy`` or ``az``.

Usage: ``python experiments/supervised.py [--minutes 7] [--blocks 2 --channels 32] [--board-size 19]
[--save DIR] [--csv docs/results/supervised.csv]``.
The default run trains for ``--minutes`` of wall time (then stops at the next
evaluation) and fits in about 10 minutes on a 2-core CPU.
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import functools
import math
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import optax

sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance import append_rows, provenance

from gojax import alphazero as az
from gojax import dataset as ds

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "sgf"
OBSERVATION = "basic"
"""The planes the network reads (what ``--save`` records for ``gojax-gtp --checkpoint``)."""


def masked_logits(logits, legal):
    return jnp.where(legal, logits, -1e9)


def make_train_step(graphdef, optimizer, value_weight: float):
    def loss_fn(variables, batch):
        logits, value, new_variables = az.apply(graphdef, variables, batch.planes, train=True)
        logits = masked_logits(logits, batch.legal)
        policy_loss = optax.softmax_cross_entropy_with_integer_labels(logits, batch.actions).mean()
        known = (batch.values != 0).astype(jnp.float32)
        value_loss = jnp.sum(known * (value - batch.values) ** 2) / jnp.maximum(known.sum(), 1.0)
        accuracy = jnp.mean(jnp.argmax(logits, axis=-1) == batch.actions)
        loss = policy_loss + value_weight * value_loss
        return loss, (new_variables["batch_stats"], policy_loss, value_loss, accuracy)

    @jax.jit
    def train_step(variables, opt_state, batch):
        # The gradient is taken with respect to all variables (params and batch statistics) and only
        # the params' part is used: differentiating the params alone, with the batch statistics closed
        # over, makes NNX's BatchNorm refuse to update them (TraceContextError, flax 0.12).
        grads, (rest, policy_loss, value_loss, accuracy) = jax.grad(loss_fn, has_aux=True)(variables, batch)
        updates, opt_state = optimizer.update(grads["params"], opt_state, variables["params"])
        params = optax.apply_updates(variables["params"], updates)
        return {"params": params, "batch_stats": rest}, opt_state, (policy_loss, value_loss, accuracy)

    return train_step


@functools.partial(jax.jit, static_argnums=0)
def _evaluate_batch(graphdef, variables, planes, actions, values, legal, valid):
    logits, value, _ = az.apply(graphdef, variables, planes, train=False)
    logits = masked_logits(logits, legal)
    policy_loss = optax.softmax_cross_entropy_with_integer_labels(logits, actions)
    correct = (jnp.argmax(logits, axis=-1) == actions) & valid
    known = (values != 0) & valid
    return (
        jnp.sum(correct),
        jnp.sum(jnp.where(valid, policy_loss, 0.0)),
        jnp.sum(jnp.where(known, (value - values) ** 2, 0.0)),
    )


def evaluate(graphdef, variables, data: ds.MoveDataset, batch_size: int) -> dict[str, float]:
    """Held-out top-1 accuracy, policy cross-entropy and value MSE (games with a known winner)."""
    totals = np.zeros(3)
    count = len(data)
    for begin in range(0, count, batch_size):
        index = np.arange(begin, begin + batch_size)
        valid = index < count
        index = np.where(valid, index, 0)  # the last batch is padded with sample 0, masked out
        totals += [
            float(x)
            for x in _evaluate_batch(
                graphdef,
                variables,
                jnp.asarray(data.features[index], jnp.float32),
                data.actions[index],
                data.values[index],
                data.legal[index],
                valid,
            )
        ]
    known = int(np.count_nonzero(data.values))
    return {
        "accuracy": totals[0] / count,
        "policy_loss": totals[1] / count,
        "value_mse": totals[2] / max(known, 1),
    }


def baselines(train: ds.MoveDataset, held: ds.MoveDataset, black_channel: int | None) -> list[dict]:
    """Uniform legal move, most common point, and value baselines on the held-out set."""
    legal_counts = held.legal.sum(axis=1)
    uniform = float(np.mean(1.0 / legal_counts))
    prior = np.bincount(train.actions, minlength=held.legal.shape[1]).astype(np.float64)
    guess = np.argmax(np.where(held.legal, prior[None, :] + 1e-9, -1.0), axis=1)
    common = float(np.mean(guess == held.actions))
    known = held.values != 0
    zero_mse = float(np.mean(held.values[known] ** 2)) if known.any() else float("nan")
    rows = [
        {"method": "uniform legal move", "top1": uniform, "value_mse": zero_mse, "note": "value: predict 0"},
        {"method": "most common point (train prior)", "top1": common, "value_mse": float("nan"), "note": ""},
    ]
    if black_channel is not None:
        train_black = train.features[:, 0, 0, black_channel] > 0
        held_black = held.features[:, 0, 0, black_channel] > 0
        train_known = train.values != 0
        means = {
            colour: float(train.values[train_known & (train_black == colour)].mean())
            for colour in (True, False)
        }
        guess_value = np.where(held_black, means[True], means[False])
        mse = float(np.mean((guess_value[known] - held.values[known]) ** 2))
        rows.append(
            {
                "method": "colour prior (value only)",
                "top1": float("nan"),
                "value_mse": mse,
                "note": f"mean result black {means[True]:+.3f}, white {means[False]:+.3f}",
            }
        )
    return rows


CSV_FIELDS = (
    "board_size",
    "network",
    "params",
    "observation",
    "minutes",
    "steps",
    "epochs",
    "train_games",
    "train_positions",
    "held_out_games",
    "held_out_positions",
    "top1",
    "value_mse",
    "uniform_top1",
    "common_top1",
)
"""The figures of a ``--csv`` row, after its ``date``, ``machine`` and ``command``
(``docs/results/supervised.csv``)."""


@dataclasses.dataclass
class Trained:
    """A finished training run: the network, its held-out curve and its cost."""

    graphdef: Any
    variables: Any
    config: az.NetworkConfig
    params: int
    curve: list[dict]
    steps: int
    seconds: float


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--board-size", type=int, default=None, help="default: the most common size")
    parser.add_argument("--held-out", type=float, default=0.1, help="fraction of the games held out")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--blocks", type=int, default=2)
    parser.add_argument("--channels", type=int, default=32)
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--learning-rate", type=float, default=2e-3)
    parser.add_argument("--weight-decay", type=float, default=1e-4)
    parser.add_argument("--value-weight", type=float, default=0.5)
    parser.add_argument("--minutes", type=float, default=7.0, help="training wall-time budget")
    parser.add_argument("--max-steps", type=int, default=100_000)
    parser.add_argument("--eval-every", type=int, default=100)
    parser.add_argument("--no-augment", action="store_true", help="no random symmetries in training")
    parser.add_argument("--cache", type=Path, default=None, help="dataset .npz (default: in the temp folder)")
    parser.add_argument("--out", type=Path, default=ROOT / "experiments" / "results" / "supervised")
    parser.add_argument("--save", type=Path, default=None, help="write the trained network here (checkpoint)")
    parser.add_argument("--csv", type=Path, default=None, help="append the run's row to this CSV")
    args = parser.parse_args(argv)
    args.argv = sys.argv[1:] if argv is None else list(argv)
    if args.save is not None and not args.save.resolve().parent.is_dir():
        parser.error(f"--save {args.save}: its parent directory does not exist")
    return args


def load(args: argparse.Namespace) -> tuple[ds.MoveDataset, ds.MoveDataset, ds.MoveDataset]:
    """The dataset of ``--data`` (cached) and its split by game: ``(data, train, held_out)``."""
    started = time.perf_counter()
    size_tag = args.board_size or "auto"
    cache = args.cache or Path(tempfile.gettempdir()) / f"gojax-supervised-{size_tag}.npz"
    data = ds.build_dataset(args.data, args.board_size, observation=OBSERVATION, cache=cache)
    print(f"{data}  [{time.perf_counter() - started:.1f} s, cache {cache}]")
    for name, reason in data.skipped:
        if not reason.startswith("board "):
            print(f"  skipped {Path(name).name}: {reason}")
    train, held = data.split(args.held_out, seed=args.seed)
    print(
        f"train: {train.num_games} games, {len(train)} positions; "
        f"held-out: {held.num_games} games, {len(held)} positions"
    )
    return data, train, held


def _curve_entry(step: int, seconds: float, epochs: float, recent: list, result: dict) -> dict:
    mean = np.mean(recent, axis=0) if recent else np.full(3, np.nan)
    return {
        "step": step,
        "seconds": seconds,
        "epochs": epochs,
        "train_policy_loss": float(mean[0]),
        "train_value_mse": float(mean[1]),
        "train_accuracy": float(mean[2]),
        **{f"heldout_{k}": v for k, v in result.items()},
    }


def train_network(args: argparse.Namespace, data: ds.MoveDataset, train, held) -> Trained:
    """Trains for ``--minutes`` (or ``--max-steps``), scoring the held-out games every ``--eval-every``
    steps."""
    from flax import nnx

    config = az.NetworkConfig(blocks=args.blocks, channels=args.channels)
    net = az.PolicyValueNet(config, data.board_size, data.num_channels, rngs=nnx.Rngs(args.seed))
    graphdef, variables = az.split(net)
    params = sum(x.size for x in jax.tree.leaves(variables["params"]))
    optimizer = optax.adamw(args.learning_rate, weight_decay=args.weight_decay)
    opt_state = optimizer.init(variables["params"])
    train_step = make_train_step(graphdef, optimizer, args.value_weight)
    batches = ds.batches(
        train, args.batch_size, seed=args.seed, augment=not args.no_augment, epochs=None, drop_remainder=True
    )
    result = evaluate(graphdef, variables, held, 512)
    curve = [_curve_entry(0, 0.0, 0.0, [], result)]
    print(f"step 0: held-out top-1 {result['accuracy']:.4f}, value MSE {result['value_mse']:.3f}")
    started, recent, step = time.perf_counter(), [], 0
    for batch in batches:
        variables, opt_state, losses = train_step(variables, opt_state, batch)
        recent.append(tuple(float(x) for x in losses))
        step += 1
        elapsed = time.perf_counter() - started
        done = step >= args.max_steps or elapsed > args.minutes * 60.0
        if step % max(1, args.eval_every) == 0 or done:
            result = evaluate(graphdef, variables, held, 512)
            entry = _curve_entry(
                step, time.perf_counter() - started, step * args.batch_size / len(train), recent, result
            )
            curve.append(entry)
            recent = []
            print(
                f"step {step} ({entry['epochs']:.2f} epochs, {entry['seconds']:.0f} s): "
                f"train loss {entry['train_policy_loss']:.3f} top-1 {entry['train_accuracy']:.3f} | held-out "
                f"top-1 {result['accuracy']:.4f} loss {result['policy_loss']:.3f} "
                f"value MSE {result['value_mse']:.3f}",
                flush=True,
            )
            if done:
                break
    return Trained(graphdef, variables, config, params, curve, step, time.perf_counter() - started)


def summary_rows(args: argparse.Namespace, trained: Trained, train, held) -> list[dict]:
    """The table's rows: the network, then the baselines (:func:`baselines`)."""
    black_channel = az.BASIC_CHANNELS.black_to_move if OBSERVATION == "basic" else None
    final = trained.curve[-1]
    network = {
        "method": f"PolicyValueNet {args.blocks}x{args.channels} ({trained.params:,} params)",
        "top1": final["heldout_accuracy"],
        "value_mse": final["heldout_value_mse"],
        "note": f"{trained.steps} steps x {args.batch_size}, {final['epochs']:.2f} epochs, "
        f"{trained.seconds:.0f} s",
    }
    return [network, *baselines(train, held, black_channel)]


def csv_row(args: argparse.Namespace, data, train, held, trained: Trained, rows: list[dict]) -> dict:
    """The run's ``--csv`` row (:data:`CSV_FIELDS`, after its provenance)."""
    final = trained.curve[-1]
    return {
        **provenance("supervised.py", args.argv),
        "board_size": data.board_size,
        "network": f"{args.blocks}x{args.channels}",
        "params": trained.params,
        "observation": OBSERVATION,
        "minutes": f"{trained.seconds / 60:.1f}",
        "steps": trained.steps,
        "epochs": f"{final['epochs']:.2f}",
        "train_games": train.num_games,
        "train_positions": len(train),
        "held_out_games": held.num_games,
        "held_out_positions": len(held),
        "top1": f"{final['heldout_accuracy']:.4f}",
        "value_mse": f"{final['heldout_value_mse']:.3f}",
        "uniform_top1": f"{rows[1]['top1']:.4f}",
        "common_top1": f"{rows[2]['top1']:.4f}",
    }


def write_outputs(args: argparse.Namespace, data, train, held, trained: Trained, rows: list[dict]) -> None:
    """The table on stdout; ``curve.csv``, ``summary.csv`` and the plot under ``--out``; ``--save``;
    ``--csv``."""
    print()
    print(
        f"{data.board_size}x{data.board_size}: {train.num_games} train games ({len(train):,} positions), "
        f"{held.num_games} held-out games ({len(held):,} positions), seed {args.seed}"
    )
    print("| method | held-out top-1 | held-out value MSE | note |")
    print("|---|---|---|---|")
    for row in rows:
        top1 = "-" if math.isnan(row["top1"]) else f"{row['top1'] * 100:.2f}%"
        mse = "-" if math.isnan(row["value_mse"]) else f"{row['value_mse']:.3f}"
        print(f"| {row['method']} | {top1} | {mse} | {row['note']} |")
    curve = trained.curve
    with open(args.out / "curve.csv", "w", newline="") as handle:
        fields = sorted({key for entry in curve for key in entry}, key=lambda k: (k != "step", k))
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(curve)
    with open(args.out / "summary.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=["method", "top1", "value_mse", "note"])
        writer.writeheader()
        writer.writerows(rows)
    plot(curve, rows, args.out / "learning_curve.png", data.board_size)
    if args.save is not None:
        meta = {
            "held_out_top1": curve[-1]["heldout_accuracy"],
            "steps": trained.steps,
            "source": "supervised.py",
        }
        network = az.merge(trained.graphdef, trained.variables)
        az.save_checkpoint(
            args.save,
            network,
            trained.config,
            board_size=data.board_size,
            observe_name=OBSERVATION,
            metadata=meta,
        )
        print(f"wrote the network to {args.save}")
    if args.csv is not None:
        row = csv_row(args, data, train, held, trained, rows)
        append_rows(args.csv, [row], [*provenance("supervised.py"), *CSV_FIELDS])
        print(f"appended the run's row to {args.csv}")
    print(f"wrote {args.out / 'curve.csv'}, {args.out / 'summary.csv'}, {args.out / 'learning_curve.png'}")


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()
    data, train, held = load(args)
    trained = train_network(args, data, train, held)
    rows = summary_rows(args, trained, train, held)
    write_outputs(args, data, train, held, trained, rows)
    print(f"total {time.perf_counter() - started:.0f} s (training {trained.seconds:.0f} s)")


def plot(curve, rows, path: Path, size: int) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = [entry["step"] for entry in curve]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    left.plot(steps, [100 * e["heldout_accuracy"] for e in curve], "o-", label="held-out (net)")
    left.plot(
        steps[1:],
        [100 * e["train_accuracy"] for e in curve[1:]],
        "s--",
        alpha=0.7,
        label="train batches (augmented)",
    )
    for row, style in zip(rows[1:3], (":", "-."), strict=False):
        left.axhline(100 * row["top1"], linestyle=style, color="grey", label=row["method"])
    left.set_xlabel("training step")
    left.set_ylabel("top-1 move accuracy (%)")
    left.set_title(f"{size}x{size} next-move prediction")
    left.legend(fontsize=8)
    left.grid(alpha=0.3)
    right.plot(steps, [e["heldout_policy_loss"] for e in curve], "o-", label="held-out policy cross-entropy")
    right.plot(steps, [e["heldout_value_mse"] for e in curve], "o-", label="held-out value MSE")
    right.plot(
        steps[1:],
        [e["train_policy_loss"] for e in curve[1:]],
        "s--",
        alpha=0.7,
        label="train policy cross-entropy",
    )
    right.set_xlabel("training step")
    right.legend(fontsize=8)
    right.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


if __name__ == "__main__":
    main()
