"""The SGF and time commands of :class:`~gojax.gtp.GTPEngine` (mixins of the engine class, host side).

* ``loadsgf file [move_number]``, ``printsgf [file]`` (:class:`_SgfCommands`);
* ``time_settings``, ``kgs-time_settings``, ``time_left``, ``gojax-warmup``
  and the warm-up before the first timed move (:class:`_TimeCommands`).

Both read and set the engine's game, clocks and searcher (declared in
:class:`_EngineParts`).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from gojax._core.types import BLACK, WHITE, GoConfig
from gojax._host.atomic import atomic_write
from gojax.gtp._clock import Clock
from gojax.gtp._game import Game, GameOver
from gojax.gtp._players import Searcher
from gojax.gtp._protocol import CommandError, check_arity, parse_colour, parse_number
from gojax.sgf import SGFError, read_sgf, to_sgf

__all__: list[str] = []

log = logging.getLogger("gojax.gtp")


class _EngineParts:
    """What the command mixins use of the engine."""

    game: Game
    fixed_size: int | None
    clocks: dict[int, Clock]
    searcher: Searcher
    warm_up_on_time_settings: bool
    _time_settings: tuple[float, float, int] | None
    _warmed: set[GoConfig]

    @property
    def config(self) -> GoConfig:
        """The rules of the current game."""
        return self.game.config

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

    if TYPE_CHECKING:

        def _config(self, size: int, komi: float) -> GoConfig: ...

        def _info(self, args: tuple[str, ...]) -> str: ...

    def _reset_clocks(self) -> None:
        if self._time_settings is None:
            self.clocks = {BLACK: Clock(), WHITE: Clock()}
        else:
            self.clocks = {colour: Clock.from_settings(*self._time_settings) for colour in (BLACK, WHITE)}


class _SgfCommands(_EngineParts):
    """``loadsgf`` and ``printsgf``."""

    def _loadsgf(self, args):
        check_arity(args, 1, 2, usage="loadsgf filename [move_number]")
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
        game = self.game
        result = game.result() if game.over else None
        setup = game.setup if game.setup is not None and np.any(game.setup) else None
        metadata = {"HA": str(game.handicap)} if game.handicap else None
        text = to_sgf(
            game.config,
            game.played(),
            setup=setup,
            first_player=game.first_player,
            result=result,
            metadata=metadata,
        )
        if args:
            try:
                atomic_write(args[0], text)
            except OSError as error:
                raise CommandError(f"cannot write file: {error.strerror or error}") from None
            return ""
        return text


class _TimeCommands(_EngineParts):
    """``time_settings``, ``kgs-time_settings``, ``time_left``, ``gojax-warmup``."""

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
