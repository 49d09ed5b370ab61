"""A whole game to step through: in Jupyter (buttons, slider), as an animated SVG, or as text.

::

    from gojax import svg
    view = svg.game_view(record)                   # or (config, states [T + 1]), (config, [GoState]),
    view                                           # (config, boards [T + 1, N, N]), (config, actions [T])
    view.frame(12)                                 # SvgBoard of the position after move 12
    view.save_html("game.html")                    # a page with the stepper (atomic write)
    view.save_svg("game.svg")                      # an animated SVG (SMIL; plays in any browser)
    print(view.ascii(12)); view.step_through()     # the same in a terminal

Frame ``t`` is the position after ``t`` moves (frame 0 the start), so a game
of ``T`` moves has ``T + 1`` frames. The HTML view holds the boards as short
strings (one character per point) and draws the stones of the frame shown
with a few lines of inline JavaScript - no external assets, and a 250-move
19x19 game stays under 200 kB. Without JavaScript (an untrusted notebook) it
shows the static picture of the frame it starts on (the last by default).
Controls: first, previous, play/pause, next, last, a slider, and the arrow
keys once the view has the focus.
"""

from __future__ import annotations

import html
import itertools
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import jax
import numpy as np

from gojax._core import bitboard as bb
from gojax._core import checks
from gojax._core.guards import check_board
from gojax._core.types import BLACK, EMPTY, WHITE, GoConfig, GoState
from gojax._host.atomic import atomic_write
from gojax._host.diagram import render_board
from gojax._host.grid import decode
from gojax._host.vertices import vertex
from gojax.sgf import GameRecord
from gojax.svg._board import SvgBoard, board_origin, board_svg

__all__ = ["GameView", "game_view"]

_COLOUR = {BLACK: "B", WHITE: "W"}


