"""Bad input to the rule functions gets a clear error, under plain calls, ``jax.jit`` and ``jax.vmap``.

A state built for another board size, ko rule or move cap, a batch passed
without ``jax.vmap``, and a non-integer action are refused while the function
is traced, with a message naming what does not fit - and the check leaves the
traced computation (the jaxpr) exactly as it is without it.
"""

from __future__ import annotations

import functools
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import stack_states

import gojax
from gojax._core import guards

NINE = gojax.GoConfig(size=9)
NINETEEN = gojax.GoConfig(size=19)
NINE_SIMPLE = gojax.GoConfig(size=9, ko_rule="simple")
NINE_SITUATIONAL = gojax.GoConfig(size=9, ko_rule="situational")
NINE_CAPPED = gojax.GoConfig(size=9, max_moves=50)

# Every public rule function that takes a state: name -> f(config, state) (step plays point 0).
FUNCTIONS = {
    "step": lambda config, state: gojax.step(config, state, jnp.zeros(jnp.shape(state.turn), jnp.int32)),
    "step_with_mask": lambda config, state: gojax.step_with_mask(
        config, state, jnp.zeros(jnp.shape(state.turn), jnp.int32), jnp.ones(config.num_actions, bool)
    ),
    "legal_action_mask": gojax.legal_action_mask,
    "board": gojax.board,
    "to_play": gojax.to_play,
    "area": gojax.area,
    "score": gojax.score,
    "winner": gojax.winner,
    "rewards": gojax.rewards,
    "resign": gojax.resign,
    "reset_if_done": gojax.reset_if_done,
}
MODES = ("plain", "jit", "vmap")


def call(function, config, state, mode):
    """``function(config, state)`` plainly, under ``jax.jit``, or under ``jax.vmap`` on a batch of 2."""
    bound = functools.partial(function, config)
    if mode == "plain":
        return bound(state)
    if mode == "jit":
        return jax.jit(bound)(state)
    return jax.vmap(bound)(stack_states([state, state]))


def step_with(config, state, action, mode):
    """``gojax.step(config, state, action)`` plainly, jitted, or vmapped over 2 copies of both."""
    bound = functools.partial(gojax.step, config)
    if mode == "plain":
        return bound(state, action)
    if mode == "jit":
        return jax.jit(bound)(state, action)
    return jax.vmap(bound)(stack_states([state, state]), jnp.stack([jnp.asarray(action)] * 2))


