"""The engine's default player, the tree search (gojax.gtp's ``mcts``): resignation, passing, time, start-up.

* Resignation and pass decisions (:func:`gojax.gtp._genmove.judge_search`) on
  hand-made :class:`gojax.search.SearchStats`, then through ``genmove`` with
  the search's statistics replaced by hand-made ones (``resign`` answered and
  the game over; a pass that every other move would make worse kept; a pass
  no better than another move replaced).
* The real search on 5x5: ``genmove`` answers a legal move within the clock's
  budget (a hand-advanced time source), and the tree is kept between moves.
* The komi is data: after a search, ``komi`` then a search and ``final_score``
  compile nothing (JAX's lowering events counted), and both follow the new
  komi on a board where it decides the winner.
* Start-up: a player whose optional dependency is missing (``sys.modules[name]
  = None``) is refused with exit status 2 and a message naming the module;
  the command-line defaults are the tree search with resignation on.
"""

from __future__ import annotations

import dataclasses
import sys
import time

import numpy as np
import pytest
from conftest import compilations

import gojax
from gojax import gtp
from gojax.gtp import EngineOptions, PlayerSpec
from gojax.gtp._genmove import RESIGN, judge_search
from gojax.gtp._main import build_parser, engine_arguments, main
from gojax.gtp._mcts import describe
from gojax.search import SearchStats

SIZE = 5
P = SIZE * SIZE
PASS = P


def hand_stats(visits: dict[int, int], rates: dict[int, float], root: float, best: int, playouts=1000):
    """Root statistics on 5x5 with the given visits and win rates (every point legal, uniform prior)."""
    visit = np.zeros(P + 1, np.int64)
    rate = np.full(P + 1, np.nan, np.float32)
    for action, count in visits.items():
        visit[action] = count
        rate[action] = rates[action]
    prior = np.full(P + 1, 1.0 / (P + 1), np.float32)
    pvs = {action: (action,) for action in visits}
    lead = np.zeros(P + 1, np.float32)
    return SearchStats(1, visit, rate, prior, root, best, pvs, None, playouts, 0.1, lead, 0.0)


LEGAL = np.ones(P + 1, bool)


def test_resigns_only_when_lost_after_enough_playouts():
    lost = hand_stats({3: 900, 7: 100}, {3: 0.04, 7: 0.02}, root=0.05, best=3)
    assert (
        judge_search(lost, LEGAL, opponent_passed=False, resign_threshold=0.1, resign_playouts=500)[0]
        == RESIGN
    )
    for stats, threshold, playouts in (
        (lost, None, 500),  # resignation turned off
        (lost, 0.04, 500),  # a lower threshold
        (lost, 0.1, 1001),  # not enough playouts yet
        (hand_stats({3: 900}, {3: 0.3}, root=0.05, best=3), 0.1, 500),  # the best move still has chances
        (hand_stats({3: 900}, {3: 0.05}, root=0.2, best=3), 0.1, 500),  # the root still has chances
    ):
        action, _ = judge_search(
            stats, LEGAL, opponent_passed=False, resign_threshold=threshold, resign_playouts=playouts
        )
        assert action == 3, (threshold, playouts)


def test_passes_only_when_passing_pays():
    def judged(stats, **flags):
        return judge_search(stats, LEGAL, **{"opponent_passed": False, **flags})[0]

    hurts = hand_stats({PASS: 600, 4: 300, 9: 100}, {PASS: 0.7, 4: 0.4, 9: 0.5}, root=0.7, best=PASS)
    assert judged(hurts) == PASS  # every other move is worse
    even = hand_stats({PASS: 600, 4: 300, 9: 100}, {PASS: 0.7, 4: 0.69, 9: 0.9}, root=0.7, best=PASS)
    assert judged(even) == 4  # the most visited other move is no worse (within PASS_MARGIN)
    assert judged(even, opponent_passed=True) == PASS  # passing ends the game: the search judged it
    assert judged(even, allow_early_pass=True) == PASS
    lonely = hand_stats({PASS: 10}, {PASS: 0.5}, root=0.5, best=PASS)
    assert judged(lonely) == PASS  # nothing else searched: the engine's safe-move rule decides
    mixed = hand_stats({PASS: 600, 4: 300, 9: 100}, {PASS: 0.7, 4: 0.69, 9: 0.5}, root=0.7, best=PASS)
    assert judged(mixed) == 4
    illegal_other = LEGAL.copy()
    illegal_other[4] = False  # then the most visited other move is 9, worse than passing
    assert judge_search(mixed, illegal_other, opponent_passed=False)[0] == PASS
    assert judged(hand_stats({4: 5}, {4: 0.1}, root=0.5, best=4)) == 4  # a point is played as it is


