"""Benson's algorithm (pass-alive chains and area): hand-read positions and a plain-Python
reference (a sequential port of KataGo's ``calculateAreaForPla`` / ``calculateArea``) on
random positions, finished and unfinished, with and without the suicide rule.

Diagrams: ``X`` black, ``O`` white, ``.`` empty, row 0 at the top; points ``(row, col)``.
"""

from __future__ import annotations

import functools

import jax
import numpy as np
import pytest
from conftest import jitted, random_game
from conftest import points_of as points

import gojax
from gojax import _native
from gojax import features as F

# On the XLA code, the reference; tests/test_native.py compares the native kernels with it.
pytestmark = pytest.mark.usefixtures("xla_path")

SMALL = gojax.GoConfig(size=7, ko_rule="simple")
SMALL_SUICIDE = gojax.GoConfig(size=7, ko_rule="simple", suicide=True)
NINE = gojax.GoConfig(size=9, ko_rule="simple")
NINE_SUICIDE = gojax.GoConfig(size=9, ko_rule="simple", suicide=True)


def benson_fn(config):
    """The jitted analyses of one game, traced on the path (native or XLA) in use."""
    return _benson_fn(config, _native.available())


@functools.cache
def _benson_fn(config, native):
    def run(state):
        alive = F.pass_alive(config, state)
        return (
            alive.stones,
            alive.territory,
            F.pass_alive_area(config, state),
            F.pass_alive_area(config, state, safe_big_territories=True),
            F.pass_alive_area(
                config,
                state,
                safe_big_territories=True,
                unsafe_big_territories=True,
                non_pass_alive_stones=True,
            ),
        )

    return jax.jit(run)


def analyse(diagram, config=SMALL):
    state = gojax.from_ascii(config, diagram)
    stones, territory, area, safe, v7 = (np.asarray(x) for x in benson_fn(config)(state))
    return {"stones": stones, "territory": territory, "area": area, "safe": safe, "v7": v7}


def stones_of(diagram, colour):
    grid = gojax.parse_board(diagram)
    return points(grid == colour)


# --------------------------------------------------------------------------- reference


def ref_neighbours(r, c, n):
    for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
        if 0 <= r + dr < n and 0 <= c + dc < n:
            yield r + dr, c + dc


def ref_components(grid, inside):
    """Maximal 4-connected sets of points where ``inside(value)``, in scan order of their first point."""
    n = grid.shape[0]
    seen, comps = {}, []
    for r in range(n):
        for c in range(n):
            if (r, c) in seen or not inside(grid[r, c]):
                continue
            comp, queue = [], [(r, c)]
            seen[(r, c)] = len(comps)
            while queue:
                p = queue.pop()
                comp.append(p)
                for q in ref_neighbours(*p, n):
                    if q not in seen and inside(grid[q]):
                        seen[q] = len(comps)
                        queue.append(q)
            comps.append(comp)
    return comps, seen


def ref_area_for(grid, pla, suicide, rounds=None):
    """KataGo's calculateAreaForPla for colour ``pla`` (1 or 2), as a plain loop.

    Returns (alive stones, [(region points, small, safe_big, unsafe_big)]).
    """
    n, opp = grid.shape[0], 3 - pla
    chains, chain_of = ref_components(grid, lambda v: v == pla)
    regions, region_of = ref_components(grid, lambda v: v != pla)

    def chains_next_to(p):
        return {chain_of[q] for q in ref_neighbours(*p, n) if grid[q] == pla}

    info = []
    for region in regions:
        checked = [p for p in region if suicide or grid[p] == 0]
        vital = set(chains_next_to(checked[0])) if checked else set()
        for p in checked:
            vital &= chains_next_to(p)
        internal = sum(1 for p in region if not chains_next_to(p))
        info.append((vital, internal, any(grid[p] == opp for p in region)))

    killed, unhealthy = set(), set()
    while rounds is None or rounds > 0:
        rounds = None if rounds is None else rounds - 1
        count = [0] * len(chains)
        for i, (vital, _, _) in enumerate(info):
            if i not in unhealthy:
                for chain in vital:
                    count[chain] += 1
        newly = [k for k in range(len(chains)) if k not in killed and count[k] < 2]
        if not newly:
            break
        for k in newly:
            killed.add(k)
            for s in chains[k]:
                for q in ref_neighbours(*s, n):
                    if grid[q] != pla:
                        unhealthy.add(region_of[q])
    alive = {s for k, chain in enumerate(chains) if k not in killed for s in chain}
    any_pla = bool(chains)
    marks = []
    for i, region in enumerate(regions):
        _, internal, has_opp = info[i]
        healthy = i not in unhealthy
        marks.append(
            (
                region,
                any_pla and healthy and internal <= 1,
                any_pla and healthy and not has_opp,
                any_pla and not has_opp,
            )
        )
    return alive, marks


