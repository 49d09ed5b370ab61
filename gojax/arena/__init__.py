"""The arena: games between GTP engines - a client, a referee and a match runner.

Drive any GTP engine (GNU Go, KataGo, ``gojax-gtp``) from Python, referee
its games with gojax's rules, and measure two engines against each other::

    gojax-match gojax:mcts gnugo:1 --games 10 --size 9 --seconds-per-move 1

Import explicitly (``from gojax import arena``); ``import gojax`` does not
load this package. Everything here is host-side Python. An engine is
anything with ``send(command) -> reply`` that raises :class:`GTPError` on a
``?`` reply: a :class:`GTPClient` on a subprocess, or an in-process
:class:`gojax.gtp.GTPEngine`; the arena needs nothing else of it.

* :class:`GTPClient`, :class:`GTPError`, :class:`GTPTimeout` - another engine
  in a subprocess; :func:`gnugo_command`, :func:`find_gnugo`, :data:`GNUGO` -
  GNU Go under gojax's rules.
* :func:`referee_game`, :class:`RefereeResult`, :func:`parse_score` - one game
  between two engines, refereed by gojax's rules and scored by Tromp-Taylor.
* :func:`play_match`, :class:`MatchRecord`, :func:`engine_argv` - a match
  (colours alternated, every game saved as SGF); its statistics are a
  :class:`gojax.players.MatchResult` (:meth:`MatchRecord.result`).
* :func:`match_main` - the ``gojax-match`` console script.
"""

from gojax.arena._client import GNUGO, GTPClient, GTPTimeout, find_gnugo, gnugo_command
from gojax.arena._main import match_main
from gojax.arena._match import MatchRecord, engine_argv, play_match
from gojax.arena._referee import RefereeResult, parse_score, referee_game
from gojax.gtp import GTPError

__all__ = [
    "GNUGO",
    "GTPClient",
    "GTPError",
    "GTPTimeout",
    "MatchRecord",
    "RefereeResult",
    "engine_argv",
    "find_gnugo",
    "gnugo_command",
    "match_main",
    "parse_score",
    "play_match",
    "referee_game",
]
