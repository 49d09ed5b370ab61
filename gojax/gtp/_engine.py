"""The GTP engine (host side): a :class:`~gojax.gtp._game.Game`, a player ladder and the GTP commands.

::

    engine = GTPEngine(GoConfig(size=9), PlayerSpec("uct", simulations=128))
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

import numpy as np

from gojax._core.types import BLACK, MAX_SIZE, MIN_SIZE, WHITE, GoConfig
from gojax._host.diagram import render
from gojax._host.vertices import to_gtp
from gojax._version import __version__
from gojax.gtp._analysis import _AnalysisCommands
from gojax.gtp._client import GTPError
from gojax.gtp._clock import Clock
from gojax.gtp._commands import _SgfCommands, _TimeCommands
from gojax.gtp._endgame import _EndgameCommands
from gojax.gtp._game import Game, GameOver, IllegalMove
from gojax.gtp._genmove import RESIGN, choose_move, position_for
from gojax.gtp._handicap import _HandicapCommands
from gojax.gtp._mcts import TreeSearcher
from gojax.gtp._players import Searcher, player_levels
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
from gojax.gtp._spec import EngineOptions, PlayerSpec

__all__ = ["GTPEngine"]

log = logging.getLogger("gojax.gtp")
_NAME = {BLACK: "black", WHITE: "white"}


class GTPEngine(_SgfCommands, _TimeCommands, _HandicapCommands, _EndgameCommands, _AnalysisCommands):
    """A GTP v2 engine playing gojax's rules with a gojax player.

    Args:
      rules: the rules at start (a controller's ``boardsize`` and ``komi``
        change the size and komi; the rest stays): ko rule, suicide, and
        ``max_moves``, the move cap after which the engine refuses moves
        (``None``: ``4 * N * N``, at most 32767, for every board size).
      player: the player behind ``genmove`` (:class:`~gojax.gtp.PlayerSpec`).
      options: the engine's behaviour (:class:`~gojax.gtp.EngineOptions`):
        its name, a custom level ladder, warm-up and passing.

    Raises:
      TypeError, ValueError: for bad arguments or a checkpoint that cannot be read.
    """

    def __init__(
        self,
        rules: GoConfig | None = None,
        player: PlayerSpec | None = None,
        options: EngineOptions | None = None,
    ):
        rules = GoConfig() if rules is None else rules
        player = PlayerSpec() if player is None else player
        options = EngineOptions() if options is None else options
        for name, value, kind in (
            ("rules", rules, GoConfig),
            ("player", player, PlayerSpec),
            ("options", options, EngineOptions),
        ):
            if not isinstance(value, kind):
                raise TypeError(f"GTPEngine {name} must be a {kind.__name__}, got {value!r}")
        self.name = options.name
        self.rules = rules
        self.spec = player
        self.options = options
        size, fixed_size = rules.size, None
        if options.levels is None and player.kind == "mcts":
            tree_searcher = TreeSearcher(player)
            self.searcher: Searcher = tree_searcher
            self.player = player.kind
            fixed_size = tree_searcher.board_size
        else:
            if options.levels is None:
                levels, fixed_size = player_levels(player)
                self.player = player.kind
            else:
                levels = list(options.levels)
                self.player = "custom"
            self.searcher = Searcher(levels, player.seed)
        self.fixed_size = fixed_size
        if fixed_size is not None:
            size = fixed_size
        self._rng = np.random.default_rng(player.seed + 1)
        self.warm_up_on_time_settings = options.warm_up
        self.pass_when_ahead = options.pass_when_ahead
        self.allow_early_pass = options.allow_early_pass
        self.game = Game(self._config(size, rules.komi))
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
            "fixed_handicap": self._fixed_handicap,
            "place_free_handicap": self._place_free_handicap,
            "set_free_handicap": self._set_free_handicap,
            "kgs-genmove_cleanup": self._kgs_genmove_cleanup,
            "list_stones": self._list_stones,
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
        self.commands.update(self._analysis_commands())

    # -- plumbing ----------------------------------------------------------------------------------

    def _config(self, size: int, komi: float) -> GoConfig:
        """The rules of a new game of this size and komi."""
        cap = self.rules.max_moves if self.rules.max_moves is not None else min(32767, 4 * size * size)
        return dataclasses.replace(self.rules, size=size, komi=komi, max_moves=cap)

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

    @property
    def seed(self) -> int:
        """The player's seed (also seeds the dead-stone playouts)."""
        return self.spec.seed

    def _choose(self, colour: int, timed: bool, cleanup: bool = False) -> tuple[int, str]:
        """``(action, how)`` for ``colour`` (see :func:`~gojax.gtp._genmove.choose_move`).

        ``cleanup`` (``kgs-genmove_cleanup``): no pass while dead opponent
        stones are on the board (see :mod:`gojax.gtp._endgame`).
        """
        action, how = choose_move(
            self.game,
            self.searcher,
            colour,
            self.clocks[colour] if timed else None,
            self._rng,
            pass_when_ahead=self.pass_when_ahead and not cleanup,
            allow_early_pass=self.allow_early_pass or cleanup,
            resign_threshold=None if cleanup else self.options.resign_threshold,
            resign_playouts=self.options.resign_playouts,
        )
        if cleanup and action == self.config.pass_action:
            capture = self.cleanup_move(colour)
            if capture is not None:
                action, how = capture, f"{how}; cleanup of dead stones instead"
        return action, how

    def _genmove(self, args):
        check_arity(args, 1, usage="genmove colour")
        return self._generate(parse_colour(args[0]), cleanup=False)

    def _generate(self, colour: int, *, cleanup: bool) -> str:
        """Chooses, plays and returns ``colour``'s move; its time goes on ``colour``'s clock."""
        start = self.time_source()
        action, how = self._choose(colour, timed=True, cleanup=cleanup)
        try:
            if action == RESIGN:
                self.game.resign(colour)
            else:
                self.game.play(colour, action)
        except GameOver:  # resigned, forfeited or capped: the pass stays off the board
            pass
        seconds = self.time_source() - start
        self.clocks[colour].spend(seconds)
        vertex = "resign" if action == RESIGN else to_gtp(self.config, action)
        log.info("genmove %s: %s (%s; %.2f s)", _NAME[colour], vertex, how, seconds)
        return vertex

    def _reg_genmove(self, args):
        check_arity(args, 1, usage="reg_genmove colour")
        action, _ = self._choose(parse_colour(args[0]), timed=False)
        return "resign" if action == RESIGN else to_gtp(self.config, action)

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
