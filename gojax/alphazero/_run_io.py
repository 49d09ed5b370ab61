"""What a training run writes: checkpoints of the whole training state, metrics, plots, SGF samples.

* :class:`TrainCheckpointer` - an orbax ``CheckpointManager`` over
  ``run_dir/checkpoints/<step>/``: every array of the training state (any
  pytree: network variables, optimizer state, replay buffer and its position,
  running self-play games, PRNG key, counters) plus a JSON part (the run's
  settings, counters and the metrics so far). orbax writes a checkpoint into
  a temporary directory and renames it when complete, so a run killed while
  saving leaves the previous checkpoints intact; temporary leftovers are
  removed at the next start. The arrays are stored as a flat dict keyed by
  their position and path in the pytree, so the state's Python types
  (dataclasses, optax's named tuples, ``nnx.State``) are rebuilt from a
  freshly initialised state of the same shape, on the same device mesh.
* :class:`MetricsLog` - rows of scalars kept in memory, written to
  ``metrics.csv`` (atomically, the whole file) and to TensorBoard when
  ``tensorboardX`` is installed.
* :func:`plot_learning_curve` - ``learning_curve.png``: the losses and the
  win rates against the baselines over training time.
* :func:`write_sgf_samples` - the last finished self-play games as SGF.
* :func:`summary_table` - a plain-text table of the final evaluation.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any

import jax
import numpy as np

from gojax._host.atomic import atomic_write
from gojax._host.results import format_margin

__all__ = [
    "MetricsLog",
    "TrainCheckpointer",
    "eval_row",
    "plot_learning_curve",
    "summarize_run",
    "summary_table",
    "to_json",
    "write_sgf_samples",
]


def _leaf_names(tree: Any) -> list[str]:
    """One unique, file-system-safe name per leaf: its index and its key path."""
    paths = jax.tree_util.tree_flatten_with_path(tree)[0]
    names = []
    for index, (path, _) in enumerate(paths):
        text = re.sub(r"[^A-Za-z0-9]+", "_", jax.tree_util.keystr(path)).strip("_")
        names.append(f"{index:04d}_{text[:80]}")
    return names


class TrainCheckpointer:
    """Checkpoints of a training state pytree plus JSON metadata (see the module docstring).

    Args:
      directory: where the numbered checkpoints go (created).
      max_to_keep: how many recent checkpoints to keep.
    """

    def __init__(self, directory: str | os.PathLike, max_to_keep: int = 2):
        import orbax.checkpoint as ocp

        self._ocp = ocp
        self.directory = os.path.abspath(os.fspath(directory))
        options = ocp.CheckpointManagerOptions(
            max_to_keep=max_to_keep,
            create=True,
            cleanup_tmp_directories=True,
            enable_async_checkpointing=False,
        )
        self._manager = ocp.CheckpointManager(self.directory, options=options, item_names=("arrays", "meta"))

    def latest_step(self) -> int | None:
        """The newest complete checkpoint's step, or ``None``."""
        return self._manager.latest_step()

    def save(self, step: int, state: Any, meta: Mapping[str, Any]) -> None:
        """Writes checkpoint ``step`` (blocking; replaces nothing: steps must grow)."""
        ocp = self._ocp
        # orbax refuses empty arrays (e.g. the superko history under the simple ko rule): they are
        # not stored and come back from ``like`` at restore.
        arrays = {n: x for n, x in zip(_leaf_names(state), jax.tree.leaves(state), strict=True) if np.size(x)}
        args = ocp.args.Composite(arrays=ocp.args.StandardSave(arrays), meta=ocp.args.JsonSave(dict(meta)))
        self._manager.save(step, args=args, force=True)
        self._manager.wait_until_finished()

    def restore(self, like: Any, step: int | None = None) -> tuple[Any, dict[str, Any], int]:
        """Reads checkpoint ``step`` (default: the latest) into the structure and shardings of ``like``.

        Args:
          like: a state of the same structure (e.g. freshly initialised); its
            arrays' shapes, dtypes and shardings are the targets.
          step: which checkpoint.

        Returns:
          ``(state, meta, step)``.

        Raises:
          FileNotFoundError: if there is no checkpoint.
          ValueError: if the stored arrays do not match ``like``.
        """
        ocp = self._ocp
        step = self.latest_step() if step is None else step
        if step is None:
            raise FileNotFoundError(f"no checkpoint in {self.directory}")
        leaves, treedef = jax.tree.flatten(like)
        names = _leaf_names(like)
        target = {
            name: jax.ShapeDtypeStruct(np.shape(leaf), leaf.dtype, sharding=getattr(leaf, "sharding", None))
            for name, leaf in zip(names, leaves, strict=True)
            if np.size(leaf)
        }
        restored = self._manager.restore(
            step,
            args=ocp.args.Composite(arrays=ocp.args.StandardRestore(target), meta=ocp.args.JsonRestore()),
        )
        arrays = dict(restored["arrays"])
        arrays.update({n: leaf for n, leaf in zip(names, leaves, strict=True) if not np.size(leaf)})
        if set(arrays) != set(names):
            raise ValueError(
                f"checkpoint {step} in {self.directory} does not match the training state's structure"
            )
        for name, leaf in zip(names, leaves, strict=True):
            if tuple(arrays[name].shape) != tuple(np.shape(leaf)) or arrays[name].dtype != leaf.dtype:
                raise ValueError(
                    f"checkpoint {step}: array {name} is {arrays[name].dtype}{list(arrays[name].shape)}, "
                    f"expected {leaf.dtype}{list(np.shape(leaf))}"
                )
        state = jax.tree.unflatten(treedef, [arrays[name] for name in names])
        return state, dict(restored["meta"]), step

    def close(self) -> None:
        self._manager.close()


