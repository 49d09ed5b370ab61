"""The host-side helpers of gojax._host: results, chains, vertices, boards, compiled rules."""

from __future__ import annotations

import os
import stat

import jax.numpy as jnp
import numpy as np
import pytest

import gojax
from gojax._host import chains, compiled, grid, illegal, results, vertices
from gojax._host.diagram import render_board

# ---------------------------------------------------------------- results


@pytest.mark.parametrize(
    ("margin", "text", "winner"),
    [(3.5, "B+3.5", 1), (-12.0, "W+12", 2), (0.0, "0", 0), (0.5, "B+0.5", 1), (-361.5, "W+361.5", 2)],
)
def test_margin_round_trip(margin, text, winner):
    assert results.format_margin(margin) == text
    parsed = results.parse_result(text)
    assert parsed == results.Result(winner, margin, None)
    assert results.winner_of_result(text) == winner


@pytest.mark.parametrize(
    ("loser", "illegal_move", "text", "winner", "reason"),
    [
        (1, False, "W+R", 2, "R"),
        (2, False, "B+R", 1, "R"),
        (2, True, "B+F", 1, "F"),
        (1, True, "W+F", 2, "F"),
    ],
)
def test_resignation_and_forfeit_round_trip(loser, illegal_move, text, winner, reason):
    config = gojax.GoConfig(size=5)
    state = gojax.init(config).replace(
        terminated=jnp.bool_(True), loser=jnp.int8(loser), illegal_move=jnp.bool_(illegal_move)
    )
    assert results.result_string(config, state) == text
    assert results.parse_result(text) == results.Result(winner, None, reason)
    assert results.winner_of_result(text) == winner


def test_result_string_scores_with_the_komi():
    board = gojax.parse_board(". X . O .\n. X . O .\n. X . O .\n. X . O .\n. X . O .")
    for komi, text in ((0.0, "0"), (0.5, "W+0.5"), (-2.0, "B+2")):
        config = gojax.GoConfig(size=5, komi=komi)
        state = gojax.from_board(config, board)
        assert results.result_string(config, state) is None  # still running
        assert results.result_string(config, state, adjudicate=True) == text
        assert compiled.score(config, state) == -komi


def test_parse_result_words():
    assert results.parse_result("w+Resign") == results.Result(2, None, "R")
    assert results.parse_result("B+Time") == results.Result(1, None, "T")
    assert results.parse_result("B+") == results.Result(1, None, None)
    assert results.parse_result("W+2.5 (by the referee)") == results.Result(2, -2.5, None)
    for draw in ("0", "Draw", "jigo"):
        assert results.parse_result(draw) == results.Result(0, 0.0, None)
    for unknown in (None, "", "Void", "?", "X+3", "B3.5"):
        assert results.parse_result(unknown) == results.Result(None, None, None)


# ---------------------------------------------------------------- chains

BOARD = """
. X O . .
X X O . .
. O . X X
. . . X O
O . . X .
"""


def test_chains_and_liberties_of_a_hand_made_board():
    board = gojax.parse_board(BOARD)
    found = [(c.points.tolist(), c.liberties.tolist()) for c in chains.chains(board)]
    assert found == [
        ([1, 5, 6], [0, 10]),  # black B5 B4 A4
        ([2, 7], [3, 8, 12]),  # white C5 C4
        ([11], [10, 12, 16]),  # white B3
        ([13, 14, 18, 23], [8, 9, 12, 17, 22, 24]),  # black D3 E3 D2 D1
        ([19], [24]),  # white E2, in atari
        ([20], [15, 21]),  # white A1
    ]
    labels = chains.chain_labels(board)
    assert labels[0, 0] == -1 and labels[1, 0] == 1 and labels[4, 3] == 13
    counts, liberty = chains.liberty_counts(board)
    assert counts[[1, 2, 11, 13, 19, 20]].tolist() == [2, 3, 3, 6, 1, 2]
    assert liberty[19] == 24 and counts[0] == 0 and liberty[-1] == -1
    assert chains.chain_at(board, 23).points.tolist() == [13, 14, 18, 23]
    with pytest.raises(ValueError, match="empty"):
        chains.chain_at(board, 0)


