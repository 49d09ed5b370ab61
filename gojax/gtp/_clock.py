"""GTP time controls (host side): one clock per colour and the time to spend on a move.

GTP's ``time_settings main_time byo_yomi_time byo_yomi_stones`` describes
Canadian byo-yomi: after the main time, each period of ``byo_yomi_time``
seconds must hold ``byo_yomi_stones`` moves. ``byo_yomi_time = 0`` is
absolute time (main time only); ``byo_yomi_time > 0`` with
``byo_yomi_stones = 0`` means **no time limit** (the default of an engine
before any ``time_settings``). ``time_left colour time stones`` reports a
clock: ``stones = 0`` means ``time`` is main time left, otherwise ``time``
seconds are left for ``stones`` moves of the current period.

:meth:`Clock.budget` is the most a move may take: a share of the main time
(the time left over the moves still expected), never more than half of it
under absolute time, or a safe fraction of the byo-yomi period per stone.
"""

from __future__ import annotations

import dataclasses
import math

__all__ = ["Clock", "expected_moves_left"]

_SAFETY = 0.85  # fraction of the computed share actually used
_LATENCY = 0.05  # seconds kept for the controller's round trip


def expected_moves_left(num_points: int, move_number: int) -> float:
    """Moves one player still expects to make: half of ``0.9 P`` minus the moves so far, at least 8."""
    return max(8.0, (0.9 * num_points - move_number) / 2.0)


@dataclasses.dataclass
class Clock:
    """One colour's clock (seconds).

    Attributes:
      limited: ``False`` until a ``time_settings`` with a limit.
      main: main time left.
      byo_time: length of a byo-yomi period (0: absolute time).
      byo_stones: moves per period.
      in_byoyomi: whether the main time is over.
      period_left: time left in the current period.
      stones_left: moves still due in the current period.
    """

    limited: bool = False
    main: float = 0.0
    byo_time: float = 0.0
    byo_stones: int = 0
    in_byoyomi: bool = False
    period_left: float = 0.0
    stones_left: int = 0

    @classmethod
    def from_settings(cls, main_time: float, byo_yomi_time: float, byo_yomi_stones: int) -> Clock:
        """A fresh clock for ``time_settings``.

        Raises:
          ValueError: for negative or non-finite values.
        """
        values = (main_time, byo_yomi_time, byo_yomi_stones)
        if any(not math.isfinite(v) or v < 0 for v in values):
            raise ValueError(f"time settings must be finite and >= 0, got {values}")
        if byo_yomi_time > 0 and byo_yomi_stones == 0:
            return cls()
        clock = cls(limited=True, main=float(main_time), byo_time=float(byo_yomi_time))
        clock.byo_stones = int(byo_yomi_stones) if byo_yomi_time > 0 else 0
        if clock.main <= 0 and clock.byo_stones > 0:
            clock.in_byoyomi, clock.period_left, clock.stones_left = True, clock.byo_time, clock.byo_stones
        return clock

    def set_left(self, time_left: float, stones: int) -> None:
        """``time_left``: ``stones == 0`` gives main time left, else the period's time and stones."""
        if not math.isfinite(time_left) or stones < 0:
            raise ValueError(f"time_left needs a finite time and stones >= 0, got {time_left}, {stones}")
        self.limited = True
        if stones == 0:
            self.in_byoyomi, self.main = False, max(0.0, float(time_left))
        else:
            self.in_byoyomi, self.period_left, self.stones_left = True, max(0.0, float(time_left)), stones

    def budget(self, num_points: int, move_number: int) -> float | None:
        """Seconds this move may take (``None``: no limit; never negative)."""
        if not self.limited:
            return None
        if self.in_byoyomi:
            share = self.period_left / max(1, self.stones_left)
        else:
            share = self.main / expected_moves_left(num_points, move_number)
            if self.byo_stones > 0:
                per_stone = self.byo_time / self.byo_stones
                share = min(max(share, per_stone), self.main + per_stone)
            else:
                share = min(share, 0.5 * self.main)
        return max(0.0, share * _SAFETY - _LATENCY)

    def spend(self, seconds: float) -> None:
        """Counts ``seconds`` spent on one move (until the controller's next ``time_left``)."""
        if not self.limited:
            return
        if not self.in_byoyomi:
            self.main -= seconds
            if self.main >= 0 or self.byo_stones == 0:
                self.main = max(self.main, 0.0)
                return
            seconds, self.main = -self.main, 0.0
            self.in_byoyomi, self.period_left, self.stones_left = True, self.byo_time, self.byo_stones
        self.period_left -= seconds
        self.stones_left -= 1
        if self.stones_left <= 0 and self.byo_stones > 0:
            self.period_left, self.stones_left = self.byo_time, self.byo_stones