class MetricsLog:
    """Rows of scalar metrics: in memory, in ``path`` (CSV) and in TensorBoard if available.

    Args:
      path: the CSV file (rewritten atomically by :meth:`flush`).
      rows: rows already logged (a resumed run passes its checkpoint's rows).
      tensorboard_dir: where ``tensorboardX`` writes events (skipped if it is not installed).
    """

    def __init__(self, path: str, rows: Sequence[Mapping[str, Any]] = (), tensorboard_dir: str | None = None):
        self.path = path
        self.rows: list[dict[str, Any]] = [dict(r) for r in rows]
        self._writer = None
        if tensorboard_dir is not None:
            try:
                from tensorboardX import SummaryWriter
            except ImportError:
                SummaryWriter = None
            if SummaryWriter is not None:
                self._writer = SummaryWriter(tensorboard_dir)

    def log(self, row: Mapping[str, Any]) -> None:
        """Adds one row (``step`` is the x axis of TensorBoard)."""
        row = {k: (float(v) if isinstance(v, (np.floating, np.integer)) else v) for k, v in row.items()}
        self.rows.append(row)
        if self._writer is not None:
            for name, value in row.items():
                if name != "step" and isinstance(value, (int, float)) and math.isfinite(value):
                    self._writer.add_scalar(name, value, int(row.get("step", len(self.rows))))

    def flush(self) -> None:
        """Rewrites the CSV with every row (columns: union of all keys, in first-seen order)."""
        columns: list[str] = []
        for row in self.rows:
            columns += [k for k in row if k not in columns]
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=columns, restval="")
        writer.writeheader()
        writer.writerows(self.rows)
        atomic_write(self.path, buffer.getvalue())
        if self._writer is not None:
            self._writer.flush()


def plot_learning_curve(rows: Sequence[Mapping[str, Any]], path: str, title: str = "") -> bool:
    """Draws losses and win rates against training minutes to ``path`` (PNG, atomically).

    Returns:
      ``False`` (and draws nothing) when matplotlib is missing or there is nothing to draw.
    """
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    train = [r for r in rows if r.get("kind") == "train" and r.get("loss", "") != ""]
    evals = [r for r in rows if r.get("kind") == "eval"]
    if not train and not evals:
        return False
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4))
    if train:
        minutes = [float(r["minutes"]) for r in train]
        for name, style in (("loss", "-"), ("policy_loss", "--"), ("value_loss", ":")):
            left.plot(minutes, [float(r[name]) for r in train], style, label=name)
        left.set_xlabel("training minutes")
        left.set_ylabel("loss")
        left.legend()
        left.grid(alpha=0.3)
    for name in sorted({r["opponent"] for r in evals}):
        mine = [r for r in evals if r["opponent"] == name]
        x = [float(r["minutes"]) for r in mine]
        y = [float(r["score"]) for r in mine]
        lo = [max(0.0, float(r["score"]) - float(r["score_lo"])) for r in mine]
        hi = [max(0.0, float(r["score_hi"]) - float(r["score"])) for r in mine]
        right.errorbar(x, y, yerr=[lo, hi], marker="o", capsize=3, label=f"vs {name}")
    if evals:
        right.legend()
    right.set_ylim(0, 1)
    right.axhline(0.5, color="grey", lw=0.5)
    right.set_xlabel("training minutes")
    right.set_ylabel("score (wins + draws/2), 95% CI")
    right.grid(alpha=0.3)
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=directory, prefix=".tmp-", suffix=".png")
    os.close(fd)
    try:
        fig.savefig(tmp, dpi=100)
        os.replace(tmp, path)
    finally:
        plt.close(fig)
        if os.path.exists(tmp):
            os.unlink(tmp)
    return True


