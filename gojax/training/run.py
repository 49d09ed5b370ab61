"""One training run on the host: its typed state, its counters, its jitted steps (used by :func:`train`).

* :class:`RunState` - the whole training state on the devices (network
  variables, optimizer state, replay buffer, running self-play games, PRNG
  key): a pytree, what a run checkpoint holds.
* :class:`Counters` - host counters (iterations, training steps, positions,
  games, results, times), saved with every checkpoint.
* :class:`TrainingRun` - builds everything a run needs from a
  :class:`TrainConfig` - the device mesh, the network, the optimizer, the
  replay buffer, the self-play games, the jitted self-play
  (:func:`gojax.alphazero.selfplay`) and training
  (:func:`gojax.alphazero.sample_and_train`, one step per call: see there on
  XLA:CPU) functions, the evaluator and the checkpoints - restores the latest
  checkpoint when resuming, and runs one iteration at a time
  (:meth:`TrainingRun.iteration`). A host-side tool: it calls ``jax.jit``.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import time
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from gojax import alphazero as az
from gojax.features import observation
from gojax.training.checkpoints import RunCheckpoints
from gojax.training.config import TrainConfig
from gojax.training.evaluation import Evaluator, default_baselines
from gojax.training.metrics import MetricsLog, eval_row

__all__ = ["Counters", "RunState", "TrainingRun"]


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class RunState:
    """The training state on the devices (a pytree; fields in the order they are checkpointed).

    Attributes:
      actor: :class:`gojax.alphazero.SelfPlayState`, the ``B`` running games (split over devices).
      buffer: :class:`gojax.alphazero.ReplayBuffer`.
      key: the run's PRNG key.
      opt_state: the optax optimizer state.
      variables: the network's ``{"params", "batch_stats"}``.
    """

    actor: az.SelfPlayState
    buffer: az.ReplayBuffer
    key: jax.Array
    opt_state: Any
    variables: Any

    def replace(self, **changes: Any) -> RunState:
        """A copy with the given fields replaced."""
        return dataclasses.replace(self, **changes)


@dataclasses.dataclass
class Counters:
    """What a run has done so far (host numbers; saved with every checkpoint, continued on resume).

    Attributes:
      iteration: iterations done.
      train_steps: optimizer steps done.
      positions: self-play positions searched.
      games, black_wins, white_wins, draws, truncated: finished self-play games and their results.
      resigned: finished games that a player resigned.
      resign_checks, false_resigns: games without resignation in which a player
        would have resigned, and those of them that player won.
      game_moves: total moves of the finished games.
      elapsed: seconds spent against the budget (self-play, training, compilation, checkpoints).
      eval_time: seconds of evaluation games (not in the budget).
      selfplay_time, train_time: seconds of self-play and of training.
      evals_done: evaluations run (each gets its own PRNG key).
      gnugo_rung: the index in ``gnugo_ladder`` of the GNU Go level the
        agent plays next during training.
      steady_positions, steady_selfplay_time: self-play after the first
        iteration of a process (which compiles), for the steady rate.
    """

    iteration: int = 0
    train_steps: int = 0
    positions: int = 0
    games: int = 0
    black_wins: int = 0
    white_wins: int = 0
    draws: int = 0
    truncated: int = 0
    resigned: int = 0
    resign_checks: int = 0
    false_resigns: int = 0
    game_moves: int = 0
    elapsed: float = 0.0
    eval_time: float = 0.0
    selfplay_time: float = 0.0
    train_time: float = 0.0
    evals_done: int = 0
    gnugo_rung: int = 0
    steady_positions: int = 0
    steady_selfplay_time: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """The counters as a JSON-ready dict."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Counters:
        """Inverse of :meth:`to_dict` (unknown keys are ignored, missing ones are 0)."""
        names = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in names})

    def eval_row(self, name: str, result: Any, **more: Any) -> dict[str, Any]:
        """The metrics row of an evaluation matchup played now (:func:`gojax.training.eval_row`)."""
        return eval_row(
            name, result, step=self.train_steps, iteration=self.iteration, minutes=self.elapsed / 60, **more
        )


def _global(value: int, per_device: int | None, devices: int, name: str) -> int:
    total = value if per_device is None else per_device * devices
    if total < devices or total % devices:
        raise ValueError(f"{name} = {total} must be a positive multiple of the {devices} devices")
    return total


