"""The SGF commands of the engine (host side): ``loadsgf file [move_number]`` and ``printsgf [file]``.

* ``loadsgf`` replaces the game by the one of an SGF file (its setup stones,
  first player, handicap and komi), up to but not including move
  ``move_number`` (default: all of it); every move can be undone.
* ``printsgf`` answers the game as SGF, or writes it (atomically) to a file.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gojax._host.atomic import atomic_write
from gojax.gtp._game import Game, GameOver
from gojax.gtp._protocol import CommandError, check_arity, parse_number
from gojax.sgf import SGFError, read_sgf, to_sgf

if TYPE_CHECKING:
    from gojax.gtp._engine import GTPEngine

__all__ = ["loadsgf", "printsgf"]


def loadsgf(engine: GTPEngine, args: tuple[str, ...]) -> str:
    check_arity(args, 1, 2, usage="loadsgf filename [move_number]")
    limit = None
    if len(args) == 2:
        limit = int(parse_number(args[1], "move_number", integer=True))
        if limit < 1:
            raise CommandError(f"syntax error: move_number must be >= 1, got {limit}")
    try:
        record = read_sgf(args[0])
    except SGFError as error:
        raise CommandError(f"cannot load file: {error}") from None
    size = record.config.size
    if engine.fixed_size is not None and size != engine.fixed_size:
        raise CommandError("unacceptable size")
    komi = engine.config.komi if record.komi_recorded is None else record.config.komi
    try:
        game = Game.from_record(record, engine._config(size, komi), limit)
    except (ValueError, GameOver) as error:
        raise CommandError(f"cannot load file: {error}") from None
    engine.game = game
    engine._reset_clocks()
    return ""


def printsgf(engine: GTPEngine, args: tuple[str, ...]) -> str:
    check_arity(args, 0, 1, usage="printsgf [filename]")
    game = engine.game
    result = game.result() if game.over else None
    setup = game.setup if game.setup is not None and np.any(game.setup) else None
    metadata = {"HA": str(game.handicap)} if game.handicap else None
    text = to_sgf(
        game.config,
        game.played(),
        setup=setup,
        first_player=game.first_player,
        result=result,
        metadata=metadata,
    )
    if args:
        try:
            atomic_write(args[0], text)
        except OSError as error:
            raise CommandError(f"cannot write file: {error.strerror or error}") from None
        return ""
    return text
