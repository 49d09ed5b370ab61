"""SVG to PNG through cairosvg (the ``png`` extra), for :meth:`gojax.svg.SvgBoard.save`."""

from __future__ import annotations

import math
import re

from gojax._host.optional import import_optional

__all__ = ["PNG_SIGNATURE", "png_size", "svg_size", "svg_to_png"]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
"""The first eight bytes of every PNG file."""

_SIZE = re.compile(r"<svg\b[^>]*?\bwidth=\"([0-9.]+)\"[^>]*?\bheight=\"([0-9.]+)\"", re.DOTALL)


def svg_size(svg: str) -> tuple[float, float]:
    """``(width, height)`` of the outer ``<svg>`` element, in pixels.

    Raises:
      ValueError: if the element has no numeric ``width`` and ``height``.
    """
    match = _SIZE.search(svg)
    if match is None:
        raise ValueError("the SVG has no width and height in pixels on its <svg> element")
    return float(match[1]), float(match[2])


def svg_to_png(svg: str, scale: float = 1.0) -> bytes:
    """The picture as PNG bytes, ``round(scale * width)`` by ``round(scale * height)`` pixels.

    Args:
      svg: SVG text with ``width`` and ``height`` in pixels (as gojax draws it).
      scale: the resolution, in PNG pixels per SVG pixel (> 0).

    Raises:
      ImportError: naming the extra when cairosvg is not installed
        (``pip install 'gojax[png]'``).
      ValueError: for a scale that is not a finite number > 0.
    """
    number = isinstance(scale, int | float) and not isinstance(scale, bool)
    if not number or not math.isfinite(scale) or scale <= 0:
        raise ValueError(f"scale must be a finite number > 0, got {scale!r}")
    cairosvg = import_optional("cairosvg", feature="saving a picture as PNG", extra="png")
    width, height = svg_size(svg)
    return cairosvg.svg2png(
        bytestring=svg.encode("utf-8"),
        output_width=round(width * scale),
        output_height=round(height * scale),
    )


def png_size(data: bytes) -> tuple[int, int]:
    """``(width, height)`` in pixels from a PNG's header.

    Raises:
      ValueError: if ``data`` does not start with the PNG signature and an IHDR chunk.
    """
    if data[:8] != PNG_SIGNATURE or data[12:16] != b"IHDR":
        raise ValueError("not a PNG file (no PNG signature and IHDR header)")
    return int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
