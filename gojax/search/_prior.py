"""The tree's prior: a win rate for each move of a new node, from a few Go rules of thumb.

The prior enters the selection as *equivalent experience* (Gelly & Silver
2007; Fuego, Pachi): ``prior_visits`` virtual AMAF samples at the prior's win
rate, so a few real playouts soon outweigh it. The rates, for the player to
move at the node (later rules override earlier ones):

========================================  =====
every point                               0.5
a point on the first line                 0.4 (a corner 0.3)
a self-atari that captures nothing        0.2
one of the mover's own one-point eyes     0.05
an escape from atari (>= 2 liberties)     0.7
a capture                                 0.8
========================================  =====

Pass gets ``pass_prior`` on the host. Cost: one chain analysis of the new
position (:func:`gojax.features.move_outcomes`), once per expanded node.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core import bitboard as bb
from gojax._core.types import GoConfig, GoState
from gojax.features import move_outcomes
from gojax.playouts import own_eyes

__all__ = ["RATES", "point_priors"]

RATES = {
    "base": 0.5,
    "edge": 0.4,
    "corner": 0.3,
    "self_atari": 0.2,
    "own_eye": 0.05,
    "escape": 0.7,
    "capture": 0.8,
}
"""The prior win rates of the rules of thumb (see the module docstring)."""


def _lines(size: int) -> tuple[np.ndarray, np.ndarray]:
    """``bool[P]`` first-line points and corners."""
    rows, cols = np.divmod(np.arange(size * size), size)
    row_edge = (rows == 0) | (rows == size - 1)
    col_edge = (cols == 0) | (cols == size - 1)
    return row_edge | col_edge, row_edge & col_edge


def point_priors(config: GoConfig, state: GoState) -> jax.Array:
    """``float32[P]``: the prior win rate of each point for the player to move at ``state``.

    Occupied and illegal points get a rate too (the tree masks them).
    """
    size, points = config.size, config.num_points
    outcomes = move_outcomes(config, state)
    captures = outcomes.capture_size.reshape(points) > 0
    self_atari = (outcomes.self_atari_size.reshape(points) > 0) & ~captures
    mover_atari = jnp.where(state.turn == 0, state.atari[0], state.atari[1])
    empty = jnp.asarray(bb.board_mask(size)) & ~(state.stones[0] | state.stones[1])
    atari_liberties = bb.to_points(bb.neighbours(mover_atari, size) & empty, size)
    escape = atari_liberties & (outcomes.liberties_after.reshape(points) >= 2)
    edge, corner = _lines(size)
    rate = jnp.full((points,), RATES["base"], jnp.float32)
    if size >= 5:
        rate = jnp.where(edge, RATES["edge"], rate)
        rate = jnp.where(corner, RATES["corner"], rate)
    rate = jnp.where(self_atari, RATES["self_atari"], rate)
    rate = jnp.where(own_eyes(config, state), RATES["own_eye"], rate)
    rate = jnp.where(escape, RATES["escape"], rate)
    return jnp.where(captures, RATES["capture"], rate).astype(jnp.float32)
