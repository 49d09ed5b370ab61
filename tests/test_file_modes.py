"""Files gojax writes get the mode a plain ``open()`` would give them: ``0o666`` less the umask.

Every writer gojax has, under two umasks (022 and 077): the atomic writer
(``gojax._host.atomic``) behind SGF records, SVG/PNG pictures and pages,
``.npz`` datasets, training metrics, the learning curve and stored compiled
functions, and orbax behind the network and run checkpoints. The expected
modes are read off a file made with ``open()`` and a folder made with
``os.mkdir`` in the same place under the same umask.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import jax.numpy as jnp
import numpy as np
import pytest
from conftest import needs, plain_modes, umask

import gojax
from gojax import sgf, svg
from gojax._host import atomic, executables

UMASKS = [0o022, 0o077]
SIZE = 5


def _sgf_files(folder: Path) -> None:
    config = gojax.GoConfig(size=SIZE, komi=0.5)
    sgf.games_to_sgf(config, np.array([[12, 6, 18]]), folder / "games")
    record = sgf.parse_sgf("(;SZ[5];B[cc];W[bb])")
    sgf.write_sgf(record, folder / "game.sgf")


def _pictures(folder: Path) -> None:
    config = gojax.GoConfig(size=SIZE)
    state = gojax.step(config, gojax.init(config), 12)
    board = svg.SvgBoard.from_state(config, state)
    board.save(folder / "board.svg")
    needs("cairosvg")
    board.save(folder / "board.png")
    view = svg.game_view(config, np.array([12, 6, 18]))
    view.save_html(folder / "game.html")
    view.save_svg(folder / "game.svg")
    env = gojax.make(f"go_{SIZE}x{SIZE}", observation=None)
    env.init(None).save_svg(folder / "env.svg")


def _dataset(folder: Path) -> None:
    from gojax.dataset import MoveDataset

    count, actions = 2, SIZE * SIZE + 1
    MoveDataset(
        features=np.zeros((count, SIZE, SIZE, 1), np.uint8),
        actions=np.zeros(count, np.int32),
        values=np.zeros(count, np.float32),
        legal=np.ones((count, actions), bool),
        game_ids=np.zeros(count, np.int32),
        move_numbers=np.arange(count, dtype=np.int32),
        names=("one",),
        board_size=SIZE,
        observe_name="basic",
    ).save(folder / "data.npz")


def _training_files(folder: Path) -> None:
    needs("matplotlib")
    from gojax.training import MetricsLog, plot_learning_curve

    rows = [
        {"kind": "train", "minutes": 0.5, "loss": 2.0, "policy_loss": 1.5, "value_loss": 0.5},
        {"kind": "train", "minutes": 1.0, "loss": 1.8, "policy_loss": 1.4, "value_loss": 0.4},
    ]
    log = MetricsLog(str(folder / "metrics.csv"))
    for row in rows:
        log.log(row)
    log.flush()
    assert plot_learning_curve(rows, str(folder / "learning_curve.png"))


def _negate(x):
    return -x


def _stored_executable(folder: Path) -> None:
    before = executables.directory()
    executables.use_directory(folder / "executables")
    try:
        # A description of its own per call: a process keeps what it compiled by key, and writes it once.
        executables.compile_ahead(None, f"test_file_modes._negate {folder}", _negate, (jnp.zeros(3),))
    finally:
        executables.use_directory(before)
    assert list((folder / "executables").glob("*.pkl")), "no executable stored"


def _network_checkpoint(folder: Path) -> None:
    needs("orbax.checkpoint")
    from flax import nnx

    from gojax import alphazero as az

    network = az.NetworkConfig(blocks=1, channels=4, value_hidden=4)
    net = az.PolicyValueNet(network, SIZE, az.BASIC_NUM_CHANNELS, rngs=nnx.Rngs(0))
    az.save_checkpoint(folder / "network", net, network, board_size=SIZE)


def _run_checkpoint(folder: Path) -> None:
    needs("orbax.checkpoint")
    from gojax.training import RunCheckpoints

    run = RunCheckpoints(folder / "run")
    try:
        run.save(1, {"weights": np.arange(4.0), "step": np.int32(1)}, {"iteration": 1})
    finally:
        run.close()


WRITERS: dict[str, Callable[[Path], None]] = {
    "sgf": _sgf_files,
    "pictures": _pictures,
    "npz": _dataset,
    "training": _training_files,
    "executable": _stored_executable,
    "network_checkpoint": _network_checkpoint,
    "run_checkpoint": _run_checkpoint,
}


def _modes_below(folder: Path) -> dict[str, int]:
    """Permission bits of every file and folder below ``folder``, by relative path."""
    found = {}
    for root, folders, files in os.walk(folder):
        for name in folders + files:
            path = Path(root, name)
            found[str(path.relative_to(folder))] = path.stat().st_mode & 0o7777
    return found


@pytest.mark.parametrize("mask", UMASKS, ids=lambda m: f"umask{m:03o}")
@pytest.mark.parametrize("writer", list(WRITERS))
def test_written_files_get_the_mode_open_gives(tmp_path, writer, mask):
    out = tmp_path / "out"
    out.mkdir()
    with umask(mask):
        file_mode, folder_mode = plain_modes(out)
        WRITERS[writer](out)
    assert file_mode == 0o666 & ~mask  # the probe itself: no default ACL bends the expectation here
    modes = _modes_below(out)
    assert any(not (out / name).is_dir() for name in modes), "the writer wrote nothing"
    wrong = {
        name: oct(mode)
        for name, mode in modes.items()
        if mode != (folder_mode if (out / name).is_dir() else file_mode)
    }
    assert not wrong, f"expected files {oct(file_mode)}, folders {oct(folder_mode)}: {wrong}"


@pytest.mark.parametrize("mask", UMASKS, ids=lambda m: f"umask{m:03o}")
def test_a_replaced_file_keeps_its_mode_as_open_would(tmp_path, mask):
    path = tmp_path / "record.sgf"
    path.write_text("old")
    path.chmod(0o640)
    with umask(mask):
        atomic.atomic_write(path, "new")
        new = atomic.atomic_write_bytes(tmp_path / "sub" / "new.bin", b"\x00")
    assert path.read_text() == "new" and path.stat().st_mode & 0o7777 == 0o640
    assert new.stat().st_mode & 0o7777 == 0o666 & ~mask
    assert (tmp_path / "sub").stat().st_mode & 0o777 == 0o777 & ~mask  # the folder it created
    assert sorted(p.name for p in tmp_path.iterdir()) == ["record.sgf", "sub"]  # no temporary left
