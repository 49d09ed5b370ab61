"""Ladders, read by search: the chase is played out with ``gojax.step``.

A *ladder* is the forced chase of a chain (the *runner*) that the attacker
keeps in atari move after move. This module reads it by playing the moves on
a copy of the position, in a bounded ``lax.while_loop``:

1. **Runner to move, in atari.** If an attacker chain next to the runner is
   itself in atari, the runner captures it and counts as *escaped*.
   Otherwise the runner extends on its single liberty. The runner is
   *captured* if that move is illegal (suicide) or leaves it with 1 liberty,
   *escaped* with 3 or more liberties, and the chase goes on with exactly 2.
2. **Attacker to move, runner with 2 liberties.** The attacker tries an atari
   on each of the two liberties and looks one reply ahead (step 1): an atari
   after which the runner is captured wins at once, one after which the
   chase goes on comes next (the first of the two if both do), one that is
   illegal, does not leave the runner in atari, or lets it escape is refused.
   With no acceptable atari the runner has escaped.

Each round adds a stone to the runner, so the chase ends within ``P``
rounds; the loop stops as soon as every read is decided. The attacker's
greedy one-reply lookahead is the "forced" ladder of playout engines (Michi,
Pachi): it follows the atari that keeps the runner short of liberties and does
not search sideways moves, so a runner that can escape only by a
counter-capture several moves later, or an attacker that needs a non-atari
move, is outside what it reads.

The reading copy uses the simple ko rule (no history to carry; a ko inside a
ladder is rare), the game's suicide rule, and the game's ``ko_point`` for the
first move. The planes AND the result with the real legal mask.

Planes:

* :func:`ladder_capture_plane`: moves of the mover that put an opponent chain
  with two liberties in atari and capture it by ladder.
* :func:`ladder_escape_plane`: moves of the mover on the single liberty of
  its own chain in atari after which the chain is not captured by ladder
  (3 or more liberties, or 2 and a failing ladder).

Cost: every candidate (an empty point next to an opponent chain with two
liberties, or the liberty of a mover's chain in atari) is one read, except
those decided without one: an escape whose extension gives 3+ or at most 1
liberty (known from :func:`gojax.features.move_outcomes`), and a capture
attempt where the runner's extension would have 3+ liberties even ignoring
captures (then it is out whatever happens). Reads run ``chunk`` at a time
(vmapped) in a loop that runs until no candidate is left, so the result is
exact however many candidates there are. A read costs 2 ``step`` calls per
candidate atari per round (the attacker tries two); a 19x19 ladder across
the board is about 32 rounds. This is by far the most expensive part of the
AlphaGo planes.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp

from gojax._core import bitboard as bb
from gojax._core import checks
from gojax._core.rules import init, step
from gojax._core.types import GoConfig, GoState
from gojax.features import _blocks, _chains

__all__ = ["ladder_capture", "ladder_capture_plane", "ladder_escape", "ladder_escape_plane"]

# Status of a read.
_RUNNING, _CAPTURED, _ESCAPED = 0, 1, 2
_DEFAULT_CHUNK = 8


@functools.cache
def _reading_config(config: GoConfig) -> GoConfig:
    return GoConfig(size=config.size, komi=0.0, ko_rule="simple", suicide=config.suicide, max_moves=32767)


def _reading_state(config: GoConfig, state: GoState) -> GoState:
    """A history-free copy of ``state``'s position, same player to move, not over."""
    fresh = init(_reading_config(config))
    return fresh.replace(
        stones=state.stones,
        atari=state.atari,
        atari_liberty=state.atari_liberty,
        turn=state.turn,
        ko_point=state.ko_point,
    )


def _runner(state: GoState, runner_colour: jax.Array) -> jax.Array:
    return jnp.where(runner_colour == 0, state.stones[0], state.stones[1])


def _empty(config: GoConfig, state: GoState) -> jax.Array:
    return jnp.asarray(bb.board_mask(config.size)) & ~(state.stones[0] | state.stones[1])


