"""The tree-search player behind ``genmove`` and the analysis commands (host side).

:class:`TreeSearcher` runs a :class:`gojax.search.TreeSearch` (one per rules
config, compiled once by its ``warm_up`` before any timed search) within a
time budget: the clock's budget when the controller set a time limit
(``time_settings``, ``time_left``), else the player's ``seconds_per_move``,
else a playout count. The tree is kept between moves: each search first
moves the root to the position asked for (``set_root``), so the playouts
already spent below the moves actually played are reused.

With a checkpoint (``PlayerSpec.checkpoint``) the search is guided by
that AlphaZero network (:func:`gojax.alphazero.network_evaluator`: its policy in
the prior, its value mixed with the playouts), and it plays the board size
the network was trained on.

It is a :class:`~gojax.gtp._players.Searcher` with one level (the engine's
``gojax-info``, ``version`` and warm-up read it the same way) plus the safe
move the engine plays instead of an early pass.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable

from gojax._core.types import GoConfig, GoState
from gojax._host import compiled
from gojax.gtp._players import SAFE, Searcher, load_network
from gojax.gtp._spec import Level, PlayerSpec
from gojax.search import SearchStats, TreeSearch, TreeSearchSettings

__all__ = ["TreeSearcher", "describe"]

log = logging.getLogger("gojax.gtp")
_KEEP = 2  # trees kept (the last rules configs searched)
_LEAST_SHARE = 0.1  # of a budget that a first search spends loading the tree search


def _no_function(config: GoConfig):
    raise RuntimeError("the tree search runs through TreeSearcher.search, not as a jitted level")


class TreeSearcher(Searcher):
    """A :class:`gojax.search.TreeSearch` player with a time budget per move.

    Args:
      spec: a :class:`~gojax.gtp.PlayerSpec` of kind ``mcts``: its
        ``search`` (a :class:`gojax.search.TreeSearchSettings` or ``None``),
        ``seconds_per_move``, ``simulations`` (the playouts of a move
        without any time budget), ``seed`` and ``checkpoint`` (a network
        to guide the search, or ``None``).
      now: the time source of the searches and the engine.

    Raises:
      TypeError: if ``spec.search`` is not a ``TreeSearchSettings``.
    """

    def __init__(self, spec: PlayerSpec, now: Callable[[], float] = time.monotonic):
        settings = TreeSearchSettings() if spec.search is None else spec.search
        if not isinstance(settings, TreeSearchSettings):
            raise TypeError(
                "PlayerSpec.search must be a gojax.search.TreeSearchSettings for kind 'mcts', "
                f"got {settings!r}"
            )
        if spec.seconds_per_move is not None:
            label = f"tree search, {spec.seconds_per_move:g} s/move"
        else:
            label = f"tree search, {spec.simulations} playouts/move"
        self.guide = None
        self.board_size: int | None = None
        """The one board size the search plays (its network's), or ``None`` for any."""
        if spec.checkpoint is not None:
            from gojax import alphazero  # needs flax: only for a network-guided search

            graphdef, variables, observe, self.board_size = load_network(spec.checkpoint)
            symmetries = spec.network_symmetries
            self.guide = alphazero.network_evaluator(graphdef, variables, observe, symmetries)
            label += f", guided by {spec.checkpoint}"
            label += f" (mean over {symmetries} symmetries)" if symmetries > 1 else ""
        level = Level(label, _no_function, "mcts", jit=False)
        super().__init__([level], spec.seed, now, seconds_per_move=spec.seconds_per_move)
        self.settings = settings
        self.playouts = spec.simulations
        self.seed = spec.seed
        self.last_stats: SearchStats | None = None
        self.progress: tuple[Callable[[SearchStats], None], float] | None = None
        """``(on_progress, every)`` for searches given no ``on_progress`` (``*-genmove_analyze``)."""
        self._trees: dict[GoConfig, TreeSearch] = {}

    def tree(self, config: GoConfig) -> TreeSearch:
        """The search of ``config`` (created and compiled on first use; the last two are kept).

        Kept per komi-free rules: another komi reuses the compiled search
        (:meth:`gojax.search.TreeSearch.set_komi`, which drops the tree).
        """
        tree = self._trees.get(compiled.rules_config(config))
        if tree is not None:
            tree.set_komi(config.komi)
        if tree is None:
            start = time.perf_counter()
            tree = TreeSearch(config, self.settings, seed=self.seed, guide=self.guide)
            tree.warm_up()
            tree.set_root(
                compiled.rules(config).init()
            )  # the first real batch still compiled after warm_up: run one here
            tree.search(playouts=1)
            log.info(
                "compiled the tree search for %dx%d in %.1f s",
                config.size,
                config.size,
                time.perf_counter() - start,
            )
            while len(self._trees) >= _KEEP:
                self._trees.pop(next(iter(self._trees)))
            self._trees[compiled.rules_config(config)] = tree
        return tree

    def compiled(self, config: GoConfig, index: int) -> bool:
        """Whether the safe move (``SAFE``) or the tree search (``0``) is compiled for ``config``."""
        if index == SAFE:
            return super().compiled(config, index)
        return compiled.rules_config(config) in self._trees

    def estimate(self, config: GoConfig, index: int) -> float | None:
        """The seconds a move takes without a clock (``seconds_per_move``; ``None`` for a playout count)."""
        return self.seconds_per_move

    def warm_up(self, config: GoConfig, state: GoState, max_seconds: float | None = None) -> None:
        """Compiles the safe move and the tree search of ``config`` (outside any clock)."""
        self.function(config, SAFE, state)
        self.tree(config)

    def search(
        self,
        config: GoConfig,
        state: GoState,
        budget: float | None = None,
        *,
        playouts: int | None = None,
        should_stop: Callable[[], bool] | None = None,
        on_progress: Callable[[SearchStats], None] | None = None,
        progress_every: float = 1.0,
    ) -> SearchStats:
        """Searches ``state`` (the tree moved to it) and returns the root statistics.

        Args:
          config, state: the rules and one game's position.
          budget: seconds (``None``: ``seconds_per_move``, or ``playouts`` /
            the spec's ``simulations`` playouts when that is ``None`` too),
            counted from the call: a first search that loads or compiles the
            tree search has that much less to search (at least a tenth of the
            budget).
          playouts: a playout budget (alone, or with ``budget``, whichever ends first).
          should_stop, on_progress, progress_every: passed to
            :meth:`gojax.search.TreeSearch.search`.
        """
        began = self.now()
        tree = self.tree(config)
        tree.set_root(state)
        seconds = budget if budget is not None else (None if playouts is not None else self.seconds_per_move)
        if seconds is not None:  # loading the search on first use is part of the move's time
            seconds = max(seconds - (self.now() - began), _LEAST_SHARE * seconds)
        if seconds is None and playouts is None:
            playouts = self.playouts
        if on_progress is None and self.progress is not None:
            on_progress, progress_every = self.progress
        stats = tree.search(
            seconds=seconds,
            playouts=playouts,
            should_stop=should_stop,
            on_progress=on_progress,
            progress_every=progress_every,
            now=self.now,
        )
        self.last_stats = stats
        return stats

    def genmove(
        self, config: GoConfig, state: GoState, budget: float | None, fallback: Callable[[], int]
    ) -> tuple[int, str]:
        """``(action, how)``: the search's best action within ``budget`` (see :meth:`search`)."""
        stats = self.search(config, state, budget)
        return int(stats.best_action), describe(stats)


def describe(stats: SearchStats) -> str:
    """A one-line summary of a search for the log."""
    against = f" against komi {stats.komi_offset:+g} (dynamic)" if stats.komi_offset else ""
    return (
        f"tree search, {stats.playouts} playouts in the tree, {stats.seconds:.2f} s, "
        f"win rate {stats.root_winrate:.3f}{against}"
    )
