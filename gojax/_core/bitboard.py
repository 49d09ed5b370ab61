"""Bit-packed boards: the ``P`` points as one bit string in ``W = ceil(P / 32)``
``uint32`` words; point ``p = row * N + col`` is bit ``p % 32`` of word
``p // 32``.

A point's index *is* its bit's position, so the lowest set bit of a set is
its first point, and the four neighbours of every point are four shifts of
the whole string: by one bit (masked so a row does not wrap into the next)
and by ``N`` bits (rows above and below). Packing rows end to end, instead of
one word per row, puts a 9x9 board in 3 words instead of 9 and a 19x19 board
in 12 instead of 19, so every word operation touches fewer elements.

The same bit strings come in three layouts, one section of this module each:

* **Words last**, ``uint32[..., W]``: the module's functions. A board's words
  are the last axis, with any leading axes (several boards processed
  together, e.g. the four chains next to a move); the engine's states keep
  their bitboards so. Flood fill is iterated dilation inside a while loop
  that runs until nothing changes: a chain of any shape is filled exactly.
* **Words first**, ``uint32[W, ...]``: :class:`WordsFirst`, the same
  operations for computations batched along trailing axes (the ladder
  reads); ``from gojax._core.bitboard import WordsFirst as bits``, then
  ``bits.count(x)``. With no trailing axes both layouts are the same array.
* **Words as a tuple**, :data:`Words`: :class:`WordTuples`, a board as the
  tuple of its ``W`` word arrays, each of any shape: every operation is
  elementwise over games (the light playout kernel; the flood fill's loop).

A layout is a section: a class of the operations under the same names,
beside the functions of the words-last layout and the masks they share.

The ``*_np`` functions are the host-side (NumPy) views for tools that read
states outside ``jit``: diagrams, SGF, GTP, the invariant checker.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import ParamSpec, TypeVar

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core import loops
from gojax._core.stored import stored

__all__ = [
    "WordTuples",
    "Words",
    "WordsFirst",
    "any_set",
    "board_mask",
    "board_np",
    "count",
    "dilate",
    "flood_fill",
    "from_grid",
    "from_grid_np",
    "index_planes",
    "lowest_point",
    "neighbours",
    "num_words",
    "pack",
    "point_bits",
    "scoped",
    "select_points",
    "shift",
    "to_grid",
    "to_grid_np",
    "to_points",
    "union",
]

WORD_BITS = 32

# Dilations per loop round: fewer rounds (and convergence tests) at the cost
# of a few dilations past the fixed point. The unstacked form's dilations are
# cheap, so it does more of them per test.
_ROUNDS = 2
_ROUNDS_UNSTACKED = 3
# Boards of more words (above 13x13) fill on stacked words: unstacking 12
# words of a 19x19 board doubles the compile time of `step` for a few percent.
_MAX_UNSTACKED_WORDS = 6


_P = ParamSpec("_P")
_R = TypeVar("_R")


def scoped(function: Callable[_P, _R]) -> Callable[_P, _R]:
    """Decorator: the function's operations carry its name in a profile
    (``jax.named_scope``; metadata only, no effect on the computation)."""

    @functools.wraps(function)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        with jax.named_scope(function.__name__):
            return function(*args, **kwargs)

    return wrapper


# --------------------------------------------------------------------------- sizes, masks, host views


def num_words(size: int) -> int:
    """``W``: words of one bitboard, ``ceil(N * N / 32)``."""
    return -(-size * size // WORD_BITS)


def from_grid_np(grid: np.ndarray, size: int) -> np.ndarray:
    """Host-side: ``uint32[..., W]`` from a boolean (or 0/1) ``[..., N, N]`` grid."""
    grid = np.asarray(grid).astype(bool)
    lead = grid.shape[:-2]
    words = num_words(size)
    flat = np.zeros((*lead, words * WORD_BITS), np.uint64)
    flat[..., : size * size] = grid.reshape((*lead, size * size))
    weights = np.uint64(1) << np.arange(WORD_BITS, dtype=np.uint64)
    return (flat.reshape((*lead, words, WORD_BITS)) * weights).sum(-1).astype(np.uint32)


def to_grid_np(x: np.ndarray, size: int) -> np.ndarray:
    """Host-side: ``bool[..., N, N]`` view of ``uint32[..., W]``."""
    x = np.asarray(x).astype(np.uint32)
    bits = (x[..., :, None] >> np.arange(WORD_BITS, dtype=np.uint32)) & 1
    flat = bits.reshape((*x.shape[:-1], -1))[..., : size * size]
    return flat.reshape((*x.shape[:-1], size, size)).astype(bool)


def board_np(stones: np.ndarray, size: int) -> np.ndarray:
    """Host-side: ``int8[..., N, N]`` board (0 empty, 1 black, 2 white) from
    ``uint32[..., 2, W]`` stones, black then white."""
    grid = to_grid_np(stones, size)
    return (grid[..., 0, :, :].astype(np.int8) + 2 * grid[..., 1, :, :].astype(np.int8)).astype(np.int8)


@functools.cache
def _masks(size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(board, has_left, has_right)``, each ``uint32[W]``: every point, the
    points not in the first column, the points not in the last column."""
    cols = np.arange(size * size) % size
    on = np.ones(size * size, bool)
    board, has_left, has_right = (
        from_grid_np(points.reshape(size, size), size) for points in (on, cols > 0, cols < size - 1)
    )
    for mask in (board, has_left, has_right):
        mask.setflags(write=False)
    return board, has_left, has_right


