"""The last 8 boards of a game, bit-packed, for history feature planes.

:class:`gojax.GoState` keeps only position *hashes* (enough for superko), not
earlier boards. Presets that show earlier positions (AlphaGo Zero's 17 planes)
read them from a :class:`BoardHistory` that the caller carries beside the game
state and updates after every ``step``::

    hist = history_init(config, state)
    state = gojax.step(config, state, action)
    hist = history_push(config, hist, state)

:class:`gojax.env.GoEnv` does this for you.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from gojax._core.types import GoConfig, GoState

__all__ = ["HISTORY_LENGTH", "BoardHistory", "history_init", "history_push"]

HISTORY_LENGTH = 8  # boards kept: times t, t-1, ..., t-7


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class BoardHistory:
    """The stones of the last :data:`HISTORY_LENGTH` positions of one game.

    Attributes:
      stones: ``uint32[8, 2, W]``: ``stones[i]`` are the black and white
        bitboards (as :attr:`gojax.GoState.stones`) ``i`` moves ago, passes
        counting as moves; ``stones[0]`` is the current position. Times before
        the start of the game hold empty boards.
    """

    stones: jax.Array

    def replace(self, **changes) -> BoardHistory:
        """Returns a copy with the given fields replaced."""
        return dataclasses.replace(self, **changes)


def history_init(config: GoConfig, state: GoState) -> BoardHistory:
    """A history holding only ``state``'s position (setup stones included).

    Args:
      config: the rules (only ``size`` is used).
      state: one game, usually ``gojax.init(config)`` or ``gojax.from_board``.

    Returns:
      :class:`BoardHistory` with ``stones[0] = state.stones`` and empty boards
      before it.
    """
    empty = jnp.zeros((HISTORY_LENGTH - 1, *state.stones.shape), jnp.uint32)
    return BoardHistory(stones=jnp.concatenate([state.stones[None].astype(jnp.uint32), empty]))


def history_push(config: GoConfig, hist: BoardHistory, state: GoState) -> BoardHistory:
    """``hist`` moved one step back in time, with ``state`` as the current position.

    Call it once per move (a pass too) with the state after the move. Do not
    call it for a ``step`` on a game that was already over (that ``step`` is a
    no-op): :class:`gojax.env.GoEnv` skips it there.

    Args:
      config: the rules (unused; kept for the package's calling convention).
      hist: the history up to the previous move.
      state: the game after the move.

    Returns:
      :class:`BoardHistory`: ``stones[0] = state.stones``,
      ``stones[i] = hist.stones[i - 1]``; the oldest board is dropped.
    """
    del config
    return BoardHistory(stones=jnp.concatenate([state.stones[None], hist.stones[:-1]]))
