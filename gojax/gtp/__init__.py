"""GTP (Go Text Protocol v2) for gojax: an engine, a client for other engines, a referee.

Play a gojax player in Sabaki, GoGui or against GNU Go::

    gojax-gtp --size 9 --player uct --simulations 128      # or: python -m gojax.gtp ...

Import explicitly (``from gojax import gtp``); ``import gojax`` does not load
this package. Everything here is host-side Python: the engine ``jax.jit``-s
its player once per rules config (a host tool may; the library never does).

* :class:`GTPEngine` - the engine: a game with undo, clocks, and a player
  ladder (``random``, ``heuristic``, ``mc``, ``uct``, ``az``);
  ``handle_line(line) -> reply`` never raises. It takes the rules (a
  :class:`gojax.GoConfig`), a :class:`PlayerSpec` and :class:`EngineOptions`::

      engine = GTPEngine(GoConfig(size=9), PlayerSpec("uct", simulations=128))

* :func:`main` - the ``gojax-gtp`` console entry point (stdin/stdout, logs on stderr).
* :class:`GTPClient`, :class:`GTPError`, :class:`GTPTimeout`,
  :func:`gnugo_command`, :func:`find_gnugo` - drive another engine in a subprocess.
* :func:`referee_game`, :class:`RefereeResult`, :func:`parse_score` - a game
  between two engines, refereed by gojax's rules and scored by Tromp-Taylor.
* :class:`Game` - the host-side game (a stack of ``GoState`` s) behind the engine and the referee.
* :class:`Clock` - GTP time controls and the time to spend on a move.
"""

from gojax.gtp._client import GNUGO, GTPClient, GTPError, GTPTimeout, find_gnugo, gnugo_command
from gojax.gtp._clock import Clock
from gojax.gtp._engine import GTPEngine
from gojax.gtp._game import Game, GameOver, IllegalMove, format_score
from gojax.gtp._main import main
from gojax.gtp._players import Searcher, player_levels
from gojax.gtp._protocol import CommandError, clean_line, parse_command
from gojax.gtp._referee import RefereeResult, parse_score, referee_game
from gojax.gtp._spec import PLAYERS, ROLLOUTS, EngineOptions, Level, PlayerSpec

__all__ = [
    "GNUGO",
    "PLAYERS",
    "ROLLOUTS",
    "Clock",
    "CommandError",
    "EngineOptions",
    "GTPClient",
    "GTPEngine",
    "GTPError",
    "GTPTimeout",
    "Game",
    "GameOver",
    "IllegalMove",
    "Level",
    "PlayerSpec",
    "RefereeResult",
    "Searcher",
    "clean_line",
    "find_gnugo",
    "format_score",
    "gnugo_command",
    "main",
    "parse_command",
    "parse_score",
    "player_levels",
    "referee_game",
]
