"""The HTML stepper of a :class:`~gojax.svg.GameView`: a board, buttons, a slider and a little script.

The page holds the boards as short strings (one character per point) and
draws the stones of the frame shown with inline JavaScript - no external
assets. Without JavaScript it shows the static picture of the start frame.
"""

from __future__ import annotations

import html
import itertools
import json
import time
from typing import TYPE_CHECKING

from gojax._core.types import BLACK, EMPTY, WHITE
from gojax.svg._board import board_origin, board_svg

if TYPE_CHECKING:
    from gojax.svg._game import GameView

__all__ = ["game_html"]

_CHARS = {EMPTY: ".", BLACK: "X", WHITE: "O"}
_COUNTER = itertools.count()


def game_html(view: GameView, element_id: str | None = None, interval_ms: int = 500) -> str:
    """The stepper of ``view`` as an HTML fragment (a ``div`` with the board, the controls and the script)."""
    uid = element_id or f"gojax-game-{next(_COUNTER)}-{time.monotonic_ns() % 10**8}"
    start = view.start
    # The static picture of the start frame; the script removes its stones and draws each frame's.
    static = board_svg(
        view.config,
        view.boards[start],
        last_move=int(view.last_moves[start]),
        title=view.title,
        cell=view.cell,
    )
    x0, y0 = board_origin(view.cell, titled=bool(view.title))
    data: dict = {"size": view.config.size, "cell": view.cell, "x0": round(x0, 2), "y0": round(y0, 2)}
    data.update(
        boards=["".join(_CHARS[int(v)] for v in board.reshape(-1)) for board in view.boards],
        last=[int(v) for v in view.last_moves],
        labels=[view.label(t) for t in range(len(view))],
        start=start,
        interval=int(interval_ms),
    )
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    frames = len(view) - 1
    button = 'style="font:13px sans-serif;min-width:2.2em;margin-right:2px;padding:2px 6px;cursor:pointer"'
    return (
        f'<div class="gojax-game" id="{uid}" tabindex="0" '
        'style="display:inline-block;outline:none;font:13px Helvetica,Arial,sans-serif">'
        f'<div class="gv-board">{static}</div>'
        '<div class="gv-controls" style="margin-top:4px;display:flex;align-items:center;gap:4px">'
        f'<button class="gv-first" title="first" {button}>|&lt;</button>'
        f'<button class="gv-prev" title="previous (left arrow)" {button}>&lt;</button>'
        f'<button class="gv-play" title="play / pause" {button}>play</button>'
        f'<button class="gv-next" title="next (right arrow)" {button}>&gt;</button>'
        f'<button class="gv-last" title="last" {button}>&gt;|</button>'
        f'<input class="gv-slider" type="range" min="0" max="{frames}" value="{start}" step="1" '
        'style="flex:1;min-width:80px"/>'
        "</div>"
        f'<div class="gv-label" style="margin-top:2px">{html.escape(view.label(start))}</div>'
        f'<script type="application/json" class="gv-data">{payload}</script>'
        f"<script>{_SCRIPT.replace('__ID__', uid)}</script>"
        "</div>"
    )


_SCRIPT = r"""
(function () {
  var root = document.getElementById("__ID__");
  if (!root || root.dataset.ready) return;
  root.dataset.ready = "1";
  var data = JSON.parse(root.querySelector(".gv-data").textContent);
  var svg = root.querySelector(".gv-board svg");
  var slider = root.querySelector(".gv-slider");
  var label = root.querySelector(".gv-label");
  var play = root.querySelector(".gv-play");
  var NS = "http://www.w3.org/2000/svg";
  var n = data.size, cell = data.cell, timer = null, current = data.start;
  svg.querySelectorAll(".stone, .last-move, .move-number").forEach(function (e) { e.remove(); });
  var layer = document.createElementNS(NS, "g");
  layer.setAttribute("class", "gv-stones");
  svg.appendChild(layer);
  function circle(cls, x, y, r, fill, stroke, width) {
    var c = document.createElementNS(NS, "circle");
    c.setAttribute("class", cls); c.setAttribute("cx", x.toFixed(1)); c.setAttribute("cy", y.toFixed(1));
    c.setAttribute("r", r.toFixed(1)); c.setAttribute("fill", fill);
    c.setAttribute("stroke", stroke); c.setAttribute("stroke-width", width);
    layer.appendChild(c);
  }
  function show(t) {
    t = Math.max(0, Math.min(data.boards.length - 1, t));
    current = t;
    while (layer.firstChild) layer.removeChild(layer.firstChild);
    var board = data.boards[t];
    for (var p = 0; p < n * n; p++) {
      var ch = board.charAt(p);
      if (ch === ".") continue;
      var x = data.x0 + (p % n) * cell, y = data.y0 + Math.floor(p / n) * cell;
      if (ch === "X") circle("stone black", x, y, cell * 0.47, "#111111", "#2b2b2b", 0.8);
      else circle("stone white", x, y, cell * 0.47, "#f7f7f2", "#2b2b2b", 0.8);
    }
    var last = data.last[t];
    if (last >= 0 && last < n * n) {
      var ring = board.charAt(last) === "X" ? "#f7f7f2" : "#111111";
      circle("last-move", data.x0 + (last % n) * cell, data.y0 + Math.floor(last / n) * cell,
             cell * 0.22, "none", ring, Math.max(1.5, cell * 0.07).toFixed(1));
    }
    slider.value = t;
    label.textContent = data.labels[t] + "  [" + t + "/" + (data.boards.length - 1) + "]";
    root.dataset.frame = t;
  }
  function stop() { if (timer) { clearInterval(timer); timer = null; play.textContent = "play"; } }
  function toggle() {
    if (timer) { stop(); return; }
    if (current >= data.boards.length - 1) show(0);
    play.textContent = "pause";
    timer = setInterval(function () {
      if (current >= data.boards.length - 1) { stop(); return; }
      show(current + 1);
    }, data.interval);
  }
  root.querySelector(".gv-first").onclick = function () { stop(); show(0); };
  root.querySelector(".gv-prev").onclick = function () { stop(); show(current - 1); };
  root.querySelector(".gv-next").onclick = function () { stop(); show(current + 1); };
  root.querySelector(".gv-last").onclick = function () { stop(); show(data.boards.length - 1); };
  play.onclick = toggle;
  slider.oninput = function () { stop(); show(parseInt(slider.value, 10)); };
  root.addEventListener("keydown", function (e) {
    if (e.key === "ArrowRight") { stop(); show(current + 1); e.preventDefault(); }
    else if (e.key === "ArrowLeft") { stop(); show(current - 1); e.preventDefault(); }
  });
  root.gojaxShow = show;
  show(current);
})();
"""