def test_chain_labels_batched():
    # A U whose right arm reaches its smallest point only by going down, right and up;
    # stones at both ends of a row are not neighbours.
    u_shape = gojax.parse_board("X . X . X\nX . X . .\nX X X . .\n. . . . .\nO . . . O")
    expected = np.full((5, 5), -1)
    expected[[0, 1, 2, 2, 2, 1, 0], [0, 0, 0, 1, 2, 2, 2]] = 0
    expected[0, 4], expected[4, 0], expected[4, 4] = 4, 20, 24
    board = gojax.parse_board(BOARD)
    batch = np.stack([board, np.zeros_like(board), u_shape, u_shape.T])
    labels = chains.chain_labels(batch)
    assert labels.shape == (4, 5, 5)
    np.testing.assert_array_equal(labels[0], chains.chain_labels(board))
    assert (labels[1] == -1).all()
    np.testing.assert_array_equal(labels[2], expected)
    expected_t = expected.T.copy()  # the same chains, numbered by their smallest points
    expected_t[4, 0], expected_t[0, 4] = 20, 4
    np.testing.assert_array_equal(labels[3], expected_t)
    assert chains.chains(u_shape)[0].points.tolist() == [0, 2, 5, 7, 10, 11, 12]


def test_why_illegal():
    config = gojax.GoConfig(size=5)
    board = gojax.parse_board(BOARD)
    assert illegal.why_illegal(config, board, -1, 1, 2) == "the point is occupied by a white stone"
    assert "suicide" in illegal.why_illegal(config, board, -1, 2, 0)  # A5: no liberty, captures nothing
    assert "ko" in illegal.why_illegal(config, board, 24, 2, 24)
    # Not occupied, no ko, not suicide: what is left is a whole-board repeat.
    assert "earlier whole-board position" in illegal.why_illegal(config, board, -1, 2, 10)
    # With white on A3, white A5 has no liberty of its own but captures B5 B4 A4: not suicide;
    # black A5 fills the last liberty of its own chain and captures nothing: suicide.
    board[2, 0] = gojax.WHITE
    assert "earlier whole-board position" in illegal.why_illegal(config, board, -1, 2, 0)
    assert "suicide" in illegal.why_illegal(config, board, -1, 1, 0)
    assert "pass" in illegal.why_illegal(config, board, -1, 1, 25)


# ---------------------------------------------------------------- vertices


@pytest.mark.parametrize(
    ("size", "corners"),
    [(9, {0: "A9", 8: "J9", 72: "A1", 80: "J1"}), (19, {0: "A19", 18: "T19", 342: "A1", 360: "T1"})],
)
def test_vertices_of_pass_and_corners(size, corners):
    config = gojax.GoConfig(size=size)
    assert vertices.vertex(size, size * size) == "pass" == vertices.to_gtp(config, size * size)
    for action, name in corners.items():
        assert vertices.vertex(size, action) == name
        assert vertices.to_gtp(config, action) == name
        assert vertices.from_gtp(config, name) == action
    with pytest.raises(ValueError, match="out of range"):
        vertices.to_gtp(config, size * size + 1)


# ---------------------------------------------------------------- boards and text


def test_grid_decodes_states_batched_or_not():
    config = gojax.GoConfig(size=5)
    board = gojax.parse_board(BOARD)
    state = gojax.from_board(config, board)
    np.testing.assert_array_equal(grid.board_of(config, state), board)
    assert grid.board_of(config, state).dtype == np.int8
    stacked = np.stack([np.asarray(state.stones), np.asarray(gojax.init(config).stones)])
    decoded = grid.decode(stacked, 5)
    assert decoded.shape == (2, 5, 5)
    np.testing.assert_array_equal(decoded[0], board)
    assert not decoded[1].any()


def test_render_board_marks_the_last_move():
    board = gojax.parse_board(BOARD)
    text = render_board(board, 6, coordinates=False)
    assert text.splitlines()[1] == "X(X)O . ."
    assert render_board(board, 25, coordinates=False).splitlines()[1] == "X X O . ."  # a pass
    assert gojax.parse_board(render_board(board, 6)).tolist() == board.tolist()


