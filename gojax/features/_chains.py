"""Chains: labels, sizes, liberties; the analysis that the move outcomes and ladders read.

Pure functions of ONE game, ``[N, N]`` results, relative to the player to
move (the *mover*); re-exported by :mod:`gojax.features._blocks`.

Method (no ``O(P^2)`` work):

* **Chain labels**: every stone starts as its own label (its point index);
  each round of a ``lax.while_loop`` *hooks* the label of a stone's root to
  the smallest label among its same-coloured neighbours (a scatter-min) and
  then *jumps* pointers twice (``label = label[label]``), until nothing
  changes - a few rounds even for a board-long spiral. The final label of a
  stone is the smallest point index of its chain.
* **Liberties**: each empty point looks at the labels of its 4 neighbours; a
  label is counted only at its first occurrence among the 4 (so a liberty
  touching a chain twice counts once), and a ``segment_sum`` over labels
  totals the distinct liberties of every chain. Chain sizes are a
  ``segment_sum`` of the stones.
Arrays over a point's four neighbours are ``[4, P]``, the directions first,
and are combined one direction at a time: elementwise over the points, which
XLA vectorises on a CPU.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core import bitboard as bb
from gojax._core import loops
from gojax._core.types import GoConfig, GoState

__all__ = [
    "Chains",
    "chain_labels",
    "chain_sizes",
    "chains",
    "liberties",
]

_EMPTY, _MOVER, _OPPONENT, _OFF_BOARD = 0, 1, 2, 3
# Bits of a chain's liberty count in the analysis' packed segment sum: a count is at most
# P <= 625 < 2^10, and the sum of the liberties' points at most P^2 / 2 < 2^18 fits above.
_COUNT_BITS = 10


class Chains(NamedTuple):
    """The chains on the board, per point (``int32[N, N]`` each).

    Attributes:
      labels: the smallest point index (``row * N + col``) of the chain of
        each stone, the same for every stone of a chain; -1 at empty points.
      sizes: the number of stones in the chain of each stone; 0 at empty points.
      liberties: the number of distinct liberties (empty neighbour points) of
        the chain of each stone; 0 at empty points.
    """

    labels: jax.Array
    sizes: jax.Array
    liberties: jax.Array


# --------------------------------------------------------------------------- tables


@functools.cache
def _offset_table(size: int, offsets: tuple[tuple[int, int], ...]) -> np.ndarray:
    """``int32[P, K]``: the point at each ``(row, col)`` offset from each point, ``P`` off board."""
    points = size * size
    rows, cols = np.divmod(np.arange(points), size)
    table = np.full((points, len(offsets)), points, np.int32)
    for k, (dr, dc) in enumerate(offsets):
        r, c = rows + dr, cols + dc
        inside = (r >= 0) & (r < size) & (c >= 0) & (c < size)
        table[inside, k] = (r * size + c)[inside]
    return table


def _neighbour_table(size: int) -> np.ndarray:
    """``int32[P, 4]``: the orthogonal neighbours of each point (up, down, left, right), ``P`` off board."""
    return _offset_table(size, ((-1, 0), (1, 0), (0, -1), (0, 1)))


_SIDES = ((-1, 0), (1, 0), (0, -1), (0, 1))


def _shifted(x: jax.Array, fill, size: int, offsets) -> jax.Array:
    """``[K, P]``: ``x`` (``[P]``) read at each ``(row, col)`` offset (at most 2 away) from
    every point, ``fill`` (static) off the board.

    Slices of the padded grid, not a gather: under ``vmap`` XLA's CPU compiler lays a
    gathered table out with the batch last and transposes it back in every consumer.
    """
    return jnp.stack(_views(x, fill, size, offsets)).reshape(len(offsets), size * size)


def _views(x: jax.Array, fill, size: int, offsets) -> list[jax.Array]:
    """:func:`_shifted` as a list of ``[N, N]`` grids, one per offset (for a consumer that
    reads them one at a time: no ``[K, P]`` stack is stored)."""
    grid = jnp.pad(x.reshape(size, size), 2, constant_values=fill)
    return [grid[2 + dr : 2 + dr + size, 2 + dc : 2 + dc + size] for dr, dc in offsets]


def _beside(x: jax.Array, fill, size: int) -> jax.Array:
    """``[4, P]``: ``x`` (``[P]``) at each point's four neighbours (as :func:`_neighbour_table`),
    ``fill`` off the board; the directions first.

    The directions lead so that what is computed over the four (a union, a count, the
    first occurrence) is elementwise over the points, which XLA vectorises on a CPU; a
    reduction over a trailing axis of 4 runs point by point, several times slower.
    """
    return _shifted(x, fill, size, _SIDES)


def _over_sides(function, x) -> jax.Array:
    """``function`` (binary, e.g. ``jnp.add``) folded over the leading axis of ``x``, one entry at a time."""
    return functools.reduce(function, [x[k] for k in range(x.shape[0])])


# --------------------------------------------------------------------------- flat analysis


def _relative_colours(config: GoConfig, state: GoState) -> jax.Array:
    """``int32[P]``: 0 empty, 1 the mover's stone, 2 the opponent's."""
    grid = bb.to_grid(state.stones, config.size).reshape(2, config.num_points).astype(jnp.int32)
    mover = jnp.where(state.turn == 0, grid[0], grid[1])
    opponent = jnp.where(state.turn == 0, grid[1], grid[0])
    return mover * _MOVER + opponent * _OPPONENT


def _extend(x: jax.Array, fill) -> jax.Array:
    """``x`` with one more entry, ``fill``, at index ``P`` (what off-board neighbours read)."""
    return jnp.concatenate([x, jnp.full((1,), fill, x.dtype)])


def _flat_labels(size: int, colours: jax.Array) -> jax.Array:
    """``int32[P]``: smallest point of each stone's chain, ``P`` at empty points."""
    points = size * size
    stone = colours != _EMPTY
    same = stone & (_beside(colours, _OFF_BOARD, size) == colours)  # [4, P]
    start = jnp.where(stone, jnp.arange(points, dtype=jnp.int32), points)

    def body(carry):
        labels, _ = carry
        extended = _extend(labels, points)
        smallest = _over_sides(jnp.minimum, jnp.where(same, _beside(labels, points, size), points))
        smallest = jnp.minimum(smallest, labels)
        # Hook: the root each stone points at adopts the smallest label seen
        # next to the stone (every label is a point of the same chain, so the
        # chain stays one tree); then two pointer jumps.
        hooked = extended.at[labels].min(smallest)[:points]
        new = jnp.minimum(hooked, smallest)
        for _ in range(2):
            new = _extend(new, points)[new]
        return new, jnp.any(new != labels)

    return loops.while_loop(lambda carry: carry[1], body, (start, jnp.bool_(True)))[0]


