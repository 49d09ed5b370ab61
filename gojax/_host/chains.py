"""Chains and liberties on the host (NumPy), from ``int8[N, N]`` boards.

A chain is a maximal set of same-coloured stones joined through their four
neighbours; its liberties are the empty points next to it. Points are flat
indices ``row * N + col`` (``P = N * N`` points, row 0 at the top).

::

    labels = chain_labels(board)          # int64[N, N]: smallest point of each stone's chain, -1 empty
    for chain in chains(board):           # every chain once, in the order of its first point
        chain.points, chain.liberties     # int64[K], int64[L] (both sorted)
    chain_at(board, point).liberties      # the chain through one stone
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

__all__ = ["Chain", "chain_at", "chain_labels", "chains", "liberty_counts"]

_STEPS = ((-1, 0), (1, 0), (0, -1), (0, 1))


class Chain(NamedTuple):
    """One chain: ``points`` and ``liberties`` as sorted ``int64`` flat point indices."""

    points: np.ndarray
    liberties: np.ndarray


def chain_labels(boards) -> np.ndarray:
    """Smallest flat index of each stone's chain, ``-1`` on empty points.

    Args:
      boards: ``int[..., N, N]`` (0 empty, 1 black, 2 white), any leading axes.

    Returns:
      ``int64[..., N, N]``.
    """
    boards = np.asarray(boards)
    shape, size = boards.shape, boards.shape[-1]
    flat = boards.reshape(-1, size, size)
    big = size * size
    stones = flat > 0
    # stones of one colour beside each other: in a column, in a row
    vertical = (flat[:, 1:, :] == flat[:, :-1, :]) & stones[:, 1:, :]
    horizontal = (flat[:, :, 1:] == flat[:, :, :-1]) & stones[:, :, 1:]
    labels = np.where(stones, np.arange(big).reshape(size, size), big)
    games = np.arange(flat.shape[0])[:, None]
    while True:
        best = labels.copy()
        below, above = best[:, :-1, :], best[:, 1:, :]
        np.minimum(below, np.where(vertical, labels[:, 1:, :], big), out=below)
        np.minimum(above, np.where(vertical, labels[:, :-1, :], big), out=above)
        right, left = best[:, :, :-1], best[:, :, 1:]
        np.minimum(right, np.where(horizontal, labels[:, :, 1:], big), out=right)
        np.minimum(left, np.where(horizontal, labels[:, :, :-1], big), out=left)
        # a stone's label names a stone of its chain: take that stone's label too
        jumped = best.reshape(len(best), -1)
        jumped = np.minimum(jumped, np.append(jumped, np.full((len(best), 1), big), 1)[games, jumped])
        best = jumped.reshape(best.shape)
        if np.array_equal(best, labels):
            return np.where(stones, labels, -1).reshape(shape)
        labels = best


def _liberty_pairs(board: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """``int64[K, 2]`` distinct ``(chain label, liberty)`` pairs, sorted by label then point."""
    size = board.shape[0]
    empty = np.flatnonzero(board.reshape(-1) == 0)
    rows, cols = np.divmod(empty, size)
    pairs = [np.zeros((0, 2), np.int64)]
    for dr, dc in _STEPS:
        r, c = rows + dr, cols + dc
        on = (r >= 0) & (r < size) & (c >= 0) & (c < size)
        neighbour = labels[r[on], c[on]]
        keep = neighbour >= 0
        pairs.append(np.stack([neighbour[keep], empty[on][keep]], axis=1).astype(np.int64))
    return np.unique(np.concatenate(pairs), axis=0)


def liberty_counts(board, labels=None) -> tuple[np.ndarray, np.ndarray]:
    """Number of distinct liberties of each chain, and one of its liberties.

    Args:
      board: ``int[N, N]`` one board.
      labels: its :func:`chain_labels` (computed if not given).

    Returns:
      ``(counts, liberty)``, each ``int64[P + 1]`` indexed by chain label: the
      liberty count (0 for labels that are no chain) and one of its liberties
      (``-1`` if none). Index ``-1`` (the label of empty points) holds 0 and -1.
    """
    board = np.asarray(board)
    labels = chain_labels(board) if labels is None else np.asarray(labels)
    points = board.size
    unique = _liberty_pairs(board, labels)
    counts = np.bincount(unique[:, 0], minlength=points + 1)
    counts[-1] = 0
    liberty = np.full(points + 1, -1, np.int64)
    liberty[unique[:, 0]] = unique[:, 1]
    liberty[-1] = -1
    return counts, liberty


def chains(board) -> list[Chain]:
    """Every chain of an ``int[N, N]`` board, in the order of its smallest point."""
    board = np.asarray(board)
    labels = chain_labels(board)
    flat = labels.reshape(-1)
    pairs = _liberty_pairs(board, labels)
    roots = np.flatnonzero(flat == np.arange(flat.size))
    starts = np.searchsorted(pairs[:, 0], roots, side="left")
    stops = np.searchsorted(pairs[:, 0], roots, side="right")
    return [
        Chain(np.flatnonzero(flat == root).astype(np.int64), pairs[start:stop, 1])
        for root, start, stop in zip(roots, starts, stops, strict=True)
    ]


def chain_at(board, point: int) -> Chain:
    """The chain through the stone at flat index ``point`` of an ``int[N, N]`` board.

    Raises:
      ValueError: if the point is empty.
    """
    board = np.asarray(board)
    if board.reshape(-1)[point] == 0:
        raise ValueError(f"point {point} is empty: it is on no chain")
    labels = chain_labels(board)
    flat = labels.reshape(-1)
    root = flat[point]
    pairs = _liberty_pairs(board, labels)
    return Chain(np.flatnonzero(flat == root).astype(np.int64), pairs[pairs[:, 0] == root, 1])
