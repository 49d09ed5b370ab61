"""The playout loop in C (gojax/_native/playouts.c) against the XLA loop of gojax/playouts, its reference.

Both loops take the same random draws, so the same playouts must come out
move for move: the C kernel's final stones after every cut of a playout are
the XLA loop's, and a batch of playouts from whole-game positions (kos,
passes, finished games) gives the same statistics. The heavy policy's 3x3
pattern table is checked against the bitboard matcher it replaces.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import native_built, whole_game_batch

import gojax
from gojax import _native, playouts
from gojax._core import bitboard as bb
from gojax._core.bitboard import WordTuples as words
from gojax._core.native import call
from gojax.playouts import _heavy, _light, _light_loop, _native_loop, _patterns


@pytest.fixture(autouse=True)
def _built():
    if not native_built():
        pytest.skip("the native kernels are not built")


def _start(config: gojax.GoConfig, moves: int, seed: int) -> gojax.GoState:
    """A position ``moves`` random playout moves into a game."""
    state = gojax.init(config)
    key = jax.random.key(seed)
    step = jax.jit(functools.partial(gojax.step, config))
    policy = jax.jit(functools.partial(playouts.random_playout_policy, config))
    for _ in range(moves):
        key, sub = jax.random.split(key)
        state = step(state, policy(state, sub))
    return state


def _ko_position(config: gojax.GoConfig) -> gojax.GoState:
    """Black has just taken a ko in the top left corner: white to move may not retake at (1, 1)."""
    n = config.size
    state = gojax.init(config)
    for row, col in ((0, 1), (0, 2), (1, 0), (2, 2), (2, 1), (1, 3), (n - 1, n - 1), (1, 1), (1, 2)):
        state = gojax.step(config, state, row * n + col)
    assert int(state.ko_point) == n + 1 and int(state.turn) == 1
    return state


@pytest.mark.parametrize(
    "size, policy, opening, limit, seed",
    [(5, "light", 0, 70, 6), (9, "heavy", 20, 200, 0), (11, "light", 30, 260, 3), (19, "heavy", 60, 800, 6)],
)
def test_the_c_loop_plays_the_xla_loop_move_for_move(size, policy, opening, limit, seed):
    """One playout cut after 0..limit moves (the same key for each cut): after every move the C
    kernel's stones, owners and first plays are the XLA loop's. 11x11 fills two 64-bit words to
    the last point but seven; 19x19 uses six. The seeds are ones whose playout takes a ko."""
    config = gojax.GoConfig(size=size, komi=2.5, ko_rule="simple")
    start = _start(config, opening, seed=size)
    cuts = limit + 1
    starts = jax.tree.map(lambda x: jnp.broadcast_to(x, (cuts, *x.shape)), start)
    limits = jnp.arange(cuts, dtype=jnp.int32)
    keys = jnp.broadcast_to(jax.random.key(seed), (cuts,))
    draws = _light_loop.playout_draws(keys, limit)
    choose = _heavy.heavy_move if policy == "heavy" else _light.light_move

    @jax.jit
    def xla(starts, limits, keys):
        lights = jax.vmap(lambda s: _light.light_state(config, s))(starts)
        return _light_loop.light_playouts(config, limits, limit, lights, keys, 2, choose, 4)

    _, first, owner, finals = jax.device_get(xla(starts, limits, keys))
    run = jax.jit(functools.partial(_native_loop.native_playouts, config, policy))
    c_owner, c_first, c_final = jax.device_get(run(starts, limits, draws))
    stones = np.asarray(words.stacked(finals.stones))
    moves = int(finals.moves[-1])
    assert moves >= min(limit, 20) and (moves == limit or finals.passes[-1] == 2)
    for k in range(cuts):
        np.testing.assert_array_equal(c_final[k], stones[k], err_msg=f"stones after {k} moves")
    np.testing.assert_array_equal(c_owner, owner)
    np.testing.assert_array_equal(c_first, first)
    # The comparison went through single and several-stone captures and ko points.
    count = np.unpackbits(stones.view(np.uint8), axis=-1).sum(axis=-1).astype(int)  # [cuts, 2]
    lost = np.maximum(count[:-1] - count[1:], 0).max(axis=1)
    assert (lost == 1).sum() >= (2 if size > 5 else 1) and (lost >= 2).sum() >= (1 if size > 5 else 0)
    assert (np.asarray(finals.ko) >= 0).sum() >= 1


@pytest.mark.parametrize("size, policy", [(7, "heavy"), (9, "light"), (13, "heavy"), (25, "light")])
def test_run_playouts_gives_the_same_statistics_on_either_loop(size, policy):
    """From whole-game positions (a ko, a pass to answer, finished games), several playouts each."""
    config = gojax.GoConfig(size=size, komi=7.5)
    starts = whole_game_batch(config, 12, seed=size)._game
    ko = _ko_position(config)
    starts = jax.tree.map(lambda x, k: x.at[0].set(k), starts, ko)
    passed = jnp.arange(12) % 4 == 1  # a pass just played in some: one more ends the playout
    starts = starts.replace(
        terminated=starts.terminated.at[2].set(True),  # played out no further
        passes=jnp.where(passed, 1, starts.passes).astype(starts.passes.dtype),
        last_move=jnp.where(passed, config.num_points, starts.last_move).astype(starts.last_move.dtype),
    )
    assert int(jnp.sum(starts.ko_point >= 0)) >= 1 and bool(jnp.any(starts.terminated | starts.truncated))
    moves = 3 * config.num_points

    def run():
        return jax.jit(lambda s, k: playouts.run_playouts(config, policy, moves, 4, s, k))(
            starts, jax.random.key(3)
        )

    native = jax.device_get(run())
    with _native.disabled():
        xla = jax.device_get(run())
    for name, got, want in zip(native._fields, native, xla, strict=True):
        np.testing.assert_array_equal(got, want, err_msg=name)
    assert 0 < native.black_wins.sum() < 4 * 12


def test_the_search_traces_the_c_loop_on_the_cpu_and_the_xla_loop_when_disabled():
    config = gojax.GoConfig(size=5)
    starts = jax.tree.map(lambda x: x[None], gojax.init(config))

    def text():
        run = jax.jit(lambda s, k: playouts.run_playouts(config, "heavy", 20, 2, s, k))
        return run.lower(starts, jax.random.key(0)).as_text()

    assert "gojax_ffi_playouts" in text()
    with _native.disabled():
        assert "gojax_ffi_playouts" not in text()


def test_playout_wins_pools_vmap_levels_on_the_c_loop():
    """``playout_wins`` under ``vmap`` (its batching rule) equals one flat call, as on the XLA loop."""
    config = gojax.GoConfig(size=7, komi=0.5)
    starts = whole_game_batch(config, 6, seed=1)._game
    keys = jax.random.split(jax.random.key(5), 6)
    flat = jax.jit(lambda s, k: playouts.playout_wins(config, "heavy", 100, s, k))
    pooled = jax.jit(jax.vmap(lambda s, k: playouts.playout_wins(config, "heavy", 100, s, k)))
    grouped = jax.tree.map(lambda x: x.reshape(2, 3, *x.shape[1:]), starts)
    want = np.asarray(flat(starts, keys))
    np.testing.assert_array_equal(np.asarray(pooled(grouped, keys.reshape(2, 3))).reshape(-1), want)
    with _native.disabled():
        np.testing.assert_array_equal(np.asarray(flat(starts, keys)), want)


def _call(result, *args, **attributes):
    return jax.jit(lambda *a: call("gojax_ffi_playouts", result, a, "broadcast_all", **attributes))(*args)


def test_malformed_buffers_are_refused_with_an_error_naming_the_target():
    b, points, w = 3, 49, 2
    stones = jnp.zeros((b, 2, w), jnp.uint32)
    column = jnp.zeros(b, jnp.int32)
    draws = jnp.zeros((b, 10), jnp.uint32)
    result = (
        jax.ShapeDtypeStruct((b, points), jnp.int8),
        jax.ShapeDtypeStruct((b, 2, w), jnp.uint32),
        jax.ShapeDtypeStruct((b, 2, w), jnp.uint32),
    )
    table = _patterns.pattern_table()
    args = (stones, column, column, column, column, column)
    with pytest.raises(Exception, match=r"gojax_ffi_playouts: draws must be uint32\[\.\.\., T\]"):
        _call(result, *args, draws.astype(jnp.int32), heavy=np.int32(1), patterns=table)
    with pytest.raises(Exception, match=r"gojax_ffi_playouts: limits must be int32\[\.\.\.\]"):
        _call(result, *args[:5], column[:2], draws, heavy=np.int32(1), patterns=table)
    with pytest.raises(Exception, match=r"gojax_ffi_playouts: stones must be uint32\[\.\.\., 2, W\]"):
        _call(result, jnp.zeros((b, 2, 3), jnp.uint32), *args[1:], draws, heavy=np.int32(1), patterns=table)
    with pytest.raises(Exception, match=r"gojax_ffi_playouts: needs an attribute patterns uint32\[2048\]"):
        _call(result, *args, draws, heavy=np.int32(1), patterns=table[:100])
    with pytest.raises(Exception, match=r"gojax_ffi_playouts: needs an integer attribute heavy"):
        _call(result, *args, draws, patterns=table)
    bad = (jax.ShapeDtypeStruct((b, 50), jnp.int8), *result[1:])
    with pytest.raises(Exception, match=r"gojax_ffi_playouts: the owner result must be int8"):
        _call(bad, *args, draws, heavy=np.int32(1), patterns=table)


def test_start_values_off_the_board_are_read_as_none():
    """Inside jit nothing can raise: a ko point or last move off the board is none, a turn other
    than 0 is white's, a limit of 0 or less scores the start as it stands."""
    config = gojax.GoConfig(size=5)
    start = _start(config, 8, seed=2)
    starts = jax.tree.map(lambda x: jnp.stack([x, x]), start)
    odd = starts.replace(ko_point=jnp.array([99, -7], jnp.int16), last_move=jnp.array([-3, 200], jnp.int16))
    plain = starts.replace(ko_point=jnp.full(2, -1, jnp.int16), last_move=jnp.full(2, -1, jnp.int16))
    draws = _light_loop.playout_draws(jax.random.split(jax.random.key(1), 2), 60)
    run = jax.jit(functools.partial(_native_loop.native_playouts, config, "heavy"))
    for got, want in zip(run(odd, jnp.full(2, 60), draws), run(plain, jnp.full(2, 60), draws), strict=True):
        np.testing.assert_array_equal(got, want)
    white = starts.replace(turn=jnp.ones(2, jnp.int8))
    for got, want in zip(
        run(white.replace(turn=jnp.array([7, -2], jnp.int8)), jnp.full(2, 60), draws),
        run(white, jnp.full(2, 60), draws),
        strict=True,
    ):
        np.testing.assert_array_equal(got, want)
    owner, first, final = run(starts, jnp.array([0, -5], jnp.int32), draws)
    np.testing.assert_array_equal(final, np.stack([start.stones] * 2))
    assert not np.asarray(first).any()
    np.testing.assert_array_equal(owner[0], playouts.ownership(config, start).astype(np.int8))


