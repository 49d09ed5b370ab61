"""A move on the board: the first phases of :func:`gojax.step`.

:func:`place` reads the move and the board it is played on (a :class:`Move`,
from the mover's side), :func:`capture` finds what the new stone captures and
the chains it touches (a :class:`Capture`), and :func:`settle` removes the
captured stones and, for a suicide, the mover's own chain (a
:class:`Settled` board). The hash, the superko test and the bookkeeping that
follow are in :mod:`gojax._core.bookkeeping`.

The chains a move captures or joins are read off the liberty labels of the
chains in atari (:attr:`gojax.GoState.atari_liberty`); one flood fill grows
the chains next to the move whose liberties it changes.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from gojax._core import atari as _atari
from gojax._core import bitboard as bb
from gojax._core.types import GoConfig, GoState

__all__ = ["Capture", "Move", "Settled", "by_colour", "capture", "own_and_opponent", "place", "settle"]

# (rows, cols) of the four sides of a point: right, left, below, above.
_SIDES = ((0, 1), (0, -1), (1, 0), (-1, 0))


@dataclasses.dataclass(frozen=True)
class Move:
    """An action and the board it is played on, seen from the mover.

    Attributes:
      point: ``int32[]`` the action clipped to ``[0, P]`` (``P`` is pass).
      in_range: ``bool[]`` the action was in ``[0, P]``.
      is_pass: ``bool[]``.
      colour: ``int32[]`` colour index of the mover.
      placed: ``uint32[W]`` the new stone (no bit for a pass).
      occupied: ``bool[]`` the point already holds a stone.
      own: ``uint32[W]`` the mover's stones before the move.
      opponent: ``uint32[W]`` the opponent's stones.
      own_atari: the mover's chains in atari before the move.
      opponent_atari: the opponent's chains in atari.
      empty_after: ``uint32[W]`` the empty points once the stone is placed,
        before anything is removed.
    """

    point: jax.Array
    in_range: jax.Array
    is_pass: jax.Array
    colour: jax.Array
    placed: jax.Array
    occupied: jax.Array
    own: jax.Array
    opponent: jax.Array
    own_atari: _atari.ChainsInAtari
    opponent_atari: _atari.ChainsInAtari
    empty_after: jax.Array


@dataclasses.dataclass(frozen=True)
class Capture:
    """What the new stone captures and the chains it touches.

    Chains grown with a liberty limit stop once they have two liberties: they
    are then only part of their chain, enough for a liberty test.

    Attributes:
      captured: ``uint32[W]`` the opponent's stones the move captures.
      joined: ``uint32[W]`` the mover's stones in atari whose liberty is the
        move: their chains join the new stone.
      own_chain: ``uint32[W]`` the mover's chain through the new stone (no
        stone for a pass), grown up to two liberties.
      opponent_chains: ``uint32[4, W]`` the opponent's chains not in atari on
        each side of the move, grown up to two liberties.
      relieved_own: ``uint32[W]`` the mover's chains in atari next to captured
        stones: they gain liberties.
    """

    captured: jax.Array
    joined: jax.Array
    own_chain: jax.Array
    opponent_chains: jax.Array
    relieved_own: jax.Array


@dataclasses.dataclass(frozen=True)
class Settled:
    """The board after the move, captures and suicide removed.

    Attributes:
      own: ``uint32[W]`` the mover's stones.
      opponent: ``uint32[W]`` the opponent's stones.
      empty: ``uint32[W]`` the empty points.
      own_liberties: ``int32[]`` liberties of :attr:`Capture.own_chain`
        (exact up to 2).
      suicide: ``bool[]`` the move left its own chain without a liberty.
      removed_own: ``uint32[W]`` the mover's stones a suicide removed.
    """

    own: jax.Array
    opponent: jax.Array
    empty: jax.Array
    own_liberties: jax.Array
    suicide: jax.Array
    removed_own: jax.Array


def own_and_opponent(
    state: GoState, planes: jax.Array | None = None
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """The mover's colour index ``int32[]``, and ``planes`` (``[2, ...]``,
    default: the stones) as the mover's, the opponent's."""
    planes = state.stones if planes is None else planes
    colour = state.turn.astype(jnp.int32)
    own = jnp.where(colour == 0, planes[0], planes[1])
    opponent = jnp.where(colour == 0, planes[1], planes[0])
    return colour, own, opponent


def by_colour(colour: jax.Array, own: jax.Array, opponent: jax.Array) -> jax.Array:
    """Stacks the mover's and the opponent's planes back in black, white order: ``[2, ...]``."""
    return jnp.where(colour == 0, jnp.stack([own, opponent]), jnp.stack([opponent, own]))


def place(config: GoConfig, state: GoState, action: jax.typing.ArrayLike) -> Move:
    """Reads ``action`` (``int[]``, anything) for the player to move of ``state``."""
    size, num_points = config.size, config.num_points
    action = jnp.asarray(action, jnp.int32)
    point = jnp.clip(action, 0, num_points)
    colour, own, opponent = own_and_opponent(state)
    own_atari, opponent_atari = _atari.chains_in_atari(state, colour)
    placed = bb.point_bits(point, size)
    return Move(
        point=point,
        in_range=(action >= 0) & (action <= num_points),
        is_pass=point == num_points,
        colour=colour,
        placed=placed,
        occupied=bb.any_set((own | opponent) & placed),
        own=own,
        opponent=opponent,
        own_atari=own_atari,
        opponent_atari=opponent_atari,
        empty_after=jnp.asarray(bb.board_mask(size)) & ~(own | opponent | placed),
    )


def _sides(move: Move, size: int) -> jax.Array:
    """The four points next to the move: ``uint32[4, W]`` (no bit off the board)."""
    return jnp.stack([bb.shift(move.placed, rows, cols, size) for rows, cols in _SIDES])


@bb.scoped
def capture(config: GoConfig, move: Move) -> Capture:
    """What ``move`` captures and touches.

    The chains in atari whose liberty is the move are read off their liberty
    labels: the opponent's are captured, the mover's join the new stone. Then
    one flood fill grows, from the move, the opponent chains it touches that
    are not in atari (do they fall into atari?) and the mover's chain through
    the new stone (its liberties), both stopping at two liberties, and the
    mover's chains in atari that the capture relieves.
    """
    size = config.size
    target = jnp.where(move.is_pass, -1, move.point)[None]
    captured = _atari.captured_by(move.opponent_atari, target)[0]
    joined = _atari.captured_by(move.own_atari, target)[0]
    survivors = move.opponent & ~move.opponent_atari.stones
    own_atari = move.own_atari.stones
    free = jnp.broadcast_to(move.empty_after, (5, *move.empty_after.shape))
    nothing = jnp.zeros_like(move.placed)
    relievable = bb.neighbours(captured, size) & own_atari
    regions = bb.flood_fill(
        jnp.concatenate([_sides(move, size), jnp.stack([move.placed, relievable])]),
        jnp.stack([*[survivors] * 4, move.own | move.placed, own_atari]),
        size,
        free=jnp.concatenate([free, nothing[None]]),
    )
    return Capture(
        captured=captured,
        joined=joined,
        own_chain=regions[4],
        opponent_chains=regions[:4],
        relieved_own=regions[5],
    )


def settle(config: GoConfig, move: Move, capture: Capture) -> Settled:
    """Removes the captured stones, and the mover's chain if it has no liberty left."""
    size = config.size
    own_liberties = bb.count(bb.neighbours(capture.own_chain, size) & (move.empty_after | capture.captured))
    suicide = ~move.is_pass & (own_liberties == 0)
    removed_own = jnp.where(suicide, capture.own_chain, jnp.uint32(0))
    own = (move.own | move.placed) & ~removed_own
    opponent = move.opponent & ~capture.captured
    return Settled(
        own=own,
        opponent=opponent,
        empty=jnp.asarray(bb.board_mask(size)) & ~(own | opponent),
        own_liberties=own_liberties,
        suicide=suicide,
        removed_own=removed_own,
    )
