"""The end of a game in GTP: ``final_status_list``, ``final_score``, ``kgs-genmove_cleanup`` (host side).

All three read the engine's judgement of the board (:func:`status`, from
:func:`gojax.gtp._status.judge`: playouts plus Benson's pass-alive chains),
computed once per position and seed:

* ``final_status_list alive|dead|seki`` lists the stones of that status
  (vertices in board order, top row first).
* ``final_score`` is the Tromp-Taylor area score of the board with the dead
  stones removed (``B+R``/``W+R``, ``B+F``/``W+F`` after a resignation or a
  forfeit). Without dead stones it is exactly the Tromp-Taylor score of the
  board, the score gojax's rules, ``genmove``'s pass decision and the
  referee use.
* ``kgs-genmove_cleanup colour`` (KGS's cleanup phase, after the players
  disagreed about dead stones; in :mod:`gojax.gtp._moves`) is ``genmove``
  that never passes while opponent stones it judges dead are on the board:
  when the search passes (or would pass after the opponent's pass), it plays
  :func:`cleanup_move`, a move that captures them or takes one of their
  liberties (without putting its own chain in atari where it can), so they
  come off the board - also after two passes (the cleanup phase follows
  them).

``list_stones colour`` (as GNU Go's) lists the stones of a colour on the
board, whatever their status.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import jax.numpy as jnp
import numpy as np

from gojax._core.types import BLACK, EMPTY, WHITE
from gojax._host import compiled
from gojax._host.chains import chain_at, chains
from gojax._host.grid import board_of
from gojax._host.results import format_margin
from gojax._host.vertices import to_gtp
from gojax.gtp._game import GameOver
from gojax.gtp._genmove import own_eyes
from gojax.gtp._protocol import CommandError, check_arity, parse_colour
from gojax.gtp._status import Status, judge, score_without

if TYPE_CHECKING:
    from gojax.gtp._engine import GTPEngine

__all__ = ["cleanup_move", "final_score", "final_status_list", "list_stones", "status"]

_STATUSES = ("alive", "dead", "seki")


def status(engine: GTPEngine) -> Status:
    """The engine's judgement of the current board (cached per board, size and seed)."""
    config = engine.config
    grid = engine.game.board()
    key = (config.size, config.suicide, grid.tobytes(), engine.seed, engine.status_playouts)
    if engine._judged is None or engine._judged[0] != key:
        engine._judged = (key, judge(config, grid, seed=engine.seed, playouts=engine.status_playouts))
    return engine._judged[1]


def list_stones(engine: GTPEngine, args: tuple[str, ...]) -> str:
    check_arity(args, 1, usage="list_stones colour")
    colour = parse_colour(args[0])
    points = np.flatnonzero(engine.game.board().reshape(-1) == colour)
    return " ".join(to_gtp(engine.config, int(p)) for p in points)


def final_status_list(engine: GTPEngine, args: tuple[str, ...]) -> str:
    check_arity(args, 1, usage="final_status_list alive|dead|seki")
    kind = args[0].lower()
    if kind not in _STATUSES:
        raise CommandError(f"syntax error: invalid status {args[0]!r}")
    mask = getattr(status(engine), kind).reshape(-1)
    return " ".join(to_gtp(engine.config, int(p)) for p in np.flatnonzero(mask))


def final_score(engine: GTPEngine, args: tuple[str, ...]) -> str:
    state = engine.game.state
    if bool(state.terminated) and int(state.loser):
        return engine.game.result()
    return format_margin(score_without(engine.config, engine.game.board(), status(engine).dead))


def cleanup_move(engine: GTPEngine, colour: int) -> int | None:
    """A move of ``colour`` against the opponent's dead stones, or ``None`` when none is left.

    Captures first (the most stones), then a liberty of a dead chain with
    the fewest liberties where ``colour``'s new chain keeps two liberties,
    then any legal liberty of a dead chain that is no own eye.
    """
    game, config = engine.game, engine.config
    try:  # a game ended by two passes is played on: the cleanup phase comes after them
        state = game._turn_for(game._reopen(game.state), colour)
    except GameOver:  # resigned, forfeited or at the move cap
        return None
    if bool(state.done):
        return None
    grid = game.board()
    opponent = BLACK + WHITE - colour
    dead = status(engine).dead & (grid == opponent)
    if not dead.any():
        return None
    legal = game.legal_mask(state)[: config.pass_action] & ~own_eyes(grid, colour)
    rules = compiled.rules(config)
    ranked = []
    for chain in chains(grid):
        if not dead.reshape(-1)[chain.points[0]]:
            continue
        for liberty in chain.liberties:
            if not legal[liberty]:
                continue
            after = board_of(config, rules.step(state, jnp.int32(int(liberty))))
            taken = int(np.count_nonzero((grid == opponent) & (after == EMPTY)))
            own = chain_at(after, int(liberty)).liberties.size
            ranked.append((-taken, own < 2, chain.liberties.size, int(liberty)))
    if not ranked:
        return None
    return min(ranked)[-1]
