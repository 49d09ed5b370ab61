"""What a stone at each empty point would do: liberties after, capture size, self-atari size.

Pure functions of ONE game, ``[N, N]`` results, relative to the player to
move (the *mover*), read off the chain analysis of
:mod:`gojax.features._chains`; re-exported by :mod:`gojax.features._blocks`.

Method (no ``O(P^2)`` work, no per-move flood fill), from the distinct chains
next to each empty point ``p`` (their labels, sizes and liberties): the
captured stones are the sizes of the opponent chains in atari, the new
chain's stones 1 plus the sizes of the mover's. Its liberties: with no chain
of its colour joined, the empty (and captured) neighbours; with one chain
joined and nothing captured, that chain's liberties but ``p``, plus the empty
neighbours the chain does not touch (read off the labels around each
neighbour). Only where two or more chains are joined (their liberties may
overlap anywhere) or one is joined with a capture is the count made on
bitboards: the union of the chains' stones and ``p``, dilated once
(:mod:`gojax.features._merges`, pooled over a ``vmap`` batch).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core import bitboard as bb
from gojax._core.stored import stored
from gojax._core.types import GoConfig, GoState
from gojax.features import _merges
from gojax.features._chains import (
    _EMPTY,
    _MOVER,
    _OPPONENT,
    _SIDES,
    _analyse,
    _Analysis,
    _first_occurrence,
    _over_sides,
    _views,
)

__all__ = [
    "MoveOutcomes",
    "capture_size",
    "liberties_after_move",
    "move_outcomes",
    "self_atari_size",
]


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
