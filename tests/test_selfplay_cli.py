"""``gojax-selfplay`` (``gojax.dataset.selfplay``): games to an ``.npz`` of samples and SGF files.

One small run (5x5, 4 random games, 1 compiled batch) is checked against
readers no one here wrote: sgfmill reads every SGF file and replays it on its
own board; the result in ``RE`` must agree with a plain-Python Tromp-Taylor
count of sgfmill's final board, and the ``.npz`` samples (moves, outcomes for
the mover, legal masks, planes) with the SGF games.
"""

from __future__ import annotations

import numpy as np
import pytest
from conftest import needs, ref_area_difference, sgfmill_grid

import gojax
from gojax.dataset import MoveDataset, selfplay

SIZE, GAMES, KOMI = 5, 4, 0.5


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    out = tmp_path_factory.mktemp("selfplay")
    argv = ["--size", str(SIZE), "--komi", str(KOMI), "--games", str(GAMES), "--batch-size", "4"]
    argv += ["--out", str(out / "games.npz"), "--sgf", str(out / "sgf"), "--seed", "3"]
    assert selfplay.main(argv) == 0
    return out


def test_sgf_games_replay_in_sgfmill_and_their_results_are_the_area_score(run):
    sgfmill_sgf, sgfmill_boards = needs("sgfmill.sgf"), needs("sgfmill.boards")
    paths = sorted((run / "sgf").glob("*.sgf"))
    assert [p.name for p in paths] == [f"game_{g:06d}.sgf" for g in range(GAMES)]
    for path in paths:
        game = sgfmill_sgf.Sgf_game.from_bytes(path.read_bytes())
        assert game.get_size() == SIZE and game.get_komi() == KOMI
        board = sgfmill_boards.Board(SIZE)
        for node in game.get_main_sequence():
            colour, point = node.get_move()
            if colour is not None and point is not None:
                board.play(point[0], point[1], colour)  # raises on an occupied point
        margin = ref_area_difference(sgfmill_grid(board)) - KOMI
        expected = f"{'B' if margin > 0 else 'W'}+{abs(margin):g}"  # komi 0.5: no draw
        assert game.get_root().get("RE") == expected, path.name


def test_npz_samples_are_the_sgf_games(run):
    data = MoveDataset.load(run / "games.npz")
    assert data.board_size == SIZE and data.observe_name == "basic" and not data.skipped
    assert data.features.shape == (len(data), SIZE, SIZE, gojax.features.BASIC_NUM_CHANNELS)
    records = [gojax.read_sgf(run / "sgf" / f"game_{g:06d}.sgf") for g in range(GAMES)]
    assert sorted(set(data.game_ids.tolist())) == list(range(GAMES))
    for g, record in enumerate(records):
        mine = data.game_ids == g
        order = np.argsort(data.move_numbers[mine])
        assert data.actions[mine][order].tolist() == record.actions.tolist()
        winner = record.winner
        movers = np.where(data.move_numbers[mine][order] % 2 == 0, gojax.BLACK, gojax.WHITE)
        expected = np.where(movers == winner, 1.0, -1.0) if winner else np.zeros(len(movers))
        np.testing.assert_array_equal(data.values[mine][order], expected)
    # Every move played was legal where it was played, and the planes show the mover's stones.
    assert np.all(data.legal[np.arange(len(data)), data.actions])
    first = data.move_numbers == 0
    assert not data.features[first][..., :2].any()  # the empty board: no stones of either side


def test_bad_arguments_name_the_value(capsys):
    with pytest.raises(SystemExit) as exit_:
        selfplay.main(["--games", "3"])
    assert exit_.value.code == 2
    assert "num_games must be an even number >= 2 (colours alternate), got 3" in capsys.readouterr().err
    with pytest.raises(ValueError, match="unknown player 'alphago'"):
        selfplay.make_player("alphago")