def _runner_chain(config: GoConfig, state: GoState, prey: jax.Array, runner_colour: jax.Array, enough=None):
    """The runner chain through point ``prey`` and its liberty count (capped at 3 with ``enough``)."""
    size = config.size
    empty = _empty(config, state)
    if enough is None:
        chain = bb.flood_fill(bb.point_bits(prey, size), _runner(state, runner_colour), size)
    else:
        chain = bb.flood_fill(
            bb.point_bits(prey, size), _runner(state, runner_colour), size, free=empty, enough=enough
        )
    return chain, bb.count(bb.neighbours(chain, size) & empty)


def _read(config: GoConfig, state: GoState, prey, runner_colour, first_move, capture: bool, active=True):
    """Plays the chase out; returns the final status (``_CAPTURED`` or ``_ESCAPED``).

    Every round is the same: the attacker tries (up to) two ataris, the runner
    answers each (counter-capture or extension), and the best line for the
    attacker is kept. Round 0 is special: a capture read tries only
    ``first_move``; an escape read starts with the runner to move, so its
    "atari" is skipped and the runner must extend (no counter-capture, which
    would be a different move). An inactive read (an empty slot of a chunk)
    is decided before the first round.
    """
    size = config.size
    rconfig = _reading_config(config)
    attacker_atari_index = 1 - runner_colour

    def runner_reply(position, counter_allowed):
        chain, _ = _runner_chain(config, position, prey, runner_colour)
        around = bb.neighbours(chain, size)
        attacker_atari = jnp.where(attacker_atari_index == 0, position.atari[0], position.atari[1])
        counter = counter_allowed & bb.any_set(around & attacker_atari)
        liberty = bb.lowest_point(around & _empty(config, position), size)
        after = step(rconfig, position, jnp.maximum(liberty, 0))
        _, libs = _runner_chain(config, after, prey, runner_colour, enough=3)
        status = jnp.where(
            counter | (libs >= 3),
            _ESCAPED,
            jnp.where(after.illegal_move | (liberty < 0) | (libs <= 1), _CAPTURED, _RUNNING),
        )
        return after, status

    def round_(position, first):
        chain, _ = _runner_chain(config, position, prey, runner_colour)
        libs = bb.neighbours(chain, size) & _empty(config, position)
        one = bb.lowest_point(libs, size)
        two = bb.lowest_point(libs & ~bb.point_bits(one, size), size)
        if capture:
            moves = jnp.where(first, jnp.stack([first_move, -1]), jnp.stack([one, two]))
            skip = jnp.zeros((2,), jnp.bool_)
        else:
            moves = jnp.where(first, jnp.stack([one, -1]), jnp.stack([one, two]))
            skip = jnp.stack([first, first])

        def try_atari(move, skip):
            played = step(rconfig, position, jnp.maximum(move, 0))
            atari = jax.tree.map(lambda old, new: jnp.where(skip, old, new), position, played)
            _, libs_left = _runner_chain(config, atari, prey, runner_colour, enough=2)
            ok = (move >= 0) & ~atari.illegal_move & (libs_left == 1)
            after, status = runner_reply(atari, ~skip)
            score = jnp.where(~ok, -1, jnp.where(status == _CAPTURED, 3, jnp.where(status == _RUNNING, 2, 0)))
            return after, score

        afters, scores = jax.vmap(try_atari)(moves, skip)
        best = jnp.argmax(scores)
        after = jax.tree.map(lambda x: x[best], afters)
        status = jnp.where(scores[best] == 3, _CAPTURED, jnp.where(scores[best] == 2, _RUNNING, _ESCAPED))
        return after, status

    def cond(carry):
        _, status, rounds = carry
        return (status == _RUNNING) & (rounds <= config.num_points)

    def body(carry):
        position, _, rounds = carry
        after, status = round_(position, rounds == 0)
        return after, status, rounds + 1

    start = (state, jnp.where(active, _RUNNING, _ESCAPED).astype(jnp.int32), jnp.int32(0))
    status = jax.lax.while_loop(cond, body, start)[1]
    # Running out of rounds cannot happen (the runner grows every round).
    return jnp.where(status == _RUNNING, _ESCAPED, status)


