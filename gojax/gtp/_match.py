"""``gojax-match``: a refereed match between two GTP engines, with a Wilson interval (host side).

::

    gojax-match gojax:mcts gnugo:1 --games 10 --size 9 --seconds-per-move 1 --out runs/match
    gojax-match gojax:uct:simulations=256 gojax:random --games 4 --size 9
    gojax-match "cmd:/usr/games/gnugo --mode gtp --level 5" gnugo:1 --games 2

An engine is written as

* ``gojax:KIND[:flag=value,...]`` - ``python -m gojax.gtp --player KIND``
  (``mcts``, ``uct``, ``az``, ...) with the match's size, komi, seed and
  ``--seconds-per-move``, and each ``flag=value`` as ``--flag value`` (e.g.
  ``gojax:az:checkpoint=runs/9x9/network``);
* ``gnugo[:LEVEL]`` - GNU Go 3.8, ``--mode gtp --level LEVEL
  --chinese-rules --komi K`` plus ``--positional-superko --capture-all-dead``
  (:func:`~gojax.gtp.gnugo_command`);
* ``cmd:COMMAND LINE`` - any GTP engine (split like a shell would).

Every engine runs in a subprocess through :class:`~gojax.gtp.GTPClient`.
Colours alternate (the first engine is black in the even-numbered games),
the referee (:func:`~gojax.gtp.referee_game`) keeps the game with gojax's
rules and scores it by Tromp-Taylor area, every game is written atomically
as SGF, and ``summary.json`` holds the counts, the first engine's score with
its 95% Wilson interval and the mean seconds per move of each side. Before
the first game a gojax engine is compiled (``gojax-warmup``), so no move
pays for compiling.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import shlex
import sys
import time
from pathlib import Path

from gojax._core.types import BLACK, WHITE, GoConfig
from gojax.gtp._client import GTPClient, GTPError, GTPTimeout, gnugo_command
from gojax.gtp._referee import RefereeResult, referee_game
from gojax.players.match import wilson_interval
from gojax.sgf import atomic_write

__all__ = ["MatchResult", "engine_argv", "match_main", "play_match"]


def engine_argv(
    text: str, *, size: int, komi: float, seconds_per_move: float | None = None, seed: int = 0
) -> list[str]:
    """The command line of an engine written ``gojax:KIND[:flag=value,...]``, ``gnugo[:L]`` or ``cmd:...``.

    ``seconds_per_move`` is given to gojax engines unless their flags set
    ``seconds-per-move`` themselves; ``gojax:mcts:simulations=N`` plays
    ``N`` playouts a move (``--seconds-per-move 0``), not a clock's budget.

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
        given = []
        for item in filter(None, flags.split(",")):
            flag, equals, value = item.partition("=")
            if not flag or not equals:
                raise ValueError(f"engine {text!r}: expected flag=value items after the kind, got {item!r}")
            given += [f"--{flag.replace('_', '-')}", value]
        if "--seconds-per-move" not in given:
            if player == "mcts" and "--simulations" in given:
                # A playout count for the tree search is its budget: no clock beside it.
                argv += ["--seconds-per-move", "0"]
            elif seconds_per_move is not None:
                argv += ["--seconds-per-move", f"{seconds_per_move:g}"]
        return argv + given
    raise ValueError(f"engine {text!r}: expected gojax:KIND[:flag=value,...], gnugo[:LEVEL] or cmd:COMMAND")


@dataclasses.dataclass
class MatchResult:
    """The games of a match, from the first engine's side.

    Attributes:
      names: the two engines' names.
      games: one record per finished game (see :func:`play_match`).
      seconds: total ``genmove`` seconds of each engine.
      moves: moves played by each engine.
    """

    names: tuple[str, str]
    games: list[dict] = dataclasses.field(default_factory=list)
    seconds: list[float] = dataclasses.field(default_factory=lambda: [0.0, 0.0])
    moves: list[int] = dataclasses.field(default_factory=lambda: [0, 0])

    def count(self, outcome: str) -> int:
        """Games with this outcome (``win``, ``loss``, ``draw``) for the first engine."""
        return sum(game["outcome"] == outcome for game in self.games)

    @property
    def score(self) -> float:
        """The first engine's score: (wins + draws / 2) / games."""
        return (self.count("win") + 0.5 * self.count("draw")) / max(1, len(self.games))

    def interval(self) -> tuple[float, float]:
        """The 95% Wilson interval of :attr:`score`."""
        return wilson_interval(self.count("win") + 0.5 * self.count("draw"), len(self.games))

    def seconds_per_move(self, side: int) -> float:
        """Mean ``genmove`` seconds of engine ``side`` (0 or 1)."""
        return self.seconds[side] / max(1, self.moves[side])

    def summary(self) -> dict:
        """The counts, score, interval and seconds per move (plus the games) as JSON-ready data."""
        low, high = self.interval() if self.games else (0.0, 1.0)
        return {
            "first": self.names[0],
            "second": self.names[1],
            "games": len(self.games),
            "wins": self.count("win"),
            "losses": self.count("loss"),
            "draws": self.count("draw"),
            "score": self.score,
            "score_wilson_95": [low, high],
            "seconds_per_move": [self.seconds_per_move(0), self.seconds_per_move(1)],
            "per_game": self.games,
        }

    def line(self) -> str:
        """One line: counts, score with its interval and seconds per move."""
        low, high = self.interval() if self.games else (0.0, 1.0)
        return (
            f"{self.names[0]} vs {self.names[1]}: {self.count('win')} wins, {self.count('loss')} losses, "
            f"{self.count('draw')} draws of {len(self.games)}; score {self.score:.3f} "
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
    out: Path,
    *,
    time_settings: tuple[float, float, int] | None = None,
    warm_up: bool = True,
    log=print,
) -> MatchResult:
    """Plays ``games`` refereed games between two engines, alternating colours, saving each as SGF.

    Args:
      config: the rules (size, komi, move cap).
      engines: two engines with ``send`` (the first is black in even-numbered games).
      names: their names.
      games: how many games.
      out: the folder for ``game_NNN.sgf`` (written atomically).
      time_settings: ``(main, byo_yomi_time, byo_yomi_stones)`` sent to both.
      warm_up: first compile every engine that knows ``gojax-warmup`` for ``config``.
      log: called with one line per game.

    Returns:
      The :class:`MatchResult`; a game an engine fails (a ``?`` reply to a
      setup command or ``genmove``) is void and logged; a timeout or a dead
      engine ends the match.
    """
    result = MatchResult(names)
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
            )
        except GTPError as error:
            log(f"game {index + 1}/{games}: void: {error}")
            if isinstance(error, GTPTimeout) or "exited" in error.message or "not running" in error.message:
                break
            continue
        first_colour = BLACK if first_black else WHITE
        outcome = "draw" if game.winner == 0 else "win" if game.winner == first_colour else "loss"
        path = out / f"game_{index:03d}.sgf"
        atomic_write(path, game.sgf({"EV": f"{names[0]} vs {names[1]}, game {index + 1}"}))
        for side, colour in ((0, first_colour), (1, BLACK + WHITE - first_colour)):
            result.seconds[side] += game.seconds[colour - 1]
            result.moves[side] += sum(1 for mover, _ in game.moves if mover == colour)
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
            "sgf": path.name,
        }
        result.games.append(record)
        log(
            f"game {index + 1}/{games}: {names[0]} {record['first_colour']}: {game.result} "
            f"({game.reason}, {len(game.moves)} moves, {record['wall_seconds']:.0f} s) -> {outcome}"
            + (f"; score disagreements: {game.disagreements}" if game.disagreements else "")
        )
    return result


