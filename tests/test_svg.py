"""SVG pictures (``gojax.svg``): parsed with xml.etree and checked against hand-derived expectations."""

from __future__ import annotations

import sys
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from conftest import needs

import gojax
from gojax import svg

NS = "{http://www.w3.org/2000/svg}"
CONFIG = gojax.GoConfig(size=9)
POSITION = """
. . . . . . . . .
. . X O . . . . .
. . X O . . . . .
. . . X O O . . .
. . . . X . . . .
. . . . . . . . .
. . . . . . . O .
. . . . . . . . .
X . . . . . . . .
"""


def _parse(text: str) -> ET.Element:
    root = ET.fromstring(text)
    assert root.tag == f"{NS}svg"
    return root


def _with_class(root: ET.Element, tag: str, cls: str) -> list[ET.Element]:
    return [e for e in root.iter(f"{NS}{tag}") if cls in e.get("class", "").split()]


@pytest.fixture(scope="module")
def state():
    return gojax.from_ascii(CONFIG, POSITION).replace(last_move=np.int16(3 * 9 + 4))  # E6 was played last


def test_stones_are_circles_at_the_right_places(state):
    root = _parse(svg.board_svg(CONFIG, state, cell=28))
    black = _with_class(root, "circle", "black")
    white = _with_class(root, "circle", "white")
    assert len(black) == 5 and len(white) == 5  # counted in POSITION by hand
    # cell 28, margin 1.3 * 28 = 36.4: the black stone at row 1, column 2 (C8) is at (92.4, 64.4).
    assert ("92.4", "64.4") in {(c.get("cx"), c.get("cy")) for c in black}
    # The black stone at A1 (row 8, column 0): (36.4, 36.4 + 8 * 28).
    assert ("36.4", "260.4") in {(c.get("cx"), c.get("cy")) for c in black}
    assert ("232.4", "204.4") in {(c.get("cx"), c.get("cy")) for c in white}  # H3: row 6, column 7
    # An [N, N] board gives the same picture as the state (but no last move).
    grid = gojax.parse_board(POSITION)
    assert svg.board_svg(CONFIG, grid, last_move=False) == svg.board_svg(CONFIG, state, last_move=False)


def test_coordinates_star_points_and_grid(state):
    root = _parse(svg.board_svg(CONFIG, state))
    coords = [t.text for t in _with_class(root, "text", "coord")]
    assert len(coords) == 4 * 9  # letters top and bottom, numbers left and right
    assert sorted(set(coords)) == sorted(set("ABCDEFGHJ") | {str(n) for n in range(1, 10)})
    assert "I" not in coords
    assert len(_with_class(root, "circle", "star")) == 5
    path = _with_class(root, "path", "grid")[0].get("d")
    assert path.count("M") == 18  # 9 horizontal + 9 vertical lines
    assert not _with_class(_parse(svg.board_svg(CONFIG, state, coordinates=False)), "text", "coord")


def test_star_points():
    assert svg.star_points(19) == [(r, c) for r in (3, 9, 15) for c in (3, 9, 15)]
    assert svg.star_points(13) == [(3, 3), (3, 9), (6, 6), (9, 3), (9, 9)]
    assert svg.star_points(9) == [(2, 2), (2, 6), (4, 4), (6, 2), (6, 6)]
    assert svg.star_points(8) == [(2, 2), (2, 5), (5, 2), (5, 5)]
    assert svg.star_points(5) == [(2, 2)]
    assert svg.star_points(4) == []


