"""The ladder reader on bitboards: one chase played out on the stones alone, no ``gojax.step``.

A read follows one *runner* chain that the *attacker* keeps in atari. Its
position is a handful of ``uint32[W]`` bitboards (:class:`Position`): the
attacker's and the defender's stones, the runner chain, the attacker's stones
whose chain is in atari (whole chains, kept up to date move by move), and the
simple-ko point of the side to move. A move adds one stone; its captures are
read off the atari bitboard (the runner's captures) or off short flood fills
of the defender chains next to the move (the attacker's), and the runner's
liberties are one dilation of its chain.

The chase is a search (KataGo's ``searchIsLadderCaptured``): the attacker
wins a position when one of its ataris does, the runner escapes when one of
its answers does, and every line is read out before the next is tried.

1. **Runner to move, in atari.** Its moves are its extension (its liberty)
   and the capture of every adjacent attacker chain in atari (at that chain's
   liberty), tried in that order, captures lowest point first. A move that
   leaves it 3 or more liberties escapes; one that leaves it at most 1 (or is
   illegal) fails; one that leaves it exactly 2 gives the attacker the next
   round (step 2), and fails if the attacker wins it. The runner is captured
   when every move fails.
2. **Attacker to move, runner with 2 liberties.** Its moves are the ataris
   on those liberties, the lower first. An atari that is illegal (occupied,
   suicide, the ko point) or does not leave the runner in atari fails, and so
   does one that captures a stone and leaves a ko the runner could retake (a
   ladder that hangs on a ko is no ladder, as KataGo counts it). The attacker
   wins when the runner's answers to an atari all fail (step 1).

Every round is one attacker move and one runner move. An attacker to move
after ``2 N + 1`` rounds (a ladder across the board takes about ``N``) has
caught the runner, and a read that has tried :data:`BUDGET` moves without an
answer has not. Three kinds of read (``mode``): ``"capture"`` starts with
the attacker's given atari, ``"extend"`` with the runner in atari and its
extension as its only first move (the AlphaGo escape plane), ``"defend"`` with the runner in
atari and all its moves (KataGo's 1-liberty ladders).

A read is a stack of positions (:class:`Search`), one per node of the line
being read, and each loop step (:func:`step`) tries one move of the deepest
node; reads of every lane step together, so nothing here is ``vmap``-ed.

Shapes: every bitboard is ``uint32[W, ...]``, the words first
(:class:`gojax._core.bitboard.WordsFirst`), and every other value has the
trailing shape ``[...]``: one chase with none, a batch of chases with
trailing axes; a :class:`Search` has one batch axis, ``B`` lanes (the pool's slots).
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import jax
import jax.numpy as jnp

from gojax._core import loops
from gojax._core.bitboard import WordsFirst as bits

__all__ = [
    "BUDGET",
    "CAPTURED",
    "ESCAPED",
    "MODES",
    "RUNNING",
    "Position",
    "Search",
    "idle",
    "max_rounds",
    "mode_code",
    "read",
    "restart",
    "start",
    "step",
]

RUNNING, CAPTURED, ESCAPED = 0, 1, 2
BUDGET = 25_000  # moves a read may try (KataGo's node budget); past them the runner is not captured
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
    returned position's ``attacker_atari``: :func:`_new_ataris` adds them.
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


def max_rounds(size: int) -> int:
    """Rounds a chase may run; an attacker to move after them has caught the runner."""
    return 2 * size + 1


class Search(NamedTuple):
    """Reads in progress, ``B`` side by side (one per lane), each a stack of nodes.

    The node at depth ``d`` is the attacker's to move when ``d`` is even (round
    ``d // 2``), the runner's (in atari) when ``d`` is odd; a read that starts
    with the runner starts at depth 1. ``D = 2 * max_rounds(N)``.

    Attributes:
      stack: :class:`Position` of every node on the path, ``uint32[W, D, B]`` each.
      left: ``uint32[W, D, B]`` each node's moves not yet tried.
      open: ``bool[D, B]`` whether ``left`` is not empty.
      depth: ``int32[B]`` the node to move.
      root: ``int32[B]`` the read's first node (0 or 1).
      status: ``int32[B]`` :data:`RUNNING`, or the read's answer.
      moves: ``int32[B]`` moves tried.
    """

    stack: Position
    left: jax.Array
    open: jax.Array
    depth: jax.Array
    root: jax.Array
    status: jax.Array
    moves: jax.Array


def _top(stack, depth):
    """Each lane's entry at its ``depth`` (``int32[B]``) of ``[..., D, B]`` arrays."""
    return stack[..., depth, jnp.arange(depth.shape[0])]


