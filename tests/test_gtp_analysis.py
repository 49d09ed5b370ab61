"""Analysis for GUIs (gojax.gtp's ``lz-analyze``, ``kata-analyze``, GoGui's analyze commands).

* Requests parsed (colour, interval in centiseconds, keys) and bad ones
  refused; the lines of hand-made statistics parsed back: Leela Zero's
  integer win rates and priors (0-10000), KataGo's floats, the order by
  visits, ``minmoves``/``maxmoves``, the ownership from the analysed player's
  view.
* The real search on 5x5: the streamed lines parsed back agree with the
  tree's own statistics (``TreeSearch.stats``), come every interval of a
  hand-advanced clock, and stop when the next input arrives; through the
  console loop (``gojax-gtp``'s ``main``) an ``lz-analyze`` is interrupted by
  the next command, which is then answered.
* ``lz-genmove_analyze``: analysis lines, then ``play`` the move it played.
* ``gogui-analyze_commands`` and each command it lists: the visit heat map
  and its labels against the search's visits, the principal variation, the
  win rate, the ownership board.
"""

from __future__ import annotations

import io
import os
import queue
import sys
import threading
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import gojax
from gojax import gtp
from gojax.gtp import PlayerSpec
from gojax.gtp._analysis import AnalyzeRequest, format_analysis, parse_analyze
from gojax.gtp._protocol import CommandError, parse_command
from gojax.search import SearchStats

SIZE = 5
CONFIG = gojax.GoConfig(size=SIZE)
P = SIZE * SIZE


def parse_info(line: str) -> tuple[list[dict], list[float] | None]:
    """``([{move, visits, winrate, prior, order, pv}, ...], ownership)`` of one analysis line."""
    ownership = None
    if " ownership " in f" {line}":
        line, _, rest = line.partition("ownership")
        ownership = [float(v) for v in rest.split()]
    entries = []
    for chunk in filter(None, (part.strip() for part in line.split("info "))):
        words = chunk.split()
        pv_at = words.index("pv")
        fields = dict(zip(words[:pv_at:2], words[1:pv_at:2], strict=True))
        fields["pv"] = words[pv_at + 1 :]
        entries.append(fields)
    return entries, ownership


def hand_stats(to_play=1, ownership=None) -> SearchStats:
    visits = np.zeros(P + 1, np.int64)
    visits[[12, 7, 24]] = [50, 30, 20]
    rate = np.full(P + 1, np.nan, np.float32)
    rate[[12, 7, 24]] = [0.61234, 0.5, 0.25]
    prior = np.zeros(P + 1, np.float32)
    prior[[12, 7, 24, 0, 1]] = [0.4, 0.1, 0.1, 0.3, 0.1]
    pvs = {12: (12, 13, 7), 7: (7,), 24: (24, 0)}
    lead = np.full(P + 1, np.nan, np.float32)
    lead[[12, 7, 24]] = [3.25, -0.5, -7.125]
    return SearchStats(to_play, visits, rate, prior, 0.58, 12, pvs, ownership, 100, 0.5, lead, 1.5)


def test_requests_are_parsed_and_bad_ones_refused():
    assert parse_analyze(("b", "50"), 2) == AnalyzeRequest(1, 0.5)
    assert parse_analyze(("20",), 2) == AnalyzeRequest(2, 0.2)
    assert parse_analyze(("interval", "10", "minmoves", "4", "maxmoves", "2"), 1) == AnalyzeRequest(
        1, 0.1, minmoves=4, maxmoves=2
    )
    assert parse_analyze(("w", "5", "ownership", "true"), 1, kata=True) == AnalyzeRequest(2, 0.05, True)
    # KataGo's other keys are accepted and ignored (allow/avoid take three values); lz-analyze skips ownership
    kata_keys = ("ownershipStdev", "true", "pvVisits", "true", "movesOwnership", "false", "rootInfo", "true")
    spans = ("avoid", "b", "D4,E5", "1", "allow", "w", "C3", "2")
    assert parse_analyze(("b", "50", *kata_keys, *spans, "maxmoves", "3"), 2, kata=True) == AnalyzeRequest(
        1, 0.5, maxmoves=3
    )
    assert parse_analyze(("5", "ownership", "true"), 1) == AnalyzeRequest(1, 0.05)
    for args, kata, message in (
        (("-5",), False, "interval must be >= 0"),
        (("x5",), False, "'x5' needs 1 value"),
        (("interval",), False, "needs 1 value"),
        (("avoid", "b", "D4"), True, "'avoid' needs 3 value"),
        (("5", "ownership", "maybe"), True, "ownership must be true or false"),
        (("5", "maxmoves", "-1"), False, "maxmoves must be >= 0"),
    ):
        with pytest.raises(CommandError, match=message):
            parse_analyze(args, 1, kata)


