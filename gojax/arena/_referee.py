"""The referee of a game between two GTP engines, with gojax's rules as the authority (host side).

::

    with GTPClient(gnugo_command(level=1)) as gnugo, GTPClient(["gojax-gtp", "--player", "uct"]) as ours:
        game = referee_game(gojax.GoConfig(size=9), black=ours, white=gnugo, names=("gojax", "GNU Go"))
    print(game.result, game.reason, game.disagreements)
    gojax.sgf.atomic_write("game.sgf", game.sgf())

The referee keeps the game with :class:`gojax.gtp.Game`: it asks the
player to move for ``genmove``, checks the answer against gojax's legal mask
(an illegal or unreadable move forfeits the game), plays it into the other
engine with ``play``, and ends the game at two passes, a resignation, a
forfeit, the config's move cap, or an engine that refuses a move gojax found
legal. A game that is not resigned or forfeited is scored by gojax's
Tromp-Taylor area score; both engines are then asked for ``final_score``
(an engine may count dead stones differently) and every answer that differs
from gojax's is listed in ``disagreements``.

An "engine" is anything with ``send(command) -> str`` raising
:class:`~gojax.gtp.GTPError` on a ``?`` reply: a :class:`~gojax.arena.GTPClient`
or an in-process :class:`gojax.gtp.GTPEngine`.
"""

from __future__ import annotations

import dataclasses
import datetime
import time
from collections.abc import Callable

from gojax._core.types import BLACK, WHITE, GoConfig
from gojax._host.results import format_margin, parse_result, winner_of_result
from gojax._host.vertices import from_gtp, to_gtp
from gojax.gtp import Game, GTPError
from gojax.sgf import to_sgf

__all__ = ["RefereeResult", "parse_score", "referee_game"]

_LETTER = {BLACK: "b", WHITE: "w"}


def _action(config: GoConfig, reply: str) -> int | str | None:
    """The action of a ``genmove`` reply (its first word), ``"resign"``, or ``None`` for no vertex."""
    words = reply.split()
    word = words[0] if words else reply
    if word.lower() == "resign":
        return "resign"
    try:
        return from_gtp(config, word)
    except ValueError:
        return None


def parse_score(text: str | None) -> float | None:
    """``black - white`` from a GTP score (``B+3.5`` -> 3.5, ``W+2`` -> -2, ``0`` -> 0), else ``None``."""
    return parse_result(text).margin


@dataclasses.dataclass
class RefereeResult:
    """One refereed game.

    Attributes:
      config: the rules.
      names: ``(black, white)`` engine names.
      moves: ``[(colour, action), ...]`` played on the board (1 black, 2 white; ``P`` pass).
      winner: 1 black, 2 white, 0 draw.
      result: ``B+3.5``, ``W+R`` (resignation), ``B+F`` (forfeit), ``0``.
      reason: ``two passes``, ``resignation``, ``forfeit: ...``, ``move cap``,
        ``rejected: ...`` (an engine refused a legal move).
      score: gojax's Tromp-Taylor score ``black - white - komi`` of the final board.
      engine_scores: engine name -> its ``final_score`` reply (``None`` if it failed).
      disagreements: the engines' scores that differ from gojax's (scored games only).
      seconds: ``(black, white)`` seconds spent in ``genmove``.
    """

    config: GoConfig
    names: tuple[str, str]
    moves: list[tuple[int, int]]
    winner: int
    result: str
    reason: str
    score: float
    engine_scores: dict[str, str | None]
    disagreements: list[str]
    seconds: tuple[float, float]

    def sgf(self, metadata: dict[str, str] | None = None) -> str:
        """The game as SGF (``PB``/``PW`` the names, ``RE`` the result, ``GC`` the reason and scores)."""
        comment = f"end: {self.reason}; gojax Tromp-Taylor score {format_margin(self.score)}"
        for name, reply in self.engine_scores.items():
            comment += f"; {name} final_score {reply}"
        info = {
            "PB": self.names[0],
            "PW": self.names[1],
            "DT": datetime.date.today().isoformat(),
            "GC": comment,
            **(metadata or {}),
        }
        return to_sgf(self.config, self.moves, result=self.result, metadata=info)


