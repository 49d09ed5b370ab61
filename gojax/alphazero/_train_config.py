"""The settings of a training run (:class:`TrainConfig`), saved as ``config.json`` in the run directory.

The defaults are the recipe for a first 9x9 agent in 30 minutes on a 2-core
CPU (see ``experiments/train.py``); every field is a command-line flag of that
script (``--field-name``).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Literal

from gojax._core.types import KoRule

__all__ = ["TrainConfig"]


@dataclasses.dataclass(frozen=True)
class TrainConfig:
    """Every setting of a run (frozen; :meth:`to_dict` / :meth:`from_dict` for JSON).

    Attributes:
      size: board side ``N``.
      komi: komi (7.5 on 9x9; on 7x7 use 9, the fair value under area
        scoring: 7x7 is a black win by 9 with perfect play; a whole-number
        komi allows draws, which count half).
      ko_rule: ``"simple"``, ``"positional"`` or ``"situational"``.
      max_moves: move cap of a game (``None``: ``2 * N * N``); a capped game
        is scored by Tromp-Taylor area like any other.
      blocks: residual blocks of the network.
      channels: its convolution channels.
      simulations: search simulations per move, in self-play and evaluation.
      algorithm: ``"gumbel"`` (Gumbel MuZero) or ``"puct"`` (AlphaZero).
      explore_moves: the first moves of each self-play game, sampled from the search policy.
      batch: self-play games played at once, over all devices.
      batch_per_device: if set, ``batch`` is this times the device count.
      moves_per_iteration: self-play moves of every game between two training phases.
      train_batch: examples per training step, over all devices.
      train_batch_per_device: if set, ``train_batch`` is this times the device count.
      reuse: mean number of times each new position is drawn for training;
        sets the training steps per iteration to ``reuse * batch *
        moves_per_iteration / train_batch``.
      train_steps: training steps per iteration (overrides ``reuse``).
      replay_capacity: rows of the replay buffer (at least ``batch * move cap``).
      min_replay: finished positions in the buffer before training starts.
      replay_dtype: storage dtype of the planes (``uint8``: every plane of
        :func:`gojax.alphazero.basic_planes` is 0 or 1).
      optimizer: ``"adamw"`` or ``"sgd"`` (Nesterov momentum 0.9).
      learning_rate: peak learning rate (constant after the warm-up).
      weight_decay: decoupled weight decay on kernels.
      warmup_steps: linear learning-rate warm-up.
      value_weight: weight of the value loss against the policy loss.
      augment: one random board symmetry per training example.
      minutes: budget of self-play, training, compilation and checkpoint time
        (evaluation games not counted); a resumed run continues it.
      max_iterations: stop after this many iterations (``None``: no limit).
      seed: seed of every random choice of the run.
      devices: local devices to use (``None``: all).
      eval_every: minutes of training between evaluations (0: none during training).
      eval_games: games per opponent at each evaluation (even).
      final_eval_games: games per opponent at the end (0: none).
      eval_opponents: names among ``"random"``, ``"pure_mc"``, ``"uct"``.
      final_eval_opponents: the same for the final evaluation (pure
        Monte-Carlo is slow: ``A * mc_playouts`` playouts per move).
      mc_playouts: playouts per move of the pure Monte-Carlo opponent.
      eval_gumbel_scale: the agent's root Gumbel noise in evaluation games.
      gnugo_games: games against GNU Go at the end (0: none; needs
        :mod:`gojax.gtp` and GNU Go, skipped with a message otherwise).
      gnugo_level: GNU Go's level (1: the weakest).
      run_dir: where everything is written.
      checkpoint_every: minutes between checkpoints (0: after every iteration).
      sgf_games: self-play games written as SGF at each evaluation and at the end.
      progress: show the tqdm progress bar.
    """

    size: int = 9
    komi: float = 7.5
    ko_rule: KoRule = "positional"
    max_moves: int | None = None
    blocks: int = 3
    channels: int = 32
    simulations: int = 16
    algorithm: Literal["gumbel", "puct"] = "gumbel"
    explore_moves: int = 8
    batch: int = 128
    batch_per_device: int | None = None
    moves_per_iteration: int = 8
    train_batch: int = 256
    train_batch_per_device: int | None = None
    reuse: float = 4.0
    train_steps: int | None = None
    replay_capacity: int = 65536
    min_replay: int = 2048
    replay_dtype: str = "uint8"
    optimizer: str = "adamw"
    learning_rate: float = 2e-3
    weight_decay: float = 1e-4
    warmup_steps: int = 50
    value_weight: float = 1.0
    augment: bool = True
    minutes: float = 30.0
    max_iterations: int | None = None
    seed: int = 0
    devices: int | None = None
    eval_every: float = 10.0
    eval_games: int = 20
    final_eval_games: int = 200
    eval_opponents: tuple[str, ...] = ("random", "pure_mc", "uct")
    final_eval_opponents: tuple[str, ...] = ("random", "uct")
    mc_playouts: int = 1
    eval_gumbel_scale: float = 1.0
    gnugo_games: int = 0
    gnugo_level: int = 1
    run_dir: str = "runs/alphazero"
    checkpoint_every: float = 3.0
    sgf_games: int = 4
    progress: bool = True

    def __post_init__(self):
        for name in (
            "size",
            "blocks",
            "channels",
            "simulations",
            "batch",
            "moves_per_iteration",
            "train_batch",
        ):
            value = getattr(self, name)
            if (
                isinstance(value, bool)
                or not isinstance(value, int)
                or value < (0 if name == "blocks" else 1)
            ):
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        if self.eval_games % 2 or self.final_eval_games % 2 or self.gnugo_games % 2:
            raise ValueError(
                f"eval_games, final_eval_games and gnugo_games must be even (colours alternate), "
                f"got {self.eval_games}, {self.final_eval_games} and {self.gnugo_games}"
            )
        if not float(self.minutes) >= 0:
            raise ValueError(f"minutes must be >= 0, got {self.minutes!r}")

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict."""
        data = dataclasses.asdict(self)
        data["eval_opponents"] = list(self.eval_opponents)
        data["final_eval_opponents"] = list(self.final_eval_opponents)
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> TrainConfig:
        """Inverse of :meth:`to_dict`.

        Raises:
          ValueError: on an unknown field or a bad value.
        """
        known = {f.name for f in dataclasses.fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown TrainConfig fields {unknown}")
        data = dict(data)
        for name in ("eval_opponents", "final_eval_opponents"):
            if name in data:
                data[name] = tuple(data[name])
        return cls(**data)