def ladder_capture(config: GoConfig, state: GoState, move: jax.Array, prey: jax.Array) -> jax.Array:
    """Whether the mover's ``move`` ataris the opponent chain through ``prey`` and wins the ladder.

    Args:
      config: the rules.
      state: one game.
      move: ``int[]`` point of the mover's atari (a liberty of the chain).
      prey: ``int[]`` any stone of the opponent chain, which should have two
        liberties.

    Returns:
      ``bool[]``: True if the move is legal (under the simple ko rule), leaves
      the chain with exactly one liberty, and the chase (module docstring)
      captures it. The game's superko history is not consulted.
    """
    return _capture_read(config, state, move, prey, True)


def _capture_read(config, state, move, prey, active):
    start = _reading_state(config, state)
    runner_colour = 1 - state.turn.astype(jnp.int32)
    is_opponent = bb.any_set(_runner(start, runner_colour) & bb.point_bits(prey, config.size))
    move = jnp.asarray(move, jnp.int32)
    status = _read(config, start, prey, runner_colour, move, capture=True, active=active & is_opponent)
    return is_opponent & (status == _CAPTURED)


def ladder_escape(config: GoConfig, state: GoState, prey: jax.Array) -> jax.Array:
    """Whether the mover's chain through ``prey``, in atari, escapes by extending on its liberty.

    Args:
      config: the rules.
      state: one game.
      prey: ``int[]`` any stone of a mover's chain with exactly one liberty.

    Returns:
      ``bool[]``: True if the extension is legal (under the simple ko rule)
      and the chain then has 3 or more liberties, or 2 and the opponent's
      ladder (module docstring) fails.
    """
    return _escape_read(config, state, -1, prey, True)


def _escape_read(config, state, move, prey, active):
    del move  # the chain's single liberty
    start = _reading_state(config, state)
    runner_colour = state.turn.astype(jnp.int32)
    is_mover = bb.any_set(_runner(start, runner_colour) & bb.point_bits(prey, config.size))
    _, libs = _runner_chain(config, start, prey, runner_colour, enough=2)
    ok = is_mover & (libs == 1)
    status = _read(config, start, prey, runner_colour, jnp.int32(-1), capture=False, active=active & ok)
    return ok & (status == _ESCAPED)


def _check_chunk(chunk) -> None:
    checks.integer(chunk, "chunk", least=1)


def _plane(config, state, candidates, prey_of, read, legal, chunk):
    """Runs ``read`` on every flagged (point, neighbour) candidate, ``chunk`` at a time."""
    points = config.num_points
    flags = candidates.reshape(-1)  # bool[P * 4]
    preys = prey_of.reshape(-1)
    total = flags.shape[0]

    def cond(carry):
        remaining, _ = carry
        return jnp.any(remaining)

    def body(carry):
        remaining, plane = carry
        (index,) = jnp.nonzero(remaining, size=chunk, fill_value=total)
        valid = index < total
        safe = jnp.minimum(index, total - 1)
        moves = safe // 4
        won = jax.vmap(lambda move, prey, on: read(config, state, move, prey, on))(moves, preys[safe], valid)
        plane = plane.at[jnp.where(valid, moves, points)].add((won & valid).astype(jnp.int32))
        remaining = _extend_bool(remaining).at[index].set(False)[:total]
        return remaining, plane

    counts = jax.lax.while_loop(cond, body, (flags, jnp.zeros((points + 1,), jnp.int32)))[1]
    return (counts[:points] > 0).reshape(config.size, config.size) & legal


def _extend_bool(x):
    return jnp.concatenate([x, jnp.zeros((1,), jnp.bool_)])


def ladder_capture_plane(
    config: GoConfig, state: GoState, *, legal: jax.Array | None = None, chunk: int = _DEFAULT_CHUNK
) -> jax.Array:
    """``bool[N, N]``: legal moves that capture an opponent chain by ladder.

    A point is set when a mover's stone there puts an adjacent opponent chain
    with two liberties in atari and the chase (see the module docstring)
    captures it.

    Args:
      config: the rules.
      state: one game.
      legal: ``bool[N, N]`` legal moves if already computed (e.g.
        :func:`gojax.features.legal_plane`), else computed here.
      chunk: reads run together per loop round (static); any value gives
        the same plane.
    """
    _check_chunk(chunk)
    return _capture_plane(config, state, _chains._analyse(config, state), legal, chunk)


