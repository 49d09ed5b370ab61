"""The time commands of the engine (host side): time controls, the player's warm-up, its levels.

* ``time_settings main byo_yomi_time byo_yomi_stones`` (GTP's Canadian
  byo-yomi, see :class:`~gojax.gtp.Clock`) and ``kgs-time_settings none |
  absolute main | canadian main byo stones | byoyomi main period n`` set
  both clocks; ``time_left colour time stones`` sets one.
* The first time a limit applies to a rules config, the player is compiled
  and timed before the clock runs (the warm-up, unless
  ``EngineOptions.warm_up`` is off); ``gojax-warmup`` does it at once.
* ``gojax-info`` lists the player, the rules, each level's measured time
  and whether it is compiled, and both clocks.
"""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from gojax._core.types import BLACK, WHITE
from gojax.gtp._clock import Clock
from gojax.gtp._protocol import CommandError, check_arity, parse_colour, parse_number

if TYPE_CHECKING:
    from gojax.gtp._engine import GTPEngine

__all__ = ["info", "kgs_time_settings", "time_left", "time_settings", "warmup"]

log = logging.getLogger("gojax.gtp")
_NAME = {BLACK: "black", WHITE: "white"}
_KGS_USAGE = "kgs-time_settings none | absolute main | canadian main byo stones | byoyomi main period n"


def time_settings(engine: GTPEngine, args: tuple[str, ...]) -> str:
    check_arity(args, 3, usage="time_settings main_time byo_yomi_time byo_yomi_stones")
    main = parse_number(args[0], "main_time")
    byo = parse_number(args[1], "byo_yomi_time")
    stones = int(parse_number(args[2], "byo_yomi_stones", integer=True))
    try:
        Clock.from_settings(main, byo, stones)
    except ValueError as error:
        raise CommandError(f"syntax error: {error}") from None
    _set_time(engine, main, byo, stones)
    return ""


def _set_time(engine: GTPEngine, main: float, byo: float, stones: int) -> None:
    engine._time_settings = (main, byo, stones)
    engine._reset_clocks()
    _warm_up_if_timed(engine, engine.clocks[BLACK])


def kgs_time_settings(engine: GTPEngine, args: tuple[str, ...]) -> str:
    if not args:
        raise CommandError(f"syntax error: usage: {_KGS_USAGE}")
    system = args[0].lower()
    values = [parse_number(word, "time") for word in args[1:]]
    if any(value < 0 for value in values):
        raise CommandError("syntax error: times must be >= 0")
    if system == "none" and not values:
        _set_time(engine, 0, 1, 0)
    elif system == "absolute" and len(values) == 1:
        _set_time(engine, values[0], 0, 0)
    elif system == "canadian" and len(values) == 3:
        _set_time(engine, values[0], values[1], int(values[2]))
    elif system == "byoyomi" and len(values) == 3:
        _set_time(engine, values[0], values[1], 1)  # Japanese periods: one move per period (kept simple)
    else:
        raise CommandError(f"syntax error: usage: {_KGS_USAGE}")
    return ""


def time_left(engine: GTPEngine, args: tuple[str, ...]) -> str:
    check_arity(args, 3, usage="time_left colour time stones")
    colour = parse_colour(args[0])
    seconds = parse_number(args[1], "time")
    stones = int(parse_number(args[2], "stones", integer=True))
    try:
        engine.clocks[colour].set_left(seconds, stones)
    except ValueError as error:
        raise CommandError(f"syntax error: {error}") from None
    _warm_up_if_timed(engine, engine.clocks[colour])
    return ""


def _warm_up_if_timed(engine: GTPEngine, clock: Clock) -> None:
    """Compiles and times the player before the first timed move of a config (outside the clock)."""
    config = engine.config
    if clock.limited and engine.warm_up_on_time_settings and config not in engine._warmed:
        _warm_up(engine, clock.budget(config.num_points, int(engine.game.state.move_number)))


def _warm_up(engine: GTPEngine, max_seconds: float | None) -> None:
    start = time.perf_counter()
    try:
        engine.game.warm_up()
        engine.searcher.warm_up(engine.config, engine.game.state, max_seconds)
        engine._warmed.add(engine.config)
    except Exception:
        log.exception("warm-up failed; genmove will fall back when time is short")
    log.info("warm-up done in %.1f s", time.perf_counter() - start)


def warmup(engine: GTPEngine, args: tuple[str, ...]) -> str:
    _warm_up(engine, None)
    return info(engine, ())


def info(engine: GTPEngine, args: tuple[str, ...]) -> str:
    config, searcher = engine.config, engine.searcher
    lines = [f"player: {engine.player}; rules: {config}"]
    for index, level in enumerate(searcher.levels):
        estimate = searcher.estimate(config, index)
        seconds = "unknown" if estimate is None else f"{estimate:.3f} s"
        compiled = "compiled" if searcher.compiled(config, index) else "not compiled"
        lines.append(f"level {index}: {level.label}: {seconds}, {compiled}")
    for colour in (BLACK, WHITE):
        lines.append(f"clock {_NAME[colour]}: {engine.clocks[colour]}")
    return "\n".join(lines)
