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
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from gojax._core import bitboard as bb

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
    """A position of the chase (``uint32[W]`` each).

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
    """The position of a read of the chain through point ``prey`` (``int[]``).

    ``attacker``, ``defender``, ``attacker_atari``: ``uint32[W]``; ``ko_point``
    ``int[]`` (-1 for none) is forbidden to the side that moves first.
    """
    runner = _fill(bb.point_bits(prey, size), defender, jnp.zeros_like(defender), size)
    return Position(attacker, defender, runner, attacker_atari, bb.point_bits(ko_point, size))


def _empty(size: int, position: Position) -> jax.Array:
    return jnp.asarray(bb.board_mask(size)) & ~(position.attacker | position.defender)


def _sides(bits: jax.Array, size: int) -> jax.Array:
    """``uint32[4, W]``: ``bits`` moved to each of its four neighbours (one set each)."""
    return jnp.stack([bb.shift(bits, rows, cols, size) for rows, cols in _DIRECTIONS])


def _select(flags: jax.Array, boards: jax.Array) -> jax.Array:
    """Union of the ``boards[k]`` (``uint32[K, W]``) with ``flags[k]``."""
    return bb.union(jnp.where(flags[:, None], boards, jnp.uint32(0)))


def _fill(seeds, masks, frees, size: int, enough=3):
    """The regions of ``seeds`` in ``masks`` (``uint32[K, W]`` each, broadcast), in one loop.

    A region stops growing once it touches ``enough`` (``int`` or ``int[K]``) points of its ``frees``:
    it is then part of its chain only, but one with that many liberties. (A
    small loop of its own: the reads hold many fills, and this one compiles
    to a short program.)
    """
    shape = jnp.broadcast_shapes(seeds.shape, masks.shape)
    masks = jnp.broadcast_to(masks, shape)

    def body(carry):
        region, _ = carry
        # Two dilations a round, one liberty test: a region stops at most two dilations late,
        # which is harmless (it stays inside its chain).
        around = bb.neighbours(region, size)
        grown = (region | around) & masks
        around = bb.neighbours(grown, size)
        more = (grown | around) & masks
        needs = bb.count(around & frees) < enough
        return more, jnp.any(bb.any_set(more != region) & needs)

    start = jnp.broadcast_to(seeds, shape) & masks
    return jax.lax.while_loop(lambda carry: carry[1], body, (start, jnp.bool_(True)))[0]


def _attacker_move(size: int, position: Position, move: jax.Array):
    """The attacker plays ``move``; returns ``(position, ok)``, ``ok`` when it is a legal atari."""
    empty = _empty(size, position)
    stone = bb.point_bits(move, size)
    legal = bb.any_set(stone & empty) & ~bb.any_set(stone & position.ko)
    after = empty & ~stone
    attacker = position.attacker | stone
    # The defender chains next to the move (those left with no liberty are captured) and the
    # move's own chain, in one fill (the captures only add liberties to the move's chain).
    # A side touching the runner starts as the whole runner (a complete chain: no growing
    # along it). A defender chain needs one liberty to live, the move's chain two to be out
    # of atari: the fills stop there.
    sides = _sides(stone, size) & position.defender
    sides = jnp.where(bb.any_set(sides & position.runner)[:, None], sides | position.runner, sides)
    seeds = jnp.concatenate([sides, stone[None]])
    masks = jnp.stack([position.defender] * 4 + [attacker])
    chains = _fill(seeds, masks, after[None], size, jnp.array([1, 1, 1, 1, 2]))
    dead = bb.any_set(seeds[:4]) & (bb.count(bb.neighbours(chains[:4], size) & after) == 0)
    captured = _select(dead, chains[:4])
    defender = position.defender & ~captured
    after = after | captured
    mine = chains[4]
    libs = bb.count(bb.neighbours(mine, size) & after)
    # Chains in atari that the move joins, or that gained the captured points, leave it.
    atari = position.attacker_atari
    freed = _fill(bb.neighbours(stone | captured, size) & atari, atari, jnp.zeros_like(atari), size)
    atari = (atari & ~freed) | jnp.where(libs == 1, mine, jnp.uint32(0))
    ko = jnp.where((bb.count(captured) == 1) & (bb.count(mine) == 1) & (libs == 1), captured, jnp.uint32(0))
    runner_libs = bb.count(bb.neighbours(position.runner, size) & after)
    intact = ~bb.any_set(position.runner & captured)
    ok = legal & (libs >= 1) & (runner_libs == 1) & intact
    return Position(attacker, defender, position.runner, atari, ko), ok


def _runner_move(size: int, position: Position, move: jax.Array):
    """The runner's side plays ``move``; returns ``(position, runner liberties)`` (0 if illegal)."""
    empty = _empty(size, position)
    stone = bb.point_bits(move, size)
    legal = bb.any_set(stone & empty) & ~bb.any_set(stone & position.ko)
    atari = position.attacker_atari
    defender = position.defender | stone
    before = empty & ~stone  # the liberties before the captures
    joins = bb.any_set(bb.neighbours(position.runner, size) & stone)
    # One fill: the attacker chains in atari next to the move (their liberty is the move:
    # captured), the runner with the move if it joins, and the attacker chains next to the
    # move (one liberty fewer). Two attacker chains are never adjacent, so the captured
    # points are no liberty of the latter; the runner's count is taken after the captures.
    seeds = jnp.concatenate(
        [
            (bb.neighbours(stone, size) & atari)[None],
            (position.runner | jnp.where(joins, stone, jnp.uint32(0)))[None],
            _sides(stone, size) & position.attacker,
        ]
    )
    masks = jnp.stack([atari, defender] + [position.attacker] * 4)
    frees = jnp.stack([jnp.zeros_like(empty)] + [before] * 5)
    # The runner's count matters up to 3, an attacker chain's up to 2 (in atari or not).
    regions = _fill(seeds, masks, frees, size, jnp.array([1, 3, 2, 2, 2, 2]))
    taken = regions[0]
    attacker = position.attacker & ~taken
    after = before | taken
    runner = regions[1]
    libs = bb.count(bb.neighbours(runner, size) & after)
    near = regions[2:] & ~taken
    in_atari = bb.any_set(near) & (bb.count(bb.neighbours(near, size) & after) == 1)
    atari = (atari & ~taken) | _select(in_atari, near)
    alone = ~bb.any_set(bb.neighbours(stone, size) & position.defender)
    single = alone & (bb.count(bb.neighbours(stone, size) & after) == 1) & (bb.count(taken) == 1)
    ko = jnp.where(single, taken, jnp.uint32(0))
    return Position(attacker, defender, runner, atari, ko), jnp.where(legal, libs, 0)


