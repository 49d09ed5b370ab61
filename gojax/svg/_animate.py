"""A :class:`~gojax.svg.GameView` as one animated SVG (SMIL; plays in any browser, no script)."""

from __future__ import annotations

import html
from typing import TYPE_CHECKING

import numpy as np

from gojax._core.types import BLACK, EMPTY, WHITE
from gojax.svg._board import board_origin, board_svg

if TYPE_CHECKING:
    from gojax.svg._game import GameView

__all__ = ["animated_svg"]


def animated_svg(view: GameView, seconds_per_move: float = 0.6, *, loop: bool = True) -> str:
    """The game of ``view`` as one animated SVG (SMIL: each stone shows from its move until captured).

    Args:
      seconds_per_move: time per frame.
      loop: start again after the last frame (else stop on it).
    """
    if seconds_per_move <= 0:
        raise ValueError(f"seconds_per_move must be positive, got {seconds_per_move!r}")
    size, frames = view.config.size, len(view)
    cell = view.cell
    x0, y0 = (round(v, 2) for v in board_origin(cell, titled=True))
    background = board_svg(  # an empty title row: each frame writes its caption there
        view.config, np.zeros((size, size), np.int8), last_move=False, title="\u00a0", cell=cell
    )
    total = seconds_per_move * frames
    repeat = 'repeatCount="indefinite"' if loop else 'fill="freeze"'

    def visible_between(first: int, stop: int) -> str:
        """A discrete visibility animation: shown in frames ``[first, stop)``."""
        times, values = ["0"], ["hidden" if first > 0 else "visible"]
        if first > 0:
            times.append(f"{first / frames:.6f}")
            values.append("visible")
        if stop < frames:
            times.append(f"{stop / frames:.6f}")
            values.append("hidden")
        return (
            f'<animate attributeName="visibility" dur="{total:.3f}s" calcMode="discrete" '
            f'keyTimes="{";".join(times)}" values="{";".join(values)}" {repeat}/>'
        )

    fill = {BLACK: "#111111", WHITE: "#f7f7f2"}
    css = {BLACK: "stone black", WHITE: "stone white"}
    parts = []
    flat = view.boards.reshape(frames, -1)
    for point in range(size * size):
        row, col = divmod(point, size)
        column = flat[:, point]
        t = 0
        while t < frames:  # runs of the same stone on this point
            colour = int(column[t])
            stop = t + 1
            while stop < frames and column[stop] == colour:
                stop += 1
            if colour != EMPTY:
                parts.append(
                    f'<circle class="{css[colour]}" '
                    f'cx="{x0 + col * cell:.1f}" cy="{y0 + row * cell:.1f}" '
                    f'r="{cell * 0.47:.1f}" fill="{fill[colour]}" stroke="#2b2b2b" stroke-width="0.8" '
                    f'visibility="hidden">{visible_between(t, stop)}</circle>'
                )
            t = stop
    xs, ys, shown = [], [], []
    for t in range(frames):
        action = int(view.last_moves[t])
        on_board = 0 <= action < size * size
        row, col = divmod(action, size) if on_board else (0, 0)
        xs.append(f"{x0 + col * cell:.1f}")
        ys.append(f"{y0 + row * cell:.1f}")
        shown.append("visible" if on_board else "hidden")
    timing = f'dur="{total:.3f}s" calcMode="discrete" {repeat}'
    parts.append(
        f'<circle class="last-move" r="{cell * 0.22:.1f}" fill="none" stroke="#c0392b" '
        f'stroke-width="{max(1.5, cell * 0.07):.1f}" cx="{xs[0]}" cy="{ys[0]}" visibility="hidden">'
        f'<animate attributeName="cx" values="{";".join(xs)}" {timing}/>'
        f'<animate attributeName="cy" values="{";".join(ys)}" {timing}/>'
        f'<animate attributeName="visibility" values="{";".join(shown)}" {timing}/></circle>'
    )
    width = float(background.split('width="', 1)[1].split('"', 1)[0])
    for t in range(frames):
        caption = view.label(t) if view.title is None else f"{view.title} - {view.label(t)}"
        parts.append(
            f'<text class="frame-label" x="{width / 2:.1f}" y="{cell * 0.75:.1f}" text-anchor="middle" '
            f'font-size="{cell * 0.5:.1f}" fill="#2b2b2b" visibility="hidden">{html.escape(caption)}'
            f"{visible_between(t, t + 1)}</text>"
        )
    return background.replace("</svg>", "\n".join(parts) + "\n</svg>")
