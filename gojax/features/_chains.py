"""Chains and move outcomes: labels, sizes and liberties of the chains; what a stone at each empty
point would do (liberties after, capture size, self-atari size). The analysis the ladders read.

Pure functions of ONE game, ``[N, N]`` results, relative to the player to
move (the *mover*); re-exported by :mod:`gojax.features._blocks`.

Method (no ``O(P^2)`` work, no per-move flood fill):

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
* **Move outcomes**, from the distinct chains next to each empty point ``p``
  (their labels, sizes and liberties): the captured stones are the sizes of
  the opponent chains in atari, the new chain's stones 1 plus the sizes of
  the mover's. Its liberties: with no chain of its colour joined, the empty
  (and captured) neighbours; with one chain joined and nothing captured,
  that chain's liberties but ``p``, plus the empty neighbours the chain does
  not touch (read off the labels around each neighbour). Only where two or
  more chains are joined (their liberties may overlap anywhere) or one is
  joined with a capture is the count made on bitboards: the union of the
  chains' stones and ``p``, dilated once (:mod:`gojax.features._merges`,
  pooled over a ``vmap`` batch).

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
from gojax._core.stored import stored
from gojax._core.types import GoConfig, GoState
from gojax.features import _merges

__all__ = [
    "Chains",
    "MoveOutcomes",
    "capture_size",
    "chain_labels",
    "chain_sizes",
    "chains",
    "liberties",
    "liberties_after_move",
    "move_outcomes",
    "self_atari_size",
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


# --------------------------------------------------------------------------- move outcomes


class MoveOutcomes(NamedTuple):
    """What a mover's stone at each empty point would do (``int32[N, N]`` each).

    Computed from the board alone, for every empty point (legal or not: AND
    with :func:`legal_plane` if you need it); 0 at occupied points.

    Attributes:
      liberties_after: liberties of the mover's chain through the new stone,
        after removing the opponent chains the move captures (0 for a
        suicide).
      capture_size: opponent stones the move would capture.
      self_atari_size: stones of the mover's new chain if the move leaves it
        with exactly one liberty (in atari), else 0.
    """

    liberties_after: jax.Array
    capture_size: jax.Array
    self_atari_size: jax.Array


def _chain_bitboards(size: int, analysis: _Analysis) -> jax.Array:
    """``uint32[P + 1, W]``: the stones of the chain of each label (zero for non-labels)."""
    points, words = size * size, bb.num_words(size)
    word, bit = np.divmod(np.arange(points), bb.WORD_BITS)
    bits = jnp.left_shift(jnp.uint32(1), jnp.asarray(bit, jnp.uint32))
    stone = analysis.colours != _EMPTY
    segments = analysis.labels * words + jnp.asarray(word, jnp.int32)
    boards = jax.ops.segment_sum(
        jnp.where(stone, bits, jnp.uint32(0)), segments, num_segments=(points + 1) * words
    )
    return boards.reshape(points + 1, words)


def move_outcomes(config: GoConfig, state: GoState) -> MoveOutcomes:
    """Liberties after, capture size and self-atari size of a mover's stone at every empty point.

    See :class:`MoveOutcomes`. Call this once when you need several of the
    three; the single-plane functions each compute it.
    """
    return _move_outcomes_of(config, _analyse(config, state))


def _neighbour_facts(analysis: _Analysis, size: int):
    """``(first, in_atari, sizes)``, ``[4, P]`` each: the neighbour's chain not seen earlier
    among the 4, whether it has one liberty, its stones."""
    labels = analysis.neighbour_labels
    first = _first_occurrence(labels, size * size)
    in_atari = analysis.beside(analysis.stone_liberties, size) == 1
    return first, in_atari, analysis.beside(analysis.stone_sizes, size)


def _move_outcomes_of(
    config: GoConfig, analysis: _Analysis, liberties_after: jax.Array | None = None
) -> MoveOutcomes:
    """See :func:`move_outcomes`.

    ``liberties_after`` (``int32[P]``, the ``(_MOVER, True)`` table of
    :func:`_liberties_after`) is taken when a caller has it already. The
    sizes are sums over the distinct chains next to each point.
    """
    size = config.size
    colours = analysis.neighbour_colours
    first, in_atari, sizes = _neighbour_facts(analysis, size)
    if liberties_after is None:
        liberties_after = _liberties_after(config, analysis, ((_MOVER, True),))[0]
    empty_point = analysis.colours == _EMPTY
    taken = _over_sides(jnp.add, jnp.where(first & (colours == _OPPONENT) & in_atari, sizes, 0))
    joined = 1 + _over_sides(jnp.add, jnp.where(first & (colours == _MOVER), sizes, 0))
    return MoveOutcomes(
        liberties_after=liberties_after.reshape(size, size),
        capture_size=jnp.where(empty_point, taken, 0).reshape(size, size),
        self_atari_size=jnp.where(empty_point & (liberties_after == 1), joined, 0).reshape(size, size),
    )


def _not_suicide(config: GoConfig, analysis: _Analysis) -> jax.Array:
    """``bool[N, N]``: empty points where a mover's stone would have a liberty after its
    captures (:func:`_liberties_after` above 0), read off the neighbours alone: an empty
    neighbour, a capture (its stones become liberties next to the stone), or a chain of its
    own with another liberty."""
    size = config.size
    colours = analysis.neighbour_colours
    liberties = analysis.beside(analysis.stone_liberties, size)
    freeing = (colours == _EMPTY) | ((colours == _OPPONENT) & (liberties == 1))
    freeing = freeing | ((colours == _MOVER) & (liberties >= 2))
    return ((analysis.colours == _EMPTY) & _over_sides(jnp.logical_or, freeing)).reshape(size, size)


# For each side ``q`` of a point ``p`` (as :data:`_SIDES`), the three neighbours of ``q`` other than ``p``.
_RING = tuple((dr + er, dc + ec) for dr, dc in _SIDES for er, ec in _SIDES if (er, ec) != (-dr, -dc))


def _liberties_after(config: GoConfig, analysis: _Analysis, variants) -> jax.Array:
    """``int32[V, P]``: liberties after a stone at each empty point, for each ``(colour, captures)``.

    ``variants`` (static) lists ``(colour, captures)`` pairs: ``colour`` is
    :data:`_MOVER` or :data:`_OPPONENT` (whose stone it is), ``captures``
    whether the chains it would capture are taken off first (``False``: the
    liberties as if nothing were captured); 0 at occupied points.

    A stone that joins no chain of its colour has its empty neighbours (and,
    with captures, its captured neighbours) as liberties; one that joins a
    single chain and captures nothing has that chain's liberties but its own
    point, plus its empty neighbours that the chain does not touch (read off
    the labels around each neighbour). The other points (two or more chains
    joined, or one joined with a capture) are counted on the chains'
    bitboards, pooled over the batch (:mod:`gojax.features._merges`).
    """
    size, points = config.size, config.num_points
    labels, colours = analysis.neighbour_labels, analysis.neighbour_colours
    first, in_atari, _ = _neighbour_facts(analysis, size)
    liberties_beside = analysis.beside(analysis.stone_liberties, size)
    empty_side = colours == _EMPTY
    empty_point = analysis.colours == _EMPTY
    ring = _views(analysis.labels, points, size, _RING)  # side k's three at 3k..3k+2
    local, merge = [], jnp.zeros((points,), jnp.bool_)
    for colour, captures in variants:
        own = first & (colours == colour)
        joined = _over_sides(jnp.add, own.astype(jnp.int32))
        taken = (colours == _MOVER + _OPPONENT - colour) & in_atari if captures else jnp.zeros_like(own)
        chain = _over_sides(jnp.maximum, jnp.where(own, labels, -1))  # the chain joined, if one
        grid = chain.reshape(size, size)
        hits = [(view == grid).reshape(points) for view in ring]
        # Side k is a liberty the chain has already when one of its other three neighbours
        # is in the chain.
        fresh = [empty_side[k] & ~(hits[3 * k] | hits[3 * k + 1] | hits[3 * k + 2]) for k in range(4)]
        alone = _over_sides(jnp.add, (empty_side | taken).astype(jnp.int32))
        extended = _over_sides(jnp.maximum, jnp.where(own, liberties_beside, 0)) - 1
        extended = extended + sum(f.astype(jnp.int32) for f in fresh)
        local.append(jnp.where(empty_point, jnp.where(joined == 0, alone, extended), 0))
        taking = _over_sides(jnp.logical_or, taken)
        merge = merge | (empty_point & ((joined >= 2) | ((joined == 1) & taking)))
    empty = bb.from_grid(empty_point.reshape(size, size), size)
    boards = _chain_bitboards(size, analysis)
    exact = _merges.merged_liberties(size, variants, boards, labels, colours, in_atari, empty, merge)
    # Stored: the callers gather from the tables, and XLA would otherwise recompute the
    # counts for every gathered entry.
    return stored(jnp.where(merge, exact, jnp.stack(local)))


def liberties_after_move(config: GoConfig, state: GoState) -> jax.Array:
    """``int32[N, N]``: liberties of the mover's chain after a stone at each empty point (0 elsewhere)."""
    return move_outcomes(config, state).liberties_after


def capture_size(config: GoConfig, state: GoState) -> jax.Array:
    """``int32[N, N]``: opponent stones a mover's stone at each empty point would capture."""
    return move_outcomes(config, state).capture_size


def self_atari_size(config: GoConfig, state: GoState) -> jax.Array:
    """``int32[N, N]``: size of the mover's new chain where the move leaves it in atari, else 0."""
    return move_outcomes(config, state).self_atari_size
