"""One training run on the host: its jitted steps, its state and files (used by :func:`train`).

:class:`TrainingRun` builds everything a run needs from a
:class:`TrainConfig` - the device mesh (every device of every process), the
network, the optimizer, the replay buffer (one ring per self-play game, split
over the devices with the games), the self-play games, the jitted self-play
(:func:`gojax.alphazero.selfplay_sharded`) and training
(:func:`gojax.alphazero.sample_and_train`, one step per call: see there on
XLA:CPU) functions, the evaluator and the checkpoints - restores the latest
checkpoint when resuming, and runs one iteration at a time
(:meth:`TrainingRun.iteration`). Its state is a :class:`RunState`, its
counters :class:`Counters` (``state.py``). A host-side tool: it calls
``jax.jit``.
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
from gojax.training.checkpoints import RunCheckpoints
from gojax.training.config import TrainConfig
from gojax.training.distributed import checksum, collective_bytes, from_process_zero, same_network_everywhere
from gojax.training.evaluation import Evaluator, default_baselines
from gojax.training.metrics import MetricsLog
from gojax.training.state import Counters, RunState

__all__ = ["TrainingRun"]


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
        self.mesh = az.make_mesh(devices=az.process_devices(cfg.devices))
        self.primary = jax.process_index() == 0
        devices = self.mesh.devices.size
        self.batch = _global(cfg.batch, cfg.batch_per_device, devices, "batch")
        self.train_batch = _global(cfg.train_batch, cfg.train_batch_per_device, devices, "train_batch")
        self.rules = cfg.rules()
        self.observation = cfg.observation_spec()  # its name is what checkpoints record (observe_name)
        observe = self.observation.observe
        channels = self.observation.channels(self.rules)
        az.check_capacity(cfg.replay_capacity, self.batch, self.rules.move_cap, slots=True)
        positions = self.batch * cfg.moves_per_iteration
        self.train_steps = cfg.train_steps or max(1, round(cfg.reuse * positions / self.train_batch))
        self.settings = cfg.selfplay_settings()
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
        tensorboard = os.path.join(cfg.run_dir, "tb") if self.primary else None
        self.metrics = MetricsLog(os.path.join(cfg.run_dir, "metrics.csv"), rows, tensorboard)
        self.play, self.learn = self._compiled_steps(optimizer)
        self.traffic: dict[str, int] = {}  # collective bytes per call, once the steps are compiled
        search = cfg.eval_search_settings()
        opponents = default_baselines(search.num_simulations, cfg.mc_playouts)
        wanted = list(dict.fromkeys(cfg.eval_opponents + cfg.final_eval_opponents))
        self.evaluator = Evaluator(
            self.rules, self.graphdef, search, {k: opponents[k] for k in wanted}, observe=observe
        )

    def _initial_state(self, channels: int, optimizer: Any) -> tuple[Any, RunState]:
        """``(graphdef, state)`` of a new run: the network's first weights, an empty replay buffer
        (one ring per game), the optimizer's state and the self-play games, made on the mesh."""
        from flax import nnx

        cfg = self.cfg
        key = jax.random.PRNGKey(cfg.seed)
        key, init_key = jax.random.split(key)
        seed = int(jax.random.randint(init_key, (), 0, 2**31 - 1))

        def build():
            return az.PolicyValueNet(self.net_config, cfg.size, channels, rngs=nnx.Rngs(seed))

        def state() -> RunState:
            variables = az.split(build())[1]
            buffer = az.replay_init(
                cfg.replay_capacity, cfg.size, channels, cfg.replay_storage(), slots=self.batch
            )
            actor = az.selfplay_init(self.rules, self.batch, komi=cfg.slot_komis(self.batch))
            averaged = jax.tree.map(jnp.copy, variables) if cfg.average_decay > 0 else None
            return RunState(actor, buffer, key, optimizer.init(variables["params"]), variables, averaged)

        # One compiled call that makes every array in its place on the mesh (eager initialisers
        # dispatch op by op: seconds), which works alike in one process and in several.
        graphdef, _ = az.split(nnx.eval_shape(build))
        batch_s, repl_s = az.batch_sharding(self.mesh), az.replicated(self.mesh)
        averaged_s = repl_s if cfg.average_decay > 0 else None
        shardings = RunState(batch_s, batch_s, repl_s, repl_s, repl_s, averaged_s)  # type: ignore[arg-type]
        return graphdef, jax.jit(state, out_shardings=shardings)()

    def _compiled_steps(self, optimizer: Any) -> tuple[Any, Any]:
        """``(play, learn)``: one iteration's self-play and one optimizer step, jitted over the mesh.

        ``play(variables, actor, buffer, key, full)`` is ``(actor, buffer, stats, ready, fewest)``:
        the ready rows of the buffer and of its emptiest sampling group;
        ``learn(variables, opt_state, averaged, buffer, key, lr_scale)`` is ``(variables, opt_state,
        averaged, metrics, checksum)``: :func:`gojax.alphazero.sample_and_train`'s result (its
        update times ``lr_scale``, a ``float32[]``: :meth:`TrainConfig.lr_scale`), the
        moving average one step on (``None`` without one) and a checksum of the new parameters
        (``uint32[]``, computed by every device from its own copy). Both donate the state they
        replace.
        """
        cfg = self.cfg
        batch_s, repl_s = az.batch_sharding(self.mesh), az.replicated(self.mesh)
        constrain = functools.partial(az.constrain_batch, mesh=self.mesh)

        def play(variables, actor, buffer, key, full):
            # Playout cap randomization per iteration, drawn on the host (TrainingRun.iteration):
            # one compiled self-play of full searches and one of cheap ones, no conditional around
            # the search (XLA:CPU's collectives inside a lax.cond stall on 4 devices).
            settings = dataclasses.replace(self.settings, full_search_fraction=1.0 if full else 0.0)
            actor, buffer, stats = az.selfplay_sharded(
                self.rules,
                settings,
                self.graphdef,
                variables,
                actor,
                buffer,
                key,
                cfg.moves_per_iteration,
                self.mesh,
            )
            ready = az.replay_ready_groups(buffer, self.train_batch)
            return actor, buffer, stats, jnp.sum(ready), jnp.min(ready)

        def learn(variables, opt_state, averaged, buffer, key, lr_scale):
            variables, opt_state, metrics = az.sample_and_train(
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
                lr_scale=lr_scale,
            )
            if averaged is not None:
                averaged = az.average_variables(averaged, variables, cfg.average_decay)
            return variables, opt_state, averaged, metrics, checksum(variables["params"])

        compiled_play = jax.jit(
            play,
            in_shardings=(repl_s, batch_s, batch_s, repl_s),
            out_shardings=(batch_s, batch_s, repl_s, repl_s, repl_s),
            donate_argnums=(1, 2),
            static_argnums=(4,),
        )
        compiled_learn = jax.jit(
            learn,
            in_shardings=(repl_s, repl_s, repl_s, batch_s, repl_s, repl_s),
            out_shardings=repl_s,
            donate_argnums=(0, 1, 2),
        )
        return compiled_play, compiled_learn

    def _log_resume(self, step: int) -> None:
        leaves = jax.tree.leaves(jax.device_get(self.state.variables["params"]))
        if not self.primary:
            return
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
        if self.primary:
            self.metrics.flush()

    def save_network(self) -> str:
        """Writes the current network to ``run_dir/network`` (what players and GTP load: the moving
        average of the weights when the run keeps one); returns the path."""
        return self.checkpoints.save_network(
            self.graphdef,
            self.state.network,
            self.net_config,
            board_size=self.cfg.size,
            observe_name=self.observation.name,
            metadata={"komi": self.cfg.komi, "train_steps": self.counters.train_steps},
        )

    def iteration(self) -> dict[str, Any]:
        """One self-play + training iteration; returns its metrics row.

        Raises:
          RuntimeError: in a run of several processes, when their copies of
            the network differ after a training step (they never should).
        """
        state = self.state
        key, play_key, learn_key = jax.random.split(state.key, 3)
        start = time.perf_counter()
        draw = np.random.default_rng([self.cfg.seed, self.counters.iteration]).random()
        full = bool(draw < self.cfg.full_search_fraction)
        actor, buffer, stats, ready, fewest = self.play(
            state.variables, state.actor, state.buffer, play_key, full
        )
        stats, ready, fewest = jax.device_get((stats, ready, fewest))
        played = time.perf_counter()
        state = state.replace(actor=actor, buffer=buffer, key=key)
        row: dict[str, Any] = {"kind": "train", "iteration": self.counters.iteration + 1, "ready": int(ready)}
        checksums = np.zeros((0, 0), np.uint32)
        # Every sampling group needs a ready row (each device draws from its own rings).
        if ready >= max(self.cfg.min_replay, 1) and fewest > 0:
            state, means, checksums = self._train(state, learn_key)
            row.update(means)
        self.state = state
        trained = time.perf_counter()
        self._count(stats, played - start, trained - played)
        if not self.traffic and len(checksums):
            self.traffic = self.measure_traffic(full)
        counters = self.counters
        row.update(
            step=counters.train_steps,
            minutes=counters.elapsed / 60,
            games=counters.games,
            positions=counters.positions,
            new_games=int(stats.games),
            mean_length=int(stats.length) / max(int(stats.games), 1),
            black_win_rate=int(stats.black_wins) / max(int(stats.games), 1),
            settled=int(stats.settled),
            resigned=int(stats.resigned),
            false_resign_rate=counters.false_resigns / max(counters.resign_checks, 1),
            selfplay_s=played - start,
            train_s=trained - played,
            **{f"{name}_bytes": value for name, value in self.traffic.items()},
        )
        if jax.process_count() > 1:
            same_network_everywhere(checksums, counters.train_steps - len(checksums))
            self._log_process(checksums)
        self.metrics.log(row)
        return row

    def _train(self, state: RunState, key: jax.Array) -> tuple[RunState, dict[str, float], np.ndarray]:
        """``train_steps`` optimizer steps: the new state, the metrics' means, the parameters' checksums
        (``uint32[steps, local devices]``: each step's, as each of this process's devices computed it)."""
        # One jitted step per call: see sample_and_train on convolution gradients in XLA:CPU loops.
        variables, opt_state, averaged = state.variables, state.opt_state, state.averaged
        steps, sums = [], []
        scale = self.lr_scale()
        for step_key in jax.random.split(key, self.train_steps):
            variables, opt_state, averaged, metrics, checksum_ = self.learn(
                variables, opt_state, averaged, state.buffer, step_key, scale
            )
            steps.append(metrics)
            sums.append([shard.data for shard in checksum_.addressable_shards])
        metrics, sums = jax.device_get((steps, sums))
        self.counters.train_steps += self.train_steps
        means = {
            f.name: float(np.mean([float(getattr(m, f.name)) for m in metrics]))
            for f in dataclasses.fields(metrics[0])
        }
        means["lr_scale"] = float(scale)
        state = state.replace(variables=variables, opt_state=opt_state, averaged=averaged)
        return state, means, np.asarray(sums, np.uint32)

    def lr_scale(self) -> np.ndarray:
        """``float32[]``: :meth:`TrainConfig.lr_scale` now, the same in every process (process 0's clock)."""
        counters = self.counters
        return from_process_zero(
            np.asarray(self.cfg.lr_scale(counters.elapsed / 60.0, counters.iteration), np.float32)
        )

    def _count(self, stats: Any, selfplay_s: float, train_s: float) -> None:
        """Adds an iteration's self-play results and times to the counters."""
        counters = self.counters
        counters.iteration += 1
        counters.positions += int(stats.moves)
        counters.games += int(stats.games)
        counters.black_wins += int(stats.black_wins)
        counters.white_wins += int(stats.white_wins)
        counters.draws += int(stats.draws)
        counters.truncated += int(stats.truncated)
        counters.settled += int(stats.settled)
        counters.resigned += int(stats.resigned)
        counters.resign_checks += int(stats.resign_checks)
        counters.false_resigns += int(stats.false_resigns)
        counters.game_moves += int(stats.length)
        counters.selfplay_time += selfplay_s
        if self._warm:
            counters.steady_positions += int(stats.moves)
            counters.steady_selfplay_time += selfplay_s
        self._warm = True
        counters.train_time += train_s
        counters.elapsed += selfplay_s + train_s

    def measure_traffic(self, full: bool = True) -> dict[str, int]:
        """The bytes the devices exchange per self-play call and per training step, read from the
        compiled programs (:func:`gojax.training.collective_bytes`; compiles what is not yet).

        Returns:
          ``{"exchanged_per_selfplay": ..., "exchanged_per_train_step": ...}`` (0 on one device).
        """
        if self.mesh.devices.size == 1:  # the program's collectives have no one to exchange with
            return {"exchanged_per_selfplay": 0, "exchanged_per_train_step": 0}
        shapes = jax.tree.map(
            lambda x: jax.ShapeDtypeStruct(x.shape, x.dtype, sharding=x.sharding), self.state
        )
        play = self.play.lower(shapes.variables, shapes.actor, shapes.buffer, shapes.key, full).compile()
        learn = self.learn.lower(
            shapes.variables, shapes.opt_state, shapes.averaged, shapes.buffer, shapes.key, np.float32(1)
        ).compile()
        return {
            "exchanged_per_selfplay": collective_bytes(play.as_text()),
            "exchanged_per_train_step": collective_bytes(learn.as_text()),
        }

    def _log_process(self, checksums: np.ndarray) -> None:
        """One line in ``run_dir/processes/<process>.jsonl``: its operating-system pid, the rows this
        process's rings hold (written and ready: from games that ended) and its network's checksum after
        each step of the iteration."""
        buffer = self.state.buffer
        local = lambda x: int(sum(np.asarray(s.data).sum() for s in x.addressable_shards))  # noqa: E731
        record = {
            "process": jax.process_index(),
            "pid": os.getpid(),
            "iteration": self.counters.iteration,
            "train_steps": self.counters.train_steps,
            "local_devices": len(self.mesh.local_devices),
            "positions_written": local(buffer.written),
            "positions_ready": local(buffer.ready),
            "checksums": checksums[:, 0].tolist() if checksums.size else [],
        }
        folder = os.path.join(self.cfg.run_dir, "processes")
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, f"{jax.process_index()}.jsonl"), "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")

    def evaluate(self, num_games: int, names=None) -> dict[str, Any]:
        """Plays the network against the baselines ``names`` (default: all); logs and returns the results."""
        start = time.perf_counter()
        key = jax.random.fold_in(jax.random.PRNGKey(self.cfg.seed + 1), self.counters.evals_done)
        results = self.evaluator.evaluate(self.state.network, num_games, key, names)
        self.counters.evals_done += 1
        self.counters.eval_time += time.perf_counter() - start
        for name, r in results.items():
            self.metrics.log(self.counters.eval_row(name, r, eval_s=time.perf_counter() - start))
        return results

    def close(self) -> None:
        """Releases the checkpoints' resources."""
        self.checkpoints.close()
