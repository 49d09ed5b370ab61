"""Chains and what a move would do: labels, sizes, liberties, liberties after a move.

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
* **What a move at each empty point ``p`` would do** (for the mover): the
  stones of every chain as a bitboard (``uint32[W]``, one ``segment_sum`` of
  each stone's bit into its label's row: distinct bits, so the sum is the
  union). The mover's new chain is ``p`` plus the chains of its own
  neighbours; the captured stones are the opponent neighbours' chains with
  exactly one liberty (that liberty is ``p``); the new chain's liberties are
  its neighbour points that are empty after the move (empty points other than
  ``p``, and the captured stones). That is ``O(P)`` unions of up to four
  ``N``-word bitboards - no loop and no per-move flood fill.
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


@functools.cache
def _point_bitboards(size: int) -> np.ndarray:
    """``uint32[P, W]``: the bitboard of each single point."""
    return bb.from_grid_np(np.eye(size * size, dtype=bool).reshape(-1, size, size), size)


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
    table = jnp.asarray(_neighbour_table(size))
    stone = colours != _EMPTY
    same = stone[:, None] & (_extend(colours, _OFF_BOARD)[table] == colours[:, None])  # [P, 4]
    start = jnp.where(stone, jnp.arange(points, dtype=jnp.int32), points)

    def body(carry):
        labels, _ = carry
        extended = _extend(labels, points)
        smallest = jnp.min(jnp.where(same, extended[table], points), axis=1)
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
    neighbour_labels: jax.Array  # int32[P, 4], P where the neighbour is empty or off board
    neighbour_colours: jax.Array  # int32[P, 4]
    chain_liberties: jax.Array  # int32[P + 1] liberties by label (0 at P)
    chain_sizes: jax.Array  # int32[P + 1] stones by label (0 at P)


def _analyse(config: GoConfig, state: GoState) -> _Analysis:
    size, points = config.size, config.num_points
    table = jnp.asarray(_neighbour_table(size))
    colours = _relative_colours(config, state)
    labels = _flat_labels(size, colours)
    neighbour_labels = _extend(labels, points)[table]
    neighbour_colours = _extend(colours, _OFF_BOARD)[table]
    # A (chain, liberty) pair counts once: at the first of the empty point's
    # neighbours that carries the chain's label.
    counted = _first_occurrence(neighbour_labels, points) & (colours == _EMPTY)[:, None]
    chain_liberties = jax.ops.segment_sum(
        counted.astype(jnp.int32).reshape(-1), neighbour_labels.reshape(-1), num_segments=points + 1
    )
    chain_sizes = jax.ops.segment_sum((colours != _EMPTY).astype(jnp.int32), labels, num_segments=points + 1)
    return _Analysis(colours, labels, neighbour_labels, neighbour_colours, chain_liberties, chain_sizes)


def _first_occurrence(labels: jax.Array, sentinel: int) -> jax.Array:
    """``bool[..., 4]``: each label that is not ``sentinel`` and not seen earlier among the 4."""
    first = [labels[..., 0] != sentinel]
    for k in range(1, 4):
        fresh = labels[..., k] != sentinel
        for j in range(k):
            fresh = fresh & (labels[..., k] != labels[..., j])
        first.append(fresh)
    return jnp.stack(first, axis=-1)


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


def _union4(x: jax.Array) -> jax.Array:
    """Union over axis 1 of ``uint32[P, 4, W]``."""
    return x[:, 0] | x[:, 1] | x[:, 2] | x[:, 3]


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
        sizes=jnp.where(stone, analysis.chain_sizes[analysis.labels], 0).reshape(size, size),
        liberties=jnp.where(stone, analysis.chain_liberties[analysis.labels], 0).reshape(size, size),
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


def move_outcomes(config: GoConfig, state: GoState) -> MoveOutcomes:
    """Liberties after, capture size and self-atari size of a mover's stone at every empty point.

    See :class:`MoveOutcomes`. Call this once when you need several of the
    three; the single-plane functions each compute it.
    """
    return _move_outcomes_of(config, _analyse(config, state))


class _Neighbours(NamedTuple):
    """The chains next to each point, gathered once for every outcome computed from them."""

    boards: jax.Array  # uint32[P, 4, W]: the chain of each neighbour (zero if none)
    colours: jax.Array  # int32[P, 4]
    in_atari: jax.Array  # bool[P, 4]: the neighbour's chain has one liberty
    placed: jax.Array  # uint32[P, W]: each point alone
    free: jax.Array  # uint32[P, W]: the empty points but the point itself
    empty_point: jax.Array  # bool[P]


def _neighbours(config: GoConfig, analysis: _Analysis) -> _Neighbours:
    size = config.size
    placed = jnp.asarray(_point_bitboards(size))
    empty = bb.from_grid((analysis.colours == _EMPTY).reshape(size, size), size)  # [W]
    return _Neighbours(
        boards=_chain_bitboards(size, analysis)[analysis.neighbour_labels],
        colours=analysis.neighbour_colours,
        in_atari=analysis.chain_liberties[analysis.neighbour_labels] == 1,
        placed=placed,
        free=empty & ~placed,
        empty_point=analysis.colours == _EMPTY,
    )


def _union_where(flags: jax.Array, boards: jax.Array) -> jax.Array:
    """``uint32[P, W]``: the union of the ``boards[:, k]`` (``uint32[P, 4, W]``) with ``flags[:, k]``."""
    return _union4(jnp.where(flags[..., None], boards, jnp.uint32(0)))


def _new_chain(near: _Neighbours, colour: int) -> jax.Array:
    """``uint32[P, W]``: a ``colour`` stone at each point with the chains of its colour it joins."""
    return near.placed | _union_where(near.colours == colour, near.boards)


def _captured(near: _Neighbours, colour: int) -> jax.Array:
    """``uint32[P, W]``: the other colour's chains in atari next to each point, which ``colour`` takes."""
    return _union_where((near.colours == _MOVER + _OPPONENT - colour) & near.in_atari, near.boards)


