"""MoGo's 3x3 patterns (hane, cut, edge) as bitboard conjunctions, for the heavy playouts.

A pattern is a 3x3 picture around an empty candidate point (the centre), in
the notation of Gelly, Wang, Munos and Teytaud (2006), *Modification of UCT
with patterns in Monte-Carlo Go*: ``X`` a stone of one colour, ``O`` of the
other, ``.`` empty, ``x`` not ``X`` (``O``, empty or off the board), ``o``
not ``O``, ``#`` off the board, ``?`` anything. Each is matched in its eight
rotations and reflections and with the colours swapped, so it does not matter
which colour is to move. :func:`pattern_points` is the set of empty points
where any of them matches: one AND of shifted planes per cell of a variant
(variants that begin with the same cells share those ANDs), elementwise over
games.

Shapes: ``N`` board side, ``W`` words.
"""

from __future__ import annotations

import functools

import jax.numpy as jnp
import numpy as np

from gojax._core.bitboard import Words
from gojax._core.bitboard import WordTuples as w

__all__ = ["PATTERNS", "pattern_points", "pattern_table"]

PATTERNS = (
    ("XOX", "...", "???"),  # hane: enclosing
    ("XO.", "...", "?.?"),  # hane: non-cutting
    ("XO?", "X..", "x.?"),  # hane: magari
    (".O.", "X..", "..."),  # hane: diagonal attachment
    ("XO?", "O.o", "?o?"),  # cut 1: the unprotected cut
    ("XO?", "O.X", "???"),  # cut 1: the peeped cut
    ("?X?", "O.O", "ooo"),  # cut 2
    ("X.?", "O.?", "###"),  # edge: chase
    ("OX?", "X.O", "###"),  # edge: block the side cut
    ("?X?", "x.O", "###"),  # edge: block the side connection
    ("?XO", "x.x", "###"),  # edge: sagari
    ("?OX", "X.O", "###"),  # edge: cut
)
"""The patterns, each three rows of three characters (the centre is the move)."""

_SWAP = str.maketrans("XOxo", "OXox")


@functools.cache
def _variants() -> tuple[tuple[tuple[int, int, str], ...], ...]:
    """Every distinct rotation, reflection and colour swap of :data:`PATTERNS`, as the
    ``(rows, cols, char)`` of its cells other than the centre and ``?``."""
    found = set()
    for pattern in PATTERNS:
        grid = np.array([list(row) for row in pattern])
        for colours in (grid, np.vectorize(lambda c: c.translate(_SWAP))(grid)):
            for turn in range(4):
                for flipped in (False, True):
                    g = np.rot90(colours, turn)
                    g = np.fliplr(g) if flipped else g
                    cells = tuple(
                        (r - 1, c - 1, str(g[r, c]))
                        for r in range(3)
                        for c in range(3)
                        if (r, c) != (1, 1) and g[r, c] != "?"
                    )
                    found.add(cells)
    return tuple(sorted(found))


def pattern_points(size: int, black: Words, white: Words) -> Words:
    """The empty points where a pattern of :data:`PATTERNS` matches (either colour as ``X``)."""
    board = tuple(w.u32(b) for b in w.constants(size)["board"])
    empty = w.op(lambda b, x, o: b & ~(x | o), board, black, white)
    planes = {}
    for rows in (-1, 0, 1):
        for cols in (-1, 0, 1):
            if (rows, cols) == (0, 0):
                continue
            x, o, e = (w.shift(p, rows, cols, size) for p in (black, white, empty))
            off = w.op(lambda b, s: b & ~s, board, w.shift(board, rows, cols, size))
            planes[rows, cols] = {
                "X": x,
                "O": o,
                ".": e,
                "x": w.op(jnp.invert, x),
                "o": w.op(jnp.invert, o),
                "#": off,
            }
    found = tuple(jnp.zeros_like(b) for b in black)

    def walk(node: dict, match: Words) -> None:
        nonlocal found
        for cell, child in node.items():
            if cell is None:  # a variant ends here
                found = w.op(jnp.bitwise_or, found, match)
                continue
            rows, cols, char = cell
            walk(child, w.op(jnp.bitwise_and, match, planes[rows, cols][char]))

    walk(_trie(), empty)
    return found


@functools.cache
def _trie() -> dict:
    """The variants of :func:`_variants` as a prefix tree (``None`` marks an end), each cell a
    key, so that variants sharing their first cells share those ANDs (about 560 instead of 860)."""
    root: dict = {}
    for cells in _variants():
        node = root
        for cell in cells:
            node = node.setdefault(cell, {})
        node[None] = {}
    return root


_CELLS = tuple((rows, cols) for rows in (-1, 0, 1) for cols in (-1, 0, 1) if (rows, cols) != (0, 0))
_ALLOWED = {"X": (1,), "O": (2,), ".": (0,), "x": (0, 2, 3), "o": (0, 1, 3), "#": (3,)}


@functools.cache
def pattern_table() -> np.ndarray:
    """``uint32[2048]``: :func:`pattern_points` as a table of 3x3 neighbourhoods, for the C playouts.

    A neighbourhood's code has cell ``k`` of :data:`_CELLS` (the offsets row by
    row, the centre skipped) in bits ``2k, 2k + 1``: 0 empty, 1 black, 2 white,
    3 off the board. Bit ``code % 32`` of word ``code // 32`` is set where a
    variant of :data:`PATTERNS` matches around an empty centre.
    """
    codes = np.arange(1 << 16)
    cells = (codes[:, None] >> (2 * np.arange(8))) & 3  # [65536, 8]
    found = np.zeros(codes.shape, bool)
    for variant in _variants():
        match = np.ones(codes.shape, bool)
        for rows, cols, char in variant:
            match &= np.isin(cells[:, _CELLS.index((rows, cols))], _ALLOWED[char])
        found |= match
    bits = np.packbits(found, bitorder="little")  # bit i of byte j: code 8j + i
    return bits.view("<u4").astype(np.uint32)
