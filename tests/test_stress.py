"""Seeded, vmapped stress test: many random games, the invariant checker after
every move, and proof that the rare events really happened.

Moves are sampled from the legal mask with a low pass weight (so games run
long and fill the board, where kos, superko bans and suicides live), and
sometimes uniformly from all actions (so illegal actions are exercised too).
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import without_history

import gojax

BATCH = 96


def _events_runner(config: gojax.GoConfig):
    simple = gojax.GoConfig(size=config.size, komi=config.komi, ko_rule="simple", suicide=config.suicide)
    legal = jax.vmap(functools.partial(gojax.legal_action_mask, config))
    legal_simple = jax.vmap(functools.partial(gojax.legal_action_mask, simple))
    step = jax.vmap(functools.partial(gojax.step, config))
    step_with_mask = jax.vmap(functools.partial(gojax.step_with_mask, config))
    num_points = config.num_points

    @jax.jit
    def advance(state, key, previous_single_capture):
        mask = legal(state)
        key_move, key_any, key_coin = jax.random.split(key, 3)
        logits = jnp.where(mask, 0.0, -jnp.inf).at[:, num_points].add(-4.0)
        chosen = jax.random.categorical(key_move, logits)
        anything = jax.random.randint(key_any, chosen.shape, -1, num_points + 2)
        # A few games (the first eight) also try arbitrary, often illegal, actions.
        wild = (jnp.arange(chosen.shape[0]) < 8) & (jax.random.uniform(key_coin, chosen.shape) < 0.02)
        action = jnp.where(wild, anything, chosen)
        after = step(state, action)
        masked = step_with_mask(state, action, mask)
        differs = jnp.zeros(action.shape, jnp.bool_)
        for x, y in zip(jax.tree.leaves(after), jax.tree.leaves(masked), strict=True):
            differs |= jnp.any((x != y).reshape(x.shape[0], -1), axis=1)
        mover = state.turn.astype(jnp.int32)
        rows = jnp.arange(action.shape[0])
        taken = (after.captures - state.captures)[rows, mover]
        lost = (after.captures - state.captures)[rows, 1 - mover]
        live = ~state.done
        expected_legal = mask[rows, jnp.clip(action, 0, num_points)] & (action >= 0) & (action <= num_points)
        events = {
            "mask_disagrees_with_step": live & (after.illegal_move == expected_legal),
            "step_with_mask_differs": differs,
            "ko_capture": live & (after.ko_point >= 0),
            "superko_ban": live & jnp.any(legal_simple(without_history(state)) & ~mask, axis=1),
            "suicide": live & (lost > 0),
            "snapback": live & (taken >= 2) & (action == previous_single_capture),
            "large_capture": live & (taken >= 10),
            "illegal_action": live & after.illegal_move,
        }
        # The point where a single stone was just captured: where the next
        # player would play to snap back.
        single = live & (taken == 1) & (after.last_move < num_points)
        captured_at = jnp.where(single, _single_captured_point(state, after, config.size), -1)
        placed = live & ~after.illegal_move & (action < num_points) & (action >= 0)
        return after, events, captured_at, placed, mover

    return advance


def _single_captured_point(before, after, size):
    gone = before.stones & ~after.stones
    return jax.vmap(lambda g: jnp.maximum(gojax._core.bitboard.lowest_point(g[0] | g[1], size), -1))(gone)


CONFIGS = {
    "9x9-positional": gojax.GoConfig(size=9),
    "7x7-situational-suicide": gojax.GoConfig(size=7, ko_rule="situational", suicide=True),
    "5x5-simple": gojax.GoConfig(size=5, ko_rule="simple", max_moves=120),
    "4x4-positional": gojax.GoConfig(size=4, max_moves=200),
}


@pytest.fixture(scope="module")
def stress_results():
    """Per config: the totals of each event over the seeded games (invariants checked after every move)."""
    results = {}
    for name, config in CONFIGS.items():
        advance = _events_runner(config)
        state = jax.vmap(lambda _, c=config: gojax.init(c))(jnp.arange(BATCH))
        key = jax.random.PRNGKey(len(name))
        previous = jnp.full((BATCH,), -1, jnp.int32)
        placed = np.zeros((BATCH, 2), np.int64)
        totals: dict[str, int] = {}
        for _ in range(config.move_cap):
            key, sub = jax.random.split(key)
            state, events, previous, was_placed, mover = advance(state, sub, previous)
            placed[np.arange(BATCH), np.asarray(mover)] += np.asarray(was_placed)
            gojax.check_invariants(config, state, placed=placed)
            for event, hits in events.items():
                totals[event] = totals.get(event, 0) + int(np.sum(hits))
            if bool(jnp.all(state.done)):
                break
        results[name] = totals
        print(name, totals)
    return results


def test_mask_and_step_agree(stress_results):
    for name, totals in stress_results.items():
        assert totals["mask_disagrees_with_step"] == 0, name
        assert totals["step_with_mask_differs"] == 0, name


@pytest.mark.parametrize(
    "name, event",
    [
        ("9x9-positional", "ko_capture"),
        ("9x9-positional", "snapback"),
        ("9x9-positional", "large_capture"),
        ("9x9-positional", "illegal_action"),
        ("7x7-situational-suicide", "suicide"),
        ("7x7-situational-suicide", "ko_capture"),
        ("7x7-situational-suicide", "superko_ban"),
        ("5x5-simple", "ko_capture"),
        ("5x5-simple", "snapback"),
        ("4x4-positional", "superko_ban"),
        ("4x4-positional", "large_capture"),
    ],
)
def test_rare_events_happened(stress_results, name, event):
    assert stress_results[name][event] > 0, (name, event, stress_results[name])


def test_simple_ko_rule_has_no_superko_bans(stress_results):
    assert stress_results["5x5-simple"]["superko_ban"] == 0
