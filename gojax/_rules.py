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

import functools

import jax
import jax.numpy as jnp
import numpy as np

from gojax import _bitboard as bb
from gojax import _zobrist
from gojax._types import GoConfig, GoState

__all__ = ["board", "init", "legal_action_mask", "resign", "step", "to_play"]

# Capturing (and suicide) moves hash differently from plain placements and are
# checked against the history this many at a time.
_SPECIAL_CHUNK = 8


def init(config: GoConfig) -> GoState:
    """An empty board with black to move.

    Args:
      config: the rules.

    Returns:
      A :class:`GoState` for one game.
    """
    size = config.size
    history = jnp.zeros((config.history_length, 2), jnp.uint32)
    if config.ko_rule == "situational":
        history = history.at[0].set(jnp.asarray(_zobrist.tables(size).side[0]))
    return GoState(
        stones=jnp.zeros((2, size), jnp.uint32),
        turn=jnp.int8(0),
        hash=jnp.zeros((2,), jnp.uint32),
        history=history,
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


def _own_and_opponent(state: GoState) -> tuple[jax.Array, jax.Array, jax.Array]:
    colour = state.turn.astype(jnp.int32)
    own = jnp.where(colour == 0, state.stones[0], state.stones[1])
    opponent = jnp.where(colour == 0, state.stones[1], state.stones[0])
    return colour, own, opponent


def _situation_key(config: GoConfig, next_colour: jax.Array) -> jax.Array:
    """What is added to a position hash to make a history entry: ``uint32[2]``."""
    if config.ko_rule != "situational":
        return jnp.zeros((2,), jnp.uint32)
    return jnp.asarray(_zobrist.tables(config.size).side)[next_colour]


def _in_history(config: GoConfig, state: GoState, situation: jax.Array) -> jax.Array:
    """Whether ``uint32[2]`` ``situation`` is among the recorded history entries."""
    valid = jnp.arange(config.history_length) <= state.move_number
    same = jnp.all(state.history == situation, axis=-1)
    return jnp.any(same & valid)


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
      updated incrementally and appended to the history; two consecutive passes
      terminate the game and reaching the move cap truncates it.
    """
    size, num_points = config.size, config.num_points
    full = bb.row_mask(size)
    keys = jnp.asarray(_zobrist.tables(size).points)

    action = jnp.asarray(action, jnp.int32)
    in_range = (action >= 0) & (action <= num_points)
    point = jnp.clip(action, 0, num_points)
    is_pass = point == num_points
    colour, own, opponent = _own_and_opponent(state)

    placed = bb.point_bits(point, size)
    occupied = bb.any_set((own | opponent) & placed)
    empty_after = full & ~(own | opponent | placed)

    # The (up to) four opponent chains touching the move, and the mover's own
    # chain through the new stone, all filled at once.
    seeds = jnp.stack(
        [
            placed >> 1,
            (placed << 1) & full,
            jnp.concatenate([placed[1:], jnp.zeros((1,), jnp.uint32)]),
            jnp.concatenate([jnp.zeros((1,), jnp.uint32), placed[:-1]]),
            placed,
        ]
    )
    masks = jnp.stack([opponent, opponent, opponent, opponent, own | placed])
    chains = bb.flood_fill(seeds, masks, size)
    opponent_chains, own_chain = chains[:4], chains[4]
    alive = bb.any_set(bb.neighbours(opponent_chains, size) & empty_after)
    dead = bb.any_set(opponent_chains) & ~alive
    captured = jnp.bitwise_or.reduce(jnp.where(dead[:, None], opponent_chains, jnp.uint32(0)), axis=0)
    own_liberties = bb.neighbours(own_chain, size) & (empty_after | captured)
    suicide = ~is_pass & ~bb.any_set(own_liberties)
    removed_own = jnp.where(suicide, own_chain, jnp.uint32(0))

    own_keys, opponent_keys = keys[colour], keys[1 - colour]
    place_key = jnp.where(is_pass, jnp.uint32(0), own_keys[jnp.minimum(point, num_points - 1)])
    removed_keys = bb.key_sum(jnp.stack([captured, removed_own]), jnp.stack([opponent_keys, own_keys]), size)
    new_hash = state.hash + place_key - removed_keys[0] - removed_keys[1]
    situation = new_hash + _situation_key(config, 1 - colour)

    if config.ko_rule == "simple":
        repeats = point == state.ko_point
    else:
        repeats = _in_history(config, state, situation)
    legal = in_range & (is_pass | (~occupied & ~repeats & (config.suicide | ~suicide)))

    num_captured = bb.count(captured)
    is_ko_capture = (num_captured == 1) & (bb.count(own_chain) == 1) & jnp.all(own_liberties == captured)
    new_own = (own | placed) & ~removed_own
    new_opponent = opponent & ~captured
    move_number = state.move_number + 1
    passes = jnp.where(is_pass, state.passes + 1, 0).astype(jnp.int8)
    terminated = passes >= 2
    history = state.history
    if config.history_length:
        history = history.at[move_number].set(situation, mode="drop")
    played = GoState(
        stones=jnp.where(colour == 0, jnp.stack([new_own, new_opponent]), jnp.stack([new_opponent, new_own])),
        turn=(1 - colour).astype(jnp.int8),
        hash=new_hash,
        history=history,
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
        terminated=jnp.bool_(True), loser=(colour + 1).astype(jnp.int8), illegal_move=jnp.bool_(True)
    )
    done = state.done
    return jax.tree.map(
        lambda old, new, bad: jnp.where(done, old, jnp.where(legal, new, bad)),
        state,
        played,
        forfeited,
    )


def resign(config: GoConfig, state: GoState) -> GoState:
    """The player to move resigns: the game terminates with them as ``loser``.

    A game that is already over is returned unchanged.
    """
    del config
    resigned = state.replace(terminated=jnp.bool_(True), loser=(state.turn + 1).astype(jnp.int8))
    return jax.tree.map(lambda old, new: jnp.where(state.done, old, new), state, resigned)


@functools.cache
def _neighbour_table(size: int) -> np.ndarray:
    """``int32[P, 4]`` neighbour points (left, right, up, down); ``P`` when off-board."""
    num_points = size * size
    rows, cols = np.divmod(np.arange(num_points), size)
    table = np.full((num_points, 4), num_points, dtype=np.int32)
    for k, (dr, dc) in enumerate(((0, -1), (0, 1), (-1, 0), (1, 0))):
        r, c = rows + dr, cols + dc
        on = (r >= 0) & (r < size) & (c >= 0) & (c < size)
        table[on, k] = (r * size + c)[on]
    table.setflags(write=False)
    return table


def _pad(x: jax.Array, value) -> jax.Array:
    return jnp.concatenate([x, jnp.full((1, *x.shape[1:]), value, x.dtype)])


def _chain_labels(same: jax.Array, stone: jax.Array, nbr: np.ndarray) -> jax.Array:
    """Smallest point index of each stone's chain (``P`` for empty points).

    Min-label propagation with pointer jumping, until nothing changes.
    """
    num_points = stone.shape[0]
    start = jnp.where(stone, jnp.arange(num_points, dtype=jnp.int32), num_points)

    def body(carry):
        _, labels = carry
        padded = _pad(labels, num_points)
        through = jnp.min(jnp.where(same, padded[nbr], num_points), axis=1)
        lowered = jnp.minimum(labels, through)
        return labels, _pad(lowered, num_points)[lowered]

    def cond(carry):
        previous, labels = carry
        return jnp.any(previous != labels)

    return jax.lax.while_loop(cond, body, body((start, start)))[1]


def legal_action_mask(config: GoConfig, state: GoState) -> jax.Array:
    """Legal actions for the player to move: ``bool[A]`` (``A = P + 1``).

    Excluded: occupied points, suicide (unless ``config.suicide``), the simple
    ko recapture, and - under the positional / situational rules - every move
    that would recreate an earlier position (situation) of this game. Pass is
    always legal. The mask is computed from the board alone, also for a game
    that is over.

    Method: chains are labelled by min-propagation; a chain is in atari when
    its smallest and largest liberty coincide, which tells suicides and
    captures apart for every point at once. Each move's resulting hash is then
    tested against the history: plain placements in ``O(H)`` through the
    invertible low bits of the keys, capturing moves (few) directly.
    """
    size, num_points = config.size, config.num_points
    tables = _zobrist.tables(size)
    nbr = _neighbour_table(size)
    colour, own, opponent = _own_and_opponent(state)

    mine = bb.to_grid(own, size).reshape(num_points)
    theirs = bb.to_grid(opponent, size).reshape(num_points)
    # Colours relative to the mover: 0 empty, 1 own, 2 opponent, 3 off-board.
    colours = jnp.where(mine, 1, jnp.where(theirs, 2, 0)).astype(jnp.int8)
    around = _pad(colours, 3)[nbr]
    stone = colours > 0
    empty = ~stone
    same = (around == colours[:, None]) & stone[:, None]
    labels = _chain_labels(same, stone, nbr)

    liberty_near = around == 0
    low = jnp.min(jnp.where(liberty_near, nbr, num_points), axis=1)
    high = jnp.max(jnp.where(liberty_near, nbr, -1), axis=1)
    segments = jnp.where(stone, labels, num_points)
    chain_low = _pad(jax.ops.segment_min(low, segments, num_points), num_points)[segments]
    chain_high = _pad(jax.ops.segment_max(high, segments, num_points), -1)[segments]
    in_atari = stone & (chain_low == chain_high)
    atari_around = _pad(in_atari, False)[nbr]

    has_liberty = jnp.any(around == 0, axis=1)
    joins_safe_chain = jnp.any((around == 1) & ~atari_around, axis=1)
    captures = jnp.any((around == 2) & atari_around, axis=1)
    suicide = empty & ~has_liberty & ~joins_safe_chain & ~captures
    legal = empty if config.suicide else empty & ~suicide

    if config.ko_rule == "simple":
        legal = legal & (jnp.arange(num_points) != state.ko_point)
        return jnp.concatenate([legal, jnp.ones((1,), jnp.bool_)])

    keys = jnp.asarray(tables.points)
    own_keys, opponent_keys = keys[colour], keys[1 - colour]
    base = state.hash + _situation_key(config, 1 - colour)
    valid = jnp.arange(config.history_length) <= state.move_number

    # Plain placements: position + key[p] is a past entry iff the difference
    # between that entry and the position is key[p]; the key's low bits name p.
    difference = state.history - base
    slot = (difference[:, 0] & np.uint32((1 << _zobrist.INDEX_BITS) - 1)).astype(jnp.int32)
    candidate = jnp.asarray(tables.inverse)[colour][slot].astype(jnp.int32)
    match = valid & (candidate >= 0)
    match &= jnp.all(own_keys[jnp.maximum(candidate, 0)] == difference, axis=-1)
    repeats = jnp.zeros((num_points + 1,), jnp.bool_).at[jnp.where(match, candidate, num_points)].set(True)

    # Capturing moves (and suicides, where allowed) remove chains in atari
    # whose only liberty is the move: their keys are summed per liberty point.
    def keys_removed_at(who: jax.Array, who_keys: jax.Array) -> jax.Array:
        segment = jnp.where(who & in_atari, chain_low, num_points)
        return jax.ops.segment_sum(
            jnp.where((who & in_atari)[:, None], who_keys, jnp.uint32(0)), segment, num_points
        )

    situations = base + own_keys - keys_removed_at(colours == 2, opponent_keys)
    special = captures
    if config.suicide:
        situations = jnp.where(suicide[:, None], base - keys_removed_at(colours == 1, own_keys), situations)
        special = special | suicide
    special = special & legal
    repeats = repeats[:num_points] & ~special
    padded_situations = _pad(situations, 0)

    def cond(carry):
        remaining, _ = carry
        return jnp.any(remaining)

    def body(carry):
        remaining, banned = carry
        chosen = jnp.nonzero(remaining, size=_SPECIAL_CHUNK, fill_value=num_points)[0]
        hit = jnp.all(state.history[None] == padded_situations[chosen][:, None], axis=-1)
        hit = jnp.any(hit & valid[None], axis=-1) & (chosen < num_points)
        banned = _pad(banned, False).at[chosen].max(hit)[:num_points]
        remaining = _pad(remaining, False).at[chosen].set(False)[:num_points]
        return remaining, banned

    _, special_repeats = jax.lax.while_loop(cond, body, (special, jnp.zeros_like(special)))
    legal = legal & ~repeats & ~special_repeats
    return jnp.concatenate([legal, jnp.ones((1,), jnp.bool_)])
