"""What a training run logs: metrics rows, the learning curve, the summary.

* :class:`MetricsLog` - rows of scalars kept in memory, written to
  ``metrics.csv`` (atomically, the whole file) and to TensorBoard when
  ``tensorboardX`` is installed.
* :func:`eval_row` - the row of one evaluation matchup.
* :func:`plot_learning_curve` - ``learning_curve.png``: the losses and the
  win rates against the baselines over training time.
* :func:`summary_table`, :func:`summarize_run` - the end-of-run summary, a
  Markdown table of the final evaluation; :func:`to_json` writes it.
"""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from gojax._host.atomic import atomic_write, atomic_write_bytes

__all__ = ["MetricsLog", "eval_row", "plot_learning_curve", "summarize_run", "summary_table", "to_json"]


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

    The figure is a ``matplotlib.figure.Figure`` drawn by the Agg canvas
    directly: matplotlib's backend and pyplot's figures are left alone, so
    inline plots in a running notebook keep working.

    Returns:
      ``False`` (and draws nothing) when matplotlib is missing or there is nothing to draw.
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        return False
    train = [r for r in rows if r.get("kind") == "train" and r.get("loss", "") != ""]
    evals = [r for r in rows if r.get("kind") == "eval"]
    if not train and not evals:
        return False
    ladder = [r for r in evals if str(r["opponent"]).startswith("gnugo")]
    fig = Figure(figsize=(16.5 if ladder else 11, 4))
    FigureCanvasAgg(fig)
    panels = fig.subplots(1, 3 if ladder else 2)
    left, right = panels[0], panels[1]
    if ladder:
        _plot_ladder(panels[2], ladder)
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
    picture = io.BytesIO()
    fig.savefig(picture, format="png", dpi=100)
    atomic_write_bytes(path, picture.getvalue())
    return True


def _plot_ladder(axes: Any, rows: Sequence[Mapping[str, Any]]) -> None:
    """Elo against each GNU Go level (95% interval, clipped to +-800) against self-play positions."""
    for name in sorted({r["opponent"] for r in rows}):
        mine = [r for r in rows if r["opponent"] == name]
        x = [float(r.get("positions") or 0) for r in mine]
        y = [min(max(float(r["elo"]), -800.0), 800.0) for r in mine]
        lo = [max(0.0, y_ - max(float(r.get("elo_lo", y_)), -800.0)) for y_, r in zip(y, mine, strict=True)]
        hi = [max(0.0, min(float(r.get("elo_hi", y_)), 800.0) - y_) for y_, r in zip(y, mine, strict=True)]
        axes.errorbar(x, y, yerr=[lo, hi], marker="s", capsize=3, label=f"vs {name.replace('_', ' ')}")
    axes.axhline(0.0, color="grey", lw=0.5)
    axes.set_xlabel("self-play positions")
    axes.set_ylabel("Elo against GNU Go (95% CI)")
    axes.legend()
    axes.grid(alpha=0.3)


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


def eval_row(
    name: str, result: Any, *, step: int, iteration: int, minutes: float, **more: Any
) -> dict[str, Any]:
    """The metrics row of one evaluation matchup (``kind="eval"``).

    Args:
      name: the opponent.
      result: its :class:`gojax.players.MatchResult`.
      step, iteration, minutes: the run's training steps, iterations and
        minutes when it was played.
      more: more columns.
    """
    lo, hi = result.score_interval
    elo_lo, elo_hi = result.elo_interval
    return {
        "kind": "eval",
        "opponent": name,
        "step": step,
        "iteration": iteration,
        "minutes": minutes,
        "games_played": result.num_games,
        "wins": result.wins,
        "losses": result.losses,
        "draws": result.draws,
        "score": result.score,
        "score_lo": lo,
        "score_hi": hi,
        "elo": result.elo,
        "elo_lo": elo_lo,
        "elo_hi": elo_hi,
        "mean_length": result.mean_length,
        **more,
    }
