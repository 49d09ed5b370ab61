"""The last phases of :func:`gojax.step`: hash, superko test, atari, history, outcome.

They take what :mod:`gojax._core.play` found (the :class:`~gojax._core.play.Move`,
its :class:`~gojax._core.play.Capture` and the :class:`~gojax._core.play.Settled`
board): :func:`hash_move` updates the Zobrist hash incrementally,
:func:`is_legal` tests the move (occupied point, suicide, ko or superko),
:func:`atari_after` updates the chains in atari, :func:`record_move` writes
the new position into the history, :func:`played` makes the state after the
move and :func:`outcome` chooses the next state.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from gojax._core import atari as _atari
from gojax._core import bitboard as bb
from gojax._core import history as _history
from gojax._core import zobrist as _zobrist
from gojax._core.play import Capture, Move, Settled, by_colour
from gojax._core.types import GoConfig, GoState

__all__ = [
    "Hashed",
    "atari_after",
    "hash_move",
    "is_legal",
    "outcome",
    "played",
    "record_move",
    "situation_key",
]


@dataclasses.dataclass(frozen=True)
class Hashed:
    """The hashes of the position a move makes.

    Attributes:
      position: ``uint32[2]`` Zobrist hash of the stones (:attr:`GoState.hash`).
      key: the position as the history names it.
    """

    position: jax.Array
    key: _history.PositionKey


def situation_key(config: GoConfig, next_colour: jax.typing.ArrayLike) -> jax.Array:
    """What is XOR-ed into a position hash to make a history entry: ``uint32[2]``
    (the key of the player to move under the situational rule, else zero)."""
    if config.ko_rule != "situational":
        return jnp.zeros((2,), jnp.uint32)
    return jnp.asarray(_zobrist.tables(config.size).side)[next_colour]


def hash_move(config: GoConfig, state: GoState, move: Move, capture: Capture, settled: Settled) -> Hashed:
    """The new hash: the placed stone's key and the removed stones' keys XOR-ed in."""
    size, num_points = config.size, config.num_points
    keys = jnp.asarray(_zobrist.tables(size).points)
    colour = move.colour
    place_key = jnp.where(move.is_pass, jnp.uint32(0), keys[colour, jnp.minimum(move.point, num_points - 1)])
    removed = _zobrist.stones_hash(
        jnp.stack([capture.captured, settled.removed_own]), jnp.stack([1 - colour, colour]), size
    )
    position = state.hash ^ place_key ^ removed[0] ^ removed[1]
    own_count, opponent_count = bb.count(settled.own), bb.count(settled.opponent)
    key = _history.PositionKey(
        situation=position ^ situation_key(config, 1 - colour),
        count=own_count + opponent_count,
        white=jnp.where(colour == 0, opponent_count, own_count),
    )
    return Hashed(position=position, key=key)


def is_legal(
    config: GoConfig,
    state: GoState,
    move: Move,
    settled: Settled,
    hashed: Hashed,
    mask: jax.Array | None = None,
) -> jax.Array:
    """``bool[]``: the action is a pass, or a move on an empty point that is no
    forbidden suicide and recreates no earlier position the ko rule bans.

    With ``mask`` (the state's ``bool[A]`` legal mask) a move is a repeat where
    the mask bans it; the history is not searched."""
    if mask is not None:
        repeats = ~mask[jnp.clip(move.point, 0, config.num_actions - 1)]
    elif config.ko_rule == "simple":
        repeats = move.point == state.ko_point
    else:
        key = hashed.key
        one = _history.PositionKey(
            situation=key.situation[None], count=key.count[None], white=key.white[None]
        )
        repeats = _history.contains(config, _history.HistoryLists.of(state), one)[0]
    allowed = ~move.occupied & ~repeats & (config.suicide | ~settled.suicide)
    return move.in_range & (move.is_pass | allowed)


@bb.scoped
def atari_after(
    config: GoConfig, move: Move, capture: Capture, settled: Settled
) -> tuple[_atari.ChainsInAtari, _atari.ChainsInAtari]:
    """The mover's and the opponent's chains in atari after the move.

    Only chains touching the move, or touching removed stones, change their
    liberties; the latter only gain, so they leave atari. The opponent's
    chains can only be relieved by a suicide. A chain that stays in atari
    keeps its label; the chains that enter atari (the mover's chain and the
    opponent chains next to the move) are labelled anew.
    """
    size = config.size
    own_atari, opponent_atari = move.own_atari.stones, move.opponent_atari.stones
    if config.suicide:
        relieved_opponent = bb.flood_fill(
            bb.neighbours(settled.removed_own, size) & opponent_atari, opponent_atari, size
        )
    else:
        relieved_opponent = jnp.zeros_like(opponent_atari)
    chains = capture.opponent_chains
    opponent_liberties = bb.count(bb.neighbours(chains, size) & settled.empty)
    now_in_atari = bb.any_set(chains) & (opponent_liberties == 1)
    own_in_atari = ~settled.suicide & (settled.own_liberties == 1)
    entering = jnp.concatenate(
        [
            jnp.where(now_in_atari[:, None], chains, jnp.uint32(0)),
            jnp.where(own_in_atari, capture.own_chain, jnp.uint32(0))[None],
        ]
    )  # [5, W]: the opponent's four sides, the mover's chain
    own_kept = own_atari & ~capture.relieved_own & ~capture.joined & ~settled.removed_own
    opponent_kept = opponent_atari & ~capture.captured & ~relieved_opponent
    labelled = _atari.label_chains(config, entering, settled.empty)  # [5, L, W]
    own_labels = (move.own_atari.labels & own_kept) | labelled[4]
    opponent_labels = (move.opponent_atari.labels & opponent_kept) | bb.union(labelled[:4])
    own = _atari.ChainsInAtari(stones=(own_kept | entering[4]) & settled.own, labels=own_labels & settled.own)
    opponent = _atari.ChainsInAtari(
        stones=(opponent_kept | bb.union(entering[:4])) & settled.opponent,
        labels=opponent_labels & settled.opponent,
    )
    return own, opponent


def record_move(
    config: GoConfig, state: GoState, move: Move, hashed: Hashed, legal: jax.Array
) -> _history.HistoryLists:
    """The history with the new position stored, if the move is legal and the
    game was not over.

    A pass leaves the position as it is: under the positional rule it is
    stored (``history[move_number]`` is always the current position) but not
    linked into a bucket, which holds that position already.
    """
    lists = _history.HistoryLists.of(state)
    if not config.history_length:
        return lists
    linked = ~move.is_pass if config.ko_rule == "positional" else jnp.bool_(True)
    store = legal & ~state.done
    return _history.record(config, lists, state.move_number + 1, hashed.key, store=store, link=linked)


def played(
    config: GoConfig,
    state: GoState,
    move: Move,
    capture: Capture,
    settled: Settled,
    hashed: Hashed,
    chains: tuple[_atari.ChainsInAtari, _atari.ChainsInAtari],
) -> GoState:
    """``state`` after the move, whether it is legal or not (the history
    aside: see :func:`record_move`). ``chains`` are the mover's and the
    opponent's chains in atari after it (:func:`atari_after`)."""
    colour, size = move.colour, config.size
    own_atari, opponent_atari = chains
    num_captured = bb.count(capture.captured)
    is_ko_capture = (num_captured == 1) & (bb.count(capture.own_chain) == 1) & (settled.own_liberties == 1)
    move_number = state.move_number + 1
    passes = jnp.where(move.is_pass, state.passes + 1, 0).astype(jnp.int8)
    terminated = passes >= 2
    lost = bb.count(settled.removed_own).astype(jnp.int16)
    return state.replace(
        stones=by_colour(colour, settled.own, settled.opponent),
        atari=by_colour(colour, own_atari.stones, opponent_atari.stones),
        atari_liberty=own_atari.labels | opponent_atari.labels,
        turn=(1 - colour).astype(jnp.int8),
        hash=hashed.position,
        move_number=move_number,
        passes=passes,
        ko_point=jnp.where(is_ko_capture, bb.lowest_point(capture.captured, size), -1).astype(jnp.int16),
        captures=state.captures.at[colour].add(num_captured.astype(jnp.int16)).at[1 - colour].add(lost),
        last_move=move.point.astype(jnp.int16),
        terminated=terminated,
        truncated=~terminated & (move_number >= config.move_cap),
    )


def outcome(state: GoState, played: GoState, lists: _history.HistoryLists, legal: jax.Array) -> GoState:
    """The next state: ``played`` if the move is ``legal``, the game forfeited
    by the mover if not, ``state`` itself if the game was over; with ``lists``
    as its history (already conditional, see :func:`record_move`)."""
    forfeited = state.replace(
        terminated=jnp.bool_(True),
        loser=(state.turn + 1).astype(jnp.int8),
        illegal_move=jnp.bool_(True),
    )
    # The history was written in place (only for a legal move in a live
    # game); every other field is chosen between the three outcomes.
    without_history = {"history": None, "history_head": None, "history_prev": None}
    chosen = jax.tree.map(
        lambda old, new, bad: jnp.where(state.done, old, jnp.where(legal, new, bad)),
        state.replace(**without_history),
        played.replace(**without_history),
        forfeited.replace(**without_history),
    )
    return lists.into(chosen)