def test_lines_of_hand_made_stats_parse_back():
    stats = hand_stats()
    entries, ownership = parse_info(format_analysis(CONFIG, stats, AnalyzeRequest(1), kata=False))
    assert ownership is None
    assert [e["move"] for e in entries] == ["C3", "C4", "E1"]  # by visits: points 12, 7, 24
    assert [int(e["visits"]) for e in entries] == [50, 30, 20]
    assert [int(e["winrate"]) for e in entries] == [6123, 5000, 2500]
    assert [int(e["prior"]) for e in entries] == [4000, 1000, 1000]
    assert [int(e["order"]) for e in entries] == [0, 1, 2]
    assert entries[0]["pv"] == ["C3", "D3", "C4"] and entries[2]["pv"] == ["E1", "A5"]
    assert all(0 <= int(e["lcb"]) <= int(e["winrate"]) for e in entries)
    owned = np.linspace(-1, 1, P).astype(np.float32)
    request = AnalyzeRequest(2, ownership=True, minmoves=5, maxmoves=4)
    entries, ownership = parse_info(format_analysis(CONFIG, hand_stats(2, owned), request, kata=True))
    assert [e["move"] for e in entries] == ["C3", "C4", "E1", "A5"]  # + the best unvisited by prior, cut at 4
    assert float(entries[0]["winrate"]) == pytest.approx(0.61234, abs=1e-6)
    assert [float(e["scoreLead"]) for e in entries] == [3.25, -0.5, -7.125, 0.0]  # unvisited: 0
    assert [e["scoreMean"] for e in entries] == [e["scoreLead"] for e in entries]
    assert float(entries[3]["prior"]) == pytest.approx(0.3) and int(entries[3]["visits"]) == 0
    np.testing.assert_allclose(ownership, -owned, atol=1e-4)  # white's view


@pytest.fixture
def engine(tree_searcher_5x5):
    """A tree-search engine on 5x5 with the session's searcher, black's C3 played."""
    engine = gtp.GTPEngine(CONFIG, PlayerSpec("mcts"))
    engine.searcher = tree_searcher_5x5
    engine.send("play b c3")
    yield engine
    engine.time_source = time.monotonic


def _stream(engine, line, stop_after, now=None, polls=None):
    """Runs a streaming analysis until ``stop_after`` writes (or ``polls`` looks); returns (writes, times)."""
    written, times, looks = [], [], [0]

    def should_stop():
        looks[0] += 1
        return len(written) > stop_after or (polls is not None and looks[0] > polls)

    if now is not None:
        engine.time_source = now

    def write(text):
        written.append(text)
        times.append(now() if now is not None else 0.0)

    try:
        engine.analyze(parse_command(line), write, should_stop=should_stop)
    finally:
        engine.time_source = time.monotonic
    return written, times


def test_streamed_analysis_agrees_with_the_tree(engine):
    ticks = [0.0]

    def now():  # 10 ms of hand-advanced time each look
        ticks[0] += 0.01
        return ticks[0]

    written, times = _stream(engine, "7 kata-analyze w interval 30 ownership true", stop_after=4, now=now)
    assert written[0] == "=7\n" and written[-1] == "\n"
    lines = written[1:-1]
    assert len(lines) >= 4 and all(line.startswith("info move ") for line in lines)
    gaps = np.diff(times[1:-2])  # between the periodic lines (the last line is the final one)
    assert (gaps >= 0.3 - 1e-9).all(), gaps
    tree = engine.searcher.tree(engine.config).stats()
    entries, ownership = parse_info(lines[-1].strip())
    for entry in entries:
        action = gojax.from_gtp(engine.config, entry["move"]) if entry["move"] != "pass" else P
        assert int(entry["visits"]) == tree.visits[action]
        assert float(entry["winrate"]) == pytest.approx(float(tree.winrate[action]), abs=1e-5)
        assert float(entry["scoreLead"]) == pytest.approx(float(tree.score_lead[action]), abs=1e-3)
    assert sum(int(e["visits"]) for e in entries) == tree.visits.sum()
    assert [int(e["visits"]) for e in entries] == sorted((int(e["visits"]) for e in entries), reverse=True)
    assert len(ownership) == P and max(abs(v) for v in ownership) <= 1.0
    assert ownership[12] < 0  # black's stone on C3 is white's loss: white's view
    written, _ = _stream(engine, "lz-analyze b 0", stop_after=1, polls=20)
    assert len(written) == 3 and written[1].startswith("info move")  # interval 0: only the final line
    entries, _ = parse_info(written[1])
    assert all(0 <= int(e["winrate"]) <= 10000 for e in entries)
    written, _ = _stream(engine, "lz-analyze b 50 foo", stop_after=0)
    assert written == ["? syntax error: analysis key 'foo' needs 1 value(s)\n\n"]


