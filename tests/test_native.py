"""The native CPU kernels (``gojax/_native``) against the XLA code of the features.

On the CPU the AlphaGo and KataGo planes and the ladder planes read their
tables off C kernels (:mod:`gojax.features._native_calls`); the XLA code is
the reference (and what accelerators run). Every test here computes the same
thing both ways, position by position, on whole-game random positions of
every size, on real games, and on ladder reads of every kind with random
starting moves, and checks that the positions really hold what is compared
(ladders won and lost, kos, captures, pass-alive groups). The other test
files read the ladders and Benson's analysis on the XLA path; two hand-made
ladders of ``test_features_ladders.py`` (an atari that takes a ko, KataGo's
whole-board ladder) run on both paths (the ``kernel_path`` fixture).
"""

from __future__ import annotations

import functools
import os
import threading

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import (
    CI,
    native_built,
    native_kernels,
    random_game,
    sgf_positions,
    stack_states,
    whole_game_batch,
)

import gojax
from gojax import _native, features
from gojax._core import types as gojax_types
from gojax.features import _alphago, _benson
from gojax.features.ladders import _katago as _katago_ladders
from gojax.features.ladders import _pool as _ladder_pool
from gojax.features.ladders import _read as _ladder_read

SIZES = {5: 256, 9: 256}  # size -> whole-game positions compared (19x19: with the real games)


@pytest.fixture(autouse=True)
def _built():
    if not native_built():
        pytest.skip("the native kernels are not built")


def test_the_kernels_are_built_and_used():
    # Under CI a missing build would silently leave every comparison here skipped.
    if CI:
        assert native_built(), "gojax/_native/_kernels*.so is missing: the package was built without C"
    with native_kernels(True):
        assert _native.available()
    with native_kernels(False):
        assert not _native.available()


def _tables(config, games):
    """``(native int32[B, 7, P] with the ladder rows masked by legality, XLA's)``."""
    game = games._game
    native = _native.alphago_tables(
        config.size,
        np.asarray(game.stones),
        np.asarray(game.turn, np.int32),
        np.asarray(game.ko_point, np.int32),
    ).astype(np.int32)

    def xla(state):
        legal = features.legal_plane(config, state)
        return _alphago._xla_tables(config, state, legal), legal.reshape(-1)

    reference, legal = (np.asarray(x) for x in jax.jit(jax.vmap(xla))(game))
    native[:, 4:6] &= legal[:, None]
    return native, reference


@pytest.mark.parametrize("size", list(SIZES))
def test_alphago_tables_match_xla_on_whole_games(size):
    config = gojax.GoConfig(size=size)
    games = whole_game_batch(config, SIZES[size], seed=size)
    games = games.replace(_game=_with_ko_points(config, games._game, np.random.default_rng(size)))
    native, reference = _tables(config, games)
    for row, name in enumerate(_native.ALPHAGO_TABLES):
        bad = np.flatnonzero((native[:, row] != reference[:, row]).any(axis=-1))
        assert bad.size == 0, f"{name}: boards {bad[:5]} differ"
    # What was compared: ladders won and escaped, captures, kos.
    assert reference[:, 4].sum() > 0 and reference[:, 5].sum() > 0
    assert reference[:, 1].sum() > 0 and reference[:, 6].sum() > 0  # captures, eyes


def _with_ko_points(config, game, rng):
    """Half the games with a ko point on a random empty point (few snapshots hold a real one):
    the reads that start with a move there must be refused on both paths."""
    grids = np.asarray(jax.vmap(lambda s: gojax.board(config, s))(game)).reshape(game.turn.shape[0], -1)
    ko = np.asarray(game.ko_point).copy()
    for b, grid in enumerate(grids):
        empty = np.flatnonzero(grid == 0)
        if b % 2 and empty.size:
            ko[b] = rng.choice(empty)
    assert (ko >= 0).sum() >= grids.shape[0] // 3
    return game.replace(ko_point=jnp.asarray(ko, game.ko_point.dtype))


def test_alphago_tables_match_xla_on_real_and_whole_games():
    # 19x19: positions of real games, and of random whole games (half with a ko point).
    config = gojax.GoConfig(size=19, ko_rule="simple")
    real = stack_states(gojax.from_board(config, grid, mover) for grid, mover in sgf_positions(96, seed=3))
    random = whole_game_batch(config, 64, seed=19)._game
    random = _with_ko_points(config, random, np.random.default_rng(19))
    states = jax.tree.map(lambda a, b: np.concatenate([np.asarray(a), np.asarray(b)]), real, random)

    class Games:  # what _tables reads
        _game = states

    native, reference = _tables(config, Games)
    np.testing.assert_array_equal(native, reference)
    assert reference[:, 4].sum() + reference[:, 5].sum() > 0


