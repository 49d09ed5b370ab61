"""Ladders, read by search: the chase is played out on bitboards.

A *ladder* is the forced chase of a chain (the *runner*) that the attacker
keeps in atari move after move. Each read plays the chase out on the stones'
bitboards with :mod:`gojax.features.ladders._read` (no ``gojax.step``): the
runner in atari extends, or captures an adjacent attacker chain in atari (a
move of the ladder like any other: if the attacker then captures the runner
anyway, the ladder works); the attacker tries the atari on each of the
runner's two liberties. Each line is read out and the search backs up, as
KataGo's: the attacker wins when one atari does, the runner escapes when one
answer does (3 or more liberties, or 2 and no winning atari). A chase lasts
at most ``2 N + 1`` rounds and a read at most
:data:`gojax.features.ladders._read.BUDGET` moves tried. An attacker that
needs a non-atari move (a net) is outside what it reads.

The reads use the simple ko rule (the game's ``ko_point`` for the first move,
then the kos the chase itself makes; no superko history), and suicide is
never a ladder move. The planes AND the result with the real legal mask.

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
captures (then it is out whatever happens). The reads left are pooled with
those of the other games of a ``vmap`` batch and run a chunk at a time
(:mod:`gojax.features.ladders._pool`), so the result is exact however many
candidates there are; each move tried costs a few bitboard flood fills.
``chunk`` is accepted (for compatibility) and does not change anything.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core import bitboard as bb
from gojax._core import checks
from gojax._core.types import GoConfig, GoState
from gojax.features import _blocks, _chains
from gojax.features.ladders import _pool, _read

__all__ = ["ladder_capture", "ladder_capture_plane", "ladder_escape", "ladder_escape_plane"]

_DEFAULT_CHUNK = 8


def _sides(state: GoState, attacker_colour):
    """``(attacker stones, defender stones, attacker stones in atari)``, ``uint32[W]`` each."""
    defender_colour = 1 - attacker_colour
    return state.stones[attacker_colour], state.stones[defender_colour], state.atari[attacker_colour]


def _start(config: GoConfig, state: GoState, attacker_colour, prey):
    attacker, defender, atari = _sides(state, attacker_colour)
    return _read.start(config.size, attacker, defender, atari, state.ko_point, prey)


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
    size = config.size
    attacker_colour = state.turn.astype(jnp.int32)
    is_opponent = bb.any_set(state.stones[1 - attacker_colour] & bb.point_bits(prey, size))
    position = _start(config, state, attacker_colour, prey)
    move = jnp.asarray(move, jnp.int32)
    status = _read.read(size, position, "capture", move, active & is_opponent)
    return is_opponent & (status == _read.CAPTURED)


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


def _escape_read(config, state, move, prey, active, mode="extend"):
    del move  # the chain's single liberty
    size = config.size
    attacker_colour = 1 - state.turn.astype(jnp.int32)
    is_mover = bb.any_set(state.stones[1 - attacker_colour] & bb.point_bits(prey, size))
    position = _start(config, state, attacker_colour, prey)
    empty = jnp.asarray(bb.board_mask(size)) & ~(state.stones[0] | state.stones[1])
    ok = is_mover & (bb.count(bb.neighbours(position.runner, size) & empty) == 1)
    status = _read.read(size, position, mode, -1, active & ok)
    return ok & (status == _read.ESCAPED)


def _check_chunk(chunk) -> None:
    checks.integer(chunk, "chunk", least=1)


def _reads(config, candidates, mode, legal):
    """The pool's task arrays for the flagged (neighbour, point) ``candidates`` (``bool[4, P]``):
    ``(codes, mover attacks, moves, flags)``, the first three the same for every game."""
    points = config.num_points
    # The plane keeps legal moves only: the reads of the others are not made.
    flags = (candidates & legal.reshape(points)).reshape(-1)  # bool[4 * P]
    moves = np.arange(4 * points, dtype=np.int32) % points
    codes = np.full(flags.shape, _read.MODES.index(mode), np.int32)
    return codes, np.full(flags.shape, mode == "capture"), moves, flags


def _won(config, mode, flags, captured, legal):
    """``bool[N, N]``: the points of the reads the mover wins (``bool[4 * P]`` each, the
    side of the point first): an OR over the four sides, no scatter."""
    points = config.num_points
    won = (captured if mode == "capture" else flags & ~captured).reshape(4, points)
    return (won[0] | won[1] | won[2] | won[3]).reshape(config.size, config.size) & legal


def _pooled(config, state, reads, prey):
    """Every read of ``reads`` (tuples from :func:`_reads`), in one pool: ``bool[T]`` captured."""
    codes, mover_attacks, moves = (np.concatenate(parts) for parts in list(zip(*reads, strict=True))[:3])
    flags = jnp.concatenate([r[3] for r in reads])
    return _pool.pooled_reads(
        config.size,
        codes,
        state.stones,
        state.atari,
        state.turn,
        state.ko_point,
        mover_attacks,
        moves,
        jnp.concatenate(prey),
        flags,
    )


def _plane(config, state, candidates, prey_of, mode, legal):
    """Reads every flagged (neighbour, point) candidate, pooled over the batch (``bool[N, N]``)."""
    reads = _reads(config, candidates, mode, legal)
    captured = _pooled(config, state, [reads], [prey_of.reshape(-1)])
    return _won(config, mode, reads[3], captured, legal)


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
      chunk: accepted and not used (reads are pooled over the batch); must
        be an int of at least 1.
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
      chunk: accepted and not used (reads are pooled over the batch); must
        be an int of at least 1.
    """
    _check_chunk(chunk)
    return _escape_plane(config, state, _chains._analyse(config, state), legal, chunk)


