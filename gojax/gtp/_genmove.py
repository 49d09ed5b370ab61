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
"""

from __future__ import annotations

import logging

import numpy as np

from gojax._core.types import BLACK, EMPTY, GoState
from gojax.gtp._clock import Clock
from gojax.gtp._game import Game, GameOver
from gojax.gtp._players import SAFE, Searcher

__all__ = ["choose_move", "own_eyes", "position_for"]

log = logging.getLogger("gojax.gtp")


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
) -> tuple[int, str]:
    """``(action, how)``: a legal move for ``colour`` in ``game`` and how it was chosen.

    Args:
      game: the game (not changed).
      searcher: the player's level ladder.
      colour: 1 black, 2 white.
      clock: ``colour``'s clock (``None``: search without a time limit).
      rng: for the fallback move.
      pass_when_ahead: rule 3 of the module docstring.
      allow_early_pass: turn rule 6 off.
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

    try:
        action, how = searcher.genmove(config, state, budget, fallback)
    except Exception as error:
        log.exception("the player failed; playing a fallback move")
        action, how = fallback(), f"fallback ({type(error).__name__})"
    if not 0 <= action <= config.pass_action or not legal[action]:
        log.error("the player chose the illegal action %s; passing", action)
        action, how = config.pass_action, f"pass (the player chose illegal action {action})"
    if action == config.pass_action and not allow_early_pass and int(state.passes) == 0:
        if budget is None or searcher.compiled(config, SAFE):
            safe, _ = searcher.run(config, SAFE, state)
            if safe != config.pass_action and legal[safe]:
                action, how = safe, f"{how}; its pass replaced by a safe move"
    return action, how