def test_genmove_analyze_reports_then_plays(engine):
    ticks = [0.0]

    def now():
        ticks[0] += 0.01
        return ticks[0]

    written, _ = _stream(engine, "3 lz-genmove_analyze w 2", stop_after=10**9, now=now)
    assert written[0] == "=3\n" and written[-1] == "\n" and written[-2].startswith("play ")
    infos = written[1:-2]
    assert infos and all(line.startswith("info move ") for line in infos)
    vertex = written[-2].split()[1]
    assert vertex == gojax.to_gtp(CONFIG, engine.searcher.last_stats.best_action)
    assert engine.game.board().reshape(-1)[gojax.from_gtp(CONFIG, vertex)] == 2  # white's move is played
    assert engine.searcher.progress is None
    # Through send (no console loop): the move alone, played.
    reply = engine.send("kata-genmove_analyze b 50 ownership true")
    assert reply.startswith("play ")
    point = gojax.from_gtp(CONFIG, reply.split()[1])
    assert engine.game.board().reshape(-1)[point] == 1


def test_the_console_loop_stops_the_analysis_at_the_next_command(engine, monkeypatch):
    monkeypatch.setattr(gtp._main, "GTPEngine", lambda *args: engine)
    read_end, write_end = os.pipe()
    stdin = io.TextIOWrapper(os.fdopen(read_end, "rb"))
    replies: queue.Queue = queue.Queue()

    class Out(io.StringIO):
        def write(self, text):
            replies.put(text)
            return len(text)

    monkeypatch.setattr(sys, "stdin", stdin)
    monkeypatch.setattr(sys, "stdout", Out())
    thread = threading.Thread(target=lambda: gtp.main(["--size", "5", "--no-compile-cache"]), daemon=True)
    thread.start()
    with os.fdopen(write_end, "wb", buffering=0) as feed:
        feed.write(b"1 lz-analyze 5\n")
        assert replies.get(timeout=120) == "=1\n"
        assert replies.get(timeout=60).startswith("info move ")
        assert replies.get(timeout=60).startswith("info move ")
        feed.write(b"2 name\n")
        while (text := replies.get(timeout=60)) != "\n":
            assert text.startswith("info move ")
        assert replies.get(timeout=60) == "=2 gojax\n\n"
        feed.write(b"quit\n")
        thread.join(timeout=60)
    assert not thread.is_alive()


def test_gogui_analyze_commands_and_their_replies(engine):
    listed = engine.send("gogui-analyze_commands").splitlines()
    assert [entry.split("/")[0] for entry in listed] == ["gfx", "gfx", "gfx", "string", "dboard"]
    commands = [entry.split("/")[2] for entry in listed]
    assert all(engine.send(f"known_command {c}") == "true" for c in commands)
    gfx = dict(line.split(" ", 1) for line in engine.send("gojax-visits_gfx").splitlines())
    stats = engine.searcher.last_stats
    labels = gfx["LABEL"].split()
    labelled = {gojax.from_gtp(CONFIG, v): int(n) for v, n in zip(labels[::2], labels[1::2], strict=True)}
    assert labelled == {int(p): int(stats.visits[p]) for p in np.flatnonzero(stats.visits[:P])}
    heat = gfx["INFLUENCE"].split()
    values = {gojax.from_gtp(CONFIG, v): float(x) for v, x in zip(heat[::2], heat[1::2], strict=True)}
    assert set(values) == set(labelled) and min(values.values()) == -1.0  # white to move: negative
    top = max(labelled, key=labelled.get)
    assert values[top] == -1.0 and "white win rate" in gfx["TEXT"]
    pv = engine.send("gojax-pv_gfx").splitlines()[0].split()
    assert pv[0] == "VAR" and pv[1] == "w" and (len(pv) < 4 or pv[3] == "b")
    assert gojax.from_gtp(CONFIG, pv[2]) == engine.searcher.last_stats.best_action
    assert engine.send("gojax-winrate").startswith("white win rate 0.")
    board = [[float(v) for v in row.split()] for row in engine.send("gojax-ownership").splitlines()]
    assert np.shape(board) == (SIZE, SIZE) and board[2][2] > 0  # black's C3, black's view
    prior = engine.send("gojax-prior_gfx")
    assert prior.startswith("INFLUENCE ") and "C3" not in prior.split("\n")[0]  # occupied: no prior
    plain = gtp.GTPEngine(CONFIG, PlayerSpec("random"))
    assert plain.send("gogui-analyze_commands") == ""
    with pytest.raises(gtp.GTPError, match="needs the tree-search player"):
        plain.send("gojax-visits_gfx")


_ANALYZE_WORDS = st.sampled_from(
    ["b", "w", "white", "10", "0", "-3", "1e9", "nan", "interval", "minmoves", "maxmoves", "ownership",
     "true", "false", "2.5", "x", "allow", "avoid"]
)  # fmt: skip


@settings(max_examples=300, deadline=None, derandomize=True)
@given(words=st.lists(_ANALYZE_WORDS, max_size=7), kata=st.booleans())
def test_fuzz_requests_parse_or_are_refused(words, kata):
    try:
        request = parse_analyze(tuple(words), 2, kata)
    except CommandError as error:
        assert str(error).startswith("syntax error")
        return
    assert request.colour in (1, 2) and request.interval >= 0 and np.isfinite(request.interval)
    assert request.minmoves >= 0 and (request.maxmoves is None or request.maxmoves >= 0)
    assert kata or not request.ownership