def test_render_refuses_a_state_of_another_config():
    nine, nineteen = gojax.GoConfig(size=9), gojax.GoConfig(size=19)
    state = gojax.init(nineteen)
    assert len(gojax.render(nineteen, state).splitlines()) == 21  # 19 rows and two coordinate lines
    with pytest.raises(ValueError, match=r"gojax\.render: state is for a 19x19 board .* the config is 9x9"):
        gojax.render(nine, state)
    simple = gojax.GoConfig(size=19, ko_rule="simple")
    with pytest.raises(ValueError, match=r"gojax\.render"):
        gojax.render(simple, state)
    with pytest.raises(TypeError, match=r"gojax\.render: state must be a gojax\.GoState"):
        gojax.render(nineteen, "board")


# ---------------------------------------------------------------- compiled rules


def test_compiled_rules_are_shared_across_komi():
    a, b = gojax.GoConfig(size=5, komi=7.5), gojax.GoConfig(size=5, komi=0.5)
    assert compiled.rules_config(a) == compiled.rules_config(b) == gojax.GoConfig(size=5, komi=0.0)
    assert compiled.same_rules(a, b)
    assert not compiled.same_rules(a, gojax.GoConfig(size=5, ko_rule="simple"))
    ra, rb = compiled.rules(a), compiled.rules(b)
    assert ra.step is rb.step and ra.legal is rb.legal and ra.area is rb.area and ra.steps is rb.steps
    assert compiled.rules(gojax.GoConfig(size=7)).step is not ra.step
    state = ra.step(gojax.init(a), jnp.int32(12))
    assert int(gojax.board(a, state)[2, 2]) == gojax.BLACK
    assert compiled.score(a, state) == 25 - 7.5 and compiled.score(b, state) == 25 - 0.5


def test_jitted_caches_by_arguments():
    def add(x, y, *, scale):
        return (x + y) * scale

    first = compiled.jitted(add, 1, scale=2)
    assert compiled.jitted(add, 1, scale=2) is first
    assert compiled.jitted(add, 1, scale=3) is not first
    assert int(first(jnp.int32(4))) == 10
    unhashable = [1]  # compiled afresh each call
    assert compiled.jitted(add, unhashable, scale=2) is not compiled.jitted(add, unhashable, scale=2)


# ---------------------------------------------------------------- atomic files


@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_atomic_files_get_the_mode_a_plain_open_gives(tmp_path, umask):
    from gojax._host.atomic import atomic_write, atomic_write_bytes
    from gojax.training.metrics import plot_learning_curve

    config = gojax.GoConfig(size=5)
    record = gojax.sgf.parse_sgf("(;GM[1]FF[4]SZ[5]KM[7.5];B[cc];W[bb])")
    losses = {"loss": 1.0, "policy_loss": 0.5, "value_loss": 0.5}
    rows = [{"kind": "train", "minutes": m, **losses} for m in (1, 2)]
    old = os.umask(umask)
    try:
        with open(tmp_path / "plain.txt", "w") as handle:  # the reference: what open() gives
            handle.write("x")
        written = [
            atomic_write(tmp_path / "text.txt", "x"),
            atomic_write_bytes(tmp_path / "deep" / "data.bin", b"x"),
            gojax.SvgBoard.from_state(config, gojax.init(config)).save(tmp_path / "board.svg"),
        ]
        gojax.write_sgf(record, tmp_path / "game.sgf")
        assert plot_learning_curve(rows, str(tmp_path / "curve.png"))
        written += [tmp_path / "game.sgf", tmp_path / "curve.png"]
    finally:
        os.umask(old)
    expected = stat.S_IMODE((tmp_path / "plain.txt").stat().st_mode)
    assert expected == 0o666 & ~umask
    for path in written:
        assert stat.S_IMODE(os.stat(path).st_mode) == expected, path
    assert not [p.name for p in tmp_path.rglob(".*.tmp")]  # no temporary file left behind
