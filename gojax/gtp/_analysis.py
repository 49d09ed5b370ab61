"""Analysis commands of :class:`~gojax.gtp.GTPEngine` for GUIs (host side; the tree-search player).

They run the same search as ``genmove`` (the engine's
:class:`~gojax.gtp._mcts.TreeSearcher`, its tree kept between commands):

* ``lz-analyze [colour] [interval] [key value ...]`` (Leela Zero, read by
  Sabaki and Lizzie) and ``kata-analyze`` (KataGo): the reply ``=`` is
  followed by one line every ``interval`` centiseconds, ``info move D4 visits
  V winrate W prior P lcb L order O pv D4 C3 ... info move ...``, until the
  next input line arrives; then the usual empty line ends the reply. For
  ``lz-analyze`` ``winrate``, ``prior`` and ``lcb`` are integers in [0,
  10000]; for ``kata-analyze`` floats in [0, 1], with ``scoreLead`` and
  ``scoreMean`` (both the move's mean final score over its playouts,
  Tromp-Taylor area minus komi, from the analysed player's view: the lead
  Sabaki and Lizzie show), and ``kata-analyze ...
  ownership true`` appends ``ownership`` and ``N*N`` floats in [-1, 1], row
  by row from the top left, from the analysed player's view.
  ``lz-genmove_analyze`` / ``kata-genmove_analyze`` (same arguments) are
  ``genmove`` with these lines while it searches, then ``play VERTEX``; they
  are not interrupted by the next command. Keys honoured:
  ``interval``, ``minmoves`` (list unvisited legal moves by prior up to this
  many), ``maxmoves``, ``ownership`` (``kata-analyze``). Any other key with
  one value (KataGo's ``ownershipStdev``, ``pvVisits``, ``pvEdgeVisits``,
  ``movesOwnership``, ``rootInfo`` ...) and ``allow`` / ``avoid`` with their
  three (``PLAYER VERTICES UNTILDEPTH``) are accepted and ignored, as
  KataGo's clients expect; a key without its values is a syntax error. Win
  rates are the analysed player's. Streaming needs the console loop
  (``gojax-gtp``); through :meth:`~gojax.gtp.GTPEngine.handle_line` an
  analysis searches one interval (``seconds_per_move`` when it is 0) and
  answers one line, and a ``*-genmove_analyze`` answers ``play VERTEX``.
* ``gogui-analyze_commands`` (GoGui's analyze menu) and the commands it
  lists: ``gojax-visits_gfx`` (a heat map of the root visits with their
  counts), ``gojax-prior_gfx`` (the prior), ``gojax-pv_gfx`` (the principal
  variation), ``gojax-winrate`` (the win rate as text) and
  ``gojax-ownership`` (the mean final ownership, black +1, as a board of
  numbers). Each searches ``seconds_per_move`` (1 s without one) first.
"""

from __future__ import annotations

import dataclasses
import logging
import math
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from gojax._core.types import BLACK, WHITE, GoConfig, GoState
from gojax._host.vertices import to_gtp
from gojax.gtp._genmove import position_for
from gojax.gtp._mcts import TreeSearcher
from gojax.gtp._moves import genmove
from gojax.gtp._protocol import Command, CommandError, format_error, parse_colour, parse_number
from gojax.search import SearchStats

if TYPE_CHECKING:
    from gojax.gtp._engine import GTPEngine

__all__ = [
    "ANALYSIS_PLAYOUTS",
    "STREAMING",
    "AnalyzeRequest",
    "analyze",
    "format_analysis",
    "gogui_analyze_commands",
    "kata_analyze",
    "kata_genmove_analyze",
    "lz_analyze",
    "lz_genmove_analyze",
    "ownership",
    "parse_analyze",
    "prior_gfx",
    "pv_gfx",
    "visits_gfx",
    "winrate",
]

