"""Why the rules refuse a move, in words (host side), for error messages.

:func:`gojax.step` only says *that* a move was illegal (``illegal_move``);
:func:`why_illegal` explains it from the position before the move: an
occupied point, an immediate ko recapture, suicide, or a whole-board repeat.
"""

from __future__ import annotations

import numpy as np

from gojax._core.types import BLACK, EMPTY, WHITE, GoConfig
from gojax._host.chains import chain_at

__all__ = ["why_illegal"]

_COLOUR_WORD = {BLACK: "black", WHITE: "white"}


def why_illegal(config: GoConfig, board, ko_point: int, colour: int, action: int) -> str:
    """Why ``colour`` (1 black, 2 white) may not play ``action`` in ``[0, P]``.

    Args:
      config: the rules.
      board: ``int[N, N]`` the position before the move (0 empty, 1 black, 2 white).
      ko_point: the state's ``ko_point`` (``-1`` for none).
      colour: the mover.
      action: the refused action (``P`` is pass).

    Returns:
      A phrase such as ``"the point is occupied by a white stone"``. For a move
      that is neither occupied, a ko recapture nor suicide, the reason left is
      a repeat of an earlier position under the config's superko rule.
    """
    size = config.size
    if action == size * size:
        return "a pass was refused"
    grid = np.array(board, dtype=np.int8)
    row, col = divmod(action, size)
    if grid[row, col] != EMPTY:
        return f"the point is occupied by a {_COLOUR_WORD[int(grid[row, col])]} stone"
    if action == ko_point:
        return "it retakes the ko at once (illegal under every ko rule)"
    grid[row, col] = colour
    for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1)):
        if 0 <= r < size and 0 <= c < size and grid[r, c] == BLACK + WHITE - colour:
            chain = chain_at(grid, r * size + c)
            if not chain.liberties.size:
                grid.reshape(-1)[chain.points] = EMPTY
    if not chain_at(grid, action).liberties.size:
        return "it is suicide (the config has suicide=False)"
    return (
        f"it recreates an earlier whole-board position (ko_rule={config.ko_rule!r}); "
        "replay(ko_rule='simple') allows it"
    )