def _put(stack, depth, value, flags):
    """``stack`` (``[..., D, B]``) with ``value`` (``[..., B]``) at each lane's ``depth`` where ``flags``."""
    depth = jnp.where(flags, depth, stack.shape[-2])  # off the stack: dropped
    return stack.at[..., depth, jnp.arange(depth.shape[0])].set(value, mode="drop")


def idle(size: int, lanes: int) -> Search:
    """``lanes`` lanes with no read (status :data:`ESCAPED`), for :func:`restart`."""
    levels = 2 * max_rounds(size)
    empty = jnp.zeros((bits.point_bits(jnp.int32(0), size).shape[0], levels, lanes), jnp.uint32)
    none = jnp.zeros((lanes,), jnp.int32)
    return Search(
        Position(empty, empty, empty, empty, empty),
        empty,
        jnp.zeros((levels, lanes), jnp.bool_),
        none,
        none,
        jnp.full((lanes,), ESCAPED, jnp.int32),
        none,
    )


def _runner_options(size: int, position: Position, captures) -> jax.Array:
    """``uint32[W, ...]``: the runner's moves: its liberties and (``captures``, ``bool[...]``) the
    liberty of every adjacent attacker chain in atari."""
    around = bits.neighbours(position.runner, size)
    empty = _empty(size, position)
    atari = position.attacker_atari
    chains = _fill(around & atari, atari, size)
    return (around & empty) | _keep(captures, bits.neighbours(chains, size) & empty)


def restart(size: int, search: Search, flags, position: Position, mode, first_move) -> Search:
    """``search`` with a new read in the lanes where ``flags`` (``bool[B]``).

    ``position`` (``uint32[W, B]`` each, from :func:`start`), ``mode``
    (``int32[B]`` codes, see :func:`mode_code`) and ``first_move``
    (``int32[B]``, ``"capture"`` reads) are the reads' (see :func:`read`).
    """
    mode = jnp.asarray(mode, jnp.int32)
    capture = mode == MODES.index("capture")
    root = jnp.where(capture, 0, 1).astype(jnp.int32)
    options = _runner_options(size, position, mode == MODES.index("defend"))
    first = bits.point_bits(first_move, size)
    left = jnp.where(capture[None], first, options)
    return Search(
        jax.tree.map(lambda old, new: _put(old, root, new, flags), search.stack, position),
        _put(search.left, root, left, flags),
        _put(search.open, root, bits.any_set(left), flags),
        jnp.where(flags, root, search.depth),
        jnp.where(flags, root, search.root),
        jnp.where(flags, RUNNING, search.status),
        jnp.where(flags, 0, search.moves),
    )


