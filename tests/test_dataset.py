"""Tests of gojax.dataset: SGF folders to (features, next move, result) samples, splits, batches, cache.

Expected values come from the SGF text itself (moves, colours, RE) and from
sgfmill's board (an engine no one here wrote) for the positions; the
symmetries of a batch are checked with plain NumPy rotations and flips.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import SGF_DATA, sgf_moves, sgfmill_grid

import gojax
from gojax import dataset as ds
from gojax import features
from gojax.dataset import _build as _dataset_build

sgfmill_boards = pytest.importorskip("sgfmill.boards")

SHARED = SGF_DATA
LETTERS = "abcdefghijklmnopqrstuvwxy"


def board_planes(config, state):
    """A feature function independent of the one under test: black, white, empty, black to move."""
    grid = gojax.board(config, state)
    black_to_move = jnp.full((config.size, config.size), gojax.to_play(config, state) == gojax.BLACK)
    return jnp.stack([grid == 1, grid == 2, grid == 0, black_to_move], axis=-1).astype(jnp.float32)


# Not registered (a spec can be passed as it is); not marked binary, so its planes are checked on the host.
BOARD = features.ObservationSpec("test_board_planes", board_planes, num_channels=4)


GAMES = {
    # Black wins; a capture of the white corner stone (aa) at move 3, black retakes aa at move 5.
    "a_capture.sgf": "(;GM[1]FF[4]SZ[5]KM[0]RE[B+3];B[ba];W[aa];B[ab];W[cc];B[aa];W[dd];B[];W[])",
    # White wins by resignation.
    "b_white.sgf": "(;GM[1]FF[4]SZ[5]RE[W+R];B[cc];W[bc];B[cb];W[bb];B[dc])",
    # No result: values 0.
    "c_unknown.sgf": "(;GM[1]FF[4]SZ[5];B[bb];W[dd];B[db];W[bd])",
    # Handicap stones, white moves first; a draw.
    "d_handicap.sgf": "(;GM[1]FF[4]SZ[5]HA[2]AB[bb][dd]RE[0];W[cc];B[cd];W[dc])",
    # Refused at replay: move 2 on an occupied point.
    "e_occupied.sgf": "(;GM[1]FF[4]SZ[5]RE[B+1];B[cc];W[cc];B[dd])",
    # Refused before replay: black twice.
    "f_twice.sgf": "(;GM[1]FF[4]SZ[5]RE[B+1];B[cc];B[dd])",
    # Another board size.
    "g_nine.sgf": "(;GM[1]FF[4]SZ[9]RE[B+1];B[ee];W[cc])",
    # Not SGF.
    "h_broken.sgf": "(;GM[1]FF[4]SZ[5];B[cc",
}
KEPT = ["a_capture.sgf", "b_white.sgf", "c_unknown.sgf", "d_handicap.sgf"]


def sgfmill_positions(text: str, size: int):
    """Boards (0/1/2, row 0 at the top) before each move, by sgfmill."""
    import re

    board = sgfmill_boards.Board(size)
    setup = re.search(r"AB((?:\[[a-z]{2}\])+)", text)
    if setup:
        for value in re.findall(r"\[([a-z]{2})\]", setup.group(1)):
            board.play(size - 1 - LETTERS.index(value[1]), LETTERS.index(value[0]), "b")
    positions = []
    for colour, point in sgf_moves(text):
        positions.append(sgfmill_grid(board))
        if point is not None:
            board.play(size - 1 - point[0], point[1], colour)
    return positions


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    root = tmp_path_factory.mktemp("sgf")
    (root / "sub").mkdir()
    for name, text in GAMES.items():
        (root / ("sub" if name.startswith("c") else ".") / name).write_text(text)
    return root


@pytest.fixture(scope="module")
def data(folder):
    return ds.build_dataset(folder, 5, observation=BOARD, games_per_call=4)


def test_samples_match_the_records(data):
    names = [Path(n).name for n in data.names]
    assert sorted(names) == KEPT
    assert len(data) == sum(len(sgf_moves(GAMES[n])) for n in KEPT)
    assert data.features.shape == (len(data), 5, 5, 4)
    assert data.features.dtype == np.uint8  # 0/1 planes stored compactly
    for game_id, name in enumerate(names):
        rows = np.flatnonzero(data.game_ids == game_id)
        moves = sgf_moves(GAMES[name])
        assert data.move_numbers[rows].tolist() == list(range(len(moves)))
        expected = [25 if p is None else p[0] * 5 + p[1] for _, p in moves]
        assert data.actions[rows].tolist() == expected
        winner = {"a_capture.sgf": "b", "b_white.sgf": "w"}.get(name)
        want = [0.0 if winner is None else (1.0 if c == winner else -1.0) for c, _ in moves]
        assert data.values[rows].tolist() == want, name
        # The position before each move, against sgfmill (captures included).
        for row, grid, (colour, _) in zip(rows, sgfmill_positions(GAMES[name], 5), moves, strict=True):
            planes = data.features[row]
            np.testing.assert_array_equal(planes[..., 0], grid == 1)
            np.testing.assert_array_equal(planes[..., 1], grid == 2)
            assert planes[0, 0, 3] == (colour == "b")
            assert data.legal[row, data.actions[row]]  # every real move was legal
            assert data.legal[row, 25]  # pass always legal
            # Occupied points are never legal.
            assert not data.legal[row, :25][grid.reshape(-1) != 0].any()


def test_capture_is_seen(data):
    rows = np.flatnonzero(np.array([Path(data.names[g]).name for g in data.game_ids]) == "a_capture.sgf")
    # Before move 4 (W[cc]) the white stone on aa has been captured; before move 5 black plays on aa.
    assert data.features[rows[3], 0, 0, 1] == 0 and data.features[rows[2], 0, 0, 1] == 1
    assert data.legal[rows[4], 0] and data.actions[rows[4]] == 0


def test_skips_are_listed_with_reasons(data):
    reasons = {Path(name).name: reason for name, reason in data.skipped}
    assert set(reasons) == {"e_occupied.sgf", "f_twice.sgf", "g_nine.sgf", "h_broken.sgf"}
    assert "move 2" in reasons["e_occupied.sgf"] and "occupied" in reasons["e_occupied.sgf"]
    assert "move 2" in reasons["f_twice.sgf"] and "twice" in reasons["f_twice.sgf"]
    assert reasons["g_nine.sgf"].startswith("board 9x9")
    assert reasons["h_broken.sgf"].startswith("unreadable")
    assert "skipped=4: 1 other size, 3 refused or unreadable" in repr(data)


def test_split_is_by_game_and_seeded(data):
    train, held = data.split(held_out=0.25, seed=3)
    assert set(np.unique(train.game_ids)).isdisjoint(np.unique(held.game_ids))
    assert held.num_games == 1 and train.num_games == 3
    assert len(train) + len(held) == len(data)
    again, _ = data.split(held_out=0.25, seed=3)
    np.testing.assert_array_equal(again.game_ids, train.game_ids)
    held_sets = {tuple(np.unique(data.split(0.25, seed=s)[1].game_ids)) for s in range(12)}
    assert len(held_sets) > 1  # the seed matters
    with pytest.raises(ValueError, match="held_out"):
        data.split(held_out=1.0)
    with pytest.raises(ValueError, match="cannot split"):
        held.split(0.5)


NUMPY_SYMMETRIES = [
    lambda x: x,
    lambda x: np.rot90(x, 1, axes=(0, 1)),
    lambda x: np.rot90(x, 2, axes=(0, 1)),
    lambda x: np.rot90(x, 3, axes=(0, 1)),
    lambda x: x[:, ::-1],
    lambda x: x[::-1],
    lambda x: np.swapaxes(x, 0, 1),
    lambda x: np.swapaxes(x[::-1, ::-1], 0, 1),
]


def test_batches_shuffle_augment_and_cover(data):
    seen = []
    changed = 0
    for batch in ds.batches(data, 5, seed=1, augment=True):
        assert batch.planes.dtype == jnp.float32 and batch.planes.shape[1:] == (5, 5, 4)
        for i, index in enumerate(np.asarray(batch.indices)):
            seen.append(int(index))
            original = data.features[index].astype(np.float32)
            moved = np.asarray(batch.planes[i])
            # Which NumPy symmetries give the planes we got (several can, for a symmetric position).
            matches = [k for k, f in enumerate(NUMPY_SYMMETRIES) if np.array_equal(f(original), moved)]
            assert int(batch.symmetries[i]) in matches
            action = int(data.actions[index])
            got = int(batch.actions[i])
            if action == 25:
                assert got == 25
            else:  # the move went where the planes went
                one_hot = np.zeros((5, 5))
                one_hot[divmod(action, 5)] = 1
                k = int(batch.symmetries[i])
                assert NUMPY_SYMMETRIES[k](one_hot)[divmod(got, 5)] == 1
                legal = data.legal[index, :25].reshape(5, 5)
                np.testing.assert_array_equal(
                    np.asarray(batch.legal[i, :25]).reshape(5, 5), NUMPY_SYMMETRIES[k](legal)
                )
                changed += k != 0
            assert bool(batch.legal[i, got]) and bool(batch.legal[i, 25])
            assert float(batch.values[i]) == data.values[index]
    assert sorted(seen) == list(range(len(data)))  # one epoch: every sample once
    assert seen != list(range(len(data)))  # shuffled
    assert changed > 0
    first = [np.asarray(b.indices).tolist() for b in ds.batches(data, 5, seed=1)]
    again = [np.asarray(b.indices).tolist() for b in ds.batches(data, 5, seed=1)]
    other = [np.asarray(b.indices).tolist() for b in ds.batches(data, 5, seed=2)]
    assert first == again and first != other
    plain = next(ds.batches(data, 4, shuffle=False, augment=False))
    assert np.asarray(plain.indices).tolist() == [0, 1, 2, 3]
    np.testing.assert_array_equal(np.asarray(plain.planes), data.features[:4])
    dropped = list(ds.batches(data, 7, drop_remainder=True, epochs=2))
    assert len(dropped) == 2 * (len(data) // 7) and all(b.actions.shape == (7,) for b in dropped)


def test_cache_round_trip_and_reuse(folder, tmp_path, monkeypatch, data):
    cache = tmp_path / "cache" / "data.npz"
    built = ds.build_dataset(folder, 5, observation=BOARD, games_per_call=4, cache=cache)
    assert cache.is_file()
    assert [p.name for p in cache.parent.iterdir()] == ["data.npz"]  # no temporary file left
    loaded = ds.MoveDataset.load(cache)
    for field in ("features", "actions", "values", "legal", "game_ids", "move_numbers"):
        np.testing.assert_array_equal(getattr(loaded, field), getattr(built, field))
    assert loaded.names == built.names and loaded.skipped == built.skipped
    assert loaded.observe_name == built.observe_name == "test_board_planes"

    def no_replay(*args, **kwargs):
        raise AssertionError("replayed although the cache holds this dataset")

    monkeypatch.setattr(_dataset_build, "_replay_all", no_replay)
    again = ds.build_dataset(folder, 5, observation=BOARD, games_per_call=4, cache=cache)
    np.testing.assert_array_equal(again.actions, built.actions)
    with pytest.raises(AssertionError, match="replayed"):  # other rules: not the cached dataset
        ds.build_dataset(folder, 5, observation=BOARD, games_per_call=4, cache=cache, ko_rule="simple")
    renamed = features.ObservationSpec("test_board_planes_2", board_planes, num_channels=4)
    with pytest.raises(AssertionError, match="replayed"):  # another observation name: not it either
        ds.build_dataset(folder, 5, observation=renamed, games_per_call=4, cache=cache)


def test_atomic_save_keeps_the_old_file_on_failure(data, tmp_path, monkeypatch):
    path = tmp_path / "d.npz"
    path.write_bytes(b"old")

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        data.save(path)
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["d.npz"]


def test_bad_input(tmp_path, folder, data):
    (tmp_path / "empty").mkdir()
    with pytest.raises(ValueError, match=r"no \.sgf files"):
        ds.build_dataset(tmp_path / "empty")
    with pytest.raises(ValueError, match="no such file"):
        ds.build_dataset(tmp_path / "missing")
    with pytest.raises(ValueError, match="empty"):
        ds.build_dataset([])
    with pytest.raises(ValueError, match=r"no 7x7 games .*5x5: 6, 9x9: 1"):
        ds.build_dataset(folder, 7, observation=BOARD)
    with pytest.raises(ValueError, match="board_size"):
        ds.build_dataset(folder, 30)
    with pytest.raises(ValueError, match="games_per_call"):
        ds.build_dataset(folder, 5, games_per_call=0)
    with pytest.raises(ValueError, match=r"unknown observation 'nope'.*basic"):
        ds.build_dataset(folder, 5, observation="nope")
    only_broken = tmp_path / "broken"
    only_broken.mkdir()
    (only_broken / "x.sgf").write_text(GAMES["h_broken.sgf"])
    with pytest.raises(ValueError, match="no readable games"):
        ds.build_dataset(only_broken)
    refused = tmp_path / "refused"
    refused.mkdir()
    (refused / "x.sgf").write_text(GAMES["f_twice.sgf"])
    with pytest.raises(ValueError, match="twice"):
        ds.build_dataset(refused, observation=BOARD)
    (tmp_path / "junk.npz").write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="not a gojax dataset"):
        ds.MoveDataset.load(tmp_path / "junk.npz")
    with pytest.raises(ValueError, match="batch_size"):
        next(ds.batches(data, 0))
    with pytest.raises(ValueError, match="epochs"):
        next(ds.batches(data, 4, epochs=0))


def test_records_and_single_files_are_accepted(folder):
    record = gojax.sgf.parse_sgf(GAMES["b_white.sgf"], name="given")
    data = ds.build_dataset([record, folder / "a_capture.sgf"], observation=BOARD, games_per_call=4)
    assert sorted(Path(n).name for n in data.names) == ["a_capture.sgf", "given"]
    assert len(data) == 5 + 8


@pytest.mark.skipif(not (SHARED / "manifest.json").is_file(), reason="../shared/data/sgf not present")
def test_shared_nine_by_nine_games_with_the_default_observation():
    """The real 9x9 games: every move a sample, the other sizes skipped, the default planes."""
    manifest = json.loads((SHARED / "manifest.json").read_text())
    nine = [entry for entry in manifest if entry["size"] == 9]
    others = [entry for entry in manifest if entry["size"] != 9][:3]
    data = ds.build_dataset([SHARED / entry["file"] for entry in nine + others], 9)
    assert data.num_games == len(nine)
    assert len(data) == sum(entry["moves"] for entry in nine)
    assert sum(reason.startswith("board ") for _, reason in data.skipped) == len(others) == 3
    assert data.legal[np.arange(len(data)), data.actions].all()
    assert data.observe_name == "basic" and data.num_channels == features.BASIC_NUM_CHANNELS == 15


def _gojax_positions(record):
    """States before each move of ``record``, by gojax's own replay."""
    states = record.states_along()
    return [jax.tree.map(lambda leaf, t=t: leaf[t], states) for t in range(len(record.moves))]