def test_last_move_marker(state):
    marks = _with_class(_parse(svg.board_svg(CONFIG, state, cell=28)), "circle", "last-move")
    assert len(marks) == 1
    assert (marks[0].get("cx"), marks[0].get("cy")) == ("148.4", "120.4")  # E6: column 4, row 3
    assert marks[0].get("stroke") == "#111111"  # on a white stone: a dark ring
    assert not _with_class(_parse(svg.board_svg(CONFIG, state, last_move=False)), "circle", "last-move")
    chosen = _with_class(_parse(svg.board_svg(CONFIG, state, last_move=0)), "circle", "last-move")
    assert (chosen[0].get("cx"), chosen[0].get("cy")) == ("36.4", "36.4")
    passed = state.replace(last_move=np.int16(81))  # a pass: no ring
    assert not _with_class(_parse(svg.board_svg(CONFIG, passed)), "circle", "last-move")


def test_move_numbers(state):
    root = _parse(svg.board_svg(CONFIG, state, move_numbers={11: 1, 12: 2, 40: 3}, last_move=False))
    numbers = _with_class(root, "text", "move-number")
    assert [t.text for t in numbers] == ["1", "2", "3"]
    assert [t.get("fill") for t in numbers] == ["#f7f7f2", "#111111", "#f7f7f2"]  # light on black stones
    grid = np.zeros((9, 9), int)
    grid[0, 0], grid[8, 8] = 7, 12
    root = _parse(svg.board_svg(CONFIG, state, move_numbers=grid))
    assert sorted(t.text for t in _with_class(root, "text", "move-number")) == ["12", "7"]


def test_heatmap_policy_with_pass(state):
    policy = np.zeros(82)
    policy[[0, 10, 5]] = [0.5, 0.25, 0.05]  # A9, B8, F9: empty points
    policy[81] = 0.2  # pass
    root = _parse(svg.board_svg(CONFIG, state, heatmap=policy, heatmap_labels=True))
    cells = _with_class(root, "rect", "heat")
    assert len(cells) == 3  # zero cells are not shaded
    fills = {(c.get("x"), c.get("y")): c.get("fill") for c in cells}
    assert fills[("22.4", "22.4")] == "#bd0026"  # the maximum: the ramp's dark red end (189, 0, 38)
    assert [t.text for t in _with_class(root, "text", "pass-value")] == ["pass: 20%"]  # the board's unit
    labels = [t.text for t in _with_class(root, "text", "heat-label")]
    assert labels == ["50", "5", "25"]  # percentages, in point order


def test_ring_on_a_shaded_point_reads_on_its_colour(state):
    """The move a search plays, ringed on the darkest cell: white, and round the label."""
    policy = np.zeros(82)
    policy[[0, 5]] = [0.6, 0.1]  # A9 (the maximum: dark red), F9 (light)
    for action, ink, radius in ((0, "#ffffff", "11.8"), (5, "#2b2b2b", "11.8")):
        root = _parse(svg.board_svg(CONFIG, state, heatmap=policy, heatmap_labels=True, last_move=action))
        (ring,) = _with_class(root, "circle", "last-move")
        assert (ring.get("stroke"), ring.get("r")) == (ink, radius)
    (ring,) = _with_class(
        _parse(svg.board_svg(CONFIG, state, heatmap=policy, last_move=0)), "circle", "last-move"
    )
    assert (ring.get("stroke"), ring.get("r")) == ("#ffffff", "6.2")  # no label: the small ring
    (ring,) = _with_class(_parse(svg.board_svg(CONFIG, state, last_move=0)), "circle", "last-move")
    assert (ring.get("stroke"), ring.get("r")) == ("#c0392b", "6.2")  # no heatmap: red, as before


def test_heatmap_labels_are_in_one_unit(state):
    """Percentages only when every value, pass included, is in [0, 1]; else every value as it is."""
    values = np.zeros(82)
    values[[0, 10]] = [0.5, 3.0]
    values[81] = 0.25
    root = _parse(svg.board_svg(CONFIG, state, heatmap=values, heatmap_labels=True))
    assert [t.text for t in _with_class(root, "text", "heat-label")] == ["0.5", "3"]
    assert [t.text for t in _with_class(root, "text", "pass-value")] == ["pass: 0.25"]
    assert [c.find(f"{NS}title").text for c in _with_class(root, "rect", "heat")] == ["0.5", "3"]
    values[[10, 81]] = [0.25, 1.5]  # the pass value alone is out of [0, 1]
    root = _parse(svg.board_svg(CONFIG, state, heatmap=values, heatmap_labels=True))
    assert [t.text for t in _with_class(root, "text", "heat-label")] == ["0.5", "0.25"]
    assert [t.text for t in _with_class(root, "text", "pass-value")] == ["pass: 1.5"]


