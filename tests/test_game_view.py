"""Tests of gojax.svg.game_view: frames, stones per frame, last-move marker, HTML, animated SVG, text.

The positions are checked against sgfmill's board (independent of gojax) and
the SGF text; the HTML is checked with the standard library's html.parser,
the animated SVG with xml.etree by decoding its SMIL timing.
"""

from __future__ import annotations

import html.parser
import json
import os
import re
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from conftest import sgf_moves, sgfmill_grid

import gojax
from gojax import svg
from gojax.svg._board import board_origin

sgfmill_boards = pytest.importorskip("sgfmill.boards")

LETTERS = "abcdefghijklmnopqrstuvwxy"
# 7x7, 12 moves: a capture (white C6 taken by black's 7th move, B[ca]) and a pass (move 8).
GAME = (
    "(;GM[1]FF[4]SZ[7]KM[0.5]PB[Alice]PW[Bob]RE[B+2.5]"
    ";B[cc];W[cb];B[bb];W[dd];B[db];W[ee];B[ca];W[];B[de];W[ed];B[ff];W[fe])"
)
SIZE = 7
NS = "{http://www.w3.org/2000/svg}"


def sgfmill_frames(text, size):
    """The board (row 0 at the top) before the first move and after each move, by sgfmill."""
    board = sgfmill_boards.Board(size)

    frames = [sgfmill_grid(board)]
    for colour, point in sgf_moves(text):
        if point is not None:
            board.play(size - 1 - point[0], point[1], colour)
        frames.append(sgfmill_grid(board))
    return frames


@pytest.fixture(scope="module")
def view():
    return svg.game_view(gojax.sgf.parse_sgf(GAME, name="test"))


def stones_in(svg_text):
    root = ET.fromstring(svg_text)
    found = {}
    for circle in root.iter(f"{NS}circle"):
        kind = circle.get("class")
        if kind in ("stone black", "stone white"):
            found[(round(float(circle.get("cx")), 1), round(float(circle.get("cy")), 1))] = kind
    return root, found


def point_xy(view, row, col, titled=True):
    x0, y0 = board_origin(view.cell, titled=titled)
    return (round(x0 + col * view.cell, 1), round(y0 + row * view.cell, 1))


def test_frames_and_stones_match_sgfmill(view):
    moves = sgf_moves(GAME)
    expected = sgfmill_frames(GAME, SIZE)
    assert len(view) == len(moves) + 1 == len(expected)
    assert view.title == "Alice (B) vs Bob (W), B+2.5"
    for t, grid in enumerate(expected):
        np.testing.assert_array_equal(view.boards[t], grid, err_msg=f"frame {t}")
        _, stones = stones_in(view.frame(t).svg)
        want = {
            point_xy(view, r, c): ("stone black" if grid[r, c] == 1 else "stone white")
            for r, c in zip(*np.nonzero(grid), strict=True)
        }
        assert stones == want, f"frame {t}"
    assert view.boards[6][1, 2] == 2 and view.boards[7][1, 2] == 0  # C6 captured by move 7 (B[ca])


def test_last_move_marker_and_labels(view):
    moves = sgf_moves(GAME)
    for t in range(len(view)):
        root = ET.fromstring(view.frame(t).svg)
        rings = [c for c in root.iter(f"{NS}circle") if c.get("class") == "last-move"]
        point = moves[t - 1][1] if t > 0 else None
        if point is None:  # the start and the pass
            assert rings == []
        else:
            assert len(rings) == 1
            xy = (round(float(rings[0].get("cx")), 1), round(float(rings[0].get("cy")), 1))
            assert xy == point_xy(view, *point)
    assert view.label(0) == "start"
    assert view.label(1) == "move 1: B C5"
    assert view.label(8) == "move 8: W pass (captures B 1, W 0)"
    assert view.movers.tolist() == [0] + [1, 2] * 6


class StrictParser(html.parser.HTMLParser):
    """Checks that every element is closed in order (void elements aside) and collects elements."""

    VOID = frozenset({"input", "meta", "br", "img", "hr", "link"})

    def __init__(self):
        super().__init__()
        self.stack, self.elements, self.scripts = [], [], []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))
        if tag not in self.VOID:
            self.stack.append(tag)

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_endtag(self, tag):
        assert self.stack and self.stack[-1] == tag, (
            f"</{tag}> closes <{self.stack[-1] if self.stack else None}>"
        )
        self.stack.pop()

    def handle_data(self, data):
        if self.stack and self.stack[-1] == "script":
            self.scripts.append(data)


def test_html_is_well_formed_and_holds_every_frame(view):
    text = view.to_html(element_id="v1")
    parser = StrictParser()
    parser.feed(text)
    parser.close()
    assert parser.stack == []
    classes = [attrs.get("class", "") for _, attrs in parser.elements]
    for needed in ("gv-first", "gv-prev", "gv-play", "gv-next", "gv-last", "gv-slider", "gv-label"):
        assert needed in classes
    slider = next(attrs for tag, attrs in parser.elements if attrs.get("class") == "gv-slider")
    assert slider["max"] == str(len(view) - 1) and slider["value"] == str(len(view) - 1)
    assert ("div", {"class": "gojax-game", "id": "v1", "tabindex": "0"}) in [
        (tag, {k: v for k, v in attrs.items() if k != "style"}) for tag, attrs in parser.elements
    ]
    data = json.loads(parser.scripts[0])
    assert len(data["boards"]) == len(view)
    for t, grid in enumerate(sgfmill_frames(GAME, SIZE)):
        assert data["boards"][t] == "".join(".XO"[v] for v in grid.reshape(-1))
    moves = sgf_moves(GAME)
    assert data["last"] == [-1] + [SIZE * SIZE if p is None else p[0] * SIZE + p[1] for _, p in moves]
    assert '"v1"' in parser.scripts[1] and "__ID__" not in parser.scripts[1]
    assert "http" not in text.replace("http://www.w3.org/2000/svg", "")  # no external assets
    # Two views on one page get different ids.
    assert re.search(r'id="([^"]+)"', view._repr_html_()).group(1) != re.search(
        r'id="([^"]+)"', view._repr_html_()
    ).group(1)