class _Analysis(NamedTuple):
    colours: jax.Array  # int32[P] relative colours
    labels: jax.Array  # int32[P], P at empty points
    neighbour_labels: jax.Array  # int32[4, P], P where the neighbour is empty or off board
    neighbour_colours: jax.Array  # int32[4, P]
    chain_liberties: jax.Array  # int32[P + 1] liberties by label (0 at P)
    liberty_sums: jax.Array  # int32[P + 1] the sum of the liberties' points by label (0 at P)
    chain_sizes: jax.Array  # int32[P + 1] stones by label (0 at P)
    # By point, read once by label; 0 at empty points. The same next to each point are
    # slices of these (no gather by label per side).
    stone_liberties: jax.Array  # int32[P]
    stone_sums: jax.Array  # int32[P]: the chain's liberty_sums
    stone_sizes: jax.Array  # int32[P]

    def beside(self, values: jax.Array, size: int) -> jax.Array:
        """``int32[4, P]``: per-point ``values`` (``int32[P]``, 0 at empty points) at each
        point's four neighbours, 0 off the board."""
        return _beside(values, 0, size)


def _analyse(config: GoConfig, state: GoState) -> _Analysis:
    size, points = config.size, config.num_points
    colours = _relative_colours(config, state)
    labels = _flat_labels(size, colours)
    neighbour_labels = _beside(labels, points, size)
    neighbour_colours = _beside(colours, _OFF_BOARD, size)
    # A (chain, liberty) pair counts once: at the first of the empty point's
    # neighbours that carries the chain's label.
    counted = _first_occurrence(neighbour_labels, points) & (colours == _EMPTY)
    # Each pair adds 1 to its chain's count and its point to the chain's sum of liberty
    # points, in one segment_sum (the two share an int32, see _COUNT_BITS).
    at = jnp.arange(points, dtype=jnp.int32)
    packed = jax.ops.segment_sum(
        jnp.where(counted, 1 + (at << _COUNT_BITS), 0).reshape(-1),
        neighbour_labels.reshape(-1),
        num_segments=points + 1,
    )
    chain_liberties = packed & ((1 << _COUNT_BITS) - 1)
    liberty_sums = packed >> _COUNT_BITS
    chain_sizes = jax.ops.segment_sum((colours != _EMPTY).astype(jnp.int32), labels, num_segments=points + 1)
    stone = colours != _EMPTY
    by_point = packed[labels]
    return _Analysis(
        colours,
        labels,
        neighbour_labels,
        neighbour_colours,
        chain_liberties,
        liberty_sums,
        chain_sizes,
        stone_liberties=jnp.where(stone, by_point & ((1 << _COUNT_BITS) - 1), 0),
        stone_sums=jnp.where(stone, by_point >> _COUNT_BITS, 0),
        stone_sizes=jnp.where(stone, chain_sizes[labels], 0),
    )


def _first_occurrence(labels: jax.Array, sentinel: int) -> jax.Array:
    """``bool[4, ...]``: each label of ``int[4, ...]`` that is not ``sentinel`` and not seen
    earlier among the 4 (the leading axis)."""
    first = [labels[0] != sentinel]
    for k in range(1, 4):
        fresh = labels[k] != sentinel
        for j in range(k):
            fresh = fresh & (labels[k] != labels[j])
        first.append(fresh)
    return jnp.stack(first)


# --------------------------------------------------------------------------- public blocks


def chains(config: GoConfig, state: GoState) -> Chains:
    """Labels, sizes and liberties of every chain, per point (see :class:`Chains`).

    Call this once when you need several of the three; :func:`chain_labels`,
    :func:`chain_sizes` and :func:`liberties` each compute it.
    """
    return _chains_of(config, _analyse(config, state))


def _chains_of(config: GoConfig, analysis: _Analysis) -> Chains:
    size = config.size
    stone = analysis.colours != _EMPTY
    return Chains(
        labels=jnp.where(stone, analysis.labels, -1).reshape(size, size),
        sizes=analysis.stone_sizes.reshape(size, size),
        liberties=analysis.stone_liberties.reshape(size, size),
    )


def chain_labels(config: GoConfig, state: GoState) -> jax.Array:
    """``int32[N, N]``: the smallest point index of each stone's chain; -1 at empty points."""
    return chains(config, state).labels


def chain_sizes(config: GoConfig, state: GoState) -> jax.Array:
    """``int32[N, N]``: stones in each stone's chain; 0 at empty points."""
    return chains(config, state).sizes


def liberties(config: GoConfig, state: GoState) -> jax.Array:
    """``int32[N, N]``: distinct liberties of each stone's chain; 0 at empty points."""
    return chains(config, state).liberties
