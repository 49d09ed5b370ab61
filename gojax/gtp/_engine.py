"""The GTP engine (host side): a :class:`~gojax.gtp._game.Game`, a player ladder and the GTP commands.

::

    engine = GTPEngine(size=9, player="uct", simulations=128)
    engine.handle_line("1 genmove b")       # '=1 E5\\n\\n'
    engine.send("play w C3")                 # '' (raises GTPError on a '?' reply), as GTPClient.send

Every input line gets exactly one framed reply (or none for an empty or
comment line); no input line can raise out of :meth:`GTPEngine.handle_line`:
a failure is a ``?`` reply (``unknown command``, ``syntax error: ...``,
``illegal move``, ``unacceptable size``, ``cannot undo``, ...).

Rules: Tromp-Taylor area scoring, the configured ko rule (positional superko
by default), no suicide unless configured, komi 7.5 by default. ``genmove``
never answers an illegal move (the player's action is checked against the
legal mask; pass otherwise), passes when the game is over or nothing but
passing is legal, and - unless disabled - passes after an opponent's pass when
passing wins on the area score (the Tromp-Taylor end of a game), and does not
pass while the opponent has not passed and a safe move is left.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from typing import Literal

import numpy as np

from gojax._core.types import BLACK, EMPTY, MAX_SIZE, MIN_SIZE, WHITE, GoConfig, KoRule
from gojax._host.diagram import render
from gojax._host.vertices import to_gtp
from gojax._version import __version__
from gojax.gtp._client import GTPError
from gojax.gtp._clock import Clock
from gojax.gtp._game import Game, GameOver, IllegalMove
from gojax.gtp._genmove import choose_move, position_for
from gojax.gtp._players import Level, Searcher, player_levels
from gojax.gtp._protocol import (
    CommandError,
    check_arity,
    format_error,
    format_success,
    parse_colour,
    parse_command,
    parse_number,
    parse_vertex,
)

__all__ = ["GTPEngine"]

log = logging.getLogger("gojax.gtp")
_NAME = {BLACK: "black", WHITE: "white"}


class GTPEngine:
    """A GTP v2 engine playing gojax's rules with a gojax player.

    Args:
      size: board side at start (a controller's ``boardsize`` changes it).
      komi: komi at start.
      ko_rule: ``positional`` (default), ``situational`` or ``simple``.
      suicide: allow suicide (Tromp-Taylor, New Zealand).
      max_moves: move cap of a game (``None``: ``4 * N * N``, at most 32767),
        after which the engine refuses moves.
      player: ``random``, ``heuristic``, ``mc``, ``uct`` or ``az``.
      simulations: UCT / AlphaZero simulations per move.
      playouts: pure Monte-Carlo playouts per candidate move.
      rollout: UCT / Monte-Carlo playout policy, ``random`` or ``heuristic``.
      checkpoint: AlphaZero checkpoint path (``player="az"``).
      algorithm: AlphaZero search, ``gumbel`` or ``puct``.
      seed: seeds the searches and the fallback moves.
      name: the answer to ``name``.
      levels: a custom level ladder (overrides ``player``; for tests and tools).
      warm_up: compile and time the levels when a time limit first applies to a
        rules config (``time_settings``, ``kgs-time_settings`` or
        ``time_left``), before the clock runs; without it a timed ``genmove``
        may compile inside its budget.
      pass_when_ahead: after an opponent's pass, pass if that wins on the area score.
      allow_early_pass: play the search's pass as it is. By default a pass
        chosen while the opponent has not just passed is replaced by
        :func:`~gojax.gtp._players.safe_move` (a capture, an atari escape or a
        move that is no self-atari, never into an own eye) when there is one:
        a low-budget search (UCT at a few hundred simulations) picks pass by
        noise, and under area scoring such a move costs nothing.
    """

    def __init__(
        self,
        *,
        size: int = 19,
        komi: float = 7.5,
        ko_rule: KoRule = "positional",
        suicide: bool = False,
        max_moves: int | None = None,
        player: str = "uct",
        simulations: int = 128,
        playouts: int = 8,
        rollout: str = "random",
        checkpoint: str | None = None,
        algorithm: Literal["gumbel", "puct"] = "gumbel",
        seed: int = 0,
        name: str = "gojax",
        levels: list[Level] | None = None,
        warm_up: bool = True,
        pass_when_ahead: bool = True,
        allow_early_pass: bool = False,
    ):
        self.name = name
        self._ko_rule = ko_rule
        self._suicide = suicide
        self._max_moves = max_moves
        fixed_size = None
        if levels is None:
            levels, fixed_size = player_levels(
                player,
                simulations=simulations,
                playouts=playouts,
                rollout=rollout,
                checkpoint=checkpoint,
                algorithm=algorithm,
            )
            self.player = player
        else:
            self.player = "custom"
        self.fixed_size = fixed_size
        if fixed_size is not None:
            size = fixed_size
        self.searcher = Searcher(levels, seed)
        self._rng = np.random.default_rng(seed + 1)
        self.warm_up_on_time_settings = warm_up
        self.pass_when_ahead = pass_when_ahead
        self.allow_early_pass = allow_early_pass
        self.game = Game(self._config(size, komi))
        self._time_settings: tuple[float, float, int] | None = None
        self._warmed: set[GoConfig] = set()
        self.clocks = {BLACK: Clock(), WHITE: Clock()}
        self.quit_requested = False
        self.commands = {
            "protocol_version": self._protocol_version,
            "name": self._name,
            "version": self._version,
            "known_command": self._known_command,
            "list_commands": self._list_commands,
            "quit": self._quit,
            "boardsize": self._boardsize,
            "clear_board": self._clear_board,
            "komi": self._komi,
            "play": self._play,
            "genmove": self._genmove,
            "reg_genmove": self._reg_genmove,
            "undo": self._undo,
            "showboard": self._showboard,
            "final_score": self._final_score,
            "final_status_list": self._final_status_list,
            "loadsgf": self._loadsgf,
            "printsgf": self._printsgf,
            "time_settings": self._time_settings_command,
            "time_left": self._time_left,
            "kgs-time_settings": self._kgs_time_settings,
            "all_legal": self._legal_moves,
            "gojax-legal_moves": self._legal_moves,
            "gojax-info": self._info,
            "gojax-warmup": self._warmup,
            "cputime": self._cputime,
        }

    # -- plumbing ----------------------------------------------------------------------------------

    @property
    def config(self) -> GoConfig:
        """The rules of the current game."""
        return self.game.config

    def _config(self, size: int, komi: float) -> GoConfig:
        cap = self._max_moves if self._max_moves is not None else min(32767, 4 * size * size)
        return GoConfig(size=size, komi=komi, ko_rule=self._ko_rule, suicide=self._suicide, max_moves=cap)

    def handle_line(self, line: str) -> str:
        """The framed reply to one input line (``""`` for a line GTP says to ignore). Never raises."""
        try:
            command = parse_command(line)
        except Exception:
            log.exception("cannot parse %r", line)
            return format_error(None, "syntax error")
        if command is None:
            return ""
        try:
            return format_success(command.id, self.execute(command.name, command.args))
        except CommandError as error:
            return format_error(command.id, str(error))
        except Exception as error:
            log.exception("command %r failed", line)
            return format_error(command.id, f"internal error: {type(error).__name__}: {error}")

    def execute(self, name: str, args: tuple[str, ...] = ()) -> str:
        """Runs one command and returns its response text.

        Raises:
          CommandError: with the GTP error message.
        """
        handler = self.commands.get(name)
        if handler is None:
            raise CommandError("unknown command")
        return handler(tuple(args))

    def send(self, command: str) -> str:
        """The response to ``command`` (as :meth:`gojax.gtp.GTPClient.send`); ``GTPError`` on failure."""
        reply = self.handle_line(command)
        if reply.startswith("?"):
            raise GTPError(command, reply[1:].split(" ", 1)[-1].strip())
        return reply[1:].strip()

    # -- administrative commands -------------------------------------------------------------------

    def _protocol_version(self, args):
        return "2"

    def _name(self, args):
        return self.name

    def _version(self, args):
        return f"{__version__} ({self.searcher.levels[0].label})"

    def _known_command(self, args):
        check_arity(args, 1, usage="known_command command_name")
        return "true" if args[0] in self.commands else "false"

    def _list_commands(self, args):
        return "\n".join(self.commands)

    def _quit(self, args):
        self.quit_requested = True
        return ""

    def _cputime(self, args):
        return f"{time.process_time():.3f}"

    # -- setup -------------------------------------------------------------------------------------

    def _boardsize(self, args):
        check_arity(args, 1, usage="boardsize size")
        size = int(parse_number(args[0], "size", integer=True))
        if not MIN_SIZE <= size <= MAX_SIZE or (self.fixed_size is not None and size != self.fixed_size):
            raise CommandError("unacceptable size")
        self.game = Game(self._config(size, self.config.komi))
        self._reset_clocks()
        return ""

    def _clear_board(self, args):
        self.game = Game(self._config(self.config.size, self.config.komi))
        self._reset_clocks()
        return ""

    def _komi(self, args):
        check_arity(args, 1, usage="komi value")
        komi = parse_number(args[0], "komi")
        self.game.with_config(dataclasses.replace(self.config, komi=komi))
        return ""

    def _reset_clocks(self):
        if self._time_settings is None:
            self.clocks = {BLACK: Clock(), WHITE: Clock()}
        else:
            self.clocks = {colour: Clock.from_settings(*self._time_settings) for colour in (BLACK, WHITE)}

    # -- moves -------------------------------------------------------------------------------------

    def _play(self, args):
        check_arity(args, 2, usage="play colour vertex")
        colour = parse_colour(args[0])
        action = parse_vertex(self.config, args[1])
        try:
            if action == "resign":
                self.game.resign(colour)
            else:
                self.game.play(colour, action)
        except IllegalMove as error:
            log.info("illegal move %s %s: %s", _NAME[colour], args[1], error.reason)
            raise CommandError("illegal move") from None
        except GameOver as error:
            raise CommandError(f"illegal move: {error}") from None
        return ""

    def _choose(self, colour: int, timed: bool) -> tuple[int, str]:
        """``(action, how)`` for ``colour`` (see :func:`~gojax.gtp._genmove.choose_move`)."""
        return choose_move(
            self.game,
            self.searcher,
            colour,
            self.clocks[colour] if timed else None,
            self._rng,
            pass_when_ahead=self.pass_when_ahead,
            allow_early_pass=self.allow_early_pass,
        )

    def _genmove(self, args):
        check_arity(args, 1, usage="genmove colour")
        colour = parse_colour(args[0])
        start = time.perf_counter()
        action, how = self._choose(colour, timed=True)
        try:
            self.game.play(colour, action)
        except GameOver:  # resigned, forfeited or capped: the pass stays off the board
            pass
        seconds = time.perf_counter() - start
        self.clocks[colour].spend(seconds)
        vertex = to_gtp(self.config, action)
        log.info("genmove %s: %s (%s; %.2f s)", _NAME[colour], vertex, how, seconds)
        return vertex

    def _reg_genmove(self, args):
        check_arity(args, 1, usage="reg_genmove colour")
        action, _ = self._choose(parse_colour(args[0]), timed=False)
        return to_gtp(self.config, action)

    def _undo(self, args):
        try:
            self.game.undo()
        except ValueError:
            raise CommandError("cannot undo") from None
        return ""

    # -- reading the game --------------------------------------------------------------------------

    def _showboard(self, args):
        game, state = self.game, self.game.state
        black, white = np.asarray(state.captures).tolist()
        status = "game over" if game.over else f"{_NAME[game.to_play]} to move"
        return (
            "\n"
            + render(self.config, state)
            + f"\n{status}; move {int(state.move_number)}; komi {self.config.komi:g}; "
            f"captures: black {black}, white {white}"
        )

    def _final_score(self, args):
        return self.game.result()

    def _final_status_list(self, args):
        check_arity(args, 1, usage="final_status_list alive|dead|seki")
        status = args[0].lower()
        if status not in ("alive", "dead", "seki"):
            raise CommandError(f"syntax error: invalid status {args[0]!r}")
        if status != "alive":
            return ""  # Tromp-Taylor: every stone on the board counts as alive
        points = np.flatnonzero(self.game.board().reshape(-1) != EMPTY)
        return " ".join(to_gtp(self.config, int(p)) for p in points)

    def _legal_moves(self, args):
        check_arity(args, 0, 1, usage="gojax-legal_moves [colour]")
        colour = parse_colour(args[0]) if args else self.game.to_play
        state = position_for(self.game, colour)
        if state is None or bool(state.done):
            return ""
        legal = self.game.legal_mask(state)[: self.config.pass_action]
        return " ".join(to_gtp(self.config, int(p)) for p in np.flatnonzero(legal))

    def _info(self, args):
        lines = [f"player: {self.player}; rules: {self.config}"]
        for index, level in enumerate(self.searcher.levels):
            estimate = self.searcher.estimate(self.config, index)
            seconds = "unknown" if estimate is None else f"{estimate:.3f} s"
            compiled = "compiled" if self.searcher.compiled(self.config, index) else "not compiled"
            lines.append(f"level {index}: {level.label}: {seconds}, {compiled}")
        for colour in (BLACK, WHITE):
            lines.append(f"clock {_NAME[colour]}: {self.clocks[colour]}")
        return "\n".join(lines)

    # -- SGF ---------------------------------------------------------------------------------------

    def _loadsgf(self, args):
        check_arity(args, 1, 2, usage="loadsgf filename [move_number]")
        from gojax.sgf import SGFError, read_sgf

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
        if self.fixed_size is not None and size != self.fixed_size:
            raise CommandError("unacceptable size")
        komi = self.config.komi if record.komi_recorded is None else record.config.komi
        try:
            game = Game.from_record(record, self._config(size, komi), limit)
        except (ValueError, GameOver) as error:
            raise CommandError(f"cannot load file: {error}") from None
        self.game = game
        self._reset_clocks()
        return ""

    def _printsgf(self, args):
        check_arity(args, 0, 1, usage="printsgf [filename]")
        from gojax.sgf import atomic_write, to_sgf

        game = self.game
        result = game.result() if game.over else None
        setup = game.setup if game.setup is not None and np.any(game.setup) else None
        text = to_sgf(game.config, game.played(), setup=setup, first_player=game.first_player, result=result)
        if args:
            try:
                atomic_write(args[0], text)
            except OSError as error:
                raise CommandError(f"cannot write file: {error.strerror or error}") from None
            return ""
        return text

    # -- time --------------------------------------------------------------------------------------

    def _time_settings_command(self, args):
        check_arity(args, 3, usage="time_settings main_time byo_yomi_time byo_yomi_stones")
        main = parse_number(args[0], "main_time")
        byo = parse_number(args[1], "byo_yomi_time")
        stones = int(parse_number(args[2], "byo_yomi_stones", integer=True))
        try:
            Clock.from_settings(main, byo, stones)
        except ValueError as error:
            raise CommandError(f"syntax error: {error}") from None
        self._set_time(main, byo, stones)
        return ""

    def _set_time(self, main: float, byo: float, stones: int) -> None:
        self._time_settings = (main, byo, stones)
        self._reset_clocks()
        self._warm_up_if_timed(self.clocks[BLACK])

    def _kgs_time_settings(self, args):
        usage = "kgs-time_settings none | absolute main | canadian main byo stones | byoyomi main period n"
        if not args:
            raise CommandError(f"syntax error: usage: {usage}")
        system = args[0].lower()
        values = [parse_number(word, "time") for word in args[1:]]
        if any(value < 0 for value in values):
            raise CommandError("syntax error: times must be >= 0")
        if system == "none" and not values:
            self._set_time(0, 1, 0)
        elif system == "absolute" and len(values) == 1:
            self._set_time(values[0], 0, 0)
        elif system == "canadian" and len(values) == 3:
            self._set_time(values[0], values[1], int(values[2]))
        elif system == "byoyomi" and len(values) == 3:
            self._set_time(values[0], values[1], 1)  # Japanese periods: one move per period (kept simple)
        else:
            raise CommandError(f"syntax error: usage: {usage}")
        return ""

    def _warm_up_if_timed(self, clock: Clock) -> None:
        """Compiles and times the player before the first timed move of a config (outside the clock)."""
        if clock.limited and self.warm_up_on_time_settings and self.config not in self._warmed:
            self._warm_up(clock.budget(self.config.num_points, int(self.game.state.move_number)))

    def _time_left(self, args):
        check_arity(args, 3, usage="time_left colour time stones")
        colour = parse_colour(args[0])
        seconds = parse_number(args[1], "time")
        stones = int(parse_number(args[2], "stones", integer=True))
        try:
            self.clocks[colour].set_left(seconds, stones)
        except ValueError as error:
            raise CommandError(f"syntax error: {error}") from None
        self._warm_up_if_timed(self.clocks[colour])
        return ""

    def _warm_up(self, max_seconds: float | None) -> None:
        start = time.perf_counter()
        try:
            self.game.warm_up()
            self.searcher.warm_up(self.config, self.game.state, max_seconds)
            self._warmed.add(self.config)
        except Exception:
            log.exception("warm-up failed; genmove will fall back when time is short")
        log.info("warm-up done in %.1f s", time.perf_counter() - start)

    def _warmup(self, args):
        self._warm_up(None)
        return self._info(())
