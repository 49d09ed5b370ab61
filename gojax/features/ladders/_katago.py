"""KataGo's ladder features of one board (``iterLadders``), for :mod:`gojax.features._katago`.

Every chain of either colour with 1 or 2 liberties is read with the search of
:mod:`gojax.features.ladders._planes`:

* 1 liberty: the chain's owner moves first. It is *ladderable* unless it
  escapes, by extending or by capturing an adjacent attacker chain in atari
  (``_planes._escape_read`` with all the runner's options; a capture after
  which the attacker still catches the runner is no escape).
* 2 liberties: the attacker moves first. It is ladderable when the atari on
  either liberty wins (``_planes._capture_read``, as
  :func:`gojax.features.ladder_capture`); those ataris on the opponent's
  chains are the mover's ladder-starting moves.

Reads whose answer is known are skipped, as in :mod:`gojax.features.ladders._planes`:
an extension to 3+ liberties escapes, one to at most 1 with no capture to
try is caught, and an atari
whose other liberty leaves the runner 3+ liberties even ignoring captures
fails. The rest are pooled with the other games' reads under ``vmap``
(:mod:`gojax.features.ladders._pool`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core import bitboard as bb
from gojax._core.atari import with_atari_liberty
from gojax._core.types import GoConfig, GoState
from gojax.features import _chains, _native_calls
from gojax.features.ladders import _planes, _pool, _read

__all__ = ["board_tables", "ko_after", "ladders"]


def _with_atari(config: GoConfig, state: GoState, analysis) -> GoState:
    """``state`` with ``atari`` and its liberty labels recomputed from its stones (boards from a history)."""
    size = config.size
    in_atari = analysis.stone_liberties == 1
    mover = bb.from_grid((in_atari & (analysis.colours == _chains._MOVER)).reshape(size, size), size)
    other = bb.from_grid((in_atari & (analysis.colours == _chains._OPPONENT)).reshape(size, size), size)
    atari = jnp.where(state.turn == 0, jnp.stack([mover, other]), jnp.stack([other, mover]))
    return with_atari_liberty(config, state.replace(atari=atari))


def ladders(config: GoConfig, state: GoState, analysis: _chains._Analysis):
    """Ladderable stones (``bool[N, N]``) and the mover's ladder-starting points (``bool[N, N]``, not masked).

    ``analysis``: ``_chains._analyse(config, state)`` (the caller's, shared).
    """
    size, points = config.size, config.num_points
    state = _with_atari(config, state, analysis)
    colours, labels = analysis.colours, analysis.labels
    libs = analysis.chain_liberties[:points]  # by label
    root = (colours != _chains._EMPTY) & (labels == jnp.arange(points))
    mover_chain = colours == _chains._MOVER  # read at roots
    low, high = _planes._liberty_ends(analysis, points)
    low, high = low[:points], high[:points]

    # Liberties after the chain's owner plays at each point (int32[2, P]: mover's, opponent's),
    # with and without the captures, from one table.
    variants = [
        (colour, captures) for captures in (True, False) for colour in (_chains._MOVER, _chains._OPPONENT)
    ]
    tables = _chains._liberties_after(config, analysis, tuple(variants))

    def for_owner(table, at):
        # One gather from both colours' rows (the owner's row picked by the index).
        at = jnp.where(mover_chain, 0, points) + jnp.clip(at, 0, points - 1)
        return table.reshape(-1)[at]

    # One liberty: with no attacker chain in atari next to it, the extension decides (3+
    # liberties out, at most 1 caught) or the read; with one, the read tries the capture too.
    hunter = 3 - colours  # the other relative colour at stones (1 <-> 2)
    counter = jnp.any(
        (analysis.neighbour_colours == hunter) & (analysis.beside(analysis.stone_liberties, size) == 1),
        axis=0,
    )
    counter = jax.ops.segment_max(counter.astype(jnp.int32), labels, num_segments=points + 1)[:points] > 0
    one = root & (libs == 1)
    extended = for_owner(tables[:2], low)
    caught_now = one & ~counter & (extended <= 1)
    # An extension onto the ko point is no way out for the mover (who moves first): read it.
    # (A ko point left by a capture has no mover's stone beside it; one set by hand may.)
    at_ko = mover_chain & (low == state.ko_point.astype(jnp.int32))
    to_escape = one & (((extended < 3) & (counter | (extended == 2))) | (at_ko & ~caught_now))
    # Two liberties: an atari on one liberty cannot work when the extension on the
    # other keeps 3+ liberties even ignoring captures (see _planes._capture_plane).
    two = root & (libs == 2)
    plain = tables[2:]
    to_capture = jnp.concatenate(
        [two & (for_owner(plain, high) - 1 <= 2), two & (for_owner(plain, low) - 1 <= 2)]
    )

    # One liberty: the owner moves first; two: the attacker, on either liberty. The
    # attacker is the side to move where the chain is the opponent's.
    chain = jnp.arange(points, dtype=jnp.int32)
    mover_attacks = ~mover_chain
    # Both kinds of read share one pool: chains in atari first, then the two-liberty ones.
    defend, capture = _read.MODES.index("defend"), _read.MODES.index("capture")
    codes = np.concatenate([np.full((points,), defend), np.full((2 * points,), capture)]).astype(np.int32)
    read = _pool.pooled_reads(
        size,
        codes,
        state.stones,
        state.atari,
        state.turn,
        state.ko_point,
        jnp.concatenate([mover_attacks] * 3),
        jnp.concatenate([chain, low, high]),
        jnp.concatenate([chain, chain, chain]),
        jnp.concatenate([to_escape, to_capture]),
    )
    escaped_not, captured = read[:points], read[points:]
    by_low, by_high = captured[:points], captured[points:]
    laddered = caught_now | escaped_not | by_low | by_high
    stones = (colours != _chains._EMPTY) & _extend_bool(laddered)[labels]
    target = ~mover_chain
    moves = jnp.zeros((points + 1,), jnp.bool_)
    moves = moves.at[jnp.where(target & by_low, low, points)].set(True)
    moves = moves.at[jnp.where(target & by_high, high, points)].set(True)
    return stones.reshape(size, size), moves[:points].reshape(size, size)


def board_tables(config: GoConfig, state: GoState, ladder_moves=True):
    """What the KataGo planes read of one board: ``(ladderable stones, the mover's
    ladder-starting points (not masked), chain liberties, not a suicide for the mover)``,
    ``[N, N]`` each (``bool``, ``bool``, ``int32``, ``bool``); the native kernel on the CPU.

    ``ladder_moves`` (a ``bool`` scalar, traced or not): False where only the
    ladderable stones are used (a history board); the native kernel then reads
    fewer ladders and leaves the ladder moves ``False``, the XLA code computes them anyway.
    """
    size = config.size

    def xla():
        analysis = _chains._analyse(config, state)
        stones, moves = ladders(config, state, analysis)
        liberties = _chains._chains_of(config, analysis).liberties
        return stones, moves, liberties, _chains._not_suicide(config, analysis)

    def native():
        rows = _native_calls.katago_tables(config, state, ladder_moves).reshape(-1, size, size)
        return rows[0] != 0, rows[1] != 0, rows[2].astype(jnp.int32), rows[3] != 0

    return _native_calls.on_cpu(native, xla)


def _extend_bool(x):
    return jnp.concatenate([x, jnp.zeros((1,), jnp.bool_)])


def ko_after(config: GoConfig, after: jax.Array, before: jax.Array, colour: jax.Array) -> jax.Array:
    """``int32[]``: the simple-ko point that ``colour``'s move from ``before`` to ``after`` left, or -1.

    ``before`` and ``after``: ``uint32[2, W]`` stones of two consecutive
    positions (black, white). The move left a ko (as :func:`gojax.step` sets
    ``ko_point``) when it added one stone that captured exactly one stone,
    touches no stone of its own colour and has one liberty (the captured
    point). A pass or a suicide leaves none.
    """
    size = config.size
    colour = jnp.asarray(colour, jnp.int32)
    own_after, own_before = after[colour], before[colour]
    stone = own_after & ~own_before
    taken = before[1 - colour] & ~after[1 - colour]
    empty = jnp.asarray(bb.board_mask(size)) & ~(after[0] | after[1])
    around = bb.neighbours(stone, size)
    lone = ~bb.any_set(around & own_after)
    ko = (bb.count(stone) == 1) & (bb.count(taken) == 1) & lone & (bb.count(around & empty) == 1)
    return jnp.where(ko, bb.lowest_point(taken, size), -1).astype(jnp.int32)