def test_animated_svg_shows_each_frame(view):
    root = ET.fromstring(view.animated_svg(0.5, loop=False))
    frames = len(view)

    def visible_at(element, t):
        """Decodes a discrete SMIL visibility animation at the middle of frame t."""
        animate = next(a for a in element if a.get("attributeName") == "visibility")
        times = [float(x) for x in animate.get("keyTimes").split(";")]
        values = animate.get("values").split(";")
        moment = (t + 0.5) / frames
        return values[max(i for i, start in enumerate(times) if start <= moment)] == "visible"

    circles = [c for c in root.iter(f"{NS}circle") if c.get("class", "").startswith("stone")]
    for t, grid in enumerate(sgfmill_frames(GAME, SIZE)):
        shown = {
            (round(float(c.get("cx")), 1), round(float(c.get("cy")), 1)): c.get("class")
            for c in circles
            if visible_at(c, t)
        }
        want = {
            point_xy(view, r, c, titled=True): ("stone black" if grid[r, c] == 1 else "stone white")
            for r, c in zip(*np.nonzero(grid), strict=True)
        }
        assert shown == want, f"frame {t}"
        labels = [
            x.text for x in root.iter(f"{NS}text") if x.get("class") == "frame-label" and visible_at(x, t)
        ]
        assert labels == [f"{view.title} - {view.label(t)}"]
    ring = next(c for c in root.iter(f"{NS}circle") if c.get("class") == "last-move")
    xs = next(a for a in ring if a.get("attributeName") == "cx").get("values").split(";")
    assert len(xs) == frames
    with pytest.raises(ValueError, match="seconds_per_move"):
        view.animated_svg(0)


def test_saves_are_atomic(view, tmp_path, monkeypatch):
    page = view.save_html(tmp_path / "game.html")
    text = page.read_text(encoding="utf-8")
    assert text.startswith("<!doctype html>") and 'id="gojax-game"' in text
    view.save_svg(tmp_path / "game.svg")
    ET.parse(tmp_path / "game.svg")
    view.frame(3).save(tmp_path / "frame.svg")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["frame.svg", "game.html", "game.svg"]

    def broken_replace(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(OSError, match="disk full"):
        view.save_html(tmp_path / "game.html")
    assert (tmp_path / "game.html").read_text(encoding="utf-8") == text
    assert sorted(p.name for p in tmp_path.iterdir()) == ["frame.svg", "game.html", "game.svg"]


def test_other_inputs_and_errors(view):
    config = gojax.GoConfig(size=SIZE)
    actions = [SIZE * SIZE if p is None else p[0] * SIZE + p[1] for _, p in sgf_moves(GAME)]
    from_actions = svg.game_view(config, np.array(actions))
    np.testing.assert_array_equal(from_actions.boards, view.boards)
    from_boards = svg.game_view(config, view.boards, start=0)
    assert from_boards.start == 0 and (from_boards.last_moves == -1).all()
    states = gojax.sgf.parse_sgf(GAME).states_along()
    from_states = svg.game_view(config, states)
    np.testing.assert_array_equal(from_states.last_moves, view.last_moves)
    import jax

    listed = [jax.tree.map(lambda x, i=i: x[i], states) for i in range(3)]
    np.testing.assert_array_equal(svg.game_view(config, listed).boards, view.boards[:3])
    with pytest.raises(ValueError, match="GameRecord or a GoConfig"):
        svg.game_view("game.sgf")
    with pytest.raises(ValueError, match="missing"):
        svg.game_view(config)
    with pytest.raises(ValueError, match="takes no states"):
        svg.game_view(gojax.sgf.parse_sgf(GAME), states)
    with pytest.raises(ValueError, match="boards must be"):
        svg.game_view(gojax.GoConfig(size=9), view.boards)
    with pytest.raises(ValueError, match="frame must be"):
        view.frame(len(view))
    with pytest.raises(gojax.SGFError, match="occupied"):
        svg.game_view(config, np.array([0, 0]))


def test_ascii_stepper(view):
    text = view.ascii(1)
    assert text.splitlines()[0] == "move 1: B C5"
    assert " 5 . .(X). . . . 5" in text.splitlines()
    answers = iter(["", "p", "p", "3", "q"])
    shown = []
    last = view.step_through(input_fn=lambda prompt: next(answers), print_fn=shown.append, start=0)
    assert last == 3
    assert [s.splitlines()[0] for s in shown] == ["start", "move 1: B C5", "start", "start", "move 3: B B6"]
    assert (
        view.step_through(input_fn=lambda prompt: (_ for _ in ()).throw(EOFError), print_fn=lambda s: None)
        == len(view) - 1
    )
