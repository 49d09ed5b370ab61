"""Colours of the SVG pictures: the board's palette and the heatmap scales."""

from __future__ import annotations

import numpy as np

from gojax._core.types import BLACK, EMPTY, WHITE

__all__ = [
    "INK",
    "STONE_CLASS",
    "STONE_FILL",
    "STONE_TEXT",
    "WOOD",
    "heat_colour",
    "heat_in_percent",
    "heat_label",
    "heat_scale",
    "ink_on",
]

WOOD = "#dcb35c"
INK = "#2b2b2b"
STONE_FILL = {BLACK: "#111111", WHITE: "#f7f7f2"}
STONE_TEXT = {BLACK: "#f7f7f2", WHITE: "#111111", EMPTY: "#111111"}
STONE_CLASS = {BLACK: "stone black", WHITE: "stone white"}
# Sequential ramp (light yellow -> orange -> dark red) and diverging ends (blue, red).
_RAMP = ((255, 255, 204), (253, 141, 60), (189, 0, 38))
_BLUE, _WHITE_RGB, _RED = (33, 102, 172), (247, 247, 247), (178, 24, 43)


def _mix(a, b, t: float) -> tuple[int, int, int]:
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b, strict=True))


def heat_colour(value: float, low: float, high: float, diverging: bool) -> str:
    """``#rrggbb`` of ``value`` on the scale ``low..high`` (blue-white-red if ``diverging``)."""
    if diverging:
        t = 0.0 if high == low else (value - low) / (high - low) * 2 - 1  # -1 .. 1
        t = min(1.0, max(-1.0, t))
        rgb = _mix(_WHITE_RGB, _RED, t) if t >= 0 else _mix(_WHITE_RGB, _BLUE, -t)
    else:
        t = 0.0 if high == low else min(1.0, max(0.0, (value - low) / (high - low)))
        rgb = _mix(_RAMP[0], _RAMP[1], t * 2) if t < 0.5 else _mix(_RAMP[1], _RAMP[2], t * 2 - 1)
    return "#{:02x}{:02x}{:02x}".format(*rgb)


def ink_on(fill: str) -> str:
    """Dark text on a light fill, white text on a dark one (by luma)."""
    red, green, blue = (int(fill[i : i + 2], 16) for i in (1, 3, 5))
    return INK if 0.299 * red + 0.587 * green + 0.114 * blue > 140 else "#ffffff"


def heat_scale(values: np.ndarray, fixed: tuple[float, float] | None) -> tuple[float, float, bool]:
    """``(low, high, diverging)`` of a heatmap: ``fixed`` if given, else 0..max for
    non-negative data and symmetric around 0 otherwise."""
    finite = values[np.isfinite(values)]
    if fixed is not None:
        low, high = (float(v) for v in fixed)
        return low, high, low < 0 < high
    if finite.size == 0:
        return 0.0, 1.0, False
    if finite.min() >= 0:
        return 0.0, float(finite.max()) or 1.0, False
    bound = float(np.abs(finite).max())
    return -bound, bound, True


def heat_in_percent(values: np.ndarray) -> bool:
    """Whether a heatmap's values are written as percentages: every finite one is in ``[0, 1]``.

    One answer for the whole map (the pass value included), so a policy reads
    in one unit on every point and under the board.
    """
    finite = values[np.isfinite(values)]
    return bool(finite.size == 0 or (finite.min() >= 0 and finite.max() <= 1))


def heat_label(value: float, percent: bool) -> str:
    """The text of a heatmap value: ``value * 100`` rounded if ``percent`` (no sign), else 2 digits."""
    if percent:
        return f"{value * 100:.0f}"
    return f"{value:.2g}"
