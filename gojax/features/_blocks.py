"""Building blocks for feature planes: chains, liberties, what a move would do.

Each function is pure and works on ONE game (``jax.vmap`` it for a batch);
board-shaped results are ``[N, N]`` arrays (row 0 at the top), to be stacked
channels-last with :func:`stack_planes`. Everything is relative to the player
to move (the *mover*). Compose your own feature set::

    from gojax import features as F

    def my_features(config, state):
        chains = F.chains(config, state)
        return F.stack_planes(
            F.mover_stones(config, state),
            F.opponent_stones(config, state),
            F.one_hot_planes(chains.liberties, 4),   # 1, 2, 3, 4+ liberties
            F.legal_plane(config, state),
            F.edge_distance(config) / config.size,
        )

The chain analysis (labels, liberties, what a move would do) lives in
:mod:`gojax.features._chains`; its public names are re-exported here.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core import bitboard as bb
from gojax._core import checks
from gojax._core.rules import legal_action_mask
from gojax._core.types import GoConfig, GoState
from gojax.features._board_history import HISTORY_LENGTH, BoardHistory
from gojax.features._chains import (
    _EMPTY,
    _MOVER,
    _OFF_BOARD,
    _OPPONENT,
    Chains,
    MoveOutcomes,
    _extend,
    _neighbour_table,
    _offset_table,
    _relative_colours,
    capture_size,
    chain_labels,
    chain_sizes,
    chains,
    liberties,
    liberties_after_move,
    move_outcomes,
    self_atari_size,
)

__all__ = [
    "Chains",
    "MoveOutcomes",
    "capture_size",
    "chain_labels",
    "chain_sizes",
    "chains",
    "edge_distance",
    "empty_points",
    "legal_plane",
    "liberties",
    "liberties_after_move",
    "move_outcomes",
    "mover_eyes",
    "mover_komi",
    "mover_stones",
    "one_hot_planes",
    "ones",
    "opponent_stones",
    "self_atari_size",
    "stack_planes",
    "turns_since",
    "turns_since_planes",
    "zeros",
]


def _diagonal_table(size: int) -> np.ndarray:
    """``int32[P, 4]``: the diagonal neighbours of each point, ``P`` off board."""
    return _offset_table(size, ((-1, -1), (-1, 1), (1, -1), (1, 1)))


@functools.cache
def _edge_distance(size: int) -> np.ndarray:
    rows, cols = np.divmod(np.arange(size * size), size)
    far = size - 1
    return np.minimum(np.minimum(rows, cols), np.minimum(far - rows, far - cols)).reshape(size, size)


def turns_since(config: GoConfig, state: GoState, hist: BoardHistory) -> jax.Array:
    """``int32[N, N]``: how many moves ago each stone was played, 1 for the last move; 0 at empty points.

    Read off the board history: a stone is ``k`` moves old when it stands (in
    the same colour) on the boards of the last ``k`` times but not ``k`` moves
    ago. The history holds 8 boards, so the value is exact up to 7 and 8
    means "8 or more". Passes count as moves. Stones of a setup position
    (:func:`gojax.features.history_init` on ``from_board``) count as played
    the move before the history began (empty boards before it).

    Args:
      config: the rules.
      state: the current position.
      hist: its :class:`~gojax.features.BoardHistory` (``hist.stones[i]`` the
        board ``i`` moves ago).
    """
    older = bb.to_grid(_standing(state, hist), config.size)  # [8, N, N]
    return jnp.sum(older.astype(jnp.int32), axis=0)


def _standing(state: GoState, hist: BoardHistory) -> jax.Array:
    """``uint32[8, W]``: entry ``k`` the stones (either colour) that stood, in their colour,
    on each of the boards of the last ``k + 1`` times (entry 0 every stone), so a stone is
    ``k + 1`` or more moves old in entry ``k``."""
    now = state.stones  # [2, W]
    standing = [now[0] | now[1]]
    for ago in range(1, HISTORY_LENGTH):
        then = hist.stones[ago]
        standing.append(standing[-1] & ((now[0] & then[0]) | (now[1] & then[1])))
    return jnp.stack(standing)


def turns_since_planes(config: GoConfig, state: GoState, hist: BoardHistory) -> jax.Array:
    """``bool[N, N, 8]``: :func:`turns_since` one-hot (plane ``k`` the stones ``k + 1``
    moves old, the last plane 8 or more), from the bitboards with no integer plane."""
    standing = _standing(state, hist)
    exact = standing[:-1] & ~standing[1:]  # [7, W]: exactly k + 1 moves old
    planes = bb.to_grid(jnp.concatenate([exact, standing[-1:]]), config.size)  # [8, N, N]
    return jnp.moveaxis(planes, 0, -1)


def mover_komi(config: GoConfig, state: GoState) -> jax.Array:
    """``float32[]``: the komi for the player to move (``+komi`` for white, ``-komi`` for black),
    clipped to ``[-(P + 20), P + 20]`` (KataGo's input; a komi past the board's area decides nothing more)."""
    points = config.num_points
    mine = jnp.where(state.turn == 1, config.komi, -config.komi).astype(jnp.float32)
    return jnp.clip(mine, -points - 20.0, points + 20.0)


def mover_stones(config: GoConfig, state: GoState) -> jax.Array:
    """``bool[N, N]``: the mover's stones."""
    grid = bb.to_grid(state.stones, config.size)
    return jnp.where(state.turn == 0, grid[0], grid[1])


