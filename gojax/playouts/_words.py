"""Bitboards as tuples of words, for the light playout kernel (:mod:`gojax.playouts._light`).

A bitboard of ``W = ceil(P / 32)`` ``uint32`` words (point ``p`` is bit
``p % 32`` of word ``p // 32``, as in :mod:`gojax._core.bitboard`) is kept as
the tuple of its words, each an array of any shape (``[]`` for one game,
``[B]`` or ``[B, K]`` for a batch): every operation, the neighbour shifts
included, is then elementwise over games, which a CPU vectorises, instead of
shuffling a short last axis of ``W`` words.

Shapes: ``N`` board side, ``P = N * N``, ``W`` words, ``L = ceil(log2 P)``
liberty planes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core import bitboard as bb

__all__ = [
    "Words",
    "any_set",
    "constants",
    "count",
    "label_match",
    "lowest_point",
    "neighbours",
    "op",
    "point_bits",
    "select_rank",
    "shift",
    "stacked",
    "two_of_four",
    "u32",
    "words",
]

Words = tuple[jax.Array, ...]
"""A bitboard as its ``W`` words: ``W`` ``uint32`` arrays of one shape."""
_BITS = 32


def words(x: jax.Array) -> Words:
    """``uint32[..., W]`` as :data:`Words`."""
    return tuple(x[..., w] for w in range(x.shape[-1]))


def stacked(x: Words) -> jax.Array:
    """:data:`Words` as ``uint32[..., W]``."""
    return jnp.stack(x, axis=-1)


@functools.cache
def constants(size: int) -> dict[str, tuple]:
    """Per-word constants (Python ints): board, has-left, has-right and inner masks, index planes."""
    board, has_left, has_right = (
        bb.from_grid_np(np.asarray(mask).reshape(size, size), size)
        for mask in (
            np.ones(size * size, bool),
            np.arange(size * size) % size > 0,
            np.arange(size * size) % size < size - 1,
        )
    )
    inner = np.zeros((size, size), bool)
    inner[1:-1, 1:-1] = True
    planes = bb.index_planes(size)  # [L, W]
    return {
        "board": tuple(int(v) for v in board),
        "left": tuple(int(v) for v in has_left),
        "right": tuple(int(v) for v in has_right),
        "inner": tuple(int(v) for v in bb.from_grid_np(inner, size)),
        "planes": tuple(tuple(int(v) for v in plane) for plane in planes),
    }


def u32(value: int) -> jax.Array:
    """A ``uint32`` constant."""
    return jnp.uint32(value)


def _move(x: Words, offset: int) -> Words:
    """``out[p] = x[p + offset]`` on the bit string (zero past either end), ``|offset| < 32``."""
    last, out = len(x) - 1, []
    for w, word in enumerate(x):
        if offset > 0:
            part = word >> offset
            out.append(part if w == last else part | (x[w + 1] << (_BITS - offset)))
        else:
            part = word << -offset
            out.append(part if w == 0 else part | (x[w - 1] >> (_BITS + offset)))
    return tuple(out)


def shift(x: Words, rows: int, cols: int, size: int) -> Words:
    """``out[r, c] = x[r + rows, c + cols]``, zero where that point is off the board."""
    c = constants(size)
    keep = c["right"] if cols == 1 else c["left"] if cols == -1 else c["board"]
    return tuple(
        word & u32(k & b) for word, k, b in zip(_move(x, rows * size + cols), keep, c["board"], strict=True)
    )


def neighbours(x: Words, size: int) -> Words:
    """The points orthogonally next to a point of ``x``."""
    c = constants(size)
    right, left = _move(x, -1), _move(x, 1)
    below, above = _move(x, -size), _move(x, size)
    return tuple(
        ((r & u32(hl)) | (lt & u32(hr)) | bl | ab) & u32(b)
        for r, lt, bl, ab, hl, hr, b in zip(
            right, left, below, above, c["left"], c["right"], c["board"], strict=True
        )
    )


def op(f: Callable[..., jax.Array], *xs: Words) -> Words:
    """``f`` applied word by word to the :data:`Words` ``xs``."""
    return tuple(f(*ws) for ws in zip(*xs, strict=True))


def two_of_four(a: jax.Array, b: jax.Array, c: jax.Array, d: jax.Array) -> jax.Array:
    """The bits set in at least two of the four words (one word of each :data:`Words`)."""
    return (a & (b | c | d)) | (b & (c | d)) | (c & d)


def count(x: Words) -> jax.Array:
    """``int32[...]``: set points."""
    return functools.reduce(jnp.add, [jax.lax.population_count(word).astype(jnp.int32) for word in x])


def any_set(x: Words) -> jax.Array:
    """``bool[...]``: whether any point is set."""
    return functools.reduce(jnp.bitwise_or, x) != 0


def point_bits(point: jax.Array, size: int) -> Words:
    """The bit of ``point`` (none for a point outside ``[0, P)``), shaped like ``point``."""
    inside = (point >= 0) & (point < size * size)
    bit = jnp.left_shift(jnp.uint32(1), (point & (_BITS - 1)).astype(jnp.uint32))
    return tuple(
        jnp.where(inside & ((point >> 5) == w), bit, jnp.uint32(0)) for w in range(bb.num_words(size))
    )


def lowest_point(x: Words) -> jax.Array:
    """``int32[...]``: the first set point, or -1."""
    found = jnp.full(x[0].shape, -1, jnp.int32)
    for w in reversed(range(len(x))):
        low = jax.lax.population_count((x[w] & (~x[w] + jnp.uint32(1))) - jnp.uint32(1)).astype(jnp.int32)
        found = jnp.where(x[w] != 0, w * _BITS + low, found)
    return found


def select_rank(x: Words, rank: jax.Array) -> jax.Array:
    """``int32[...]``: the ``rank``-th set point of ``x`` (from 0); ``rank`` below ``count(x)``."""
    chosen, word = jnp.zeros_like(rank), jnp.zeros_like(x[0])
    before = jnp.zeros_like(rank)
    for w, part in enumerate(x):
        here = jax.lax.population_count(part).astype(jnp.int32)
        inside = (rank >= before) & (rank < before + here)
        chosen = jnp.where(inside, w * _BITS, chosen)
        word = jnp.where(inside, part, word)
        rank = jnp.where(inside, rank - before, rank)
        before = jnp.where(inside, jnp.int32(1 << 30), before + here)
    for width in (16, 8, 4, 2, 1):  # binary search for the bit inside the word
        low = jax.lax.population_count(word & jnp.uint32((1 << width) - 1)).astype(jnp.int32)
        upper = rank >= low
        chosen = jnp.where(upper, chosen + width, chosen)
        rank = jnp.where(upper, rank - low, rank)
        word = jnp.where(upper, word >> width, word)
    return chosen


def label_match(labels: Words, atari: Words, target: jax.Array, size: int) -> Words:
    """The chains of ``atari`` whose liberty is ``target`` (-1: none), from their labels ``[..., L]``."""
    levels = len(constants(size)["planes"])
    out = []
    for lab, ata in zip(labels, atari, strict=True):
        found = ata
        for b in range(levels):
            bit = ((jnp.maximum(target, 0) >> b) & 1) == 1
            found = found & jnp.where(bit, lab[..., b], ~lab[..., b])
        out.append(jnp.where(target >= 0, found, jnp.uint32(0)))
    return tuple(out)