def ref_calculate_area(grid, suicide, safe_big=False, unsafe_big=False, stones=False):
    """KataGo's Board::calculateArea, point by point in its order."""
    result = np.zeros_like(grid)
    for pla in (1, 2):
        alive, marks = ref_area_for(grid, pla, suicide)
        for s in alive:
            result[s] = pla
        for region, small, safe, unsafe in marks:
            if small or (safe_big and safe):
                for p in region:
                    result[p] = pla
            elif unsafe_big and unsafe:
                for p in region:
                    if result[p] == 0:
                        result[p] = pla
    if stones:
        result = np.where(result == 0, grid, result)
    return result


def ref_pass_alive(grid, suicide, rounds=None):
    """Pass-alive stones and territory; ``rounds`` cuts Benson's iteration short (None: to the end)."""
    n = grid.shape[0]
    stones, territory = np.zeros((2, n, n), bool), np.zeros((2, n, n), bool)
    for pla in (1, 2):
        alive, marks = ref_area_for(grid, pla, suicide, rounds)
        for s in alive:
            stones[(pla - 1, *s)] = True
        for region, small, _, _ in marks:
            for p in region:
                territory[(pla - 1, *p)] |= small
    return stones, territory


# --------------------------------------------------------------------------- hand positions

# A black chain with two single-point eyes (0,0), (0,2); the white wall around it has no eye.
TWO_EYES = """
. X . X O . .
X X X X O . .
O O O O O . .
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
"""


def test_two_true_eyes_are_pass_alive():
    got = analyse(TWO_EYES)
    black = stones_of(TWO_EYES, 1)
    assert points(got["stones"][0]) == black
    assert not got["stones"][1].any()  # the white wall: no vital region at all
    assert points(got["territory"][0]) == {(0, 0), (0, 2)}
    assert not got["territory"][1].any()
    assert points(got["area"] == 1) == black | {(0, 0), (0, 2)}
    assert not (got["area"] == 2).any()
    # KataGo v7's map: the rest is white's (its stones, and the empty area only white borders).
    assert points(got["v7"] == 1) == black | {(0, 0), (0, 2)}
    assert (got["v7"] == 2).sum() == 49 - 8


# Only one eye, (0,0): the chain's other neighbours are white stones or the open board.
ONE_EYE = """
. X X X O . .
X X X X O . .
O O O O O . .
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
"""


def test_one_eye_is_not_pass_alive():
    got = analyse(ONE_EYE)
    assert not got["stones"].any()
    assert not got["territory"].any()
    assert not got["area"].any()


# A false eye at (0,1): it touches the single stone (0,0), the chain (1,1)-(2,1)-(2,0) and the
# chain (0,2)-(0,3)-(1,3)-(2,3), whose only other neighbours are white (it is in atari). That
# chain has one vital region, so it falls; then (0,1) no longer counts and the other two are
# left with the single eye (1,0).
FALSE_EYE = """
X . X X O . .
. X O X O . .
X X O X O . .
O O O O O . .
. . . . . . .
. . . . . . .
. . . . . . .
"""


