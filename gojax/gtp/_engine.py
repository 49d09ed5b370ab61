"""The GTP engine (host side): a :class:`~gojax.gtp.Game`, a player, clocks, and the command table.

::

    engine = GTPEngine(GoConfig(size=9), PlayerSpec("uct", simulations=128))
    engine.handle_line("1 genmove b")       # '=1 E5\\n\\n'
    engine.send("play w C3")                 # '' (GTPError on a '?' reply), as gojax.arena.GTPClient.send

Every input line gets exactly one framed reply (or none for an empty or
comment line); no input line can raise out of :meth:`GTPEngine.handle_line`:
a failure is a ``?`` reply (``unknown command``, ``syntax error: ...``,
``illegal move``, ``unacceptable size``, ``cannot undo``, ...). A command
runs the handler the command table (:data:`~gojax.gtp._commands.COMMANDS`)
lists under its name; the engine holds the state the handlers share.

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
from collections.abc import Callable

import numpy as np

from gojax._core.types import BLACK, WHITE, GoConfig
from gojax.gtp import _analysis, _endgame
from gojax.gtp._clock import Clock
from gojax.gtp._commands import COMMANDS
from gojax.gtp._game import Game
from gojax.gtp._mcts import TreeSearcher
from gojax.gtp._players import Searcher, player_levels
from gojax.gtp._protocol import (
    Command,
    CommandError,
    GTPError,
    format_error,
    format_success,
    parse_command,
)
from gojax.gtp._spec import EngineOptions, PlayerSpec
from gojax.gtp._status import PLAYOUTS, Status

__all__ = ["GTPEngine"]

log = logging.getLogger("gojax.gtp")


class GTPEngine:
    """A GTP v2 engine playing gojax's rules with a gojax player.

    Args:
      rules: the rules at start (a controller's ``boardsize`` and ``komi``
        change the size and komi; the rest stays): ko rule, suicide, and
        ``max_moves``, the move cap after which the engine refuses moves
        (``None``: gojax's default ``2 * N * N`` for every board size,
        :data:`gojax.MOVE_CAP_PER_POINT`).
      player: the player behind ``genmove`` (:class:`~gojax.gtp.PlayerSpec`).
      options: the engine's behaviour (:class:`~gojax.gtp.EngineOptions`):
        its name, a custom level ladder, warm-up and passing.

    Attributes:
      game: the current :class:`~gojax.gtp.Game`.
      clocks: ``{1: Clock, 2: Clock}``, black's and white's clocks.
      searcher: the player's level ladder (the tree search for ``mcts``).
      status_playouts: playouts per colour of the dead-stone judgement.
      quit_requested: ``True`` after ``quit``.

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
            timed = player.seconds_per_move if player.kind == "az" and options.levels is None else None
            self.searcher = Searcher(levels, player.seed, seconds_per_move=timed)
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
        self.status_playouts = PLAYOUTS
        self._judged: tuple[tuple, Status] | None = None

    # -- state the command handlers share ----------------------------------------------------------

    @property
    def config(self) -> GoConfig:
        """The rules of the current game."""
        return self.game.config

    @property
    def seed(self) -> int:
        """The player's seed (also seeds the dead-stone playouts)."""
        return self.spec.seed

    @property
    def time_source(self) -> Callable[[], float]:
        """The engine's time source (seconds; ``time.monotonic``), shared with its searcher.

        ``genmove`` charges the time it took by this source to the mover's
        clock, and the searcher times its levels and cuts a late search off
        by it. Set another (e.g. a clock a test advances by hand) with
        ``engine.time_source = now``.
        """
        return self.searcher.now

    @time_source.setter
    def time_source(self, now: Callable[[], float]) -> None:
        self.searcher.now = now

    def _config(self, size: int, komi: float) -> GoConfig:
        """The rules of a new game of this size and komi."""
        return dataclasses.replace(self.rules, size=size, komi=komi)

    def _reset_clocks(self) -> None:
        """Fresh clocks for a new game (under the last time settings, if any)."""
        if self._time_settings is None:
            self.clocks = {BLACK: Clock(), WHITE: Clock()}
        else:
            self.clocks = {colour: Clock.from_settings(*self._time_settings) for colour in (BLACK, WHITE)}

    # -- commands ----------------------------------------------------------------------------------

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
        """Runs one command of the command table and returns its response text.

        Raises:
          CommandError: with the GTP error message (``unknown command`` for a
            name the table does not list).
        """
        handler = COMMANDS.get(name)
        if handler is None:
            raise CommandError("unknown command")
        return handler(self, tuple(args))

    def send(self, command: str) -> str:
        """The response to ``command`` (as :meth:`gojax.arena.GTPClient.send`); ``GTPError`` on failure."""
        reply = self.handle_line(command)
        if reply.startswith("?"):
            raise GTPError(command, reply[1:].split(" ", 1)[-1].strip())
        return reply[1:].strip()

    def analyze(
        self, command: Command, write: Callable[[str], None], should_stop: Callable[[], bool]
    ) -> None:
        """Runs a streaming analysis command and writes its whole framed reply.

        See :func:`gojax.gtp._analysis.analyze` (``lz-analyze``, ``kata-analyze``
        and their ``*-genmove_analyze``; the console loop of ``gojax-gtp``).
        """
        _analysis.analyze(self, command, write, should_stop)

    def status(self) -> Status:
        """The engine's judgement of the current board (cached per board, size and seed)."""
        return _endgame.status(self)

    def cleanup_move(self, colour: int) -> int | None:
        """A move of ``colour`` against the opponent's dead stones, or ``None`` (``kgs-genmove_cleanup``)."""
        return _endgame.cleanup_move(self, colour)