def test_basic_observation_is_the_default_and_has_15_planes(folder):
    """The default is the registry's "basic" (no dependence on what is installed): 15 planes."""
    data = ds.build_dataset(folder, 5, games_per_call=4)
    assert data.observe_name == "basic" and data.num_channels == 15 == features.BASIC_NUM_CHANNELS
    assert data.features.dtype == np.uint8
    channels = features.BASIC_CHANNELS
    observe = jax.jit(features.observation("basic").observe, static_argnums=0)
    for game_id, name in enumerate(data.names):
        record = gojax.sgf.read_sgf(name)
        rows = np.flatnonzero(data.game_ids == game_id)
        for row, grid, (colour, _), state in zip(
            rows,
            sgfmill_positions(GAMES[Path(name).name], 5),
            sgf_moves(GAMES[Path(name).name]),
            _gojax_positions(record),
            strict=True,
        ):
            planes = data.features[row]
            mover, other = (1, 2) if colour == "b" else (2, 1)
            np.testing.assert_array_equal(planes[..., channels.mover], grid == mover)
            np.testing.assert_array_equal(planes[..., channels.opponent], grid == other)
            assert (planes[..., channels.black_to_move] == (colour == "b")).all()
            np.testing.assert_array_equal(planes, np.asarray(observe(gojax.GoConfig(size=5), state)))