def _pick(tree, index):
    return jax.tree.map(lambda x: x[index], tree)


def _reply(size: int, position: Position, captures: jax.Array):
    """Step 1 of the module docstring: ``(position after the runner's move, status)``.

    ``captures``: ``bool[]``, whether the runner may capture instead of extending.
    """
    empty = _empty(size, position)
    around = bb.neighbours(position.runner, size)
    liberty = around & empty
    extension = bb.lowest_point(liberty, size)
    atari = position.attacker_atari
    chains = _fill(around & atari, atari, jnp.zeros_like(atari), size)
    capture = bb.lowest_point(bb.neighbours(chains, size) & empty & ~liberty, size)
    options = jnp.stack([extension, jnp.where(captures, capture, -1)]).astype(jnp.int32)
    afters, libs = jax.vmap(lambda move: _runner_move(size, position, move))(options)
    libs = jnp.where(options >= 0, libs, 0)
    running = libs == 2
    status = jnp.where(jnp.any(libs >= 3), ESCAPED, jnp.where(jnp.any(running), RUNNING, CAPTURED))
    return _pick(afters, jnp.argmax(running)), status


def _round(size: int, position: Position, moves: jax.Array, skip: jax.Array, captures: jax.Array):
    """Step 2 over the candidate ataris ``moves`` (``int32[2]``, -1 for none): ``(position, status)``.

    Where ``skip`` (``bool[2]``) is set the attacker's move is left out: the
    runner, already in atari, answers the position as it is (with
    ``captures``, ``bool[]``, saying whether it may capture).
    """

    def attempt(move, skip):
        atari, ok = _attacker_move(size, position, move)
        atari = jax.tree.map(lambda old, new: jnp.where(skip, old, new), position, atari)
        after, status = _reply(size, atari, captures | ~skip)
        # An atari that takes a ko leaves the runner the ko fight: no ladder.
        status = jnp.where(~skip & bb.any_set(atari.ko), ESCAPED, status)
        ok = jnp.where(skip, True, ok & (move >= 0))
        return after, jnp.where(~ok, -1, jnp.where(status == CAPTURED, 3, jnp.where(status == RUNNING, 2, 0)))

    afters, scores = jax.vmap(attempt)(moves, skip)
    best = jnp.argmax(scores)
    score = scores[best]
    status = jnp.where(score == 3, CAPTURED, jnp.where(score == 2, RUNNING, ESCAPED))
    return _pick(afters, best), status


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
    """One round of the chase (round ``rounds``, ``int[]``, 0 the first): ``(position, status)``.

    See :func:`read` for ``mode`` (a name, or its ``int32[]`` code, see
    :func:`mode_code`) and ``first_move``; status :data:`RUNNING` means the
    runner has exactly 2 liberties and the attacker is to move.
    """
    code = mode_code(mode)
    capture = code == MODES.index("capture")
    first = rounds == 0
    none = jnp.int32(-1)
    liberties = bb.neighbours(position.runner, size) & _empty(size, position)
    moves = bb.select_points(liberties, jnp.arange(2))
    opening = jnp.where(capture, jnp.asarray(first_move, jnp.int32), moves[0])
    moves = jnp.where(first, jnp.stack([opening, none]), moves)
    skip = jnp.stack([first & ~capture, jnp.bool_(False)])
    return _round(size, position, moves, skip, code != MODES.index("extend"))


def max_rounds(size: int) -> int:
    """Rounds a chase may run; one still running after them counts as captured."""
    return 2 * size + 1


def read(size: int, position: Position, mode: str, first_move=-1, active=True) -> jax.Array:
    """Plays the chase out: ``int32[]`` :data:`CAPTURED` or :data:`ESCAPED`.

    Args:
      size: ``N``.
      position: from :func:`start`.
      mode: ``"capture"`` (the attacker moves first, at ``first_move``),
        ``"extend"`` or ``"defend"`` (the runner, in atari, moves first:
        extension only, or all its options).
      first_move: ``int[]`` the attacker's first atari (``"capture"`` only).
      active: ``bool[]``; an inactive read is escaped at once, with no round played.
    """
    _check_mode(mode)

    def body(carry):
        current, _, rounds = carry
        following, status = advance(size, current, mode, first_move, rounds)
        return following, status, rounds + 1

    def cond(carry):
        return (carry[1] == RUNNING) & (carry[2] < max_rounds(size))

    start_status = jnp.where(active, RUNNING, ESCAPED).astype(jnp.int32)
    status = jax.lax.while_loop(cond, body, (position, start_status, jnp.int32(0)))[1]
    return jnp.where(status == RUNNING, CAPTURED, status)
