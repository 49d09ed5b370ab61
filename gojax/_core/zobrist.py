"""Zobrist keys: fixed, seeded NumPy tables, one per board size.

A position's hash is the sum (per 32-bit word, modulo 2**32) of one key per
stone, indexed by point and colour. Summing instead of XOR-ing keeps every
property Zobrist hashing is used for - the hash is updated incrementally by
adding a placed stone's key and subtracting captured stones' keys, and two
words give 64 bits - while also letting a chain's hash be computed with a
segment sum, which the legal-move mask needs to hash every capturing move at
once. Under the situational ko rule, a key for the player to move is added.

The low ``INDEX_BITS`` bits of word 0 of the point keys are all distinct, so
the point (and colour) of a key can be recovered from its low bits: the
legal-move mask uses this to test every non-capturing move against the whole
history in ``O(H)`` instead of ``O(P * H)``.

Tables are plain NumPy arrays, built lazily on first use (nothing happens at
import) and cached per board size.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

__all__ = ["INDEX_BITS", "ZobristTables", "tables"]

INDEX_BITS = 12  # 2 * 25 * 25 = 1250 keys fit in 4096 distinct low-bit slots.
_SEED = 0x60_1A_C5


class ZobristTables(NamedTuple):
    """Keys for one board size.

    Attributes:
      points: ``uint32[2, P, 2]`` key of a stone of colour index ``c`` on point
        ``p``, as two words.
      side: ``uint32[2, 2]`` key of the player to move (situational rule).
      inverse: ``int16[2, 2**INDEX_BITS]`` point whose colour-``c`` key has the
        given low bits of word 0, or -1.
      byte_sums: ``uint32[2, W, 4, 256, 2]`` (``W`` words of a bitboard): the
        sum of the keys of the stones a byte of a bitboard word stands for -
        entry ``[c, w, k, v]`` sums the colour-``c`` keys of the points
        ``32 * w + 8 * k + j`` for each set bit ``j`` of ``v``. A set of stones
        is hashed with ``4 * W`` lookups instead of ``P`` selects.
    """

    points: np.ndarray
    side: np.ndarray
    inverse: np.ndarray
    byte_sums: np.ndarray


@functools.cache
def tables(size: int) -> ZobristTables:
    """Returns the (cached, read-only) Zobrist tables for an ``N = size`` board."""
    num_points = size * size
    rng = np.random.default_rng([_SEED, size])
    points = rng.integers(0, 2**32, size=(2, num_points, 2), dtype=np.uint32)
    side = rng.integers(0, 2**32, size=(2, 2), dtype=np.uint32)
    slots = 1 << INDEX_BITS
    low = rng.permutation(slots)[: 2 * num_points].astype(np.uint32).reshape(2, num_points)
    points[:, :, 0] = (points[:, :, 0] & np.uint32(~(slots - 1) & 0xFFFFFFFF)) | low
    inverse = np.full((2, slots), -1, dtype=np.int16)
    for colour in range(2):
        inverse[colour, low[colour]] = np.arange(num_points, dtype=np.int16)
    byte_sums = _byte_sums(size, points)
    for array in (points, side, inverse, byte_sums):
        array.setflags(write=False)
    return ZobristTables(points=points, side=side, inverse=inverse, byte_sums=byte_sums)


def _byte_sums(size: int, points: np.ndarray) -> np.ndarray:
    words = -(-size * size // 32)
    bits = (np.arange(256)[:, None] >> np.arange(8)) & 1  # [256, 8]
    keys = np.zeros((2, words * 32, 2), dtype=np.uint64)
    keys[:, : size * size] = points
    keys = keys.reshape(2, words, 4, 8, 2)
    sums = np.einsum("vj,cwkjx->cwkvx", bits.astype(np.uint64), keys)
    return (sums % (1 << 32)).astype(np.uint32)


def hash_of_board(size: int, board: np.ndarray) -> np.ndarray:
    """Host-side hash from scratch of an ``int8[N, N]`` board: ``uint32[2]``.

    Used by the invariant checker and by states built from diagrams.
    """
    keys = tables(size).points
    flat = np.asarray(board).reshape(-1)
    total = np.zeros(2, dtype=np.uint64)
    for colour in range(2):
        total += keys[colour][flat == colour + 1].astype(np.uint64).sum(axis=0)
    return (total % (1 << 32)).astype(np.uint32)
