"""Handicap stones: GTP's ``fixed_handicap``, ``place_free_handicap`` and ``set_free_handicap`` (host side).

* ``fixed_handicap n`` puts ``n`` black stones on the traditional star
  points (:func:`fixed_points`): the 3-3 points on boards up to 11x11, the
  4-4 points from 12x12 on, then the sides' and the centre's star points; 2
  to 9 stones on odd boards from 9x9, 2 to 4 on 7x7 and even boards. Other
  requests fail with ``invalid number of stones``. This is the GTP v2
  layout, and the one GNU Go places.
* ``place_free_handicap n`` lets the engine choose (:func:`free_points`):
  the fixed layout where there is one for ``n``, else well spread points on
  the third or fourth line and inward, never next to another handicap stone.
  On a crowded small board it may place fewer stones than asked (GTP allows
  this); the reply lists the stones placed.
* ``set_free_handicap v1 v2 ...`` takes the controller's points: at least 2,
  at most ``P - 1``, no repeat, no ``pass``.

All three need an empty board (``board not empty`` otherwise). The stones
become the game's setup position (SGF ``AB``, with ``HA[n]`` and white to
play first, as ``printsgf`` writes it); the game's moves start after them,
so ``undo`` cannot take them back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gojax._core.types import BLACK, EMPTY, WHITE
from gojax._host.diagram import from_board
from gojax._host.vertices import to_gtp
from gojax.gtp._game import Game
from gojax.gtp._protocol import CommandError, check_arity, parse_number, parse_vertex

if TYPE_CHECKING:
    from gojax.gtp._engine import GTPEngine

__all__ = [
    "fixed_handicap",
    "fixed_points",
    "free_points",
    "max_fixed",
    "place_free_handicap",
    "set_free_handicap",
]

MIN_STONES = 2


def max_fixed(size: int) -> int:
    """The most stones ``fixed_handicap`` places on a ``size`` board (0: none below 7x7)."""
    if size < 7:
        return 0
    return 9 if size % 2 and size >= 9 else 4


def _point(size: int, col: int, row: int) -> int:
    """Flat index of column ``col`` and row ``row`` counted from the bottom (GTP's ``A1`` is ``0, 0``)."""
    return (size - 1 - row) * size + col


def fixed_points(size: int, count: int) -> list[int]:
    """The flat points (row 0 at the top) of ``count`` fixed handicap stones on a ``size`` board.

    Raises:
      ValueError: when the board has no fixed layout for ``count`` stones.
    """
    if not MIN_STONES <= count <= max_fixed(size):
        raise ValueError(
            f"no fixed handicap of {count} stones on {size}x{size} (2..{max_fixed(size)} are defined)"
            if max_fixed(size)
            else f"no fixed handicap on {size}x{size} (boards from 7x7 have one)"
        )
    low = 2 if size <= 11 else 3
    high, mid = size - 1 - low, size // 2
    corners = [(high, high), (low, low), (low, high), (high, low)]
    layout = {
        2: corners[:2],
        3: corners[:3],
        4: corners,
        5: [*corners, (mid, mid)],
        6: [*corners, (low, mid), (high, mid)],
        7: [*corners, (low, mid), (high, mid), (mid, mid)],
        8: [*corners, (low, mid), (high, mid), (mid, low), (mid, high)],
        9: [*corners, (low, mid), (high, mid), (mid, low), (mid, high), (mid, mid)],
    }[count]
    return [_point(size, col, row) for col, row in layout]


def free_points(size: int, count: int) -> list[int]:
    """The engine's own choice of ``count`` handicap points (the module docstring); may be fewer.

    The fixed layout when it has ``count`` stones; otherwise points are added
    one by one, each the empty point farthest (by the sum of its distances)
    from the stones already placed among those at least ``min(3, N // 3)``
    lines from the edge where possible, never next to a placed stone.
    """
    if count <= max_fixed(size):
        return fixed_points(size, count)
    chosen = fixed_points(size, max_fixed(size)) if max_fixed(size) else []
    rows, cols = np.divmod(np.arange(size * size), size)
    line = np.minimum(np.minimum(rows, cols), np.minimum(size - 1 - rows, size - 1 - cols))
    inward = min(2, (size - 1) // 3)
    while len(chosen) < count:
        taken = np.zeros(size * size, bool)
        for point in chosen:
            row, col = divmod(point, size)
            near = (np.abs(rows - row) + np.abs(cols - col)) <= 1
            taken |= near
        free = ~taken
        preferred = free & (line >= inward)
        candidates = np.flatnonzero(preferred if preferred.any() else free)
        if not candidates.size:
            break
        if chosen:
            placed = np.asarray(chosen)
            prow, pcol = np.divmod(placed, size)
            gaps = np.abs(rows[candidates, None] - prow) + np.abs(cols[candidates, None] - pcol)
            score = gaps.min(axis=1) * 1000 + gaps.sum(axis=1)
        else:
            centre = (size - 1) / 2
            score = -(np.abs(rows[candidates] - centre) + np.abs(cols[candidates] - centre))
        chosen.append(int(candidates[np.argmax(score)]))
    return chosen


def _start_handicap(engine: GTPEngine, points: list[int]) -> str:
    """Starts the game from black stones on ``points`` (white to play); the reply lists them."""
    config = engine.config
    grid = np.zeros(config.num_points, np.int8)
    grid[points] = BLACK
    try:
        start = from_board(config, grid.reshape(config.size, config.size), to_play=WHITE)
    except ValueError as error:
        raise CommandError(f"bad vertex list: {error}") from None
    game = Game(config, start)
    game.handicap = len(points)
    engine.game = game
    return " ".join(to_gtp(config, point) for point in points)


def _check_empty(engine: GTPEngine) -> None:
    if np.any(engine.game.board() != EMPTY):
        raise CommandError("board not empty")


def _stone_count(engine: GTPEngine, args: tuple[str, ...], usage: str) -> int:
    check_arity(args, 1, usage=usage)
    count = int(parse_number(args[0], "number_of_stones", integer=True))
    _check_empty(engine)
    if count < MIN_STONES:
        raise CommandError(f"invalid number of stones: {count} (at least {MIN_STONES})")
    return count


def fixed_handicap(engine: GTPEngine, args: tuple[str, ...]) -> str:
    count = _stone_count(engine, args, "fixed_handicap number_of_stones")
    try:
        points = fixed_points(engine.config.size, count)
    except ValueError as error:
        raise CommandError(f"invalid number of stones: {error}") from None
    return _start_handicap(engine, points)


def place_free_handicap(engine: GTPEngine, args: tuple[str, ...]) -> str:
    count = _stone_count(engine, args, "place_free_handicap number_of_stones")
    if count > engine.config.num_points - 1:
        raise CommandError(f"invalid number of stones: {count} (at most {engine.config.num_points - 1})")
    return _start_handicap(engine, free_points(engine.config.size, count))


def set_free_handicap(engine: GTPEngine, args: tuple[str, ...]) -> str:
    config = engine.config
    if not args:
        raise CommandError("syntax error: usage: set_free_handicap vertex vertex ...")
    points: list[int] = []
    for word in args:
        action = parse_vertex(config, word)
        if action == "resign" or action == config.pass_action:
            raise CommandError(f"bad vertex list: {word} is not a point")
        if action in points:
            raise CommandError(f"bad vertex list: {word} is repeated")
        points.append(int(action))
    _check_empty(engine)
    if not MIN_STONES <= len(points) <= config.num_points - 1:
        raise CommandError(
            f"bad vertex list: {len(points)} stones (from {MIN_STONES} to {config.num_points - 1})"
        )
    _start_handicap(engine, points)
    return ""
