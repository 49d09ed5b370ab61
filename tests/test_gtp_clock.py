"""GTP time controls against a clock advanced by hand: nothing here reads the wall clock.

The engine's time source (``GTPEngine.time_source``, shared with its
searcher) is a :class:`FakeTime` whose players advance it by a set number of
seconds when they run. So the run time of every level is exact, and these
follow from the arithmetic alone, whatever the load of the machine:

* the budget handed to the search for ``time_settings``, ``time_left`` and
  each ``kgs-time_settings`` system (worked out by hand on 5x5: a player
  expects ``max(8, (0.9 * 25 - move) / 2)`` more moves, and uses 85 % of its
  share minus 0.05 s);
* the time ``genmove`` charges to the mover's clock, and that the warm-up is
  not charged;
* the level chosen (the strongest whose measured time is at most 80 % of the
  budget), and the random fallback when none fits;
* the cut-off when a search runs past its budget.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest
from conftest import jitted

import gojax
from gojax import gtp
from gojax.gtp import EngineOptions, Level, PlayerSpec
from gojax.gtp._players import Searcher

CONFIG = gojax.GoConfig(size=5)
EXPECTED_AT_START = 0.9 * 25 / 2  # moves a player expects at move 0 on 5x5: 11.25


def share(seconds: float) -> float:
    """What a move may use of a ``seconds`` share: 85 % of it, minus 0.05 s."""
    return seconds * 0.85 - 0.05


class FakeTime:
    """A time source that moves only when told to."""

    def __init__(self):
        self.now = 1000.0
        self._lock = threading.Lock()

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        with self._lock:
            self.now += seconds


class Costly:
    """A plain-Python player that advances the fake time by ``seconds`` and plays ``vertex``.

    ``vertex=None`` plays the first legal point.

    ``block`` (a ``threading.Event``) makes every run after the first wait for it after
    advancing the time: a search still running when its deadline passes.
    """

    def __init__(
        self, fake: FakeTime, label: str, seconds: float, vertex: str | None, runs: list, block=None
    ):
        self.fake, self.label, self.seconds, self.vertex = fake, label, seconds, vertex
        self.runs, self.block = runs, block

    def __call__(self, config, state, key):
        self.runs.append(self.label)
        self.fake.advance(self.seconds)
        if self.block is not None and self.runs.count(self.label) > 1:
            self.block.wait(60.0)
        if self.vertex is None:
            return int(np.argmax(np.asarray(jitted("legal_action_mask", config)(state))))
        return gojax.from_gtp(config, self.vertex)

    def level(self) -> Level:
        return Level(self.label, lambda config: self, self.label, jit=False)


def timed_engine(monkeypatch, players: list[Costly], fake: FakeTime, warm_up: bool = True):
    """A 5x5 engine with ``players`` as its ladder and ``fake`` as its time, and the budgets it hands out."""
    options = EngineOptions(levels=tuple(p.level() for p in players), warm_up=warm_up)
    engine = gtp.GTPEngine(CONFIG, PlayerSpec(seed=7), options)
    engine.time_source = fake
    assert engine.time_source is fake and engine.searcher.now is fake
    budgets: list = []
    genmove = engine.searcher.genmove

    def recording(config, state, budget, fallback):
        budgets.append(budget)
        return genmove(config, state, budget, fallback)

    monkeypatch.setattr(engine.searcher, "genmove", recording)
    return engine, budgets


BUDGET_CASES = [
    ([], None),
    (["time_settings 0 1 0"], None),  # byo-yomi time without stones: no limit
    (["time_settings 60 0 0"], share(60 / EXPECTED_AT_START)),
    (["time_settings 8 0 0"], share(8 / EXPECTED_AT_START)),
    (["time_settings 0 10 5"], share(10 / 5)),  # no main time: byo-yomi from the start
    (["time_settings 30 10 5"], share(30 / EXPECTED_AT_START)),  # the main-time share is above 10/5
    (["time_settings 1 10 2"], share(10 / 2)),  # at least a byo-yomi stone's share
    (["time_settings 60 0 0", "time_left b 8 0"], share(8 / EXPECTED_AT_START)),
    (["time_settings 60 0 0", "time_left b 3 2"], share(3 / 2)),
    (["time_settings 60 0 0", "time_left w 3 2"], share(60 / EXPECTED_AT_START)),  # the other clock
    (["time_settings 60 0 0", "time_left b 0 0"], 0.0),
    (["time_left b 3 2"], share(3 / 2)),  # time_left alone sets a limit
    (["kgs-time_settings absolute 60"], share(60 / EXPECTED_AT_START)),
    (["kgs-time_settings absolute 2"], share(2 / EXPECTED_AT_START)),
    (["kgs-time_settings canadian 0 10 5"], share(10 / 5)),
    (["kgs-time_settings byoyomi 0 5 3"], share(5)),  # one move per period
    (["time_settings 60 0 0", "kgs-time_settings none"], None),
]


@pytest.mark.parametrize(("commands", "budget"), BUDGET_CASES, ids=lambda case: repr(case))
def test_budget_handed_to_the_search(monkeypatch, commands, budget):
    fake = FakeTime()
    runs: list = []
    engine, budgets = timed_engine(monkeypatch, [Costly(fake, "quick", 0.0, "c3", runs)], fake, warm_up=False)
    for command in commands:
        engine.send(command)
    engine.send("genmove b")
    assert budgets == [pytest.approx(budget) if budget is not None else None]


def test_genmove_charges_the_fake_time_and_the_warm_up_is_free(monkeypatch):
    fake = FakeTime()
    runs: list = []
    engine, budgets = timed_engine(monkeypatch, [Costly(fake, "steady", 2.5, None, runs)], fake)
    engine.send("time_settings 60 0 0")
    assert runs == ["steady"]  # the warm-up ran and timed the level ...
    black, white = engine.clocks[gojax.BLACK], engine.clocks[gojax.WHITE]
    assert black.main == 60.0 and white.main == 60.0  # ... outside the clocks
    assert engine.searcher.estimate(engine.config, 0) == pytest.approx(2.5)
    engine.send("play b c3")
    assert engine.send("genmove w") == "A5"  # the first legal point
    assert white.main == pytest.approx(57.5) and black.main == 60.0
    assert budgets == [pytest.approx(share(60 / ((22.5 - 1) / 2)))]  # white's first move is move 1
    engine.send("genmove b")
    assert black.main == pytest.approx(57.5)
    engine.send("time_settings 0 10 2")  # Canadian: 2 moves per 10 s; new clocks, no second warm-up
    black = engine.clocks[gojax.BLACK]
    assert runs.count("steady") == 3
    engine.send("genmove b")
    assert (black.period_left, black.stones_left) == (pytest.approx(7.5), 1)
    assert budgets[-1] == pytest.approx(share(10 / 2))
    engine.send("genmove b")
    assert budgets[-1] == pytest.approx(share(7.5 / 1))
    assert (black.period_left, black.stones_left) == (pytest.approx(10.0), 2)  # a new period
    engine.send("time_left b 4 1")
    engine.send("genmove b")
    assert budgets[-1] == pytest.approx(share(4 / 1))


def test_the_strongest_level_that_fits_is_chosen(monkeypatch):
    fake = FakeTime()
    runs: list = []
    players = [
        Costly(fake, "strong", 5.0, "a1", runs),
        Costly(fake, "quarter", 1.0, "b1", runs),
        Costly(fake, "fast", 0.01, "c1", runs),
    ]
    engine, budgets = timed_engine(monkeypatch, players, fake)
    engine.send("time_settings 0 10 1")  # 10 s a move: budget share(10) = 8.45 s
    assert runs == ["fast", "quarter", "strong"]  # the warm-up times the levels, fastest first
    info = engine.send("gojax-info").splitlines()
    assert info[1:4] == [
        "level 0: strong: 5.000 s, compiled",
        "level 1: quarter: 1.000 s, compiled",
        "level 2: fast: 0.010 s, compiled",
    ]
    # (time_left, the level that fits 80 % of its budget): 8.45 -> 6.76, 2.5 -> 2.0, 0.375 -> 0.3.
    for seconds, label, vertex in ((10, "strong", "A1"), (3, "quarter", "B1"), (0.5, "fast", "C1")):
        engine.send(f"time_left b {seconds} 1")
        start = fake()
        assert engine.send("genmove b") == vertex, (seconds, label)
        assert runs[-1] == label and budgets[-1] == pytest.approx(share(seconds))
        assert fake() - start == pytest.approx(players[["strong", "quarter", "fast"].index(label)].seconds)
        engine.send("undo")
    count = len(runs)
    engine.send("time_left b 0.05 1")  # budget 0: nothing fits
    vertex = engine.send("genmove b")
    assert budgets[-1] == 0.0 and len(runs) == count  # no level ran
    point = gojax.from_gtp(engine.config, vertex)
    assert vertex != "pass" and engine.game.board().reshape(-1)[point] == gojax.BLACK
    engine.send("time_settings 0 1 0")  # no limit: the strongest level, whatever it costs
    engine.send("undo")
    assert engine.send("genmove b") == "A1" and budgets[-1] is None


def test_seconds_per_move_is_the_budget_without_a_clock():
    fake = FakeTime()
    runs: list = []
    ladder = [
        Costly(fake, "huge", 8.0, "a1", runs),
        Costly(fake, "large", 3.0, "b1", runs),
        Costly(fake, "small", 1.0, "c1", runs),
        Costly(fake, "fast", 0.01, "d1", runs),
    ]
    # One family, costs in proportion to the run times (as an AlphaZero time ladder's simulations).
    levels = [Level(p.label, lambda config, p=p: p, "az", p.seconds, jit=False) for p in ladder]
    searcher = Searcher(levels, seed=3, now=fake, seconds_per_move=2.0)
    state = gojax.init(CONFIG)

    def fallback() -> int:
        return CONFIG.pass_action

    action, how = searcher.genmove(CONFIG, state, None, fallback)
    # The first move warms up fastest first and stops after the first level over 2 s ...
    assert runs[:3] == ["fast", "small", "large"] and "huge" not in runs
    # ... then plays the strongest level within 80 % of 2 s (after the quick one, its fallback).
    assert runs[3:] == ["fast", "small"] and action == gojax.from_gtp(CONFIG, "c1") and "of 2.00 s" in how
    searcher.genmove(CONFIG, state, None, fallback)
    assert runs[5:] == ["fast", "small"]  # warmed once per config
    searcher.genmove(CONFIG, state, 5.0, fallback)  # a clock's budget wins: 3 s fits 4 s
    assert runs[7:] == ["fast", "large"]
    plain = Searcher(levels, seed=3, now=fake)
    plain.genmove(CONFIG, state, None, fallback)  # no budget at all: the strongest level
    assert runs[-1] == "huge"


def test_a_level_that_ran_slowly_once_is_tried_again():
    fake = FakeTime()
    runs: list = []
    ladder = [Costly(fake, "large", 3.0, "a1", runs), Costly(fake, "small", 1.0, "b1", runs)]
    levels = [Level(p.label, lambda config, p=p: p, "az", p.seconds, jit=False) for p in ladder]
    searcher = Searcher(levels, seed=3, now=fake, seconds_per_move=4.0)  # fits 3.2 s
    state = gojax.init(CONFIG)
    searcher.genmove(CONFIG, state, None, lambda: CONFIG.pass_action)
    assert runs == ["small", "large", "large"]  # small (1 s) is not quick enough to run first
    ladder[0].seconds = 3.9  # a busy machine: the family's load goes up to 1.15 ...
    searcher.genmove(CONFIG, state, None, lambda: CONFIG.pass_action)
    ladder[0].seconds = 3.0
    assert searcher.estimate(CONFIG, 0) == pytest.approx(3.0 * 1.15)
    for _ in range(3):  # ... and back down with each run of the small level at its first speed
        searcher.genmove(CONFIG, state, None, lambda: CONFIG.pass_action)
    assert runs[3:] == ["large", "small", "small", "large"]


def _slow_and_quick():
    """A warmed-up searcher of two levels, ``slow`` (blocked until ``release`` is set) and ``quick``."""
    fake = FakeTime()
    runs: list = []
    release = threading.Event()
    slow = Costly(fake, "slow", 0.1, "a1", runs, block=release)
    quick = Costly(fake, "quick", 0.001, "b1", runs)
    levels = [Level(p.label, lambda config, p=p: p, "az", p.seconds, jit=False) for p in (slow, quick)]
    searcher = Searcher(levels, seed=3, now=fake)
    state = gojax.init(CONFIG)
    searcher.warm_up(CONFIG, state)
    return fake, runs, release, slow, quick, searcher, state


def test_a_late_search_falls_back_on_a_quick_search_and_is_waited_for():
    _, runs, release, slow, quick, searcher, state = _slow_and_quick()
    slow.seconds = 100.0  # late for a 10 s budget, and it waits for the release
    action, how = searcher.genmove(CONFIG, state, 10.0, lambda: CONFIG.pass_action)
    assert runs == ["quick", "slow", "quick", "slow"]
    assert action == gojax.from_gtp(CONFIG, "b1") and how.startswith("quick (slow late")  # not at random
    late = searcher._late
    assert late is not None and not late.done()
    seen: list = []
    quick.vertex = None  # its next run notes whether the late search is still running
    original = quick.__call__

    def noting(config, state, key):
        seen.append(late.done())
        return original(config, state, key)

    base = gojax.GoConfig(size=5, komi=0.0)  # levels are kept per komi-free config, komi an argument
    assert searcher.compiled(CONFIG, 1) and (base, 1) in searcher._compiled
    searcher._compiled[(base, 1)] = lambda state, key, komi: noting(CONFIG, state, key)
    timer = threading.Timer(0.3, release.set)  # the late search ends in 0.3 s of real time
    timer.start()
    try:
        slow.seconds = 0.1
        searcher.genmove(CONFIG, state, 10.0, lambda: CONFIG.pass_action)
    finally:
        timer.cancel()
        release.set()
    assert seen == [True]  # the next move waited for the late search before it searched


def test_wait_idle_waits_for_a_late_search_that_no_move_waited_for():
    # A late search still runs after its move; the process must not exit inside it (gojax-gtp and
    # the training's GNU Go evaluation close their engine, which waits).
    fake, runs, release, slow, _, searcher, state = _slow_and_quick()
    assert searcher.wait_idle(0.0)  # nothing running
    slow.seconds = 100.0
    searcher.genmove(CONFIG, state, 10.0, lambda: CONFIG.pass_action)
    searcher._finish_late_search(fake())  # a move that could not wait: the late search is no longer its
    assert not searcher.wait_idle(0.05)  # still inside the slow search
    timer = threading.Timer(0.2, release.set)
    timer.start()
    try:
        assert searcher.wait_idle(30.0)
    finally:
        timer.cancel()
        release.set()
    assert runs[-1] == "slow"


def test_a_late_search_is_cut_off_at_the_fake_deadline(monkeypatch):
    fake = FakeTime()
    runs: list = []
    release = threading.Event()
    slow = Costly(fake, "slow", 0.1, "a1", runs, block=release)  # the warm-up run is quick ...
    engine, budgets = timed_engine(monkeypatch, [slow], fake)
    for move in ("b b1", "w e5", "b a2", "w e4"):  # A1 is black's own eye: the fallback never fills it
        engine.send(f"play {move}")
    engine.send("time_settings 60000 0 0")  # a budget of over an hour: only the fake time can end the wait
    assert runs == ["slow"] and engine.searcher.estimate(engine.config, 0) == pytest.approx(0.1)
    slow.seconds = 10_000.0  # ... the next one takes 10,000 s and waits (up to a minute) for the release
    try:
        vertex = engine.send("genmove b")
    finally:
        release.set()
    assert budgets == [pytest.approx(share(60000 / ((22.5 - 4) / 2)))]  # 5,514 s: 10,000 s is late
    assert runs == ["slow", "slow"]
    assert vertex not in ("pass", "A1")  # the random fallback, not the search's move
    assert engine.game.board().reshape(-1)[gojax.from_gtp(engine.config, vertex)] == gojax.BLACK
    assert engine.clocks[gojax.BLACK].main == pytest.approx(50_000.0)  # charged the 10,000 s it took


def test_a_search_in_time_is_waited_for(monkeypatch):
    fake = FakeTime()
    runs: list = []
    release = threading.Event()
    slow = Costly(fake, "slow", 0.1, "a1", runs, block=release)
    engine, budgets = timed_engine(monkeypatch, [slow], fake)
    engine.send("time_settings 60 0 0")
    assert budgets == []
    slow.seconds = 3.0  # 3 s of a 4.48 s budget; the run waits for the release
    timer = threading.Timer(0.3, release.set)  # not a deadline: only how long the test waits
    timer.start()
    try:
        assert engine.send("genmove b") == "A1"
    finally:
        timer.cancel()
        release.set()
    assert budgets == [pytest.approx(share(60 / EXPECTED_AT_START))]
    assert engine.clocks[gojax.BLACK].main == pytest.approx(57.0)


def test_gojax_warmup_and_gojax_info(monkeypatch):
    fake = FakeTime()
    runs: list = []
    players = [Costly(fake, "big", 4.0, "a1", runs), Costly(fake, "small", 0.25, "b1", runs)]
    engine, _ = timed_engine(monkeypatch, players, fake, warm_up=False)
    info = engine.send("gojax-info").splitlines()
    assert info == [
        f"player: custom; rules: {engine.config}",
        "level 0: big: unknown, not compiled",
        "level 1: small: unknown, not compiled",
        f"clock black: {gtp.Clock()}",
        f"clock white: {gtp.Clock()}",
    ]
    engine.send("time_settings 30 0 0")  # warm_up=False: nothing runs
    assert runs == []
    warmed = engine.send("gojax-warmup").splitlines()
    assert runs == ["small", "big"]  # every level, fastest first, without a time limit
    assert warmed == engine.send("gojax-info").splitlines()  # the reply is the info after the warm-up
    assert warmed[1:3] == ["level 0: big: 4.000 s, compiled", "level 1: small: 0.250 s, compiled"]
    clock = gtp.Clock.from_settings(30, 0, 0)
    assert warmed[3:] == [f"clock black: {clock}", f"clock white: {clock}"]  # the warm-up is not charged
    assert engine.searcher.compiled(engine.config, -1)  # the safe move is compiled too


# Black on the points with an odd row + column except B5: the other empty points
# are black's own eyes, but for A5, B5, C5 and B4 (next to the empty B5).
EYES_POSITION = "d5 a4 c4 e4 b3 d3 a2 c2 e2 b1 d1".split()


def test_the_fallback_fills_no_own_eye(monkeypatch):
    fake = FakeTime()
    runs: list = []
    engine, budgets = timed_engine(monkeypatch, [Costly(fake, "any", 1.0, None, runs)], fake)
    for vertex in EYES_POSITION:
        engine.send(f"play b {vertex}")  # a white pass goes in between
    engine.send("time_settings 60 0 0")
    replies = set()
    for _ in range(12):
        engine.send("time_left b 0 1")  # budget 0: no level fits, the move is the fallback's
        replies.add(engine.send("genmove b"))
        engine.send("undo")
    assert budgets == [0.0] * 12 and runs == ["any"]  # only the warm-up ran the level
    assert replies <= {"A5", "B5", "C5", "B4"} and len(replies) > 1  # random among the non-eyes
