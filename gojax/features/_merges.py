"""Liberties after the moves that join chains or capture, counted on bitboards and pooled over a batch.

:mod:`gojax.features._chains` counts the liberties a stone would have at
most empty points from the labels around it alone: a stone that touches at
most one chain of its colour and captures nothing has the liberties of that
chain (less the point itself) plus its empty neighbours that the chain does
not touch. Where the stone joins two or more chains (their liberties may
overlap anywhere on the board) or joins one and captures, the count needs
the chains' stones: the new chain is the union of their bitboards and the
point, its liberties one dilation of it. Those *merge points* are a small
part of the board (for the AlphaGo planes' two tables, about a fifth of the
empty points of whole-game 9x9 and 19x19 boards, a tenth of all points), so
only they are counted here.

Under ``jax.vmap`` a per-game computation would count a fixed number of
points in every game; instead :func:`merged_liberties` has a batching rule
(``jax.custom_batching.custom_vmap``) that lists the merge points of every
game of the batch and counts them ``capacity`` at a time in a loop (nested
``vmap`` levels flatten again), so the work follows the number of merge
points in the batch, and the result is exact however many there are.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from gojax._core import bitboard as bb
from gojax._core import loops

__all__ = ["merged_liberties"]

# Points counted together, per game of the pool (an eighth of its points): a batch's
# merge points (about a tenth of its points on whole-game boards) in one pass.
_SHARE = 8
_EMPTY, _MOVER, _OPPONENT = 0, 1, 2


def _counts(size, variants, boards, labels, colours, in_atari, empty, game, point):
    """``int32[V, C]``: liberties after a stone at each ``point`` of ``game`` (``int32[C]`` each)."""
    words = boards.shape[-1]
    chains = boards[game[:, None], labels[game, :, point]]  # [C, 4, W]
    colour, atari = colours[game, :, point], in_atari[game, :, point]  # [C, 4]
    word = jnp.arange(words, dtype=jnp.int32)
    bit = jnp.left_shift(jnp.uint32(1), (point & 31).astype(jnp.uint32))
    placed = jnp.where(word == (point[:, None] >> 5), bit[:, None], jnp.uint32(0))  # [C, W]
    free = empty[game] & ~placed

    def union(flags):
        picked = jnp.where(flags[..., None], chains, jnp.uint32(0))
        return picked[:, 0] | picked[:, 1] | picked[:, 2] | picked[:, 3]

    around = {}
    out = []
    for own, captures in variants:
        if own not in around:
            around[own] = bb.neighbours(placed | union(colour == own), size)
        liberties = free | union((colour == _MOVER + _OPPONENT - own) & atari) if captures else free
        out.append(bb.count(around[own] & liberties))
    return jnp.stack(out)


def _pool(size, variants, boards, labels, colours, in_atari, empty, merge):
    """``int32[V, G, P]`` for ``G`` games (leading axis of every argument); 0 off the merge points."""
    games, points = merge.shape
    total = games * points
    capacity = max(1, total // _SHARE)
    flat = merge.reshape(-1)
    count = jnp.sum(flat.astype(jnp.int32))
    order = jnp.nonzero(flat, size=total, fill_value=total)[0]
    order = jnp.concatenate([order, jnp.full((capacity,), total, jnp.int32)])

    def body(carry):
        start, out = carry
        index = jax.lax.dynamic_slice_in_dim(order, start, capacity)
        game = jnp.minimum(index // points, games - 1)
        point = index % points
        values = _counts(size, variants, boards, labels, colours, in_atari, empty, game, point)
        return start + capacity, out.at[:, index].set(values, mode="drop")

    out = jnp.zeros((len(variants), total), jnp.int32)
    out = loops.while_loop(lambda carry: carry[0] < count, body, (jnp.int32(0), out))[1]
    return out.reshape(len(variants), games, points)


@functools.cache
def _pooled(size: int, variants: tuple[tuple[int, bool], ...]):
    @jax.custom_batching.custom_vmap
    def pooled(boards, labels, colours, in_atari, empty, merge):
        return _pool(size, variants, boards, labels, colours, in_atari, empty, merge)

    @pooled.def_vmap
    def rule(axis_size, in_batched, *args):
        args = [
            x if batched else jnp.broadcast_to(x, (axis_size, *x.shape))
            for x, batched in zip(args, in_batched, strict=True)
        ]
        games = args[-1].shape[1]
        out = pooled(*(x.reshape((-1, *x.shape[2:])) for x in args))  # [V, B * G, P]
        return jnp.moveaxis(out.reshape(len(variants), axis_size, games, -1), 1, 0), True

    return pooled


def merged_liberties(size: int, variants, boards, labels, colours, in_atari, empty, merge) -> jax.Array:
    """Liberties after a stone at each merge point of ONE game, pooled with the other games' under ``vmap``.

    Args:
      size: ``N``.
      variants: static ``((colour, captures), ...)``: whose stone (1 the
        mover's, 2 the opponent's) and whether the chains it captures are
        taken off first (else counted as if nothing were captured).
      boards: ``uint32[P + 1, W]`` the stones of each chain, by label (the
        label's row; row ``P`` empty).
      labels: ``int32[4, P]`` the label of each point's four neighbours'
        chains (``P`` for an empty or off-board neighbour).
      colours: ``int32[4, P]`` their relative colours (0 empty, 1 mover,
        2 opponent, 3 off board).
      in_atari: ``bool[4, P]`` their chains have one liberty.
      empty: ``uint32[W]`` the empty points.
      merge: ``bool[P]`` the points to count (empty points).

    Returns:
      ``int32[V, P]``: the liberties of the new chain at each merge point, 0
      elsewhere.
    """
    variants = tuple((int(colour), bool(captures)) for colour, captures in variants)
    args = (boards, labels, colours, in_atari, empty, merge)
    return _pooled(size, variants)(*(x[None] for x in args))[:, 0]