@pytest.fixture
def engine(tree_searcher_5x5):
    """A tree-search engine on 5x5 with the session's searcher (0.1 s a move without a clock)."""
    engine = gtp.GTPEngine(gojax.GoConfig(size=SIZE), PlayerSpec("mcts"))
    engine.searcher = tree_searcher_5x5
    yield engine
    engine.time_source = time.monotonic


def test_genmove_resigns_and_keeps_a_judged_pass(engine, monkeypatch):
    engine.send("clear_board")
    lost = hand_stats({3: 900}, {3: 0.02}, root=0.03, best=3)
    monkeypatch.setattr(engine.searcher, "search", lambda *args, **kwargs: lost)
    assert engine.send("genmove b") == "resign"
    assert engine.game.over and engine.send("final_score") == "W+R"
    engine.send("clear_board")
    engine.send("play b c3")
    hurts = hand_stats({PASS: 600, 0: 300}, {PASS: 0.8, 0: 0.3}, root=0.8, best=PASS)
    monkeypatch.setattr(engine.searcher, "search", lambda *args, **kwargs: hurts)
    assert engine.send("genmove w") == "pass"  # not replaced by a safe move: the search compared
    even = hand_stats({PASS: 600, 0: 300}, {PASS: 0.8, 0: 0.8}, root=0.8, best=PASS)
    monkeypatch.setattr(engine.searcher, "search", lambda *args, **kwargs: even)
    assert engine.send("genmove b") == "pass"  # after white's pass, black's pass ends the game: judged
    engine.send("undo")
    engine.send("undo")  # back to black's C3, no pass
    assert engine.send("genmove w") == "A5"  # the pass is no better than A5
    no_resign = gtp.GTPEngine(
        gojax.GoConfig(size=SIZE), PlayerSpec("mcts"), EngineOptions(resign_threshold=None)
    )
    monkeypatch.setattr(no_resign.searcher, "search", lambda *args, **kwargs: lost)
    assert no_resign.send("genmove b") == "D5"


def test_the_search_moves_within_the_clock_and_keeps_its_tree(engine):
    engine.send("clear_board")
    ticks = [0.0]

    def now():  # every look at the clock costs 10 ms of hand-advanced time
        ticks[0] += 0.01
        return ticks[0]

    engine.time_source = now
    try:
        engine.send("time_settings 10 0 0")  # absolute time: 10 s for the game
        budget = engine.clocks[1].budget(P, 0)
        vertex = engine.send("genmove b")
        stats = engine.searcher.last_stats
        assert vertex == gojax.to_gtp(engine.config, stats.best_action)
        assert 0.5 * budget < stats.seconds <= budget, (stats.seconds, budget)
        assert engine.clocks[1].main < 10.0  # the move was charged to black's clock
    finally:
        engine.time_source = time.monotonic
    line = stats.pvs[stats.best_action]
    assert len(line) > 1, line
    engine.send(f"play w {gojax.to_gtp(engine.config, int(line[1]))}")
    state = gtp._genmove.position_for(engine.game, 1)
    again = engine.searcher.search(engine.config, state, playouts=1)
    assert again.playouts > 1  # the subtree below the two moves played was kept


