"""ASCII boards (host side): render a state, or build one from a diagram.

Diagrams are what tests and notebooks write by hand::

    . . X O .
    . X O . O
    . . X O .
    . . . . .
    . . . . .

Black is ``X`` (also ``x``, ``B``, ``#``, ``@``, ``●``), white ``O`` (also
``o``, ``W``, ``○``), empty ``.`` (also ``+``, ``-``, ``·``). Spaces are
ignored, and so are the row numbers and the column-letter lines that
:func:`render` prints, so a rendered board reads back unchanged.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from gojax._core import bitboard as bb
from gojax._core import guards
from gojax._core import history as _history
from gojax._core import zobrist as _zobrist
from gojax._core.rules import init
from gojax._core.types import BLACK, EMPTY, WHITE, GoConfig, GoState
from gojax._host.chains import chains
from gojax._host.grid import board_of
from gojax._host.invariants import liberty_planes
from gojax._host.vertices import COLUMNS, vertex

__all__ = ["from_ascii", "from_board", "parse_board", "render", "render_board"]

_STONE_CHARS = {
    **dict.fromkeys("Xx#@B●", BLACK),
    **dict.fromkeys("OoW○", WHITE),
    **dict.fromkeys(".+-·", EMPTY),
}
_SHOW = {EMPTY: ".", BLACK: "X", WHITE: "O"}


def render(config: GoConfig, state: GoState, *, coordinates: bool = True) -> str:
    """The board as text, ``X`` black, ``O`` white, last move in parentheses.

    Args:
      config: the rules.
      state: one game (not batched).
      coordinates: print GTP column letters and row numbers.

    Raises:
      TypeError, ValueError: ``state`` is not one game of ``config`` (another
        board size, ko rule or move cap, or a batch), as the rule functions
        refuse it.
    """
    if isinstance(state, GoState) and np.ndim(state.stones) != 2:
        raise ValueError(f"render takes one game; got stones of shape {np.shape(state.stones)}")
    guards.check_state(config, state, "gojax.render")
    return render_board(board_of(config, state), int(state.last_move), coordinates=coordinates)


def render_board(board, last_move: int = -1, *, coordinates: bool = True) -> str:
    """An ``int[N, N]`` board (0 empty, 1 black, 2 white) as text, as :func:`render` prints it.

    Args:
      board: the stones, row 0 at the top.
      last_move: the action to put in parentheses (``-1`` or ``P``: none).
      coordinates: print GTP column letters and row numbers.
    """
    grid = np.asarray(board)
    size = grid.shape[0]
    header = "   " + " ".join(COLUMNS[:size])
    lines = [header] if coordinates else []
    for row in range(size):
        gaps = [" "] * (size + 1)
        if 0 <= last_move < size * size and last_move // size == row:
            gaps[last_move % size], gaps[last_move % size + 1] = "(", ")"
        cells = "".join(gap + _SHOW[int(v)] for gap, v in zip(gaps, grid[row], strict=False)) + gaps[size]
        if coordinates:
            lines.append(f"{size - row:2d}{cells}{size - row:d}")
        else:
            lines.append(cells.strip())
    if coordinates:
        lines.append(header)
    return "\n".join(lines)


def parse_board(text: str, size: int | None = None) -> np.ndarray:
    """An ``int8[N, N]`` board (0 empty, 1 black, 2 white) from a diagram.

    Raises:
      ValueError: naming the row and character, for an unknown character, rows
        of different lengths, or a board that is not ``size`` x ``size``.
    """
    rows = []
    for number, line in enumerate(text.splitlines(), start=1):
        cells = "".join(ch for ch in line if not ch.isspace() and not ch.isdigit())
        cells = cells.replace("(", "").replace(")", "")
        if not cells or cells[0] == "A":  # blank line or column letters
            continue
        row = []
        for ch in cells:
            if ch not in _STONE_CHARS:
                raise ValueError(f"diagram line {number}: unknown character {ch!r} in {line!r}")
            row.append(_STONE_CHARS[ch])
        rows.append(row)
    if not rows:
        raise ValueError("diagram has no board rows")
    side = len(rows)
    for index, row in enumerate(rows):
        if len(row) != side:
            raise ValueError(
                f"diagram row {index + 1} has {len(row)} points, expected {side} (a square board)"
            )
    if size is not None and side != size:
        raise ValueError(f"diagram is {side}x{side} but the config's board is {size}x{size}")
    return np.asarray(rows, dtype=np.int8)


def from_board(config: GoConfig, grid, to_play: int = BLACK) -> GoState:
    """A state holding the stones of ``int8[N, N]`` ``grid``, ``to_play`` to move.

    The position becomes the start of the game's history (move number 0), as
    setup or handicap stones do.

    Raises:
      ValueError: for a board of the wrong shape or values, a chain without a
        liberty (named by its GTP vertex), or a bad ``to_play``.
    """
    grid = np.asarray(grid)
    size = config.size
    if grid.shape != (size, size):
        raise ValueError(f"board has shape {grid.shape}, expected {(size, size)}")
    if not np.isin(grid, (EMPTY, BLACK, WHITE)).all():
        bad = sorted(set(np.unique(grid).tolist()) - {EMPTY, BLACK, WHITE})
        raise ValueError(f"board values must be 0, 1 or 2; found {bad}")
    if to_play not in (BLACK, WHITE):
        raise ValueError(f"to_play must be 1 (black) or 2 (white), got {to_play!r}")
    in_atari = np.zeros(grid.shape, bool)
    liberty = np.full(grid.shape, -1, np.int64)
    for chain in chains(grid):
        if not chain.liberties.size:
            raise ValueError(f"the chain at {vertex(size, int(chain.points[0]))} has no liberty")
        if chain.liberties.size == 1:
            in_atari.reshape(-1)[chain.points] = True
            liberty.reshape(-1)[chain.points] = chain.liberties[0]

    def bitboards(planes):
        return jnp.asarray(bb.from_grid_np(np.stack(planes), size))

    turn = to_play - 1
    position = _zobrist.hash_of_board(size, grid)
    state = init(config)
    lists = _history.empty(config)
    if config.history_length:
        situation = position
        if config.ko_rule == "situational":
            situation = position ^ _zobrist.tables(size).side[turn]
        key = _history.PositionKey(
            situation=jnp.asarray(situation),
            count=jnp.int32(np.count_nonzero(grid)),
            white=jnp.int32(np.count_nonzero(grid == WHITE)),
        )
        lists = _history.record(config, lists, 0, key)
    return state.replace(
        stones=bitboards([grid == BLACK, grid == WHITE]),
        atari=bitboards([(grid == BLACK) & in_atari, (grid == WHITE) & in_atari]),
        atari_liberty=jnp.asarray(liberty_planes(config, np.where(in_atari, grid, 0), liberty)),
        turn=jnp.int8(turn),
        hash=jnp.asarray(position),
        history=lists.entries,
        history_head=lists.heads,
        history_prev=lists.links,
    )


def from_ascii(config: GoConfig, text: str, to_play: int = BLACK) -> GoState:
    """A state from a diagram (see the module docstring), ``to_play`` to move."""
    return from_board(config, parse_board(text, config.size), to_play)
