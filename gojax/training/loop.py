"""The AlphaZero training loop: self-play, replay, training, evaluation, checkpoints (host-side driver).

::

    from gojax.training import TrainConfig, train
    summary = train(TrainConfig(size=9, minutes=30, run_dir="runs/9x9"))

One **iteration** plays ``moves_per_iteration`` moves in each of the ``batch``
self-play games (:func:`gojax.alphazero.selfplay`, one jitted ``lax.scan``),
then - once the replay buffer holds ``min_replay`` finished positions - runs
``train_steps`` optimizer steps on random batches with random symmetries
(:func:`gojax.alphazero.sample_and_train`, one jitted step per call). By
default ``train_steps`` is set so that each new position is drawn ``reuse``
times on average. Evaluation games, SGF samples, metrics and checkpoints
happen between iterations.

Unlike :mod:`gojax.alphazero` this is a host-side tool (with
:class:`gojax.training.TrainingRun`, which does the work): it calls
``jax.jit``, writes files and prints. Everything it runs on the devices is
data-parallel over a :func:`gojax.alphazero.make_mesh` mesh. The **time
budget** (``minutes``) counts self-play, training, compilation and
checkpoints, not the evaluation games (their time is reported apart). A run
resumed with ``resume=True`` continues the budget, the counters, the replay
buffer, the running self-play games and the PRNG key of its latest
checkpoint; with the same settings it computes what the uninterrupted run
would have (the times of evaluations and checkpoints aside). In a run of
several processes, process 0's clock decides for all when to save and when
the budget is spent.

Files under ``run_dir``: ``config.json``, ``checkpoints/<iteration>/`` and
``network/`` (:class:`gojax.training.RunCheckpoints`), ``metrics.csv``,
``learning_curve.png``, ``sgf/selfplay_*.sgf``, ``sgf_gnugo/``,
``summary.md``, ``summary.json``, ``resume_log.jsonl``.
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from gojax._host.atomic import atomic_write
from gojax._host.optional import import_optional
from gojax.training.config import TrainConfig
from gojax.training.distributed import from_process_zero
from gojax.training.evaluation import gnugo_available, play_gnugo
from gojax.training.metrics import plot_learning_curve, summarize_run, to_json
from gojax.training.run import Counters, TrainingRun
from gojax.training.samples import write_sgf_samples

__all__ = ["restore_run", "train"]


def train(cfg: TrainConfig, resume: bool = False) -> dict[str, Any]:
    """Runs (or resumes) a training run; returns its summary (also in ``run_dir/summary.json``).

    Raises:
      ValueError: for inconsistent settings (batch not a multiple of the
        devices, a replay buffer smaller than ``batch * move cap``, ...).
    """
    run = TrainingRun(cfg, resume)
    # Several processes: all run the same steps and write the checkpoints and the network together
    # (orbax); only process 0 writes the other files, and the evaluation games are skipped.
    primary, single = jax.process_index() == 0, jax.process_count() == 1
    if primary:
        atomic_write(os.path.join(cfg.run_dir, "config.json"), json.dumps(cfg.to_dict(), indent=1))
    counters, budget = run.counters, cfg.minutes * 60.0
    title = f"{cfg.size}x{cfg.size} AlphaZero, {cfg.blocks}x{cfg.channels} net, {cfg.simulations} sims"
    bar = _progress_bar(budget, counters.elapsed) if cfg.progress and primary else None
    last_save, last_eval, last_gnugo = time.monotonic(), counters.elapsed, counters.elapsed
    sgf_count, shown = 0, False
    if primary and not single and (cfg.eval_every > 0 or cfg.final_eval_games or cfg.gnugo_games):
        print(
            f"{jax.process_count()} processes: the evaluation games are skipped (evaluate the network "
            f"in {os.path.join(cfg.run_dir, 'network')} afterwards, e.g. with gojax-match)"
        )

    def done() -> bool:
        if cfg.max_iterations is not None and counters.iteration >= cfg.max_iterations:
            return True
        return counters.elapsed >= budget

    stop = _agreed(done())[0]
    while not stop:
        row = run.iteration()
        if bar is not None:
            _show_progress(bar, counters, row)
        if primary and run.traffic and not shown:
            shown = True
            (bar.write if bar is not None else print)(_traffic_line(run))
        due = cfg.eval_every > 0 and counters.elapsed - last_eval >= cfg.eval_every * 60
        if due and cfg.eval_games > 0 and single:
            sgf_count += _evaluate(run, title, sgf_count, bar.write if bar is not None else print)
            last_eval = counters.elapsed
        if cfg.gnugo_every > 0 and counters.elapsed - last_gnugo >= cfg.gnugo_every * 60 and single:
            _gnugo_rung(run, bar.write if bar is not None else print)
            last_gnugo = counters.elapsed
        save, stop = _agreed(time.monotonic() - last_save >= cfg.checkpoint_every * 60, done())
        if save:
            run.save()
            last_save = time.monotonic()
    if bar is not None:
        bar.close()
    run.save()
    network_dir = run.save_network()  # by every process: orbax writes it together
    if not primary:
        run.close()
        return {}
    summary = _finish(run, title, sgf_count, single, network_dir)
    run.close()
    return summary


def _agreed(*decisions: bool) -> tuple[bool, ...]:
    """Process 0's ``decisions``, in every process (each must call it; a broadcast when there are several).

    The clock-driven decisions of the loop - stop at the time budget, save a
    checkpoint - are taken on each process's own clock; the processes must take
    them together (a checkpoint is written by all, and every iteration is
    collective), so all follow process 0.
    """
    return tuple(bool(v) for v in from_process_zero(np.array(decisions, np.bool_)))


def _traffic_line(run: TrainingRun) -> str:
    """What the devices exchange (metrics.csv has it in every row from now on)."""
    mesh = run.mesh
    return (
        f"{jax.process_count()} process(es), {mesh.devices.size} device(s): the devices exchange "
        f"{run.traffic['exchanged_per_train_step']:,} bytes per training step and "
        f"{run.traffic['exchanged_per_selfplay']:,} bytes per self-play call "
        "(columns exchanged_per_train_step_bytes, exchanged_per_selfplay_bytes of metrics.csv)"
    )


def _local_games(actor: Any) -> Any:
    """``actor``'s finished-game fields as host arrays of this process's own games (all, in one process)."""

    def local(x: Any) -> np.ndarray:
        if getattr(x, "is_fully_addressable", True):
            return np.asarray(jax.device_get(x))
        shards = sorted(x.addressable_shards, key=lambda s: s.index[0].start or 0)
        return np.concatenate([np.asarray(s.data) for s in shards])

    return dataclasses.replace(actor, last_moves=local(actor.last_moves), last_score=local(actor.last_score))


def _progress_bar(budget: float, elapsed: float) -> Any:
    """A tqdm bar of the seconds of the budget spent."""
    tqdm = import_optional("tqdm.auto", feature="the progress bar of gojax-train", extra="alphazero").tqdm
    return tqdm(
        total=round(budget),
        initial=min(round(elapsed), round(budget)),
        unit="s",
        desc="training",
        dynamic_ncols=True,
    )


def _show_progress(bar: Any, counters: Counters, row: dict[str, Any]) -> None:
    """The bar at the time spent, with the last loss and the games' and moves' rates."""
    bar.n = min(round(counters.elapsed), bar.total)
    sp = max(counters.steady_selfplay_time, 1e-9)
    bar.set_postfix(
        loss=f"{row.get('loss', float('nan')):.3f}",
        games=counters.games,
        games_s=f"{counters.games / counters.elapsed:.2f}",
        moves_s=f"{counters.steady_positions / sp:.0f}",
        refresh=False,
    )
    bar.refresh()


def _evaluate(run: TrainingRun, title: str, sgf_count: int, say: Callable[[str], Any]) -> int:
    """The evaluation games of an iteration, the learning curve and SGF samples; the samples written."""
    cfg, counters = run.cfg, run.counters
    say(
        f"[{counters.elapsed / 60:.1f} min] evaluating: {cfg.eval_games} games against each of "
        f"{', '.join(cfg.eval_opponents)} (not counted in the budget)"
    )
    results = run.evaluate(cfg.eval_games, cfg.eval_opponents)
    text = ", ".join(f"{k} {r.score:.2f}" for k, r in results.items())
    say(f"[{counters.elapsed / 60:.1f} min] scores (wins + draws/2): {text}")
    plot_learning_curve(run.metrics.rows, os.path.join(cfg.run_dir, "learning_curve.png"), title)
    if not cfg.sgf_games:
        return 0
    paths = write_sgf_samples(
        run.rules, run.state.actor, os.path.join(cfg.run_dir, "sgf"), cfg.sgf_games, sgf_count
    )
    return len(paths)


def _finish(run: TrainingRun, title: str, sgf_count: int, single: bool, network_dir: str) -> dict[str, Any]:
    """The final evaluation, the last SGF samples, the learning curve and the summary
    (``summary.md``, ``summary.json``, printed); returns the summary."""
    cfg, counters = run.cfg, run.counters
    final = {}
    if cfg.final_eval_games > 0 and cfg.final_eval_opponents and single:
        names = ", ".join(cfg.final_eval_opponents)
        print(f"final evaluation: {cfg.final_eval_games} games against each of {names}")
        final = run.evaluate(cfg.final_eval_games, cfg.final_eval_opponents)
    if cfg.gnugo_games and single:
        final.update(_gnugo(run, network_dir))
    if cfg.sgf_games:
        games = _local_games(run.state.actor)
        write_sgf_samples(run.rules, games, os.path.join(cfg.run_dir, "sgf"), cfg.sgf_games, sgf_count)
    run.metrics.flush()
    plot_learning_curve(run.metrics.rows, os.path.join(cfg.run_dir, "learning_curve.png"), title)
    extra = {
        "config": cfg.to_dict(),
        "devices": int(run.mesh.devices.size),
        "processes": jax.process_count(),
        **{f"{name}_bytes": value for name, value in run.traffic.items()},
        "batch": run.batch,
        "train_batch": run.train_batch,
        "train_steps_per_iteration": run.train_steps,
        "selfplay_shards": [
            int(x.data.shape[0]) for x in run.state.actor.games.move_number.addressable_shards
        ],
    }
    summary, text = summarize_run(title, counters.to_dict(), extra, run.metrics.rows, final)
    atomic_write(os.path.join(cfg.run_dir, "summary.md"), text + "\n")
    atomic_write(os.path.join(cfg.run_dir, "summary.json"), to_json(summary))
    print(text)
    return summary


def _gnugo(run: TrainingRun, network_dir: str) -> dict[str, Any]:
    """The final games against GNU Go, or nothing (with a message) when it is not available."""
    cfg = run.cfg
    if not gnugo_available():
        print("skipping the games against GNU Go: the gnugo binary is missing")
        return {}
    seconds = cfg.gnugo_seconds_per_move
    budget = f"{seconds:g} s" if seconds else f"{cfg.simulations} simulations"
    games, level = cfg.gnugo_games, cfg.gnugo_level
    print(f"final evaluation: {games} games against GNU Go level {level}, {budget} a move")
    start = time.perf_counter()
    result = play_gnugo(
        run.rules,
        network_dir,
        cfg.gnugo_games,
        settings=cfg.eval_search_settings(),
        level=cfg.gnugo_level,
        seed=cfg.seed,
        sgf_dir=os.path.join(cfg.run_dir, "sgf_gnugo"),
        seconds_per_move=cfg.gnugo_seconds_per_move or None,
    )
    run.counters.eval_time += time.perf_counter() - start
    name = f"gnugo_level{cfg.gnugo_level}"
    run.metrics.log(run.counters.eval_row(name, result))
    return {name: result}


def _gnugo_rung(run: TrainingRun, say: Callable[[str], Any]) -> None:
    """Games against the GNU Go level of the ladder the agent is on; a score of 0.5 moves it up a level."""
    cfg, counters = run.cfg, run.counters
    if not gnugo_available():
        say("skipping the games against GNU Go: the gnugo binary is missing")
        return
    rung = min(counters.gnugo_rung, len(cfg.gnugo_ladder) - 1)
    level = cfg.gnugo_ladder[rung]
    start = time.perf_counter()
    result = play_gnugo(
        run.rules,
        run.save_network(),
        cfg.gnugo_eval_games,
        settings=cfg.eval_search_settings(),
        level=level,
        seed=cfg.seed + counters.evals_done,
        sgf_dir=os.path.join(cfg.run_dir, "sgf_gnugo", f"{counters.iteration:06d}_level{level}"),
        seconds_per_move=cfg.gnugo_seconds_per_move or None,
    )
    counters.evals_done += 1
    counters.eval_time += time.perf_counter() - start
    run.metrics.log(counters.eval_row(f"gnugo_level{level}", result, positions=counters.positions))
    lo, hi = result.elo_interval
    say(
        f"[{counters.elapsed / 60:.1f} min] GNU Go level {level}: {result.wins}/{result.num_games}, "
        f"Elo {result.elo:+.0f} [{lo:+.0f}, {hi:+.0f}]"
    )
    if result.score >= 0.5 and rung + 1 < len(cfg.gnugo_ladder):
        counters.gnugo_rung = rung + 1


def restore_run(run_dir: str, devices: int | None = 1) -> tuple[TrainConfig, Any, Any, Counters]:
    """The network of a run's latest checkpoint (to evaluate or continue it elsewhere): its moving
    average of the weights when the run keeps one (``TrainConfig.average_decay``).

    Returns:
      ``(config, graphdef, variables, counters)``.

    Raises:
      FileNotFoundError: if ``run_dir`` has no ``config.json`` or no checkpoint.
    """
    with open(os.path.join(run_dir, "config.json"), encoding="utf-8") as handle:
        cfg = TrainConfig.from_dict(json.load(handle))
    cfg = dataclasses.replace(cfg, run_dir=run_dir, devices=devices, progress=False)
    run = TrainingRun(cfg, resume=True)
    try:
        if run.checkpoints.latest_step() is None:
            raise FileNotFoundError(f"no checkpoint in {run_dir}")
        variables = jax.device_get(run.state.network)
    finally:
        run.close()
    return cfg, run.graphdef, variables, dataclasses.replace(run.counters)
