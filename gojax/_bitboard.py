"""Bit-packed boards: one ``uint32`` word per row, bit ``k`` for column ``k``.

Every function works on arrays whose last axis is the ``N`` rows of a board,
with any leading axes (several boards processed together, e.g. the four
chains next to a move). Flood fill is iterated dilation inside a
``lax.while_loop`` that runs until nothing changes, so a chain of any shape and
length - a 19x19 spiral included - is filled exactly.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from gojax import _zobrist

__all__ = [
    "any_set",
    "count",
    "dilate",
    "flood_fill",
    "from_grid",
    "key_sum",
    "lowest_point",
    "neighbours",
    "point_bits",
    "row_mask",
    "to_grid",
]


# Dilations per loop round: fewer rounds (and convergence tests) at the cost
# of a few dilations past the fixed point.
_ROUNDS = 2


def row_mask(size: int) -> np.uint32:
    """The ``N`` low bits set: a full row."""
    return np.uint32((1 << size) - 1)


def neighbours(x: jax.Array, size: int) -> jax.Array:
    """Points orthogonally adjacent to a set bit (the set itself excluded unless adjacent)."""
    horizontal = ((x << 1) | (x >> 1)) & row_mask(size)
    # One zero row padded on each side, then the rows above and below are plain
    # slices: XLA fuses this far better than two concatenations.
    padded = jnp.pad(x, [(0, 0)] * (x.ndim - 1) + [(1, 1)])
    return horizontal | padded[..., 2:] | padded[..., :-2]


def dilate(x: jax.Array, size: int) -> jax.Array:
    """``x`` plus its orthogonal neighbours."""
    return x | neighbours(x, size)


def flood_fill(
    seed: jax.Array,
    mask: jax.Array,
    size: int,
    free: jax.Array | None = None,
    enough: int = 2,
) -> jax.Array:
    """The points of ``mask`` connected to ``seed & mask`` inside ``mask``.

    Args:
      seed: ``uint32[..., N]`` starting points.
      mask: ``uint32[..., N]`` points the fill may enter (broadcast with seed).
      size: ``N``.
      free: optional ``uint32[..., N]`` points (e.g. empty points): a region
        stops growing once ``enough`` of them are adjacent to it. The result
        is then only part of the region, but it already has ``enough``
        liberties - which is all a liberty test needs, and big, free chains
        stop after a few rounds instead of spanning the board.
      enough: see ``free``.

    Returns:
      ``uint32[..., N]``: each region, exact unless it reached ``enough``
      points of ``free``.
    """
    shape = jnp.broadcast_shapes(seed.shape, mask.shape)
    mask = jnp.broadcast_to(mask, shape)

    def grow(region):
        for _ in range(_ROUNDS):
            region = dilate(region, size) & mask
        return region

    def growing(previous, current):
        changed = any_set(previous != current)
        if free is None:
            return jnp.any(changed)
        # Growing a region that already has enough liberties is harmless (it
        # stays a part of its chain with enough liberties); only stop when no
        # region anywhere needs to grow.
        return jnp.any(changed & (count(neighbours(current, size) & free) < enough))

    def body(carry):
        _, current, _ = carry
        grown = grow(current)
        return current, grown, growing(current, grown)

    start = seed & mask
    first = grow(start)
    return jax.lax.while_loop(lambda carry: carry[2], body, (start, first, growing(start, first)))[1]


def count(x: jax.Array) -> jax.Array:
    """Number of set points over the last axis: ``int32[...]``."""
    return jnp.sum(jax.lax.population_count(x).astype(jnp.int32), axis=-1)


def any_set(x: jax.Array) -> jax.Array:
    """Whether any point is set, over the last axis: ``bool[...]``."""
    return jnp.any(x != 0, axis=-1)


def point_bits(action: jax.Array, size: int) -> jax.Array:
    """``uint32[N]`` with only the bit of ``action`` set (all zero for pass or beyond)."""
    row = action // size
    bit = jnp.left_shift(jnp.uint32(1), (action % size).astype(jnp.uint32))
    return jnp.where(jnp.arange(size) == row, bit, jnp.uint32(0))


def to_grid(x: jax.Array, size: int) -> jax.Array:
    """``bool[..., N, N]`` view of ``uint32[..., N]`` (``[..., row, col]``)."""
    cols = jnp.arange(size, dtype=jnp.uint32)
    return ((x[..., :, None] >> cols) & 1).astype(jnp.bool_)


def from_grid(grid: jax.Array, size: int) -> jax.Array:
    """``uint32[..., N]`` from a boolean ``[..., N, N]`` grid."""
    cols = jnp.arange(size, dtype=jnp.uint32)
    return jnp.sum(grid.astype(jnp.uint32) << cols, axis=-1, dtype=jnp.uint32)


def lowest_point(x: jax.Array, size: int) -> jax.Array:
    """Index ``row * N + col`` of the first set point of ``uint32[N]``, or -1 if none."""
    nonzero = x != 0
    row = jnp.argmax(nonzero)
    word = x[row]
    col = jax.lax.population_count((word & (~word + jnp.uint32(1))) - jnp.uint32(1))
    return jnp.where(jnp.any(nonzero), row * size + col.astype(row.dtype), -1)


def key_sum(x: jax.Array, colour: jax.Array, size: int) -> jax.Array:
    """Zobrist hash of the stones ``x`` of colour index ``colour``.

    Sum (mod 2**32, per word) of the keys of the set points, read from the
    per-row byte tables of :func:`gojax._zobrist.tables`: ``N * ceil(N / 8)``
    lookups.

    Args:
      x: ``uint32[..., N]`` sets of points.
      colour: ``int[...]`` colour index of each set (broadcast with ``x[..., 0]``).
      size: ``N``.

    Returns:
      ``uint32[..., 2]``.
    """
    table = jnp.asarray(_zobrist.tables(size).row_sums)  # [2, N, C, 256, 2]
    chunks = table.shape[2]
    shifts = (8 * jnp.arange(chunks, dtype=jnp.uint32))[None, :]
    values = ((x[..., :, None] >> shifts) & 255).astype(jnp.int32)  # [..., N, C]
    colour = jnp.asarray(colour, jnp.int32)[..., None, None]
    rows = jnp.arange(size)[:, None]
    parts = table[colour, rows, jnp.arange(chunks)[None, :], values]  # [..., N, C, 2]
    return jnp.sum(parts, axis=(-3, -2), dtype=jnp.uint32)