def test_history_observation_replays_the_board_history(folder):
    """ "alphago_zero" reads the boards of earlier moves: the dataset carries the history in its scan."""
    data = ds.build_dataset(folder, 5, observation="alphago_zero", games_per_call=4)
    assert data.observe_name == "alphago_zero" and data.num_channels == features.AGZ_NUM_CHANNELS
    own, opponent = features.AGZ_CHANNELS.own, features.AGZ_CHANNELS.opponent
    checked = 0
    for game_id, name in enumerate(data.names):
        text = GAMES[Path(name).name]
        grids, moves = sgfmill_positions(text, 5), sgf_moves(text)
        for t, row in enumerate(np.flatnonzero(data.game_ids == game_id)):
            planes = data.features[row]
            mover = 1 if moves[t][0] == "b" else 2
            for ago in range(features.HISTORY_LENGTH):
                if t - ago < 0:  # before the record's start: an empty board
                    assert not planes[..., own][..., ago].any() and not planes[..., opponent][..., ago].any()
                    continue
                grid = grids[t - ago]
                np.testing.assert_array_equal(planes[..., own][..., ago], grid == mover, f"{name} {t} {ago}")
                np.testing.assert_array_equal(planes[..., opponent][..., ago], grid == 3 - mover)
                checked += ago > 0
    assert checked > 20