def opponent_stones(config: GoConfig, state: GoState) -> jax.Array:
    """``bool[N, N]``: the opponent's stones."""
    grid = bb.to_grid(state.stones, config.size)
    return jnp.where(state.turn == 0, grid[1], grid[0])


def empty_points(config: GoConfig, state: GoState) -> jax.Array:
    """``bool[N, N]``: the empty points."""
    grid = bb.to_grid(state.stones, config.size)
    return ~(grid[0] | grid[1])


def legal_plane(config: GoConfig, state: GoState) -> jax.Array:
    """``bool[N, N]``: the legal moves (``gojax.legal_action_mask`` without the pass entry)."""
    return legal_action_mask(config, state)[: config.num_points].reshape(config.size, config.size)


def mover_eyes(config: GoConfig, state: GoState) -> jax.Array:
    """``bool[N, N]``: the mover's eyes - points a sensible player does not fill.

    An empty point is an eye of the mover when every on-board orthogonal
    neighbour is a mover's stone and the opponent holds at most one of its
    diagonal neighbours - none if the point is on the edge or in the corner
    (a point with an off-board diagonal). Otherwise it could be a false eye.
    This is the usual playout-policy definition (Pachi, Michi); it does not
    check that the surrounding stones are connected.
    """
    size, points = config.size, config.num_points
    colours = _extend(_relative_colours(config, state), _OFF_BOARD)
    around = colours[jnp.asarray(_neighbour_table(size))]  # [P, 4]
    diagonal = colours[jnp.asarray(_diagonal_table(size))]
    enclosed = jnp.all((around == _MOVER) | (around == _OFF_BOARD), axis=1)
    opponent_corners = jnp.sum(diagonal == _OPPONENT, axis=1)
    on_edge = jnp.any(diagonal == _OFF_BOARD, axis=1)
    allowed = jnp.where(on_edge, 0, 1)
    eyes = (colours[:points] == _EMPTY) & enclosed & (opponent_corners <= allowed)
    return eyes.reshape(size, size)


def edge_distance(config: GoConfig) -> jax.Array:
    """``int32[N, N]``: distance to the nearest edge, 0 on the first line, 1 on the second, ..."""
    return jnp.asarray(_edge_distance(config.size), jnp.int32)


def ones(config: GoConfig, dtype=jnp.float32) -> jax.Array:
    """``dtype[N, N]`` of ones (lets a convolution see the board edge through its zero padding)."""
    return jnp.ones((config.size, config.size), dtype)


def zeros(config: GoConfig, dtype=jnp.float32) -> jax.Array:
    """``dtype[N, N]`` of zeros."""
    return jnp.zeros((config.size, config.size), dtype)


def one_hot_planes(values: jax.Array, num: int = 8) -> jax.Array:
    """One-hot ``bool[N, N, num]`` of a non-negative integer plane, capped at ``num``.

    Plane ``k`` is set where ``values == k + 1``; the last plane where
    ``values >= num`` ("``num`` or more"). Points with ``values <= 0`` have
    no plane set. This is the encoding of the AlphaGo integer features.

    Args:
      values: ``int[N, N]``.
      num: number of planes (static), at least 1.
    """
    num = checks.integer(num, "num", least=1)
    levels = jnp.arange(1, num + 1, dtype=jnp.int32)
    capped = jnp.minimum(jnp.asarray(values).astype(jnp.int32), num)
    return capped[..., None] == levels


def stack_planes(*planes: jax.Array, dtype=jnp.float32) -> jax.Array:
    """Channels-last ``dtype[N, N, C]`` from ``[N, N]`` planes and ``[N, N, c]`` stacks, in order.

    Raises:
      ValueError: if no plane is given or a plane is not 2- or 3-dimensional.
    """
    if not planes:
        raise ValueError("stack_planes needs at least one plane")
    parts = []
    for index, plane in enumerate(planes):
        plane = jnp.asarray(plane)
        if plane.ndim == 2:
            plane = plane[..., None]
        elif plane.ndim != 3:
            raise ValueError(f"plane {index} has shape {plane.shape}; expected [N, N] or [N, N, C]")
        parts.append(plane.astype(dtype))
    return jnp.concatenate(parts, axis=-1)
