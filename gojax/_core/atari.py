"""The chains in atari: their liberties as bit planes, and what they tell.

The state keeps, beside the ``atari`` bitboards of the stones whose chain has
one liberty, that liberty's point index bit-sliced over ``L = ceil(log2 P)``
planes (:attr:`gojax.GoState.atari_liberty`, both colours on the same
planes); a colour's stones in atari and their planes are a
:class:`ChainsInAtari`. Which chains a move at ``p`` captures (or joins) is
then a few word operations (:func:`captured_by`), and so is the hash of every
capturing move, which the legal mask tests against the history
(:func:`capture_repeats`). One flood fill labels a colour's chains in atari
from scratch (:func:`liberty_labels`), for states put together by hand.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from gojax._core import bitboard as bb
from gojax._core import history as _history
from gojax._core import loops
from gojax._core import zobrist as _zobrist
from gojax._core.types import GoConfig, GoState

__all__ = [
    "ChainsInAtari",
    "capture_repeats",
    "captured_by",
    "chains_in_atari",
    "label_chains",
    "liberty_labels",
    "with_atari_liberty",
]

# Capturing (and suicidal) moves hash differently from plain placements and are
# tested against the history this many at a time.
_CHUNK = 8


@dataclasses.dataclass(frozen=True)
class ChainsInAtari:
    """One colour's chains in atari and their liberties.

    Attributes:
      stones: ``uint32[W]`` the stones whose chain has exactly one liberty.
      labels: ``uint32[L, W]`` that liberty bit-sliced: plane ``b`` holds the
        stones of ``stones`` whose chain's liberty has a point index with bit
        ``b`` set (see :attr:`GoState.atari_liberty`).
    """

    stones: jax.Array
    labels: jax.Array


def chains_in_atari(state: GoState, colour: jax.Array) -> tuple[ChainsInAtari, ChainsInAtari]:
    """The chains in atari of colour index ``colour`` (``int[]``) and of the other colour."""
    mine = jnp.where(colour == 0, state.atari[0], state.atari[1])
    theirs = jnp.where(colour == 0, state.atari[1], state.atari[0])
    labels = state.atari_liberty
    return ChainsInAtari(mine, labels & mine), ChainsInAtari(theirs, labels & theirs)


def with_atari_liberty(config: GoConfig, state: GoState) -> GoState:
    """``state`` with :attr:`GoState.atari_liberty` recomputed from its stones
    and ``atari`` bitboards (a flood fill per colour).

    For states whose ``stones`` or ``atari`` were set by hand (e.g. an earlier
    board of the game put into the current state); ``step`` keeps the labels
    up to date by itself.
    """
    size = config.size
    empty = jnp.asarray(bb.board_mask(size)) & ~(state.stones[0] | state.stones[1])
    # One colour at a time: a fill inside both colours' stones would run from a chain into its neighbour.
    labels = liberty_labels(size, state.atari[0], empty) | liberty_labels(size, state.atari[1], empty)
    return state.replace(atari_liberty=labels.astype(jnp.uint32))


@bb.scoped
def label_chains(config: GoConfig, chains: jax.Array, empty: jax.Array) -> jax.Array:
    """Each chain of ``uint32[K, W]`` (one liberty each, or empty) on the bit
    planes of its liberty's index: ``uint32[K, L, W]``.

    A chain's single liberty is on plane ``b`` iff it lies in the points whose
    index has bit ``b`` set: a few word operations, no index to extract.
    """
    planes = jnp.asarray(bb.index_planes(config.size))  # [L, W]
    liberties = bb.neighbours(chains, config.size) & empty
    bits = bb.any_set(liberties[:, None, :] & planes)  # [K, L]
    return jnp.where(bits[..., None], chains[:, None, :], jnp.uint32(0))


@bb.scoped
def liberty_labels(size: int, atari: jax.Array, empty: jax.Array) -> jax.Array:
    """Bit-sliced liberty of every chain in ``atari``: ``uint32[L, W]``.

    Each chain in atari has one liberty. Plane ``b`` holds the chains whose
    liberty's point index has bit ``b`` set, so the chain captured by a move at
    ``p`` is read off the planes with bit operations (:func:`captured_by`), and
    one flood fill labels every chain at once.
    """
    planes = jnp.asarray(bb.index_planes(size))  # [L, W]
    return bb.flood_fill(bb.neighbours(empty & planes, size) & atari, atari, size)


@bb.scoped
def captured_by(chains: ChainsInAtari, points: jax.Array) -> jax.Array:
    """The chains of ``chains`` whose liberty is ``points[k]`` (``int[K]``, -1
    for none): ``uint32[K, W]``."""
    labels, atari = chains.labels, chains.stones
    levels = jnp.arange(labels.shape[0], dtype=jnp.int32)
    wanted = ((jnp.maximum(points, 0)[:, None] >> levels) & 1).astype(jnp.bool_)  # [K, L]
    chosen = jnp.where(wanted[..., None], labels, atari & ~labels)  # [K, L, W]
    found = jax.lax.reduce(chosen, jnp.uint32(0xFFFFFFFF), jax.lax.bitwise_and, (1,))
    return jnp.where((points >= 0)[:, None], found & atari, jnp.uint32(0))


@bb.scoped
def capture_repeats(
    config: GoConfig,
    lists: _history.HistoryLists,
    special: jax.Array,
    colour: jax.Array,
    own: ChainsInAtari | None,
    opponent: ChainsInAtari,
    suicides: jax.Array,
    base: _history.PositionKey,
) -> jax.Array:
    """Points of ``special`` (capturing or suicidal moves) that would recreate a
    recorded situation, tested ``_CHUNK`` at a time: ``uint32[W]``.

    Args:
      config: the rules.
      lists: the history.
      special: ``uint32[W]`` the moves to test.
      colour: ``int[]`` colour index of the mover.
      own: the mover's chains in atari (labelled), read only under
        ``config.suicide``: a suicide removes them.
      opponent: the opponent's chains in atari (labelled): a move on their
        liberty captures them.
      suicides: ``uint32[W]`` the moves that would leave their own chain
        without a liberty.
      base: the position before the move, with the situation key of the
        player to move after it.
    """
    if config.suicide and own is None:
        raise ValueError("capture_repeats needs the mover's chains in atari when suicide is allowed")
    mover = own if config.suicide else None
    size = config.size
    keys = jnp.asarray(_zobrist.tables(size).points)
    chunk = _CHUNK
    total = bb.count(special)

    def cond(loop: tuple[jax.Array, jax.Array]) -> jax.Array:
        first, _ = loop
        return jnp.any(first < total)

    def body(loop: tuple[jax.Array, jax.Array]) -> tuple[jax.Array, jax.Array]:
        first, banned = loop
        points = bb.select_points(special, first + jnp.arange(chunk))  # [K], -1 past the last
        bits = jax.vmap(bb.point_bits, in_axes=(0, None))(points, size)  # [K, W]
        captured = captured_by(opponent, points)
        if mover is not None:
            suicidal = bb.any_set(bits & suicides)
            lost = captured_by(mover, jnp.where(suicidal, points, -1))
            lost = lost | jnp.where(suicidal[:, None], bits, jnp.uint32(0))
            lost_count = bb.count(lost)
            removed = _zobrist.stones_hash(
                jnp.stack([captured, lost]), jnp.stack([1 - colour, colour])[:, None], size
            )
            removed = removed[0] ^ removed[1]
        else:
            lost_count = jnp.int32(0)
            removed = _zobrist.stones_hash(captured, 1 - colour, size)
        captured_count = bb.count(captured)
        # White places a stone and loses ``lost``; black removes ``captured`` white ones.
        made = _history.PositionKey(
            situation=base.situation ^ keys[colour, jnp.maximum(points, 0)] ^ removed,
            count=base.count + 1 - captured_count - lost_count,
            white=base.white + jnp.where(colour == 1, 1 - lost_count, -captured_count),
        )
        hit = _history.contains(config, lists, made, valid=points >= 0)
        return first + chunk, banned | bb.union(jnp.where(hit[:, None], bits, jnp.uint32(0)))

    return loops.while_loop(cond, body, (jnp.int32(0), jnp.zeros_like(special)))[1]
