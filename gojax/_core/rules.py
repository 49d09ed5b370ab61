"""The rules of Go as pure functions on one game: ``init``, ``step``, legal moves.

Every function takes the static :class:`~gojax.GoConfig` first and works on a
single game; batch with ``jax.vmap`` (e.g.
``jax.jit(jax.vmap(functools.partial(gojax.step, config)))``). Nothing here
calls ``jax.jit`` or raises on traced values.

Illegal actions inside ``step``: the board is left untouched, the game ends
(``terminated``), the mover is recorded as the loser (``loser``) and
``illegal_move`` is set - the behaviour pgx uses, so a learning agent is
punished and nothing is ever corrupted. A ``step`` on a game that is already
over (terminated or truncated) returns it unchanged.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from gojax._core import atari as _atari
from gojax._core import bitboard as bb
from gojax._core import history as _history
from gojax._core import zobrist as _zobrist
from gojax._core.types import GoConfig, GoState

__all__ = ["board", "init", "legal_action_mask", "reset_if_done", "resign", "step", "to_play"]


def init(config: GoConfig) -> GoState:
    """An empty board with black to move.

    Args:
      config: the rules.

    Returns:
      A :class:`GoState` for one game.
    """
    words = bb.num_words(config.size)
    history, head, prev = _history.empty(config)
    if config.history_length:
        start = _situation_key(config, jnp.int32(0))
        history, head, prev = _history.record(
            config, history, head, prev, jnp.int32(0), start, jnp.int32(0), jnp.int32(0)
        )
    return GoState(
        stones=jnp.zeros((2, words), jnp.uint32),
        atari=jnp.zeros((2, words), jnp.uint32),
        atari_liberty=jnp.zeros((2, config.liberty_label_planes, words), jnp.uint32),
        turn=jnp.int8(0),
        hash=jnp.zeros((2,), jnp.uint32),
        history=history,
        history_head=head,
        history_prev=prev,
        move_number=jnp.int32(0),
        passes=jnp.int8(0),
        ko_point=jnp.int16(-1),
        captures=jnp.zeros((2,), jnp.int16),
        last_move=jnp.int16(-1),
        terminated=jnp.bool_(False),
        truncated=jnp.bool_(False),
        loser=jnp.int8(0),
        illegal_move=jnp.bool_(False),
    )


def to_play(config: GoConfig, state: GoState) -> jax.Array:
    """Stone value of the player to move: ``int8[]``, 1 black or 2 white."""
    del config
    return (state.turn + 1).astype(jnp.int8)


def board(config: GoConfig, state: GoState) -> jax.Array:
    """The board as ``int8[N, N]``: 0 empty, 1 black, 2 white (row 0 at the top)."""
    grid = bb.to_grid(state.stones, config.size)
    return (grid[0].astype(jnp.int8) + 2 * grid[1].astype(jnp.int8)).astype(jnp.int8)


def _own_and_opponent(state: GoState, planes: jax.Array | None = None):
    """The mover's colour index, and ``planes`` (default: the stones) as mover's, opponent's."""
    planes = state.stones if planes is None else planes
    colour = state.turn.astype(jnp.int32)
    own = jnp.where(colour == 0, planes[0], planes[1])
    opponent = jnp.where(colour == 0, planes[1], planes[0])
    return colour, own, opponent


def _by_colour(colour: jax.Array, own: jax.Array, opponent: jax.Array) -> jax.Array:
    """Stacks the mover's and the opponent's planes back in black, white order."""
    return jnp.where(colour == 0, jnp.stack([own, opponent]), jnp.stack([opponent, own]))


def _situation_key(config: GoConfig, next_colour: jax.Array) -> jax.Array:
    """What is added to a position hash to make a history entry: ``uint32[2]``."""
    if config.ko_rule != "situational":
        return jnp.zeros((2,), jnp.uint32)
    return jnp.asarray(_zobrist.tables(config.size).side)[next_colour]


