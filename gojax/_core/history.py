"""The position history that superko needs, as hash lists bucketed by stone counts.

A move can only recreate an earlier position that has as many black and as
many white stones as the position it makes. So each recorded position hash
is linked into the list of the positions with the same stone count modulo
``C = min(128, P + 1)`` and the same number of white stones modulo ``S``:
``M = C * S`` buckets, ``heads[b]`` the newest entry of bucket ``b`` and
``links[j]`` the next older one (:class:`HistoryLists`). Both numbers are known for every candidate
move before its hash is (a stone placed without capture adds one to the
count, and one to the white stones if it is white), so testing a move walks
one short list instead of comparing against all ``H`` entries, and every
plain (non-capturing) move is tested at once by walking the one list of the
positions such a move could recreate.

Under ``vmap`` a walk runs as many steps as the longest list in the batch:
splitting the lists by white stones shortens them. Up to 13x13 ``S = 4``;
larger boards keep one list per count (``S = 1``). On 19x19 the history is
5,784 bytes of hashes (``H = 723`` entries of two words), 1,446 of links and
256 of heads.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import TypeVar

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core import bitboard as bb
from gojax._core import loops
from gojax._core import zobrist as _zobrist
from gojax._core.types import GoConfig, GoState

__all__ = [
    "HistoryLists",
    "PositionKey",
    "bucket_of",
    "contains",
    "empty",
    "num_buckets",
    "plain_repeats",
    "record",
    "white_split",
]

_MAX_COUNT_CLASSES = 128
# Boards up to this size split each stone count's list in _WHITE_SPLIT by the
# number of white stones.
_MAX_SPLIT_SIZE = 13
_WHITE_SPLIT = 4

_Int = TypeVar("_Int", int, np.integer, jax.Array)
_Carry = TypeVar("_Carry")


@dataclasses.dataclass(frozen=True)
class HistoryLists:
    """The recorded positions of one game, as bucket lists (a view of three
    :class:`~gojax.GoState` fields).

    Attributes:
      entries: ``uint32[H, 2]`` situation hash of each recorded position
        (:attr:`GoState.history`).
      heads: ``int16[M]`` newest entry of each bucket, or -1
        (:attr:`GoState.history_head`).
      links: ``int16[H]`` next older entry of the same bucket, or -1
        (:attr:`GoState.history_prev`).
    """

    entries: jax.Array
    heads: jax.Array
    links: jax.Array

    @classmethod
    def of(cls, state: GoState) -> HistoryLists:
        """The history lists of ``state``."""
        return cls(entries=state.history, heads=state.history_head, links=state.history_prev)

    def into(self, state: GoState) -> GoState:
        """``state`` with its history replaced by these lists."""
        return state.replace(history=self.entries, history_head=self.heads, history_prev=self.links)


@dataclasses.dataclass(frozen=True)
class PositionKey:
    """What names a position in the history: its situation hash and its bucket.

    Attributes:
      situation: ``uint32[..., 2]`` the position hash, with the player to move
        XOR-ed in under the situational rule.
      count: ``int32[...]`` stones on the board.
      white: ``int32[...]`` white stones among them.
    """

    situation: jax.Array
    count: jax.Array
    white: jax.Array


def _count_classes(config: GoConfig) -> int:
    return min(_MAX_COUNT_CLASSES, config.num_points + 1)


def white_split(config: GoConfig) -> int:
    """``S``: lists per stone count, split by the number of white stones."""
    return _WHITE_SPLIT if config.size <= _MAX_SPLIT_SIZE else 1


def num_buckets(config: GoConfig) -> int:
    """``M = C * S``: number of buckets (0 under the simple ko rule)."""
    return _count_classes(config) * white_split(config) if config.history_length else 0


def bucket_of(config: GoConfig, count: _Int, white: _Int) -> _Int:
    """Bucket of positions with ``count`` stones, ``white`` of them white:
    works on Python, NumPy and JAX integers alike."""
    split = white_split(config)
    return (count % _count_classes(config)) * split + white % split


def empty(config: GoConfig) -> HistoryLists:
    """An empty history: ``uint32[H, 2]`` entries, ``int16[M]`` heads, ``int16[H]`` links."""
    return HistoryLists(
        entries=jnp.zeros((config.history_length, 2), jnp.uint32),
        heads=jnp.full((num_buckets(config),), -1, jnp.int16),
        links=jnp.full((config.history_length,), -1, jnp.int16),
    )


@bb.scoped
def record(
    config: GoConfig,
    lists: HistoryLists,
    index: jax.typing.ArrayLike,
    key: PositionKey,
    store: jax.typing.ArrayLike = True,
    link: jax.typing.ArrayLike = True,
) -> HistoryLists:
    """Stores the position ``key`` (one position: ``uint32[2]`` situation,
    ``int[]`` counts) as entry ``index``.

    ``store`` and ``link`` (``bool[]``) make the write conditional without
    touching the rest of the arrays: when ``store`` is false nothing changes;
    when ``link`` is false the entry is stored but not linked into a bucket.
    Writes are single-element scatters, so under ``jit`` the history is
    updated in place instead of being copied every move.
    """
    length, buckets = config.history_length, num_buckets(config)
    bucket = bucket_of(config, jnp.asarray(key.count, jnp.int32), jnp.asarray(key.white, jnp.int32))
    index = jnp.asarray(index, jnp.int32)
    linked = jnp.logical_and(store, link)
    links = lists.links.at[jnp.where(linked, index, length)].set(lists.heads[bucket], mode="drop")
    heads = lists.heads.at[jnp.where(linked, bucket, buckets)].set(index.astype(jnp.int16), mode="drop")
    entries = lists.entries.at[jnp.where(store, index, length)].set(key.situation, mode="drop")
    return HistoryLists(entries=entries, heads=heads, links=links)


def _walk(
    lists: HistoryLists,
    buckets: jax.Array,
    visit: Callable[[_Carry, jax.Array, jax.Array], _Carry],
    carry: _Carry,
    valid: jax.Array | None = None,
) -> _Carry:
    """Calls ``carry = visit(carry, entry_index, live)`` along the lists of
    ``buckets`` (``int[K]``; ``entry_index`` and ``live`` are ``[K]``); a lane
    whose ``valid`` (``bool[K]``, default all) is false walks nothing."""
    pointer = lists.heads[buckets].astype(jnp.int32)
    if valid is not None:
        pointer = jnp.where(valid, pointer, -1)

    def cond(loop: tuple[jax.Array, _Carry]) -> jax.Array:
        pointer, _ = loop
        return jnp.any(pointer >= 0)

    def body(loop: tuple[jax.Array, _Carry]) -> tuple[jax.Array, _Carry]:
        pointer, carry = loop
        live = pointer >= 0
        index = jnp.maximum(pointer, 0)
        carry = visit(carry, index, live)
        return jnp.where(live, lists.links[index].astype(jnp.int32), -1), carry

    return loops.while_loop(cond, body, (pointer, carry))[1]


@bb.scoped
def contains(
    config: GoConfig, lists: HistoryLists, keys: PositionKey, valid: jax.Array | None = None
) -> jax.Array:
    """Whether each position of ``keys`` (``uint32[K, 2]`` situations,
    ``int[K]`` counts) is in the history: ``bool[K]``. Positions whose
    ``valid`` (``bool[K]``, default all) is false are not looked for (``False``):
    their lanes add no step to the walk."""

    def visit(found: jax.Array, index: jax.Array, live: jax.Array) -> jax.Array:
        return found | (live & jnp.all(lists.entries[index] == keys.situation, axis=-1))

    buckets = bucket_of(config, keys.count, keys.white)
    return _walk(lists, buckets, visit, jnp.zeros(keys.count.shape, jnp.bool_), valid)


@bb.scoped
def plain_repeats(config: GoConfig, lists: HistoryLists, base: PositionKey, colour: jax.Array) -> jax.Array:
    """Points where a stone of ``colour`` that captures nothing would recreate a
    recorded situation: ``uint32[W]`` bitboard.

    ``base`` is the position before the move, with the situation key of the
    player to move after it (``uint32[2]``, ``int[]`` counts). Such a move
    makes ``base.situation ^ key[colour, p]`` with ``base.count + 1`` stones,
    ``base.white + colour`` of them white: one bucket. An entry of it matches
    iff its XOR with ``base.situation`` is a key, and the key's low bits name
    the point.
    """
    tables = _zobrist.tables(config.size)
    keys, inverse = jnp.asarray(tables.points), jnp.asarray(tables.inverse)
    mask = np.uint32((1 << _zobrist.INDEX_BITS) - 1)

    def visit(banned: jax.Array, index: jax.Array, live: jax.Array) -> jax.Array:  # index, live: [1]
        difference = lists.entries[index] ^ base.situation  # [1, 2]
        point = inverse[colour, (difference[:, 0] & mask).astype(jnp.int32)].astype(jnp.int32)
        hit = live & (point >= 0) & jnp.all(keys[colour, jnp.maximum(point, 0)] == difference, axis=-1)
        return banned | jnp.where(hit[0], bb.point_bits(point[0], config.size), jnp.uint32(0))

    bucket = bucket_of(config, base.count + 1, base.white + colour)
    return _walk(lists, bucket[None], visit, jnp.zeros((bb.num_words(config.size),), jnp.uint32))