def build_parser() -> argparse.ArgumentParser:
    """The flags of ``gojax-match``."""
    parser = argparse.ArgumentParser(prog="gojax-match", description=__doc__.split("\n\n")[0])
    parser.add_argument("first", nargs="?", default="gojax:mcts", help="engine (default gojax:mcts)")
    parser.add_argument("second", nargs="?", default="gnugo:1", help="engine (default gnugo:1)")
    parser.add_argument("--games", type=int, default=2, help="games (colours alternate; default 2)")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=7.5)
    parser.add_argument("--max-moves", type=int, default=None, help="move cap of a game (default 3*N*N)")
    parser.add_argument("--seconds-per-move", type=float, default=1.0, help="for gojax engines (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--time-settings", type=float, nargs=3, default=None, metavar=("MAIN", "BYO_TIME", "BYO_STONES")
    )
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds to wait for one reply")
    parser.add_argument("--engine-logs", default=None, help="folder for the engines' stderr")
    parser.add_argument("--out", default="experiments/results/match", help="folder for SGF and summary.json")
    return parser


def match_main(argv: list[str] | None = None) -> int:
    """The ``gojax-match`` console script; returns the exit status (1 if no game finished)."""
    args = build_parser().parse_args(argv)
    if args.games < 1:
        print(f"gojax-match: --games must be >= 1, got {args.games}", file=sys.stderr)
        return 2
    config = GoConfig(size=args.size, komi=args.komi, max_moves=args.max_moves or 3 * args.size * args.size)
    try:
        argvs = [
            engine_argv(
                text, size=args.size, komi=args.komi, seconds_per_move=args.seconds_per_move, seed=args.seed
            )
            for text in (args.first, args.second)
        ]
    except (ValueError, FileNotFoundError) as error:
        print(f"gojax-match: {error}", file=sys.stderr)
        return 2
    names = (args.first, args.second)
    if args.first == args.second:
        names = (f"{args.first} (1)", f"{args.first} (2)")
    out = Path(args.out)
    logs = Path(args.engine_logs) if args.engine_logs else None
    if logs is not None:
        logs.mkdir(parents=True, exist_ok=True)
    for name, argv_ in zip(names, argvs, strict=True):
        print(f"{name}: {shlex.join(argv_)}", flush=True)
    start = time.perf_counter()
    clients: list[GTPClient] = []
    try:
        for side, argv_ in enumerate(argvs):
            stderr = str(logs / f"engine_{side}.log") if logs is not None else None
            clients.append(GTPClient(argv_, timeout=args.timeout, stderr=stderr, name=names[side]))
        result = play_match(
            config,
            (clients[0], clients[1]),
            names,
            args.games,
            out,
            time_settings=tuple(args.time_settings) if args.time_settings else None,  # type: ignore[arg-type]
            log=lambda line: print(line, flush=True),
        )
    except GTPError as error:
        print(f"gojax-match: {error}", file=sys.stderr)
        return 1
    finally:
        for client in clients:
            client.close()
    if not result.games:
        print("gojax-match: no game finished", file=sys.stderr)
        return 1
    summary = result.summary()
    summary.update(
        size=args.size,
        komi=args.komi,
        move_cap=config.max_moves,
        wall_seconds=time.perf_counter() - start,
        commands=[shlex.join(a) for a in argvs],
    )
    atomic_write(out / "summary.json", json.dumps(summary, indent=1) + "\n")
    print(result.line() + f"; {summary['wall_seconds']:.0f} s; SGF in {out}", flush=True)
    return 0
