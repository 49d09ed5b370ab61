"""Host-side alpha-beta with a Zobrist transposition table, for 2x2 and 3x3 Go.

Plain Python on its own bitmask board (one Python int per colour): a teaching
tool that shows why exhaustive search does not scale, not a JAX player.

Rules: area scoring (Tromp-Taylor: stones plus empty regions reaching only
one colour), positional superko (no move may recreate an earlier board; or
``superko="situational"``: no move may recreate an earlier board with the
same player to move, passes included in the history), no suicide, two
consecutive passes end the game, komi given to white. The value
of a position is the final score margin for the player to move under perfect
play (negamax), found by fail-soft alpha-beta down to the end of the game.

**Transposition table and superko.** Under superko the legal moves depend on
the positions seen earlier in the game, not only on the current one (the
*graph-history interaction* problem). Two keys are offered:

* ``tt_key="history"`` (default, **sound**): Zobrist hash of the position,
  the player to move, whether the last move was a pass, **and** a hash of the
  set of earlier positions (or situations: the future depends on the history
  only through that set). Transpositions with the same history set
  still hit, which is enough for 2x2.
* ``tt_key="position"`` (classic, fast, **unsound** under superko): position,
  player to move and pass flag only. A value stored under one history can be
  reused under another where different moves are banned, so results can be
  wrong; use it only to see how much the table buys, and cross-check.

Searches stop after ``node_limit`` nodes or ``time_limit`` seconds and
report what they completed (:class:`SolveResult`).

Published results (area scoring, komi 0): 2x2, black wins by 1 (Bill Taylor's
proof, reported on Sensei's Library "2x2 board"); 3x3, black wins by 9 (the
whole board) starting in the centre; 4x4 by 2; 5x5 by 25 (Drange and Spight's
"Mini-Go" results, confirmed for 5x5 by van der Werf's MIGOS search, which
used only the simple ko rule, 2002-2003).
"""

from __future__ import annotations

import dataclasses
import math
import sys
import time

import numpy as np

from gojax._core import checks

__all__ = ["PASS", "SolveResult", "TinyGo", "solve"]

PASS = -1
"""The pass move in this module (points are ``row * N + col``)."""

_MASK64 = (1 << 64) - 1