def board_mask(size: int) -> np.ndarray:
    """``uint32[W]``: every point of the board set (the bits past ``P`` clear)."""
    return _masks(size)[0]


@functools.cache
def index_planes(size: int) -> np.ndarray:
    """``uint32[L, W]`` with ``L = ceil(log2 P)`` (at least 1): plane ``b`` has
    the points whose index has bit ``b`` set."""
    levels = max(1, int(np.ceil(np.log2(size * size))))
    index = np.arange(size * size).reshape(size, size)
    planes = from_grid_np((index[None] >> np.arange(levels)[:, None, None]) & 1, size)
    planes.setflags(write=False)
    return planes


# --------------------------------------------------------------------------- words last


def _edges(x: jax.Array, size: int, words_first: bool) -> tuple[int, jax.Array, jax.Array, jax.Array]:
    """``(axis of the words, board, has_left, has_right)``, the masks shaped to broadcast against ``x``."""
    shape = (-1,) + (1,) * (x.ndim - 1) if words_first else (-1,)
    board, has_left, has_right = (jnp.asarray(m).reshape(shape) for m in _masks(size))
    return (0 if words_first else -1), board, has_left, has_right


def _word_shift(x: jax.Array, axis: int, down: bool) -> jax.Array:
    """``x`` moved one word along ``axis``, zero filled: toward lower word indices if ``down``."""
    widths = [(0, 0)] * x.ndim
    widths[axis] = (0, 1) if down else (1, 0)
    return jax.lax.slice_in_dim(jnp.pad(x, widths), int(down), int(down) + x.shape[axis], axis=axis)


def _shift_up(x: jax.Array, bits: int, axis: int = -1) -> jax.Array:
    """Bit string moved ``bits`` (1..31) places toward higher indices (words on ``axis``)."""
    return (x << bits) | (_word_shift(x, axis, down=False) >> (WORD_BITS - bits))


def _shift_down(x: jax.Array, bits: int, axis: int = -1) -> jax.Array:
    """Bit string moved ``bits`` (1..31) places toward lower indices (words on ``axis``)."""
    return (x >> bits) | (_word_shift(x, axis, down=True) << (WORD_BITS - bits))


def shift(x: jax.Array, rows: int, cols: int, size: int, *, words_first: bool = False) -> jax.Array:
    """``out[r, c] = x[r + rows, c + cols]`` for ``rows, cols`` in ``{-1, 0, 1}``; zero where that
    point is off the board. ``words_first``: ``x`` is ``uint32[W, ...]`` (batch axes last)."""
    axis, board, has_left, has_right = _edges(x, size, words_first)
    offset = rows * size + cols
    if offset > 0:
        x = _shift_down(x, offset, axis)
    elif offset < 0:
        x = _shift_up(x, -offset, axis)
    if cols == 1:
        x = x & has_right
    elif cols == -1:
        x = x & has_left
    return x & board


