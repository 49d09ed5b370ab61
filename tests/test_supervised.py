"""``experiments/supervised.py --save``: the trained network as a checkpoint (``gojax-gtp --checkpoint``)."""

from __future__ import annotations

import csv
import shutil
import sys

import pytest
from conftest import SGF_DATA, TEST_EXTRA, experiment_module


def test_save_writes_the_trained_network(tmp_path, monkeypatch):
    """The checkpoint holds the network the run evaluated last: loaded back, it scores the run's held-out
    accuracy on the same held-out games (a fresh network would not), with the board size and observation
    the GTP engine reads."""
    pytest.importorskip("orbax.checkpoint", reason=TEST_EXTRA)
    games = sorted(SGF_DATA.glob("*9x9*.sgf"))
    if len(games) < 4:
        pytest.skip(f"9x9 game records not found at {SGF_DATA}")
    from gojax import alphazero as az
    from gojax import dataset as ds

    data_dir = tmp_path / "sgf"
    data_dir.mkdir()
    for path in games:
        shutil.copy(path, data_dir)
    cache, out, save = tmp_path / "cache.npz", tmp_path / "out", tmp_path / "network"
    argv = ["supervised.py", "--data", str(data_dir), "--board-size", "9", "--blocks", "1", "--channels", "8"]
    argv += ["--batch-size", "16", "--max-steps", "12", "--eval-every", "6", "--held-out", "0.4"]
    argv += [
        "--cache",
        str(cache),
        "--out",
        str(out),
        "--save",
        str(save),
        "--csv",
        str(tmp_path / "runs.csv"),
    ]
    monkeypatch.setattr(sys, "argv", argv)
    supervised = experiment_module("supervised")
    supervised.main()

    net, config, meta = az.load_checkpoint(save)
    assert (meta["board_size"], meta["observe_name"], meta["steps"]) == (9, "basic", 12)
    assert (config.blocks, config.channels) == (1, 8)
    with open(out / "summary.csv") as handle:
        reported = float(next(csv.DictReader(handle))["top1"])
    assert meta["held_out_top1"] == pytest.approx(reported)
    data = ds.build_dataset(data_dir, 9, observation="basic", cache=cache)
    _, held = data.split(0.4, seed=0)
    graphdef, variables = az.split(net)
    assert supervised.evaluate(graphdef, variables, held, 512)["accuracy"] == pytest.approx(reported)

    # --csv: one row with its provenance and the run's figures, the held-out split's own counts.
    with open(tmp_path / "runs.csv") as handle:
        (row,) = list(csv.DictReader(handle))
    assert list(row)[:3] == ["date", "machine", "command"] and "--csv" in row["command"]
    assert float(row["top1"]) == pytest.approx(reported, abs=5e-5)
    assert (row["network"], row["steps"], row["board_size"]) == ("1x8", "12", "9")
    assert int(row["held_out_games"]) == held.num_games and int(row["held_out_positions"]) == len(held)
    assert float(row["epochs"]) == pytest.approx(12 * 16 / (len(data) - len(held)), abs=0.01)
    assert 0 < float(row["uniform_top1"]) < 1
