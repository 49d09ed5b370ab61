"""A plain-Python ladder reader (its own board code, no gojax): the reference for the ladder tests.

Boards are ``int8[N, N]`` grids (0 empty, 1 black, 2 white). :func:`read`
follows the rules of ``gojax/features/ladders/_read.py``'s docstring move by
move; ``old_rule=True`` gives the rule gojax read ladders by before the
bitboard reader: any attacker chain in atari next to the runner, when the
runner is to move after an atari, is an escape at once (no capture played).
The two differ only on positions where that capture does not free the runner
(``tests/test_ladder.py`` pins the difference).
"""

from __future__ import annotations

import numpy as np
from conftest import ref_chain, ref_neighbours

__all__ = ["planes", "play", "read"]

BOUND = 2
CAPTURED, ESCAPED, RUNNING = "captured", "escaped", "running"


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


def _reply(grid, prey, ko, captures):
    """Runner to move, in atari: ``((board, ko), status)``."""
    runner, size = int(grid.flat[prey]), grid.shape[0]
    stones, libs = ref_chain(grid, prey)
    options = [min(libs)]
    if captures:
        points: set[int] = set()
        for s in stones:
            for q in ref_neighbours(s, size):
                if grid.flat[q] == 3 - runner:
                    chain_libs = ref_chain(grid, q)[1]
                    if len(chain_libs) == 1:
                        points |= chain_libs
        points -= libs
        if points:
            options.append(min(points))
    results = [play(grid, move, runner, ko) for move in options]
    counts = [_libs(after, prey) for after, _ in results]
    if any(n >= 3 for n in counts):
        return None, ESCAPED
    for result, n in zip(results, counts, strict=True):
        if n == 2:
            return result, RUNNING
    return None, CAPTURED


def _old_reply(grid, prey, ko, captures):
    runner, size = int(grid.flat[prey]), grid.shape[0]
    stones, (liberty,) = ref_chain(grid, prey)
    counter = captures and any(
        grid.flat[q] == 3 - runner and len(ref_chain(grid, q)[1]) == 1
        for s in stones
        for q in ref_neighbours(s, size)
    )
    if counter:
        return None, ESCAPED
    after, next_ko = play(grid, liberty, runner, ko)
    n = _libs(after, prey)
    return (after, next_ko), ESCAPED if n >= 3 else RUNNING if n == 2 else CAPTURED


def _attack(grid, prey, ko, moves, reply, old_rule):
    runner = int(grid.flat[prey])
    best, best_score = None, -1
    for move in moves:
        atari, next_ko = play(grid, move, 3 - runner, ko)
        if atari is None or atari.flat[prey] != runner or _libs(atari, prey) != 1:
            continue
        after, status = reply(atari, prey, next_ko, True)
        if next_ko is not None and not old_rule:
            status = ESCAPED
        score = {CAPTURED: 3, RUNNING: 2, ESCAPED: 0}[status]
        if score > best_score:
            best, best_score = after, score
    status = CAPTURED if best_score == 3 else RUNNING if best_score == 2 else ESCAPED
    return best, status


def read(grid, prey, mode, first_move=None, ko=None, old_rule=False):
    """``"captured"`` or ``"escaped"``: the chase of the chain through ``prey`` (see the module docstring).

    ``mode``: ``"capture"`` (attacker first, at ``first_move``), ``"extend"``
    or ``"defend"`` (runner in atari first: extension only, or all options).
    ``ko``: the point the first mover may not play.
    """
    reply = _old_reply if old_rule else _reply
    if mode == "capture":
        position, status = _attack(grid, prey, ko, [first_move], reply, old_rule)
    else:
        position, status = reply(grid, prey, ko, mode == "defend")
    rounds = 0
    while status == RUNNING and rounds < BOUND * grid.shape[0]:
        board, ko = position
        moves = sorted(ref_chain(board, prey)[1])[:2]
        position, status = _attack(board, prey, ko, moves, reply, old_rule)
        rounds += 1
    return CAPTURED if status == RUNNING else status


def planes(grid, mover, old_rule=False):
    """AlphaGo's ladder capture and escape planes of ``mover`` (``bool[N, N]`` each), and the reads made."""
    size = grid.shape[0]
    capture, escape = np.zeros((size, size), bool), np.zeros((size, size), bool)
    reads = 0
    for p in range(size * size):
        if play(grid, p, mover)[0] is None:
            continue  # occupied or illegal
        for q in ref_neighbours(p, size):
            if grid.flat[q] == 3 - mover and len(ref_chain(grid, q)[1]) == 2:
                reads += 1
                capture.flat[p] |= read(grid, q, "capture", p, old_rule=old_rule) == CAPTURED
            if grid.flat[q] == mover and len(ref_chain(grid, q)[1]) == 1:
                escape.flat[p] |= read(grid, q, "extend", old_rule=old_rule) == ESCAPED
    return capture, escape, reads