@bb.scoped
def step(config: GoConfig, state: GoState, action: jax.Array) -> GoState:
    """Plays ``action`` for the player to move.

    Args:
      config: the rules.
      state: one game.
      action: ``int[]`` in ``[0, P]``: point ``row * N + col`` or ``P`` for pass.
        Anything else, like any illegal move, ends the game as a loss for the
        mover with the board untouched (see the module docstring).

    Returns:
      The next state. Captured chains are removed, captures counted, the hash
      updated incrementally and recorded in the history; two consecutive
      passes terminate the game and reaching the move cap truncates it.
    """
    size, num_points = config.size, config.num_points
    full = jnp.asarray(bb.board_mask(size))
    keys = jnp.asarray(_zobrist.tables(size).points)

    action = jnp.asarray(action, jnp.int32)
    in_range = (action >= 0) & (action <= num_points)
    point = jnp.clip(action, 0, num_points)
    is_pass = point == num_points
    colour, own, opponent = _own_and_opponent(state)
    _, own_atari, opponent_atari = _own_and_opponent(state, state.atari)

    placed = bb.point_bits(point, size)
    occupied = bb.any_set((own | opponent) & placed)
    empty_after = full & ~(own | opponent | placed)

    sides = jnp.stack(
        [bb.shift(placed, rows, cols, size) for rows, cols in ((0, 1), (0, -1), (1, 0), (-1, 0))]
    )
    survivors = opponent & ~opponent_atari
    nothing = jnp.zeros_like(placed)
    free = jnp.broadcast_to(empty_after, (5, *empty_after.shape))
    if config.liberty_label_planes:
        # The chains in atari whose liberty is the move are read off their
        # liberty labels: the opponent's are captured, the mover's join the
        # new stone. Then one flood fill grows, from the move, the opponent
        # chains it touches that are not in atari (do they fall into atari?)
        # and the mover's chain through the new stone (its liberties), both
        # stopping at two liberties, and the mover's chains in atari that the
        # capture relieves.
        _, own_labels, opponent_labels = _own_and_opponent(state, state.atari_liberty)
        target = jnp.where(is_pass, -1, point)[None]
        captured = _atari.captured_by(opponent_labels, opponent_atari, target)[0]
        joined_atari = _atari.captured_by(own_labels, own_atari, target)[0]
        regions = bb.flood_fill(
            jnp.concatenate([sides, jnp.stack([placed, bb.neighbours(captured, size) & own_atari])]),
            jnp.stack([survivors, survivors, survivors, survivors, own | placed, own_atari]),
            size,
            free=jnp.concatenate([free, nothing[None]]),
        )
        opponent_chains, own_chain, relieved_own = regions[:4], regions[4], regions[5]
    else:
        # Without labels the same fill also grows, inside the atari
        # bitboards, the opponent chains the move captures and the mover's
        # chains in atari it joins; the relieved chains need a second fill.
        around = bb.union(sides)
        regions = bb.flood_fill(
            jnp.concatenate([sides, jnp.stack([placed, around, around])]),
            jnp.stack([survivors, survivors, survivors, survivors, own | placed, opponent_atari, own_atari]),
            size,
            free=jnp.concatenate([free, nothing[None], nothing[None]]),
        )
        opponent_chains, own_chain, captured, joined_atari = regions[:4], regions[4], regions[5], regions[6]
        captured = jnp.where(is_pass, nothing, captured)
        relieved_own = None
    own_liberties = bb.count(bb.neighbours(own_chain, size) & (empty_after | captured))
    suicide = ~is_pass & (own_liberties == 0)
    removed_own = jnp.where(suicide, own_chain, jnp.uint32(0))
    new_own = (own | placed) & ~removed_own
    new_opponent = opponent & ~captured
    new_empty = full & ~(new_own | new_opponent)

    place_key = jnp.where(is_pass, jnp.uint32(0), keys[colour, jnp.minimum(point, num_points - 1)])
    removed_keys = bb.key_sum(jnp.stack([captured, removed_own]), jnp.stack([1 - colour, colour]), size)
    new_hash = state.hash + place_key - removed_keys[0] - removed_keys[1]
    situation = new_hash + _situation_key(config, 1 - colour)
    own_count, opponent_count = bb.count(new_own), bb.count(new_opponent)
    new_count = own_count + opponent_count
    new_white = jnp.where(colour == 0, opponent_count, own_count)

    if config.ko_rule == "simple":
        repeats = point == state.ko_point
    else:
        recorded = (state.history, state.history_head, state.history_prev)
        repeats = _history.contains(config, *recorded, situation[None], new_count[None], new_white[None])[0]
    legal = in_range & (is_pass | (~occupied & ~repeats & (config.suicide | ~suicide)))

    # Atari bookkeeping: only chains touching the move, or touching removed
    # stones, change their liberties; the latter only gain, so leave atari.
    # The opponent's chains can only be relieved by a suicide.
    if relieved_own is None:
        relieved = bb.flood_fill(
            jnp.stack(
                [bb.neighbours(captured, size) & own_atari, bb.neighbours(removed_own, size) & opponent_atari]
            ),
            jnp.stack([own_atari, opponent_atari]),
            size,
        )
    elif config.suicide:
        relieved_opponent = bb.flood_fill(
            bb.neighbours(removed_own, size) & opponent_atari, opponent_atari, size
        )
        relieved = jnp.stack([relieved_own, relieved_opponent])
    else:
        relieved = jnp.stack([relieved_own, nothing])
    opponent_liberties = bb.count(bb.neighbours(opponent_chains, size) & new_empty)
    now_in_atari = bb.any_set(opponent_chains) & (opponent_liberties == 1)
    new_opponent_atari = (opponent_atari & ~captured & ~relieved[1]) | bb.union(
        jnp.where(now_in_atari[:, None], opponent_chains, jnp.uint32(0))
    )
    new_own_atari = (own_atari & ~relieved[0] & ~joined_atari & ~removed_own) | jnp.where(
        ~suicide & (own_liberties == 1), own_chain, jnp.uint32(0)
    )

    own_chain_in_atari = ~suicide & (own_liberties == 1)
    if config.liberty_label_planes:
        # A chain that stays in atari keeps its liberty; the chains that enter
        # atari are the mover's chain and the opponent chains next to the move.
        own_kept = own_atari & ~relieved[0] & ~joined_atari & ~removed_own
        opponent_kept = opponent_atari & ~captured & ~relieved[1]
        entering = jnp.concatenate(
            [
                jnp.where(now_in_atari[:, None], opponent_chains, jnp.uint32(0)),
                jnp.where(own_chain_in_atari, own_chain, jnp.uint32(0))[None],
            ]
        )
        labelled = _atari.label_chains(config, entering, new_empty)  # [5, L, W]
        new_own_labels = (own_labels & own_kept) | labelled[4]
        new_opponent_labels = (opponent_labels & opponent_kept) | bb.union(labelled[:4])
        atari_liberty = _by_colour(colour, new_own_labels & new_own, new_opponent_labels & new_opponent)
    else:
        atari_liberty = state.atari_liberty

    num_captured = bb.count(captured)
    is_ko_capture = (num_captured == 1) & (bb.count(own_chain) == 1) & (own_liberties == 1)
    move_number = state.move_number + 1
    passes = jnp.where(is_pass, state.passes + 1, 0).astype(jnp.int8)
    terminated = passes >= 2
    history, head, prev = state.history, state.history_head, state.history_prev
    if config.history_length:
        # A pass leaves the position as it is: under the positional rule it is
        # stored (history[move_number] is always the current position) but not
        # linked into a bucket, which holds that position already.
        linked = ~is_pass if config.ko_rule == "positional" else jnp.bool_(True)
        history, head, prev = _history.record(
            config,
            history,
            head,
            prev,
            move_number,
            situation,
            new_count,
            new_white,
            legal & ~state.done,
            linked,
        )
    played = GoState(
        stones=_by_colour(colour, new_own, new_opponent),
        atari=_by_colour(colour, new_own_atari & new_own, new_opponent_atari & new_opponent),
        atari_liberty=atari_liberty,
        turn=(1 - colour).astype(jnp.int8),
        hash=new_hash,
        history=history,
        history_head=head,
        history_prev=prev,
        move_number=move_number,
        passes=passes,
        ko_point=jnp.where(is_ko_capture, bb.lowest_point(captured, size), -1).astype(jnp.int16),
        captures=state.captures.at[colour]
        .add(num_captured.astype(jnp.int16))
        .at[1 - colour]
        .add(bb.count(removed_own).astype(jnp.int16)),
        last_move=point.astype(jnp.int16),
        terminated=terminated,
        truncated=~terminated & (move_number >= config.move_cap),
        loser=state.loser,
        illegal_move=state.illegal_move,
    )
    forfeited = state.replace(
        terminated=jnp.bool_(True),
        loser=(colour + 1).astype(jnp.int8),
        illegal_move=jnp.bool_(True),
    )
    # The history was written in place above (only for a legal move in a live
    # game); every other field is chosen between the three outcomes.
    done = state.done
    without_history = {"history": None, "history_head": None, "history_prev": None}
    chosen = jax.tree.map(
        lambda old, new, bad: jnp.where(done, old, jnp.where(legal, new, bad)),
        state.replace(**without_history),
        played.replace(**without_history),
        forfeited.replace(**without_history),
    )
    return chosen.replace(history=history, history_head=head, history_prev=prev)