def neighbours(x: jax.Array, size: int, *, words_first: bool = False) -> jax.Array:
    """Points orthogonally adjacent to a set bit (the set excluded unless adjacent); see :func:`shift`."""
    axis, board, has_left, has_right = _edges(x, size, words_first)
    horizontal = (_shift_up(x, 1, axis) & has_left) | (_shift_down(x, 1, axis) & has_right)
    vertical = _shift_up(x, size, axis) | _shift_down(x, size, axis)
    return (horizontal | vertical) & board


def dilate(x: jax.Array, size: int) -> jax.Array:
    """``x`` plus its orthogonal neighbours."""
    return x | neighbours(x, size)


@scoped
def flood_fill(
    seed: jax.Array,
    mask: jax.Array,
    size: int,
    free: jax.Array | None = None,
    enough: int = 2,
) -> jax.Array:
    """The points of ``mask`` connected to ``seed & mask`` inside ``mask``.

    Args:
      seed: ``uint32[..., W]`` starting points.
      mask: ``uint32[..., W]`` points the fill may enter (broadcast with seed).
      size: ``N``.
      free: optional ``uint32[..., W]`` points outside ``mask`` (e.g. empty
        points): a region stops growing once ``enough`` of them are adjacent
        to it. The result is then only part of the region, but it already has
        ``enough`` liberties - which is all a liberty test needs, and big,
        free chains stop after a few rounds instead of spanning the board.
      enough: see ``free``.

    Returns:
      ``uint32[..., W]``: each region, exact unless it reached ``enough``
      points of ``free``.
    """
    shape = jnp.broadcast_shapes(seed.shape, mask.shape)
    if shape[-1] > _MAX_UNSTACKED_WORDS:
        return _flood_fill_stacked(seed, mask, size, free, enough)
    # The loop carries the W words as W separate arrays: every operation of a
    # round is then elementwise over the leading (batch, region) axes, which
    # XLA vectorises on a CPU, unlike shifts along a short last axis.
    allowed = WordTuples.words(jnp.broadcast_to(mask, shape))
    free_words = None if free is None else WordTuples.words(jnp.broadcast_to(free, shape))

    def body(carry: tuple[tuple[jax.Array, ...], jax.Array]) -> tuple[tuple[jax.Array, ...], jax.Array]:
        region, _ = carry
        needs: jax.Array | bool = True
        for _ in range(_ROUNDS_UNSTACKED):
            around = WordTuples.neighbours(region, size)
            grown = tuple((r | a) & m for r, a, m in zip(region, around, allowed, strict=True))
            if free_words is not None:
                # The liberty test reads the neighbours the growth computed
                # anyway: they are those of the region one dilation back, a
                # subset, so a region stops at most one round late.
                liberties = sum(
                    jax.lax.population_count(a & f).astype(jnp.int32)
                    for a, f in zip(around, free_words, strict=True)
                )
                needs = liberties < enough
            region, previous = grown, region
        changed = functools.reduce(jnp.logical_or, [p != r for p, r in zip(previous, region, strict=True)])
        # Growing a region that already has enough liberties is harmless (it
        # stays a part of its chain with enough liberties); only stop when no
        # region anywhere needs to grow.
        return region, jnp.any(changed & needs)

    start = WordTuples.words(jnp.broadcast_to(seed, shape) & jnp.broadcast_to(mask, shape))
    region, _ = loops.while_loop(lambda carry: carry[1], body, (start, jnp.bool_(True)))
    return jnp.stack(region, axis=-1)


