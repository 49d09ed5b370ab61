"""One training run on the host: devices, state, jitted steps, counters (used by :func:`train`).

:class:`TrainingRun` builds everything a run needs from a
:class:`TrainConfig` - the device mesh, the network, the optimizer, the replay
buffer, the self-play games, the jitted self-play (:func:`selfplay`) and
training (:func:`sample_and_train`, one step per call: see there on XLA:CPU)
functions, the evaluator and the checkpointer - restores the latest
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

from gojax.alphazero._run_io import eval_row
from gojax.alphazero._train_config import TrainConfig
from gojax.features import observation

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
      state: ``{"variables", "opt_state", "buffer", "actor", "key"}``, the
        whole training state on the devices (what a checkpoint holds).
      meta: host counters (iterations, training steps, positions, games,
        results, times) - saved with every checkpoint.
      metrics: the :class:`MetricsLog`.
    """

    def __init__(self, cfg: TrainConfig, resume: bool):
        from flax import nnx

        from gojax import GoConfig
        from gojax.alphazero import _network as net_lib
        from gojax.alphazero import _replay, _selfplay, _sharding, _training
        from gojax.alphazero._evaluation import Evaluator, default_baselines
        from gojax.alphazero._run_io import MetricsLog, TrainCheckpointer

        self.cfg = cfg
        self.mesh = _sharding.make_mesh(cfg.devices)
        devices = self.mesh.devices.size
        self.batch = _global(cfg.batch, cfg.batch_per_device, devices, "batch")
        self.train_batch = _global(cfg.train_batch, cfg.train_batch_per_device, devices, "train_batch")
        self.rules = GoConfig(size=cfg.size, komi=cfg.komi, ko_rule=cfg.ko_rule, max_moves=cfg.max_moves)
        self.observation = observation("basic")  # the name checkpoints record (observe_name)
        channels = self.observation.channels(self.rules)
        _replay.check_capacity(cfg.replay_capacity, self.batch, self.rules.move_cap)
        positions = self.batch * cfg.moves_per_iteration
        self.train_steps = cfg.train_steps or max(1, round(cfg.reuse * positions / self.train_batch))
        self.settings = _selfplay.SelfPlaySettings(
            num_simulations=cfg.simulations,
            algorithm=cfg.algorithm,
            explore_moves=cfg.explore_moves,
            observe=self.observation.observe,
        )
        self.net_config = net_lib.NetworkConfig(blocks=cfg.blocks, channels=cfg.channels)
        key = jax.random.PRNGKey(cfg.seed)
        key, init_key = jax.random.split(key)
        seed = int(jax.random.randint(init_key, (), 0, 2**31 - 1))

        def build():
            return net_lib.PolicyValueNet(self.net_config, cfg.size, channels, rngs=nnx.Rngs(seed))

        # The initial weights in one compiled call (eager initialisers dispatch op by op: seconds).
        self.graphdef, _ = net_lib.split(nnx.eval_shape(build))
        variables = jax.jit(lambda: net_lib.split(build())[1])()
        optimizer = _training.make_optimizer(
            _training.OptimizerConfig(
                kind=cfg.optimizer,
                learning_rate=cfg.learning_rate,
                weight_decay=cfg.weight_decay,
                warmup_steps=cfg.warmup_steps,
            )
        )
        replicate, shard = _sharding.replicate, _sharding.shard_batch
        state = {
            "variables": variables,
            "opt_state": optimizer.init(variables["params"]),
            "buffer": _replay.replay_init(
                cfg.replay_capacity, cfg.size, channels, np.dtype(cfg.replay_dtype)
            ),
            "key": key,
        }
        self.state = replicate(state, self.mesh)
        self.state["actor"] = shard(_selfplay.selfplay_init(self.rules, self.batch), self.mesh)
        self.meta: dict[str, Any] = {
            "iteration": 0,
            "train_steps": 0,
            "positions": 0,
            "games": 0,
            "black_wins": 0,
            "white_wins": 0,
            "draws": 0,
            "truncated": 0,
            "game_moves": 0,
            "elapsed": 0.0,
            "eval_time": 0.0,
            "selfplay_time": 0.0,
            "train_time": 0.0,
            "evals_done": 0,
            "steady_positions": 0,
            "steady_selfplay_time": 0.0,
        }
        self._warm = False  # the first iteration of a process compiles: left out of the steady rates
        os.makedirs(cfg.run_dir, exist_ok=True)
        self.checkpointer = TrainCheckpointer(os.path.join(cfg.run_dir, "checkpoints"))
        rows = []
        if resume and self.checkpointer.latest_step() is not None:
            self.state, saved, step = self.checkpointer.restore(self.state)
            self.meta.update(saved["counters"])
            rows = saved["metrics"]
            self._log_resume(step)
        self.metrics = MetricsLog(
            os.path.join(cfg.run_dir, "metrics.csv"), rows, os.path.join(cfg.run_dir, "tb")
        )

        batch_s, repl_s = _sharding.batch_sharding(self.mesh), _sharding.replicated(self.mesh)
        constrain = functools.partial(_sharding.constrain_batch, mesh=self.mesh)

        def play(variables, actor, buffer, key):
            actor, buffer, stats = _selfplay.selfplay(
                self.rules,
                self.settings,
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
            return _training.sample_and_train(
                self.graphdef,
                optimizer,
                variables,
                opt_state,
                buffer,
                key,
                self.train_batch,
                1,
                augment=cfg.augment,
                value_weight=cfg.value_weight,
                batch_constraint=constrain,
            )

        self.play = jax.jit(
            play,
            in_shardings=(repl_s, batch_s, repl_s, repl_s),
            out_shardings=(batch_s, repl_s, repl_s, repl_s),
            donate_argnums=(1, 2),
        )
        self.learn = jax.jit(learn, in_shardings=repl_s, out_shardings=repl_s, donate_argnums=(0, 1))
        opponents = default_baselines(cfg.simulations, cfg.mc_playouts)
        wanted = list(dict.fromkeys(cfg.eval_opponents + cfg.final_eval_opponents))
        unknown = sorted(set(wanted) - set(opponents))
        if unknown:
            raise ValueError(f"unknown evaluation opponents {unknown}; have {sorted(opponents)}")
        self.evaluator = Evaluator(
            self.rules,
            self.graphdef,
            cfg.simulations,
            {k: opponents[k] for k in wanted},
            algorithm=cfg.algorithm,
            gumbel_scale=cfg.eval_gumbel_scale,
            observe=self.observation.observe,
        )

    def _log_resume(self, step: int) -> None:
        leaves = jax.tree.leaves(jax.device_get(self.state["variables"]["params"]))
        record = {
            "resumed_from": step,
            "iteration": self.meta["iteration"],
            "params_abs_sum": float(sum(np.abs(np.asarray(x, np.float64)).sum() for x in leaves)),
            "time": time.time(),
        }
        with open(os.path.join(self.cfg.run_dir, "resume_log.jsonl"), "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")

    def save(self) -> None:
        """Checkpoints the state (once per iteration: a second call for the same one only writes the CSV)."""
        if self.checkpointer.latest_step() == self.meta["iteration"]:
            if jax.process_index() == 0:
                self.metrics.flush()
            return
        meta = {"config": self.cfg.to_dict(), "counters": self.meta, "metrics": self.metrics.rows}
        self.checkpointer.save(self.meta["iteration"], self.state, meta)
        if jax.process_index() == 0:
            self.metrics.flush()

    def iteration(self) -> dict[str, Any]:
        """One self-play + training iteration; returns its metrics row."""
        state, meta = self.state, self.meta
        key, play_key, learn_key = jax.random.split(state["key"], 3)
        start = time.perf_counter()
        actor, buffer, stats, ready = self.play(state["variables"], state["actor"], state["buffer"], play_key)
        stats, ready = jax.device_get((stats, ready))
        played = time.perf_counter()
        state.update(actor=actor, buffer=buffer, key=key)
        row = {"kind": "train", "iteration": meta["iteration"] + 1, "ready": int(ready)}
        if ready >= max(self.cfg.min_replay, 1):
            # One jitted step per call: see sample_and_train on convolution gradients in XLA:CPU loops.
            variables, opt_state, steps = state["variables"], state["opt_state"], []
            for step_key in jax.random.split(learn_key, self.train_steps):
                variables, opt_state, metrics = self.learn(variables, opt_state, buffer, step_key)
                steps.append(metrics)
            metrics = jax.device_get(steps)
            state.update(variables=variables, opt_state=opt_state)
            meta["train_steps"] += self.train_steps
            row.update(
                {
                    f.name: float(np.mean([float(getattr(m, f.name)) for m in metrics]))
                    for f in dataclasses.fields(metrics[0])
                }
            )
        trained = time.perf_counter()
        meta["iteration"] += 1
        meta["positions"] += int(stats.moves)
        for name in ("games", "black_wins", "white_wins", "draws", "truncated"):
            meta[name] += int(getattr(stats, name))
        meta["game_moves"] += int(stats.length)
        meta["selfplay_time"] += played - start
        if self._warm:
            meta["steady_positions"] += int(stats.moves)
            meta["steady_selfplay_time"] += played - start
        self._warm = True
        meta["train_time"] += trained - played
        meta["elapsed"] += trained - start
        row.update(
            step=meta["train_steps"],
            minutes=meta["elapsed"] / 60,
            games=meta["games"],
            positions=meta["positions"],
            new_games=int(stats.games),
            mean_length=int(stats.length) / max(int(stats.games), 1),
            black_win_rate=int(stats.black_wins) / max(int(stats.games), 1),
            selfplay_s=played - start,
            train_s=trained - played,
        )
        self.metrics.log(row)
        return row

    def evaluate(self, num_games: int, names=None) -> dict[str, Any]:
        start = time.perf_counter()
        key = jax.random.fold_in(jax.random.PRNGKey(self.cfg.seed + 1), self.meta["evals_done"])
        results = self.evaluator.evaluate(self.state["variables"], num_games, key, names)
        self.meta["evals_done"] += 1
        self.meta["eval_time"] += time.perf_counter() - start
        for name, r in results.items():
            self.metrics.log(eval_row(name, r, self.meta, eval_s=time.perf_counter() - start))
        return results