def test_heatmap_plane_with_negative_values_is_diverging(state):
    plane = np.zeros((9, 9))
    plane[4, 4], plane[0, 8], plane[8, 0] = 2.0, -2.0, 1.0
    cells = _with_class(_parse(svg.board_svg(CONFIG, state, heatmap=plane)), "rect", "heat")
    assert len(cells) == 3
    # -2 is the blue end (33, 102, 172), 2 the red end (178, 24, 43); 1 is halfway from white
    # (247, 247, 247) to red: (212.5, 135.5, 145), rounded half to even: (212, 136, 145).
    assert [c.get("fill") for c in cells] == ["#2166ac", "#b2182b", "#d48891"]  # rows top to bottom
    with pytest.raises(ValueError, match=r"heatmap must be \[9, 9\] or \[82\]; got shape \(80,\)"):
        svg.board_svg(CONFIG, state, heatmap=np.zeros(80))


def test_bad_inputs(state):
    batched = state.replace(stones=np.zeros((4, 2, 9), np.uint32))
    with pytest.raises(ValueError, match="one game"):
        svg.board_svg(CONFIG, batched)
    with pytest.raises(ValueError, match=r"board must be int\[9, 9\]"):
        svg.board_svg(CONFIG, np.full((9, 9), 3))


def test_title_is_escaped(state):
    root = _parse(svg.board_svg(CONFIG, state, title="B <3 & W"))
    assert [t.text for t in _with_class(root, "text", "title")] == ["B <3 & W"]


def test_svg_board_renders_in_jupyter(state, tmp_path):
    board = svg.SvgBoard.from_state(CONFIG, state, cell=20)
    text = board._repr_svg_()
    assert _parse(text) is not None and text == str(board)
    html = board._repr_html_()
    assert html.startswith("<div") and text in html
    assert board.save(tmp_path / "b.svg").read_text() == text


def test_planes_grid():
    planes = np.zeros((5, 5, 3), bool)
    planes[0, 0, 0] = True
    planes[:, 2, 1] = True
    planes[..., 2] = np.eye(5, dtype=bool)
    root = _parse(svg.planes_grid_svg(planes, titles=["one", "column", "diagonal"]))
    groups = _with_class(root, "g", "plane")
    assert len(groups) == 3
    assert [len(_with_class(g, "rect", "heat")) for g in groups] == [1, 5, 5]
    assert [_with_class(g, "text", "title")[0].text for g in groups] == ["one", "column", "diagonal"]
    # ceil(sqrt(3)) = 2 panels per row: the third panel starts a second row.
    offsets = [g.get("transform") for g in groups]
    assert offsets[0].split(",")[1] == offsets[1].split(",")[1] != offsets[2].split(",")[1]
    with pytest.raises(ValueError, match=r"planes must be \[N, N, C\]"):
        svg.planes_grid_svg(np.zeros((5, 5)))
    with pytest.raises(ValueError, match="2 titles for 3 planes"):
        svg.planes_grid_svg(planes, titles=["a", "b"])


def test_feature_planes_of_a_real_state(state):
    hist = gojax.features.history_init(CONFIG, state)
    planes = np.asarray(gojax.features.alphago_zero_planes(CONFIG, state, hist))
    # AGZ_CHANNELS: own stones at even channels 0..14, the opponent's at odd ones, the colour plane last.
    titles = [f"{'own' if c % 2 == 0 else 'opponent'} t-{c // 2}" for c in range(16)] + ["colour"]
    root = _parse(svg.planes_grid_svg(planes, titles=titles))
    groups = _with_class(root, "g", "plane")
    assert len(groups) == planes.shape[-1] == 17
    assert [len(_with_class(g, "rect", "heat")) for g in groups] == [
        int(np.count_nonzero(planes[..., c])) for c in range(17)
    ]