def test_false_eye_is_not_pass_alive():
    got = analyse(FALSE_EYE)
    assert not got["stones"].any()
    assert not got["territory"].any()
    assert not got["area"].any()


# Seki: black (one eye (0,0)) and white (one eye (0,6)) share the liberty (0,3). Neither
# side can fill it, and neither is pass-alive: each has one vital region.
SEKI = """
. X X . O O .
X X X X O O O
X X X X O O O
X X X X O O O
X X X X O O O
X X X X O O O
X X X X O O O
"""


def test_seki_is_not_pass_alive():
    got = analyse(SEKI)
    assert not got["stones"].any()
    assert not got["territory"].any()
    assert not got["area"].any()
    assert not got["safe"].any()
    # KataGo v7's map: each eye is an empty region bordered by one colour only; the
    # shared liberty (0,3) is dame.
    expected = gojax.parse_board(SEKI).copy()
    expected[0, 0], expected[0, 6] = 1, 2
    np.testing.assert_array_equal(got["v7"], expected)


# Two black chains, A = (0,1),(0,2),(1,2) and B = (1,0),(2,0),(2,1), not connected, sharing
# the eyes (0,0) and (1,1): each point touches both, so each chain has two vital regions.
SHARED_EYES = """
. X X O . . .
X . X O . . .
X X O O . . .
O O O . . . .
. . . . . . .
. . . . . . .
. . . . . . .
"""


def test_two_chains_sharing_two_eyes_are_both_pass_alive():
    got = analyse(SHARED_EYES)
    assert points(got["stones"][0]) == stones_of(SHARED_EYES, 1)
    assert points(got["territory"][0]) == {(0, 0), (1, 1)}
    assert not got["stones"][1].any() and not got["territory"][1].any()


# One black chain (rows 1 and 5, joined by column 3) with these regions:
# (0,0), (0,2), (6,0), (6,6): single-point eyes, vital.
# {(0,4), (0,5)=O, (0,6)}: both empty points touch black, so it is vital, and no point of
#   it is away from black: pass-alive territory, white's stone (0,5) included.
# {(6,2), (6,3), (6,4)}: vital, territory.
# rows 2-4, cols 0-2, with white (3,1): (3,0) does not touch black - not vital, and (3,0),
#   (3,1) are two internal points - not territory (nor a safe big one: it holds a white stone).
# rows 2-4, cols 4-6: empty, not vital, 2+ internal points - not territory, but a "safe big
#   territory" (no white stone, bordered only by the pass-alive chain).
ENCLOSURES = """
. X . X . O .
X X X X X X X
. . . X . . .
. O . X . . .
. . . X . . .
X X X X X X X
. X . . . X .
"""


def test_big_regions_and_stones_inside_pass_alive_territory():
    got = analyse(ENCLOSURES)
    black = stones_of(ENCLOSURES, 1)
    territory = {(0, 0), (0, 2), (0, 4), (0, 5), (0, 6), (6, 0), (6, 2), (6, 3), (6, 4), (6, 6)}
    left = {(r, c) for r in range(2, 5) for c in range(3)}
    right = {(r, c) for r in range(2, 5) for c in range(4, 7)}
    assert points(got["stones"][0]) == black
    assert not got["stones"][1].any()
    assert points(got["territory"][0]) == territory
    assert not got["territory"][1].any()
    assert points(got["area"] == 1) == black | territory  # white (0,5) counts for black
    assert not (got["area"] == 2).any()
    assert points(got["safe"] == 1) == black | territory | right
    assert points(got["v7"] == 1) == black | territory | right
    assert points(got["v7"] == 2) == {(3, 1)}  # a stone that is not pass-alive keeps its colour
    assert not (got["v7"][tuple(np.transpose(sorted(left - {(3, 1)})))]).any()


