"""Heavy playouts: MoGo-style move priorities on the light kernel of :mod:`gojax.playouts._light`.

:func:`heavy_move` is a playout policy for
:func:`gojax.playouts._light_loop.light_playouts` (``choose``): it picks uniformly,
by the same one random ``uint32`` per move as the light policy, among the
points of the first non-empty **tier** (:func:`heavy_tiers`):

1. **Answer the last move**: a capture or an atari escape (below) of a chain
   in atari with a stone on or next to the last move's point (its 3x3
   neighbourhood, diagonals included; the chain is followed two steps from
   there, which finds the liberty of every chain of up to three stones in a
   row and most larger ones).
2. **A pattern next to the last move**: an empty point among the last move's
   eight neighbours where one of MoGo's 3x3 patterns (hane, cut, edge;
   :mod:`gojax.playouts._patterns`) matches, and that tier 4 keeps (no
   self-atari).
3. **Capture or escape anywhere**: a *capture* fills the liberty of an
   opponent chain in atari (a chain in atari has one liberty, so
   ``empty & neighbours(opponent_atari)`` is exactly those liberties); an
   *escape* fills the liberty of one of the mover's chains in atari where
   the new stone has at least two empty neighbours or touches a chain of the
   mover not in atari (an approximation of "the extended chain has two
   liberties": the empty neighbours may be the other chain's only spare
   liberty).
4. **No self-atari**: the playable points minus those whose new stone has at
   most one empty neighbour, captures nothing and touches no chain of the
   mover that is not in atari (a single stone, or a chain of the mover in
   atari grown by one stone, left with one liberty or none). Such moves are
   dropped even where they would be good (a throw-in).
5. **Any playable point** (:func:`gojax.playouts._light.light_moves`): the
   fallback when tier 4 is empty; with no playable point the player passes.

Every tier is a subset of the playable points (empty, not the ko point, no
suicide, not an own one-point eye), so a heavy playout plays only what a light
one may. All of it is whole-board bitboard work, elementwise over games (no
per-point loop, no gather).

Shapes: ``N`` board side, ``P = N * N`` points (pass is ``P``), ``W`` words.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from gojax._core.bitboard import Words
from gojax._core.bitboard import WordTuples as w
from gojax.playouts._light import LightState, _mine, _pick, light_moves
from gojax.playouts._patterns import pattern_points

__all__ = ["HeavyTiers", "heavy_move", "heavy_tiers"]

_SIDES = ((0, 1), (0, -1), (1, 0), (-1, 0))
_REACH = 2  # steps along a chain in atari from the last move's neighbourhood


class HeavyTiers(NamedTuple):
    """The move sets of :func:`heavy_move`, best first, each :data:`~gojax._core.bitboard.Words`.

    Attributes:
      answer: captures and escapes of the chains in atari next to the last move.
      pattern: the points of ``quiet`` next to the last move where a 3x3 pattern matches.
      urgent: captures and escapes anywhere.
      quiet: the playable points that are no self-atari.
      playable: the playable points.
    """

    answer: Words
    pattern: Words
    urgent: Words
    quiet: Words
    playable: Words


def _around(point: jax.Array, size: int) -> Words:
    """The 3x3 neighbourhood of ``point`` (``int32[]``; none for -1 or ``P``), diagonals included."""
    bit = w.point_bits(point, size)
    row = w.op(lambda a, b, c: a | b | c, bit, w.shift(bit, 0, 1, size), w.shift(bit, 0, -1, size))
    return w.op(lambda a, b, c: a | b | c, row, w.shift(row, 1, 0, size), w.shift(row, -1, 0, size))


def _grown(seeds: Words, inside: Words, size: int) -> Words:
    """``seeds & inside`` grown ``_REACH`` steps inside ``inside``."""
    grown = w.op(lambda s, i: s & i, seeds, inside)
    for _ in range(_REACH):
        grown = w.op(lambda g, n, i: (g | n) & i, grown, w.neighbours(grown, size), inside)
    return grown


def heavy_tiers(size: int, light: LightState) -> HeavyTiers:
    """The tiers of the module docstring for the player to move in one game (:class:`LightState`)."""
    board = tuple(w.u32(b) for b in w.constants(size)["board"])
    own, opponent = _mine(light.turn, light.stones)
    own_atari, opponent_atari = _mine(light.turn, light.atari)
    playable = light_moves(size, light)[1]
    empty = w.op(lambda b, o, t: b & ~(o | t), board, own, opponent)
    sides = [w.shift(empty, rows, cols, size) for rows, cols in _SIDES]
    roomy = w.op(w.two_of_four, *sides)  # at least two empty neighbours
    beside_safe = w.neighbours(w.op(lambda o, a: o & ~a, own, own_atari), size)
    captures = w.op(jnp.bitwise_and, playable, w.neighbours(opponent_atari, size))
    extends = w.op(lambda r, s: r | s, roomy, beside_safe)
    escapes = w.op(lambda p, n, x: p & n & x, playable, w.neighbours(own_atari, size), extends)
    near = _around(light.last, size)
    threatened = w.neighbours(_grown(near, own_atari, size), size)
    takeable = w.neighbours(_grown(near, opponent_atari, size), size)
    answer = w.op(lambda c, e, t, k: (c & k) | (e & t), captures, escapes, threatened, takeable)
    urgent = w.op(lambda c, e: c | e, captures, escapes)
    quiet = w.op(lambda p, x, c: p & (x | c), playable, extends, captures)
    black, white = (tuple(word[c] for word in light.stones) for c in range(2))
    last = w.point_bits(light.last, size)
    matches = pattern_points(size, black, white)
    pattern = w.op(lambda m, q, n, t: m & q & n & ~t, matches, quiet, near, last)
    return HeavyTiers(answer, pattern, urgent, quiet, playable)


def heavy_move(size: int, light: LightState, draw: jax.Array) -> jax.Array:
    """``int32[]``: the heavy policy's point in one game, picked by the ``uint32[]`` ``draw`` (or pass ``P``).

    A :data:`~gojax.playouts._light.Chooser` for
    :func:`~gojax.playouts._light_loop.light_playouts`: a point of the first
    non-empty tier of :func:`heavy_tiers`, uniformly (its rank
    ``draw * count / 2**32`` among the tier's points).
    """
    tiers = heavy_tiers(size, light)
    chosen = tiers.playable
    for tier in (tiers.quiet, tiers.urgent, tiers.pattern, tiers.answer):
        found = w.any_set(tier)
        chosen = w.op(lambda t, c, found=found: jnp.where(found, t, c), tier, chosen)
    return _pick(chosen, draw, size * size)