def test_katago_observation_keeps_its_global_features(folder, tmp_path):
    """The registry's (planes, globals) preset: both stored per position, as the preset gives them."""
    data = ds.build_dataset(folder, 5, observation="katago", games_per_call=4)
    config = gojax.GoConfig(size=5)
    spec = features.observation("katago")
    observe = jax.jit(lambda state, hist: spec(config, state, hist))
    advance = jax.jit(
        lambda state, hist, action: (lambda s: (s, features.history_push(config, hist, s)))(
            gojax.step(config, state, action)
        )
    )
    assert data.globals is not None and data.globals.dtype == np.float32
    assert data.globals.shape[0] == len(data) and data.features.shape[0] == len(data)
    checked = 0
    for game_id, name in enumerate(data.names):  # one position at a time, without the builder's scan
        record = gojax.sgf.read_sgf(name)
        state = _gojax_positions(record)[0]
        hist = features.history_init(config, state)
        for row, (_, action) in zip(np.flatnonzero(data.game_ids == game_id), record.moves, strict=True):
            planes, extra = observe(state, hist)
            np.testing.assert_array_equal(data.features[row], np.asarray(planes), f"{name} {row}")
            np.testing.assert_allclose(data.globals[row], np.asarray(extra), err_msg=f"{name} {row}")
            state, hist = advance(state, hist, action)
            checked += 1
    assert checked == len(data) and np.unique(data.globals, axis=0).shape[0] > 1
    again = ds.MoveDataset.load(data.save(tmp_path / "katago.npz"))
    np.testing.assert_array_equal(again.globals, data.globals)
    assert "globals=" in repr(again)
    train, held = data.split(held_out=0.5, seed=1)
    for part in (train, held):
        rows = np.flatnonzero(np.isin(data.game_ids, np.unique(part.game_ids)))
        np.testing.assert_array_equal(part.globals, data.globals[rows])
    # Shuffled batches: each sample's globals travel with it, as its planes do.
    taken, shuffled = [], 0
    for batch in ds.batches(data, 5, seed=2, augment=False):
        rows = np.asarray(batch.indices)
        np.testing.assert_array_equal(np.asarray(batch.planes), data.features[rows].astype(np.float32))
        np.testing.assert_array_equal(np.asarray(batch.globals), data.globals[rows])
        shuffled += not np.array_equal(rows, np.arange(len(taken), len(taken) + rows.size))
        taken += rows.tolist()
    assert sorted(taken) == list(range(len(data))) and shuffled > 0
    plain = ds.build_dataset(folder, 5, observation=BOARD, games_per_call=4)
    assert plain.globals is None and ds.MoveDataset.load(plain.save(tmp_path / "b.npz")).globals is None
    assert next(ds.batches(plain, 4)).globals is None


def test_basic_observation_needs_no_flax(tmp_path):
    """With flax (and so gojax.alphazero) unimportable, "basic" is still the same 15 planes."""
    import subprocess
    import sys

    script = (
        "import sys\n"
        "sys.modules['flax'] = None\n"
        "sys.modules['gojax.alphazero'] = None\n"
        "import gojax, gojax.dataset as ds\n"
        f"record = gojax.sgf.parse_sgf({GAMES['b_white.sgf']!r}, name='g')\n"
        "data = ds.build_dataset([record], games_per_call=1)\n"
        "print(data.observe_name, data.num_channels, sys.modules.get('flax') is not None)\n"
    )
    root = Path(__file__).resolve().parents[1]
    command = [sys.executable, "-c", script]
    done = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split() == ["basic", "15", "False"]