def step(size: int, search: Search) -> Search:
    """Every running read tries the next move of its deepest node, and the runner's first
    answer to it when that move is a working atari.

    The attacker's ataris go the lower first; the runner's moves are its
    liberties, then its captures, each the lowest point first. A working atari
    (legal, taking no ko) opens a runner's node, whose first move (its one
    liberty) is tried in the same step; a runner's move that leaves it two
    liberties, before the last round, opens an attacker's node. Any other move
    settles its branch: the atari failed (the runner is out), or the runner's
    move did (out with 3+ liberties, caught otherwise). That answer goes up the
    path to the deepest node it does not settle and that has moves left (the
    attacker's for "out", the runner's for "caught"); with none, it is the read's.
    """
    levels = search.left.shape[1]
    depth = search.depth
    running = search.status == RUNNING
    over = search.moves >= BUDGET
    active = running & ~over
    top = jax.tree.map(lambda x: _top(x, depth), search.stack)
    left = _top(search.left, depth)
    attacker = depth % 2 == 0

    # The attacker's atari (at its nodes), then the runner's move: at a runner's node its
    # next one; after a working atari, its first answer, at the node the atari opens.
    atari = bits.lowest_point(left)
    attacked, ok = _attacker_move(size, top, atari)
    ok = ok & ~bits.any_set(attacked.ko)  # an atari that takes a ko: no ladder
    follow = attacker & ok
    over = over | (active & follow & (search.moves + 1 >= BUDGET))  # no answer left to try
    position = jax.tree.map(lambda a, t: jnp.where(follow[None], a, t), attacked, top)
    at = jnp.where(follow, depth + 1, depth)  # the runner's node
    options = jnp.where(follow[None], _runner_options(size, attacked, jnp.bool_(True)), left)
    first = options & bits.neighbours(position.runner, size) & _empty(size, position)
    move = jnp.where(bits.any_set(first), bits.lowest_point(first), bits.lowest_point(options))
    options = options & ~bits.point_bits(move, size)
    answered, libs = _runner_move(size, position, move)
    answered = _new_ataris(size, answered, move)
    ataris = bits.neighbours(answered.runner, size) & _empty(size, answered)

    # The nodes' moves left, the runner's node an atari opened, the attacker's node an answer opened.
    active = active & ~over
    below = jnp.where(attacker[None], left & ~bits.point_bits(atari, size), options)
    stack_left = _put(search.left, depth, below, active)
    opened = _put(search.open, depth, bits.any_set(below), active)
    opening = active & follow
    stack = jax.tree.map(lambda old, new: _put(old, depth + 1, new, opening), search.stack, attacked)
    stack_left = _put(stack_left, depth + 1, options, opening)
    opened = _put(opened, depth + 1, bits.any_set(options), opening)
    push = active & (~attacker | ok) & (libs == 2) & (at + 1 < levels)
    stack = jax.tree.map(lambda old, new: _put(old, at + 1, new, push), stack, answered)
    stack_left = _put(stack_left, at + 1, ataris, push)
    opened = _put(opened, at + 1, bits.any_set(ataris), push)

    # The answer goes up: "out" stops at an attacker's node (even depth) with moves left,
    # "caught" at a runner's.
    answer = jnp.where((attacker & ~ok) | (libs >= 3), ESCAPED, CAPTURED)
    level = jnp.arange(levels, dtype=jnp.int32)[:, None]
    stops = opened & (level <= at) & (level >= search.root) & ((level % 2 == 0) == (answer == ESCAPED))
    target = jnp.max(jnp.where(stops, level, -1), axis=0)
    settled = active & ~push & (target < 0)
    status = jnp.where(settled, answer, search.status)
    status = jnp.where(running & over, ESCAPED, status)
    moved = active & ~settled
    tried = (running & (search.moves < BUDGET)).astype(jnp.int32) + (active & follow).astype(jnp.int32)
    return Search(
        stack,
        stack_left,
        opened,
        jnp.where(moved, jnp.where(push, at + 1, target), depth),
        search.root,
        status,
        search.moves + tried,
    )


def read(size: int, position: Position, mode: str, first_move=-1, active=True) -> jax.Array:
    """Plays the chase out: ``int32[...]`` :data:`CAPTURED` or :data:`ESCAPED`.

    Args:
      size: ``N``.
      position: from :func:`start`.
      mode: ``"capture"`` (the attacker moves first, at ``first_move``),
        ``"extend"`` or ``"defend"`` (the runner, in atari, moves first:
        extension only, or all its options).
      first_move: ``int[...]`` the attacker's first atari (``"capture"`` only).
      active: ``bool[...]``; an inactive read is escaped at once, with no move tried.
    """
    _check_mode(mode)
    batch = position.runner.shape[1:]
    lanes = math.prod(batch)
    flat = jax.tree.map(lambda x: x.reshape(x.shape[0], lanes), position)

    def lane(x):
        return jnp.broadcast_to(jnp.asarray(x, jnp.int32), batch).reshape(lanes)

    flags = jnp.broadcast_to(jnp.asarray(active, jnp.bool_), batch).reshape(lanes)
    search = restart(size, idle(size, lanes), flags, flat, lane(mode_code(mode)), lane(first_move))
    search = loops.while_loop(lambda s: jnp.any(s.status == RUNNING), functools.partial(step, size), search)
    return search.status.reshape(batch)