def _flood_fill_stacked(
    seed: jax.Array, mask: jax.Array, size: int, free: jax.Array | None, enough: int
) -> jax.Array:
    """:func:`flood_fill` on ``uint32[..., W]`` arrays as they are: for large
    boards, whose ``W`` unstacked words would make a long program to compile."""
    shape = jnp.broadcast_shapes(seed.shape, mask.shape)
    mask = jnp.broadcast_to(mask, shape)

    def body(carry: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
        region, _ = carry
        for _ in range(_ROUNDS):
            around = neighbours(region, size)
            grown = (region | around) & mask
            needs = True if free is None else count(around & free) < enough
            region, previous = grown, region
        return region, jnp.any(any_set(previous != region) & needs)

    start = jnp.broadcast_to(seed, shape) & mask
    return loops.while_loop(lambda carry: carry[1], body, (start, jnp.bool_(True)))[0]


def union(sets: jax.Array) -> jax.Array:
    """Union over the leading axis of ``uint32[K, ..., W]`` sets."""
    return jax.lax.reduce(sets, jnp.uint32(0), jax.lax.bitwise_or, (0,))


def count(x: jax.Array) -> jax.Array:
    """Number of set points over the last axis: ``int32[...]``."""
    return jnp.sum(jax.lax.population_count(x).astype(jnp.int32), axis=-1)


def any_set(x: jax.Array) -> jax.Array:
    """Whether any point is set, over the last axis: ``bool[...]``."""
    return jnp.any(x != 0, axis=-1)


def point_bits(action: jax.Array, size: int) -> jax.Array:
    """``uint32[W]`` with only the bit of point ``action`` set (all zero for
    pass, negative or anything beyond the board)."""
    action = jnp.asarray(action, jnp.int32)
    on_board = (action >= 0) & (action < size * size)
    word = jnp.right_shift(jnp.maximum(action, 0), 5)
    bit = jnp.left_shift(jnp.uint32(1), (action & (WORD_BITS - 1)).astype(jnp.uint32))
    return jnp.where(on_board & (jnp.arange(num_words(size)) == word), bit, jnp.uint32(0))


def to_points(x: jax.Array, size: int) -> jax.Array:
    """``bool[..., P]`` view of ``uint32[..., W]``, point ``row * N + col``."""
    bits = (x[..., :, None] >> jnp.arange(WORD_BITS, dtype=jnp.uint32)) & 1
    return bits.reshape((*x.shape[:-1], -1))[..., : size * size].astype(jnp.bool_)


def to_grid(x: jax.Array, size: int) -> jax.Array:
    """``bool[..., N, N]`` view of ``uint32[..., W]`` (``[..., row, col]``)."""
    return to_points(x, size).reshape((*x.shape[:-1], size, size))


def from_grid(grid: jax.Array, size: int) -> jax.Array:
    """``uint32[..., W]`` from a boolean ``[..., N, N]`` grid."""
    return pack(grid.reshape((*grid.shape[:-2], size * size)))


def pack(flags: jax.Array) -> jax.Array:
    """``bool[..., K]`` packed into ``uint32[..., ceil(K / 32)]``: entry ``k`` is
    bit ``k % 32`` of word ``k // 32`` (a bitboard when ``K = P``)."""
    lead, length = flags.shape[:-1], flags.shape[-1]
    words = -(-length // WORD_BITS)
    padded = jnp.pad(flags.astype(jnp.uint32), [(0, 0)] * len(lead) + [(0, words * WORD_BITS - length)])
    shifted = padded.reshape((*lead, words, WORD_BITS)) << jnp.arange(WORD_BITS, dtype=jnp.uint32)
    return jnp.sum(shifted, axis=-1, dtype=jnp.uint32)


def lowest_point(x: jax.Array, size: int) -> jax.Array:
    """Index of the first set point of ``uint32[W]``, or -1 if none."""
    del size
    nonzero = x != 0
    word_index = jnp.argmax(nonzero)
    word = x[word_index]
    bit = jax.lax.population_count((word & (~word + jnp.uint32(1))) - jnp.uint32(1))
    return jnp.where(jnp.any(nonzero), word_index * WORD_BITS + bit.astype(word_index.dtype), -1)


def select_points(x: jax.Array, ranks: jax.Array) -> jax.Array:
    """Index of the ``ranks[k]``-th set point (from 0, in index order) of ``x``.

    All ranks at once, with no loop: the word holding each is found from the
    words' popcounts, the bit inside it from the popcounts of the word's
    prefixes. The result is read off reductions only, so XLA keeps this in
    fusions of its own instead of copying the arithmetic on ``ranks`` into
    every consumer (a sampled action feeds most of ``step``).

    Args:
      x: ``uint32[..., W]`` sets of points.
      ranks: ``int32[..., K]`` (broadcast with ``x[..., :1]``); a negative
        rank reads as 0.

    Returns:
      ``int32[..., K]``: the point, or -1 where ``x`` has no more than
      ``ranks[k]`` points.
    """
    counts = jax.lax.population_count(x).astype(jnp.int32)  # [..., W]
    earlier, start = [], jnp.zeros_like(counts[..., 0])
    for w in range(x.shape[-1]):
        earlier.append(start)
        start = start + counts[..., w]
    starts = jnp.stack(earlier, axis=-1)[..., None, :]  # [..., 1, W] points in earlier words
    ranks = jnp.maximum(jnp.asarray(ranks, jnp.int32), 0)[..., None]  # [..., K, 1]
    # The last word starting at or before the rank (empty words start where
    # the next one does), its word and the rank inside it.
    word_index = jnp.sum(starts[..., 1:] <= ranks, axis=-1)  # [..., K]
    here = jnp.arange(x.shape[-1]) == word_index[..., None]  # [..., K, W]
    word = jnp.sum(jnp.where(here, x[..., None, :], jnp.uint32(0)), axis=-1, dtype=jnp.uint32)
    rank = jnp.sum(jnp.where(here, ranks - starts, 0), axis=-1)
    # Its rank-th set bit sits at b: exactly the prefixes [0, j], j < b, hold
    # at most ``rank`` set bits - all 32 of them when the word holds no more.
    prefixes = (jnp.uint32(2) << jnp.arange(WORD_BITS, dtype=jnp.uint32)) - jnp.uint32(1)
    within = jax.lax.population_count(word[..., None] & prefixes).astype(jnp.int32)
    bit = jnp.sum(within <= rank[..., None], axis=-1)
    return jnp.where(bit < WORD_BITS, word_index * WORD_BITS + bit, -1).astype(jnp.int32)


# --------------------------------------------------------------------------- words first


class WordsFirst:
    """Bitboards with the words first: ``uint32[W, ...]``, for computations batched along the trailing axes.

    The ladder pool runs hundreds of chases side by side; with the words on
    the first axis every operation of a chase, the carries between words
    included, is elementwise over the trailing (chase) axes, which XLA
    vectorises on a CPU - a dilation of a batch of 19x19 boards runs about
    three times faster than with the words last. Counts, unions and searches
    go word by word, not as reductions over the first axis: elementwise over
    the trailing axes too (XLA's CPU reductions over a major axis run point by
    point). Same bit order as the words-last functions.

    A namespace of static functions (no instances), named as the words-last
    functions they match.
    """

    @staticmethod
    def board(size: int, like: jax.Array) -> jax.Array:
        """``uint32[W, 1, ...]``: every point of the board, to broadcast against ``like``."""
        return jnp.asarray(board_mask(size)).reshape((-1,) + (1,) * (like.ndim - 1))

    @staticmethod
    def shift(x: jax.Array, rows: int, cols: int, size: int) -> jax.Array:
        """``out[r, c] = x[r + rows, c + cols]`` for ``rows, cols`` in ``{-1, 0, 1}``, zero off the board
        (the module's :func:`shift`, words first)."""
        return shift(x, rows, cols, size, words_first=True)

    @staticmethod
    def neighbours(x: jax.Array, size: int) -> jax.Array:
        """Points orthogonally adjacent to a set bit of ``uint32[W, ...]`` (the module's
        :func:`neighbours`, words first)."""
        return neighbours(x, size, words_first=True)

    @staticmethod
    def count(x: jax.Array) -> jax.Array:
        """``int32[...]``: set points of ``uint32[W, ...]``, summed word by word."""
        counts = jax.lax.population_count(x).astype(jnp.int32)
        return stored(functools.reduce(jnp.add, [counts[w] for w in range(x.shape[0])]))

    @staticmethod
    def any_set(x: jax.Array) -> jax.Array:
        """``bool[...]``: whether ``uint32[W, ...]`` has a set point."""
        return stored(functools.reduce(jnp.bitwise_or, [x[w] for w in range(x.shape[0])])) != 0

    @staticmethod
    def union(sets: jax.Array, axis: int) -> jax.Array:
        """Union of ``uint32[W, ...]`` sets over ``axis`` (not 0), one set at a time (as :meth:`count`)."""
        parts = [jax.lax.index_in_dim(sets, k, axis, keepdims=False) for k in range(sets.shape[axis])]
        return functools.reduce(jnp.bitwise_or, parts)

    @staticmethod
    def point_bits(point: jax.Array, size: int) -> jax.Array:
        """``uint32[W, ...]`` with only the bit of each ``point`` (``int[...]``) set; none for -1 or
        off the board."""
        point = jnp.asarray(point, jnp.int32)
        words = num_words(size)
        on_board = (point >= 0) & (point < size * size)
        word = jnp.right_shift(jnp.maximum(point, 0), 5)
        bit = jnp.left_shift(jnp.uint32(1), (point & (WORD_BITS - 1)).astype(jnp.uint32))
        index = jnp.arange(words, dtype=jnp.int32).reshape((words,) + (1,) * point.ndim)
        return jnp.where(on_board & (index == word), bit, jnp.uint32(0))

    @staticmethod
    def lowest_point(x: jax.Array) -> jax.Array:
        """``int32[...]``: the first set point of ``uint32[W, ...]``, -1 where none is."""
        found = jnp.full(x.shape[1:], -1, jnp.int32)
        for w in reversed(range(x.shape[0])):  # word by word, as in :meth:`count`
            word = x[w]
            bit = jax.lax.population_count((word & (~word + jnp.uint32(1))) - jnp.uint32(1)).astype(jnp.int32)
            found = jnp.where(word != 0, w * WORD_BITS + bit, found)
        return found


# --------------------------------------------------------------------------- words as a tuple

Words = tuple[jax.Array, ...]
"""A bitboard as the tuple of its ``W`` words: ``W`` ``uint32`` arrays of one shape (:class:`WordTuples`)."""


@functools.cache
def _tuple_constants(size: int) -> dict[str, tuple]:
    """Per-word constants (Python ints): board, has-left, has-right and inner masks, index planes."""
    board, has_left, has_right = (
        from_grid_np(np.asarray(mask).reshape(size, size), size)
        for mask in (
            np.ones(size * size, bool),
            np.arange(size * size) % size > 0,
            np.arange(size * size) % size < size - 1,
        )
    )
    inner = np.zeros((size, size), bool)
    inner[1:-1, 1:-1] = True
    planes = index_planes(size)  # [L, W]
    return {
        "board": tuple(int(v) for v in board),
        "left": tuple(int(v) for v in has_left),
        "right": tuple(int(v) for v in has_right),
        "inner": tuple(int(v) for v in from_grid_np(inner, size)),
        "planes": tuple(tuple(int(v) for v in plane) for plane in planes),
    }


class WordTuples:
    """Bitboards as tuples of words (:data:`Words`), for the light playout kernel.

    A bitboard of ``W`` words is kept as the tuple of its words, each an
    array of any shape (``[]`` for one game, ``[B]`` or ``[B, K]`` for a
    batch): every operation, the neighbour shifts included, is then
    elementwise over games, which a CPU vectorises, instead of shuffling a
    short last axis of ``W`` words. Same bit order as the words-last
    functions; the flood fill of :func:`flood_fill` runs on this layout too.

    A namespace of static functions (no instances). Shapes: ``N`` board
    side, ``P = N * N``, ``W`` words, ``L = ceil(log2 P)`` liberty planes.
    """

    constants = staticmethod(_tuple_constants)

    @staticmethod
    def words(x: jax.Array) -> Words:
        """``uint32[..., W]`` as :data:`Words`."""
        return tuple(x[..., w] for w in range(x.shape[-1]))

    @staticmethod
    def stacked(x: Words) -> jax.Array:
        """:data:`Words` as ``uint32[..., W]``."""
        return jnp.stack(x, axis=-1)

    @staticmethod
    def u32(value: int) -> jax.Array:
        """A ``uint32`` constant."""
        return jnp.uint32(value)

    @staticmethod
    def _move(x: Words, offset: int) -> Words:
        """``out[p] = x[p + offset]`` on the bit string (zero past either end), ``|offset| < 32``."""
        last, out = len(x) - 1, []
        for w, word in enumerate(x):
            if offset > 0:
                part = word >> offset
                out.append(part if w == last else part | (x[w + 1] << (WORD_BITS - offset)))
            else:
                part = word << -offset
                out.append(part if w == 0 else part | (x[w - 1] >> (WORD_BITS + offset)))
        return tuple(out)

    @staticmethod
    def shift(x: Words, rows: int, cols: int, size: int) -> Words:
        """``out[r, c] = x[r + rows, c + cols]``, zero where that point is off the board."""
        c = WordTuples.constants(size)
        keep = c["right"] if cols == 1 else c["left"] if cols == -1 else c["board"]
        return tuple(
            word & WordTuples.u32(k & b)
            for word, k, b in zip(WordTuples._move(x, rows * size + cols), keep, c["board"], strict=True)
        )

    @staticmethod
    def neighbours(x: Words, size: int) -> Words:
        """The points orthogonally next to a point of ``x``."""
        c = WordTuples.constants(size)
        right, left = WordTuples._move(x, -1), WordTuples._move(x, 1)
        below, above = WordTuples._move(x, -size), WordTuples._move(x, size)
        return tuple(
            ((r & WordTuples.u32(hl)) | (lt & WordTuples.u32(hr)) | bl | ab) & WordTuples.u32(b)
            for r, lt, bl, ab, hl, hr, b in zip(
                right, left, below, above, c["left"], c["right"], c["board"], strict=True
            )
        )

    @staticmethod
    def op(f: Callable[..., jax.Array], *xs: Words) -> Words:
        """``f`` applied word by word to the :data:`Words` ``xs``."""
        return tuple(f(*ws) for ws in zip(*xs, strict=True))

    @staticmethod
    def two_of_four(a: jax.Array, b: jax.Array, c: jax.Array, d: jax.Array) -> jax.Array:
        """The bits set in at least two of the four words (one word of each :data:`Words`)."""
        return (a & (b | c | d)) | (b & (c | d)) | (c & d)

    @staticmethod
    def count(x: Words) -> jax.Array:
        """``int32[...]``: set points."""
        return functools.reduce(jnp.add, [jax.lax.population_count(word).astype(jnp.int32) for word in x])

    @staticmethod
    def any_set(x: Words) -> jax.Array:
        """``bool[...]``: whether any point is set."""
        return functools.reduce(jnp.bitwise_or, x) != 0

    @staticmethod
    def point_bits(point: jax.Array, size: int) -> Words:
        """The bit of ``point`` (none for a point outside ``[0, P)``), shaped like ``point``."""
        inside = (point >= 0) & (point < size * size)
        bit = jnp.left_shift(jnp.uint32(1), (point & (WORD_BITS - 1)).astype(jnp.uint32))
        return tuple(
            jnp.where(inside & ((point >> 5) == w), bit, jnp.uint32(0)) for w in range(num_words(size))
        )

    @staticmethod
    def lowest_point(x: Words) -> jax.Array:
        """``int32[...]``: the first set point, or -1."""
        found = jnp.full(x[0].shape, -1, jnp.int32)
        for w in reversed(range(len(x))):
            low = jax.lax.population_count((x[w] & (~x[w] + jnp.uint32(1))) - jnp.uint32(1)).astype(jnp.int32)
            found = jnp.where(x[w] != 0, w * WORD_BITS + low, found)
        return found

    @staticmethod
    def select_rank(x: Words, rank: jax.Array) -> jax.Array:
        """``int32[...]``: the ``rank``-th set point of ``x`` (from 0); ``rank`` below ``count(x)``."""
        chosen, word = jnp.zeros_like(rank), jnp.zeros_like(x[0])
        before = jnp.zeros_like(rank)
        for w, part in enumerate(x):
            here = jax.lax.population_count(part).astype(jnp.int32)
            inside = (rank >= before) & (rank < before + here)
            chosen = jnp.where(inside, w * WORD_BITS, chosen)
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

    @staticmethod
    def label_match(labels: Words, atari: Words, target: jax.Array, size: int) -> Words:
        """The chains of ``atari`` whose liberty is ``target`` (-1: none), from their labels ``[..., L]``."""
        levels = len(WordTuples.constants(size)["planes"])
        out = []
        for lab, ata in zip(labels, atari, strict=True):
            found = ata
            for b in range(levels):
                bit = ((jnp.maximum(target, 0) >> b) & 1) == 1
                found = found & jnp.where(bit, lab[..., b], ~lab[..., b])
            out.append(jnp.where(target >= 0, found, jnp.uint32(0)))
        return tuple(out)
