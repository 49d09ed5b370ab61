"""What a :class:`~gojax.gtp.GTPEngine` plays with: a :class:`PlayerSpec` and :class:`EngineOptions`.

::

    engine = GTPEngine(GoConfig(size=9), PlayerSpec("uct", simulations=256), EngineOptions(name="gojax"))
    az = PlayerSpec("az", simulations=32, checkpoint="runs/9x9/network",
                    search=gojax.alphazero.SearchSettings(algorithm="gumbel").for_play())
"""

from __future__ import annotations

import dataclasses
import importlib
import math
from collections.abc import Callable
from typing import TYPE_CHECKING, Final

from gojax._core import checks
from gojax._core.types import GoConfig

if TYPE_CHECKING:  # gojax.alphazero needs flax: imported only where an AlphaZero player is loaded
    from gojax.alphazero import SearchSettings
    from gojax.search import TreeSearchSettings

__all__ = [
    "AZ_ALGORITHM",
    "PLAYERS",
    "REQUIRES",
    "ROLLOUTS",
    "EngineOptions",
    "Level",
    "PlayerSpec",
    "missing_modules",
]

PLAYERS = ("mcts", "random", "heuristic", "mc", "uct", "az", "policy")
"""The player kinds of the engine (``mcts``, the tree search, is the default: the strongest untrained one;
``policy`` is an AlphaZero network's raw policy, no search, averaged over the board's symmetries)."""

REQUIRES = {
    "uct": ("mctx",),
    "az": ("flax", "mctx", "optax", "orbax.checkpoint"),
    "policy": ("flax", "mctx", "optax", "orbax.checkpoint"),
}
"""The optional modules each player kind imports (the others need only JAX and NumPy)."""

ROLLOUTS = ("random", "heuristic")
"""The playout policies of the UCT and pure Monte-Carlo players."""

AZ_ALGORITHM: Final = "puct"
"""The search of an AlphaZero player in the engine unless told otherwise (``PlayerSpec("az")`` without
``search``, ``gojax-gtp --player az`` without ``--algorithm``): PUCT, which plays its most visited move.
With a time budget on 9x9 it beats the Gumbel search that training uses (docs/training.md)."""


def missing_modules(kind: str, checkpoint: str | None = None) -> list[str]:
    """The modules of ``REQUIRES[kind]`` that cannot be imported (imports the others).

    A tree search (``mcts``) with a ``checkpoint`` needs what ``az`` needs.
    """
    missing = []
    for name in REQUIRES.get("az" if kind == "mcts" and checkpoint else kind, ()):
        try:
            importlib.import_module(name)
        except ImportError:
            missing.append(name)
    return missing


@dataclasses.dataclass(frozen=True)
class Level:
    """One search size of a player.

    Attributes:
      label: what the level is, e.g. ``"uct 256 simulations"``.
      make: ``config -> player``; the player is ``(config, state, key) -> int32[] action``.
      family: levels of one family scale their run time with ``cost``.
      cost: relative cost within the family (simulations, playouts).
      jit: compile the player with ``jax.jit`` (``False`` for a plain Python player).
    """

    label: str
    make: Callable[[GoConfig], Callable]
    family: str
    cost: float = 1.0
    jit: bool = True