class GameView:
    """The positions of one game, frame ``t`` after ``t`` moves (build it with :func:`game_view`).

    Attributes:
      config: the rules (board size).
      boards: ``int8[T + 1, N, N]`` the board of every frame (0 empty, 1 black, 2 white).
      last_moves: ``int32[T + 1]`` the move that led to each frame (``-1`` for
        frame 0 and when unknown, ``P`` for a pass).
      movers: ``int8[T + 1]`` who played that move (1 black, 2 white; 0 for frame 0).
      captures: ``int32[T + 1, 2]`` stones captured so far by black, by white
        (``-1`` when unknown).
      title: a caption above the board.
      start: the frame shown first (default the last).
    """

    def __init__(
        self,
        config: GoConfig,
        boards,
        last_moves=None,
        movers=None,
        captures=None,
        *,
        title: str | None = None,
        start: int | None = None,
        cell: float = 24.0,
    ):
        boards = np.asarray(boards)
        size = config.size
        if boards.ndim != 3 or boards.shape[1:] != (size, size) or boards.shape[0] < 1:
            raise ValueError(f"boards must be int[T + 1, {size}, {size}]; got shape {boards.shape}")
        if not np.isin(boards, (EMPTY, BLACK, WHITE)).all():
            raise ValueError("boards must hold 0 (empty), 1 (black) and 2 (white) only")
        frames = boards.shape[0]
        self.config = config
        self.boards = boards.astype(np.int8)
        self.last_moves = self._per_frame(last_moves, -1, "last_moves").astype(np.int32)
        if movers is None:
            movers = [EMPTY] + [BLACK if t % 2 else WHITE for t in range(1, frames)]
        self.movers = self._per_frame(movers, EMPTY, "movers").astype(np.int8)
        captures = np.full((frames, 2), -1) if captures is None else np.asarray(captures)
        if captures.shape != (frames, 2):
            raise ValueError(f"captures must be int[{frames}, 2]; got shape {captures.shape}")
        self.captures = captures.astype(np.int32)
        self.title = title
        self.start = frames - 1 if start is None else self._frame_index(start)
        self.cell = float(cell)

    def _per_frame(self, values, default, name: str) -> np.ndarray:
        frames = self.boards.shape[0]
        if values is None:
            return np.full(frames, default)
        values = np.asarray(values).reshape(-1)
        if values.shape != (frames,):
            raise ValueError(f"{name} must have one entry per frame ({frames}); got shape {values.shape}")
        return values

    def _frame_index(self, t: int) -> int:
        frames = len(self)
        try:
            return checks.integer(t, "frame", least=-frames, most=frames - 1) % frames
        except TypeError as error:  # game_view reports inputs of the wrong type as ValueError
            raise ValueError(str(error)) from None

    def __len__(self) -> int:
        return int(self.boards.shape[0])

    def __repr__(self) -> str:
        return f"GameView({self.config.size}x{self.config.size}, frames={len(self)}, title={self.title!r})"

    def label(self, t: int) -> str:
        """A caption for frame ``t``: ``"move 12: B D4"``, ``"start"``, captures when known."""
        t = self._frame_index(t)
        if t == 0:
            text = "start"
        else:
            action = int(self.last_moves[t])
            where = "?" if action < 0 else vertex(self.config.size, action)
            text = f"move {t}: {_COLOUR.get(int(self.movers[t]), '?')} {where}"
        black, white = (int(v) for v in self.captures[t])
        if black >= 0 and (black or white):
            text += f" (captures B {black}, W {white})"
        return text

    def frame(self, t: int, **kwargs):
        """:class:`~gojax.svg.SvgBoard` of frame ``t``, last move ringed (keywords of ``board_svg``)."""
        t = self._frame_index(t)
        kwargs.setdefault("last_move", int(self.last_moves[t]))
        kwargs.setdefault("title", self.label(t) if self.title is None else f"{self.title} - {self.label(t)}")
        kwargs.setdefault("cell", self.cell)
        return SvgBoard(board_svg(self.config, self.boards[t], **kwargs))

    def frames(self, **kwargs) -> list[str]:
        """The SVG of every frame (``T + 1`` documents; keywords as :meth:`frame`)."""
        return [self.frame(t, **kwargs).svg for t in range(len(self))]

    # ----------------------------------------------------------------- text
    def ascii(self, t: int, *, coordinates: bool = True) -> str:
        """Frame ``t`` as text (as :func:`gojax.render`: ``X``/``O``/``.``, last move in parentheses)."""
        t = self._frame_index(t)
        board = render_board(self.boards[t], int(self.last_moves[t]), coordinates=coordinates)
        return f"{self.label(t)}\n{board}"

    def step_through(
        self,
        input_fn: Callable[[str], str] = input,
        print_fn: Callable[[str], None] = print,
        start: int | None = None,
    ) -> int:
        """Steps through the game in a terminal: Enter/``n`` next, ``p`` back, a number jumps, ``q`` quits.

        Returns the frame shown last (also on end of input).
        """
        t = self.start if start is None else self._frame_index(start)
        while True:
            print_fn(self.ascii(t))
            try:
                answer = input_fn(f"[{t}/{len(self) - 1}] Enter/n next, p previous, number, q quit: ").strip()
            except EOFError:
                return t
            if answer in ("q", "quit"):
                return t
            if answer in ("", "n"):
                t = min(t + 1, len(self) - 1)
            elif answer == "p":
                t = max(t - 1, 0)
            elif answer.lstrip("-").isdigit():
                t = max(0, min(int(answer), len(self) - 1))

    def play_in_terminal(
        self, seconds_per_move: float = 0.3, print_fn: Callable[[str], None] = print
    ) -> None:
        """Prints every frame in turn, clearing the screen between them (ANSI escape codes)."""
        for t in range(len(self)):
            print_fn("\x1b[2J\x1b[H" + self.ascii(t))
            time.sleep(seconds_per_move)

    # ----------------------------------------------------------------- HTML
    def to_html(self, element_id: str | None = None, interval_ms: int = 500) -> str:
        """The stepper as an HTML fragment (a ``div`` with the board, the controls and the script)."""
        return _stepper_html(self, element_id, interval_ms)

    def _repr_html_(self) -> str:
        return self.to_html()

    def save_html(self, path, *, title: str | None = None) -> Path:
        """Writes a standalone HTML page with the stepper (atomic: temporary file, then ``os.replace``)."""
        heading = html.escape(title or self.title or "gojax game")
        page = (
            '<!doctype html>\n<html><head><meta charset="utf-8">'
            f"<title>{heading}</title></head>\n"
            '<body style="margin:8px;background:#fff">'
            f"{self.to_html(element_id='gojax-game')}</body></html>\n"
        )
        return atomic_write(path, page)

    # ----------------------------------------------------------------- animated SVG
    def animated_svg(self, seconds_per_move: float = 0.6, *, loop: bool = True) -> str:
        """The game as one animated SVG (SMIL: each stone is shown from its move until it is captured).

        Args:
          seconds_per_move: time per frame.
          loop: start again after the last frame (else stop on it).
        """
        return _animated_svg(self, seconds_per_move, loop=loop)

    def save_svg(self, path, seconds_per_move: float = 0.6, *, loop: bool = True) -> Path:
        """Writes :meth:`animated_svg` to ``path`` atomically."""
        return atomic_write(path, self.animated_svg(seconds_per_move, loop=loop))