def _candidates(config, analysis, colour: int, liberties: int) -> jax.Array:
    """``bool[4, P]``: empty point whose neighbour ``k`` is in a chain of ``colour`` with ``liberties``.

    Each chain is flagged once per point (at its first occurrence among the 4).
    """
    target = (analysis.neighbour_colours == colour) & (
        analysis.beside(analysis.stone_liberties, config.size) == liberties
    )
    first = _chains._first_occurrence(analysis.neighbour_labels, config.num_points)
    return (analysis.colours == _chains._EMPTY) & target & first


def _capture_candidates(config, analysis, runner=None):
    """``bool[4, P]``: the capture reads worth making.

    ``runner``: ``int32[P]``, the ``(_OPPONENT, False)`` table of
    :func:`gojax.features._chains._liberties_after`, if already computed.
    """
    points = config.num_points
    candidates = _candidates(config, analysis, _chains._OPPONENT, 2)
    # Skip the reads that cannot be ladders. The attacker ataris at p; the runner (2
    # liberties, p and q) extends at q, making the chain q + the runner's chains next to q.
    # Its liberties then are at least those it would have on the board as it is, without
    # captures, minus p: if that is 3 or more the runner is out, whatever happens.
    # q, per candidate: the chain's two liberties sum to p + q.
    other = analysis.beside(analysis.stone_sums, config.size) - jnp.arange(points, dtype=jnp.int32)
    if runner is None:
        runner = _chains._liberties_after(config, analysis, ((_chains._OPPONENT, False),))[0]
    at_most = runner[jnp.clip(other, 0, points - 1)] - 1
    return candidates & (at_most <= 2)


def _escape_candidates(config, analysis, after=None):
    """``(bool[4, P] reads to make, bool[N, N] escapes known without a read)``.

    ``after``: the mover's liberties after a move at each point (``int[P]`` or
    ``int[N, N]``, :attr:`gojax.features.MoveOutcomes.liberties_after`), if
    already computed.
    """
    points = config.num_points
    candidates = _candidates(config, analysis, _chains._MOVER, 1)
    # The read starts with the extension on the liberty, whose result is already known
    # exactly: 3 or more liberties escape, 0 or 1 do not; only 2 needs the chase.
    if after is None:
        after = _chains._move_outcomes_of(config, analysis).liberties_after
    after = after.reshape(points)
    escaped = jnp.any(candidates & (after >= 3), axis=0).reshape(config.size, config.size)
    return candidates & (after == 2), escaped


def _capture_plane(config, state, analysis, legal, chunk):
    if legal is None:
        legal = _blocks.legal_plane(config, state)
    candidates = _capture_candidates(config, analysis)
    return _plane(config, state, candidates, analysis.neighbour_labels, "capture", legal)


def _escape_plane(config, state, analysis, legal, chunk):
    if legal is None:
        legal = _blocks.legal_plane(config, state)
    to_read, escaped = _escape_candidates(config, analysis)
    chased = _plane(config, state, to_read, analysis.neighbour_labels, "extend", legal)
    return chased | (escaped & legal)


def _both_planes(config, state, analysis, legal, liberties_after=None, runner_liberties=None):
    """Both planes, ``(capture, escape)`` (``bool[N, N]`` each), their reads in one pool.

    ``liberties_after`` (the mover's, with captures) and ``runner_liberties``
    (the opponent's, without): ``int32[P]`` tables of
    :func:`gojax.features._chains._liberties_after`, if already computed.
    """
    capture = _capture_candidates(config, analysis, runner_liberties)
    to_read, escaped = _escape_candidates(config, analysis, liberties_after)
    reads = [_reads(config, c, mode, legal) for c, mode in ((capture, "capture"), (to_read, "extend"))]
    prey = analysis.neighbour_labels.reshape(-1)
    captured = _pooled(config, state, reads, [prey, prey])
    split = prey.shape[0]
    parts = (captured[:split], captured[split:])
    planes = [
        _won(config, m, r[3], c, legal) for r, m, c in zip(reads, ("capture", "extend"), parts, strict=True)
    ]
    return planes[0], planes[1] | (escaped & legal)


def _liberty_ends(analysis, points: int):
    """``int32[P + 1]`` each: the smallest liberty of every chain (by label) and, for a chain
    with two, the other one (the sum of its liberties less the smallest)."""
    labels = analysis.neighbour_labels.reshape(-1)
    empty = analysis.colours == _chains._EMPTY
    counted = _chains._first_occurrence(analysis.neighbour_labels, points) & empty
    where = jnp.broadcast_to(jnp.arange(points, dtype=jnp.int32), counted.shape)
    low = jax.ops.segment_min(jnp.where(counted, where, points).reshape(-1), labels, num_segments=points + 1)
    return low, analysis.liberty_sums - low
