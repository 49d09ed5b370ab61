"""AlphaGo Zero's 17 input planes (Silver et al. 2017, "Mastering the game of Go
without human knowledge", Methods, "Neural network architecture").

Channels last, ``[N, N, 17]``, in the paper's order
``[X_t, Y_t, X_{t-1}, Y_{t-1}, ..., X_{t-7}, Y_{t-7}, C]``: ``X_{t-i}`` are the
stones of the player to move *now* as they stood ``i`` moves ago (passes
count as moves), ``Y_{t-i}`` the opponent's, and ``C`` is all ones when black
is to move, all zeros when white is. Times before the first move show empty
boards. pgx's ``go`` observation uses the same order but sets its colour
plane when *white* is to move: ``colour_plane="white"`` gives exactly pgx's
planes (the ``"pgx"`` observation of the registry).

=========  =================================================  =======
channel    meaning                                            dtype
=========  =================================================  =======
2i         mover's stones ``i`` moves ago (i = 0..7)          float32
2i + 1     opponent's stones ``i`` moves ago (i = 0..7)       float32
16         1 when black is to move                            float32
=========  =================================================  =======

Use :data:`AGZ_CHANNELS` instead of these numbers:
``planes[..., AGZ_CHANNELS.own]`` is ``[N, N, 8]`` (times ``t .. t-7``).

Cost: unpacking ``8 x 2`` bitboards of ``N`` words (shifts and masks, no
flood fill), so far cheaper than a ``step``; on the CPU a C kernel
(:mod:`gojax._native`) does it eight points at a time.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from gojax._core import bitboard as bb
from gojax._core.types import GoConfig, GoState
from gojax.features import _native_calls
from gojax.features._board_history import HISTORY_LENGTH, BoardHistory

__all__ = ["AGZ_CHANNELS", "AGZ_NUM_CHANNELS", "AlphaGoZeroChannels", "alphago_zero_planes"]


class AlphaGoZeroChannels(NamedTuple):
    """Where each group of AlphaGo Zero planes lies on the channel axis.

    Attributes:
      own: ``slice``: the mover's stones at times ``t, t-1, ..., t-7``
        (``planes[..., own][..., i]`` is ``i`` moves ago).
      opponent: ``slice``: the opponent's stones at the same times.
      colour: ``int``: the colour plane, 1 when black is to move.
      num_channels: ``int``: 17.
    """

    own: slice
    opponent: slice
    colour: int
    num_channels: int


AGZ_NUM_CHANNELS = 2 * HISTORY_LENGTH + 1
AGZ_CHANNELS = AlphaGoZeroChannels(
    own=slice(0, 2 * HISTORY_LENGTH, 2),
    opponent=slice(1, 2 * HISTORY_LENGTH, 2),
    colour=2 * HISTORY_LENGTH,
    num_channels=AGZ_NUM_CHANNELS,
)


def alphago_zero_planes(
    config: GoConfig,
    state: GoState,
    hist: BoardHistory,
    dtype: jnp.dtype = jnp.float32,
    *,
    colour_plane: str = "black",
) -> jax.Array:
    """AlphaGo Zero's 17 feature planes of one game (see the module table).

    Args:
      config: the rules (only ``size`` is used).
      state: the current position; its ``stones`` are the planes at time ``t``
        and its ``turn`` decides whose stones are "own".
      hist: the positions before it: ``hist.stones[i]`` for ``i = 1..7`` are
        the planes at ``t - i`` (``hist.stones[0]`` is ``state``'s position,
        as :func:`history_push` leaves it).
      dtype: ``float32`` (default) feeds a network directly; ``bool`` (or
        ``uint8``) stores 4x smaller, e.g. in a replay buffer, and converts
        exactly to float later. All values are 0 or 1.
      colour_plane: ``"black"`` (the paper's): channel 16 is 1 when black is
        to move; ``"white"`` (pgx's): 1 when white is to move. Static.

    Returns:
      ``dtype[N, N, 17]``.

    Raises:
      ValueError: for a ``colour_plane`` other than ``"black"`` or ``"white"``.
    """
    if colour_plane not in ("black", "white"):
        raise ValueError(f"colour_plane must be 'black' or 'white', got {colour_plane!r}")

    def native():
        return _native_calls.history_planes(config, state, hist.stones, colour_plane == "white")

    planes = _native_calls.on_cpu(native, lambda: _xla_planes(config, state, hist, colour_plane))
    return planes.astype(dtype)


def _xla_planes(config: GoConfig, state: GoState, hist: BoardHistory, colour_plane: str) -> jax.Array:
    """``bool[N, N, 17]``: :func:`alphago_zero_planes` in XLA (the reference; accelerators run it)."""
    size = config.size
    stones = jnp.concatenate([state.stones[None], hist.stones[1:HISTORY_LENGTH]])  # [8, 2, W] black, white
    # Own, opponent order: channel pair (own, opponent) of each time is an OR over its (black, white)
    # words, each kept or masked out by whose turn it is. A reduction is computed once into an array
    # of its own; a select of the two orders would be recomputed for each of a word's 32 points.
    keep = jnp.where(jnp.eye(2, dtype=jnp.bool_) == (state.turn == 0), jnp.uint32(_ALL), jnp.uint32(0))
    picked = stones[:, None] & keep[None, :, :, None]  # [8, own/opponent, black/white, W]
    ordered = jax.lax.reduce(picked, jnp.uint32(0), jax.lax.bitwise_or, (2,))  # [8, 2, W]
    # One bitboard per channel: channel 2i + j is time t - i, own (j = 0) or opponent (j = 1); the
    # colour channel is a full or an empty board. Each point reads its word of every channel and
    # masks its bit, which writes [N, N, 17] directly (no transpose).
    lit = state.turn == (0 if colour_plane == "black" else 1)
    colour = jnp.where(lit, jnp.asarray(bb.board_mask(size)), jnp.uint32(0))
    words = jnp.concatenate([ordered.reshape(2 * HISTORY_LENGTH, -1), colour[None]]).T  # [W, 17]
    points, channels = size * size, 2 * HISTORY_LENGTH + 1
    per_point = jnp.broadcast_to(words[:, None, :], (words.shape[0], bb.WORD_BITS, channels))
    per_point = per_point.reshape(-1, channels)[:points]  # [P, 17]: the word holding each point
    bit = jnp.uint32(1) << (jnp.arange(points) % bb.WORD_BITS).astype(jnp.uint32)[:, None]
    return ((per_point & bit) != 0).reshape(size, size, channels)


_ALL = 0xFFFFFFFF