def game_view(
    source,
    states=None,
    *,
    title: str | None = None,
    start: int | None = None,
    cell: float = 24.0,
) -> GameView:
    """A :class:`GameView` of one game, from a record, states, boards or actions.

    Args:
      source: a :class:`~gojax.sgf.GameRecord` (replayed with
        ``states_along``; ``states`` must be ``None``), or the
        :class:`~gojax.GoConfig` of the game given in ``states``.
      states: with a config: a ``GoState`` batched ``[T + 1]`` (e.g.
        ``record.states_along()`` or a ``lax.scan`` that collects states, the
        start first), a list of ``T + 1`` unbatched ``GoState`` s, boards
        ``int[T + 1, N, N]``, or ``T`` actions (``int[T]``, played from the
        empty board with black first).
      title: a caption (default: the players and result of a record).
      start: the frame shown first (default the last).
      cell: grid spacing in pixels.

    Raises:
      ValueError: for inputs of the wrong type or shape; ``SGFError`` (a
        ``ValueError``) when a record or the actions cannot be replayed.
    """
    if isinstance(source, GameRecord):
        if states is not None:
            raise ValueError("game_view(record) takes no states: the record is replayed")
        record = source
        if title is None:
            meta = record.metadata
            if "PB" in meta or "PW" in meta:
                title = f"{meta.get('PB', '?')} (B) vs {meta.get('PW', '?')} (W)"
            if record.result:
                title = f"{title}, {record.result}" if title else record.result
        return _from_states(record.config, record.states_along(), title, start, cell)
    if not isinstance(source, GoConfig):
        raise ValueError(f"game_view takes a GameRecord or a GoConfig first, got {type(source).__name__}")
    config = source
    if states is None:
        raise ValueError("game_view(config, states): states (or boards, or actions) are missing")
    if hasattr(states, "stones"):
        return _from_states(config, states, title, start, cell)
    if isinstance(states, Sequence) and states and all(hasattr(s, "stones") for s in states):
        return _from_states(config, jax.tree.map(lambda *xs: np.stack(xs), *states), title, start, cell)
    array = np.asarray(states)
    if array.ndim == 3:
        return GameView(config, array, title=title, start=start, cell=cell)
    if array.ndim == 1 and np.issubdtype(array.dtype, np.integer):
        record = GameRecord(
            config=config, setup=np.zeros((config.size, config.size), np.int8), moves=[], name="actions"
        )
        record.moves = [(BLACK if i % 2 == 0 else WHITE, int(a)) for i, a in enumerate(array)]
        return _from_states(config, record.states_along(), title, start, cell)
    raise ValueError(
        "states must be a GoState batched [T + 1], a list of GoStates, boards int[T + 1, N, N] or actions "
        f"int[T]; got {type(states).__name__} of shape {np.shape(states)}"
    )


def _from_states(config: GoConfig, states, title, start, cell) -> GameView:
    stones = np.asarray(states.stones)
    if stones.ndim == 3 and stones.shape[0] and isinstance(states, GoState):
        first = jax.tree.map(lambda field: np.asarray(field)[0], states)
        check_board(config, first, "gojax.svg.game_view")  # the rule functions' error for another board
    if stones.ndim != 3 or stones.shape[1:] != (2, bb.num_words(config.size)):
        raise ValueError(
            f"states must be batched [T + 1] GoStates of a {config.size}x{config.size} game; "
            f"got stones of shape {stones.shape}"
        )
    turn = np.asarray(states.turn).reshape(-1)
    movers = np.where(turn == 0, WHITE, BLACK).astype(np.int8)  # the player who just moved
    movers[0] = EMPTY
    return GameView(
        config,
        decode(stones, config.size),
        np.asarray(states.last_move).reshape(-1),
        movers,
        np.asarray(states.captures).reshape(-1, 2),
        title=title,
        start=start,
        cell=cell,
    )