def referee_game(
    config: GoConfig,
    black,
    white,
    *,
    names: tuple[str, str] = ("black", "white"),
    time_settings: tuple[float, float, int] | None = None,
    ask_final_score: bool = True,
    on_move: Callable[[int, int, str, float], None] | None = None,
) -> RefereeResult:
    """Plays one game between two GTP engines (see the module docstring).

    Args:
      config: the rules (size, komi; the move cap ends the game, scored by area).
      black, white: engines with ``send(command) -> str``.
      names: their names in the result and the SGF.
      time_settings: ``(main, byo_yomi_time, byo_yomi_stones)`` sent to both.
      ask_final_score: ask both engines for ``final_score`` at the end.
      on_move: called as ``on_move(colour, action, vertex, seconds)`` after each move.

    Raises:
      GTPError: if an engine fails a setup command or ``genmove`` (the game is void).
    """
    engines = {BLACK: black, WHITE: white}
    name_of = {BLACK: names[0], WHITE: names[1]}
    if names[0] == names[1]:
        name_of = {BLACK: f"{names[0]} (black)", WHITE: f"{names[1]} (white)"}
    _set_up(config, (black, white), time_settings)
    game = Game(config)
    reason, spent = _play_out(config, game, engines, name_of, on_move)
    score = game.score()
    result = game.result()
    winner = winner_of_result(result) or 0
    engine_scores: dict[str, str | None] = {}
    disagreements: list[str] = []
    if ask_final_score:
        scored = reason in ("two passes", "move cap") or reason.startswith("rejected")
        engine_scores, disagreements = _final_scores(engines, name_of, score, scored)
    return RefereeResult(
        config=config,
        names=(name_of[BLACK], name_of[WHITE]),
        moves=game.played(),
        winner=winner,
        result=result,
        reason=reason,
        score=score,
        engine_scores=engine_scores,
        disagreements=disagreements,
        seconds=(spent[BLACK], spent[WHITE]),
    )


def _set_up(config: GoConfig, engines, time_settings: tuple[float, float, int] | None) -> None:
    """The board, the komi and the clock of a new game, sent to both engines."""
    for engine in engines:
        engine.send(f"boardsize {config.size}")
        engine.send("clear_board")
        engine.send(f"komi {config.komi:g}")
        if time_settings is not None:
            engine.send("time_settings {:g} {:g} {:d}".format(*time_settings))


def _play_out(config: GoConfig, game: Game, engines, name_of, on_move) -> tuple[str, dict[int, float]]:
    """Asks the engines for their moves in turn until the game ends; ``(reason, seconds by colour)``."""
    spent = {BLACK: 0.0, WHITE: 0.0}
    colour = BLACK
    while True:
        state = game.state
        if bool(state.terminated):
            return "two passes", spent
        if bool(state.truncated):
            return "move cap", spent
        start = time.perf_counter()
        reply = engines[colour].send(f"genmove {_LETTER[colour]}")
        seconds = time.perf_counter() - start
        spent[colour] += seconds
        action = _action(config, reply)
        if action == "resign":
            game.resign(colour)
            return "resignation", spent
        if not isinstance(action, int) or not game.legal_mask()[action]:
            game.forfeit(colour)
            return f"forfeit: {name_of[colour]} answered {reply!r}, not a legal move", spent
        game.play(colour, action)
        vertex = to_gtp(config, action)
        if on_move is not None:
            on_move(colour, action, vertex, seconds)
        other = BLACK + WHITE - colour
        try:
            engines[other].send(f"play {_LETTER[colour]} {vertex}")
        except GTPError as error:
            return f"rejected: {name_of[other]} refused {vertex}: {error.message}", spent
        colour = other


def _final_scores(engines, name_of, score: float, scored: bool) -> tuple[dict[str, str | None], list[str]]:
    """Each engine's ``final_score``, and where it disagrees with gojax's ``score`` (when ``scored``)."""
    engine_scores: dict[str, str | None] = {}
    disagreements = []
    for colour in (BLACK, WHITE):
        try:
            reply = engines[colour].send("final_score")
        except GTPError as error:
            reply = None
            disagreements.append(f"{name_of[colour]}: final_score failed: {error.message}")
        engine_scores[name_of[colour]] = reply
        value = parse_score(reply)
        if scored and reply is not None and (value is None or abs(value - score) > 1e-6):
            disagreements.append(f"{name_of[colour]} says {reply}, gojax {format_margin(score)}")
    return engine_scores, disagreements