@pytest.mark.parametrize("size", [9])
def test_presets_match_xla(size):
    # KataGo's planes and the ladder planes; AlphaGo's: test_alphago_planes_written_by_the_kernel_match_xla.
    config = gojax.GoConfig(size=size)
    games = whole_game_batch(config, 64, seed=100 + size)

    def presets(game, history):
        spatial, globals_ = features.katago_planes(config, game, history, dtype=jnp.bool_)
        capture = features.ladder_capture_plane(config, game)
        escape = features.ladder_escape_plane(config, game)
        return spatial, globals_, capture, escape

    results = []
    for enabled in (True, False):
        with native_kernels(enabled):
            outputs = jax.jit(jax.vmap(presets))(games._game, games._history)
            results.append([np.asarray(x) for x in outputs])
    for name, a, b in zip(["katago", "globals", "capture", "escape"], *results, strict=True):
        np.testing.assert_array_equal(a, b, err_msg=name)
    assert results[0][2].any()  # ladders on the board


@pytest.mark.parametrize(("size", "games"), [(5, 128), (19, 24)])
def test_alphago_planes_written_by_the_kernel_match_xla(size, games):
    # On the CPU the kernel writes AlphaGo's whole planes (turns since from the history,
    # the move planes masked by the legal moves, superko included); compared with the XLA
    # planes for the policy (48) and the value network (49), as bool and float32.
    config = gojax.GoConfig(size=size)
    batch = whole_game_batch(config, games, seed=200 + size)

    def planes(game, history):
        policy = features.alphago_planes(config, game, history, dtype=jnp.bool_)
        value = features.alphago_planes(config, game, history, player_colour=True)
        return policy, value

    results = []
    for enabled in (True, False):
        with native_kernels(enabled):
            results.append([np.asarray(x) for x in jax.jit(jax.vmap(planes))(batch._game, batch._history)])
    (policy, value), (policy_xla, value_xla) = results
    assert policy.dtype == np.bool_ and value.dtype == np.float32
    np.testing.assert_array_equal(policy, policy_xla)
    np.testing.assert_array_equal(value, value_xla)
    channels = features.ALPHAGO_CHANNELS
    # The positions hold what is compared: stones of every age, captures, self-ataris, both colours to move.
    assert policy[..., channels.turns_since].any(axis=(0, 1, 2)).all()
    assert policy[..., channels.capture_size].any() and policy[..., channels.self_atari_size].any()
    assert 0 < value[..., channels.player_colour].mean() < 1


@pytest.mark.parametrize(("size", "games"), [(2, 64), (5, 128), (9, 64), (19, 32), (25, 8)])
def test_alphago_zero_planes_written_by_the_kernel_match_xla(size, games):
    # The 17 planes with both colour planes (the paper's and pgx's), as bool and float32, on
    # whole-game positions; then on states whose turn is neither 0 nor 1 (white's planes on
    # both paths) and whose history's entry 0 differs from the position (never read).
    config = gojax.GoConfig(size=size)
    batch = whole_game_batch(config, games, seed=300 + size)
    turn = np.asarray(batch._game.turn).copy()
    turn[::3] = 2 + np.arange(turn[::3].size) % 3
    odd = batch._game.replace(turn=jnp.asarray(turn, batch._game.turn.dtype))
    history = batch._history.replace(stones=batch._history.stones.at[:, 0].set(0xFFFFFFFF))

    def planes(game, history):
        paper = features.alphago_zero_planes(config, game, history, dtype=jnp.bool_)
        pgx = features.alphago_zero_planes(config, game, history, colour_plane="white")
        return paper, pgx

    compared = []
    for game, past in ((batch._game, batch._history), (odd, history)):
        results = []
        for enabled in (True, False):
            with native_kernels(enabled):
                results.append([np.asarray(x) for x in jax.jit(jax.vmap(planes))(game, past)])
        (paper, pgx), (paper_xla, pgx_xla) = results
        assert paper.dtype == np.bool_ and pgx.dtype == np.float32
        np.testing.assert_array_equal(paper, paper_xla)
        np.testing.assert_array_equal(pgx, pgx_xla)
        compared.append((paper, pgx))
    # What was compared: stones of every age for both sides (a 2x2 board rarely keeps its stones
    # for 8 moves), both colours to move.
    paper, pgx = compared[0]
    assert paper[..., :16].any(axis=(0, 1, 2)).all() or size == 2
    assert 0 < paper[..., 16].mean() < 1 and 0 < pgx[..., 16].mean() < 1