# The black ring has the eye (0,0) and the inner region rows 2-4, cols 2-4, whose empty
# points all touch black but whose white stone (3,3) does not. Without suicide that region is
# vital (only empty points must touch the chain): two vital regions, pass-alive, and the whole
# inner region - white's stone too - is territory (one internal point, (3,3)). Under the
# suicide rule every point must touch the chain (KataGo's multi-stone-suicide case): one vital
# region only, nothing is pass-alive.
RING = """
. X . . . . .
X X X X X X .
. X . . . X .
. X . O . X .
. X . . . X .
. X X X X X .
. . . . . . .
"""


def test_suicide_rule_changes_which_regions_are_vital():
    black = stones_of(RING, 1)
    inner = {(r, c) for r in range(2, 5) for c in range(2, 5)}
    got = analyse(RING)
    assert points(got["stones"][0]) == black
    assert points(got["territory"][0]) == inner | {(0, 0)}
    assert points(got["area"] == 1) == black | inner | {(0, 0)}
    got = analyse(RING, SMALL_SUICIDE)
    assert not got["stones"].any() and not got["territory"].any() and not got["area"].any()
    grid = gojax.parse_board(RING)
    np.testing.assert_array_equal(got["v7"], ref_calculate_area(grid, True, True, True, True))


def test_empty_board_and_bad_options():
    got = analyse(". . . . . . .\n" * 7)
    assert not any(v.any() for v in got.values())
    state = gojax.init(SMALL)
    with pytest.raises(ValueError, match="safe_big_territories"):
        F.pass_alive_area(SMALL, state, safe_big_territories=1)


HAND = {
    "two_eyes": TWO_EYES,
    "one_eye": ONE_EYE,
    "false_eye": FALSE_EYE,
    "seki": SEKI,
    "shared_eyes": SHARED_EYES,
    "enclosures": ENCLOSURES,
}


@pytest.mark.parametrize("diagram", HAND.values(), ids=HAND.keys())
def test_hand_positions_agree_with_the_reference(diagram):
    grid = gojax.parse_board(diagram)
    got = analyse(diagram)
    want_stones, want_territory = ref_pass_alive(grid, False)
    np.testing.assert_array_equal(got["stones"], want_stones)
    np.testing.assert_array_equal(got["territory"], want_territory)
    np.testing.assert_array_equal(got["v7"], ref_calculate_area(grid, False, True, True, True))


# Every point is black's or white's: two pass-alive chains, each with its one-point eyes.
SETTLED = """
. X X O . O .
X X X O O O O
. X X O . O .
X X X O O O O
. X X O . O .
X X X O O O O
. X X O . O .
"""


def settled_fn(config):
    return _settled_fn(config, _native.available())


@functools.cache
def _settled_fn(config, native):
    return jax.jit(functools.partial(F.settled, config))


def ref_settled(grid, suicide):
    """Every point a pass-alive stone or pass-alive territory, and no stone in a territory."""
    stones, territory = ref_pass_alive(grid, suicide)
    owned = stones | territory
    return bool((owned[0] | owned[1]).all() and not (territory & (grid != 0)[None]).any())


def test_a_settled_board_and_boards_that_are_not():
    settled = settled_fn(SMALL)
    assert bool(settled(gojax.from_ascii(SMALL, SETTLED)))
    # A two-point territory stays settled empty; a white stone in it (dead, but on the board) is not.
    two_point = SETTLED.strip().splitlines()
    two_point[-1] = ". . X O . O ."
    assert bool(settled(gojax.from_ascii(SMALL, "\n".join(two_point))))
    two_point[-1] = "O . X O . O ."
    assert not bool(settled(gojax.from_ascii(SMALL, "\n".join(two_point))))
    # Open areas: the empty board, one living chain beside an unclaimed board.
    assert not bool(settled(gojax.init(SMALL)))
    assert not bool(settled(gojax.from_ascii(SMALL, TWO_EYES)))
    # A settled board scores what its marked area says (Tromp-Taylor counts the same points).
    grid = np.asarray(gojax.board(SMALL, gojax.from_ascii(SMALL, SETTLED)))
    assert ref_calculate_area(grid, False).astype(bool).all()


