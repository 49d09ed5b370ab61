"""The board commands of the engine (host side): a new game, the komi, the board and its legal moves.

* ``boardsize N`` (2 to 25; only the network's size for a network player)
  and ``clear_board`` start a new game with fresh clocks; ``komi K``
  changes the komi of the current game.
* ``showboard`` draws the board, whose move it is, the move number, the
  komi and the captures.
* ``gojax-legal_moves [colour]`` (also ``all_legal``) lists the points ``colour`` (default: the
  player to move) may play now.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import numpy as np

from gojax._core.types import BLACK, MAX_SIZE, MIN_SIZE, WHITE
from gojax._host.diagram import render
from gojax._host.vertices import to_gtp
from gojax.gtp._game import Game
from gojax.gtp._genmove import position_for
from gojax.gtp._protocol import CommandError, check_arity, parse_colour, parse_number

if TYPE_CHECKING:
    from gojax.gtp._engine import GTPEngine

__all__ = ["boardsize", "clear_board", "komi", "legal_moves", "showboard"]

_NAME = {BLACK: "black", WHITE: "white"}


def boardsize(engine: GTPEngine, args: tuple[str, ...]) -> str:
    check_arity(args, 1, usage="boardsize size")
    size = int(parse_number(args[0], "size", integer=True))
    if not MIN_SIZE <= size <= MAX_SIZE or (engine.fixed_size is not None and size != engine.fixed_size):
        raise CommandError("unacceptable size")
    engine.game = Game(engine._config(size, engine.config.komi))
    engine._reset_clocks()
    return ""


def clear_board(engine: GTPEngine, args: tuple[str, ...]) -> str:
    engine.game = Game(engine._config(engine.config.size, engine.config.komi))
    engine._reset_clocks()
    return ""


def komi(engine: GTPEngine, args: tuple[str, ...]) -> str:
    check_arity(args, 1, usage="komi value")
    value = parse_number(args[0], "komi")
    engine.game.with_config(dataclasses.replace(engine.config, komi=value))
    return ""


def showboard(engine: GTPEngine, args: tuple[str, ...]) -> str:
    game, state = engine.game, engine.game.state
    black, white = np.asarray(state.captures).tolist()
    status = "game over" if game.over else f"{_NAME[game.to_play]} to move"
    return (
        "\n"
        + render(engine.config, state)
        + f"\n{status}; move {int(state.move_number)}; komi {engine.config.komi:g}; "
        f"captures: black {black}, white {white}"
    )


def legal_moves(engine: GTPEngine, args: tuple[str, ...]) -> str:
    check_arity(args, 0, 1, usage="gojax-legal_moves [colour]")
    colour = parse_colour(args[0]) if args else engine.game.to_play
    state = position_for(engine.game, colour)
    if state is None or bool(state.done):
        return ""
    legal = engine.game.legal_mask(state)[: engine.config.pass_action]
    return " ".join(to_gtp(engine.config, int(p)) for p in np.flatnonzero(legal))