def test_alphago_planes_bad_input():
    stones = np.zeros((2, 2, 3), np.uint32)
    turn, ko = np.zeros(2, np.int32), np.full(2, -1, np.int32)
    standing, legal = np.zeros((2, 8, 3), np.uint32), np.ones((2, 81), bool)
    with pytest.raises(ValueError, match="channels must be 48 or 49, got 50"):
        _native.alphago_planes(9, stones, turn, ko, standing, legal, 50)
    with pytest.raises(ValueError, match=r"standing must have shape \(2, 8, 3\)"):
        _native.alphago_planes(9, stones, turn, ko, standing[:, :7], legal, 48)
    assert _native.alphago_planes(9, stones, turn, ko, standing, legal, 48).shape == (2, 81, 48)


@pytest.mark.parametrize(("size", "games"), [(5, 512), (9, 128), (19, 32)])
def test_ladder_reads_of_every_kind_match_xla(size, games):
    # Every stone of a board is the prey of one read: a random kind, a random attacker, and
    # (capture reads) a first move on one of the chain's liberties or anywhere at random.
    config = gojax.GoConfig(size=size)
    game = whole_game_batch(config, games, seed=200 + size)._game
    rng = np.random.default_rng(size)
    batch, points = game.turn.shape[0], config.num_points
    modes = rng.integers(0, len(_ladder_read.MODES), (batch, points)).astype(np.int32)
    mover_attacks = rng.random((batch, points)) < 0.5
    grids = np.asarray(jax.vmap(lambda s: gojax.board(config, s))(game)).reshape(batch, points)
    moves = np.where(
        rng.random((batch, points)) < 0.8,
        _some_liberties(config, grids, rng),
        rng.integers(-1, points, (batch, points)),
    )
    # Half the games with a ko point: a first move there (a tenth of their reads) is refused
    # when the side to move makes it.
    game = _with_ko_points(config, game, rng)
    ko = np.asarray(game.ko_point)[:, None]
    moves = np.where((ko >= 0) & (rng.random((batch, points)) < 0.1), ko, moves)
    mover_colour = (np.asarray(game.turn) + 1)[:, None]  # 1 black, 2 white
    active = grids == np.where(mover_attacks, 3 - mover_colour, mover_colour)

    def reads(state, mode, attacks, move, active):
        prey = jnp.arange(points, dtype=jnp.int32)
        return _ladder_pool.pooled_reads(
            size, mode, state.stones, state.atari, state.turn, state.ko_point, attacks, move, prey, active
        )

    args = (
        game,
        jnp.asarray(modes),
        jnp.asarray(mover_attacks),
        jnp.asarray(moves, jnp.int32),
        jnp.asarray(active),
    )
    results = []
    for enabled in (True, False):
        with native_kernels(enabled):
            results.append(np.asarray(jax.jit(jax.vmap(reads))(*args)))
    np.testing.assert_array_equal(results[0], results[1])
    captured = results[1]
    for code in range(len(_ladder_read.MODES)):  # each kind both captures and lets escape
        kind = active & (modes == code)
        assert captured[kind].any() and not captured[kind].all(), _ladder_read.MODES[code]


def _some_liberties(config, grids, rng):
    """``int32[B, P]``: for each stone a random liberty of its chain (-1 without one)."""
    size, points = config.size, config.num_points
    out = np.full(grids.shape, -1, np.int32)
    for b, grid in enumerate(grids):
        labels = np.full(points, -1)
        for p in range(points):
            if grid[p] == 0 or labels[p] >= 0:
                continue
            stones, liberties = _flood(grid, p, size)
            for s in stones:
                labels[s] = p
                out[b, s] = rng.choice(sorted(liberties)) if liberties else -1
    return out


def _flood(grid, start, size):
    stones, liberties, todo = {start}, set(), [start]
    while todo:
        p = todo.pop()
        r, c = divmod(p, size)
        for q, ok in ((p - size, r > 0), (p + size, r < size - 1), (p - 1, c > 0), (p + 1, c < size - 1)):
            if not ok:
                continue
            if grid[q] == 0:
                liberties.add(q)
            elif grid[q] == grid[start] and q not in stones:
                stones.add(q)
                todo.append(q)
    return stones, liberties


