"""The bit-string boards against plain NumPy grids.

Each board size packs its rows end to end across word boundaries differently
(a 9x9 row straddles words 0 and 1, a 25x25 board has 20 words), so every
operation is checked on random sets at sizes whose rows meet the word edges in
different places, with the flood fill both in its unstacked (small boards) and
stacked (large boards) form.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import ref_fill, ref_grid_neighbours

from gojax._core import bitboard as bb
from gojax._core import zobrist as _zobrist
from gojax._core.stored import stored

SIZES = (2, 5, 6, 9, 13, 19, 25)
REGIONS = 6


def _random_grids(rng, size, shape, density):
    return rng.random((*shape, size, size)) < density


@functools.cache
def _ops(size):
    """Jitted bitboard operations for one size (compiled once per module run)."""

    def fills(seed, mask, free):
        plain = bb.flood_fill(seed, mask, size)
        limited = bb.flood_fill(seed, mask, size, free=free)
        stacked = bb._flood_fill_stacked(seed, mask, size, None, 2)
        return plain, limited, stacked

    def singles(x, colour):
        return (
            jax.vmap(bb.lowest_point, in_axes=(0, None))(x, size),
            _zobrist.stones_hash(x, colour, size),
            bb.count(x),
            bb.any_set(x),
            bb.select_points(x, jnp.arange(-1, size * size + 1)),
        )

    return {
        "neighbours": jax.jit(lambda x: bb.neighbours(x, size)),
        "shifts": jax.jit(
            lambda x: jnp.stack([bb.shift(x, r, c, size) for r in (-1, 0, 1) for c in (-1, 0, 1)])
        ),
        "fills": jax.jit(fills),
        "singles": jax.jit(singles),
        "grid": jax.jit(lambda g: (bb.from_grid(g, size), bb.to_grid(bb.from_grid(g, size), size))),
        "point_bits": jax.jit(jax.vmap(lambda a: bb.point_bits(a, size))),
    }


@pytest.mark.parametrize("size", SIZES)
def test_packing_round_trips_and_keeps_the_bits_past_the_board_clear(size):
    rng = np.random.default_rng(size)
    grids = _random_grids(rng, size, (4,), 0.5)
    words = bb.from_grid_np(grids, size)
    assert words.shape == (4, bb.num_words(size)) and words.dtype == np.uint32
    np.testing.assert_array_equal(bb.to_grid_np(words, size), grids)
    assert not np.any(words & ~bb.board_mask(size))
    np.testing.assert_array_equal(bb.to_grid_np(bb.board_mask(size), size), np.ones((size, size), bool))
    packed, unpacked = _ops(size)["grid"](jnp.asarray(grids))
    np.testing.assert_array_equal(np.asarray(packed), words)
    np.testing.assert_array_equal(np.asarray(unpacked), grids)
    # Point p is bit p % 32 of word p // 32.
    flat = grids.reshape(4, -1)
    for p in rng.choice(size * size, size=min(5, size * size), replace=False):
        np.testing.assert_array_equal((words[:, p // 32] >> (p % 32)) & 1, flat[:, p])


@pytest.mark.parametrize("size", SIZES)
def test_neighbours_and_shifts_match_the_grid(size):
    rng = np.random.default_rng(100 + size)
    grids = _random_grids(rng, size, (8,), 0.3)
    ops = _ops(size)
    got = bb.to_grid_np(np.asarray(ops["neighbours"](jnp.asarray(bb.from_grid_np(grids, size)))), size)
    np.testing.assert_array_equal(got, ref_grid_neighbours(grids))
    shifted = bb.to_grid_np(np.asarray(ops["shifts"](jnp.asarray(bb.from_grid_np(grids, size)))), size)
    padded = np.pad(grids, [(0, 0), (1, 1), (1, 1)])
    k = 0
    for r in (-1, 0, 1):
        for c in (-1, 0, 1):
            # out[i, j] = x[i + r, j + c], zero off the board.
            expected = padded[:, 1 + r : 1 + r + size, 1 + c : 1 + c + size]
            np.testing.assert_array_equal(shifted[k], expected, err_msg=f"shift {r}, {c}")
            k += 1


@pytest.mark.parametrize("size", SIZES)
def test_flood_fill_matches_the_grid_fill_in_both_forms(size):
    rng = np.random.default_rng(200 + size)
    masks = _random_grids(rng, size, (3, REGIONS), 0.6)
    seeds = _random_grids(rng, size, (3, REGIONS), 0.05)
    free = ~masks & _random_grids(rng, size, (3, REGIONS), 0.5)
    pack = functools.partial(bb.from_grid_np, size=size)
    plain, limited, stacked = (
        bb.to_grid_np(np.asarray(x), size)
        for x in _ops(size)["fills"](*(jnp.asarray(pack(g)) for g in (seeds, masks, free)))
    )
    exact = ref_fill(seeds, masks)
    assert exact.sum() > seeds.sum(), "the random regions should grow"
    np.testing.assert_array_equal(plain, exact)
    np.testing.assert_array_equal(stacked, exact)
    # With free points the fill may stop early, but only inside the region and
    # only once the part it has reached touches two free points.
    assert not np.any(limited & ~exact)
    assert np.all(limited >= (seeds & masks))
    stopped = np.any(limited != exact, axis=(-2, -1))
    liberties = (ref_grid_neighbours(limited) & free).sum(axis=(-2, -1))
    assert np.all(liberties[stopped] >= 2)


@pytest.mark.parametrize("size", SIZES)
def test_points_keys_and_counts(size):
    rng = np.random.default_rng(300 + size)
    grids = _random_grids(rng, size, (16,), 0.1)
    grids[0] = False
    colours = rng.integers(0, 2, 16)
    grids[1] = True
    words = jnp.asarray(bb.from_grid_np(grids, size))
    singles = _ops(size)["singles"](words, jnp.asarray(colours))
    first, keys, counts, any_set, selected = (np.asarray(x) for x in singles)
    flat = grids.reshape(16, -1)
    # select_points at ranks -1 .. P: the rank-th set point, -1 past the last
    # (rank -1 reads as 0).
    for board, points in zip(flat, selected, strict=True):
        expected = np.full(size * size + 2, -1)
        expected[1 : 1 + board.sum()] = np.flatnonzero(board)
        expected[0] = expected[1]
        np.testing.assert_array_equal(points, expected)
    expected_first = np.where(flat.any(1), flat.argmax(1), -1)
    np.testing.assert_array_equal(first, expected_first)
    np.testing.assert_array_equal(counts, flat.sum(1))
    np.testing.assert_array_equal(any_set, flat.any(1))
    table = _zobrist.tables(size).points
    expected_keys = [
        np.bitwise_xor.reduce(table[c][f], axis=0, initial=np.uint32(0))
        for c, f in zip(colours, flat, strict=True)
    ]
    np.testing.assert_array_equal(keys, np.stack(expected_keys))
    actions = np.array([-1, 0, size * size - 1, size * size, size * size + 1, size * size // 2])
    bits = bb.to_grid_np(np.asarray(_ops(size)["point_bits"](jnp.asarray(actions, jnp.int32))), size)
    expected = np.zeros((len(actions), size * size), bool)
    for k, a in enumerate(actions):
        if 0 <= a < size * size:
            expected[k, a] = True
    np.testing.assert_array_equal(bits.reshape(len(actions), -1), expected)


# --------------------------------------------------------------------------- stored


@pytest.mark.parametrize("dtype", [jnp.uint32, jnp.int32, jnp.int8, jnp.bool_])
def test_stored_returns_its_argument_under_jit_and_vmap(dtype):
    rng = np.random.default_rng(3)
    values = rng.integers(0, 2**31, size=(4, 5)).astype(np.int64)
    values[0, 0] = 0x7FFFFFFF  # the value a naive "never equal" probe would pick
    x = jnp.asarray(values if dtype != jnp.bool_ else values % 2 == 0).astype(dtype)
    np.testing.assert_array_equal(jax.jit(stored)(x), x)
    np.testing.assert_array_equal(jax.vmap(stored)(x), x)  # a batched predicate: a select
    np.testing.assert_array_equal(jax.jit(stored)(jnp.zeros((3,), dtype)), np.zeros((3,), dtype))
    np.testing.assert_array_equal(stored(x[0, 0]), x[0, 0])  # a scalar is returned as it is


def test_stored_is_a_conditional_that_xla_keeps():
    # Its purpose is to stop XLA recomputing a value in every consumer: the compiled
    # program must still hold the conditional (a folded one would be fused again).
    def consumer(words):
        counts = stored(jnp.sum(jax.lax.population_count(words), axis=0))
        return words & (counts > 3)[None].astype(jnp.uint32)

    text = jax.jit(consumer).lower(jnp.ones((12, 8), jnp.uint32)).compile().as_text()
    assert "conditional(" in text


def test_stored_refuses_floats():
    with pytest.raises(TypeError, match="integer or bool"):
        stored(jnp.ones((2,), jnp.float32))


@pytest.mark.parametrize("size", [5, 19])
def test_words_first_bitboards_match_the_engine_bitboards(size):
    # Every operation of the words-first layout (uint32[W, ...]) agrees with the words-last
    # one on each board of a batch.
    words = bb.WordsFirst
    rng = np.random.default_rng(size)
    grids = rng.random((2, 3, size, size)) < 0.4
    last = bb.from_grid_np(grids, size)  # uint32[2, 3, W]
    first = jax.numpy.asarray(np.moveaxis(last, -1, 0))  # uint32[W, 2, 3]
    last = jax.numpy.asarray(last)

    def same(got, want):
        np.testing.assert_array_equal(np.moveaxis(np.asarray(got), 0, -1), np.asarray(want))

    same(words.neighbours(first, size), bb.neighbours(last, size))
    for rows in (-1, 0, 1):
        for cols in (-1, 0, 1):
            same(words.shift(first, rows, cols, size), bb.shift(last, rows, cols, size))
    np.testing.assert_array_equal(words.count(first), grids.reshape(2, 3, -1).sum(-1))
    empty = first.at[:, 1, 2].set(0)
    np.testing.assert_array_equal(
        words.any_set(empty), np.asarray(bb.any_set(jax.numpy.moveaxis(empty, 0, -1)))
    )
    np.testing.assert_array_equal(words.union(first, 1), np.asarray(first[:, 0] | first[:, 1]))
    flat = grids.reshape(2, 3, -1)
    lowest = np.where(flat.any(-1), flat.argmax(-1), -1)
    lowest_empty = lowest.copy()
    lowest_empty[1, 2] = -1
    np.testing.assert_array_equal(words.lowest_point(empty), lowest_empty)
    np.testing.assert_array_equal(words.lowest_point(first), lowest)
    points = np.array([[-1, 0, size * size - 1], [size * size, 3, size]])
    same(words.point_bits(points, size), jax.vmap(jax.vmap(lambda p: bb.point_bits(p, size)))(points))
