"""The GTP engine of gojax: a gojax player behind the Go Text Protocol (v2).

Play a gojax player in Sabaki, GoGui or against GNU Go::

    gojax-gtp --size 9 --seconds-per-move 1                 # or: python -m gojax.gtp ...

Import explicitly (``from gojax import gtp``); ``import gojax`` does not load
this package. Everything here is host-side Python: the engine ``jax.jit``-s
its player once per rules config (a host tool may; the library never does).
Games between engines - a client for other engines, a referee, matches -
are in :mod:`gojax.arena`.

* :class:`GTPEngine` - the engine: a game with undo, clocks, and a player
  (``mcts`` by default, or a ladder of ``random``, ``heuristic``, ``mc``, ``uct``, ``az``),
  analysis commands for GUIs; its commands are one table, name -> handler.
  ``handle_line(line) -> reply`` never raises; ``send(command) -> response``
  raises :class:`GTPError` on a ``?`` reply, as a client of another engine
  does. It takes the rules (a :class:`gojax.GoConfig`), a :class:`PlayerSpec`
  and :class:`EngineOptions`::

      engine = GTPEngine(GoConfig(size=9), PlayerSpec("mcts", seconds_per_move=1.0))
      engine.send("genmove b")                                  # 'E5'

* :class:`PlayerSpec`, :class:`EngineOptions`, :class:`Level` - the player,
  the engine's behaviour around it, one level of a custom player ladder.
* :class:`CommandError` - a command failed (its message is the GTP error);
  :class:`GTPError` - a ``?`` reply to ``send``.
* :class:`Game`, :class:`GameOver`, :class:`IllegalMove` - the host-side game
  (a stack of ``GoState`` s) behind the engine and the arena's referee.
* :class:`Clock` - GTP time controls and the time to spend on a move.
* :func:`main` - the ``gojax-gtp`` console script (stdin/stdout, logs on stderr).
"""

from gojax.gtp._clock import Clock
from gojax.gtp._engine import GTPEngine
from gojax.gtp._game import Game, GameOver, IllegalMove
from gojax.gtp._main import main
from gojax.gtp._protocol import CommandError, GTPError
from gojax.gtp._spec import EngineOptions, Level, PlayerSpec

__all__ = [
    "Clock",
    "CommandError",
    "EngineOptions",
    "GTPEngine",
    "GTPError",
    "Game",
    "GameOver",
    "IllegalMove",
    "Level",
    "PlayerSpec",
    "main",
]
