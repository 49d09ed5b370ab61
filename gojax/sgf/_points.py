"""SGF values of the board: ``SZ`` sizes, move points and setup point lists (see :mod:`gojax.sgf`)."""

from __future__ import annotations

import re

from gojax._core.types import MAX_SIZE, MIN_SIZE
from gojax.sgf._parse import SGFError

__all__ = ["board_size", "move_action", "setup_points"]


def board_size(value: str | None, where: str, line: int) -> int:
    """The side of the board from ``SZ`` (19 when absent); :class:`SGFError` if not square or 2..25."""
    if value is None:
        return 19
    parts = [part.strip() for part in value.split(":")]
    if len(parts) > 2 or not all(re.fullmatch("[0-9]{1,6}", part) for part in parts):
        raise SGFError(f"{where}: line {line}: SZ[{value}] is not a board size")
    sizes = [int(part) for part in parts]
    if len(sizes) == 2 and sizes[0] != sizes[1]:
        raise SGFError(f"{where}: line {line}: SZ[{value}]: gojax plays on square boards only")
    size = sizes[0]
    if not MIN_SIZE <= size <= MAX_SIZE:
        raise SGFError(
            f"{where}: line {line}: SZ[{value}]: gojax plays on boards from {MIN_SIZE}x{MIN_SIZE} "
            f"to {MAX_SIZE}x{MAX_SIZE}"
        )
    return size


def _coordinate(letter: int) -> int:
    """0-based index of an SGF coordinate letter (``a``-``z``, then ``A``-``Z``), or -1."""
    if 97 <= letter <= 122:
        return letter - 97
    if 65 <= letter <= 90:
        return letter - 65 + 26
    return -1


def _point(raw: bytes, size: int, where: str, what: str) -> int:
    """The point of a two-letter SGF coordinate (column, then row from the top)."""
    if len(raw) != 2:
        raise SGFError(f"{where}: {what}[{_show(raw)}] is not a point (two letters, column then row)")
    col, row = _coordinate(raw[0]), _coordinate(raw[1])
    if not (0 <= col < size and 0 <= row < size):
        raise SGFError(
            f"{where}: {what}[{_show(raw)}] is off the {size}x{size} board "
            f"(columns and rows a..{chr(97 + size - 1) if size <= 26 else 'Z'})"
        )
    return row * size + col


def _show(raw: bytes) -> str:
    return raw.decode("latin-1")[:20]


def _unescape(raw: bytes) -> bytes:
    return re.sub(rb"\\(.)", rb"\1", raw, flags=re.DOTALL).strip()


def move_action(raw: bytes, size: int, where: str, what: str) -> int:
    """The action of a ``B``/``W`` value: ``row * N + col``, or ``P`` for ``[]`` (``[tt]`` up to 19x19)."""
    value = _unescape(raw)
    if value == b"" or (value == b"tt" and size <= 19):
        return size * size
    return _point(value, size, where, what)


def setup_points(raw: bytes, size: int, where: str, line: int, ident: str) -> list[int]:
    """The points of one value of a point list: ``aa`` or a rectangle ``aa:cc``."""
    value = _unescape(raw)
    what = f"line {line}: {ident}"
    if b":" not in value:
        return [_point(value, size, where, what)]
    first, _, last = value.partition(b":")
    a, b = _point(first.strip(), size, where, what), _point(last.strip(), size, where, what)
    rows = range(min(a // size, b // size), max(a // size, b // size) + 1)
    cols = range(min(a % size, b % size), max(a % size, b % size) + 1)
    return [r * size + c for r in rows for c in cols]
