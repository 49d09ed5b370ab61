"""The AlphaZero training driver: a run's settings, state, checkpoints, evaluation and metrics.

Import explicitly (``from gojax import training``); it needs what
:mod:`gojax.alphazero` needs. Everything here is host-side: it calls
``jax.jit``, writes files and prints. The pieces it drives - network, search,
self-play, replay buffer, loss, sharding - are in :mod:`gojax.alphazero`.

::

    from gojax import training
    summary = training.train(training.TrainConfig(size=9, minutes=30, run_dir="runs/9x9"))
    config, graphdef, variables, counters = training.restore_run("runs/9x9")

* :class:`TrainConfig` - every setting of a run, and the rules, network,
  search, self-play and optimizer built from it (``config.py``);
  :func:`add_arguments`, :func:`from_arguments`, :func:`to_arguments` - one
  command-line flag per field (``flags.py``); :func:`main` - the
  ``gojax-train`` command (``cli.py``).
* :class:`RunState`, :class:`Counters` - the state on the devices and the host
  counters (``state.py``); :class:`TrainingRun` - one iteration of self-play
  and training (``run.py``).
* :func:`same_settings_everywhere`, :func:`same_network_everywhere`,
  :func:`checksum`, :func:`collective_bytes`, :func:`gather_json`, :func:`stopped_processes`,
  :func:`report_failure`, :func:`watch_processes` - a run of several processes (``distributed.py``);
  :func:`run_local_processes` - ``gojax-train --local-processes N``
  (``launch.py``).
* :class:`RunCheckpoints` - run checkpoints to resume, and the network
  checkpoint that players and ``gojax-gtp`` load (``checkpoints.py``).
* :class:`Evaluator`, :func:`default_baselines`, :func:`play_gnugo`,
  :func:`gnugo_available`, :func:`summarize_games` - matches against the
  classic players and GNU Go (``evaluation.py``).
* :class:`MetricsLog`, :func:`eval_row`, :func:`plot_learning_curve`,
  :func:`summary_table`, :func:`summarize_run`, :func:`to_json` - metrics and
  the summary (``metrics.py``); :func:`write_sgf_samples` - self-play games as
  SGF (``samples.py``).
* :func:`train`, :func:`restore_run` - the loop (``loop.py``).
"""

from gojax._host.optional import require

require("flax", "optax", "orbax.checkpoint", "mctx", "chex", feature="gojax.training", extra="alphazero")

from gojax.training.checkpoints import RunCheckpoints
from gojax.training.cli import build_parser, config_from_arguments, main
from gojax.training.config import OPPONENTS, TrainConfig
from gojax.training.distributed import (
    checksum,
    collective_bytes,
    gather_json,
    report_failure,
    same_network_everywhere,
    same_settings_everywhere,
    stopped_processes,
    watch_processes,
)
from gojax.training.evaluation import (
    Evaluator,
    default_baselines,
    gnugo_available,
    play_gnugo,
    summarize_games,
)
from gojax.training.flags import add_arguments, flag_name, from_arguments, given_fields, to_arguments
from gojax.training.launch import run_local_processes
from gojax.training.loop import restore_run, train
from gojax.training.metrics import (
    MetricsLog,
    eval_row,
    plot_learning_curve,
    summarize_run,
    summary_table,
    to_json,
)
from gojax.training.run import TrainingRun
from gojax.training.samples import write_sgf_samples
from gojax.training.state import Counters, RunState

__all__ = [
    "OPPONENTS",
    "Counters",
    "Evaluator",
    "MetricsLog",
    "RunCheckpoints",
    "RunState",
    "TrainConfig",
    "TrainingRun",
    "add_arguments",
    "build_parser",
    "checksum",
    "collective_bytes",
    "config_from_arguments",
    "default_baselines",
    "eval_row",
    "flag_name",
    "from_arguments",
    "gather_json",
    "given_fields",
    "gnugo_available",
    "main",
    "play_gnugo",
    "plot_learning_curve",
    "report_failure",
    "restore_run",
    "run_local_processes",
    "same_network_everywhere",
    "same_settings_everywhere",
    "stopped_processes",
    "summarize_games",
    "summarize_run",
    "summary_table",
    "to_arguments",
    "to_json",
    "train",
    "watch_processes",
    "write_sgf_samples",
]
