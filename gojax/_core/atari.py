"""The chains in atari: their liberties as bit planes, and what they tell.

Up to 13x13 the state keeps, beside the ``atari`` bitboard of the stones
whose chain has one liberty, that liberty's point index bit-sliced over
``L = ceil(log2 P)`` planes (:attr:`gojax.GoState.atari_liberty`). Which
chains a move at ``p`` captures (or joins) is then a few word operations
(:func:`captured_by`), and so is the hash of every capturing move, which the
legal mask tests against the history (:func:`capture_repeats`). Larger boards
label their chains in atari with one flood fill when the mask needs them
(:func:`liberty_labels`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from gojax._core import bitboard as bb
from gojax._core import history as _history
from gojax._core import zobrist as _zobrist
from gojax._core.types import GoConfig, GoState

__all__ = ["capture_repeats", "captured_by", "label_chains", "liberty_labels", "with_atari_liberty"]

# Capturing (and suicidal) moves hash differently from plain placements and are
# tested against the history this many at a time.
_CHUNK = 8


def with_atari_liberty(config: GoConfig, state: GoState) -> GoState:
    """``state`` with :attr:`GoState.atari_liberty` recomputed from its stones
    and ``atari`` bitboards (one flood fill).

    For states whose ``stones`` or ``atari`` were set by hand (e.g. an earlier
    board of the game put into the current state); ``step`` keeps the labels
    up to date by itself. A no-op above 13x13, where no labels are kept.
    """
    if not config.liberty_label_planes:
        return state
    size = config.size
    empty = jnp.asarray(bb.board_mask(size)) & ~(state.stones[0] | state.stones[1])
    labels = jnp.stack([liberty_labels(size, state.atari[colour], empty) for colour in range(2)])
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
def captured_by(labels: jax.Array, atari: jax.Array, points: jax.Array) -> jax.Array:
    """The chains of ``atari`` whose liberty is ``points[k]``: ``uint32[K, W]``."""
    levels = jnp.arange(labels.shape[0], dtype=jnp.int32)
    wanted = ((jnp.maximum(points, 0)[:, None] >> levels) & 1).astype(jnp.bool_)  # [K, L]
    chosen = jnp.where(wanted[..., None], labels, atari & ~labels)  # [K, L, W]
    found = jax.lax.reduce(chosen, jnp.uint32(0xFFFFFFFF), jax.lax.bitwise_and, (1,))
    return jnp.where((points >= 0)[:, None], found & atari, jnp.uint32(0))


@bb.scoped
def capture_repeats(config, history, special, colour, own, opponent, suicides, base, counts):
    """Points of ``special`` (capturing or suicidal moves) that would recreate a
    recorded situation, tested ``_CHUNK`` at a time: ``uint32[W]``.

    ``own`` and ``opponent`` are ``(atari, labels)`` pairs: the stones in atari
    and their liberties' bit planes (see :attr:`GoState.atari_liberty`);
    ``counts`` is ``(count, white)``: the stones on the board and the white
    ones among them.
    """
    size = config.size
    count, white = counts
    keys = jnp.asarray(_zobrist.tables(size).points)
    chunk = _CHUNK
    (own_atari, own_labels), (opponent_atari, opponent_labels) = own, opponent

    total = bb.count(special)

    def cond(loop):
        first, _ = loop
        return jnp.any(first < total)

    def body(loop):
        first, banned = loop
        points = bb.select_points(special, first + jnp.arange(chunk))  # [K], -1 past the last
        bits = jax.vmap(bb.point_bits, in_axes=(0, None))(points, size)  # [K, W]
        captured = captured_by(opponent_labels, opponent_atari, points)
        if config.suicide:
            suicidal = bb.any_set(bits & suicides)
            lost = captured_by(own_labels, own_atari, jnp.where(suicidal, points, -1))
            lost = lost | jnp.where(suicidal[:, None], bits, jnp.uint32(0))
            captured_count, lost_count = bb.count(captured), bb.count(lost)
            removed_keys = bb.key_sum(
                jnp.stack([captured, lost]), jnp.stack([1 - colour, colour])[:, None], size
            )
            removed_keys = removed_keys[0] + removed_keys[1]
        else:
            captured_count, lost_count = bb.count(captured), 0
            removed_keys = bb.key_sum(captured, 1 - colour, size)
        new_counts = count + 1 - captured_count - lost_count
        # White places a stone and loses ``lost``; black removes ``captured`` white ones.
        new_whites = white + jnp.where(colour == 1, 1 - lost_count, -captured_count)
        situations = base + keys[colour, jnp.maximum(points, 0)] - removed_keys
        hit = (points >= 0) & _history.contains(config, *history, situations, new_counts, new_whites)
        return first + chunk, banned | bb.union(jnp.where(hit[:, None], bits, jnp.uint32(0)))

    return jax.lax.while_loop(cond, body, (jnp.int32(0), jnp.zeros_like(special)))[1]