STREAMING = ("lz-analyze", "kata-analyze", "lz-genmove_analyze", "kata-genmove_analyze")
"""The commands whose reply streams (the analyses until the next input line, the genmoves until the move)."""
ANALYSIS_PLAYOUTS = 500_000
"""An analysis stops searching (and waits for the next command) once its tree holds this many playouts."""
_GOGUI = (
    "gfx/Visits (tree search)/gojax-visits_gfx",
    "gfx/Policy prior/gojax-prior_gfx",
    "gfx/Principal variation/gojax-pv_gfx",
    "string/Win rate/gojax-winrate",
    "dboard/Ownership (black +1)/gojax-ownership",
)
_LETTER = {BLACK: "b", WHITE: "w"}
_HONOURED = ("interval", "minmoves", "maxmoves", "ownership")  # ownership: kata-analyze only
_SPAN_KEYS = ("allow", "avoid")  # KEY PLAYER VERTICES UNTILDEPTH: three values, accepted and ignored
log = logging.getLogger("gojax.gtp")


@dataclasses.dataclass(frozen=True)
class AnalyzeRequest:
    """One ``lz-analyze`` / ``kata-analyze`` request.

    Attributes:
      colour: the player analysed (1 black, 2 white).
      interval: seconds between two output lines (0: one line, when stopped).
      ownership: append the ownership (``kata-analyze`` only).
      minmoves: list at least this many moves (unvisited legal ones by prior).
      maxmoves: list at most this many moves (``None``: every visited one).
    """

    colour: int
    interval: float = 0.0
    ownership: bool = False
    minmoves: int = 0
    maxmoves: int | None = None


def parse_analyze(args: tuple[str, ...], to_play: int, kata: bool = False) -> AnalyzeRequest:
    """The request of ``[colour] [interval] [key value ...]`` (``to_play`` when no colour is given).

    Raises:
      CommandError: ``syntax error`` naming the bad word.
    """
    words = list(args)
    colour = to_play
    values: dict[str, str] = {}
    if words and words[0].lower() in ("b", "w", "black", "white"):
        colour = parse_colour(words.pop(0))
    if words and _is_number(words[0]):
        values["interval"] = words.pop(0)
    while words:
        key = words.pop(0)
        arity = 3 if key in _SPAN_KEYS else 1
        if len(words) < arity:
            raise CommandError(f"syntax error: analysis key {key!r} needs {arity} value(s)")
        given = [words.pop(0) for _ in range(arity)]
        if key in _HONOURED and (key != "ownership" or kata):
            values[key] = given[0]
        else:
            log.info("analysis key %r accepted and ignored", key)
    interval = parse_number(values.get("interval", "0"), "interval") / 100.0
    if interval < 0:
        raise CommandError(f"syntax error: interval must be >= 0, got {values['interval']!r}")
    counts = {}
    for key in ("minmoves", "maxmoves"):
        if key in values:
            counts[key] = int(parse_number(values[key], key, integer=True))
            if counts[key] < 0:
                raise CommandError(f"syntax error: {key} must be >= 0, got {values[key]!r}")
    ownership = values.get("ownership", "false").lower()
    if ownership not in ("true", "false"):
        raise CommandError(f"syntax error: ownership must be true or false, got {ownership!r}")
    return AnalyzeRequest(
        colour, interval, ownership == "true", counts.get("minmoves", 0), counts.get("maxmoves")
    )


def _is_number(word: str) -> bool:
    try:
        float(word)
    except ValueError:
        return False
    return True


def _listed(stats: SearchStats, request: AnalyzeRequest) -> list[int]:
    """The actions reported, best first: visited by visits (then win rate), then unvisited by prior."""
    visits = np.asarray(stats.visits)
    visited = [int(a) for a in np.flatnonzero(visits > 0)]
    visited.sort(key=lambda a: (-int(visits[a]), -float(stats.winrate[a])))
    if len(visited) < request.minmoves:
        prior = np.asarray(stats.prior)
        rest = [int(a) for a in np.argsort(-prior, kind="stable") if visits[a] == 0 and prior[a] > 0]
        visited += rest[: request.minmoves - len(visited)]
    return visited if request.maxmoves is None else visited[: request.maxmoves]


def _lcb(rate: float, visits: int) -> float:
    """A 95% lower confidence bound of a win rate after ``visits`` playouts (normal approximation)."""
    if visits <= 0 or not math.isfinite(rate):
        return 0.0
    return max(0.0, rate - 1.96 * math.sqrt(max(rate * (1 - rate), 0.0) / visits))


