"""SVG pictures of one board: :func:`board_svg` and :class:`SvgBoard` (see :mod:`gojax.svg`)."""

from __future__ import annotations

import dataclasses
import html
from collections.abc import Mapping
from pathlib import Path

import numpy as np

from gojax._core import bitboard as bb
from gojax._core.guards import check_board
from gojax._core.types import BLACK, EMPTY, WHITE, GoConfig, GoState
from gojax._host.atomic import atomic_write, atomic_write_bytes
from gojax._host.grid import decode
from gojax._host.vertices import COLUMNS
from gojax.svg._colour import (
    INK,
    STONE_CLASS,
    STONE_FILL,
    STONE_TEXT,
    WOOD,
    heat_colour,
    heat_in_percent,
    heat_label,
    heat_scale,
    ink_on,
)
from gojax.svg._png import svg_to_png

__all__ = ["SvgBoard", "board_origin", "board_svg", "star_points"]


def star_points(size: int) -> list[tuple[int, int]]:
    """The ``(row, col)`` star points (hoshi) of an ``N x N`` board, as Go boards are printed.

    Corners on the 4-4 points (3-3 below 13x13, none below 7x7), the centre on
    odd boards, and the side midpoints on odd boards from 15x15 (19x19 has 9).
    """
    if size < 7:
        return [(size // 2, size // 2)] if size % 2 == 1 and size >= 5 else []
    edge = 3 if size >= 13 else 2
    lines = [edge, size - 1 - edge]
    points = [(r, c) for r in lines for c in lines]
    if size % 2 == 1:
        middle = size // 2
        points.append((middle, middle))
        if size >= 15:
            points += [(middle, edge), (middle, size - 1 - edge), (edge, middle), (size - 1 - edge, middle)]
    return sorted(points)


def board_origin(cell: float, *, titled: bool, coordinates: bool = True) -> tuple[float, float]:
    """``(x, y)`` in pixels of point ``(0, 0)`` in :func:`board_svg`: the margin (wider
    with coordinates), and below it a title row if the board has a title."""
    margin = cell * (1.3 if coordinates else 0.75)
    return margin, margin + (cell * 0.9 if titled else 0.0)


def _board_array(config: GoConfig, state) -> np.ndarray:
    """``int8[N, N]`` from a ``GoState`` (its bitboards) or from an ``[N, N]`` board."""
    size = config.size
    stones = getattr(state, "stones", None)
    if stones is not None:
        words = np.asarray(stones)
        if words.ndim == 2 and isinstance(state, GoState):
            check_board(config, state, "gojax.board_svg")  # the rule functions' error for another board
        elif words.shape != (2, bb.num_words(size)):
            raise ValueError(f"board_svg takes one game of {size}x{size}; got stones of shape {words.shape}")
        return decode(words, size)
    grid = np.asarray(state)
    if grid.shape != (size, size) or not np.isin(grid, (EMPTY, BLACK, WHITE)).all():
        raise ValueError(f"board must be int[{size}, {size}] with values 0, 1, 2; got shape {grid.shape}")
    return grid.astype(np.int8)


@dataclasses.dataclass(frozen=True)
class _Layout:
    """Where things go in a picture of one board, in pixels."""

    size: int
    cell: float  # distance between grid lines
    margin: float  # left of column 0
    top: float  # above row 0
    width: float
    height: float

    @property
    def span(self) -> float:
        """From the first grid line to the last."""
        return self.cell * (self.size - 1)

    @property
    def font(self) -> float:
        """The font size of coordinates and labels."""
        return self.cell * 0.42

    def x(self, col: int) -> float:
        """The x coordinate of column ``col``."""
        return self.margin + col * self.cell

    def y(self, row: int) -> float:
        """The y coordinate of row ``row``."""
        return self.top + row * self.cell


def board_svg(
    config: GoConfig,
    state,
    *,
    cell: float = 28.0,
    coordinates: bool = True,
    last_move: bool | int | None = True,
    move_numbers=None,
    heatmap=None,
    heatmap_range: tuple[float, float] | None = None,
    heatmap_labels: bool = False,
    title: str | None = None,
) -> str:
    """An SVG picture of one board.

    Args:
      config: the rules (board size).
      state: one ``GoState`` (not batched), or an ``int[N, N]`` board (0 empty,
        1 black, 2 white; row 0 at the top).
      cell: distance between grid lines, in pixels.
      coordinates: draw GTP coordinates on all four sides.
      last_move: ``True``: ring the state's last move; an action: ring that
        point; ``False``/``None``: no ring.
      move_numbers: numbers (or any short labels) to write on points: an
        ``int[N, N]`` array (0 means none) or a mapping action -> label.
      heatmap: values to shade the points with, ``[N, N]`` or ``[A]`` (the
        pass value is written under the board, in the unit of the labels:
        ``pass: 20%`` or ``pass: 1.5``). Zero and NaN cells are left
        unshaded; non-negative data uses a light-to-dark red ramp from 0 to
        its maximum, data with negative values a blue-white-red scale
        symmetric around 0.
      heatmap_range: ``(low, high)`` to fix the colour scale.
      heatmap_labels: write each shaded value on empty points: as a
        percentage (without the sign) when every value of the heatmap, pass
        included, is in ``[0, 1]`` (a policy, visit shares), else with two
        significant digits.
      title: a caption above the board.

    Returns:
      The SVG document as a string.

    Raises:
      ValueError: for a batched state, or arrays of the wrong shape.
    """
    size = config.size
    grid = _board_array(config, state)
    heat, pass_value = _heat_values(heatmap, size)
    margin, top = board_origin(cell, titled=bool(title), coordinates=coordinates)
    width = cell * (size - 1) + 2 * margin
    height = top + cell * (size - 1) + margin + (cell * 0.8 if pass_value is not None else 0.0)
    layout = _Layout(size, cell, margin, top, width, height)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.1f} {height:.1f}" font-family="Helvetica, Arial, sans-serif">',
        f'<rect class="board" x="0" y="0" width="{width:.1f}" height="{height:.1f}" fill="{WOOD}"/>',
    ]
    if title:
        out.append(
            f'<text class="title" x="{width / 2:.1f}" y="{cell * 0.75:.1f}" text-anchor="middle" '
            f'font-size="{cell * 0.5:.1f}" fill="{INK}">{html.escape(title)}</text>'
        )
    shading = None if heat is None else (heat, heat_scale(heat, heatmap_range))
    percent = heat is not None and heat_in_percent(
        np.append(heat.reshape(-1), np.nan if pass_value is None else pass_value)
    )
    if shading is not None:
        out += _heat_cells(layout, *shading, percent)
    out += _grid_lines(layout)
    if coordinates:
        out += _coordinates(layout)
    out += _stones(layout, grid)
    labels = _move_labels(move_numbers, size)
    if shading is not None and heatmap_labels:
        out += _heat_labels(layout, grid, *shading, percent, labels)
    out += _label_texts(layout, grid, labels)
    mark = _last_move(state, last_move, size)
    if mark is not None and mark not in labels:
        out.append(_last_move_ring(layout, grid, mark, shading, heatmap_labels))
    if pass_value is not None:
        text = heat_label(pass_value, percent) + ("%" if percent else "")
        out.append(
            f'<text class="pass-value" x="{width / 2:.1f}" y="{height - cell * 0.5:.1f}" '
            f'text-anchor="middle" font-size="{layout.font:.1f}" fill="{INK}">pass: {text}</text>'
        )
    out.append("</svg>")
    return "\n".join(out)