# --------------------------------------------------------------------------- the HTML stepper

_CHARS = {EMPTY: ".", BLACK: "X", WHITE: "O"}
_COUNTER = itertools.count()


def _stepper_html(view: GameView, element_id: str | None = None, interval_ms: int = 500) -> str:
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


# --------------------------------------------------------------------------- the animated SVG


def _animated_svg(view: GameView, seconds_per_move: float = 0.6, *, loop: bool = True) -> str:
    """The game of ``view`` as one animated SVG (SMIL: each stone shows from its move until captured).

    Args:
      seconds_per_move: time per frame.
      loop: start again after the last frame (else stop on it).
    """
    if seconds_per_move <= 0:
        raise ValueError(f"seconds_per_move must be positive, got {seconds_per_move!r}")
    size, frames = view.config.size, len(view)
    cell = view.cell
    x0, y0 = (round(v, 2) for v in board_origin(cell, titled=True))
    background = board_svg(  # an empty title row: each frame writes its caption there
        view.config, np.zeros((size, size), np.int8), last_move=False, title="\u00a0", cell=cell
    )
    total = seconds_per_move * frames
    repeat = 'repeatCount="indefinite"' if loop else 'fill="freeze"'

    def visible_between(first: int, stop: int) -> str:
        """A discrete visibility animation: shown in frames ``[first, stop)``."""
        times, values = ["0"], ["hidden" if first > 0 else "visible"]
        if first > 0:
            times.append(f"{first / frames:.6f}")
            values.append("visible")
        if stop < frames:
            times.append(f"{stop / frames:.6f}")
            values.append("hidden")
        return (
            f'<animate attributeName="visibility" dur="{total:.3f}s" calcMode="discrete" '
            f'keyTimes="{";".join(times)}" values="{";".join(values)}" {repeat}/>'
        )

    fill = {BLACK: "#111111", WHITE: "#f7f7f2"}
    css = {BLACK: "stone black", WHITE: "stone white"}
    parts = []
    flat = view.boards.reshape(frames, -1)
    for point in range(size * size):
        row, col = divmod(point, size)
        column = flat[:, point]
        t = 0
        while t < frames:  # runs of the same stone on this point
            colour = int(column[t])
            stop = t + 1
            while stop < frames and column[stop] == colour:
                stop += 1
            if colour != EMPTY:
                parts.append(
                    f'<circle class="{css[colour]}" '
                    f'cx="{x0 + col * cell:.1f}" cy="{y0 + row * cell:.1f}" '
                    f'r="{cell * 0.47:.1f}" fill="{fill[colour]}" stroke="#2b2b2b" stroke-width="0.8" '
                    f'visibility="hidden">{visible_between(t, stop)}</circle>'
                )
            t = stop
    xs, ys, shown = [], [], []
    for t in range(frames):
        action = int(view.last_moves[t])
        on_board = 0 <= action < size * size
        row, col = divmod(action, size) if on_board else (0, 0)
        xs.append(f"{x0 + col * cell:.1f}")
        ys.append(f"{y0 + row * cell:.1f}")
        shown.append("visible" if on_board else "hidden")
    timing = f'dur="{total:.3f}s" calcMode="discrete" {repeat}'
    parts.append(
        f'<circle class="last-move" r="{cell * 0.22:.1f}" fill="none" stroke="#c0392b" '
        f'stroke-width="{max(1.5, cell * 0.07):.1f}" cx="{xs[0]}" cy="{ys[0]}" visibility="hidden">'
        f'<animate attributeName="cx" values="{";".join(xs)}" {timing}/>'
        f'<animate attributeName="cy" values="{";".join(ys)}" {timing}/>'
        f'<animate attributeName="visibility" values="{";".join(shown)}" {timing}/></circle>'
    )
    width = float(background.split('width="', 1)[1].split('"', 1)[0])
    for t in range(frames):
        caption = view.label(t) if view.title is None else f"{view.title} - {view.label(t)}"
        parts.append(
            f'<text class="frame-label" x="{width / 2:.1f}" y="{cell * 0.75:.1f}" text-anchor="middle" '
            f'font-size="{cell * 0.5:.1f}" fill="#2b2b2b" visibility="hidden">{html.escape(caption)}'
            f"{visible_between(t, t + 1)}</text>"
        )
    return background.replace("</svg>", "\n".join(parts) + "\n</svg>")
