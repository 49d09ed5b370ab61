"""The tree's prior: a win rate for each move of a new node, from a few Go rules of thumb.

The prior enters the selection as *equivalent experience* (Gelly & Silver
2007; Fuego, Pachi): ``prior_visits`` virtual AMAF samples at the prior's win
rate, so a few real playouts soon outweigh it. The rates, for the player to
move at the node (later rules override earlier ones):

========================================  =====
every point                               0.5
a point on the first line                 0.4 (a corner 0.3)
*open area* on line 1 or 2                0.3
*open area* on line 3 or 4                0.6
within two points of the last move        at least 0.55
a self-atari that captures nothing        0.2
one of the mover's own one-point eyes     0.05
an escape from atari (>= 2 liberties)     0.7
a capture                                 0.8
========================================  =====

The italic rules apply when asked for (``opening``; a search's
``TreeSearchSettings.opening_prior``) on boards of :data:`OPENING_SIZE` and
more, where the opening is long: an *open area* point has no stone within three points of it
(a 7x7 square), and its line is its distance to the nearest edge plus one.
They steer the search's first moves to the third and fourth lines, where the
playouts alone favour the second (Pachi's "empty area" prior), and keep it
answering near the last move (distance by rows plus columns). Smaller boards
use the other rules only. They move the search's first moves only with a
heavy prior (``prior_visits`` in the hundreds): the prior's samples are AMAF
samples, and the playouts give every point thousands.

Pass gets ``pass_prior`` on the host. Cost: one chain analysis of the new
position (:func:`gojax.features.move_outcomes`), once per expanded node.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core import bitboard as bb
from gojax._core.types import GoConfig, GoState
from gojax.features import move_outcomes
from gojax.playouts import own_eyes

__all__ = ["OPENING_SIZE", "RATES", "point_priors"]

RATES = {
    "base": 0.5,
    "edge": 0.4,
    "corner": 0.3,
    "open_low": 0.3,
    "open_high": 0.6,
    "near_last": 0.55,
    "self_atari": 0.2,
    "own_eye": 0.05,
    "escape": 0.7,
    "capture": 0.8,
}
"""The prior win rates of the rules of thumb (see the module docstring)."""

OPENING_SIZE = 13
"""The smallest board on which the open-area and last-move rules apply."""


def _lines(size: int) -> tuple[np.ndarray, np.ndarray]:
    """``bool[P]`` first-line points and corners."""
    _, rows, cols = _geometry(size)
    row_edge = (rows == 0) | (rows == size - 1)
    col_edge = (cols == 0) | (cols == size - 1)
    return row_edge | col_edge, row_edge & col_edge


@functools.cache
def _geometry(size: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(line, rows, cols)``, each ``int32[P]``: the line of each point (1 on the edge), its coordinates."""
    rows, cols = np.divmod(np.arange(size * size, dtype=np.int32), size)
    line = np.minimum(np.minimum(rows, cols), np.minimum(size - 1 - rows, size - 1 - cols)) + 1
    return line, rows, cols


def _opening(size: int, state: GoState, rate: jax.Array) -> jax.Array:
    """``rate`` with the open-area and last-move rules (boards of :data:`OPENING_SIZE` and more)."""
    near = state.stones[0] | state.stones[1]
    for dr, dc in ((0, 1), (0, 1), (0, 1), (1, 0), (1, 0), (1, 0)):  # a 7x7 square around each stone
        near = near | bb.shift(near, dr, dc, size) | bb.shift(near, -dr, -dc, size)
    open_area = ~bb.to_points(near, size)
    line, rows, cols = _geometry(size)
    rate = jnp.where(open_area & (line <= 2), RATES["open_low"], rate)
    rate = jnp.where(open_area & ((line == 3) | (line == 4)), RATES["open_high"], rate)
    last = state.last_move.astype(jnp.int32)
    on_board = (last >= 0) & (last < size * size)
    distance = jnp.abs(rows - last // size) + jnp.abs(cols - last % size)
    return jnp.where(on_board & (distance <= 2), jnp.maximum(rate, RATES["near_last"]), rate)


def point_priors(config: GoConfig, state: GoState, opening: bool = False) -> jax.Array:
    """``float32[P]``: the prior win rate of each point for the player to move at ``state``.

    Occupied and illegal points get a rate too (the tree masks them); ``opening`` (static) adds
    the open-area and last-move rules on boards of :data:`OPENING_SIZE` and more.
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
    if opening and size >= OPENING_SIZE:
        rate = _opening(size, state, rate)
    rate = jnp.where(self_atari, RATES["self_atari"], rate)
    rate = jnp.where(own_eyes(config, state), RATES["own_eye"], rate)
    rate = jnp.where(escape, RATES["escape"], rate)
    return jnp.where(captures, RATES["capture"], rate).astype(jnp.float32)
