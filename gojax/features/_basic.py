"""The ``"basic"`` observation: 15 planes from the :class:`gojax.GoState` alone (AlphaZero's default input).

:func:`basic_planes` needs no board history (unlike the AlphaGo Zero preset
:func:`gojax.features.alphago_zero_planes`), so a search can use the
:class:`gojax.GoState` itself as its embedding (as :mod:`gojax.alphazero`
does with mctx) and compute the planes of any node from it. The planes are
from the point of view of the player to move (the *mover*), channels last;
:data:`BASIC_CHANNELS` names the channel positions (use them rather than the
numbers)::

    planes = basic_planes(config, state)              # float32[N, N, 15]
    atari = planes[..., BASIC_CHANNELS.mover_liberties][..., 0]   # mover chains in atari

It is registered as ``"basic"`` (:func:`gojax.features.observation`). The
channel table is in ``docs/features.md`` ("AlphaZero basic planes").
Every plane is 0 or 1. Two variants read the position alone as well:
:func:`basic_ladder_planes` (``"basic_ladders"``: and two ladder planes) and
:func:`basic_komi_planes` (``"basic_komi"``: and the komi, for a network that
plays at any komi). Under the 8 board symmetries the planes of a
transformed position are the transformed planes (``gojax.symmetry``).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from gojax._core.types import GoConfig, GoState
from gojax.features import _blocks, _chains
from gojax.features.ladders import _planes as _ladders

__all__ = [
    "BASIC_CHANNELS",
    "BASIC_KOMI_NUM_CHANNELS",
    "BASIC_LADDERS_NUM_CHANNELS",
    "BASIC_NUM_CHANNELS",
    "BasicChannels",
    "basic_komi_planes",
    "basic_ladder_planes",
    "basic_planes",
]

_LIBERTY_LEVELS = 3  # one-hot liberties 1, 2, 3+


class BasicChannels(NamedTuple):
    """Channel positions of :func:`basic_planes` (``int`` or ``slice``).

    Attributes:
      mover: the mover's stones.
      opponent: the opponent's stones.
      empty: empty points.
      mover_liberties: ``slice`` of 3: the mover's stones whose chain has 1, 2, 3+ liberties.
      opponent_liberties: ``slice`` of 3: the same for the opponent's stones.
      legal: the mover's legal points (ko and superko bans excluded; pass is not a point).
      ko: the point the mover may not retake because of a simple ko (all 0 if none).
      last_move: the point of the last move (all 0 after a pass or at the start).
      passed: all 1 when the last move was a pass (one more pass ends the game).
      black_to_move: all 1 when black is to move (komi makes the colour matter).
      ones: all 1 (shows the board edge to a zero-padded convolution).
      num_channels: total number of channels (15).
    """

    mover: int
    opponent: int
    empty: int
    mover_liberties: slice
    opponent_liberties: slice
    legal: int
    ko: int
    last_move: int
    passed: int
    black_to_move: int
    ones: int
    num_channels: int


BASIC_NUM_CHANNELS = 9 + 2 * _LIBERTY_LEVELS
BASIC_CHANNELS = BasicChannels(
    mover=0,
    opponent=1,
    empty=2,
    mover_liberties=slice(3, 3 + _LIBERTY_LEVELS),
    opponent_liberties=slice(3 + _LIBERTY_LEVELS, 3 + 2 * _LIBERTY_LEVELS),
    legal=3 + 2 * _LIBERTY_LEVELS,
    ko=4 + 2 * _LIBERTY_LEVELS,
    last_move=5 + 2 * _LIBERTY_LEVELS,
    passed=6 + 2 * _LIBERTY_LEVELS,
    black_to_move=7 + 2 * _LIBERTY_LEVELS,
    ones=8 + 2 * _LIBERTY_LEVELS,
    num_channels=BASIC_NUM_CHANNELS,
)
BASIC_LADDERS_NUM_CHANNELS = BASIC_NUM_CHANNELS + 2
"""Channels of :func:`basic_ladder_planes`: the 15 basic planes, ladder captures, ladder escapes."""
BASIC_KOMI_NUM_CHANNELS = BASIC_NUM_CHANNELS + 1
"""Channels of :func:`basic_komi_planes`: the 15 basic planes and the komi."""


def _point_plane(config: GoConfig, point: jax.Array) -> jax.Array:
    """``bool[N, N]``: True at ``point`` when it is a point of the board (not -1, not pass)."""
    index = jnp.arange(config.num_points, dtype=jnp.int32).reshape(config.size, config.size)
    return index == jnp.asarray(point, jnp.int32)


def basic_planes(config: GoConfig, state: GoState, dtype=jnp.float32) -> jax.Array:
    """The ``"basic"`` observation of ONE game (see :class:`BasicChannels`).

    Args:
      config: the rules.
      state: the position.
      dtype: output dtype (every value is 0 or 1, so ``bool``/``uint8`` are exact).

    Returns:
      ``dtype[N, N, 15]``, channels in the order of :data:`BASIC_CHANNELS`.
    """
    return _basic(config, state, _blocks.legal_plane(config, state), dtype)


def _basic(config: GoConfig, state: GoState, legal: jax.Array, dtype) -> jax.Array:
    """:func:`basic_planes` given the legal plane (``bool[N, N]``), which other planes read too."""
    mover = _blocks.mover_stones(config, state)
    opponent = _blocks.opponent_stones(config, state)
    libs = _blocks.one_hot_planes(_blocks.liberties(config, state), _LIBERTY_LEVELS)  # [N, N, 3]
    constant = jnp.ones((config.size, config.size), jnp.bool_)
    return _blocks.stack_planes(
        mover,
        opponent,
        _blocks.empty_points(config, state),
        libs & mover[..., None],
        libs & opponent[..., None],
        legal,
        _point_plane(config, state.ko_point),
        _point_plane(config, state.last_move),
        constant & (state.last_move == config.pass_action),
        constant & (state.turn == 0),
        constant,
        dtype=dtype,
    )


def basic_ladder_planes(config: GoConfig, state: GoState, dtype=jnp.float32) -> jax.Array:
    """The ``"basic_ladders"`` observation of ONE game: :func:`basic_planes` and two ladder planes.

    Channels 0-14 are :func:`basic_planes`; channel 15 the mover's legal
    moves that capture an opponent chain by ladder
    (:func:`gojax.features.ladder_capture_plane`), channel 16 the mover's
    legal moves that save a chain in atari from a ladder
    (:func:`gojax.features.ladder_escape_plane`). Like the basic planes it
    reads the :class:`gojax.GoState` alone, so a search can compute it at
    every node.

    Args:
      config: the rules.
      state: the position.
      dtype: output dtype (every value is 0 or 1).

    Returns:
      ``dtype[N, N, 17]``.
    """
    legal = _blocks.legal_plane(config, state)
    # Both planes' reads in one pool.
    ladders = jnp.stack(_ladders._both_planes(config, state, _chains._analyse(config, state), legal), axis=-1)
    return jnp.concatenate([_basic(config, state, legal, jnp.bool_), ladders], axis=-1).astype(dtype)


def basic_komi_planes(config: GoConfig, state: GoState, dtype=jnp.float32) -> jax.Array:
    """The ``"basic_komi"`` observation of ONE game: :func:`basic_planes` and the komi.

    Channels 0-14 are :func:`basic_planes`; channel 15 holds, at every point,
    the komi for the player to move divided by 20 (``+komi / 20`` when white
    is to move, ``-komi / 20`` when black is; clipped to ``(P + 20) / 20``), as
    KataGo's input does. A network trained on games of many komis
    (``gojax-train --komi-spread``) reads the komi here, so it plays at any
    komi, the one a GTP ``komi`` command sets included. ``config.komi`` may
    be data (a ``float32[]`` array; :class:`gojax.GoConfig`).

    Args:
      config: the rules, with the komi.
      state: the position.
      dtype: output dtype: a floating one (the komi plane is not 0 or 1).

    Returns:
      ``dtype[N, N, 16]``.
    """
    komi = jnp.broadcast_to(_blocks.mover_komi(config, state) / 20.0, (config.size, config.size, 1))
    return jnp.concatenate([basic_planes(config, state, dtype), komi.astype(dtype)], axis=-1)