def _move_outcomes_of(
    config: GoConfig,
    analysis: _Analysis,
    near: _Neighbours | None = None,
    liberties_after: jax.Array | None = None,
) -> MoveOutcomes:
    """See :func:`move_outcomes`.

    ``near`` (from :func:`_neighbours`) and ``liberties_after`` (``int32[P]``,
    the ``(_MOVER, True)`` table of :func:`_liberties_after`) are taken when a
    caller has them already.
    """
    size = config.size
    near = _neighbours(config, analysis) if near is None else near
    new_chain, captured = _new_chain(near, _MOVER), _captured(near, _MOVER)
    if liberties_after is None:
        liberties_after = _liberties_after(config, analysis, ((_MOVER, True),), near)[0]
    capture_size = jnp.where(near.empty_point, bb.count(captured), 0)
    self_atari = jnp.where(near.empty_point & (liberties_after == 1), bb.count(new_chain), 0)
    return MoveOutcomes(
        liberties_after=liberties_after.reshape(size, size),
        capture_size=capture_size.reshape(size, size),
        self_atari_size=self_atari.reshape(size, size),
    )


def _liberties_after(
    config: GoConfig, analysis: _Analysis, variants, near: _Neighbours | None = None
) -> jax.Array:
    """``int32[V, P]``: liberties after a stone at each empty point, for each ``(colour, captures)``.

    ``variants`` (static) lists ``(colour, captures)`` pairs: ``colour`` is
    :data:`_MOVER` or :data:`_OPPONENT` (whose stone it is), ``captures``
    whether the chains it would capture are taken off first (``False``: the
    liberties as if nothing were captured); 0 at occupied points. The chains'
    bitboards are gathered once (``near``, if given) and each colour's new
    chains dilated once, however many variants.
    """
    near = _neighbours(config, analysis) if near is None else near
    around = {
        colour: bb.neighbours(_new_chain(near, colour), config.size)
        for colour in dict.fromkeys(c for c, _ in variants)
    }
    tables = []
    for colour, captures in variants:
        free = near.free | _captured(near, colour) if captures else near.free
        tables.append(jnp.where(near.empty_point, bb.count(around[colour] & free), 0))
    # Stored: the callers gather from the tables, and XLA would otherwise recompute the
    # counts for every gathered entry.
    return stored(jnp.stack(tables))


def liberties_after_move(config: GoConfig, state: GoState) -> jax.Array:
    """``int32[N, N]``: liberties of the mover's chain after a stone at each empty point (0 elsewhere)."""
    return move_outcomes(config, state).liberties_after


def capture_size(config: GoConfig, state: GoState) -> jax.Array:
    """``int32[N, N]``: opponent stones a mover's stone at each empty point would capture."""
    return move_outcomes(config, state).capture_size


def self_atari_size(config: GoConfig, state: GoState) -> jax.Array:
    """``int32[N, N]``: size of the mover's new chain where the move leaves it in atari, else 0."""
    return move_outcomes(config, state).self_atari_size