def resign(config: GoConfig, state: GoState) -> GoState:
    """The player to move resigns: the game terminates with them as ``loser``.

    A game that is already over is returned unchanged.
    """
    del config
    resigned = state.replace(terminated=jnp.bool_(True), loser=(state.turn + 1).astype(jnp.int8))
    return jax.tree.map(lambda old, new: jnp.where(state.done, old, new), state, resigned)


def reset_if_done(config: GoConfig, state: GoState) -> GoState:
    """A new game (:func:`init`) in place of a finished one (terminated or
    truncated); a game still running is returned unchanged.

    ``jax.vmap`` it after ``step`` to keep a batch of games playing::

        state = jax.vmap(functools.partial(gojax.reset_if_done, config))(step(state, actions))

    Read what you need of the finished games (winner, score, records) before.
    """
    fresh = init(config)
    return jax.tree.map(lambda old, new: jnp.where(state.done, new, old), state, fresh)


@bb.scoped
def legal_action_mask(config: GoConfig, state: GoState) -> jax.Array:
    """Legal actions for the player to move: ``bool[A]`` (``A = P + 1``).

    Excluded: occupied points, suicide (unless ``config.suicide``), the simple
    ko recapture, and - under the positional / situational rules - every move
    that would recreate an earlier position (situation) of this game. Pass is
    always legal. The mask is computed from the board alone, also for a game
    that is over.

    Method: suicides and captures are read off ``state.atari`` with a few
    bitboard operations. Plain placements are tested against the history all
    at once by walking one stone-count bucket; capturing moves (and suicides,
    where allowed) are hashed and tested a few at a time, the stones each one
    removes read off the liberty labels of the chains in atari
    (``state.atari_liberty`` up to 13x13; one flood fill on larger boards).
    """
    size = config.size
    full = jnp.asarray(bb.board_mask(size))
    colour, own, opponent = _own_and_opponent(state)
    _, own_atari, opponent_atari = _own_and_opponent(state, state.atari)

    empty = full & ~(own | opponent)
    captures = bb.neighbours(opponent_atari, size) & empty
    breathes = bb.neighbours(empty, size) | bb.neighbours(own & ~own_atari, size) | captures
    suicides = empty & ~breathes
    legal = empty if config.suicide else empty & breathes

    if config.ko_rule == "simple":
        legal = legal & ~bb.point_bits(state.ko_point.astype(jnp.int32), size)
    else:
        history = (state.history, state.history_head, state.history_prev)
        base = state.hash + _situation_key(config, 1 - colour)
        count = bb.count(own | opponent)
        white = bb.count(state.stones[1])
        special = (captures | suicides) if config.suicide else captures
        plain = legal & ~special
        banned = plain & _history.plain_repeats(config, *history, base, count, white, colour)
        if config.liberty_label_planes:
            _, own_labels, opponent_labels = _own_and_opponent(state, state.atari_liberty)
        else:
            own_labels = _atari.liberty_labels(size, own_atari, empty) if config.suicide else None
            opponent_labels = _atari.liberty_labels(size, opponent_atari, empty)
        banned |= _atari.capture_repeats(
            config,
            history,
            special & legal,
            colour,
            (own_atari, own_labels),
            (opponent_atari, opponent_labels),
            suicides,
            base,
            (count, white),
        )
        legal = legal & ~banned
    return jnp.concatenate([bb.to_points(legal, size), jnp.ones((1,), jnp.bool_)])
