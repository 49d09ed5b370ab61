"""A plain-Python ladder reader (its own board code, no gojax): the reference for the ladder tests.

Boards are ``int8[N, N]`` grids (0 empty, 1 black, 2 white). :func:`read`
follows the rules of ``gojax/features/ladders/_read.py``'s docstring move by
move, as a plain recursive search: the attacker wins a position when one of
its ataris does, the runner escapes when one of its answers does, every
move tried counts against the read's budget of moves.
"""

from __future__ import annotations

import numpy as np
from conftest import ref_chain, ref_neighbours

__all__ = ["BUDGET", "Reader", "planes", "play", "read"]

BUDGET = 25_000  # moves a read may try; past them the runner is not captured
CAPTURED, ESCAPED = "captured", "escaped"


def play(grid, point, colour, ko=None):
    """``(board, ko point of the next player)`` after ``colour`` plays ``point``, or ``(None, None)``."""
    if point is None or point < 0 or grid.flat[point] or point == ko:
        return None, None
    grid = grid.copy()
    grid.flat[point] = colour
    captured: set[int] = set()
    for q in ref_neighbours(point, grid.shape[0]):
        if grid.flat[q] == 3 - colour:
            stones, libs = ref_chain(grid, q)
            if not libs:
                grid.flat[list(stones)] = 0
                captured |= stones
    stones, libs = ref_chain(grid, point)
    if not libs:
        return None, None
    ko = next(iter(captured)) if len(captured) == 1 and len(stones) == 1 and len(libs) == 1 else None
    return grid, ko


def _libs(grid, prey):
    return len(ref_chain(grid, prey)[1]) if grid is not None else 0


class _OverBudget(Exception):
    pass


class Reader:
    """One read of the chain through ``prey``: :meth:`attacker_wins` and :meth:`runner_caught`
    call each other. ``moves`` counts the moves tried, ``nodes`` the positions searched;
    ``backups`` the moves tried at a node after one whose line went on for a whole round
    (read out and answered, then another tried: what a reader that looks one answer ahead
    and keeps its line never does)."""

    def __init__(self, grid, prey, budget=BUDGET):
        self.prey, self.runner = prey, int(grid.flat[prey])
        self.limit, self.budget = 2 * grid.shape[0] + 1, budget
        self.moves = self.nodes = self.backups = 0

    def _try(self, board, move, colour, ko):
        self.moves += 1
        if self.moves > self.budget:
            raise _OverBudget
        return play(board, move, colour, ko)

    def attacker_wins(self, board, ko, ataris, rounds) -> bool:
        """The attacker to move, trying ``ataris`` in turn (round ``rounds``: after the last, caught)."""
        self.nodes += 1
        if rounds == self.limit:
            return True
        deeper = False
        for move in ataris:
            self.backups += deeper
            atari, next_ko = self._try(board, move, 3 - self.runner, ko)
            if atari is None or _libs(atari, self.prey) != 1 or next_ko is not None:
                continue  # illegal, no atari, or a ko the runner could retake
            nodes = self.nodes
            if self.runner_caught(atari, None, True, rounds):
                return True
            deeper = self.nodes - nodes >= 2
        return False

    def runner_caught(self, board, ko, captures, rounds) -> bool:
        """The runner to move, in atari: its liberties, then (``captures``) every capture beside it."""
        self.nodes += 1
        stones, libs = ref_chain(board, self.prey)
        options = sorted(libs)
        if captures:
            points: set[int] = set()
            for s in stones:
                for q in ref_neighbours(s, board.shape[0]):
                    if board.flat[q] == 3 - self.runner:
                        chain_libs = ref_chain(board, q)[1]
                        if len(chain_libs) == 1:
                            points |= chain_libs
            options += sorted(points - libs)
        deeper = False
        for move in options:
            self.backups += deeper
            after, next_ko = self._try(board, move, self.runner, ko)
            n = _libs(after, self.prey)
            if n >= 3:
                return False
            if n == 2:
                nodes = self.nodes
                ataris = sorted(ref_chain(after, self.prey)[1])
                if not self.attacker_wins(after, next_ko, ataris, rounds + 1):
                    return False
                deeper = self.nodes - nodes >= 2
        return True


def read(grid, prey, mode, first_move=None, ko=None, budget=BUDGET, stats=None):
    """``"captured"`` or ``"escaped"``: the chase of the chain through ``prey`` (see the module docstring).

    ``mode``: ``"capture"`` (attacker first, at ``first_move``), ``"extend"``
    or ``"defend"`` (runner in atari first: extension only, or all options).
    ``ko``: the point the first mover may not play. ``stats``: a dict whose
    ``"reads"``, ``"moves"`` and ``"backups"`` (see :class:`Reader`) are added to.
    """
    reader = Reader(grid, prey, budget)
    try:
        if mode == "capture":
            caught = reader.attacker_wins(grid, ko, [first_move], 0)
        else:
            caught = reader.runner_caught(grid, ko, mode == "defend", 0)
    except _OverBudget:
        caught = False
    if stats is not None:
        for key, value in (("reads", 1), ("moves", reader.moves), ("backups", reader.backups)):
            stats[key] = stats.get(key, 0) + value
    return CAPTURED if caught else ESCAPED


def planes(grid, mover, stats=None):
    """AlphaGo's ladder capture and escape planes of ``mover`` (``bool[N, N]`` each), and the reads
    made; ``stats`` as :func:`read`'s."""
    size = grid.shape[0]
    capture, escape = np.zeros((size, size), bool), np.zeros((size, size), bool)
    reads = 0
    for p in range(size * size):
        if play(grid, p, mover)[0] is None:
            continue  # occupied or illegal
        for q in ref_neighbours(p, size):
            if grid.flat[q] == 3 - mover and len(ref_chain(grid, q)[1]) == 2:
                reads += 1
                capture.flat[p] |= read(grid, q, "capture", p, stats=stats) == CAPTURED
            if grid.flat[q] == mover and len(ref_chain(grid, q)[1]) == 1:
                escape.flat[p] |= read(grid, q, "extend", stats=stats) == ESCAPED
    return capture, escape, reads
