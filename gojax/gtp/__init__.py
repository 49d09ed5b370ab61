"""GTP (Go Text Protocol v2) for gojax: an engine, a client for other engines, a referee.

Play a gojax player in Sabaki, GoGui or against GNU Go::

    gojax-gtp --size 9 --seconds-per-move 1                 # or: python -m gojax.gtp ...

Import explicitly (``from gojax import gtp``); ``import gojax`` does not load
this package. Everything here is host-side Python: the engine ``jax.jit``-s
its player once per rules config (a host tool may; the library never does).

* :class:`GTPEngine` - the engine: a game with undo, clocks, and a player
  (``mcts`` by default, or a ladder of ``random``, ``heuristic``, ``mc``, ``uct``, ``az``),
  analysis commands for GUIs;
  ``handle_line(line) -> reply`` never raises. It takes the rules (a
  :class:`gojax.GoConfig`), a :class:`PlayerSpec` and :class:`EngineOptions`::

      engine = GTPEngine(GoConfig(size=9), PlayerSpec("mcts", seconds_per_move=1.0))

* :func:`main` - the ``gojax-gtp`` console entry point (stdin/stdout, logs on stderr).
* :class:`GTPClient`, :class:`GTPError`, :class:`GTPTimeout`,
  :func:`gnugo_command`, :func:`find_gnugo` - drive another engine in a subprocess.
* :func:`referee_game`, :class:`RefereeResult`, :func:`parse_score` - a game
  between two engines, refereed by gojax's rules and scored by Tromp-Taylor.
* :class:`Game` - the host-side game (a stack of ``GoState`` s) behind the engine and the referee.
* :class:`Clock` - GTP time controls and the time to spend on a move.
* :class:`TreeSearcher` - the default player, a :class:`gojax.search.TreeSearch`
  within a time budget; :func:`judge_search` - its resignation and pass rules.
* :func:`match_main` - the ``gojax-match`` console script; :func:`play_match`,
  :class:`MatchResult`, :func:`engine_argv` - refereed matches between two GTP engines (GNU Go,
  gojax players, any command line) with a Wilson interval.
"""

from gojax.gtp._client import GNUGO, GTPClient, GTPError, GTPTimeout, find_gnugo, gnugo_command
from gojax.gtp._clock import Clock
from gojax.gtp._engine import GTPEngine
from gojax.gtp._game import Game, GameOver, IllegalMove, format_score
from gojax.gtp._genmove import RESIGN, judge_search
from gojax.gtp._main import main
from gojax.gtp._match import MatchResult, engine_argv, match_main, play_match
from gojax.gtp._mcts import TreeSearcher
from gojax.gtp._players import Searcher, player_levels
from gojax.gtp._protocol import CommandError, clean_line, parse_command
from gojax.gtp._referee import RefereeResult, parse_score, referee_game
from gojax.gtp._spec import PLAYERS, ROLLOUTS, EngineOptions, Level, PlayerSpec

__all__ = [
    "GNUGO",
    "PLAYERS",
    "RESIGN",
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
    "MatchResult",
    "PlayerSpec",
    "RefereeResult",
    "Searcher",
    "TreeSearcher",
    "clean_line",
    "engine_argv",
    "find_gnugo",
    "format_score",
    "gnugo_command",
    "judge_search",
    "main",
    "match_main",
    "parse_command",
    "parse_score",
    "play_match",
    "player_levels",
    "referee_game",
]