def _heat_values(heatmap, size: int) -> tuple[np.ndarray | None, float | None]:
    """``(float64[N, N] values, the pass value)`` of a heatmap (``None`` each where none is)."""
    if heatmap is None:
        return None, None
    values = np.asarray(heatmap, dtype=np.float64)
    pass_value = None
    if values.shape == (size * size + 1,):
        pass_value = float(values[-1])
        values = values[:-1]
    if values.size != size * size or values.ndim not in (1, 2):
        raise ValueError(
            f"heatmap must be [{size}, {size}] or [{size * size + 1}]; got shape {np.shape(heatmap)}"
        )
    return values.reshape(size, size), pass_value


def _move_labels(move_numbers, size: int) -> dict[int, str]:
    """Action -> label from an ``int[N, N]`` array of move numbers (0: none) or a mapping."""
    if move_numbers is None:
        return {}
    if isinstance(move_numbers, Mapping):
        return {int(a): str(v) for a, v in move_numbers.items() if 0 <= int(a) < size * size}
    numbers = np.asarray(move_numbers)
    if numbers.shape != (size, size):
        raise ValueError(f"move_numbers must be [{size}, {size}]; got shape {numbers.shape}")
    return {int(a): str(numbers.flat[a]) for a in np.flatnonzero(numbers)}


