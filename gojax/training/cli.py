"""The ``gojax-train`` command (also ``python experiments/train.py``): train an AlphaZero Go agent.

::

    gojax-train                                   # 9x9, 30 minutes, run dir runs/alphazero
    gojax-train --minutes 5 --run-dir runs/quick
    gojax-train --run-dir runs/quick --resume     # continue after a kill
    gojax-train --host-devices 4 --batch-per-device 32   # 4 virtual CPU devices
    gojax-train --host-devices 1                  # the whole run on one device (one core)
    gojax-train --local-processes 2               # 2 cooperating processes on this machine
    gojax-train --coordinator host0:5000 --num-processes 4 --process-id 2   # one of 4 hosts
    srun gojax-train --distributed                # Slurm (or a Cloud TPU slice): detected

Every :class:`gojax.training.TrainConfig` field is a flag (``--help`` lists
them with their defaults). Every device of the machine is used, data-parallel
(``--devices`` to use fewer); with ``--resume`` the run's saved
``config.json`` is used; only the fields marked resumable (the budget, the
evaluation and file settings) change when given on the command line. On a
CPU, the run splits the processor into one JAX device per core
(``--host-devices``): self-play and training then run on every core. On 7x7
the komi defaults to 9, the fair value under area scoring. See
:mod:`gojax.training.loop` for what is written under ``--run-dir``.

**Several processes.** ``--coordinator HOST:PORT --num-processes N
--process-id I`` (or ``--distributed`` alone, where JAX detects them: Slurm,
Cloud TPU, ...) make this process one of ``N`` that train together on JAX's
multi-controller runtime (:func:`gojax.alphazero.initialize_distributed`):
one global mesh over all their devices, the self-play games and the replay
buffer split between them, gradients averaged across all devices,
checkpoints written by all of them together (``--run-dir`` must be a folder
they all see). ``--local-processes N`` starts ``N`` such processes on this
machine (:mod:`gojax.training.launch`). Processes started with different
settings are refused (exit status 2, naming each difference); when a
process dies the others stop, naming it (exit status 1). ``--resume``
continues with the same number of processes or another.
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
from gojax.training.distributed import (
    gather_json,
    report_failure,
    same_settings_everywhere,
    watch_processes,
)
from gojax.training.flags import add_arguments, given_fields
from gojax.training.launch import run_local_processes, share_of_cores
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
    processes = parser.add_argument_group("several processes (JAX's multi-controller runtime)")
    processes.add_argument(
        "--distributed",
        action="store_true",
        help="one of several processes: jax.distributed.initialize() first, the coordinator, process count "
        "and id from the flags below or, where they are missing, from the cluster (Slurm, Cloud TPU, ...)",
    )
    processes.add_argument("--coordinator", help="HOST:PORT of the coordinator (process 0 serves it)")
    processes.add_argument("--num-processes", type=int, help="number of processes")
    processes.add_argument("--process-id", type=int, help="this process's index, from 0")
    processes.add_argument(
        "--heartbeat-timeout",
        type=int,
        default=20,
        help="seconds without news from a process before the others stop (default 20)",
    )
    processes.add_argument(
        "--local-processes",
        type=int,
        help="start this many cooperating processes on this machine (a local coordinator, CPU collectives "
        "through gloo), each with --host-devices devices (default: an equal share of the cores)",
    )
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
    if _distributed(args):
        return None
    sizes = _global_batches(config)
    return default_host_devices(sizes, most=config.devices or 8)


def _global_batches(config: TrainConfig) -> list[int]:
    """The batches given as totals over all devices (not per device): a device count must divide them."""
    return [
        total
        for total, per_device in (
            (config.batch, config.batch_per_device),
            (config.train_batch, config.train_batch_per_device),
        )
        if per_device is None
    ]


def _distributed(args: argparse.Namespace) -> bool:
    """Whether this process is one of several (``--distributed`` or any of the process flags)."""
    given = (args.coordinator, args.num_processes, args.process_id)
    return args.distributed or any(value is not None for value in given)


def _launch(args: argparse.Namespace, argv: list[str], config: TrainConfig) -> int:
    """``--local-processes N``: starts the ``N`` processes (no JAX work here) and returns their status."""
    if _distributed(args):
        print("gojax-train: --local-processes starts its own processes: drop --distributed", file=sys.stderr)
        return 2
    count = args.local_processes
    if count < 1:
        print(f"gojax-train: --local-processes must be at least 1, got {count}", file=sys.stderr)
        return 2
    sizes = _global_batches(config)
    devices = args.host_devices or share_of_cores(count, sizes)
    return run_local_processes(argv, count, devices)


def main(argv: list[str] | None = None) -> int:
    """Parses the flags, trains (or resumes) and returns the exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    args = build_parser().parse_args(argv)
    try:
        config = config_from_arguments(args)
        if args.local_processes is not None:
            return _launch(args, argv, config)
        count = host_devices(args, config)
    except (TypeError, ValueError) as error:
        print(f"gojax-train: {error}", file=sys.stderr)
        return 2
    if _distributed(args):
        # Before JAX starts its backends (initialize_distributed); --resume is checked there, by every
        # process together.
        if count is not None:
            split_host_cpu(count)
        return _train_together(args, config)
    flags = os.environ.get("XLA_FLAGS")
    if count is not None:  # read when JAX starts its backends: before the resume check's orbax starts them
        split_host_cpu(count)
    if args.resume and (problem := _not_resumable(config.run_dir)):
        if flags is None:  # a refused run leaves the process's devices as they were
            os.environ.pop("XLA_FLAGS", None)
        else:
            os.environ["XLA_FLAGS"] = flags
        print(f"gojax-train: --resume: {problem}", file=sys.stderr)
        return 2
    train(config, resume=args.resume)
    return 0


def _train_together(args: argparse.Namespace, config: TrainConfig) -> int:
    """One of several processes: the same settings everywhere, then the run; a failure names who stopped."""
    import jax

    from gojax._version import __version__

    initialize_distributed(
        args.coordinator, args.num_processes, args.process_id, heartbeat_timeout=args.heartbeat_timeout
    )
    me = jax.process_index()
    settings = {k: v for k, v in config.to_dict().items() if k != "progress"}
    settings.update(resume=args.resume, gojax=__version__, jax=jax.__version__)
    settings.update(local_devices=jax.local_device_count())
    try:  # first: the steps below are collective, and would not match between unlike processes
        same_settings_everywhere(settings)
    except ValueError as error:
        print(f"gojax-train: process {me}: {error}", file=sys.stderr, flush=True)
        return 2
    watch_processes()
    if args.resume:
        # Every process looks (the run folder may not be shared); all refuse if one does.
        problems = gather_json(_not_resumable(config.run_dir))
        if any(problems):
            where = "; ".join(f"process {p}: {problem}" for p, problem in enumerate(problems) if problem)
            print(f"gojax-train: process {me}: --resume: {where}", file=sys.stderr, flush=True)
            return 2
    try:
        train(config.replace(progress=config.progress and jax.process_index() == 0), resume=args.resume)
    except Exception as error:
        if jax.process_count() == 1:
            raise
        report_failure(error)
        # Not the interpreter's exit: JAX's shutdown would wait for the processes that are gone.
        sys.stdout.flush()
        os._exit(1)
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
