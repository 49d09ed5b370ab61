"""The position history that superko needs, as hash lists bucketed by stone count.

A move can only recreate an earlier position that has the same number of
stones as the position it makes. So each recorded position hash is linked
into a list of the positions whose stone count is the same modulo
``M = min(128, P + 1)`` (``head[b]`` is the newest entry of bucket ``b`` and
``prev[j]`` the next older one). Testing a move against the history walks one
short list instead of comparing against all ``H`` entries, and testing every
plain (non-capturing) move at once walks the single list for ``count + 1``.

Storage for a 19x19 game with the default cap (``H = 723``): 5,784 bytes of
hashes, 1,446 of links and 256 of heads.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from gojax import _bitboard as bb
from gojax import _zobrist
from gojax._types import GoConfig

__all__ = ["contains", "empty", "num_buckets", "plain_repeats", "record"]

_MAX_BUCKETS = 128


def num_buckets(config: GoConfig) -> int:
    """``M``: number of stone-count buckets (0 under the simple ko rule)."""
    return min(_MAX_BUCKETS, config.num_points + 1) if config.history_length else 0


def empty(config: GoConfig) -> tuple[jax.Array, jax.Array, jax.Array]:
    """An empty history: ``uint32[H, 2]`` entries, ``int16[M]`` heads, ``int16[H]`` links."""
    return (
        jnp.zeros((config.history_length, 2), jnp.uint32),
        jnp.full((num_buckets(config),), -1, jnp.int16),
        jnp.full((config.history_length,), -1, jnp.int16),
    )


@bb.scoped
def record(config, history, head, prev, index, situation, count, store=True, link=True):
    """Stores ``situation`` (``uint32[2]``) of a ``count``-stone position as entry ``index``.

    ``store`` and ``link`` (``bool[]``) make the write conditional without
    touching the rest of the arrays: when ``store`` is false nothing changes;
    when ``link`` is false the entry is stored but not linked into a bucket.
    Writes are single-element scatters, so under ``jit`` the history is
    updated in place instead of being copied every move.
    """
    length, buckets = config.history_length, num_buckets(config)
    bucket = count % buckets
    link = jnp.logical_and(store, link)
    prev = prev.at[jnp.where(link, index, length)].set(head[bucket], mode="drop")
    head = head.at[jnp.where(link, bucket, buckets)].set(jnp.asarray(index).astype(jnp.int16), mode="drop")
    history = history.at[jnp.where(store, index, length)].set(situation, mode="drop")
    return history, head, prev


def _walk(config, head, prev, counts, visit, carry):
    """Calls ``carry = visit(carry, entry_index, live)`` along the lists of ``counts``."""
    pointer = head[counts % num_buckets(config)].astype(jnp.int32)

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
def contains(config, history, head, prev, situations, counts):
    """Whether each ``situations[k]`` (``uint32[K, 2]``) of a ``counts[k]``-stone
    position is in the history: ``bool[K]``."""

    def visit(found, index, live):
        return found | (live & jnp.all(history[index] == situations, axis=-1))

    return _walk(config, head, prev, counts, visit, jnp.zeros(counts.shape, jnp.bool_))


@bb.scoped
def plain_repeats(config, history, head, prev, base, count, colour):
    """Points where a stone of ``colour`` that captures nothing would recreate a
    recorded situation: ``uint32[W]`` bitboard.

    Such a move makes ``base + key[colour, p]`` with ``count + 1`` stones; an
    entry of that bucket matches iff its difference from ``base`` is a key,
    and the key's low bits name the point.
    """
    tables = _zobrist.tables(config.size)
    keys, inverse = jnp.asarray(tables.points), jnp.asarray(tables.inverse)
    mask = np.uint32((1 << _zobrist.INDEX_BITS) - 1)

    def visit(banned, index, live):
        difference = history[index] - base
        point = inverse[colour, (difference[0] & mask).astype(jnp.int32)].astype(jnp.int32)
        hit = live & (point >= 0) & jnp.all(keys[colour, jnp.maximum(point, 0)] == difference)
        return banned | jnp.where(hit, bb.point_bits(point, config.size), jnp.uint32(0))

    return _walk(config, head, prev, count + 1, visit, jnp.zeros((bb.num_words(config.size),), jnp.uint32))
