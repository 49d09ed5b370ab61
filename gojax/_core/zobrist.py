"""Zobrist keys: fixed, seeded NumPy tables, one per board size, and hashes made of them.

A position's hash is the XOR (per 32-bit word) of one key per stone, indexed
by point and colour; two words give 64 bits. The hash is updated
incrementally: placing or removing a stone XORs its key in. A set of stones
(a captured chain) is hashed with per-byte tables: entry ``[c, w, k, v]`` of
:attr:`ZobristTables.byte_keys` is the XOR of the colour-``c`` keys of the
points that byte value ``v`` of byte ``k`` of word ``w`` stands for, so a set
costs ``4 * W`` lookups instead of ``P`` selects (:func:`stones_hash`) - the
legal-move mask hashes every capturing move this way. Under the situational ko
rule, a key for the player to move is XOR-ed in as well.

The low ``INDEX_BITS`` bits of word 0 of the point keys are all distinct, so
the point (and colour) of a key can be recovered from its low bits: the
legal-move mask uses this to test every non-capturing move against the whole
history in ``O(H)`` instead of ``O(P * H)``.

Tables are plain NumPy arrays, built lazily on first use (nothing happens at
import) and cached per board size.

XOR and addition modulo 2**32 (which has the same properties) measured alike
(README, Performance); the hash is XOR.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core import bitboard as bb

__all__ = ["INDEX_BITS", "ZobristTables", "hash_of_board", "stones_hash", "tables"]

INDEX_BITS = 12  # 2 * 25 * 25 = 1250 keys fit in 4096 distinct low-bit slots.
_SEED = 0x60_1A_C5
_BYTES = 4  # bytes of a 32-bit word


class ZobristTables(NamedTuple):
    """Keys for one board size.

    Attributes:
      points: ``uint32[2, P, 2]`` key of a stone of colour index ``c`` on point
        ``p``, as two words.
      side: ``uint32[2, 2]`` key of the player to move (situational rule).
      inverse: ``int16[2, 2**INDEX_BITS]`` point whose colour-``c`` key has the
        given low bits of word 0, or -1.
      byte_keys: ``uint32[2, W, 4, 256, 2]`` (``W`` words of a bitboard): the
        XOR of the keys of the stones a byte of a bitboard word stands for -
        entry ``[c, w, k, v]`` XORs the colour-``c`` keys of the points
        ``32 * w + 8 * k + j`` for each set bit ``j`` of ``v``.
    """

    points: np.ndarray
    side: np.ndarray
    inverse: np.ndarray
    byte_keys: np.ndarray


# The key generator, written the same way in gojax/_native/rules.c (the native rules make
# their own copy of the tables): key ``i`` of an ``N x N`` board is SplitMix64's output for
# ``(_SEED << 40) ^ (N << 32) ^ i``; keys ``0 .. 2P - 1`` are the points' (colour-major),
# ``2P`` and ``2P + 1`` the players'. Word 0 is the low 32 bits; its low ``INDEX_BITS`` bits
# are then replaced by ``(i * _LOW_MULTIPLIER + _LOW_OFFSET) mod 2**INDEX_BITS``: an odd
# multiplier, so distinct for the ``2P <= 1250`` point keys.
_LOW_MULTIPLIER = 1427
_LOW_OFFSET = 977
_MASK64 = (1 << 64) - 1


def _splitmix64(x: np.ndarray) -> np.ndarray:
    """SplitMix64's finaliser of ``x + golden gamma`` (``uint64[...]``, wrapping arithmetic)."""
    z = x + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _keys(size: int, count: int) -> np.ndarray:
    """The first ``count`` keys of an ``N = size`` board: ``uint32[count, 2]``."""
    base = ((_SEED << 40) ^ (size << 32)) & _MASK64
    with np.errstate(over="ignore"):
        values = _splitmix64(np.uint64(base) ^ np.arange(count, dtype=np.uint64))
    return np.stack([values & np.uint64(0xFFFFFFFF), values >> np.uint64(32)], axis=-1).astype(np.uint32)


@functools.cache
def tables(size: int) -> ZobristTables:
    """Returns the (cached, read-only) Zobrist tables for an ``N = size`` board."""
    num_points = size * size
    keys = _keys(size, 2 * num_points + 2)
    points = keys[: 2 * num_points].reshape(2, num_points, 2).copy()
    side = keys[2 * num_points :].copy()
    slots = 1 << INDEX_BITS
    low = (
        ((np.arange(2 * num_points) * _LOW_MULTIPLIER + _LOW_OFFSET) % slots).astype(np.uint32).reshape(2, -1)
    )
    points[:, :, 0] = (points[:, :, 0] & np.uint32(~(slots - 1) & 0xFFFFFFFF)) | low
    inverse = np.full((2, slots), -1, dtype=np.int16)
    for colour in range(2):
        inverse[colour, low[colour]] = np.arange(num_points, dtype=np.int16)
    byte_keys = _byte_keys(size, points)
    for array in (points, side, inverse, byte_keys):
        array.setflags(write=False)
    return ZobristTables(points=points, side=side, inverse=inverse, byte_keys=byte_keys)


def _byte_keys(size: int, points: np.ndarray) -> np.ndarray:
    """:attr:`ZobristTables.byte_keys` from the point keys ``uint32[2, P, 2]``."""
    words = bb.num_words(size)
    keys = np.zeros((2, words * bb.WORD_BITS, 2), dtype=np.uint32)
    keys[:, : size * size] = points
    keys = keys.reshape(2, words, _BYTES, 8, 1, 2)
    values = np.arange(256)
    table = np.zeros((2, words, _BYTES, 256, 2), dtype=np.uint32)
    for bit in range(8):
        on = ((values >> bit) & 1).astype(bool)[:, None]  # [256, 1]
        table ^= np.where(on, keys[:, :, :, bit], np.uint32(0))
    return table


@bb.scoped
def stones_hash(x: jax.Array, colour: jax.typing.ArrayLike, size: int) -> jax.Array:
    """Zobrist hash of the stones ``x`` of colour index ``colour``.

    XOR (per word) of the keys of the set points, read from
    :attr:`ZobristTables.byte_keys`: ``4 * W`` lookups.

    Args:
      x: ``uint32[..., W]`` sets of points.
      colour: ``int[...]`` colour index of each set (broadcast with ``x[..., 0]``).
      size: ``N``.

    Returns:
      ``uint32[..., 2]``.
    """
    table = jnp.asarray(tables(size).byte_keys)  # [2, W, 4, 256, 2]
    shifts = (8 * jnp.arange(_BYTES, dtype=jnp.uint32))[None, :]
    values = ((x[..., :, None] >> shifts) & 255).astype(jnp.int32)  # [..., W, 4]
    colours = jnp.asarray(colour, jnp.int32)[..., None, None]
    words = jnp.arange(table.shape[1])[:, None]
    parts = table[colours, words, jnp.arange(_BYTES)[None, :], values]  # [..., W, 4, 2]
    return jax.lax.reduce(parts, np.uint32(0), jax.lax.bitwise_xor, (parts.ndim - 3, parts.ndim - 2))


def hash_of_board(size: int, board: np.ndarray) -> np.ndarray:
    """Host-side hash from scratch of an ``int8[N, N]`` board: ``uint32[2]``.

    Used by the invariant checker and by states built from diagrams.
    """
    keys = tables(size).points
    flat = np.asarray(board).reshape(-1)
    stones = np.concatenate([keys[colour][flat == colour + 1] for colour in range(2)])
    return np.bitwise_xor.reduce(stones, axis=0, initial=np.uint32(0)).astype(np.uint32)
