"""The position history that superko needs, as hash lists bucketed by stone counts.

A move can only recreate an earlier position that has as many black and as
many white stones as the position it makes. So each recorded position hash
is linked into the list of the positions with the same stone count modulo
``C = min(128, P + 1)`` and the same number of white stones modulo ``S``:
``M = C * S`` buckets, ``head[b]`` the newest entry of bucket ``b`` and
``prev[j]`` the next older one. Both numbers are known for every candidate
move before its hash is (a stone placed without capture adds one to the
count, and one to the white stones if it is white), so testing a move walks
one short list instead of comparing against all ``H`` entries, and every
plain (non-capturing) move is tested at once by walking the one list of the
positions such a move could recreate.

Under ``vmap`` a walk runs as many steps as the longest list in the batch:
splitting the lists by white stones shortens them. Up to 13x13 ``S = 4``;
larger boards keep one list per count (``S = 1``; on 19x19 two lists were
no faster): 5,784 bytes of hashes, 1,446 of links and 256 of heads.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core import bitboard as bb
from gojax._core import zobrist as _zobrist
from gojax._core.types import GoConfig

__all__ = ["contains", "empty", "num_buckets", "plain_repeats", "record"]

_MAX_COUNT_CLASSES = 128
# Boards up to this size split each stone count's list in _WHITE_SPLIT by the
# number of white stones.
_MAX_SPLIT_SIZE = 13
_WHITE_SPLIT = 4


def _count_classes(config: GoConfig) -> int:
    return min(_MAX_COUNT_CLASSES, config.num_points + 1)


def white_split(config: GoConfig) -> int:
    """``S``: lists per stone count, split by the number of white stones."""
    return _WHITE_SPLIT if config.size <= _MAX_SPLIT_SIZE else 1


def num_buckets(config: GoConfig) -> int:
    """``M = C * S``: number of buckets (0 under the simple ko rule)."""
    return _count_classes(config) * white_split(config) if config.history_length else 0


def bucket_of(config: GoConfig, count, white):
    """Bucket of positions with ``count`` stones, ``white`` of them white:
    works on NumPy and JAX integers alike."""
    split = white_split(config)
    return (count % _count_classes(config)) * split + white % split


def empty(config: GoConfig) -> tuple[jax.Array, jax.Array, jax.Array]:
    """An empty history: ``uint32[H, 2]`` entries, ``int16[M]`` heads, ``int16[H]`` links."""
    return (
        jnp.zeros((config.history_length, 2), jnp.uint32),
        jnp.full((num_buckets(config),), -1, jnp.int16),
        jnp.full((config.history_length,), -1, jnp.int16),
    )


@bb.scoped
def record(config, history, head, prev, index, situation, count, white, store=True, link=True):
    """Stores ``situation`` (``uint32[2]``) of a position with ``count`` stones,
    ``white`` of them white, as entry ``index``.

    ``store`` and ``link`` (``bool[]``) make the write conditional without
    touching the rest of the arrays: when ``store`` is false nothing changes;
    when ``link`` is false the entry is stored but not linked into a bucket.
    Writes are single-element scatters, so under ``jit`` the history is
    updated in place instead of being copied every move.
    """
    length, buckets = config.history_length, num_buckets(config)
    bucket = bucket_of(config, jnp.asarray(count, jnp.int32), jnp.asarray(white, jnp.int32))
    link = jnp.logical_and(store, link)
    prev = prev.at[jnp.where(link, index, length)].set(head[bucket], mode="drop")
    head = head.at[jnp.where(link, bucket, buckets)].set(jnp.asarray(index).astype(jnp.int16), mode="drop")
    history = history.at[jnp.where(store, index, length)].set(situation, mode="drop")
    return history, head, prev


def _walk(head, prev, buckets, visit, carry):
    """Calls ``carry = visit(carry, entry_index, live)`` along the lists of ``buckets``."""
    pointer = head[buckets].astype(jnp.int32)

    def cond(loop):
        pointer, _ = loop
        return jnp.any(pointer >= 0)

    def body(loop):
        pointer, carry = loop
        live = pointer >= 0
        index = jnp.maximum(pointer, 0)
        carry = visit(carry, index, live)
        return jnp.where(live, prev[index].astype(jnp.int32), -1), carry

    return jax.lax.while_loop(cond, body, (pointer, carry))[1]


@bb.scoped
def contains(config, history, head, prev, situations, counts, whites):
    """Whether each ``situations[k]`` (``uint32[K, 2]``) of a position with
    ``counts[k]`` stones, ``whites[k]`` of them white, is in the history:
    ``bool[K]``."""

    def visit(found, index, live):
        return found | (live & jnp.all(history[index] == situations, axis=-1))

    buckets = bucket_of(config, counts, whites)
    return _walk(head, prev, buckets, visit, jnp.zeros(counts.shape, jnp.bool_))


@bb.scoped
def plain_repeats(config, history, head, prev, base, count, white, colour):
    """Points where a stone of ``colour`` that captures nothing would recreate a
    recorded situation: ``uint32[W]`` bitboard.

    Such a move makes ``base + key[colour, p]`` with ``count + 1`` stones,
    ``white + colour`` of them white: one bucket. An entry of it
    matches iff its difference from ``base`` is a key, and the key's low bits
    name the point.
    """
    tables = _zobrist.tables(config.size)
    keys, inverse = jnp.asarray(tables.points), jnp.asarray(tables.inverse)
    mask = np.uint32((1 << _zobrist.INDEX_BITS) - 1)

    def visit(banned, index, live):  # index, live: [1]
        difference = history[index] - base  # [1, 2]
        point = inverse[colour, (difference[:, 0] & mask).astype(jnp.int32)].astype(jnp.int32)
        hit = live & (point >= 0) & jnp.all(keys[colour, jnp.maximum(point, 0)] == difference, axis=-1)
        return banned | jnp.where(hit[0], bb.point_bits(point[0], config.size), jnp.uint32(0))

    bucket = bucket_of(config, count + 1, white + colour)
    return _walk(head, prev, bucket[None], visit, jnp.zeros((bb.num_words(config.size),), jnp.uint32))