def _mix(h: int) -> int:
    """SplitMix64 finaliser: a position hash turned into a key for the history-set hash."""
    h = (h + 0x9E3779B97F4A7C15) & _MASK64
    h = ((h ^ (h >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    h = ((h ^ (h >> 27)) * 0x94D049BB133111EB) & _MASK64
    return h ^ (h >> 31)


class _Budget(Exception):
    pass


class TinyGo:
    """A bitmask Go board of side ``size`` (bit ``row * N + col``), black 0 and white 1.

    Args:
      size: board side, 1..5 (beyond 3x3 a solve will not finish).
      komi: points given to white.
      seed: seed of the Zobrist keys.
    """

    def __init__(self, size: int, komi: float = 0.0, seed: int = 0):
        size = checks.integer(size, "size", least=1, most=5)
        self.size = size
        self.points = size * size
        self.komi = float(komi)
        self.full = (1 << self.points) - 1
        left = sum(1 << (r * size) for r in range(size))
        self._not_left = self.full & ~left
        self._not_right = self.full & ~(left << (size - 1))
        rng = np.random.default_rng(seed)
        self.keys = [[int(k) for k in rng.integers(1, 2**63, self.points)] for _ in range(2)]
        self.white_to_move_key = int(rng.integers(1, 2**63))
        self.passed_key = int(rng.integers(1, 2**63))

    def neighbours(self, x: int) -> int:
        """Points orthogonally adjacent to the set ``x``."""
        n = self.size
        return ((x << n) | (x >> n) | ((x << 1) & self._not_left) | ((x >> 1) & self._not_right)) & self.full

    def fill(self, seed: int, mask: int) -> int:
        """The points of ``mask`` connected to ``seed`` inside ``mask``."""
        region = seed & mask
        while True:
            grown = (region | self.neighbours(region)) & mask
            if grown == region:
                return region
            region = grown

    def play(self, stones: tuple[int, int], colour: int, point: int) -> tuple[int, int] | None:
        """The stones after ``colour`` plays ``point``, or ``None`` if occupied or suicide."""
        bit = 1 << point
        own, opp = stones[colour], stones[1 - colour]
        if (own | opp) & bit:
            return None
        own |= bit
        empty = self.full & ~(own | opp)
        touching = self.neighbours(bit) & opp
        while touching:
            lowest = touching & -touching
            chain = self.fill(lowest, opp)
            if not self.neighbours(chain) & empty:
                opp &= ~chain
                empty |= chain
            touching &= ~chain
        if not self.neighbours(self.fill(bit, own)) & empty:
            return None
        return (own, opp) if colour == 0 else (opp, own)

    def position_hash(self, stones: tuple[int, int]) -> int:
        """Zobrist hash of the stones (XOR of one key per stone)."""
        h = 0
        for colour in (0, 1):
            x = stones[colour]
            while x:
                lowest = x & -x
                h ^= self.keys[colour][lowest.bit_length() - 1]
                x ^= lowest
        return h

    def score(self, stones: tuple[int, int]) -> float:
        """Tromp-Taylor area score, black minus white minus komi."""
        black, white = stones
        area = [black.bit_count(), white.bit_count()]
        empty = self.full & ~(black | white)
        while empty:
            region = self.fill(empty & -empty, empty)
            border = self.neighbours(region)
            if border & black and not border & white:
                area[0] += region.bit_count()
            elif border & white and not border & black:
                area[1] += region.bit_count()
            empty &= ~region
        return area[0] - area[1] - self.komi

    def render(self, stones: tuple[int, int]) -> str:
        """Rows of ``X``, ``O`` and ``.`` (row 0 at the top)."""
        rows = []
        for r in range(self.size):
            row = []
            for c in range(self.size):
                bit = 1 << (r * self.size + c)
                row.append("X" if stones[0] & bit else "O" if stones[1] & bit else ".")
            rows.append(" ".join(row))
        return "\n".join(rows)


@dataclasses.dataclass(frozen=True)
class SolveResult:
    """Outcome of :func:`solve`.

    Attributes:
      value: the score margin for the player to move (black at the start)
        under perfect play, if ``completed``; with a window ``(alpha, beta)``
        a fail-soft bound: ``value <= alpha`` is an upper bound, ``value >=
        beta`` a lower bound. ``None`` if the search was stopped.
      best_move: a best first move (``PASS`` = -1), if completed.
      completed: the search finished within its budget.
      nodes: positions searched.
      seconds: wall time.
      table_entries: transposition-table entries at the end.
      tt_key: ``"history"`` or ``"position"``.
    """

    value: float | None
    best_move: int | None
    completed: bool
    nodes: int
    seconds: float
    table_entries: int
    tt_key: str


class _Solver:
    def __init__(
        self, game: TinyGo, tt_key: str, situational: bool, node_limit: int | None, deadline: float | None
    ):
        self.game = game
        self.use_history = tt_key == "history"
        self.situational = situational
        self.hints: dict[int, int] = {}  # position key -> a good move, for ordering only
        self.node_limit = node_limit
        self.deadline = deadline
        self.nodes = 0
        self.table: dict[tuple[int, int], tuple[float, float, int]] = {}
        centre = (game.size - 1) / 2
        self.order = sorted(
            range(game.points), key=lambda p: abs(p // game.size - centre) + abs(p % game.size - centre)
        )

    def situation(self, pos_hash: int, to_move: int) -> int:
        """What the superko history stores: the position (positional) or position and player to move."""
        return pos_hash ^ (self.game.white_to_move_key if self.situational and to_move else 0)

    def search(self, stones, colour, passed, pos_hash, history, history_hash, alpha, beta):
        self.nodes += 1
        if self.node_limit is not None and self.nodes > self.node_limit:
            raise _Budget
        if self.deadline is not None and not self.nodes & 1023 and time.perf_counter() > self.deadline:
            raise _Budget
        game = self.game
        position_key = (
            pos_hash ^ (game.white_to_move_key if colour else 0) ^ (game.passed_key if passed else 0)
        )
        key = (position_key, history_hash if self.use_history else 0)
        entry = self.table.get(key)
        tt_move = self.hints.get(position_key)
        if entry is not None:
            lower, upper, tt_move = entry
            if lower >= beta:
                return lower
            if upper <= alpha:
                return upper
            if lower == upper:
                return lower
            alpha, beta = max(alpha, lower), min(beta, upper)
        alpha0 = alpha
        moves = [PASS] if passed else []
        moves += self.order + ([] if passed else [PASS])
        if tt_move is not None and tt_move in moves:
            moves.remove(tt_move)
            moves.insert(0, tt_move)
        best, best_move = -math.inf, PASS
        for move in moves:
            if move == PASS:
                if passed:
                    margin = game.score(stones)
                    value = margin if colour == 0 else -margin
                else:
                    seen = self.situation(pos_hash, 1 - colour)
                    fresh = seen not in history  # positional: never (the board is already in the history)
                    if fresh:
                        history.add(seen)
                    try:
                        value = -self.search(
                            stones,
                            1 - colour,
                            True,
                            pos_hash,
                            history,
                            history_hash ^ _mix(seen) if fresh else history_hash,
                            -beta,
                            -alpha,
                        )
                    finally:
                        if fresh:
                            history.discard(seen)
            else:
                after = game.play(stones, colour, move)
                if after is None:
                    continue
                h = game.position_hash(after)
                seen = self.situation(h, 1 - colour)
                if seen in history:
                    continue  # superko
                history.add(seen)
                try:
                    value = -self.search(
                        after, 1 - colour, False, h, history, history_hash ^ _mix(seen), -beta, -alpha
                    )
                finally:
                    history.discard(seen)
            if value > best:
                best, best_move = value, move
            alpha = max(alpha, best)
            if alpha >= beta:
                break
        lower = best if best > alpha0 else -math.inf
        upper = best if best < beta else math.inf
        if entry is not None and self.use_history:
            lower, upper = max(lower, entry[0]), min(upper, entry[1])
        self.table[key] = (lower, upper, best_move)
        return best


def solve(
    size: int,
    komi: float = 0.0,
    tt_key: str = "history",
    superko: str = "positional",
    window: tuple[float, float] | None = None,
    moves: tuple[int, ...] = (),
    node_limit: int | None = None,
    time_limit: float | None = None,
    ordering_hints: bool = False,
) -> SolveResult:
    """Solves Go on a ``size x size`` board from the empty board (or after ``moves``).

    Args:
      size: 1..5 (3x3 and up are out of reach with the sound key; see the README).
      komi: points for white (whole numbers allow a draw, i.e. value 0).
      tt_key: ``"history"`` (sound) or ``"position"`` (fast, unsound under
        superko; see the module docstring).
      superko: ``"positional"`` or ``"situational"``.
      window: ``(alpha, beta)`` for a bound proof, e.g. ``(8, 9)`` asks "is
        the value at least 9?" (fail-soft result ``>= 9`` means yes). ``None``:
        the full range, exact value.
      moves: moves played first (points ``row * N + col`` or ``PASS``), e.g.
        ``(4,)`` to solve 3x3 after black's centre move; the value is then
        for the player to move after them.
      node_limit: stop after this many nodes.
      time_limit: stop after this many seconds.
      ordering_hints: with ``tt_key="history"``, first run the fast
        position-keyed search and try its best move first at every position
        (move ordering only: the result stays sound). Its nodes count too.

    Returns:
      :class:`SolveResult`.

    Raises:
      ValueError: bad ``tt_key``, ``superko``, ``window`` or an illegal move in ``moves``.
    """
    if tt_key not in ("history", "position"):
        raise ValueError(f"tt_key must be 'history' or 'position', got {tt_key!r}")
    if superko not in ("positional", "situational"):
        raise ValueError(f"superko must be 'positional' or 'situational', got {superko!r}")
    game = TinyGo(size, komi)
    start = time.perf_counter()
    deadline = None if time_limit is None else start + time_limit
    solver = _Solver(game, tt_key, superko == "situational", node_limit, deadline)
    stones, colour, passed = (0, 0), 0, False
    history = {solver.situation(game.position_hash(stones), colour)}
    for move in moves:
        if move == PASS:
            if passed:
                raise ValueError("moves must not end the game with two passes")
            passed = True
        else:
            after = None if not 0 <= move < game.points else game.play(stones, colour, move)
            if after is None or solver.situation(game.position_hash(after), 1 - colour) in history:
                raise ValueError(f"illegal move {move!r} in moves")
            stones, passed = after, False
        colour = 1 - colour
        history.add(solver.situation(game.position_hash(stones), colour))
    bound = game.points + abs(game.komi) + 1
    alpha, beta = (-bound, bound) if window is None else (float(window[0]), float(window[1]))
    if not alpha < beta:
        raise ValueError(f"window must have alpha < beta, got {window!r}")
    h = game.position_hash(stones)
    history_hash = 0
    for seen in history:
        history_hash ^= _mix(seen)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 20 * game.points * game.points + 1000))
    try:
        if ordering_hints and solver.use_history:
            solver.use_history = False
            solver.search(stones, colour, passed, h, set(history), history_hash, alpha, beta)
            solver.hints = {key[0]: entry[2] for key, entry in solver.table.items()}
            solver.table, solver.use_history = {}, True
        value = solver.search(stones, colour, passed, h, history, history_hash, alpha, beta)
        completed = True
    except _Budget:
        value, completed = None, False
    finally:
        sys.setrecursionlimit(limit)
    best = None
    if completed:
        key = h ^ (game.white_to_move_key if colour else 0) ^ (game.passed_key if passed else 0)
        best = solver.table[(key, history_hash if solver.use_history else 0)][2]
    return SolveResult(
        value=value,
        best_move=best,
        completed=completed,
        nodes=solver.nodes,
        seconds=time.perf_counter() - start,
        table_entries=len(solver.table),
        tt_key=tt_key,
    )