@pytest.mark.parametrize("size", [19])  # 9x9: test_presets_match_xla
def test_katago_tables_match_xla_and_history_boards_read_less(size):
    config = gojax.GoConfig(size=size)
    game = whole_game_batch(config, 64, seed=300 + size)._game
    game = _with_ko_points(config, game, np.random.default_rng(300 + size))
    args = (np.asarray(game.stones), np.asarray(game.turn, np.int32), np.asarray(game.ko_point, np.int32))
    batch = args[1].shape[0]
    full = _native.katago_tables(size, *args)
    history = _native.katago_tables(size, *args, ladder_moves=np.zeros(batch, bool))
    points = config.num_points

    def xla(state):
        stones, moves, liberties, not_suicide = _katago_ladders.board_tables(config, state)
        return jnp.stack([stones, moves, liberties, not_suicide]).reshape(4, points).astype(jnp.int32)

    with native_kernels(False):
        reference = np.asarray(jax.jit(jax.vmap(xla))(game))
    np.testing.assert_array_equal(full, reference)
    # A history board: the same ladderable stones, liberties and suicides, no ladder moves.
    names = _native.KATAGO_TABLES
    moves = names.index("ladder_moves")
    for row, name in enumerate(names):
        want = np.zeros_like(reference[:, row]) if row == moves else reference[:, row]
        np.testing.assert_array_equal(history[:, row], want, err_msg=name)
    assert reference[:, moves].any() and reference[:, names.index("ladderable")].any()


def _eyes_kept_boards(config, games, seed):
    """Stones of random games in which no player fills its own eye (``uint32[B, 2, W]``): at move 40
    and at the end, so the batch holds pass-alive groups, the regions around them and seki."""
    rng, states = np.random.default_rng(seed), []
    for _ in range(games):
        game, _ = random_game(config, rng, fill_own_eyes=False)
        states += [game[min(40, len(game) - 1)], game[-1]]
    return stack_states(states).stones


@pytest.mark.parametrize("suicide", [False, True])
@pytest.mark.parametrize(("size", "games"), [(9, 6), (19, 1)])
def test_benson_tables_match_xla(size, games, suicide):
    config = gojax.GoConfig(size=size, ko_rule="simple", suicide=suicide)
    stones = _eyes_kept_boards(config, games, seed=size)
    native = _native.benson_tables(size, np.asarray(stones), suicide).astype(bool)
    state = stack_states([gojax.init(config)] * stones.shape[0]).replace(stones=stones)
    with native_kernels(False):
        marks = jax.jit(jax.vmap(functools.partial(_benson._both_colours, config)))(state)
    reference = np.stack([np.asarray(m) for m in marks], axis=2)  # [B, 2, 4, P], BENSON_MARKS' order
    assert _benson._Marks._fields == _native.BENSON_MARKS
    for row, name in enumerate(_native.BENSON_MARKS):
        bad = np.flatnonzero((native[:, :, row] != reference[:, :, row]).any(axis=(1, 2)))
        assert bad.size == 0, f"{name}: boards {bad[:5]} differ"
    # What was compared: pass-alive stones, small and big regions, of both colours.
    for row in range(len(_native.BENSON_MARKS)):
        assert reference[:, 0, row].any() and reference[:, 1, row].any(), _native.BENSON_MARKS[row]


# Black's chain has two one-point eyes (top row, right) and encloses two more regions: the top-left
# corner of six points, two of which touch no black stone, and the rest of the board.
BENSON_REGIONS = """
. . . X . X .
. . . X X X X
X X X X . . .
. . . . . . .
. . . . . . .
. . . . . . .
. . . . . . .
"""


@pytest.mark.parametrize("suicide", [False, True])
def test_benson_tables_match_xla_on_regions_with_interior_points(suicide):
    # A region counts as small with at most one point that touches none of the enclosing chains:
    # the corner here has two (random positions rarely hold exactly two).
    config = gojax.GoConfig(size=7, ko_rule="simple", suicide=suicide)
    black = gojax.from_ascii(config, BENSON_REGIONS)
    white = gojax.from_ascii(config, BENSON_REGIONS.replace("X", "O"))
    state = stack_states([black, white])
    native = _native.benson_tables(7, np.asarray(state.stones), suicide).astype(bool)
    with native_kernels(False):
        marks = jax.jit(jax.vmap(functools.partial(_benson._both_colours, config)))(state)
    reference = np.stack([np.asarray(m) for m in marks], axis=2)
    np.testing.assert_array_equal(native, reference)
    alive = _native.BENSON_MARKS.index("alive")
    assert reference[0, 0, alive].any() and reference[1, 1, alive].any()  # the chain is pass-alive


