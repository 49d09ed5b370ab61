"""Refereed matches between two GTP engines: colours alternated, every game saved, a Wilson interval.

::

    names = ("gojax:mcts", "gnugo:1")
    argvs = [engine_argv(name, size=9, komi=7.5) for name in names]
    with GTPClient(argvs[0]) as ours, GTPClient(argvs[1]) as gnugo:
        record = play_match(GoConfig(size=9), (ours, gnugo), names, 10, Path("runs/match"))
    print(record.line())        # counts, score, Wilson interval, seconds per move
    print(record.result())      # a gojax.players.MatchResult (A: the first engine)

An engine is written (:func:`engine_argv`, and ``gojax-match``'s arguments) as

* ``gojax:KIND[:flag=value,...]`` - ``python -m gojax.gtp --player KIND``
  (``mcts``, ``uct``, ``az``, ...) with the match's size, komi, seed and
  ``--seconds-per-move``, and each ``flag=value`` as ``--flag value`` (e.g.
  ``gojax:az:checkpoint=runs/9x9/network``);
* ``gnugo[:LEVEL]`` - GNU Go 3.8, ``--mode gtp --level LEVEL
  --chinese-rules --komi K`` plus ``--positional-superko --capture-all-dead``
  (:func:`~gojax.arena.gnugo_command`);
* ``cmd:COMMAND LINE`` - any GTP engine (split like a shell would).

Colours alternate (the first engine is black in the even-numbered games),
the referee (:func:`~gojax.arena.referee_game`) keeps the game with gojax's
rules and scores it by Tromp-Taylor area, and every game is written
atomically as SGF. Before the first game a gojax engine is compiled
(``gojax-warmup``), so no move pays for compiling.

:func:`play_match` returns a :class:`MatchRecord`: the engines' names, one
record per game and the seconds each engine spent. Its statistics - wins,
losses, draws, the first engine's score with its 95% Wilson interval, the
Elo difference - are a :class:`gojax.players.MatchResult`
(:meth:`MatchRecord.result`), as for a match between two jittable players.
"""

from __future__ import annotations

import dataclasses
import shlex
import sys
import time
from pathlib import Path

from gojax._core.types import BLACK, WHITE, GoConfig
from gojax.arena._client import GTPTimeout, gnugo_command
from gojax.arena._referee import RefereeResult, referee_game
from gojax.gtp import GTPError
from gojax.players.match import MatchResult, summarize_results
from gojax.sgf import atomic_write

__all__ = ["MatchRecord", "engine_argv", "play_match"]

_POINTS = {"win": 1.0, "loss": -1.0, "draw": 0.0}


def engine_argv(
    text: str,
    *,
    size: int,
    komi: float,
    seconds_per_move: float | None = None,
    seed: int = 0,
    max_moves: int | None = None,
) -> list[str]:
    """The command line of an engine written ``gojax:KIND[:flag=value,...]``, ``gnugo[:L]`` or ``cmd:...``.

    ``seconds_per_move`` is given to gojax engines unless their flags set
    ``seconds-per-move`` themselves; ``gojax:mcts:simulations=N`` and
    ``gojax:az:simulations=N`` play ``N`` simulations a move
    (``--seconds-per-move 0``), not a clock's budget. ``max_moves`` (the
    match's move cap, ``None``: gojax's default, which gojax engines share)
    is given to gojax engines as ``--max-moves``, so they accept every move
    the referee plays.

    Raises:
      ValueError: naming ``text`` and the forms expected.
    """
    kind, _, rest = text.partition(":")
    if kind == "gnugo":
        level = int(rest) if rest.strip().isdigit() else None
        if rest and level is None:
            raise ValueError(f"engine {text!r}: the GNU Go level must be an integer, as in gnugo:1")
        return gnugo_command(1 if level is None else level, seed=seed + 1, extra=["--komi", f"{komi:g}"])
    if kind == "cmd" and rest.strip():
        return shlex.split(rest)
    if kind == "gojax" and rest:
        player, _, flags = rest.partition(":")
        argv = [sys.executable, "-m", "gojax.gtp", "--size", str(size), "--komi", f"{komi:g}"]
        argv += ["--player", player, "--seed", str(seed), "--name", f"gojax-{player}"]
        if max_moves is not None:
            argv += ["--max-moves", str(max_moves)]
        given = []
        for item in filter(None, flags.split(",")):
            flag, equals, value = item.partition("=")
            if not flag or not equals:
                raise ValueError(f"engine {text!r}: expected flag=value items after the kind, got {item!r}")
            given += [f"--{flag.replace('_', '-')}", value]
        if "--seconds-per-move" not in given:
            if player in ("mcts", "az") and "--simulations" in given:
                # A playout count for the tree search is its budget: no clock beside it.
                argv += ["--seconds-per-move", "0"]
            elif seconds_per_move is not None:
                argv += ["--seconds-per-move", f"{seconds_per_move:g}"]
        return argv + given
    raise ValueError(f"engine {text!r}: expected gojax:KIND[:flag=value,...], gnugo[:LEVEL] or cmd:COMMAND")


