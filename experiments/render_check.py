"""Renders gojax's SVG pictures in a real browser (headless Chromium) and saves PNG screenshots.

Not a CI test: it needs Chromium (Debian: ``apt-get install -y chromium``)
and is meant to be looked at. It writes, under ``--out`` (default
``experiments/results/render_check``):

* ``board.svg`` / ``board.png``: a 19x19 professional game (from
  ``../shared/data/sgf``, or a short built-in game if the data is missing)
  after ``--moves`` moves, the last 10 moves numbered, the last move ringed,
  and a heatmap of the points next to the last move's chain;
* ``policy.svg`` / ``policy.png``: a 9x9 board with a made-up policy ``[A]``
  (labels in percent, the pass value under the board);
* ``planes.svg`` / ``planes.png``: the 17 AlphaGo Zero planes of the 19x19 position;
* ``game.html`` / ``game.png``: the stepper of ``gojax.svg.game_view`` on the same
  game, after a script in the page clicked "previous" ``--back`` times
  (default 10) and "next" once, then checked the frame shown against the
  data (frame number, stones drawn per colour, the last-move ring);
  ``game_check.txt`` holds the page's verdict (the run fails if it is not
  ``OK``); ``game_animated.svg`` / ``game_animated.png`` the animated SVG
  (0.2 s per move), screenshot 8.1 s into the animation (about move 40).

Usage: ``python experiments/render_check.py [--moves 120] [--chromium chromium] [--only game]``.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

import gojax
from gojax import features, sgf, svg

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data" / "sgf"
GAME = "pro19_yenw_alphago2_KJ_vs_AG_-_G1_-_English.sgf"
FALLBACK = "(;SZ[19]KM[7.5];B[pd];W[dd];B[pq];W[dp];B[fq];W[cn];B[jp];W[qn];B[nq];W[ql];B[qf];W[nc])"


def screenshot(
    chromium: str,
    svg_path: Path,
    png_path: Path,
    width: int,
    height: int,
    *,
    wrap: bool = True,
    virtual_ms: int | None = None,
) -> None:
    """Opens the SVG inside an HTML page (or an HTML page as is) in headless Chromium; saves a PNG."""
    with tempfile.TemporaryDirectory() as profile:
        page = Path(profile) / "page.html"
        if wrap:
            page.write_text(
                '<!doctype html><html><body style="margin:0;background:#fff">'
                f"{svg_path.read_text()}</body></html>",
                encoding="utf-8",
            )
        else:
            page = svg_path
        command = [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--hide-scrollbars",
            f"--user-data-dir={profile}",
            f"--window-size={int(width)},{int(height)}",
            f"--screenshot={png_path}",
            *([f"--virtual-time-budget={virtual_ms}"] if virtual_ms else []),
            page.as_uri(),
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if done.returncode != 0 or not png_path.is_file():
        sys.exit(f"chromium failed ({done.returncode}):\n{done.stderr[-2000:]}")
    print(f"wrote {png_path} ({png_path.stat().st_size:,} bytes)")


def dump_dom(chromium: str, page: Path) -> str:
    """The page's DOM after its scripts ran, from headless Chromium."""
    with tempfile.TemporaryDirectory() as profile:
        command = [
            chromium,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            f"--user-data-dir={profile}",
            "--virtual-time-budget=3000",
            "--dump-dom",
            page.as_uri(),
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        sys.exit(f"chromium --dump-dom failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return done.stdout


# Runs in the page after the view's own script: clicks, then compares what is drawn with the data.
CLICKS = """
<script>
(function () {
  var root = document.getElementById("gojax-game");
  var data = JSON.parse(root.querySelector(".gv-data").textContent);
  for (var i = 0; i < BACK; i++) root.querySelector(".gv-prev").click();
  root.querySelector(".gv-next").click();
  var t = parseInt(root.dataset.frame, 10);
  var want = data.start - BACK + 1;
  var board = data.boards[t];
  var blacks = (board.match(/X/g) || []).length, whites = (board.match(/O/g) || []).length;
  var drawnB = root.querySelectorAll(".gv-stones .stone.black").length;
  var drawnW = root.querySelectorAll(".gv-stones .stone.white").length;
  var rings = root.querySelectorAll(".gv-stones .last-move").length;
  var ringWant = (data.last[t] >= 0 && data.last[t] < board.length) ? 1 : 0;
  var ok = t === want && drawnB === blacks && drawnW === whites && rings === ringWant &&
           parseInt(root.querySelector(".gv-slider").value, 10) === t;
  var out = document.createElement("pre");
  out.id = "verdict";
  out.textContent = (ok ? "OK" : "FAIL") + " frame=" + t + " want=" + want +
    " black=" + drawnB + "/" + blacks +
    " white=" + drawnW + "/" + whites + " ring=" + rings + "/" + ringWant +
    " label=" + root.querySelector(".gv-label").textContent;
  document.body.appendChild(out);
})();
</script>
"""


def check_game_view(chromium: str, record, out: Path, back: int) -> None:
    """Saves the stepper page, lets Chromium click through it, checks the verdict, takes screenshots."""
    view = svg.game_view(record)
    page = out / "game.html"
    view.save_html(page)
    text = page.read_text(encoding="utf-8")
    test_page = out / "game_clicked.html"
    test_page.write_text(
        text.replace("</body>", CLICKS.replace("BACK", str(back)) + "</body>"), encoding="utf-8"
    )
    dom = dump_dom(chromium, test_page)
    match = re.search(r'<pre id="verdict">(.*?)</pre>', dom, re.DOTALL)
    verdict = match.group(1) if match else "FAIL: no verdict in the DOM (the script did not run)"
    (out / "game_check.txt").write_text(verdict + "\n", encoding="utf-8")
    print(f"game view in Chromium: {verdict}")
    board_width, board_height = size_of(view.frame(0, title=None).svg)
    screenshot(chromium, test_page, out / "game.png", board_width + 20, board_height + 150, wrap=False)
    animated = out / "game_animated.svg"
    view.save_svg(animated, seconds_per_move=0.2)
    width, height = size_of(animated.read_text(encoding="utf-8"))
    # Virtual time runs the animation: 0.2 s per move, so 8.1 s in shows the position after move 40.
    screenshot(chromium, animated, out / "game_animated.png", width, height, virtual_ms=8100)
    if not verdict.startswith("OK"):
        sys.exit(f"game view check failed: {verdict}")


def size_of(text: str) -> tuple[float, float]:
    import xml.etree.ElementTree as ET

    root = ET.fromstring(text)
    return float(root.get("width")), float(root.get("height"))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--moves", type=int, default=120)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "chromium")
    parser.add_argument("--out", type=Path, default=ROOT / "experiments" / "results" / "render_check")
    parser.add_argument(
        "--back", type=int, default=10, help="game view: clicks on 'previous' before checking"
    )
    parser.add_argument("--only", choices=("all", "game"), default="all")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    path = DATA / GAME
    record = sgf.read_sgf(path) if path.is_file() else sgf.parse_sgf(FALLBACK, name="built-in")
    check_game_view(args.chromium, record, args.out, args.back)
    if args.only == "game":
        return
    moves = min(args.moves, len(record.moves))
    record.moves = record.moves[:moves]
    config = record.config
    state = record.replay()
    # Number the last 10 stone moves that are still on the board.
    board = np.asarray(gojax.board(config, state))
    numbers = {}
    for index in range(max(0, moves - 10), moves):
        action = record.moves[index][1]
        if action < config.num_points and board.flat[action]:
            numbers[action] = index + 1
    # A heatmap: distance-decayed values around the last move (stands in for a policy).
    last = int(state.last_move)
    rows, cols = np.mgrid[0 : config.size, 0 : config.size]
    heat = np.exp(-((rows - last // config.size) ** 2 + (cols - last % config.size) ** 2) / 8.0)
    heat[heat < 0.05] = 0
    title = f"{record.metadata.get('PB', '?')} (B) vs {record.metadata.get('PW', '?')} (W), move {moves}"
    text = svg.board_svg(config, state, move_numbers=numbers, heatmap=heat, title=title)
    (args.out / "board.svg").write_text(text, encoding="utf-8")
    screenshot(args.chromium, args.out / "board.svg", args.out / "board.png", *size_of(text))

    small = gojax.GoConfig(size=9)
    position = gojax.from_ascii(
        small,
        """
        . . . . . . . . .
        . . X O . . . . .
        . . X O . . . . .
        . . . X O O . . .
        . . . . X . . . .
        . . . . . . . . .
        . . . . . . . O .
        . . . . . . . . .
        X . . . . . . . .
        """,
        to_play=2,
    )
    policy = np.zeros(small.num_actions)
    policy[[2 * 9 + 4, 4 * 9 + 5, 1 * 9 + 4, 5 * 9 + 4]] = [0.45, 0.25, 0.1, 0.05]
    policy[-1] = 0.15
    text = svg.board_svg(small, position, heatmap=policy, heatmap_labels=True, title="white to play: policy")
    (args.out / "policy.svg").write_text(text, encoding="utf-8")
    screenshot(args.chromium, args.out / "policy.svg", args.out / "policy.png", *size_of(text))

    hist = features.history_init(config, state)
    planes = np.asarray(features.alphago_zero_planes(config, state, hist))
    titles = [f"{'own' if c % 2 == 0 else 'opponent'} t-{c // 2}" for c in range(16)] + ["colour"]
    text = svg.planes_grid_svg(planes, titles=titles, columns=6, cell=6)
    (args.out / "planes.svg").write_text(text, encoding="utf-8")
    screenshot(args.chromium, args.out / "planes.svg", args.out / "planes.png", *size_of(text))


if __name__ == "__main__":
    main()
