"""Boards on the host: ``int8[..., N, N]`` (0 empty, 1 black, 2 white) from bitboards.

A :class:`~gojax.GoState` keeps its stones as bitboards ``uint32[..., 2, W]``
(black, then white; ``W`` words of 32 points, ``P = N * N`` points from the
top-left). These functions decode them with NumPy, without JAX work, for any
number of leading (batch) axes.
"""

from __future__ import annotations

import numpy as np

from gojax._core import bitboard as bb
from gojax._core.types import GoConfig, GoState

__all__ = ["board_of", "decode"]


def decode(stones, size: int) -> np.ndarray:
    """``int8[..., N, N]`` board from bitboards ``uint32[..., 2, W]`` (black, then white)."""
    return bb.board_np(np.asarray(stones), size)


def board_of(config: GoConfig, state: GoState) -> np.ndarray:
    """``int8[..., N, N]`` board of a state (batched or not), decoded from its bitboards."""
    return decode(state.stones, config.size)
