"""Light playouts: a bitboard-only Go kernel for the random playouts of :class:`gojax.search.TreeSearch`.

A playout needs far less than :func:`gojax.step` does, so this kernel keeps
only what a random playout under the **simple ko rule, suicide never played**
reads:

* **Kept**: the stones of each colour, the stones of each colour whose chain
  is in atari and the liberty of each such chain bit-sliced over ``L`` planes
  (:attr:`gojax.GoState.atari_liberty`, split by colour), the
  simple-ko point, the player to move, the consecutive passes, the moves
  played, the last move's point.
* **Dropped**: the Zobrist hash and the superko history (a playout may repeat
  a whole-board position, harmless for an estimate), the capture counts, the
  game-over flags and the move validation of ``step`` (the kernel only plays
  its own legal moves).

A bitboard is a tuple of its ``W`` ``uint32`` words (:data:`gojax._core.bitboard.Words`), each an
array of any shape (``[]`` for one game, ``[B]`` for a batch): every operation, the neighbour
shifts included, is elementwise over games, which a CPU vectorises.

A move places the stone, removes the opponent chains in atari whose liberty
it fills (read off the liberty labels, no search), and grows only the chains
next to the move - the opponent chains it touches (do they fall into
atari?), the mover's chain through it (is it in atari?), the mover's chains
in atari that a capture relieves - until each is decided (whole, or two
liberties found).

The moves a playout picks from (:func:`light_moves`) are bitboard operations
too: empty, not the simple-ko point, not suicide (an empty neighbour, a
neighbouring chain of the mover not in atari, or a capture), and not one of
the mover's own one-point eyes (the definition of
:func:`gojax.playouts.own_eyes`). One is picked uniformly by one random
``uint32`` per move (its rank among the set bits); with none left the player
passes (suicide is never played). The playouts of a batch run in one loop
(:func:`gojax.playouts._light_loop.light_playouts`, the move choice an argument:
:mod:`gojax.playouts._heavy` is another).

Shapes: ``N`` board side, ``P = N * N`` points (pass is ``P``), ``W`` words,
``L = ceil(log2 P)`` liberty planes.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp

from gojax._core import bitboard as bb
from gojax._core import loops
from gojax._core.bitboard import Words
from gojax._core.bitboard import WordTuples as w
from gojax._core.types import GoConfig, GoState

__all__ = ["Chooser", "LightState", "light_move", "light_moves", "light_owner", "light_play", "light_state"]

_SIDES = ((0, 1), (0, -1), (1, 0), (-1, 0))
_DIAGONALS = ((-1, -1), (-1, 1), (1, -1), (1, 1))
Chooser = Callable[[int, "LightState", jax.Array], jax.Array]  # a playout policy: (N, game, draw) -> point


class LightState(NamedTuple):
    """One game as the light kernel sees it (add a leading axis to every array under ``jax.vmap``).

    Attributes:
      stones: :data:`~gojax._core.bitboard.Words` of ``uint32[2]``: black's, white's stones.
      atari: :data:`~gojax._core.bitboard.Words` of ``uint32[2]``: each colour's stones whose chain
        has exactly one liberty.
      labels: :data:`~gojax._core.bitboard.Words` of ``uint32[2, L]``: that liberty bit-sliced
        (plane ``b``: the chains whose liberty's index has bit ``b`` set).
      turn: ``int32[]`` colour index to move (0 black, 1 white).
      ko: ``int32[]`` the point the player to move may not retake, or -1.
      passes: ``int32[]`` consecutive passes just played.
      moves: ``int32[]`` moves played in the playout (passes included).
      last: ``int32[]`` the point of the last move, or -1 (none, or a pass).
    """

    stones: Words
    atari: Words
    labels: Words
    turn: jax.Array
    ko: jax.Array
    passes: jax.Array
    moves: jax.Array
    last: jax.Array


def light_state(config: GoConfig, state: GoState) -> LightState:
    """The light view of ``state`` (one game; ``moves`` 0): the state's liberty labels split by colour."""
    labels = state.atari_liberty[None] & state.atari[:, None]  # [2, L, W]
    return LightState(
        stones=w.words(state.stones),
        atari=w.words(state.atari),
        labels=w.words(labels.astype(jnp.uint32)),  # each word [2, L]
        turn=state.turn.astype(jnp.int32),
        ko=state.ko_point.astype(jnp.int32),
        passes=state.passes.astype(jnp.int32),
        moves=jnp.int32(0),
        last=jnp.where(state.last_move < config.num_points, state.last_move, -1).astype(jnp.int32),
    )


def _mine(turn: jax.Array, planes: Words) -> tuple[Words, Words]:
    """The mover's and the opponent's half of :data:`~gojax._core.bitboard.Words` of ``[2, ...]``."""
    own = tuple(jnp.where(turn == 0, word[0], word[1]) for word in planes)
    return own, tuple(jnp.where(turn == 0, word[1], word[0]) for word in planes)


def light_moves(size: int, light: LightState) -> tuple[Words, Words]:
    """``(legal, playable)`` for the player to move.

    ``legal``: the points legal under the simple ko rule without suicide;
    ``playable``: those that are not the mover's own one-point eyes either.
    """
    c = w.constants(size)
    board = tuple(w.u32(b) for b in c["board"])
    own, opponent = _mine(light.turn, light.stones)
    own_atari, opponent_atari = _mine(light.turn, light.atari)
    empty = w.op(lambda b, o, t: b & ~(o | t), board, own, opponent)
    breathes = w.neighbours(
        w.op(lambda e, o, a, t: e | (o & ~a) | t, empty, own, own_atari, opponent_atari), size
    )
    ko = w.point_bits(light.ko, size)
    legal = w.op(lambda e, b, k: e & b & ~k, empty, breathes, ko)
    enclosed = w.op(lambda e, n: e & ~n, empty, w.neighbours(w.op(lambda b, o: b & ~o, board, own), size))
    d = [w.shift(opponent, rows, cols, size) for rows, cols in _DIAGONALS]
    inner = tuple(w.u32(v) for v in c["inner"])

    def eye(e, d0, d1, d2, d3, i):
        some = d0 | d1 | d2 | d3
        two = w.two_of_four(d0, d1, d2, d3)
        return e & ~two & (i | ~some)

    eyes = w.op(eye, enclosed, *d, inner)
    return legal, w.op(lambda g, e: g & ~e, legal, eyes)


class _Work(NamedTuple):
    """A move under way: its point, what it captures and joins, and the regions growing around it.

    ``regions``, ``masks``, ``frees``: :data:`~gojax._core.bitboard.Words` of ``uint32[6]`` - the
    opponent chains not in atari on each side of the move (0-3), the mover's
    chain through it (4), the mover's chains in atari next to a capture (5);
    the points each may enter; the points that are its liberties.
    """

    point: jax.Array
    placed: Words
    captured: Words
    joined: Words
    regions: Words
    masks: Words
    frees: Words


def _prepare(size: int, light: LightState, point: jax.Array, taken: tuple | None = None) -> _Work:
    """Starts the move ``point`` (``P`` passes): captures and joins read off the liberty labels.

    ``taken``: :func:`_captures` of the move, if already computed.
    """
    board = tuple(w.u32(b) for b in w.constants(size)["board"])
    target, placed, captured, joined = _captures(size, light, point) if taken is None else taken
    own, opponent = _mine(light.turn, light.stones)
    own_atari, opponent_atari = _mine(light.turn, light.atari)
    empty = w.op(lambda b, o, t, p: b & ~(o | t | p), board, own, opponent, placed)
    sides = [w.shift(placed, rows, cols, size) for rows, cols in _SIDES]
    relievable = w.op(jnp.bitwise_and, w.neighbours(captured, size), own_atari)
    survivors = w.op(lambda t, a: t & ~a, opponent, opponent_atari)
    masks = w.op(lambda s, o, p, a: jnp.stack([s, s, s, s, o | p, a]), survivors, own, placed, own_atari)
    frees = w.op(lambda e, k: jnp.stack([e, e, e, e, e | k, jnp.zeros_like(e)]), empty, captured)
    seeds = w.op(lambda *ws: jnp.stack(ws), *sides, placed, relievable)
    regions = w.op(jnp.bitwise_and, seeds, masks)
    return _Work(target, placed, captured, joined, regions, masks, frees)


def _captures(size: int, light: LightState, point: jax.Array) -> tuple[jax.Array, Words, Words, Words]:
    """``(target, placed, captured, joined)`` of the move ``point``: the point (-1 for a pass),
    its stone, the opponent chains it captures and the mover's chains in atari it joins."""
    target = jnp.where(point >= size * size, -1, point)
    own_atari, opponent_atari = _mine(light.turn, light.atari)
    own_labels, opponent_labels = _mine(light.turn, light.labels)
    captured = w.label_match(opponent_labels, opponent_atari, target, size)
    joined = w.label_match(own_labels, own_atari, target, size)
    return target, w.point_bits(target, size), captured, joined


def _dilate(size: int, work: _Work) -> Words:
    """The regions grown by one dilation inside their masks."""
    return w.op(lambda r, n, m: (r | n) & m, work.regions, w.neighbours(work.regions, size), work.masks)


def _decided(size: int, work: _Work) -> jax.Array:
    """``bool[]``: whether every region is decided - it stops growing (it is its whole
    chain) or has two liberties (enough to know its chain is not in atari)."""
    around = w.neighbours(work.regions, size)
    growing = w.any_set(w.op(lambda r, n, m: n & m & ~r, work.regions, around, work.masks))
    return ~jnp.any(growing & (w.count(w.op(jnp.bitwise_and, around, work.frees)) < 2))


class _Chains(NamedTuple):
    """What the decided regions tell: ``chains`` (:data:`~gojax._core.bitboard.Words` of ``[5]``) the
    regions 0-4 whose chain is in atari, ``labelled`` (:data:`~gojax._core.bitboard.Words` of
    ``[5, L]``) their liberty's planes, ``single`` (``bool[]``) the move's chain
    is one stone in atari."""

    chains: Words
    labelled: Words
    single: jax.Array


def _read(size: int, work: _Work) -> _Chains:
    """Reads the decided regions: which chains are in atari, and on which liberty."""
    planes = w.constants(size)["planes"]
    five = tuple(r[..., :5] for r in work.regions)
    liberties = w.op(jnp.bitwise_and, w.neighbours(five, size), tuple(f[..., :5] for f in work.frees))
    in_atari = w.count(liberties) == 1  # [..., 5]
    bits = jnp.stack(
        [
            functools.reduce(jnp.bitwise_or, [x & w.u32(plane[i]) for i, x in enumerate(liberties)]) != 0
            for plane in planes
        ],
        axis=-1,
    )  # [..., 5, L]: region k's liberty has bit b (one liberty, so any set bit tells)
    chains = tuple(jnp.where(in_atari, r, jnp.uint32(0)) for r in five)
    labelled = tuple(jnp.where(bits, ch[..., None], jnp.uint32(0)) for ch in chains)
    single = in_atari[..., 4] & (w.count(tuple(r[..., 4] for r in five)) == 1)
    return _Chains(chains, labelled, single)


def _finish(size: int, light: LightState, work: _Work, read: _Chains) -> LightState:
    """Ends the move: the new stones, chains in atari, their labels, the ko point."""
    colour = light.turn
    own, opponent = _mine(colour, light.stones)
    own_atari, opponent_atari = _mine(colour, light.atari)
    own_labels, opponent_labels = _mine(colour, light.labels)
    chains, labelled, captured = read.chains, read.labelled, work.captured
    relieved = w.op(lambda j, r: j | r[..., 5], work.joined, work.regions)
    own_atari = w.op(lambda a, r, ch: (a & ~r) | ch[..., 4], own_atari, relieved, chains)
    own_labels = w.op(
        lambda lab, r, ch: (lab & ~r[..., None]) | ch[..., 4, :], own_labels, relieved, labelled
    )
    opponent_atari = w.op(
        lambda a, k, ch: (a & ~k) | ch[..., 0] | ch[..., 1] | ch[..., 2] | ch[..., 3],
        opponent_atari,
        captured,
        chains,
    )
    opponent_labels = w.op(
        lambda lab, k, ch: (
            (lab & ~k[..., None]) | ch[..., 0, :] | ch[..., 1, :] | ch[..., 2, :] | ch[..., 3, :]
        ),
        opponent_labels,
        captured,
        labelled,
    )
    ko = jnp.where(read.single & (w.count(captured) == 1), w.lowest_point(captured), -1)

    def back(mine: Words, theirs: Words) -> Words:
        return w.op(lambda m, t: jnp.where(colour == 0, jnp.stack([m, t]), jnp.stack([t, m])), mine, theirs)

    return LightState(
        stones=back(w.op(jnp.bitwise_or, own, work.placed), w.op(lambda t, k: t & ~k, opponent, captured)),
        atari=back(own_atari, opponent_atari),
        labels=back(own_labels, opponent_labels),
        turn=1 - colour,
        ko=ko.astype(jnp.int32),
        passes=jnp.where(work.point < 0, light.passes + 1, 0),
        moves=light.moves + 1,
        last=work.point.astype(jnp.int32),
    )


def light_play(size: int, light: LightState, point: jax.Array) -> LightState:
    """Plays ``point`` (``int32[]``; ``P`` passes) in one game.

    The point must be legal (:func:`light_moves`): the kernel does not check.
    """
    work = loops.while_loop(
        lambda job: ~_decided(size, job),
        lambda job: job._replace(regions=_dilate(size, job)),
        _prepare(size, light, point),
    )
    return _finish(size, light, work, _read(size, work))


def light_owner(size: int, stones: jax.Array) -> jax.Array:
    """``int32[P]`` from ``uint32[2, W]`` stones: the Tromp-Taylor owner, +1 black, -1 white, 0 neither."""
    empty = jnp.asarray(bb.board_mask(size)) & ~(stones[0] | stones[1])
    reach = bb.flood_fill(bb.neighbours(stones, size), empty[None], size)
    black = stones[0] | (reach[0] & ~reach[1])
    white = stones[1] | (reach[1] & ~reach[0])
    return bb.to_points(black, size).astype(jnp.int32) - bb.to_points(white, size).astype(jnp.int32)


def _pick(playable: Words, draw: jax.Array, points: int) -> jax.Array:
    """``int32[]``: the point of ``playable`` of rank ``draw * count / 2**32`` (``points``, pass, if none)."""
    total = w.count(playable)
    uniform = (draw >> 8).astype(jnp.float32) * jnp.float32(2.0**-24)
    rank = jnp.floor(uniform * total.astype(jnp.float32)).astype(jnp.int32)
    return jnp.where(total > 0, w.select_rank(playable, rank), points)


def light_move(size: int, light: LightState, draw: jax.Array) -> jax.Array:
    """``int32[]``: a playable point picked uniformly by the ``uint32[]`` ``draw``, or pass ``P``."""
    return _pick(light_moves(size, light)[1], draw, size * size)