def test_the_pattern_table_is_the_bitboard_matcher():
    """Every empty point of random boards (edges and corners included): the table's bit for its 3x3
    neighbourhood is whether :func:`pattern_points` matches there."""
    rng = np.random.default_rng(0)
    table = _patterns.pattern_table()
    matched = 0
    for size in (3, 5, 8):
        grids = rng.choice(3, size=(40, size, size), p=[0.5, 0.25, 0.25])
        black = np.stack([bb.from_grid_np(g == 1, size) for g in grids])
        white = np.stack([bb.from_grid_np(g == 2, size) for g in grids])
        found = jax.vmap(
            lambda x, o, size=size: words.stacked(
                _patterns.pattern_points(size, words.words(x), words.words(o))
            )
        )(jnp.asarray(black), jnp.asarray(white))
        found = np.stack([bb.to_grid_np(np.asarray(f), size) for f in found])
        padded = np.pad(grids, ((0, 0), (1, 1), (1, 1)), constant_values=3)
        for g, r, c in zip(*np.nonzero(grids == 0), strict=True):
            cells = [padded[g, r + 1 + dr, c + 1 + dc] for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]
            code = sum(int(cell) << (2 * k) for k, cell in enumerate(cells))
            assert bool((table[code >> 5] >> (code & 31)) & 1) == bool(found[g, r, c]), (size, g, r, c)
            matched += bool(found[g, r, c])
    assert matched >= 100
