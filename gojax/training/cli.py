"""The ``gojax-train`` command (also ``python experiments/train.py``): train an AlphaZero Go agent.

::

    gojax-train                                   # 9x9, 30 minutes, run dir runs/alphazero
    gojax-train --minutes 5 --run-dir runs/quick
    gojax-train --run-dir runs/quick --resume     # continue after a kill
    gojax-train --host-devices 4 --batch-per-device 32   # 4 virtual CPU devices
    gojax-train --host-devices 1                  # the whole run on one device (one core)

Every :class:`gojax.training.TrainConfig` field is a flag (``--help`` lists
them with their defaults). Every device of the machine is used, data-parallel
(``--devices`` to use fewer); ``--distributed`` calls
``jax.distributed.initialize`` first for a multi-host run. With ``--resume``
the run's saved ``config.json`` is used; only the fields marked resumable
(the budget, the evaluation and file settings) change when given on the
command line. On a CPU, the run splits the processor into one JAX device per
core (``--host-devices``): self-play and training then run on every core. On
7x7 the komi defaults to 9, the fair value under area scoring. See
:mod:`gojax.training.loop` for what is written under ``--run-dir``.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys

from gojax._host.cpu_devices import default_host_devices, split_host_cpu
from gojax.alphazero import initialize_distributed
from gojax.training.config import TrainConfig
from gojax.training.flags import add_arguments, given_fields
from gojax.training.loop import train

__all__ = ["build_parser", "config_from_arguments", "main"]


def build_parser() -> argparse.ArgumentParser:
    """The flags of ``gojax-train``: one per :class:`TrainConfig` field, plus how to run it."""
    parser = argparse.ArgumentParser(
        prog="gojax-train", description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    add_arguments(parser.add_argument_group("training settings (TrainConfig)"))
    run = parser.add_argument_group("running")
    run.add_argument(
        "--resume", action="store_true", help="continue the run in --run-dir from its latest checkpoint"
    )
    run.add_argument(
        "--host-devices",
        type=int,
        help="split the CPU into this many JAX devices (XLA_FLAGS); default: one per core, at most 8 "
        "(and --devices), as many as divide --batch and --train-batch, unless XLA_FLAGS names a count",
    )
    run.add_argument(
        "--distributed", action="store_true", help="jax.distributed.initialize() first (multi-host)"
    )
    run.add_argument("--coordinator", help="multi-host: coordinator host:port")
    run.add_argument("--num-processes", type=int, help="multi-host: number of processes")
    run.add_argument("--process-id", type=int, help="multi-host: this process's index")
    return parser


def config_from_arguments(args: argparse.Namespace) -> TrainConfig:
    """The run's :class:`TrainConfig`: the defaults (or a resumed run's ``config.json``) and the flags given.

    Raises:
      TypeError, ValueError: for a bad setting.
    """
    given = given_fields(args)
    if given.get("size") == 7 and "komi" not in given:
        given["komi"] = 9.0  # the fair 7x7 komi under area scoring
    run_dir = given.get("run_dir", TrainConfig.run_dir)
    saved_path = os.path.join(run_dir, "config.json")
    if not (args.resume and os.path.exists(saved_path)):
        return TrainConfig(**given)
    with open(saved_path, encoding="utf-8") as handle:
        saved = TrainConfig.from_dict(json.load(handle))
    resumable = {f.name for f in dataclasses.fields(TrainConfig) if f.metadata.get("resumable")}
    changed = sorted(
        k for k, v in given.items() if k not in resumable and k != "run_dir" and getattr(saved, k) != v
    )
    if changed:
        print(f"--resume: ignoring {changed}: the run's config.json fixes them", file=sys.stderr)
    # The run is where its config.json was read, even if the folder was moved or copied since.
    kept = {k: v for k, v in given.items() if k in resumable}
    return dataclasses.replace(saved, **kept, run_dir=run_dir)


def host_devices(args: argparse.Namespace, config: TrainConfig) -> int | None:
    """The CPU devices to ask for: ``--host-devices``, else one per core (see ``--host-devices``' help).

    ``None``: leave JAX's devices as they are (``XLA_FLAGS`` names a count,
    or a multi-host run).
    """
    if args.host_devices is not None:
        return args.host_devices
    if args.distributed:
        return None
    sizes = [
        total
        for total, per_device in (
            (config.batch, config.batch_per_device),
            (config.train_batch, config.train_batch_per_device),
        )
        if per_device is None
    ]
    return default_host_devices(sizes, most=config.devices or 8)


def main(argv: list[str] | None = None) -> int:
    """Parses the flags, trains (or resumes) and returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        config = config_from_arguments(args)
        count = host_devices(args, config)
    except (TypeError, ValueError) as error:
        print(f"gojax-train: {error}", file=sys.stderr)
        return 2
    if args.resume and (problem := _not_resumable(config.run_dir)):
        print(f"gojax-train: --resume: {problem}", file=sys.stderr)
        return 2
    if count is not None:  # read when JAX starts its backends, which nothing has done yet
        split_host_cpu(count)
    if args.distributed:
        initialize_distributed(args.coordinator, args.num_processes, args.process_id)
    train(config, resume=args.resume)
    return 0


def _not_resumable(run_dir: str) -> str | None:
    """Why ``run_dir`` holds no run to resume, or ``None`` when it holds a checkpoint."""
    if not os.path.isdir(run_dir):
        return f"{run_dir!r} does not exist (drop --resume to start a new run there)"
    if os.path.isdir(os.path.join(run_dir, "checkpoints")):
        from gojax.training.checkpoints import RunCheckpoints  # orbax: only when there is something to read

        if RunCheckpoints(run_dir).latest_step() is not None:
            return None
    return f"{run_dir!r} holds no checkpoint to resume (drop --resume to start a new run there)"