def _heat_cells(
    layout: _Layout, heat: np.ndarray, scale: tuple[float, float, bool], percent: bool
) -> list[str]:
    """A shaded square for every point with a finite, non-zero heat value."""
    cell, out = layout.cell, []
    for row in range(layout.size):
        for col in range(layout.size):
            value = heat[row, col]
            if not np.isfinite(value) or value == 0:
                continue
            fill = heat_colour(value, *scale)
            out.append(
                f'<rect class="heat" x="{layout.x(col) - cell / 2:.1f}" y="{layout.y(row) - cell / 2:.1f}" '
                f'width="{cell:.1f}" height="{cell:.1f}" fill="{fill}" '
                f'fill-opacity="0.85"><title>{heat_label(value, percent)}</title></rect>'
            )
    return out


def _grid_lines(layout: _Layout) -> list[str]:
    """The grid lines and the star points."""
    x, y, last = layout.x, layout.y, layout.size - 1
    path = "".join(f"M{x(0):.1f},{y(i):.1f}H{x(last):.1f}" for i in range(layout.size))
    path += "".join(f"M{x(i):.1f},{y(0):.1f}V{y(last):.1f}" for i in range(layout.size))
    out = [f'<path class="grid" d="{path}" stroke="{INK}" stroke-width="1" fill="none"/>']
    for row, col in star_points(layout.size):
        out.append(
            f'<circle class="star" cx="{x(col):.1f}" cy="{y(row):.1f}" r="{layout.cell * 0.1:.1f}" '
            f'fill="{INK}"/>'
        )
    return out


def _coordinates(layout: _Layout) -> list[str]:
    """GTP coordinates on all four sides: columns above and below, rows left and right."""
    size, cell, out = layout.size, layout.cell, []
    style = f'font-size="{layout.font:.1f}" fill="{INK}" text-anchor="middle" dominant-baseline="central"'
    for col in range(size):
        for ypos in (layout.top - cell * 0.8, layout.top + layout.span + cell * 0.8):
            out.append(
                f'<text class="coord" x="{layout.x(col):.1f}" y="{ypos:.1f}" {style}>{COLUMNS[col]}</text>'
            )
    for row in range(size):
        for xpos in (layout.margin - cell * 0.8, layout.margin + layout.span + cell * 0.8):
            out.append(
                f'<text class="coord" x="{xpos:.1f}" y="{layout.y(row):.1f}" {style}>{size - row}</text>'
            )
    return out


def _stones(layout: _Layout, grid: np.ndarray) -> list[str]:
    """A circle for every stone."""
    radius, out = layout.cell * 0.47, []
    for point in np.flatnonzero(grid).tolist():
        row, col = divmod(point, layout.size)
        colour = int(grid[row, col])
        out.append(
            f'<circle class="{STONE_CLASS[colour]}" cx="{layout.x(col):.1f}" cy="{layout.y(row):.1f}" '
            f'r="{radius:.1f}" fill="{STONE_FILL[colour]}" stroke="{INK}" stroke-width="0.8"/>'
        )
    return out


def _heat_labels(
    layout: _Layout,
    grid: np.ndarray,
    heat: np.ndarray,
    scale: tuple[float, float, bool],
    percent: bool,
    labels: dict[int, str],
) -> list[str]:
    """The heat value written on every shaded empty point that has no label."""
    flat, out = heat.reshape(-1), []
    for point in np.flatnonzero(np.isfinite(flat) & (flat != 0)).tolist():
        if grid.flat[point] == EMPTY and point not in labels:
            row, col = divmod(point, layout.size)
            value = float(heat.flat[point])
            ink = ink_on(heat_colour(value, *scale))
            out.append(
                f'<text class="heat-label" x="{layout.x(col):.1f}" y="{layout.y(row):.1f}" '
                f'font-size="{layout.font * 0.8:.1f}" text-anchor="middle" dominant-baseline="central" '
                f'fill="{ink}">{heat_label(value, percent)}</text>'
            )
    return out


