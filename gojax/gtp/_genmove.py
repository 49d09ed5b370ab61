"""What ``genmove`` answers (host side): the player's move, made safe for a GTP game.

:func:`choose_move` wraps a :class:`~gojax.gtp._players.Searcher` with the
rules an engine needs around a bare search:

1. **Over**: a finished game (two passes, resignation, the move cap) gets a pass.
2. **Only pass**: no legal point left - pass without searching.
3. **Pass when ahead** (``pass_when_ahead``): right after the opponent's pass,
   pass if the game then ends in the mover's favour on the Tromp-Taylor area
   score (the score the referee and ``final_score`` use).
4. **Search** within the clock's budget (:meth:`Clock.budget`); when no level
   fits or the search is late, the fallback is a uniformly random legal point
   that is not one of the mover's own eyes (host side, no JAX work).
5. **Legal or pass**: an action that the legal mask refuses becomes a pass.
6. **No early pass** (unless ``allow_early_pass``): a pass chosen while the
   opponent has not just passed becomes :func:`~gojax.gtp._players.safe_move`
   when one exists (a capture, an atari escape or a move that is no
   self-atari, never into an own eye). Low-budget searches pick pass by noise;
   under area scoring such a move costs nothing.

The tree search (:class:`~gojax.gtp._mcts.TreeSearcher`) replaces rule 4 with
its statistics, read by :func:`judge_search`:

* **Resign** (``resign_threshold``, e.g. 0.1): when the tree holds at least
  ``resign_playouts`` playouts and both the root's win rate and the win rate
  of the move it would play are below the threshold, the answer is
  :data:`RESIGN`.
* **Pass only when it pays**: the search's pass stands when the opponent has
  just passed (the game then ends; rule 3 has already passed when the score
  wins), or when every other visited move is worse than passing by more than
  :data:`PASS_MARGIN`; otherwise the most visited other move is played. With
  no other move visited, rule 6 applies.
"""

from __future__ import annotations

import logging

import numpy as np

from gojax._core.types import BLACK, EMPTY, GoState
from gojax.gtp._clock import Clock
from gojax.gtp._game import Game, GameOver
from gojax.gtp._mcts import TreeSearcher, describe
from gojax.gtp._players import SAFE, Searcher
from gojax.search import SearchStats

__all__ = ["PASS_MARGIN", "RESIGN", "choose_move", "judge_search", "own_eyes", "position_for"]

log = logging.getLogger("gojax.gtp")
RESIGN = -1
"""The action :func:`choose_move` returns for a resignation (``genmove`` answers ``resign``)."""
PASS_MARGIN = 0.02
"""A pass stands against another visited move only if that move's win rate is lower by more than this."""


def position_for(game: Game, colour: int) -> GoState | None:
    """The state ``colour`` would move in (a pass inserted for the other colour), else ``None``."""
    try:
        return game._turn_for(game.state, colour)
    except GameOver:
        return None


def own_eyes(grid: np.ndarray, colour: int) -> np.ndarray:
    """``bool[P]``: empty points of ``int8[N, N]`` ``grid`` whose on-board neighbours are all ``colour``."""
    padded = np.pad(grid, 1, constant_values=colour)
    neighbours = [padded[:-2, 1:-1], padded[2:, 1:-1], padded[1:-1, :-2], padded[1:-1, 2:]]
    eyes = (grid == EMPTY) & np.all([n == colour for n in neighbours], axis=0)
    return eyes.reshape(-1)


