"""What a training run carries from one iteration to the next: the state on the devices and the counters.

* :class:`RunState` - the whole training state on the devices (network
  variables, optimizer state, replay buffer, running self-play games, PRNG
  key): a pytree, what a run checkpoint holds.
* :class:`Counters` - host counters (iterations, training steps, positions,
  games, results, times), saved with every checkpoint.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax

from gojax import alphazero as az
from gojax.training.metrics import eval_row

__all__ = ["Counters", "RunState"]


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
      averaged: the moving average of ``variables`` that the run saves and
        evaluates (``TrainConfig.average_decay``), or ``None`` (the latest
        variables are the network).
    """

    actor: az.SelfPlayState
    buffer: az.ReplayBuffer
    key: jax.Array
    opt_state: Any
    variables: Any
    averaged: Any = None

    @property
    def network(self) -> Any:
        """The variables of the network the run saves and evaluates: the average, if kept."""
        return self.variables if self.averaged is None else self.averaged

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
      settled: finished games ended on a settled board (``end_settled``).
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
    settled: int = 0
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
