"""Game results as text (host side): ``"B+3.5"``, ``"W+R"``, ``"B+F"``, ``"0"``, and back.

The strings are SGF's ``RE`` values and GTP's ``final_score`` replies::

    format_margin(3.5)                    # "B+3.5" (black - white - komi > 0), "W+12", "0"
    result_string(config, state)          # "W+R" resignation, "B+F" forfeit, "B+3.5", None if running
    parse_result("W+Resign")              # Result(winner=2, margin=None, reason="R")
    winner_of_result("B+3.5")             # 1 black, 2 white, 0 draw, None unknown
"""

from __future__ import annotations

import re
from typing import NamedTuple

import numpy as np

from gojax._core.types import BLACK, EMPTY, WHITE, GoConfig, GoState
from gojax._host.compiled import score

__all__ = ["Result", "format_margin", "parse_result", "result_string", "winner_of_result"]

_LETTER = {BLACK: "B", WHITE: "W"}
_WINNER = {"B": BLACK, "W": WHITE}
_DRAWS = frozenset({"0", "0.0", "DRAW", "JIGO", "D"})
_REASONS = {"R": "R", "RESIGN": "R", "T": "T", "TIME": "T", "F": "F", "FORFEIT": "F"}
_NUMBER = re.compile(r"\d+(?:\.\d*)?|\.\d+")


class Result(NamedTuple):
    """A result string read back by :func:`parse_result`.

    Attributes:
      winner: 1 black, 2 white, 0 draw, ``None`` when the text names none.
      margin: ``black - white - komi`` of a scored game (``0.0`` for a draw),
        ``None`` when the text gives no score.
      reason: ``"R"`` resignation, ``"T"`` time, ``"F"`` forfeit, else ``None``.
    """

    winner: int | None
    margin: float | None
    reason: str | None


def format_margin(margin: float) -> str:
    """The result of a score ``black - white - komi``: ``"B+3.5"``, ``"W+12"``, ``"0"``."""
    margin = float(margin)
    if margin == 0:
        return "0"
    return f"{'B' if margin > 0 else 'W'}+{abs(margin):g}"


def result_string(config: GoConfig, state: GoState, *, adjudicate: bool = False) -> str | None:
    """The result of one game: ``"B+3.5"``, ``"W+R"`` (resignation), ``"B+F"`` (forfeit), ``"0"``.

    Args:
      config: the rules (its komi scores the game).
      state: one ``GoState`` (not batched).
      adjudicate: score a game that is not terminated (truncated by the move
        cap, or still running) instead of returning ``None``.
    """
    terminated = bool(np.asarray(state.terminated))
    loser = int(np.asarray(state.loser))
    if terminated and loser in (BLACK, WHITE):
        how = "F" if bool(np.asarray(state.illegal_move)) else "R"
        return f"{_LETTER[BLACK + WHITE - loser]}+{how}"
    if not terminated and not adjudicate:
        return None
    return format_margin(score(config, state))


def parse_result(text: str | None) -> Result:
    """Reads a result string (any case; only its first word counts).

    ``"B+3.5"`` is ``Result(1, 3.5, None)``, ``"W+2"`` ``Result(2, -2.0, None)``,
    ``"W+R"``/``"W+Resign"`` ``Result(2, None, "R")`` (likewise ``T``/``Time``
    and ``F``/``Forfeit``), ``"B+"`` ``Result(1, None, None)``, ``"0"``/``"Draw"``/
    ``"Jigo"`` ``Result(0, 0.0, None)``; anything else (``"Void"``, ``"?"``,
    ``None``) ``Result(None, None, None)``.
    """
    words = (text or "").strip().upper().split()
    word = words[0] if words else ""
    if word in _DRAWS:
        return Result(EMPTY, 0.0, None)
    if len(word) < 2 or word[0] not in _WINNER or word[1] != "+":
        return Result(None, None, None)
    winner, rest = _WINNER[word[0]], word[2:]
    if _NUMBER.fullmatch(rest):
        value = float(rest)
        return Result(winner, value if winner == BLACK else -value, None)
    return Result(winner, None, _REASONS.get(rest))


def winner_of_result(result: str | None) -> int | None:
    """1 for ``"B+..."``, 2 for ``"W+..."``, 0 for a draw (``"0"``, ``"Draw"``, ``"Jigo"``), else ``None``."""
    return parse_result(result).winner