def format_analysis(config: GoConfig, stats: SearchStats, request: AnalyzeRequest, kata: bool) -> str:
    """One analysis line (``info move ... info move ...`` [``ownership ...``]), see the module docstring."""
    parts = []
    for order, action in enumerate(_listed(stats, request)):
        visits = int(stats.visits[action])
        rate = float(stats.winrate[action]) if visits > 0 else 0.0
        prior, lcb = float(stats.prior[action]), _lcb(rate, visits)
        pv = " ".join(to_gtp(config, int(a)) for a in stats.pvs.get(action, (action,)))
        if kata:
            lead = float(stats.score_lead[action]) if visits > 0 else 0.0
            score = f"scoreMean {lead:.3f} scoreLead {lead:.3f}"
            numbers = f"winrate {rate:.6f} {score} prior {prior:.6f} lcb {lcb:.6f}"
        else:
            numbers = f"winrate {round(rate * 10000)} prior {round(prior * 10000)} lcb {round(lcb * 10000)}"
        parts.append(f"info move {to_gtp(config, action)} visits {visits} {numbers} order {order} pv {pv}")
    if kata and request.ownership and stats.ownership is not None:
        sign = 1.0 if request.colour == BLACK else -1.0
        values = " ".join(f"{sign * float(v):.4f}" for v in np.asarray(stats.ownership))
        parts.append(f"ownership {values}")
    return " ".join(parts)


def _tree_searcher(engine: GTPEngine) -> TreeSearcher:
    if not isinstance(engine.searcher, TreeSearcher):
        raise CommandError("analysis needs the tree-search player (--player mcts)")
    return engine.searcher


def _position(engine: GTPEngine, colour: int) -> GoState | None:
    state = position_for(engine.game, colour)
    return None if state is None or bool(state.done) else state


def _analysis_seconds(engine: GTPEngine) -> float:
    return _tree_searcher(engine).seconds_per_move or 1.0


def _analyze_once(engine: GTPEngine, args: tuple[str, ...], kata: bool) -> str:
    searcher = _tree_searcher(engine)
    request = parse_analyze(args, engine.game.to_play, kata)
    state = _position(engine, request.colour)
    if state is None:
        return ""
    seconds = request.interval or _analysis_seconds(engine)
    stats = searcher.search(engine.config, state, seconds)
    return format_analysis(engine.config, stats, request, kata)


def lz_analyze(engine: GTPEngine, args: tuple[str, ...]) -> str:
    return _analyze_once(engine, args, kata=False)


def kata_analyze(engine: GTPEngine, args: tuple[str, ...]) -> str:
    return _analyze_once(engine, args, kata=True)


def _genmove_analyze_once(engine: GTPEngine, args: tuple[str, ...], kata: bool) -> str:
    _tree_searcher(engine)
    request = parse_analyze(args, engine.game.to_play, kata)
    return f"play {genmove(engine, (_LETTER[request.colour],))}"


def lz_genmove_analyze(engine: GTPEngine, args: tuple[str, ...]) -> str:
    return _genmove_analyze_once(engine, args, kata=False)


def kata_genmove_analyze(engine: GTPEngine, args: tuple[str, ...]) -> str:
    return _genmove_analyze_once(engine, args, kata=True)


def analyze(
    engine: GTPEngine, command: Command, write: Callable[[str], None], should_stop: Callable[[], bool]
) -> None:
    """Runs a streaming ``lz-analyze`` / ``kata-analyze`` and writes its whole framed reply.

    Args:
      engine: the engine.
      command: the parsed command (its name one of ``STREAMING``).
      write: writes (and flushes) text to the controller.
      should_stop: ``True`` once the next input line has arrived.
    """
    kata = command.name.startswith("kata-")
    try:
        searcher = _tree_searcher(engine)
        request = parse_analyze(command.args, engine.game.to_play, kata)
    except CommandError as error:
        write(format_error(command.id, str(error)))
        return
    if command.name.endswith("genmove_analyze"):
        _genmove_analyze(engine, command, request, kata, write)
        return
    write(f"={command.id or ''}\n")
    state = _position(engine, request.colour)
    if state is not None:

        def emit(stats: SearchStats) -> None:
            write(format_analysis(engine.config, stats, request, kata) + "\n")

        stats = searcher.search(
            engine.config,
            state,
            None,
            playouts=ANALYSIS_PLAYOUTS,
            should_stop=should_stop,
            on_progress=emit if request.interval > 0 else None,
            progress_every=request.interval if request.interval > 0 else 1.0,
        )
        while not should_stop():
            time.sleep(0.02)
        emit(stats)
    else:
        while not should_stop():
            time.sleep(0.02)
    write("\n")


