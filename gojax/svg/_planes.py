"""A grid of small heatmaps, one per feature plane (see :mod:`gojax.svg`)."""

from __future__ import annotations

import html
import math
from collections.abc import Sequence

import numpy as np

from gojax.svg._colour import INK, heat_colour, heat_scale

__all__ = ["planes_grid_svg"]


def planes_grid_svg(
    planes,
    titles: Sequence[str] | None = None,
    *,
    columns: int | None = None,
    cell: float = 10.0,
    value_range: tuple[float, float] | None = None,
) -> str:
    """A grid of small heatmaps, one per feature plane.

    Args:
      planes: ``[N, N, C]`` (bool, int or float), e.g. a feature stack.
      titles: ``C`` captions (default ``"0"``, ``"1"``, ...).
      columns: panels per row (default ``ceil(sqrt(C))``, at most 8).
      cell: size of one point, in pixels.
      value_range: ``(low, high)`` for every plane; by default each plane is
        scaled on its own (0..max, or symmetric around 0 with negative values).

    Returns:
      The SVG document: one ``<g class="plane">`` per plane with a
      ``<text class="title">``, a frame, and a ``<rect class="heat">`` for
      every non-zero point.
    """
    stack = np.asarray(planes)
    if stack.ndim != 3 or stack.shape[0] != stack.shape[1]:
        raise ValueError(f"planes must be [N, N, C]; got shape {stack.shape}")
    size, _, count = stack.shape
    stack = stack.astype(np.float64)
    if titles is None:
        titles = [str(i) for i in range(count)]
    if len(titles) != count:
        raise ValueError(f"{len(titles)} titles for {count} planes")
    columns = columns or min(8, max(1, math.ceil(math.sqrt(count))))
    rows = max(1, math.ceil(count / columns))
    panel = size * cell
    gap = cell * 1.5
    caption = max(11.0, cell * 1.1)
    width = columns * panel + (columns + 1) * gap
    height = rows * (panel + caption + gap) + gap
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.1f} {height:.1f}" font-family="Helvetica, Arial, sans-serif">',
        f'<rect x="0" y="0" width="{width:.1f}" height="{height:.1f}" fill="#ffffff"/>',
    ]
    for index in range(count):
        left = gap + (index % columns) * (panel + gap)
        upper = gap + (index // columns) * (panel + caption + gap) + caption
        plane = stack[:, :, index]
        low, high, diverging = heat_scale(plane, value_range)
        out.append(f'<g class="plane" transform="translate({left:.1f},{upper:.1f})">')
        out.append(
            f'<text class="title" x="{panel / 2:.1f}" y="{-caption * 0.3:.1f}" text-anchor="middle" '
            f'font-size="{caption * 0.8:.1f}" fill="{INK}">{html.escape(str(titles[index]))}</text>'
        )
        out.append(
            f'<rect class="frame" x="0" y="0" width="{panel:.1f}" height="{panel:.1f}" fill="#f4ecd8" '
            f'stroke="{INK}" stroke-width="0.8"/>'
        )
        for row, col in zip(*np.nonzero(np.isfinite(plane) & (plane != 0)), strict=True):
            out.append(
                f'<rect class="heat" x="{col * cell:.1f}" y="{row * cell:.1f}" width="{cell:.1f}" '
                f'height="{cell:.1f}" fill="{heat_colour(plane[row, col], low, high, diverging)}"/>'
            )
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out)
