"""GTP coordinates (host side): ``"D4"`` and ``"pass"`` to and from actions.

GTP columns are letters from ``A`` skipping ``I``; rows are numbered from 1
at the **bottom**. Actions number points from the **top** row (SGF order), so
``A1`` on a 19x19 board is action ``18 * 19 = 342``.
"""

from __future__ import annotations

import operator

from gojax._core.types import GoConfig

__all__ = ["COLUMNS", "check_action", "from_gtp", "to_gtp", "vertex"]

COLUMNS = "ABCDEFGHJKLMNOPQRSTUVWXYZ"


def check_action(config: GoConfig, action) -> int:
    """Returns ``action`` as a Python int, or raises ``ValueError`` if not in ``[0, P]``."""
    try:
        value = operator.index(action)
    except TypeError:
        try:
            value = int(action)
        except (TypeError, ValueError):
            raise ValueError(f"action must be an integer, got {action!r}") from None
        if value != action:
            raise ValueError(f"action must be an integer, got {action!r}") from None
    if not 0 <= value <= config.num_points:
        raise ValueError(
            f"action {value} is out of range for a {config.size}x{config.size} board "
            f"(0..{config.num_points}, {config.num_points} is pass)"
        )
    return value


def from_gtp(config: GoConfig, vertex: str) -> int:
    """Action index of a GTP vertex such as ``"D4"`` (any case) or ``"pass"``.

    Raises:
      ValueError: naming the vertex, if it is not a vertex of this board.
    """
    if not isinstance(vertex, str):
        raise ValueError(f"GTP vertex must be a string, got {vertex!r}")
    text = vertex.strip().upper()
    if text == "PASS":
        return config.pass_action
    if text == "RESIGN":
        raise ValueError("'resign' is not an action: use gojax.resign(config, state)")
    size = config.size
    if len(text) < 2 or text[0] not in COLUMNS[:size] or not text[1:].isdigit():
        raise ValueError(
            f"invalid GTP vertex {vertex!r} for a {size}x{size} board "
            f"(columns {COLUMNS[0]}..{COLUMNS[size - 1]} without I, rows 1..{size})"
        )
    col = COLUMNS.index(text[0])
    number = int(text[1:])
    if not 1 <= number <= size:
        raise ValueError(f"invalid GTP vertex {vertex!r}: row {number} is not in 1..{size}")
    return (size - number) * size + col


def to_gtp(config: GoConfig, action) -> str:
    """GTP vertex of an action: ``"D4"`` or ``"pass"``.

    Raises:
      ValueError: if ``action`` is not an integer in ``[0, P]``.
    """
    return vertex(config.size, check_action(config, action))


def vertex(size: int, action: int) -> str:
    """GTP vertex of action ``action`` in ``[0, P]`` of an ``N x N`` board (``P`` is ``"pass"``).

    Unlike :func:`to_gtp` it does not check the action: for messages about
    actions already known to be on the board.
    """
    if action == size * size:
        return "pass"
    row, col = divmod(int(action), size)
    return f"{COLUMNS[col]}{size - row}"