# --------------------------------------------------------------------------- a state for another config


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", FUNCTIONS)
def test_state_for_another_board_size(name, mode):
    message = (
        f"gojax.{name}: state is for a 19x19 board (stones uint32[2, 12]) but the config is 9x9 "
        "(uint32[2, 3]); build the state with gojax.init(config)"
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        call(FUNCTIONS[name], NINE, gojax.init(NINETEEN), mode)
    message = "state is for a 9x9 board (stones uint32[2, 3]) but the config is 19x19"
    with pytest.raises(ValueError, match=re.escape(message)):
        call(FUNCTIONS[name], NINETEEN, gojax.init(NINE), mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("name", ["step", "step_with_mask", "legal_action_mask", "reset_if_done"])
def test_state_for_another_ko_rule(name, mode):
    function = FUNCTIONS[name]
    with pytest.raises(
        ValueError,
        match=re.escape(
            f"gojax.{name}: state is for the simple ko rule (no position history) but the config's "
            "ko_rule is 'positional' (a history of 163 positions)"
        ),
    ):
        call(function, NINE, gojax.init(NINE_SIMPLE), mode)
    with pytest.raises(
        ValueError,
        match=re.escape(
            f"gojax.{name}: state is for a superko rule (a history of 163 positions) but the config's "
            "ko_rule is 'simple' (no history)"
        ),
    ):
        call(function, NINE_SIMPLE, gojax.init(NINE_SITUATIONAL), mode)


@pytest.mark.parametrize("mode", MODES)
def test_state_for_another_move_cap(mode):
    with pytest.raises(
        ValueError,
        match=re.escape(
            "gojax.step: state keeps a history of 51 positions (move cap 50) but the config is 9x9 "
            "with move cap 162 (163 positions)"
        ),
    ):
        call(FUNCTIONS["step"], NINE, gojax.init(NINE_CAPPED), mode)
    # A 6x6 state has the bitboards of a 7x7 one: its history tells them apart.
    message = "(move cap 72, the default of a 6x6 board) but the config is 7x7"
    with pytest.raises(ValueError, match=re.escape(message)):
        call(FUNCTIONS["legal_action_mask"], gojax.GoConfig(size=7), gojax.init(gojax.GoConfig(size=6)), mode)


def test_boards_with_the_same_bitboards_are_all_named():
    # Without a history a 7x7 state could be for 6x6, 7x7 or 8x8: all three are named.
    state = gojax.init(gojax.GoConfig(size=7, ko_rule="simple"))
    message = "state is for a 6x6, 7x7 or 8x8 board (stones uint32[2, 2])"
    with pytest.raises(ValueError, match=re.escape(message)):
        gojax.board(NINE, state)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_batch_without_vmap(name):
    batch = stack_states([gojax.init(NINE)] * 3)
    message = f"gojax.{name}: state is a batch of games (leading axes [3],"
    with pytest.raises(ValueError, match=re.escape(message)):
        FUNCTIONS[name](NINE, batch)
    with pytest.raises(ValueError, match=re.escape("jax.vmap(functools.partial(gojax.")):
        jax.jit(functools.partial(FUNCTIONS[name], NINE))(batch)


def test_a_field_of_the_wrong_shape_is_named():
    state = gojax.init(NINE).replace(captures=jnp.zeros((3,), jnp.int16))
    message = "gojax.step: state.captures is int16[3] but a state of the config has shape [2]"
    with pytest.raises(ValueError, match=re.escape(message)):
        gojax.step(NINE, state, 0)


def test_not_a_state():
    with pytest.raises(TypeError, match=re.escape("gojax.legal_action_mask: state must be a gojax.GoState")):
        gojax.legal_action_mask(NINE, {"stones": gojax.init(NINE).stones})


@pytest.mark.parametrize("size", range(2, 26))
def test_state_shapes_are_those_of_init(size):
    for config in (
        gojax.GoConfig(size=size),
        gojax.GoConfig(size=size, ko_rule="simple"),
        gojax.GoConfig(size=size, ko_rule="situational", max_moves=7),
    ):
        shapes = jax.eval_shape(functools.partial(gojax.init, config))
        assert {name: getattr(shapes, name).shape for name in guards.state_shapes(config)} == (
            guards.state_shapes(config)
        )
        assert set(guards.state_shapes(config)) == set(gojax.GoState.__dataclass_fields__)


@pytest.mark.parametrize("name", FUNCTIONS)
def test_check_adds_nothing_to_the_jaxpr(name, monkeypatch):
    state = gojax.init(NINE)
    checked = str(jax.make_jaxpr(functools.partial(FUNCTIONS[name], NINE))(state))
    monkeypatch.setattr(guards, "check_state", lambda *args: None)
    monkeypatch.setattr(guards, "check_action", lambda *args: None)
    unchecked = str(jax.make_jaxpr(functools.partial(FUNCTIONS[name], NINE))(state))
    assert checked == unchecked


# --------------------------------------------------------------------------- host functions that read a state

# Host functions that take (config, state): they refuse a state of another board with the rule functions'
# error. The SVG pictures read only the board, so other rules of the same board are drawn (True);
# render and check_invariants refuse them too, as gojax.board does (False).
HOST = {
    "render": (gojax.render, False),
    "board_svg": (gojax.board_svg, True),
    "svg.game_view": (lambda config, state: gojax.svg.game_view(config, [state]).frames(), True),
    "check_invariants": (gojax.check_invariants, False),
}


def _played(config):
    """A state of ``config`` with a stone on the board (point 0), so a wrong decoding shows."""
    return gojax.step(config, gojax.init(config), 0)


@pytest.mark.parametrize("name", HOST)
def test_host_functions_refuse_a_state_of_another_board(name):
    function, _ = HOST[name]
    message = (
        f"gojax.{name}: state is for a 19x19 board (stones uint32[2, 12]) but the config is 9x9 "
        "(uint32[2, 3]); build the state with gojax.init(config)"
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        function(NINE, _played(NINETEEN))
    with pytest.raises(ValueError, match=re.escape("state is for a 9x9 board (stones uint32[2, 3])")):
        function(NINETEEN, _played(NINE))
    # 7x7 and 8x8 states have the same bitboards: the history of the default move cap tells them apart.
    message = f"gojax.{name}: state keeps a history of 99 positions (move cap 98, the default of a 7x7 board)"
    with pytest.raises(ValueError, match=re.escape(message)):
        function(gojax.GoConfig(size=8), _played(gojax.GoConfig(size=7)))


@pytest.mark.parametrize("name", HOST)
def test_host_functions_on_other_rules_of_the_same_board(name):
    function, board_only = HOST[name]
    for other in (NINE_SIMPLE, NINE_CAPPED):
        state = _played(other)
        if board_only:
            assert function(NINE, state) == function(other, state)  # the same picture
        else:
            with pytest.raises(ValueError, match=re.escape(f"gojax.{name}: state ")):
                function(NINE, state)


# --------------------------------------------------------------------------- the action's dtype


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("action", "dtype"),
    [
        (3.7, "float32"),
        (3.0, "float32"),
        (np.float64(3.7), "float(64|32)"),  # float32 once jax.jit has made it a JAX value
        (np.float32(3.0), "float32"),
        (jnp.float32(3.7), "float32"),
        (jnp.bfloat16(3.0), "bfloat16"),
        (True, "bool"),
        (np.bool_(True), "bool"),
    ],
    ids=repr,
)
def test_non_integer_action_is_refused(action, dtype, mode):
    if mode == "vmap" and dtype == "bfloat16":
        action = jnp.asarray(action)
    message = re.escape("gojax.step: action must be an integer array or int, got ") + dtype
    with pytest.raises(TypeError, match=message):
        step_with(NINE, gojax.init(NINE), action, mode)


@pytest.mark.parametrize("action", [None, "3", [3]], ids=repr)
def test_action_that_is_no_number(action):
    with pytest.raises(TypeError, match=re.escape("gojax.step: action must be an integer array or int, got")):
        gojax.step(NINE, gojax.init(NINE), action)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    "action",
    [
        3,
        np.int8(3),
        np.int64(3),
        np.uint8(3),
        np.uint64(3),
        jnp.int16(3),
        jnp.uint32(3),
        np.array(3, np.int64),
    ],
    ids=lambda a: f"{type(a).__name__}-{np.asarray(a).dtype}",
)
def test_integer_actions_are_accepted(action, mode):
    state = gojax.init(NINE)
    if mode == "plain":
        after = gojax.step(NINE, state, action)
        assert int(after.last_move) == 3 and not bool(after.illegal_move)
        return
    # Traced only (the check runs while tracing): no compilation per dtype.
    bound = functools.partial(gojax.step, NINE)
    if mode == "jit":
        shapes = jax.eval_shape(jax.jit(bound), state, action)
    else:
        actions = jnp.stack([jnp.asarray(action)] * 2)
        shapes = jax.eval_shape(jax.vmap(bound), stack_states([state] * 2), actions)
    assert shapes.stones.shape == (state.stones.shape if mode == "jit" else (2, *state.stones.shape))
