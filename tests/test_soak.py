"""Soak run (opt-in): thousands of whole random games under every ko rule, with and without suicide.

Run it with ``GOJAX_SOAK=1 python -m pytest -s tests/test_soak.py`` (or
``-m soak``); the ordinary test run skips it. ``GOJAX_SOAK_GAMES`` sets the
games per config on 5x5 and 9x9 (default 128), ``GOJAX_SOAK_GAMES_19`` those
of the one 19x19 batch (default 8).

Every config plays one ``jax.vmap``-ed batch of games to the end, each move
drawn uniformly from the legal mask (``players.sample_uniform``, pass
included), in jitted chunks of moves. The invariant checker runs on every
game's final position and, after each chunk, on a few games still running.
The run counts moves, capturing moves, ko captures, suicides, superko bans
(points that are empty and not suicide - legal under the simple ko rule - but
banned by the legal mask) and failures (an invariant broken, or a move drawn
from the legal mask that ``step`` refused), prints a table of them, and
asserts that nothing failed and that each rare event really happened.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import time

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import without_history

import gojax
from gojax import players

pytestmark = pytest.mark.soak

GAMES = int(os.environ.get("GOJAX_SOAK_GAMES", "128"))
GAMES_19 = int(os.environ.get("GOJAX_SOAK_GAMES_19", "8"))
CHUNK = 32  # moves per jitted chunk
SAMPLED = 2  # running games checked after each chunk

CONFIGS = {
    f"{size}x{size} {ko_rule}{' suicide' if suicide else ''}": gojax.GoConfig(
        size=size, ko_rule=ko_rule, suicide=suicide
    )
    for size in (5, 9)
    for ko_rule in ("simple", "positional", "situational")
    for suicide in (False, True)
}
CONFIGS["19x19 positional"] = gojax.GoConfig(size=19)

COUNTS = ("moves", "captures", "ko_captures", "suicides", "superko_bans", "refused")
COLUMNS = ("games", "moves", "captures", "ko_captures", "suicides", "superko_bans", "failures", "seconds")


@pytest.fixture(scope="module", autouse=True)
def _opt_in(request):
    if os.environ.get("GOJAX_SOAK") != "1" and "soak" not in (request.config.option.markexpr or ""):
        pytest.skip("soak run: opt-in with GOJAX_SOAK=1 or -m soak")


def _chunk_runner(config: gojax.GoConfig):
    """``chunk(state[B], key) -> (state[B], int32[len(COUNTS)])``: ``CHUNK`` moves of every game."""
    simple = dataclasses.replace(config, ko_rule="simple")
    legal = jax.vmap(functools.partial(gojax.legal_action_mask, config))
    legal_simple = jax.vmap(functools.partial(gojax.legal_action_mask, simple))
    step = jax.vmap(functools.partial(gojax.step, config))
    num_points = config.num_points

    def move(state, key):
        mask = legal(state)
        after = step(state, players.sample_uniform(key, mask))
        live = ~state.done
        rows = jnp.arange(live.shape[0])
        mover = state.turn.astype(jnp.int32)
        gained = (after.captures - state.captures).astype(jnp.int32)
        taken, lost = gained[rows, mover], gained[rows, 1 - mover]
        banned = legal_simple(without_history(state))[:, :num_points] & ~mask[:, :num_points]
        counts = jnp.stack(
            [
                jnp.sum(live),
                jnp.sum(live & (taken > 0)),
                jnp.sum(live & (after.ko_point >= 0)),
                jnp.sum(live & (lost > 0)),
                jnp.sum(live[:, None] & banned),
                jnp.sum(live & after.illegal_move),
            ]
        ).astype(jnp.int32)
        return after, counts

    @jax.jit
    def chunk(state, key):
        state, counts = jax.lax.scan(move, state, jax.random.split(key, CHUNK))
        return state, jnp.sum(counts, axis=0)

    return chunk


def _soak(config: gojax.GoConfig, games: int, seed: int) -> dict[str, int]:
    start = time.perf_counter()
    chunk = _chunk_runner(config)
    state = jax.vmap(lambda _: gojax.init(config))(jnp.arange(games))
    key, rng = jax.random.PRNGKey(seed), np.random.default_rng(seed)
    totals = dict.fromkeys(COUNTS, 0)
    failures, was_done = 0, np.zeros(games, bool)
    while not was_done.all():
        key, sub = jax.random.split(key)
        state, counts = chunk(state, sub)
        for name, value in zip(COUNTS, np.asarray(counts), strict=True):
            totals[name] += int(value)
        done = np.asarray(state.done)
        running = np.flatnonzero(~done)
        checked = np.concatenate(
            [np.flatnonzero(done & ~was_done), rng.choice(running, min(SAMPLED, len(running)), replace=False)]
        )
        try:
            gojax.check_invariants(config, jax.tree.map(lambda x, i=checked: x[i], state))
        except gojax.InvariantError as error:
            failures += 1
            print(f"{config}: {error}")
        was_done = done
    totals["failures"] = failures + totals.pop("refused")
    totals["games"] = games
    totals["seconds"] = round(time.perf_counter() - start)
    return totals


@pytest.fixture(scope="module")
def soak_results():
    results = {}
    for seed, (name, config) in enumerate(CONFIGS.items()):
        results[name] = _soak(config, GAMES_19 if config.size == 19 else GAMES, seed)
    width = max(map(len, results))
    lines = [f"{'config':<{width}} " + " ".join(f"{column:>12}" for column in COLUMNS)]
    for name, totals in results.items():
        lines.append(f"{name:<{width}} " + " ".join(f"{totals[column]:>12,}" for column in COLUMNS))
    total = {column: sum(totals[column] for totals in results.values()) for column in COLUMNS}
    lines.append(f"{'total':<{width}} " + " ".join(f"{total[column]:>12,}" for column in COLUMNS))
    print("\n" + "\n".join(lines))
    return results


def test_no_failures(soak_results):
    assert {name: totals["failures"] for name, totals in soak_results.items() if totals["failures"]} == {}


@pytest.mark.parametrize("name", CONFIGS)
def test_rare_events_happened(soak_results, name):
    config, totals = CONFIGS[name], soak_results[name]
    assert totals["moves"] > 0 and totals["captures"] > 0 and totals["ko_captures"] > 0, totals
    assert (totals["suicides"] > 0) == config.suicide, totals
    if config.ko_rule == "simple":
        assert totals["superko_bans"] == 0, totals


@pytest.mark.parametrize("ko_rule", ["positional", "situational"])
@pytest.mark.parametrize("suicide", [False, True])
def test_superko_bans_happened(soak_results, ko_rule, suicide):
    # Random games rarely fill the board without suicide: the bans of 5x5 and 9x9 together.
    bans = {
        name: totals["superko_bans"]
        for name, totals in soak_results.items()
        if CONFIGS[name].ko_rule == ko_rule and CONFIGS[name].suicide == suicide and CONFIGS[name].size < 19
    }
    assert sum(bans.values()) > 0, bans