def _genmove_analyze(
    engine: GTPEngine, command: Command, request: AnalyzeRequest, kata: bool, write: Callable[[str], None]
) -> None:
    """``genmove`` of ``request.colour`` with analysis lines every ``request.interval``, then ``play``."""
    searcher = _tree_searcher(engine)

    def emit(stats: SearchStats) -> None:
        write(format_analysis(engine.config, stats, request, kata) + "\n")

    write(f"={command.id or ''}\n")
    if request.interval > 0:
        searcher.progress = (emit, request.interval)
    try:
        write(f"play {genmove(engine, (_LETTER[request.colour],))}\n")
    except Exception:  # the colour is checked: genmove has nothing left to refuse
        log.exception("%s failed", command.name)
    finally:
        searcher.progress = None
    write("\n")


# -- GoGui ----------------------------------------------------------------------------------------


def gogui_analyze_commands(engine: GTPEngine, args: tuple[str, ...]) -> str:
    return "\n".join(_GOGUI) if isinstance(engine.searcher, TreeSearcher) else ""


def _searched(engine: GTPEngine) -> tuple[int, SearchStats]:
    """``(colour, stats)`` of a search of ``seconds_per_move`` on the current position."""
    searcher = _tree_searcher(engine)
    colour = engine.game.to_play
    state = _position(engine, colour)
    if state is None:
        raise CommandError("the game is over")
    return colour, searcher.search(engine.config, state, _analysis_seconds(engine))


def _summary(config: GoConfig, colour: int, stats: SearchStats) -> str:
    best = to_gtp(config, int(stats.best_action))
    name = "black" if colour == BLACK else "white"
    return f"{name} win rate {stats.root_winrate:.3f} after {stats.playouts} playouts; best {best}"


def _heat(config: GoConfig, colour: int, stats: SearchStats, values: np.ndarray, labels: bool) -> str:
    """INFLUENCE of ``values`` scaled to [0, 1] (negated for white), LABELs of visits, TEXT."""
    points = np.asarray(values, np.float64)[: config.pass_action]
    top = float(points.max()) if points.size and points.max() > 0 else 1.0
    sign = 1.0 if colour == BLACK else -1.0
    cells = [f"{to_gtp(config, int(p))} {sign * points[p] / top:.3f}" for p in np.flatnonzero(points > 0)]
    lines = ["INFLUENCE " + " ".join(cells)] if cells else []
    if labels:
        visits = np.asarray(stats.visits)[: config.pass_action]
        marks = [f"{to_gtp(config, int(p))} {int(visits[p])}" for p in np.flatnonzero(visits > 0)]
        if marks:
            lines.append("LABEL " + " ".join(marks))
    lines.append("TEXT " + _summary(config, colour, stats))
    return "\n".join(lines)


def visits_gfx(engine: GTPEngine, args: tuple[str, ...]) -> str:
    colour, stats = _searched(engine)
    return _heat(engine.config, colour, stats, np.asarray(stats.visits), labels=True)


def prior_gfx(engine: GTPEngine, args: tuple[str, ...]) -> str:
    colour, stats = _searched(engine)
    return _heat(engine.config, colour, stats, np.asarray(stats.prior), labels=False)


def pv_gfx(engine: GTPEngine, args: tuple[str, ...]) -> str:
    colour, stats = _searched(engine)
    line, mover = [], colour
    for action in stats.pvs.get(int(stats.best_action), (int(stats.best_action),)):
        line.append(f"{_LETTER[mover]} {to_gtp(engine.config, int(action))}")
        mover = BLACK + WHITE - mover
    return "VAR " + " ".join(line) + "\nTEXT " + _summary(engine.config, colour, stats)


def winrate(engine: GTPEngine, args: tuple[str, ...]) -> str:
    colour, stats = _searched(engine)
    return _summary(engine.config, colour, stats)


def ownership(engine: GTPEngine, args: tuple[str, ...]) -> str:
    _, stats = _searched(engine)
    if stats.ownership is None:
        raise CommandError("the tree search gives no ownership")
    size = engine.config.size
    grid = np.asarray(stats.ownership, np.float64).reshape(size, size)
    return "\n".join(" ".join(f"{v:.2f}" for v in row) for row in grid)
