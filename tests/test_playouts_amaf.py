"""The statistics of :func:`gojax.playouts.run_playouts` on ``gojax.step`` (the ``random`` and
``heuristic`` policies), counted by hand on a scripted playout.

The playout policy is replaced by a script (the move to play at each move
number), so every number the playouts report - black's wins, the AMAF counts
of the points each colour played *first*, the ownership - can be worked out
by hand. The script makes a point change hands: black plays it, white
captures the stone and later plays there itself; the point is black's
first play, not white's.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import gojax
from gojax import playouts

CONFIG = gojax.GoConfig(size=5, komi=0.5)
PASS = CONFIG.pass_action
# 5x5 points: row * 5 + col. The first mover plays A (0), the second B (1), the first C (12),
# the second D (5) capturing A (its liberties B and D filled), the first E (18), the second A
# again, then both pass. The first mover ends with C and E (2 stones), the second with A, B, D
# (3 stones); the empty points form one region touching both colours: no territory. So the
# second mover wins by area, 3 to 2 (komi 0.5 decides nothing).
A, B, C, D, E = 0, 1, 12, 5, 18
SCRIPT = (A, B, C, D, E, A, PASS, PASS)
FIRST_MOVER_FIRST = (A, C, E)  # the first mover played these first
SECOND_MOVER_FIRST = (B, D)  # A is not among them: the first mover played it first
FIRST_MOVER_STONES, SECOND_MOVER_STONES = (C, E), (A, B, D)


def scripted(config: gojax.GoConfig, state: gojax.GoState, key: jax.Array) -> jax.Array:
    """The move of :data:`SCRIPT` for the state's move number (the key is ignored)."""
    del config, key
    return jnp.asarray(SCRIPT, jnp.int32)[jnp.minimum(state.move_number, len(SCRIPT) - 1)]


def _points(values) -> np.ndarray:
    """``float[P]`` with 1 at ``values``."""
    out = np.zeros(CONFIG.num_points)
    out[list(values)] = 1.0
    return out


@pytest.mark.parametrize("policy", ["random", "heuristic"])
def test_amaf_counts_of_a_scripted_playout_by_hand(policy, monkeypatch):
    monkeypatch.setitem(playouts.STEP_POLICIES, policy, scripted)
    per_position = 3
    # Position 0: black moves first (and loses); position 1: white moves first (and loses).
    starts = [gojax.init(CONFIG), gojax.from_board(CONFIG, np.zeros((5, 5), np.int8), to_play=gojax.WHITE)]
    starts = jax.tree.map(lambda *x: jnp.stack(x), *starts)
    run = jax.jit(functools.partial(playouts.run_playouts, CONFIG, policy, 20, per_position))
    results = jax.device_get(run(starts, jax.random.PRNGKey(0)))

    m = float(per_position)
    first_mover_first, second_mover_first = _points(FIRST_MOVER_FIRST), _points(SECOND_MOVER_FIRST)
    owner = _points(FIRST_MOVER_STONES) - _points(SECOND_MOVER_STONES)  # +1 first mover's, -1 second's
    # Black moves first at position 0 and second at position 1; the second mover wins.
    np.testing.assert_array_equal(results.black_wins, [0.0, m])
    np.testing.assert_array_equal(results.first[0], m * np.stack([first_mover_first, second_mover_first]))
    np.testing.assert_array_equal(results.first[1], m * np.stack([second_mover_first, first_mover_first]))
    # Only the winner's first plays count as won.
    nothing = np.zeros(CONFIG.num_points)
    np.testing.assert_array_equal(results.first_wins[0], m * np.stack([nothing, second_mover_first]))
    np.testing.assert_array_equal(results.first_wins[1], m * np.stack([second_mover_first, nothing]))
    np.testing.assert_array_equal(results.ownership, m * np.stack([owner, -owner]))