class TrainingRun:
    """One run on the host: the mesh, the jitted self-play and training steps, the state, files, counters.

    Args:
      cfg: the settings.
      resume: continue from the latest checkpoint in ``cfg.run_dir`` if there is one.

    Attributes:
      state: the :class:`RunState` (what a checkpoint holds, with ``counters`` and the metrics rows).
      counters: the :class:`Counters`.
      metrics: the :class:`MetricsLog`.
      checkpoints: the run's :class:`RunCheckpoints`.
    """

    def __init__(self, cfg: TrainConfig, resume: bool):
        self.cfg = cfg
        self.mesh = az.make_mesh(cfg.devices)
        devices = self.mesh.devices.size
        self.batch = _global(cfg.batch, cfg.batch_per_device, devices, "batch")
        self.train_batch = _global(cfg.train_batch, cfg.train_batch_per_device, devices, "train_batch")
        self.rules = cfg.rules()
        self.observation = observation("basic")  # the name checkpoints record (observe_name)
        observe = self.observation.observe
        channels = self.observation.channels(self.rules)
        az.check_capacity(cfg.replay_capacity, self.batch, self.rules.move_cap)
        positions = self.batch * cfg.moves_per_iteration
        self.train_steps = cfg.train_steps or max(1, round(cfg.reuse * positions / self.train_batch))
        self.settings = cfg.selfplay_settings(observe)
        self.net_config = cfg.network_config()
        optimizer = az.make_optimizer(cfg.optimizer_config())
        self.graphdef, self.state = self._initial_state(channels, optimizer)
        self.counters = Counters()
        self._warm = False  # the first iteration of a process compiles: left out of the steady rates
        os.makedirs(cfg.run_dir, exist_ok=True)
        self.checkpoints = RunCheckpoints(cfg.run_dir)
        rows = []
        if resume and self.checkpoints.latest_step() is not None:
            self.state, saved, step = self.checkpoints.restore(self.state)
            self.counters = Counters.from_dict(saved["counters"])
            rows = saved["metrics"]
            self._log_resume(step)
        self.metrics = MetricsLog(
            os.path.join(cfg.run_dir, "metrics.csv"), rows, os.path.join(cfg.run_dir, "tb")
        )
        self.play, self.learn = self._compiled_steps(optimizer)
        search = cfg.eval_search_settings()
        opponents = default_baselines(search.num_simulations, cfg.mc_playouts)
        wanted = list(dict.fromkeys(cfg.eval_opponents + cfg.final_eval_opponents))
        self.evaluator = Evaluator(
            self.rules, self.graphdef, search, {k: opponents[k] for k in wanted}, observe=observe
        )

    def _initial_state(self, channels: int, optimizer: Any) -> tuple[Any, RunState]:
        """``(graphdef, state)`` of a new run: the network's first weights, an empty replay buffer,
        the optimizer's state and the self-play games, placed on the mesh."""
        from flax import nnx

        cfg = self.cfg
        key = jax.random.PRNGKey(cfg.seed)
        key, init_key = jax.random.split(key)
        seed = int(jax.random.randint(init_key, (), 0, 2**31 - 1))

        def build():
            return az.PolicyValueNet(self.net_config, cfg.size, channels, rngs=nnx.Rngs(seed))

        # The initial weights in one compiled call (eager initialisers dispatch op by op: seconds).
        graphdef, _ = az.split(nnx.eval_shape(build))
        variables = jax.jit(lambda: az.split(build())[1])()
        replicated = az.replicate(
            (
                az.replay_init(cfg.replay_capacity, cfg.size, channels, np.dtype(cfg.replay_dtype)),
                key,
                optimizer.init(variables["params"]),
                variables,
            ),
            self.mesh,
        )
        actor = az.shard_batch(az.selfplay_init(self.rules, self.batch), self.mesh)
        return graphdef, RunState(actor, *replicated)

    def _compiled_steps(self, optimizer: Any) -> tuple[Any, Any]:
        """``(play, learn)``: one iteration's self-play and one optimizer step, jitted over the mesh.

        ``play(variables, actor, buffer, key)`` is ``(actor, buffer, stats, ready positions)``;
        ``learn(variables, opt_state, buffer, key)`` is :func:`gojax.alphazero.sample_and_train`'s
        result. Both donate the state they replace.
        """
        cfg = self.cfg
        batch_s, repl_s = az.batch_sharding(self.mesh), az.replicated(self.mesh)
        constrain = functools.partial(az.constrain_batch, mesh=self.mesh)

        def play(variables, actor, buffer, key, full):
            # Playout cap randomization per iteration, drawn on the host (TrainingRun.iteration):
            # one compiled self-play of full searches and one of cheap ones, no conditional around
            # the sharded search (XLA:CPU's collectives inside a lax.cond stall on 4 devices).
            fraction = 1.0 if full else 0.0
            settings = self.settings
            if cfg.full_search_fraction < 1.0:
                settings = dataclasses.replace(settings, full_search_fraction=fraction)
            actor, buffer, stats = az.selfplay(
                self.rules,
                settings,
                self.graphdef,
                variables,
                actor,
                buffer,
                key,
                cfg.moves_per_iteration,
                constrain,
            )
            return actor, buffer, stats, jnp.sum(buffer.ready.astype(jnp.int32))

        def learn(variables, opt_state, buffer, key):
            return az.sample_and_train(
                self.graphdef,
                optimizer,
                variables,
                opt_state,
                buffer,
                key,
                self.train_batch,
                1,
                augment=cfg.augment,
                weights=cfg.loss_weights(),
                batch_constraint=constrain,
            )

        compiled_play = jax.jit(
            play,
            in_shardings=(repl_s, batch_s, repl_s, repl_s),
            out_shardings=(batch_s, repl_s, repl_s, repl_s),
            donate_argnums=(1, 2),
            static_argnums=(4,),
        )
        compiled_learn = jax.jit(learn, in_shardings=repl_s, out_shardings=repl_s, donate_argnums=(0, 1))
        return compiled_play, compiled_learn

    def _log_resume(self, step: int) -> None:
        leaves = jax.tree.leaves(jax.device_get(self.state.variables["params"]))
        record = {
            "resumed_from": step,
            "iteration": self.counters.iteration,
            "params_abs_sum": float(sum(np.abs(np.asarray(x, np.float64)).sum() for x in leaves)),
            "time": time.time(),
        }
        with open(os.path.join(self.cfg.run_dir, "resume_log.jsonl"), "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")

    def save(self) -> None:
        """Checkpoints the run (once per iteration: a second call for the same one only writes the CSV)."""
        iteration = self.counters.iteration
        if self.checkpoints.latest_step() != iteration:
            meta = {
                "config": self.cfg.to_dict(),
                "counters": self.counters.to_dict(),
                "metrics": self.metrics.rows,
            }
            self.checkpoints.save(iteration, self.state, meta)
        if jax.process_index() == 0:
            self.metrics.flush()

    def save_network(self) -> str:
        """Writes the current network to ``run_dir/network`` (what players and GTP load); returns the path."""
        return self.checkpoints.save_network(
            self.graphdef,
            self.state.variables,
            self.net_config,
            board_size=self.cfg.size,
            observe_name=self.observation.name,
            metadata={"komi": self.cfg.komi, "train_steps": self.counters.train_steps},
        )

    def iteration(self) -> dict[str, Any]:
        """One self-play + training iteration; returns its metrics row."""
        state, counters = self.state, self.counters
        key, play_key, learn_key = jax.random.split(state.key, 3)
        start = time.perf_counter()
        draw = np.random.default_rng([self.cfg.seed, counters.iteration]).random()
        full = bool(draw < self.cfg.full_search_fraction)
        actor, buffer, stats, ready = self.play(state.variables, state.actor, state.buffer, play_key, full)
        stats, ready = jax.device_get((stats, ready))
        played = time.perf_counter()
        state = state.replace(actor=actor, buffer=buffer, key=key)
        row: dict[str, Any] = {"kind": "train", "iteration": counters.iteration + 1, "ready": int(ready)}
        if ready >= max(self.cfg.min_replay, 1):
            # One jitted step per call: see sample_and_train on convolution gradients in XLA:CPU loops.
            variables, opt_state, steps = state.variables, state.opt_state, []
            for step_key in jax.random.split(learn_key, self.train_steps):
                variables, opt_state, metrics = self.learn(variables, opt_state, buffer, step_key)
                steps.append(metrics)
            metrics = jax.device_get(steps)
            state = state.replace(variables=variables, opt_state=opt_state)
            counters.train_steps += self.train_steps
            row.update(
                {
                    f.name: float(np.mean([float(getattr(m, f.name)) for m in metrics]))
                    for f in dataclasses.fields(metrics[0])
                }
            )
        self.state = state
        trained = time.perf_counter()
        counters.iteration += 1
        counters.positions += int(stats.moves)
        counters.games += int(stats.games)
        counters.black_wins += int(stats.black_wins)
        counters.white_wins += int(stats.white_wins)
        counters.draws += int(stats.draws)
        counters.truncated += int(stats.truncated)
        counters.resigned += int(stats.resigned)
        counters.resign_checks += int(stats.resign_checks)
        counters.false_resigns += int(stats.false_resigns)
        counters.game_moves += int(stats.length)
        counters.selfplay_time += played - start
        if self._warm:
            counters.steady_positions += int(stats.moves)
            counters.steady_selfplay_time += played - start
        self._warm = True
        counters.train_time += trained - played
        counters.elapsed += trained - start
        row.update(
            step=counters.train_steps,
            minutes=counters.elapsed / 60,
            games=counters.games,
            positions=counters.positions,
            new_games=int(stats.games),
            mean_length=int(stats.length) / max(int(stats.games), 1),
            black_win_rate=int(stats.black_wins) / max(int(stats.games), 1),
            resigned=int(stats.resigned),
            false_resign_rate=counters.false_resigns / max(counters.resign_checks, 1),
            selfplay_s=played - start,
            train_s=trained - played,
        )
        self.metrics.log(row)
        return row

    def evaluate(self, num_games: int, names=None) -> dict[str, Any]:
        """Plays the network against the baselines ``names`` (default: all); logs and returns the results."""
        start = time.perf_counter()
        key = jax.random.fold_in(jax.random.PRNGKey(self.cfg.seed + 1), self.counters.evals_done)
        results = self.evaluator.evaluate(self.state.variables, num_games, key, names)
        self.counters.evals_done += 1
        self.counters.eval_time += time.perf_counter() - start
        for name, r in results.items():
            self.metrics.log(self.counters.eval_row(name, r, eval_s=time.perf_counter() - start))
        return results

    def close(self) -> None:
        """Releases the checkpoints' resources."""
        self.checkpoints.close()