def write_sgf_samples(config, actor, directory: str, count: int, start: int, metadata=None) -> list:
    """Writes the last finished game of the first ``count`` self-play slots as SGF files.

    Args:
      config: the rules.
      actor: :class:`gojax.alphazero.SelfPlayState` (host or device).
      directory: where to write (created).
      count: how many slots.
      start: number of the first file (``selfplay_{start:06d}.sgf``).
      metadata: extra root properties.

    Returns:
      The paths written (slots that have not finished a game yet are skipped).
    """
    from gojax.sgf import games_to_sgf

    moves = np.asarray(jax.device_get(actor.last_moves))[:count]
    scores = np.asarray(jax.device_get(actor.last_score))[:count]
    keep = moves[:, 0] >= 0
    if not np.any(keep):
        return []
    props = {"PB": "gojax alphazero", "PW": "gojax alphazero", **(metadata or {})}
    return games_to_sgf(
        config,
        moves[keep].astype(np.int32),
        directory,
        pad_value=-1,
        results=[format_margin(s) for s in scores[keep]],
        metadata=props,
        prefix="selfplay",
        start=start,
    )


def summary_table(results: Mapping[str, Any], header: str = "") -> str:
    """A Markdown table of :class:`gojax.players.MatchResult` per opponent."""
    lines = [header] if header else []
    lines += [
        "| opponent | games | wins / losses / draws | score [95% CI] | Elo [95% CI] | moves/game "
        "| adjudicated |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, r in results.items():
        lo, hi = r.score_interval
        elo_lo, elo_hi = r.elo_interval
        lines.append(
            f"| {name} | {r.num_games} | {r.wins} / {r.losses} / {r.draws} "
            f"| {r.score:.3f} [{lo:.3f}, {hi:.3f}] | {r.elo:+.0f} [{elo_lo:+.0f}, {elo_hi:+.0f}] "
            f"| {r.mean_length:.1f} | {r.adjudicated} |"
        )
    return "\n".join(lines)


def to_json(data: Any) -> str:
    """``json.dumps`` with infinities as strings (the Elo of a perfect score)."""

    def clean(x):
        if isinstance(x, float) and not math.isfinite(x):
            return str(x)
        if isinstance(x, dict):
            return {k: clean(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [clean(v) for v in x]
        return x

    return json.dumps(clean(data), indent=1)


def summarize_run(
    title: str,
    counters: Mapping[str, Any],
    extra: Mapping[str, Any],
    rows: Sequence[Mapping[str, Any]],
    final: Mapping[str, Any],
) -> tuple[dict[str, Any], str]:
    """The end-of-run summary: a JSON-ready dict and a Markdown text with the final evaluation table.

    Args:
      title: first line of the text.
      counters: the run's counters (iterations, games, positions, times, ...).
      extra: more entries for the dict (settings, devices, ...).
      rows: the metrics rows (the last training row gives the final loss).
      final: ``{opponent: MatchResult}`` of the final evaluation (may be empty).
    """
    losses = [r["loss"] for r in rows if r.get("kind") == "train" and r.get("loss", "") != ""]
    games = max(int(counters["games"]), 1)
    summary = {
        **extra,
        **counters,
        "games_per_s": counters["games"] / max(counters["elapsed"], 1e-9),
        "positions_per_s_selfplay": counters["steady_positions"]
        / max(counters["steady_selfplay_time"], 1e-9),
        "mean_game_length": counters["game_moves"] / games,
        "final_loss": float(losses[-1]) if losses else None,
        "final_eval": {
            name: {
                "games": r.num_games,
                "wins": r.wins,
                "losses": r.losses,
                "draws": r.draws,
                "score": r.score,
                "score_interval": list(r.score_interval),
                "elo": r.elo,
                "mean_length": r.mean_length,
                "adjudicated": r.adjudicated,
            }
            for name, r in final.items()
        },
    }
    loss = "-" if summary["final_loss"] is None else f"{summary['final_loss']:.3f}"
    lines = [
        f"# {title}",
        "",
        f"{counters['iteration']} iterations, {counters['train_steps']} training steps, "
        f"{counters['games']} self-play games ({summary['mean_game_length']:.1f} moves each), "
        f"{counters['positions']} positions in {counters['elapsed'] / 60:.1f} min "
        f"({summary['games_per_s']:.2f} games/s, {summary['positions_per_s_selfplay']:.0f} positions/s "
        f"in self-play); evaluation {counters['eval_time'] / 60:.1f} min; final loss {loss}",
    ]
    if final:
        size = next(iter(final.values())).num_games
        lines += ["", summary_table(final, f"Final evaluation ({size} games each, colours alternated):")]
    return summary, "\n".join(lines)


def eval_row(name: str, result: Any, counters: Mapping[str, Any], **more: Any) -> dict[str, Any]:
    """The metrics row of one evaluation matchup (``kind="eval"``) at the run's current counters."""
    lo, hi = result.score_interval
    return {
        "kind": "eval",
        "opponent": name,
        "step": counters["train_steps"],
        "iteration": counters["iteration"],
        "minutes": counters["elapsed"] / 60,
        "games_played": result.num_games,
        "wins": result.wins,
        "losses": result.losses,
        "draws": result.draws,
        "score": result.score,
        "score_lo": lo,
        "score_hi": hi,
        "elo": result.elo,
        "mean_length": result.mean_length,
        **more,
    }