# ---------------------------------------------------------------------------
# PNG files (the png extra) and matplotlib plots.


def test_save_png_writes_a_real_png_of_the_picture(state, tmp_path):
    needs("cairosvg")
    image = needs("matplotlib.image")
    board = svg.SvgBoard.from_state(CONFIG, state, cell=28)
    path = board.save(tmp_path / "b.png", scale=2)
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    root = _parse(board.svg)
    width, height = float(root.get("width")), float(root.get("height"))
    assert svg.png_size(data) == (round(2 * width), round(2 * height))
    # The pixels are the picture: the centre of every stone has its colour (read by matplotlib's PNG reader).
    pixels = image.imread(path)[..., :3]
    assert pixels.shape == (round(2 * height), round(2 * width), 3)
    for colour, expected in (("black", 0.0), ("white", 1.0)):
        for circle in _with_class(root, "circle", colour):
            x, y = round(2 * float(circle.get("cx"))), round(2 * float(circle.get("cy")))
            assert np.all(np.abs(pixels[y, x] - expected) < 0.25), (colour, x, y, pixels[y, x])
    # A point between the stones and the grid lines is wood (#dcb35c).
    np.testing.assert_allclose(pixels[4, 4], np.array([0xDC, 0xB3, 0x5C]) / 255, atol=0.02)
    assert not list(tmp_path.glob(".*")), "temporary file left behind"


def test_save_refuses_png_without_cairosvg_and_unknown_suffixes(state, tmp_path, monkeypatch):
    board = svg.SvgBoard.from_state(CONFIG, state)
    monkeypatch.setitem(sys.modules, "cairosvg", None)  # as if it were not installed
    one_line = r"^saving a picture as PNG needs cairosvg: pip install 'gojax\[png\]'$"
    with pytest.raises(ImportError, match=one_line):
        board.save(tmp_path / "b.png")
    assert not list(tmp_path.iterdir())
    with pytest.raises(ValueError, match=r"writes \.svg or \.png files, got '.*b\.jpg'"):
        board.save(tmp_path / "b.jpg")
    with pytest.raises(ValueError, match="scale must be a finite number > 0, got 0"):
        svg.svg_to_png(board.svg, scale=0)
    with pytest.raises(ValueError, match="not a PNG file"):
        svg.png_size(board.svg.encode())
    assert board.save(tmp_path / "B.SVG").read_text() == board.svg


def test_plot_learning_curve_leaves_matplotlib_backend_alone(tmp_path):
    matplotlib = needs("matplotlib")
    needs("flax")
    from gojax.training import plot_learning_curve

    rows = [
        {"kind": "train", "minutes": m, "loss": 3 - m, "policy_loss": 2 - m / 2, "value_loss": 1 - m / 2}
        for m in (0.5, 1.0, 1.5)
    ]
    rows.append({"kind": "eval", "minutes": 1, "opponent": "random", "score": 0.8})
    rows[-1].update(score_lo=0.6, score_hi=0.9)
    before = matplotlib.get_backend()
    matplotlib.use("svg")  # stands for a notebook's inline backend: any backend that is not Agg
    try:
        import matplotlib.pyplot as plt

        figures = plt.get_fignums()
        assert plot_learning_curve(rows, str(tmp_path / "curve.png"), title="t")
        assert matplotlib.get_backend() == "svg"
        assert plt.get_fignums() == figures  # no pyplot figure created or left open
    finally:
        matplotlib.use(before)
    data = (tmp_path / "curve.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and svg.png_size(data) == (1100, 400)  # 11 x 4 in at 100 dpi
    assert not plot_learning_curve([], str(tmp_path / "empty.png"))