def choose_move(
    game: Game,
    searcher: Searcher,
    colour: int,
    clock: Clock | None,
    rng: np.random.Generator,
    *,
    pass_when_ahead: bool = True,
    allow_early_pass: bool = False,
    resign_threshold: float | None = None,
    resign_playouts: int = 1,
) -> tuple[int, str]:
    """``(action, how)``: a legal move (or :data:`RESIGN`) for ``colour`` in ``game`` and how it was chosen.

    Args:
      game: the game (not changed).
      searcher: the player's level ladder.
      colour: 1 black, 2 white.
      clock: ``colour``'s clock (``None``: search without a time limit).
      rng: for the fallback move.
      pass_when_ahead: rule 3 of the module docstring.
      allow_early_pass: turn rule 6 off.
      resign_threshold, resign_playouts: when the tree search resigns
        (:func:`judge_search`; ``None``: never).
    """
    config = game.config
    state = position_for(game, colour)
    if state is None or bool(state.done):
        return config.pass_action, "the game is over"
    legal = game.legal_mask(state)
    points = legal[: config.pass_action]
    if not points.any():
        return config.pass_action, "only pass is legal"
    opponent_passed = int(state.passes) > 0 and game.to_play == colour
    if pass_when_ahead and opponent_passed:
        margin = game.score()
        if (margin > 0) if colour == BLACK else (margin < 0):
            return config.pass_action, f"the opponent passed and passing wins ({margin:+g})"
    budget = None if clock is None else clock.budget(config.num_points, int(state.move_number))

    def fallback() -> int:
        candidates = np.flatnonzero(points & ~own_eyes(game.board(), colour))
        return int(rng.choice(candidates)) if candidates.size else config.pass_action

    pass_ends_game = int(state.passes) > 0
    judged = False  # a tree search compared its pass with the other moves itself
    try:
        if isinstance(searcher, TreeSearcher):
            stats = searcher.search(config, state, budget)
            action, how = judge_search(
                stats,
                legal,
                opponent_passed=pass_ends_game,
                allow_early_pass=allow_early_pass,
                resign_threshold=resign_threshold,
                resign_playouts=resign_playouts,
            )
            if action == RESIGN:
                return action, how
            judged = bool(np.any(stats.visits[: config.pass_action][points]))
        else:
            action, how = searcher.genmove(config, state, budget, fallback)
    except Exception as error:
        log.exception("the player failed; playing a random legal move instead (not an own eye)")
        action, how = fallback(), f"fallback ({type(error).__name__})"
    if how.startswith("fallback"):
        log.warning("%s: a random legal point that fills no own eye", how)
    if not 0 <= action <= config.pass_action or not legal[action]:
        log.error("the player chose the illegal action %s; passing", action)
        action, how = config.pass_action, f"pass (the player chose illegal action {action})"
    if action == config.pass_action and not allow_early_pass and not pass_ends_game and not judged:
        if budget is None or searcher.compiled(config, SAFE):
            safe, _ = searcher.run(config, SAFE, state)
            if safe != config.pass_action and legal[safe]:
                action, how = safe, f"{how}; its pass replaced by a safe move"
    return action, how


def judge_search(
    stats: SearchStats,
    legal: np.ndarray,
    *,
    opponent_passed: bool,
    allow_early_pass: bool = False,
    resign_threshold: float | None = None,
    resign_playouts: int = 1,
) -> tuple[int, str]:
    """``(action, how)`` from a tree search's root statistics: resign, pass, or the search's move.

    Args:
      stats: the root statistics (:class:`gojax.search.SearchStats`; ``A = P + 1`` actions).
      legal: ``bool[A]``, the mover's legal actions.
      opponent_passed: whether the last move was the opponent's pass (a pass now ends the game).
      allow_early_pass: keep the search's pass as it is.
      resign_threshold, resign_playouts: see the module docstring (``None``: never resign).

    Returns:
      :data:`RESIGN`, or an action (pass is ``P``); the action is the
      search's ``best_action`` unless it is a pass that does not pay.
    """
    pass_action = legal.shape[0] - 1
    action = int(stats.best_action)
    summary = describe(stats)
    best_rate = float(stats.winrate[action]) if stats.visits[action] > 0 else float(stats.root_winrate)
    if (
        resign_threshold is not None
        and stats.playouts >= resign_playouts
        and stats.root_winrate < resign_threshold
        and best_rate < resign_threshold
    ):
        return RESIGN, f"resigns: {summary} < {resign_threshold:g}"
    if action != pass_action or opponent_passed or allow_early_pass:
        return action, summary
    visits = np.where(legal[:pass_action], stats.visits[:pass_action], 0)
    if not visits.any():
        return action, summary  # no other move searched: choose_move's safe-move rule decides
    other = int(np.argmax(visits))
    pass_rate = float(stats.winrate[pass_action]) if stats.visits[pass_action] > 0 else best_rate
    if float(stats.winrate[other]) >= pass_rate - PASS_MARGIN:
        rate = float(stats.winrate[other])
        return other, f"{summary}; its pass ({pass_rate:.3f}) replaced by a move no worse ({rate:.3f})"
    return action, f"{summary}; pass kept: every other move is worse"
