"""Feature presets are equivariant under the 8 board symmetries.

Each random game is replayed with its moves transformed by every symmetry;
the planes of a transformed game must be the transformed planes of the
original (ladder reads and turns-since included).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import random_game

import gojax
from gojax import features, symmetry

CONFIG = gojax.GoConfig(size=9)
GAMES, MOVES = 4, 44


def _random_games():
    """Move lists of random legal games (a pass only where no point is legal)."""
    rng = np.random.default_rng(7)
    return [random_game(CONFIG, rng, MOVES)[1] for _ in range(GAMES)]


def _replayed(moves):
    """Final state and board history of a move list, every move under every symmetry."""
    step = functools.partial(gojax.step, CONFIG)
    push = functools.partial(features.history_push, CONFIG)

    def play(k):
        state = gojax.init(CONFIG)
        hist = features.history_init(CONFIG, state)

        def one(carry, move):
            state, hist = carry
            state = step(state, symmetry.transform_action(CONFIG, k, move))
            return (state, push(hist, state)), None

        return jax.lax.scan(one, (state, hist), jnp.asarray(moves))[0]

    return jax.jit(jax.vmap(play))(jnp.arange(symmetry.NUM_SYMMETRIES))


@pytest.fixture(scope="module")
def replays():
    return [_replayed(moves) for moves in _random_games()]


@pytest.mark.parametrize(
    "name, preset",
    [
        ("alphago", functools.partial(features.alphago_planes, CONFIG, player_colour=True)),
        ("alphago_zero", functools.partial(features.alphago_zero_planes, CONFIG)),
        ("basic", functools.partial(features.observation("basic"), CONFIG)),
    ],
)
def test_presets_are_equivariant(replays, name, preset):
    planes_of = jax.jit(jax.vmap(preset))
    ladders = 0
    for state, hist in replays:
        assert not bool(jnp.any(state.illegal_move))
        planes = np.asarray(planes_of(state, hist))  # [8, N, N, C]
        for k in range(symmetry.NUM_SYMMETRIES):
            expected = np.asarray(symmetry.transform_board(k, jnp.asarray(planes[0])))
            np.testing.assert_array_equal(planes[k], expected, err_msg=f"{name}, symmetry {k}")
        if name == "alphago":
            channels = features.ALPHAGO_CHANNELS
            ladders += int(
                planes[0][..., channels.ladder_capture].sum() + planes[0][..., channels.ladder_escape].sum()
            )
    if name == "alphago":
        assert ladders > 0, "no ladder feature was set: the test would not see a direction-dependent read"
