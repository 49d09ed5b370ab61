"""Replaying a :class:`~gojax.sgf.GameRecord` through gojax (host side).

The setup goes in with :func:`gojax.from_board`, the moves through
:func:`gojax.step` in a ``lax.scan`` over chunks of 64 moves. The scan is
compiled once per rules config (komi aside, which ``step`` does not read) and
cached for the process.

Every problem raises :class:`~gojax.sgf.SGFError` naming the file, the move
number (1-based, passes included), its line in the file and what is wrong:

* before any JAX work: a colour playing twice in a row (gojax alternates
  colours), a stone played after two passes ended the game, more moves than
  the move cap, setup stones without a liberty;
* after the scan, the first move ``step`` refused (the game is then over as a
  loss for the mover), explained from the position before it: an occupied
  point, suicide, an immediate ko recapture, or a superko repeat.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core.rules import init
from gojax._core.types import BLACK, EMPTY, WHITE, GoConfig, GoState
from gojax._host import compiled
from gojax._host.diagram import from_board
from gojax._host.grid import board_of
from gojax._host.illegal import why_illegal
from gojax._host.vertices import vertex
from gojax.sgf._parse import SGFError
from gojax.sgf._write import sgf_point

if TYPE_CHECKING:
    from gojax.sgf._record import GameRecord

__all__ = ["replay", "states_along"]

_CHUNK = 64
_NAME = {BLACK: "B", WHITE: "W"}
_COLOUR_WORD = {BLACK: "black", WHITE: "white"}


def replay(record: GameRecord, config: GoConfig | None = None, **overrides) -> GoState:
    """The ``GoState`` after the record's last move.

    Args:
      record: the game.
      config: the rules to replay under (default ``record.config``).
      **overrides: fields of the config to change, e.g. ``ko_rule="simple"``
        for a game that repeats an earlier position.

    Raises:
      SGFError: naming the file, the move number and the problem.
    """
    final, _ = _run(record, config, overrides, collect=False)
    return final


def states_along(record: GameRecord, config: GoConfig | None = None, **overrides) -> GoState:
    """``GoState`` batched ``[T + 1]``: the start position, then the state after each of the ``T`` moves.

    Moves after the end (a pass after two passes) repeat the final state.
    Arguments and errors as :func:`replay`.
    """
    _, states = _run(record, config, overrides, collect=True)
    return states


def _run(record, config, overrides, collect):
    config = config or record.config
    if overrides:
        config = dataclasses.replace(config, **overrides)
    where = record.name or "<sgf>"
    size = config.size
    if record.setup.shape != (size, size):
        raise SGFError(f"{where}: the record's board is {record.setup.shape}, the config's {size}x{size}")
    moves = record.moves
    lines = record.move_lines or []

    def at(index: int) -> str:
        colour, action = moves[index]
        line = f", line {lines[index]}" if index < len(lines) else ""
        point = sgf_point(size, action)
        return f"{where}: move {index + 1} ({_NAME[colour]}[{point}] = {vertex(size, action)}{line})"

    colour = record.first_player
    passes = 0
    for index, (mover, action) in enumerate(moves):
        if mover != colour:
            raise SGFError(
                f"{at(index)}: {_COLOUR_WORD[mover]} plays but it is {_COLOUR_WORD[colour]}'s turn "
                "(one colour twice in a row; gojax alternates colours)"
            )
        if not 0 <= action <= size * size:
            raise SGFError(f"{at(index)}: action {action} is not in [0, {size * size}]")
        if passes >= 2 and action != size * size:
            raise SGFError(f"{at(index)}: a stone is played after two passes ended the game")
        passes = passes + 1 if action == size * size else 0
        colour = BLACK + WHITE - colour
    played = _played(moves, size)
    if played > config.move_cap:
        raise SGFError(
            f"{where}: {played} moves is over the config's move cap of {config.move_cap} "
            "(replay with a config of larger max_moves)"
        )

    if np.any(record.setup != EMPTY) or record.first_player != BLACK:
        try:
            start = from_board(config, record.setup, to_play=record.first_player)
        except ValueError as error:
            raise SGFError(f"{where}: setup stones: {error}") from None
    else:
        start = init(config)

    run = compiled.rules(config).steps
    count = max(len(moves), 1)
    padded = -(-count // _CHUNK) * _CHUNK
    actions = np.full(padded, size * size, np.int32)
    valid = np.zeros(padded, bool)
    actions[: len(moves)] = [action for _, action in moves]
    valid[: len(moves)] = True
    state, chunks = start, []
    for begin in range(0, padded, _CHUNK):
        state, along = run(state, actions[begin : begin + _CHUNK], valid[begin : begin + _CHUNK])
        if collect:
            chunks.append(along)
    final = state

    if bool(final.illegal_move):
        index = int(final.move_number)  # the refused move leaves the position and the count as they were
        colour, action = moves[index]
        why = why_illegal(config, board_of(config, final), int(final.ko_point), colour, action)
        raise SGFError(f"{at(index)}: illegal: {why}")
    if int(final.move_number) != played:
        raise SGFError(f"{where}: the replay stopped after {int(final.move_number)} of {played} moves")
    states = None
    if collect:
        states = jax.tree.map(
            lambda first, *rest: jnp.concatenate([first[None], *rest])[: len(moves) + 1], start, *chunks
        )
    return final, states


def _played(moves, size: int) -> int:
    """Moves that count: all, or up to two passes in a row (gojax ends the game there)."""
    passes = 0
    for index, (_, action) in enumerate(moves):
        passes = passes + 1 if action == size * size else 0
        if passes == 2:
            return index + 1
    return len(moves)
