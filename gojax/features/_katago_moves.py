"""The move history KataGo shows (the last 5 actions), for :func:`gojax.features.katago_planes`.

A :class:`MoveHistory` carried beside the game gives the exact last moves;
without one, :func:`last_moves` derives them from a
:class:`~gojax.features.BoardHistory` (see the definitions in
:mod:`gojax.features._katago`).
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from gojax._core import bitboard as bb
from gojax._core.types import GoConfig, GoState
from gojax.features._board_history import BoardHistory

__all__ = ["KATAGO_MOVES", "MoveHistory", "last_moves", "move_history_init", "move_history_push"]

KATAGO_MOVES = 5  # moves of history KataGo shows


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class MoveHistory:
    """The last :data:`KATAGO_MOVES` actions of one game.

    Attributes:
      actions: ``int16[5]``: ``actions[i]`` the action played ``i + 1`` moves
        ago (a point, or ``P`` for a pass); -1 before the first move.
    """

    actions: jax.Array

    def replace(self, **changes) -> MoveHistory:
        """Returns a copy with the given fields replaced."""
        return dataclasses.replace(self, **changes)


def move_history_init(config: GoConfig, state: GoState) -> MoveHistory:
    """An empty :class:`MoveHistory` (no move known), for ``gojax.init`` or a setup position."""
    del config, state
    return MoveHistory(actions=jnp.full((KATAGO_MOVES,), -1, jnp.int16))


def move_history_push(config: GoConfig, moves: MoveHistory, state: GoState) -> MoveHistory:
    """Records ``state.last_move``; call it after every ``step`` that was played, as ``history_push``."""
    del config
    return MoveHistory(actions=jnp.concatenate([state.last_move[None].astype(jnp.int16), moves.actions[:-1]]))


def last_moves(
    config: GoConfig, state: GoState, hist: BoardHistory, moves: MoveHistory | None = None
) -> jax.Array:
    """``int32[5]``: the action played 1, ..., 5 moves ago as KataGo shows it; -1 where not shown.

    A point, or ``P`` for a pass. Not shown (-1): moves before the start of the
    history, and every move once the game is over (KataGo hides the history of
    a finished game).

    Args:
      config: the rules.
      state: the current position.
      hist: its :class:`~gojax.features.BoardHistory`, read when ``moves`` is
        ``None``: the move ``i`` ago is the stone of its colour on the board
        ``i - 1`` ago and not ``i`` ago (none: a pass), the last one
        ``state.last_move``; moves before ``state.move_number`` are unknown.
        Exact unless a suicide was played (``suicide=True``): it leaves no
        stone and reads as a pass.
      moves: a :class:`MoveHistory` (exact), or ``None``.
    """
    if moves is not None:
        actions = moves.actions.astype(jnp.int32)
        known = jnp.sum(actions >= 0)
    else:
        turn = state.turn.astype(jnp.int32)
        derived = [state.last_move.astype(jnp.int32)]
        for i in range(2, KATAGO_MOVES + 1):
            colour = (turn + i) % 2  # 1 move ago: the opponent; 2 moves ago: the mover; ...
            new = hist.stones[i - 1, colour] & ~hist.stones[i, colour]
            single = bb.count(new) == 1
            derived.append(jnp.where(single, bb.lowest_point(new, config.size), config.pass_action))
        actions = jnp.stack(derived)
        known = jnp.minimum(state.move_number, KATAGO_MOVES)
    known = jnp.where(state.done, 0, known)
    return jnp.where(jnp.arange(KATAGO_MOVES) < known, actions, -1)