@dataclasses.dataclass
class MatchRecord:
    """The games of a match between two engines, from the first engine's side.

    Attributes:
      names: the two engines' names.
      games: one dict per finished game: ``game`` (its index), ``first_colour``
        (``black``/``white``), ``result`` (``B+3.5``), ``outcome`` (``win``,
        ``loss``, ``draw`` for the first engine), ``reason``, ``moves``,
        ``seconds`` and ``engine_scores`` (each engine's), ``wall_seconds``,
        ``disagreements`` and ``sgf`` (the file's name).
      seconds: total ``genmove`` seconds of each engine.
      moves: moves played by each engine.
    """

    names: tuple[str, str]
    games: list[dict] = dataclasses.field(default_factory=list)
    seconds: list[float] = dataclasses.field(default_factory=lambda: [0.0, 0.0])
    moves: list[int] = dataclasses.field(default_factory=lambda: [0, 0])

    def result(self) -> MatchResult:
        """The statistics of the games (:class:`gojax.players.MatchResult`; A is the first engine).

        A game ended by the move cap counts as adjudicated (scored by area).

        Raises:
          ValueError: if no game finished.
        """
        if not self.games:
            raise ValueError(f"{self.names[0]} vs {self.names[1]}: no game finished")
        return summarize_results(
            [_POINTS[game["outcome"]] for game in self.games],
            [game["first_colour"] == "black" for game in self.games],
            [game["moves"] for game in self.games],
            [game["reason"] != "move cap" for game in self.games],
        )

    def seconds_per_move(self, side: int) -> float:
        """Mean ``genmove`` seconds of engine ``side`` (0 or 1)."""
        return self.seconds[side] / max(1, self.moves[side])

    def _counts(self) -> tuple[int, int, int, float, tuple[float, float]]:
        """``(wins, losses, draws, score, 95% interval)``; zeros and ``(0, 1)`` without a game."""
        if not self.games:
            return 0, 0, 0, 0.0, (0.0, 1.0)
        result = self.result()
        return result.wins, result.losses, result.draws, result.score, result.score_interval

    def summary(self) -> dict:
        """The counts, score, interval and seconds per move (plus the games) as JSON-ready data."""
        wins, losses, draws, score, (low, high) = self._counts()
        return {
            "first": self.names[0],
            "second": self.names[1],
            "games": len(self.games),
            "wins": wins,
            "losses": losses,
            "draws": draws,
            "score": score,
            "score_wilson_95": [low, high],
            "seconds_per_move": [self.seconds_per_move(0), self.seconds_per_move(1)],
            "per_game": self.games,
        }

    def line(self) -> str:
        """One line: counts, score with its interval and seconds per move."""
        wins, losses, draws, score, (low, high) = self._counts()
        return (
            f"{self.names[0]} vs {self.names[1]}: {wins} wins, {losses} losses, "
            f"{draws} draws of {len(self.games)}; score {score:.3f} "
            f"[95% Wilson {low:.3f}, {high:.3f}]; s/move {self.seconds_per_move(0):.2f} | "
            f"{self.seconds_per_move(1):.2f}"
        )