def _label_texts(layout: _Layout, grid: np.ndarray, labels: dict[int, str]) -> list[str]:
    """Every label on its point, in the ink that reads on the stone there."""
    out = []
    for action, text in labels.items():
        row, col = divmod(action, layout.size)
        colour = int(grid[row, col])
        out.append(
            f'<text class="move-number" x="{layout.x(col):.1f}" y="{layout.y(row):.1f}" '
            f'font-size="{layout.font:.1f}" text-anchor="middle" dominant-baseline="central" '
            f'fill="{STONE_TEXT[colour]}">{html.escape(text)}</text>'
        )
    return out


def _last_move_ring(
    layout: _Layout,
    grid: np.ndarray,
    mark: int,
    shading: tuple[np.ndarray, tuple[float, float, bool]] | None = None,
    heatmap_labels: bool = False,
) -> str:
    """A ring on point ``mark``: in the ink that reads on the stone or the heat colour there.

    On a shaded empty point the ring takes the labels' ink (white on a dark
    cell) and, where the value is written, goes round the number.
    """
    row, col = divmod(mark, layout.size)
    colour = int(grid[row, col])
    ring, radius = (STONE_TEXT[colour] if colour != EMPTY else "#c0392b"), 0.22
    if colour == EMPTY and shading is not None:
        value = float(shading[0][row, col])
        if np.isfinite(value) and value != 0:
            ring = ink_on(heat_colour(value, *shading[1]))
            radius = 0.42 if heatmap_labels else radius
    return (
        f'<circle class="last-move" cx="{layout.x(col):.1f}" cy="{layout.y(row):.1f}" '
        f'r="{layout.cell * radius:.1f}" fill="none" stroke="{ring}" '
        f'stroke-width="{max(1.5, layout.cell * 0.07):.1f}"/>'
    )


def _last_move(state, last_move, size: int) -> int | None:
    if last_move is None or last_move is False:
        return None
    if last_move is True:
        value = getattr(state, "last_move", None)
        if value is None:
            return None
        value = int(np.asarray(value))
    else:
        value = int(last_move)
    return value if 0 <= value < size * size else None


class SvgBoard:
    """An SVG picture that Jupyter renders inline (``_repr_svg_``, ``_repr_html_``).

    ``SvgBoard.from_state(config, state, **kwargs)`` takes the arguments of
    :func:`board_svg`; ``SvgBoard(svg_text)`` wraps any SVG (e.g. from
    :func:`planes_grid_svg`).
    """

    def __init__(self, svg: str):
        self.svg = svg

    @classmethod
    def from_state(cls, config: GoConfig, state, **kwargs) -> SvgBoard:
        """A picture of ``state`` (a ``GoState`` or an ``[N, N]`` board); see :func:`board_svg`."""
        return cls(board_svg(config, state, **kwargs))

    def _repr_svg_(self) -> str:
        return self.svg

    def _repr_html_(self) -> str:
        return f'<div style="display:inline-block">{self.svg}</div>'

    def save(self, path, *, scale: float = 1.0) -> Path:
        """Writes the picture to ``path``, atomically (temporary file, then ``os.replace``).

        ``.svg``: the SVG text (UTF-8). ``.png``: a PNG image through cairosvg
        (``pip install 'gojax[png]'``), ``scale`` PNG pixels per SVG pixel.

        Raises:
          ImportError: for ``.png`` without cairosvg, naming the extra.
          ValueError: for any other suffix.
        """
        suffix = Path(path).suffix.lower()
        if suffix == ".svg":
            return atomic_write(path, self.svg)
        if suffix == ".png":
            return atomic_write_bytes(path, svg_to_png(self.svg, scale))
        raise ValueError(f"SvgBoard.save writes .svg or .png files, got {str(path)!r}")

    def __str__(self) -> str:
        return self.svg
