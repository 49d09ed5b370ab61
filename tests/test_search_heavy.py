"""The heavy playout policy (gojax/search/_heavy.py) on hand positions.

Each position is drawn 256 times (256 random ``uint32`` draws, one move
each): a capture or a good atari escape must be chosen every time, the one
answering the last move first; a self-atari is never chosen while another
move is left, and with only self-ataris left a playable point is still
played. Whole heavy playouts are replayed on ``gojax.step`` in
tests/test_search_light.py.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import ref_neighbours

import gojax
from gojax._core import bitboard as bb
from gojax._core.bitboard import WordTuples as words
from gojax.playouts import _heavy, _light
from gojax.search import TreeSearchSettings
from gojax.search._leaves import evaluate_leaves

DRAWS = 256


@functools.cache
def _chooser(size: int):
    """``run(light, draws) -> (heavy points [D], light points [D], tiers)`` compiled once per size."""

    def run(light, draws):
        heavy = jax.vmap(lambda d: _heavy.heavy_move(size, light, d))(draws)
        uniform = jax.vmap(lambda d: _light.light_move(size, light, d))(draws)
        tiers = _heavy.heavy_tiers(size, light)
        return heavy, uniform, tuple(bb.to_points(words.stacked(t), size) for t in tiers)

    return jax.jit(run)


def _choices(text: str, last: int = -1):
    """The heavy and the uniform picks of black to move in ``text``, and the tiers as point sets."""
    rows = text.strip().splitlines()
    config = gojax.GoConfig(size=len(rows), ko_rule="simple")
    state = gojax.from_ascii(config, "\n".join(rows), gojax.BLACK).replace(last_move=jnp.int16(last))
    draws = jax.random.bits(jax.random.key(len(rows) + last), (DRAWS,), jnp.uint32)
    heavy, uniform, tiers = jax.device_get(_chooser(config.size)(_light.light_state(config, state), draws))
    return set(heavy.tolist()), set(uniform.tolist()), [set(np.flatnonzero(t).tolist()) for t in tiers]


CAPTURES = """
. . . . . . .
. . . . . . .
. . X O X . .
. . . X . . .
. . . . . . .
. X O X . . .
. . X . . . .
"""  # white (2,3) in atari on (1,3) = 10, white (5,2) on (4,2) = 30


def test_a_capture_is_always_chosen():
    heavy, uniform, (answer, _, urgent, _, playable) = _choices(CAPTURES)
    assert heavy == {10, 30}  # both captures, and nothing else
    assert urgent == {10, 30} and answer == set()
    assert len(uniform) > 10 and {10, 30} < playable


def test_the_capture_next_to_the_last_move_comes_first():
    heavy, _, (answer, _, urgent, _, _) = _choices(CAPTURES, last=37)  # white just played (5,2)
    assert heavy == {30} and answer == {30} and urgent == {10, 30}
    heavy, _, (answer, _, _, _, _) = _choices(CAPTURES, last=9)  # white just played (1,2), next to (2,3)
    assert heavy == {10} and answer == {10}


ESCAPE = """
. . . . . . .
. . . O . . .
. . O X O . .
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
"""  # black (2,3) in atari on (3,3) = 24, where it extends to three liberties


def test_an_atari_escape_to_more_liberties_is_always_chosen():
    heavy, uniform, (answer, _, urgent, _, _) = _choices(ESCAPE, last=18)  # white just played (2,4)
    assert heavy == {24} and answer == {24} and urgent == {24}
    assert len(uniform) > 10
    heavy, _, (answer, _, urgent, _, _) = _choices(ESCAPE)  # no last move: still the escape, from tier 2
    assert heavy == {24} and answer == set()


SELF_ATARI = """
. O . . . . .
. . O . . . .
. O . O . . .
. . . . . . .
. . . O . . .
. . O . O . .
. . O . O . .
"""  # no black stone, no white chain in atari: black's self-ataris are the points with one empty neighbour


def test_a_self_atari_is_never_chosen_while_another_move_is_left():
    heavy, uniform, (_, _, urgent, quiet, playable) = _choices(SELF_ATARI, last=-1)
    grid = np.array([row.split() for row in SELF_ATARI.strip().splitlines()]).reshape(-1)
    self_ataris = {
        p
        for p in np.flatnonzero(grid == ".").tolist()
        if sum(grid[q] == "." for q in ref_neighbours(p, 7)) == 1
    }
    assert {0, 2, 8, 16, 38, 45} <= self_ataris  # the corner, the gaps between white stones
    assert self_ataris < playable and quiet == playable - self_ataris and urgent == set()
    assert not heavy & self_ataris and len(heavy) > 10
    assert uniform & self_ataris  # the light policy does play them


HANE = """
. . . . . . .
. . . . . . .
. . . X . . .
. . . O . . .
. . . . . . .
. . . . . . .
. . . . . . .
"""  # white (3,3) = 24 just attached to black (2,3): black's hane and extension points answer it


def test_a_pattern_next_to_the_last_move_is_chosen_when_there_is_no_capture_or_escape():
    heavy, uniform, (answer, pattern, urgent, _, _) = _choices(HANE, last=24)
    around = {r * 7 + c for r in (2, 3, 4) for c in (2, 3, 4)}
    assert answer == urgent == set() and pattern and pattern <= around - {17, 24}
    assert {23, 25} <= pattern  # the hanes (3,2), (3,4) under the black stone
    assert heavy == pattern and len(uniform) > 10
    heavy, _, (_, pattern, _, _, _) = _choices(HANE)  # no last move: no pattern tier
    assert pattern == set() and len(heavy) > 10


BAD_ESCAPE = """
. . . . . . .
. . . O . . .
. . O X O . .
. . O . O . .
. . . . . . .
. . . . . . .
. . . . . . .
"""  # black (2,3)'s escape at (3,3) = 24 leaves the two stones with one liberty, (4,3)


def test_an_escape_into_atari_is_no_escape():
    heavy, _, (answer, pattern, urgent, quiet, playable) = _choices(BAD_ESCAPE, last=23)
    assert 24 in playable and answer == urgent == set() and 24 not in quiet | pattern
    assert 24 not in heavy and len(heavy) > 10


ONLY_SELF_ATARIS = """
. . O O O
O O O O O
O O . . O
O O O O O
O O O . .
"""  # every black move is a lone stone with one liberty


def test_with_only_self_ataris_left_a_playable_point_is_still_played():
    heavy, _, (answer, pattern, urgent, quiet, playable) = _choices(ONLY_SELF_ATARIS)
    assert playable == {0, 1, 12, 13, 23, 24} and not (answer | pattern | urgent | quiet)
    assert heavy == playable  # never a pass (25)


def test_heavy_is_a_playout_policy_of_the_settings():
    assert TreeSearchSettings(playout_policy="heavy").playout_policy == "heavy"
    with pytest.raises(ValueError, match="'heavier'"):
        TreeSearchSettings(playout_policy="heavier")


def test_the_search_runs_its_playouts_with_the_heavy_policy():
    # Black to move captures on 2 first in every heavy playout (uniform: 1 in 21 would).
    config = gojax.GoConfig(size=5, komi=0.5)
    state = gojax.from_ascii(config, ". . . . .\n. X O X .\n. . X . .\n. . . . .\n. . . . .", gojax.BLACK)
    parents = jax.tree.map(lambda x: x[None], state)
    per_leaf = 16
    run = jax.jit(functools.partial(evaluate_leaves, config, "heavy", 12, per_leaf))
    first = np.asarray(run(parents, jnp.array([-1]), jax.random.key(0)).first)[0]  # [2, P]
    assert first[0, 2] == per_leaf and first[1, 2] == 0
