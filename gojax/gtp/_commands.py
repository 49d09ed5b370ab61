"""The command table of :class:`~gojax.gtp.GTPEngine`: every GTP command it knows, name -> handler.

A handler is a function ``handler(engine, args) -> response``: ``args`` are
the command's words after its name, the response is the text after ``=``
(``""`` for none), and a failure raises
:class:`~gojax.gtp._protocol.CommandError` with the GTP error message.
Handlers live with their topic (``_board``, ``_moves``, ``_record``,
``_time``, ``_handicap``, ``_endgame``, ``_analysis``) and share the
engine's state (its game, clocks and searcher); :data:`COMMANDS` is the one
place that lists them, in the order ``list_commands`` answers, and
``known_command`` reads it too.

The streaming commands (``lz-analyze`` and ``kata-analyze`` with an
interval, ``lz-genmove_analyze``, ``kata-genmove_analyze``; see
:mod:`gojax.gtp._analysis`) need the console loop of ``gojax-gtp``, which
runs them through :meth:`~gojax.gtp.GTPEngine.analyze`; in the table
``lz-analyze`` and ``kata-analyze`` answer one line and the
``*-genmove_analyze`` ``play VERTEX``. Every name in :data:`COMMANDS`,
:data:`~gojax.gtp._analysis.STREAMING` included, is listed and known.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from gojax._version import __version__
from gojax.gtp import _analysis, _board, _endgame, _handicap, _moves, _record, _time
from gojax.gtp._protocol import check_arity

if TYPE_CHECKING:
    from gojax.gtp._engine import GTPEngine

__all__ = ["COMMANDS", "Handler"]

Handler = Callable[["GTPEngine", tuple[str, ...]], str]
"""``handler(engine, args) -> response``; raises ``CommandError`` with the GTP error message."""


def _protocol_version(engine: GTPEngine, args: tuple[str, ...]) -> str:
    return "2"


def _name(engine: GTPEngine, args: tuple[str, ...]) -> str:
    return engine.name


def _version(engine: GTPEngine, args: tuple[str, ...]) -> str:
    return f"{__version__} ({engine.searcher.levels[0].label})"


def _known_command(engine: GTPEngine, args: tuple[str, ...]) -> str:
    check_arity(args, 1, usage="known_command command_name")
    return "true" if args[0] in COMMANDS else "false"


def _list_commands(engine: GTPEngine, args: tuple[str, ...]) -> str:
    return "\n".join(COMMANDS)


def _quit(engine: GTPEngine, args: tuple[str, ...]) -> str:
    engine.quit_requested = True
    return ""


def _cputime(engine: GTPEngine, args: tuple[str, ...]) -> str:
    return f"{time.process_time():.3f}"


COMMANDS: dict[str, Handler] = {
    # the protocol
    "protocol_version": _protocol_version,
    "name": _name,
    "version": _version,
    "known_command": _known_command,
    "list_commands": _list_commands,
    "quit": _quit,
    # the board and the moves
    "boardsize": _board.boardsize,
    "clear_board": _board.clear_board,
    "komi": _board.komi,
    "play": _moves.play,
    "genmove": _moves.genmove,
    "reg_genmove": _moves.reg_genmove,
    "undo": _moves.undo,
    "showboard": _board.showboard,
    # the end of a game
    "final_score": _endgame.final_score,
    "final_status_list": _endgame.final_status_list,
    # handicap stones
    "fixed_handicap": _handicap.fixed_handicap,
    "place_free_handicap": _handicap.place_free_handicap,
    "set_free_handicap": _handicap.set_free_handicap,
    # KGS and GNU Go extensions
    "kgs-genmove_cleanup": _moves.genmove_cleanup,
    "list_stones": _endgame.list_stones,
    # SGF files
    "loadsgf": _record.loadsgf,
    "printsgf": _record.printsgf,
    # time
    "time_settings": _time.time_settings,
    "time_left": _time.time_left,
    "kgs-time_settings": _time.kgs_time_settings,
    # gojax's own
    "all_legal": _board.legal_moves,
    "gojax-legal_moves": _board.legal_moves,
    "gojax-info": _time.info,
    "gojax-warmup": _time.warmup,
    "cputime": _cputime,
    # analysis for GUIs (Sabaki, Lizzie, GoGui)
    "lz-analyze": _analysis.lz_analyze,
    "kata-analyze": _analysis.kata_analyze,
    "lz-genmove_analyze": _analysis.lz_genmove_analyze,
    "kata-genmove_analyze": _analysis.kata_genmove_analyze,
    "gogui-analyze_commands": _analysis.gogui_analyze_commands,
    "gojax-visits_gfx": _analysis.visits_gfx,
    "gojax-prior_gfx": _analysis.prior_gfx,
    "gojax-pv_gfx": _analysis.pv_gfx,
    "gojax-winrate": _analysis.winrate,
    "gojax-ownership": _analysis.ownership,
}
"""Every command of the engine, in the order ``list_commands`` answers: name -> :data:`Handler`."""