def _warm(client, config: GoConfig) -> None:
    """Sets the match's board and compiles a gojax engine (``gojax-warmup``) before its clock matters."""
    if client.send("known_command gojax-warmup") != "true":
        return
    client.send(f"boardsize {config.size}")
    client.send("clear_board")
    client.send(f"komi {config.komi:g}")
    client.send("gojax-warmup")


def play_match(
    config: GoConfig,
    engines: tuple,
    names: tuple[str, str],
    games: int,
    out: Path | None,
    *,
    time_settings: tuple[float, float, int] | None = None,
    warm_up: bool = True,
    ask_final_score: bool = True,
    log=print,
) -> MatchRecord:
    """Plays ``games`` refereed games between two engines, alternating colours, saving each as SGF.

    Args:
      config: the rules (size, komi, move cap).
      engines: two engines with ``send`` (the first is black in even-numbered games).
      names: their names.
      games: how many games.
      out: the folder for ``game_NNN.sgf`` (written atomically); ``None``
        writes no SGF (each game's ``sgf`` is then ``None``).
      time_settings: ``(main, byo_yomi_time, byo_yomi_stones)`` sent to both.
      warm_up: first compile every engine that knows ``gojax-warmup`` for ``config``.
      ask_final_score: ask both engines for ``final_score`` after each game
        (their answers land in ``engine_scores`` and ``disagreements``).
      log: called with one line per game.

    Returns:
      The :class:`MatchRecord`; a game an engine fails (a ``?`` reply to a
      setup command or ``genmove``) is void and logged; a timeout or a dead
      engine ends the match.
    """
    match = MatchRecord(names)
    if out is not None:
        out.mkdir(parents=True, exist_ok=True)
    if warm_up:
        for engine in engines:
            _warm(engine, config)
    for index in range(games):
        first_black = index % 2 == 0
        black, white = engines if first_black else engines[::-1]
        began = time.perf_counter()
        try:
            game: RefereeResult = referee_game(
                config,
                black,
                white,
                names=names if first_black else names[::-1],
                time_settings=time_settings,
                ask_final_score=ask_final_score,
            )
        except GTPError as error:
            log(f"game {index + 1}/{games}: void: {error}")
            if isinstance(error, GTPTimeout) or "exited" in error.message or "not running" in error.message:
                break
            continue
        first_colour = BLACK if first_black else WHITE
        outcome = "draw" if game.winner == 0 else "win" if game.winner == first_colour else "loss"
        path = None if out is None else out / f"game_{index:03d}.sgf"
        if path is not None:
            atomic_write(path, game.sgf({"EV": f"{names[0]} vs {names[1]}, game {index + 1}"}))
        for side, colour in ((0, first_colour), (1, BLACK + WHITE - first_colour)):
            match.seconds[side] += game.seconds[colour - 1]
            match.moves[side] += sum(1 for mover, _ in game.moves if mover == colour)
        record = {
            "game": index,
            "first_colour": "black" if first_black else "white",
            "result": game.result,
            "outcome": outcome,
            "reason": game.reason,
            "moves": len(game.moves),
            "seconds": [game.seconds[first_colour - 1], game.seconds[2 - first_colour]],
            "wall_seconds": time.perf_counter() - began,
            "engine_scores": game.engine_scores,
            "disagreements": game.disagreements,
            "sgf": None if path is None else path.name,
        }
        match.games.append(record)
        log(
            f"game {index + 1}/{games}: {names[0]} {record['first_colour']}: {game.result} "
            f"({game.reason}, {len(game.moves)} moves, {record['wall_seconds']:.0f} s) -> {outcome}"
            + (f"; score disagreements: {game.disagreements}" if game.disagreements else "")
        )
    return match
