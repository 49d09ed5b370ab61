"""The ladder reader on bitboards: one chase played out on the stones alone, no ``gojax.step``.

A read follows one *runner* chain that the *attacker* keeps in atari. Its
position is a handful of ``uint32[W]`` bitboards (:class:`Position`): the
attacker's and the defender's stones, the runner chain, the attacker's stones
whose chain is in atari (whole chains, kept up to date move by move), and the
simple-ko point of the side to move. A move adds one stone; its captures are
read off the atari bitboard (the runner's captures) or off short flood fills
of the defender chains next to the move (the attacker's), and the runner's
liberties are one dilation of its chain.

The rules of the chase (greedy, one reply ahead, as the playout engines'
"forced" ladder):

1. **Runner to move, in atari.** Its options are the extension on its
   liberty and, besides, the capture of an adjacent attacker chain in atari
   at that chain's liberty (the lowest such point; a capture is a move of the
   ladder like any other, with its own consequences). The runner *escapes*
   when an option leaves it 3 or more liberties; otherwise the chase goes on
   with the first option (extension before capture) that leaves it exactly 2;
   with none it is *captured* (an illegal or suicidal move counts as 0
   liberties).
2. **Attacker to move, runner with 2 liberties.** The attacker tries the
   atari on each liberty and the runner's answer (step 1): an atari after
   which the runner is captured wins; one after which the chase goes on comes
   next (the lower liberty first); one that is illegal (occupied, suicide,
   the ko point) or does not leave the runner in atari is refused, and one
   that captures a stone and leaves a ko the runner could retake lets it
   escape (a ladder that hangs on a ko is no ladder, as KataGo counts it).
   With no atari left the runner has escaped.

Every round is one attacker move and one runner move. The chase is cut off
after ``2 N + 1`` rounds (a ladder across the board takes about ``N``) and then
counts as captured. Three kinds of read (static ``mode``): ``"capture"``
starts with the attacker's given atari, ``"extend"`` with the runner in
atari allowed only its extension (the AlphaGo escape plane), ``"defend"``
with the runner in atari and all its options (KataGo's 1-liberty ladders).

Shapes: every bitboard is ``uint32[W, ...]``, the words first
(:class:`gojax._core.bitboard.WordsFirst`), and every other value has the
trailing shape ``[...]``: one chase with none, a batch of chases (the pool's
slots) with trailing axes. The two options of a move are read side by side
on one more axis, so nothing here is ``vmap``-ed.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from gojax._core import loops
from gojax._core.bitboard import WordsFirst as bits

__all__ = [
    "CAPTURED",
    "ESCAPED",
    "MODES",
    "RUNNING",
    "Position",
    "advance",
    "max_rounds",
    "mode_code",
    "read",
    "start",
]

RUNNING, CAPTURED, ESCAPED = 0, 1, 2
_DIRECTIONS = ((-1, 0), (1, 0), (0, -1), (0, 1))


class Position(NamedTuple):
    """A position of the chase (``uint32[W, ...]`` each).

    Attributes:
      attacker: the attacker's stones.
      defender: the runner's colour's stones (the runner included).
      runner: the runner chain.
      attacker_atari: the attacker's stones whose chain has exactly one liberty.
      ko: the point the side to move may not play (simple ko), or none.
    """

    attacker: jax.Array
    defender: jax.Array
    runner: jax.Array
    attacker_atari: jax.Array
    ko: jax.Array


def start(size: int, attacker, defender, attacker_atari, ko_point, prey) -> Position:
    """The position of a read of the chain through point ``prey`` (``int[...]``).

    ``attacker``, ``defender``, ``attacker_atari``: ``uint32[W, ...]``;
    ``ko_point`` ``int[...]`` (-1 for none) is forbidden to the side that
    moves first.
    """
    runner = _fill(bits.point_bits(prey, size), defender, size)
    return Position(attacker, defender, runner, attacker_atari, bits.point_bits(ko_point, size))


def _empty(size: int, position: Position) -> jax.Array:
    stones = position.attacker | position.defender
    return bits.board(size, stones) & ~stones


def _keep(flags: jax.Array, board: jax.Array) -> jax.Array:
    """``board`` (``uint32[W, ...]``) where ``flags`` (``bool[...]``), else the empty set."""
    return jnp.where(flags[None], board, jnp.uint32(0))


def _sides(stones: jax.Array, size: int) -> jax.Array:
    """``uint32[W, 4, ...]``: ``stones`` moved to each of its four neighbours (one set each)."""
    return jnp.stack([bits.shift(stones, rows, cols, size) for rows, cols in _DIRECTIONS], axis=1)


def _select(flags: jax.Array, boards: jax.Array) -> jax.Array:
    """Union of the ``boards[:, k]`` (``uint32[W, K, ...]``) with ``flags[k]`` (``bool[K, ...]``)."""
    return bits.union(jnp.where(flags[None], boards, jnp.uint32(0)), axis=1)


def _fill(seeds, masks, size: int, frees=None, enough: int = 1):
    """The regions of ``seeds`` in ``masks`` (``uint32[W, ...]`` each, broadcast), in one loop.

    With ``frees``, a region stops growing once it touches ``enough`` points
    of them: it is then part of its chain only, but one with that many
    liberties. Without, every region grows to its whole extent. (A small loop
    of its own: the reads hold many fills, and this one compiles to a short
    program. The loop runs as long as its longest region, so regions that may
    grow far and regions that stop early are filled in separate calls.)
    """
    shape = jnp.broadcast_shapes(seeds.shape, masks.shape)
    masks = jnp.broadcast_to(masks, shape)

    def body(carry):
        region, _ = carry
        # Two dilations a round, one test: a region stops at most two dilations late, which
        # is harmless (it stays inside its chain).
        around = bits.neighbours(region, size)
        grown = (region | around) & masks
        around = bits.neighbours(grown, size)
        more = (grown | around) & masks
        growing = bits.any_set(more ^ region)
        if frees is not None:
            growing = growing & (bits.count(around & frees) < enough)
        return more, jnp.any(growing)

    begin = jnp.broadcast_to(seeds, shape) & masks
    return loops.while_loop(lambda carry: carry[1], body, (begin, jnp.bool_(True)))[0]


def _attacker_move(size: int, position: Position, move: jax.Array):
    """The attacker plays ``move`` (``int[...]``): ``(position, ok)``, ``ok`` when it is a legal atari."""
    empty = _empty(size, position)
    stone = bits.point_bits(move, size)
    legal = bits.any_set(stone & empty) & ~bits.any_set(stone & position.ko)
    after = empty & ~stone
    attacker = position.attacker | stone
    # The defender chains next to the move (those left with no liberty are captured), and
    # the move's own chain (the captures only add liberties to it), each kind in a loop of
    # its own (a loop runs as long as its longest region). A side touching the runner
    # starts as the whole runner (a complete chain: no growing along it). A defender chain
    # needs one liberty to live, the move's chain two to be out of atari: the fills stop there.
    runner = position.runner[:, None]
    seeds = _sides(stone, size) & position.defender[:, None]
    seeds = jnp.where(bits.any_set(seeds & runner)[None], seeds | runner, seeds)
    sides = _fill(seeds, position.defender[:, None], size, after[:, None], 1)
    mine = _fill(stone, attacker, size, after, 2)
    dead = bits.any_set(seeds) & (bits.count(bits.neighbours(sides, size) & after[:, None]) == 0)
    captured = _select(dead, sides)
    defender = position.defender & ~captured
    after = after | captured
    libs = bits.count(bits.neighbours(mine, size) & after)
    # Chains in atari that the move joins, or that gained the captured points, leave it.
    atari = position.attacker_atari
    freed = _fill(bits.neighbours(stone | captured, size) & atari, atari, size)
    atari = (atari & ~freed) | _keep(libs == 1, mine)
    ko = _keep((bits.count(captured) == 1) & (bits.count(mine) == 1) & (libs == 1), captured)
    runner_libs = bits.count(bits.neighbours(position.runner, size) & after)
    intact = ~bits.any_set(position.runner & captured)
    ok = legal & (libs >= 1) & (runner_libs == 1) & intact
    return Position(attacker, defender, position.runner, atari, ko), ok


def _runner_move(size: int, position: Position, move: jax.Array):
    """The runner's side plays ``move`` (``int[...]``): ``(position, runner liberties)``, 0 if illegal.

    The attacker chains that the move puts in atari are not yet in the
    returned position's ``attacker_atari``: nothing the round decides depends
    on them, so :func:`_new_ataris` adds them once the round has picked its
    line (a fill of four sides on one position instead of four).
    """
    empty = _empty(size, position)
    stone = bits.point_bits(move, size)
    legal = bits.any_set(stone & empty) & ~bits.any_set(stone & position.ko)
    atari = position.attacker_atari
    defender = position.defender | stone
    before = empty & ~stone  # the liberties before the captures
    joins = bits.any_set(bits.neighbours(position.runner, size) & stone)
    # Two fills, each in a loop of its own (a loop runs as long as its longest region):
    # the attacker chains in atari next to the move (their liberty is the move: captured,
    # filled to their whole extent) and the runner with the move if it joins (its count
    # matters up to 3), the latter's count taken after the captures.
    taken = _fill(bits.neighbours(stone, size) & atari, atari, size)
    runner = _fill(position.runner | _keep(joins, stone), defender, size, before, 3)
    attacker = position.attacker & ~taken
    after = before | taken
    libs = bits.count(bits.neighbours(runner, size) & after)
    alone = ~bits.any_set(bits.neighbours(stone, size) & position.defender)
    single = alone & (bits.count(bits.neighbours(stone, size) & after) == 1) & (bits.count(taken) == 1)
    ko = _keep(single, taken)
    return Position(attacker, defender, runner, atari & ~taken, ko), jnp.where(legal, libs, 0)


def _new_ataris(size: int, position: Position, move: jax.Array) -> Position:
    """``position`` (just after the runner's ``move``, from :func:`_runner_move`) with the
    attacker chains next to the move that it left in atari added to ``attacker_atari``.

    Those chains had 2 liberties and lost the move's point; the captured chains
    were in atari, so none of them is next to these (two chains of one colour
    never touch) and the captures give them no liberty. Each side is filled on
    its own (a chain's count matters up to 2).
    """
    stone = bits.point_bits(move, size)
    after = _empty(size, position)
    atari = position.attacker_atari
    sides = _sides(stone, size) & (position.attacker & ~atari)[:, None]
    near = _fill(sides, position.attacker[:, None], size, after[:, None], 2)
    in_atari = bits.any_set(near) & (bits.count(bits.neighbours(near, size) & after[:, None]) == 1)
    return position._replace(attacker_atari=atari | _select(in_atari, near))


def _both(position: Position) -> Position:
    """The position twice, on a new axis 1 (``uint32[W, 2, ...]``): one copy per option."""
    return jax.tree.map(lambda x: jnp.broadcast_to(x[:, None], (x.shape[0], 2, *x.shape[1:])), position)


def _pick(options: Position, index: jax.Array) -> Position:
    """Option ``index`` (``int[...]``, 0 or 1) of a position with the options on axis 1."""
    return jax.tree.map(lambda x: jnp.where(index[None] == 0, x[:, 0], x[:, 1]), options)


def _reply(size: int, position: Position, captures: jax.Array):
    """Step 1 of the module docstring: ``(position after the runner's move, its move, status)``.

    The position's ``attacker_atari`` lacks the chains the move put in atari
    (see :func:`_new_ataris`).

    ``captures``: ``bool[...]``, whether the runner may capture instead of extending.
    """
    empty = _empty(size, position)
    around = bits.neighbours(position.runner, size)
    liberty = around & empty
    extension = bits.lowest_point(liberty)
    atari = position.attacker_atari
    chains = _fill(around & atari, atari, size)
    capture = bits.lowest_point(bits.neighbours(chains, size) & empty & ~liberty)
    options = jnp.stack([extension, jnp.where(captures, capture, -1)]).astype(jnp.int32)
    afters, libs = _runner_move(size, _both(position), options)
    libs = jnp.where(options >= 0, libs, 0)
    running = libs == 2
    escaped = jnp.any(libs >= 3, axis=0)
    status = jnp.where(escaped, ESCAPED, jnp.where(jnp.any(running, axis=0), RUNNING, CAPTURED))
    chosen = jnp.argmax(running, axis=0)
    return _pick(afters, chosen), jnp.where(chosen == 0, options[0], options[1]), status


def _round(size: int, position: Position, moves: jax.Array, skip: jax.Array, captures: jax.Array):
    """Step 2 over the candidate ataris ``moves`` (``int32[2, ...]``, -1 for none): ``(position, status)``.

    Where ``skip`` (``bool[2, ...]``) is set the attacker's move is left out:
    the runner, already in atari, answers the position as it is (with
    ``captures``, ``bool[...]``, saying whether it may capture).
    """
    both = _both(position)
    atari, ok = _attacker_move(size, both, moves)
    atari = jax.tree.map(lambda old, new: jnp.where(skip[None], old, new), both, atari)
    after, replies, status = _reply(size, atari, captures[None] | ~skip)
    # An atari that takes a ko leaves the runner the ko fight: no ladder.
    status = jnp.where(~skip & bits.any_set(atari.ko), ESCAPED, status)
    ok = jnp.where(skip, True, ok & (moves >= 0))
    scores = jnp.where(~ok, -1, jnp.where(status == CAPTURED, 3, jnp.where(status == RUNNING, 2, 0)))
    best = jnp.argmax(scores, axis=0)
    score = jnp.max(scores, axis=0)
    status = jnp.where(score == 3, CAPTURED, jnp.where(score == 2, RUNNING, ESCAPED))
    reply = jnp.where(best == 0, replies[0], replies[1])
    return _new_ataris(size, _pick(after, best), reply), status


MODES = ("capture", "extend", "defend")


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ValueError(f"mode must be 'capture', 'extend' or 'defend', got {mode!r}")


def mode_code(mode) -> jax.Array:
    """``int32[...]``: a mode's index in :data:`MODES` (a name, or already the codes)."""
    if isinstance(mode, str):
        _check_mode(mode)
        return jnp.int32(MODES.index(mode))
    return jnp.asarray(mode, jnp.int32)


def advance(size: int, position: Position, mode, first_move, rounds):
    """One round of the chase (round ``rounds``, ``int[...]``, 0 the first): ``(position, status)``.

    See :func:`read` for ``mode`` (a name, or its ``int32[...]`` code, see
    :func:`mode_code`) and ``first_move`` (``int[...]``); status
    :data:`RUNNING` means the runner has exactly 2 liberties and the attacker
    is to move.
    """
    batch = position.runner.shape[1:]
    code = jnp.broadcast_to(mode_code(mode), batch)
    capture = code == MODES.index("capture")
    first = jnp.broadcast_to(rounds == 0, batch)
    none = jnp.full(batch, -1, jnp.int32)
    liberties = bits.neighbours(position.runner, size) & _empty(size, position)
    lowest = bits.lowest_point(liberties)
    moves = jnp.stack([lowest, bits.lowest_point(liberties & ~bits.point_bits(lowest, size))])
    opening = jnp.where(capture, jnp.asarray(first_move, jnp.int32), moves[0])
    moves = jnp.where(first[None], jnp.stack([opening, none]), moves)
    skip = jnp.stack([first & ~capture, jnp.zeros_like(first)])
    return _round(size, position, moves, skip, code != MODES.index("extend"))


def max_rounds(size: int) -> int:
    """Rounds a chase may run; one still running after them counts as captured."""
    return 2 * size + 1


def read(size: int, position: Position, mode: str, first_move=-1, active=True) -> jax.Array:
    """Plays the chase out: ``int32[...]`` :data:`CAPTURED` or :data:`ESCAPED`.

    Args:
      size: ``N``.
      position: from :func:`start`.
      mode: ``"capture"`` (the attacker moves first, at ``first_move``),
        ``"extend"`` or ``"defend"`` (the runner, in atari, moves first:
        extension only, or all its options).
      first_move: ``int[...]`` the attacker's first atari (``"capture"`` only).
      active: ``bool[...]``; an inactive read is escaped at once, with no round played.
    """
    _check_mode(mode)
    batch = position.runner.shape[1:]

    def body(carry):
        current, status, rounds = carry
        following, next_status = advance(size, current, mode, first_move, rounds)
        running = status == RUNNING
        current = jax.tree.map(lambda new, old: jnp.where(running[None], new, old), following, current)
        return current, jnp.where(running, next_status, status), rounds + 1

    def cond(carry):
        return jnp.any(carry[1] == RUNNING) & (carry[2] < max_rounds(size))

    start_status = jnp.broadcast_to(jnp.where(active, RUNNING, ESCAPED), batch).astype(jnp.int32)
    status = loops.while_loop(cond, body, (position, start_status, jnp.int32(0)))[1]
    return jnp.where(status == RUNNING, CAPTURED, status)