def test_loading_the_search_is_part_of_the_move_time(tree_searcher_5x5, monkeypatch):
    # The clock advances 10 ms a look, and loading the tree search (first use) takes 0.6 s of it,
    # then 5 s: the move's budget of 1 s counts from the call, with a tenth kept for the search.
    searcher, config = tree_searcher_5x5, gojax.GoConfig(size=SIZE)
    ticks = [0.0]

    def now():
        ticks[0] += 0.01
        return ticks[0]

    load = searcher.tree
    for loading, most in ((0.6, 0.4), (5.0, 0.1)):

        def slow(config, seconds=loading):
            ticks[0] += seconds
            return load(config)

        monkeypatch.setattr(searcher, "tree", slow)
        monkeypatch.setattr(searcher, "now", now)
        stats = searcher.search(config, gojax.init(config), 1.0)
        assert 0.5 * most <= stats.seconds <= most, (loading, stats.seconds)


def test_a_missing_dependency_stops_the_start(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "mctx", None)
    assert main(["--size", "5", "--player", "uct", "--no-compile-cache"]) == 2
    assert "--player uct needs mctx" in capsys.readouterr().err
    monkeypatch.setitem(sys.modules, "flax", None)
    assert main(["--size", "9", "--player", "az", "--checkpoint", "none", "--no-compile-cache"]) == 2
    assert "needs flax, mctx" in capsys.readouterr().err
    with pytest.raises(ImportError, match="mctx"):
        engine_arguments(build_parser().parse_args(["--player", "uct"]))


def test_the_command_line_defaults_to_the_tree_search():
    _, player, options = engine_arguments(build_parser().parse_args([]))
    assert player.kind == "mcts" and player.seconds_per_move == 1.0
    assert options.resign_threshold == 0.1
    argv = ["--seconds-per-move", "0", "--simulations", "64", "--no-resign"]
    _, player, options = engine_arguments(build_parser().parse_args(argv))
    assert player.seconds_per_move is None and player.simulations == 64 and options.resign_threshold is None
    with pytest.raises(ValueError, match=r"seconds_per_move .*-1"):
        engine_arguments(build_parser().parse_args(["--seconds-per-move", "-1"]))
    with pytest.raises(ValueError, match=r"resign_threshold .*0\.7"):
        EngineOptions(resign_threshold=0.7)


# Black to move; every empty point is a one-point eye (the game is over but for the komi):
# black has 12 points, white 13.
SETTLED = """
X . X O .
. X X O O
X X O O .
. X O . O
X X O O O
"""


def test_a_new_komi_compiles_nothing_and_decides_the_search_and_the_score(tree_searcher_5x5):
    options = EngineOptions(resign_threshold=None)
    engine = gtp.GTPEngine(gojax.GoConfig(size=SIZE), PlayerSpec("mcts"), options)
    engine.searcher = tree_searcher_5x5
    engine.send("komi 0.5")
    grid = gojax.parse_board(SETTLED)
    for colour, letter in ((gojax.BLACK, "b"), (gojax.WHITE, "w")):
        for point in np.flatnonzero(grid.reshape(-1) == colour):
            engine.send(f"play {letter} {gojax.to_gtp(engine.config, int(point))}")
    engine.send("reg_genmove b")  # compiles the search (and the safe move) for 5x5
    before = engine.searcher.last_stats
    assert engine.send("final_score") == "W+1.5"
    with compilations() as lowered:
        engine.send("komi -1.5")
        engine.send("reg_genmove b")
        after = engine.searcher.last_stats
        score = engine.send("final_score")
    assert lowered == []
    assert score == "B+0.5"  # 12 - 13 + 1.5: the score moved by the change of komi
    assert before.root_winrate < 0.1 < 0.9 < after.root_winrate  # black loses at 0.5, wins at -1.5


def test_the_genmove_log_names_a_dynamic_komi():
    """gojax-gtp's genmove line says which komi the win rate is against when dynamic komi shifted it."""
    stats = hand_stats({3: 900}, {3: 0.7}, root=0.7, best=3)
    assert "komi" not in describe(stats) and "win rate 0.700" in describe(stats)
    assert describe(dataclasses.replace(stats, komi_offset=5.0)).endswith(
        "win rate 0.700 against komi +5 (dynamic)"
    )
    assert describe(dataclasses.replace(stats, komi_offset=-3.0)).endswith("against komi -3 (dynamic)")