def test_the_native_package_imports_numpy_and_the_standard_library_only():
    # It sits at the bottom layer beside _core, its host functions callable with no JAX: JAX is
    # imported by register() alone, when the FFI handlers are registered.
    import ast
    import sys
    from pathlib import Path

    tree = ast.parse(Path(_native.__file__).read_text())

    def tops(nodes):
        names = {a.name for n in nodes if isinstance(n, ast.Import) for a in n.names}
        names |= {n.module for n in nodes if isinstance(n, ast.ImportFrom) and n.module}
        return {name.split(".")[0] for name in names} - set(sys.stdlib_module_names) - {"__future__"}

    assert tops(tree.body) == {"numpy"}
    (register,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == "register"]
    assert tops(ast.walk(register)) == {"jax"}
    assert tops(ast.walk(tree)) == {"numpy", "jax"}


def test_disabled_turns_the_native_path_off_on_its_thread():
    with native_kernels(True):
        assert _native.available()
        with _native.disabled():
            with _native.disabled():
                assert not _native.available()
            assert not _native.available()
            elsewhere = []
            thread = threading.Thread(target=lambda: elsewhere.append(_native.available()))
            thread.start()
            thread.join()
            assert elsewhere == [True]
        assert _native.available()


def test_accelerators_lower_the_xla_code_with_the_kernels_present():
    # lax.platform_dependent: lowered for a GPU or TPU, the planes hold none of the kernels'
    # custom calls; lowered for the CPU, they hold them and no host callback.
    config = gojax.GoConfig(size=5)
    state = gojax.init(config)
    history = features.history_init(config, state)

    def planes(state, history):
        alphago = features.alphago_planes(config, state, history, dtype=jnp.bool_)
        return alphago, features.katago_planes(config, state, history), features.pass_alive(config, state)

    with native_kernels(True):
        for platform in ("cuda", "tpu"):
            exported = jax.export.export(jax.jit(planes), platforms=[platform])(state, history)
            text = exported.mlir_module()
            assert "gojax_ffi" not in text and "callback" not in text.lower(), platform
        text = jax.jit(planes).lower(state, history).as_text()
    for target in ("gojax_ffi_alphago_planes", "gojax_ffi_katago_tables", "gojax_ffi_benson_tables"):
        assert f"@{target}" in text, target
    assert "callback" not in text.lower()


def test_the_gtp_judgement_runs_the_kernels():
    # Since a custom call can be stored on disk, the GTP engine's dead-stone judgement traces
    # Benson's analysis on the kernel too (its executable is stored: test_native_ffi.py).
    from gojax.gtp import _status

    config = gojax.GoConfig(size=9, ko_rule="simple")
    starts = stack_states([gojax.init(config), gojax.init(config)])
    with native_kernels(True):
        judged = jax.jit(functools.partial(_status.ownership, config, playouts=2))
        text = judged.lower(starts, jax.random.key(0)).as_text()
    assert "@gojax_ffi_benson_tables" in text and "callback" not in text.lower()


def test_a_library_of_another_version_is_not_loaded(monkeypatch):
    monkeypatch.setattr(_native, "ABI", _native.ABI + 1)
    _native._library.cache_clear()
    try:
        with native_kernels(True), pytest.warns(RuntimeWarning, match="another version of their C sources"):
            assert not _native.available()
    finally:
        monkeypatch.undo()
        _native._library.cache_clear()
    with native_kernels(True):
        assert _native.available()


def test_the_largest_board_is_the_rules_largest():
    assert _native.MAX_SIZE == gojax_types.MAX_SIZE


def test_bad_input():
    stones = np.zeros((1, 2, 20), np.uint32)
    with pytest.raises(ValueError, match="ladder_moves"):
        _native.katago_tables(9, np.zeros((2, 2, 3), np.uint32), np.zeros(2), np.zeros(2), np.ones(3))
    with pytest.raises(ValueError, match="26"):
        _native.alphago_tables(26, stones, np.zeros(1, np.int32), np.full(1, -1, np.int32))
    with native_kernels(True):
        os.environ["GOJAX_NATIVE"] = "yes"
        with pytest.raises(ValueError, match="'yes'"):
            _native.available()