@dataclasses.dataclass(frozen=True)
class PlayerSpec:
    """The player behind ``genmove`` (frozen; validated).

    Attributes:
      kind: ``mcts`` (:class:`gojax.search.TreeSearch`, an anytime tree
        search that keeps its tree between moves), ``random``, ``heuristic``,
        ``mc``, ``uct``, ``az`` or ``policy`` (the network of ``checkpoint``
        without a search: its most likely legal move, by default by the mean
        of its logits over the board's 8 symmetries).
      simulations: UCT / AlphaZero simulations per move of the strongest level
        (the ladder adds one a quarter the size); for ``az`` with
        ``seconds_per_move``, the smallest full search of its time ladder
        (doublings up to ``gojax.gtp._players.MOST_SIMULATIONS`` are added);
        for ``mcts``, the playouts of a move when it has no time budget
        (``seconds_per_move=None`` and no clock).
      seconds_per_move: ``mcts`` and ``az``: the seconds a move may take when
        no GTP clock is set (``time_settings``/``time_left`` replace it with
        the clock's budget); ``None``: ``simulations`` a move (with a clock,
        ``az`` may drop to its quarter-size search). The other kinds run
        their fixed size, cut down only by a clock.
      playouts: pure Monte-Carlo playouts per candidate move.
      rollout: UCT / Monte-Carlo playout policy, ``random`` or ``heuristic``.
      checkpoint: the AlphaZero network (``kind="az"`` or ``"policy"``, or ``kind="mcts"``
        to guide the tree search with it): a
        :func:`gojax.alphazero.save_checkpoint` directory, e.g. a training
        run's ``network/``.
      search: ``kind="az"``: the :class:`gojax.alphazero.SearchSettings` of
        the search, whose ``num_simulations`` each level replaces by its own
        (``None``: ``SearchSettings(algorithm=AZ_ALGORITHM).for_play()``,
        PUCT without noise); ``kind="mcts"``: the
        :class:`gojax.search.TreeSearchSettings` (``None``: the defaults).
      seed: seeds the searches and the fallback moves.
      playout_weight: ``kind="az"``: AlphaGo's mixed evaluation, each leaf
        of the search valued by ``(1 - w)`` times the network's value plus
        ``w`` times the result of one heavy playout
        (:attr:`gojax.alphazero.AlphaZeroPlayer.playout_weight`); ``0``:
        the network alone.
      symmetries: how the network of ``checkpoint`` evaluates a position:
        ``8``, the mean over the board's 8 symmetries
        (:func:`gojax.alphazero.network_evaluator`), or ``1``, the position
        as it is; ``None``: the kind's default (:attr:`network_symmetries`:
        ``8`` for ``kind="policy"``, ``1`` for the searches, ``az`` and
        ``mcts`` guided by a network).

    Raises:
      TypeError, ValueError: naming the field and the value.
    """

    kind: str = "mcts"
    simulations: int = 128
    playouts: int = 8
    rollout: str = "random"
    checkpoint: str | None = None
    search: SearchSettings | TreeSearchSettings | None = None
    seed: int = 0
    seconds_per_move: float | None = 1.0
    playout_weight: float = 0.0
    symmetries: int | None = None

    def __post_init__(self):
        if self.kind not in PLAYERS:
            raise ValueError(f"PlayerSpec.kind must be one of {', '.join(PLAYERS)}, got {self.kind!r}")
        for name in ("simulations", "playouts"):
            object.__setattr__(self, name, checks.integer(getattr(self, name), f"PlayerSpec.{name}", least=1))
        if self.rollout not in ROLLOUTS:
            raise ValueError(f"PlayerSpec.rollout must be 'random' or 'heuristic', got {self.rollout!r}")
        if self.kind in ("az", "policy") and not self.checkpoint:
            raise ValueError(
                f"PlayerSpec.checkpoint is needed for kind {self.kind!r} "
                f"(--player {self.kind} needs --checkpoint PATH)"
            )
        if self.checkpoint is not None and self.kind not in ("az", "policy", "mcts"):
            raise ValueError(
                f"PlayerSpec.checkpoint is for kinds 'az', 'policy' and 'mcts', not {self.kind!r}"
            )
        if self.search is not None and self.kind not in ("az", "mcts"):
            raise ValueError(f"PlayerSpec.search is for kinds 'az' and 'mcts', not {self.kind!r}")
        object.__setattr__(self, "seed", checks.integer(self.seed, "PlayerSpec.seed"))
        weight = checks.number(self.playout_weight, "PlayerSpec.playout_weight", least=0.0, most=1.0)
        if weight and self.kind != "az":
            raise ValueError(f"PlayerSpec.playout_weight is for kind 'az', not {self.kind!r}")
        object.__setattr__(self, "playout_weight", weight)
        if self.symmetries is not None:
            object.__setattr__(self, "symmetries", self._checked_symmetries())
        if self.seconds_per_move is not None:
            object.__setattr__(
                self, "seconds_per_move", _positive(self.seconds_per_move, "PlayerSpec.seconds_per_move")
            )

    @property
    def network_symmetries(self) -> int:
        """The symmetries the network is averaged over: ``symmetries``, or the kind's default."""
        if self.symmetries is not None:
            return self.symmetries
        return 8 if self.kind == "policy" else 1

    def _checked_symmetries(self) -> int:
        """``symmetries`` (given) as an int, 1 or 8, for a player with a network."""
        symmetries = checks.integer(self.symmetries, "PlayerSpec.symmetries")
        if symmetries not in (1, 8):
            raise ValueError(f"PlayerSpec.symmetries must be 1 or 8, got {self.symmetries!r}")
        if self.checkpoint is None:
            raise ValueError(
                f"PlayerSpec.symmetries is for a network (a checkpoint), and kind {self.kind!r} has none"
            )
        return symmetries


def _positive(value, name: str) -> float:
    """``value`` as a float > 0 (finite), else TypeError/ValueError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{name} must be a number, got {value!r}")
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a finite number > 0, got {value!r}")
    return float(value)


@dataclasses.dataclass(frozen=True)
class EngineOptions:
    """How a :class:`~gojax.gtp.GTPEngine` behaves around its player (frozen).

    Attributes:
      name: the answer to ``name``.
      levels: a custom level ladder, strongest first (replaces the
        :class:`PlayerSpec`'s; for tests and tools).
      warm_up: compile and time the levels when a time limit first applies to a
        rules config (``time_settings``, ``kgs-time_settings`` or
        ``time_left``), before the clock runs; without it a timed ``genmove``
        may compile inside its budget.
      pass_when_ahead: after an opponent's pass, pass if that wins on the area score.
      resign_threshold: resign when the tree search (``mcts``) estimates the
        mover's winning chance below this, at the root and for its best
        move, after at least ``resign_playouts`` playouts (``None``: never
        resign). The other players never resign.
      resign_playouts: the playouts the tree must hold before a resignation.
      allow_early_pass: play the search's pass as it is. By default a pass
        chosen while the opponent has not just passed is replaced by a safe
        move (a capture, an atari escape or a move that is no self-atari,
        never into an own eye) when there is one: a low-budget search (UCT at
        a few hundred simulations) picks pass by noise, and under area
        scoring such a move costs nothing.

    Raises:
      TypeError, ValueError: for an empty ladder or a bad resignation threshold.
    """

    name: str = "gojax"
    levels: tuple[Level, ...] | None = None
    warm_up: bool = True
    pass_when_ahead: bool = True
    allow_early_pass: bool = False
    resign_threshold: float | None = 0.1
    resign_playouts: int = 500

    def __post_init__(self):
        if self.resign_threshold is not None:
            threshold = _positive(self.resign_threshold, "EngineOptions.resign_threshold")
            if threshold >= 0.5:
                raise ValueError(f"EngineOptions.resign_threshold must be below 0.5, got {threshold!r}")
            object.__setattr__(self, "resign_threshold", threshold)
        playouts = checks.integer(self.resign_playouts, "EngineOptions.resign_playouts", least=1)
        object.__setattr__(self, "resign_playouts", playouts)
        if self.levels is not None:
            object.__setattr__(self, "levels", tuple(self.levels))
            if not self.levels:
                raise ValueError("EngineOptions.levels must hold at least one level")