# --------------------------------------------------------------------------- random positions


def random_positions(config, games, seed):
    """Boards of random games (no player fills its own eye): after move 40 and finished."""
    rng, board, boards = np.random.default_rng(seed), jitted("board", config), []
    for _ in range(games):
        states, _ = random_game(config, rng, fill_own_eyes=False)
        boards += [np.asarray(board(state)) for state in [*states[40:41], states[-1]]]
    return boards


@pytest.fixture(scope="module")
def nine_by_nine_boards():
    return random_positions(NINE, games=4, seed=3)


@pytest.mark.parametrize("config", [NINE, NINE_SUICIDE], ids=["no-suicide", "suicide"])
def test_random_positions_match_the_reference(config, nine_by_nine_boards):
    fn = benson_fn(config)
    alive_seen = 0
    for i, grid in enumerate(nine_by_nine_boards):
        got = [np.asarray(x) for x in fn(gojax.from_board(config, grid))]
        want_stones, want_territory = ref_pass_alive(grid, config.suicide)
        np.testing.assert_array_equal(got[0], want_stones, err_msg=f"stones, board {i}")
        np.testing.assert_array_equal(got[1], want_territory, err_msg=f"territory, board {i}")
        np.testing.assert_array_equal(got[2], ref_calculate_area(grid, config.suicide), err_msg=f"area {i}")
        np.testing.assert_array_equal(
            got[3], ref_calculate_area(grid, config.suicide, safe_big=True), err_msg=f"safe area {i}"
        )
        np.testing.assert_array_equal(
            got[4], ref_calculate_area(grid, config.suicide, True, True, True), err_msg=f"v7 area {i}"
        )
        alive_seen += int(want_stones.sum())
    # The finished games do hold pass-alive groups (else the comparison is vacuous).
    assert alive_seen > 20, alive_seen


def test_positions_where_the_iteration_matters(nine_by_nine_boards):
    # Boards where one round of removals is not enough: a chain is removed only because a
    # region it counted on bordered a chain removed in an earlier round. On these the
    # result must follow the iteration to its end (the loop runs until nothing changes,
    # at most one round per chain).
    boards = nine_by_nine_boards + random_positions(NINE, games=6, seed=11)
    fn = benson_fn(NINE)
    deep = 0
    for i, grid in enumerate(boards):
        want_stones, want_territory = ref_pass_alive(grid, False)
        one_round = ref_pass_alive(grid, False, rounds=1)
        two_rounds = ref_pass_alive(grid, False, rounds=2)
        if (one_round[0] == want_stones).all() and (one_round[1] == want_territory).all():
            continue
        deep += 1 + int(not (two_rounds[0] == want_stones).all())
        got = [np.asarray(x) for x in fn(gojax.from_board(NINE, grid))]
        np.testing.assert_array_equal(got[0], want_stones, err_msg=f"stones, board {i}")
        np.testing.assert_array_equal(got[1], want_territory, err_msg=f"territory, board {i}")
    assert deep >= 3, deep


@pytest.mark.parametrize("config", [NINE, NINE_SUICIDE], ids=["no-suicide", "suicide"])
def test_settled_matches_the_reference_on_random_positions(config, nine_by_nine_boards):
    settled = settled_fn(config)
    boards = nine_by_nine_boards + random_positions(config, games=4, seed=5)
    seen = [ref_settled(grid, config.suicide) for grid in boards]
    for i, (grid, want) in enumerate(zip(boards, seen, strict=True)):
        assert bool(settled(gojax.from_board(config, grid))) == want, f"board {i}"
    assert any(seen) and not all(seen), seen  # both kinds occur