def ladder_escape_plane(
    config: GoConfig, state: GoState, *, legal: jax.Array | None = None, chunk: int = _DEFAULT_CHUNK
) -> jax.Array:
    """``bool[N, N]``: legal moves that save a mover's chain in atari from a ladder.

    A point is set when it is the single liberty of an adjacent mover's chain
    in atari and, after the mover extends there, the chain has 3 or more
    liberties, or 2 and the opponent's ladder (see the module docstring)
    fails. Other ways of saving the chain (capturing an attacker elsewhere)
    are not marked.

    Args:
      config: the rules.
      state: one game.
      legal: ``bool[N, N]`` legal moves if already computed, else computed here.
      chunk: reads run together per loop round (static); any value gives
        the same plane.
    """
    _check_chunk(chunk)
    return _escape_plane(config, state, _chains._analyse(config, state), legal, chunk)


def _candidates(analysis, colour: int, liberties: int, points: int) -> jax.Array:
    """``bool[P, 4]``: empty point whose neighbour ``k`` is in a chain of ``colour`` with ``liberties``.

    Each chain is flagged once per point (at its first occurrence among the 4).
    """
    target = (analysis.neighbour_colours == colour) & (
        analysis.chain_liberties[analysis.neighbour_labels] == liberties
    )
    first = _chains._first_occurrence(analysis.neighbour_labels, points)
    return (analysis.colours == _chains._EMPTY)[:, None] & target & first


def _capture_plane(config, state, analysis, legal, chunk):
    points = config.num_points
    candidates = _candidates(analysis, _chains._OPPONENT, 2, points)
    # Skip the reads that cannot be ladders. The attacker ataris at p; the runner (2
    # liberties, p and q) extends at q, making the chain q + the runner's chains next to q.
    # Its liberties then are at least those it would have on the board as it is, without
    # captures, minus p: if that is 3 or more the runner is out, whatever happens.
    labels = analysis.neighbour_labels  # [P, 4]
    low, high = _liberty_ends(analysis, points)
    here = jnp.arange(points, dtype=jnp.int32)[:, None]
    other = jnp.where(low[labels] == here, high[labels], low[labels])  # q, per candidate
    runner = _chains._move_outcomes_of(config, _chains._for_opponent(analysis), captures=False)
    at_most = runner.liberties_after.reshape(-1)[jnp.clip(other, 0, points - 1)] - 1
    candidates = candidates & (at_most <= 2)
    if legal is None:
        legal = _blocks.legal_plane(config, state)
    return _plane(config, state, candidates, labels, _capture_read, legal, chunk)


def _escape_plane(config, state, analysis, legal, chunk):
    points = config.num_points
    candidates = _candidates(analysis, _chains._MOVER, 1, points)
    # The read starts with the extension on the liberty, whose result is already known
    # exactly: 3 or more liberties escape, 0 or 1 do not; only 2 needs the chase.
    after = _chains._move_outcomes_of(config, analysis).liberties_after.reshape(points, 1)
    escaped = jnp.any(candidates & (after >= 3), axis=1).reshape(config.size, config.size)

    if legal is None:
        legal = _blocks.legal_plane(config, state)
    to_read = candidates & (after == 2)
    chased = _plane(config, state, to_read, analysis.neighbour_labels, _escape_read, legal, chunk)
    return chased | (escaped & legal)


def _liberty_ends(analysis, points: int):
    """``int32[P + 1]`` each: the smallest and largest liberty of every chain (by label)."""
    labels = analysis.neighbour_labels.reshape(-1)
    counted = (
        _chains._first_occurrence(analysis.neighbour_labels, points)
        & (analysis.colours == _chains._EMPTY)[:, None]
    )
    where = jnp.broadcast_to(jnp.arange(points, dtype=jnp.int32)[:, None], counted.shape)
    low = jax.ops.segment_min(jnp.where(counted, where, points).reshape(-1), labels, num_segments=points + 1)
    high = jax.ops.segment_max(jnp.where(counted, where, -1).reshape(-1), labels, num_segments=points + 1)
    return low, high
