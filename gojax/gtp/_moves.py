"""The move commands of the engine (host side): play a move, generate one, take one back.

* ``play colour vertex`` plays a move (``resign`` too) for either colour, in
  any order (:class:`~gojax.gtp.Game`); an illegal one is refused with
  ``illegal move``.
* ``genmove colour`` plays and answers the player's move
  (:func:`~gojax.gtp._genmove.choose_move`) within ``colour``'s clock, and
  charges the time it took to that clock; ``reg_genmove`` answers the move
  without playing it or reading the clock.
* ``kgs-genmove_cleanup colour`` is ``genmove`` that does not pass while
  opponent stones judged dead are on the board (see
  :mod:`gojax.gtp._endgame`).
* ``undo`` takes back the last move.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from gojax._core.types import BLACK, WHITE
from gojax._host.vertices import to_gtp
from gojax.gtp import _endgame
from gojax.gtp._game import GameOver, IllegalMove
from gojax.gtp._genmove import RESIGN, choose_move
from gojax.gtp._protocol import CommandError, check_arity, parse_colour, parse_vertex

if TYPE_CHECKING:
    from gojax.gtp._engine import GTPEngine

__all__ = ["generate", "genmove", "genmove_cleanup", "play", "reg_genmove", "undo"]

log = logging.getLogger("gojax.gtp")
_NAME = {BLACK: "black", WHITE: "white"}


def play(engine: GTPEngine, args: tuple[str, ...]) -> str:
    check_arity(args, 2, usage="play colour vertex")
    colour = parse_colour(args[0])
    action = parse_vertex(engine.config, args[1])
    try:
        if action == "resign":
            engine.game.resign(colour)
        else:
            engine.game.play(colour, int(action))
    except IllegalMove as error:
        log.info("illegal move %s %s: %s", _NAME[colour], args[1], error.reason)
        raise CommandError("illegal move") from None
    except GameOver as error:
        raise CommandError(f"illegal move: {error}") from None
    return ""


def _choose(engine: GTPEngine, colour: int, timed: bool, cleanup: bool = False) -> tuple[int, str]:
    """``(action, how)`` for ``colour`` (see :func:`~gojax.gtp._genmove.choose_move`).

    ``cleanup`` (``kgs-genmove_cleanup``): no pass while dead opponent
    stones are on the board (see :mod:`gojax.gtp._endgame`).
    """
    options = engine.options
    action, how = choose_move(
        engine.game,
        engine.searcher,
        colour,
        engine.clocks[colour] if timed else None,
        engine._rng,
        pass_when_ahead=engine.pass_when_ahead and not cleanup,
        allow_early_pass=engine.allow_early_pass or cleanup,
        resign_threshold=None if cleanup else options.resign_threshold,
        resign_playouts=options.resign_playouts,
    )
    if cleanup and action == engine.config.pass_action:
        capture = _endgame.cleanup_move(engine, colour)
        if capture is not None:
            action, how = capture, f"{how}; cleanup of dead stones instead"
    return action, how


def generate(engine: GTPEngine, colour: int, *, cleanup: bool) -> str:
    """Chooses, plays and returns ``colour``'s move; its time goes on ``colour``'s clock."""
    start = engine.time_source()
    action, how = _choose(engine, colour, timed=True, cleanup=cleanup)
    try:
        if action == RESIGN:
            engine.game.resign(colour)
        else:
            engine.game.play(colour, action)
    except GameOver:  # resigned, forfeited or capped: the pass stays off the board
        pass
    seconds = engine.time_source() - start
    engine.clocks[colour].spend(seconds)
    vertex = "resign" if action == RESIGN else to_gtp(engine.config, action)
    log.info("genmove %s: %s (%s; %.2f s)", _NAME[colour], vertex, how, seconds)
    return vertex


def genmove(engine: GTPEngine, args: tuple[str, ...]) -> str:
    check_arity(args, 1, usage="genmove colour")
    return generate(engine, parse_colour(args[0]), cleanup=False)


def genmove_cleanup(engine: GTPEngine, args: tuple[str, ...]) -> str:
    check_arity(args, 1, usage="kgs-genmove_cleanup colour")
    return generate(engine, parse_colour(args[0]), cleanup=True)


def reg_genmove(engine: GTPEngine, args: tuple[str, ...]) -> str:
    check_arity(args, 1, usage="reg_genmove colour")
    action, _ = _choose(engine, parse_colour(args[0]), timed=False)
    return "resign" if action == RESIGN else to_gtp(engine.config, action)


def undo(engine: GTPEngine, args: tuple[str, ...]) -> str:
    try:
        engine.game.undo()
    except ValueError:
        raise CommandError("cannot undo") from None
    return ""
