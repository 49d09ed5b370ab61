"""What every player shares: the player signature, uniform sampling, eyes, results.

A **player** is any callable ``player(config, state, key) -> action`` on ONE
game: ``config`` the static :class:`gojax.GoConfig`, ``state`` a
:class:`gojax.GoState`, ``key`` a PRNG key, and the result an ``int32[]``
action in ``[0, P]`` (``P`` is pass). Batch it with ``jax.vmap`` over
``(state, key)``. Players with settings are small frozen dataclasses with a
``__call__`` (hashable, so they can be closed over or passed as static
arguments to ``jax.jit``).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core import bitboard as bb
from gojax._core.scoring import winner
from gojax._core.types import GoConfig, GoState

__all__ = ["Player", "own_eyes", "result_for", "sample_uniform"]

Player = Callable[[GoConfig, GoState, jax.Array], jax.Array]
"""``(config, state, key) -> int32[]`` action for ONE game."""


def sample_uniform(key: jax.Array, mask: jax.Array) -> jax.Array:
    """A uniformly random index among the ``True`` entries of ``mask``.

    One uniform number per mask (no Gumbel noise per entry): the
    ``floor(u * total)``-th ``True`` entry. The mask is packed into 32-bit
    words, the word holding that entry is found from the words' popcounts
    and the entry inside it from the popcounts of its prefixes
    (:func:`gojax._core.bitboard.select_points`) - a few fused operations on ``K``
    bits, where a prefix sum over all ``K`` entries costs a CPU as much as a
    fifth of a 19x19 ``step``.

    Args:
      key: PRNG key.
      mask: ``bool[K]``, or ``bool[..., K]`` for several masks at once (one
        key for all of them).

    Returns:
      ``int32[...]`` index of a ``True`` entry per mask; ``0`` where a mask
      is all ``False`` (the caller decides what to do then).
    """
    words = bb.pack(mask)  # [..., ceil(K / 32)]
    total = bb.count(words)
    pick = jnp.floor(jax.random.uniform(key, mask.shape[:-1]) * total).astype(jnp.int32)
    return jnp.maximum(bb.select_points(words, pick[..., None])[..., 0], 0)


@functools.cache
def _edge(size: int) -> np.ndarray:
    """``uint32[W]``: the points on the first line."""
    line = np.ones((size, size), bool)
    line[1:-1, 1:-1] = False
    return bb.from_grid_np(line, size)


def own_eyes(config: GoConfig, state: GoState) -> jax.Array:
    """``bool[P]``: the mover's one-point eyes, the points a playout should not fill.

    The usual playout definition (Pachi, Michi, :func:`gojax.features.mover_eyes`):
    an empty point whose on-board orthogonal neighbours are all the mover's
    stones, with at most one opponent stone on its diagonals - none if the
    point is on the first line. Computed on the bitboards with shifts (no
    gathers).
    """
    size = config.size
    full = jnp.asarray(bb.board_mask(size))
    mover = jnp.where(state.turn == 0, state.stones[0], state.stones[1])
    opponent = jnp.where(state.turn == 0, state.stones[1], state.stones[0])
    empty = full & ~(mover | opponent)
    # A point is enclosed when no on-board neighbour is empty or an opponent's stone.
    enclosed = empty & ~bb.neighbours(full & ~mover, size)
    diagonals = [bb.shift(opponent, dr, dc, size) for dr in (-1, 1) for dc in (-1, 1)]
    any_diagonal = diagonals[0] | diagonals[1] | diagonals[2] | diagonals[3]
    two_diagonals = jnp.zeros_like(any_diagonal)
    for i in range(4):
        for j in range(i + 1, 4):
            two_diagonals = two_diagonals | (diagonals[i] & diagonals[j])
    edge = jnp.asarray(_edge(size))
    eyes = enclosed & ~two_diagonals & ~(edge & any_diagonal)
    return bb.to_points(eyes, size)


def result_for(config: GoConfig, state: GoState, colour: jax.Array) -> jax.Array:
    """``float32[]``: +1 if ``colour`` wins ``state``, -1 if it loses, 0 for a draw.

    The result is :func:`gojax.winner`: a player who resigned or played an
    illegal move loses, otherwise the Tromp-Taylor area score decides - also
    for a game stopped by the move cap or still running (the classic players
    adjudicate unfinished playouts by area, as Monte-Carlo Go programs do).

    Args:
      config: the rules.
      state: a position (usually finished).
      colour: ``int[]`` colour *index* of the player whose view is wanted
        (0 black, 1 white), e.g. ``state.turn`` of an earlier position.
    """
    won = winner(config, state).astype(jnp.int32)
    mine = jnp.asarray(colour, jnp.int32) + 1
    return jnp.where(won == 0, 0.0, jnp.where(won == mine, 1.0, -1.0)).astype(jnp.float32)
