"""Matches between GTP engines, GNU Go the judge (gojax.arena's ``play_match``, ``gojax-match``).

* Engine specs to command lines: GNU Go with ``--mode gtp --level L
  --chinese-rules --komi K``, gojax players with their flags, any command;
  bad specs refused.
* Counting: wins, losses and draws from the first engine's side, its score's
  Wilson interval (against :func:`gojax.players.match.wilson_interval`),
  wins by colour and adjudicated games (a :class:`gojax.players.MatchResult`)
  and the seconds per move of each side, on hand-made games.
* Two whole 5x5 games of the random player against GNU Go level 1 (colours
  alternate): each saved as SGF and read back (moves, result, players), the
  result counted for the right side.
* The ``gojax-match`` console script end to end: GNU Go against an engine
  given by its command line (GNU Go at another level), one 5x5 game,
  ``summary.json`` and the SGF; a bad engine spec refused with status 2.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import gnugo_binary

import gojax
from gojax import arena, gtp
from gojax.gtp import PlayerSpec
from gojax.players.match import MatchResult, wilson_interval

REPO = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}


def test_engine_specs_become_command_lines():
    gnugo = arena.engine_argv("gnugo:3", size=9, komi=6.5)
    assert gnugo[1:] == [
        "--mode", "gtp", "--level", "3", "--chinese-rules", "--positional-superko", "--capture-all-dead",
        "--seed", "1", "--komi", "6.5",
    ]  # fmt: skip
    assert arena.engine_argv("gnugo", size=9, komi=7.5)[4] == "1"
    ours = arena.engine_argv(
        "gojax:uct:simulations=64,rollout=heuristic", size=7, komi=7.5, seconds_per_move=2
    )
    assert ours[:3] == [sys.executable, "-m", "gojax.gtp"]
    flags = ours[3:]
    for flag, value in (
        ("--size", "7"),
        ("--player", "uct"),
        ("--simulations", "64"),
        ("--rollout", "heuristic"),
    ):
        assert flags[flags.index(flag) + 1] == value
    assert flags[flags.index("--seconds-per-move") + 1] == "2"
    assert "--max-moves" not in flags  # the default cap, the engine's own
    capped = arena.engine_argv("gojax:mcts", size=7, komi=7.5, max_moves=500)
    assert capped[capped.index("--max-moves") + 1] == "500"  # a match's cap: the engine's too
    assert arena.engine_argv("cmd:katago gtp -config 'my file.cfg'", size=9, komi=7.5) == [
        "katago", "gtp", "-config", "my file.cfg",
    ]  # fmt: skip
    for bad in ("gnugo:strong", "gojax", "gojax:uct:simulations", "leela", "cmd:"):
        with pytest.raises(ValueError, match="engine"):
            arena.engine_argv(bad, size=9, komi=7.5)


def test_a_playout_count_for_the_tree_search_is_not_replaced_by_the_match_clock():
    from gojax.gtp._main import build_parser, engine_arguments

    def spec(text, **kwargs):
        argv = arena.engine_argv(text, size=9, komi=7.5, **kwargs)
        parser = build_parser()
        return engine_arguments(parser.parse_args(argv[3:]))[1]

    counted = spec("gojax:mcts:simulations=73500", seconds_per_move=1)
    assert (counted.simulations, counted.seconds_per_move) == (73500, None)
    timed = spec("gojax:mcts", seconds_per_move=5)
    assert timed.seconds_per_move == 5.0
    both = spec("gojax:mcts:simulations=500,seconds-per-move=2", seconds_per_move=1)
    assert (both.simulations, both.seconds_per_move) == (500, 2.0)
    uct = spec("gojax:uct:simulations=64", seconds_per_move=3)
    assert uct.seconds_per_move == 3.0
    counted_az = spec("gojax:az:simulations=64,checkpoint=net", seconds_per_move=1)
    assert (counted_az.simulations, counted_az.seconds_per_move) == (64, None)
    timed_az = spec("gojax:az:checkpoint=net", seconds_per_move=2)
    assert timed_az.seconds_per_move == 2.0


def test_counts_interval_and_seconds_of_hand_made_games():
    record = arena.MatchRecord(("a", "b"))
    assert record.summary()["games"] == 0 and "0 wins, 0 losses, 0 draws of 0" in record.line()
    with pytest.raises(ValueError, match="no game"):
        record.result()
    for index, outcome in enumerate(("win", "win", "loss", "draw", "win")):
        colour = ("black", "white")[index % 2]
        reason = "move cap" if index == 3 else "two passes"
        record.games.append(
            {"outcome": outcome, "first_colour": colour, "moves": 10 + index, "reason": reason}
        )
    record.seconds = [10.0, 3.0]
    record.moves = [40, 60]
    result = record.result()
    assert isinstance(result, MatchResult)
    assert (result.wins, result.losses, result.draws) == (3, 1, 1)
    assert (result.wins_as_black, result.wins_as_white, result.adjudicated) == (2, 1, 1)
    assert result.score == pytest.approx(3.5 / 5) and result.mean_length == pytest.approx(12)
    assert result.score_interval == pytest.approx(wilson_interval(3.5, 5))
    assert record.seconds_per_move(0) == 0.25 and record.seconds_per_move(1) == 0.05
    summary = record.summary()
    assert summary["wins"] == 3 and summary["score_wilson_95"] == list(result.score_interval)
    assert "3 wins, 1 losses, 1 draws of 5" in record.line()


@pytest.mark.skipif(gnugo_binary() is None, reason="GNU Go is not installed")
def test_two_5x5_games_against_gnugo_are_saved_and_counted(tmp_path):
    config = gojax.GoConfig(size=5, komi=7.5, max_moves=75)
    ours = gtp.GTPEngine(gojax.GoConfig(size=5), PlayerSpec("random", seed=7))
    argv = arena.engine_argv("gnugo:1", size=5, komi=7.5, seed=3)
    with arena.GTPClient(argv, timeout=120) as gnugo:
        result = arena.play_match(
            config, (ours, gnugo), ("random", "GNU Go 1"), 2, tmp_path, log=lambda s: None
        )
    assert len(result.games) == 2
    for index, game in enumerate(result.games):
        record = gojax.sgf.read_sgf(tmp_path / game["sgf"])
        assert game["first_colour"] == ("black", "white")[index]
        players = (record.metadata["PB"], record.metadata["PW"])
        assert players == (("random", "GNU Go 1"), ("GNU Go 1", "random"))[index]
        assert record.result == game["result"] and len(record.moves) == game["moves"]
        winner = {"B": "black", "W": "white"}.get(game["result"][:1])
        expected = "draw" if winner is None else "win" if winner == game["first_colour"] else "loss"
        assert game["outcome"] == expected
    assert sum(result.moves) == sum(game["moves"] for game in result.games)
    assert result.seconds_per_move(1) > 0


@pytest.mark.skipif(gnugo_binary() is None, reason="GNU Go is not installed")
def test_the_console_script_plays_a_match(tmp_path):
    argv = [sys.executable, "-c", "import sys; from gojax.arena import match_main; sys.exit(match_main())"]
    other = f"cmd:{arena.find_gnugo()} --mode gtp --level 0 --chinese-rules --capture-all-dead"
    argv += ["gnugo:1", other, "--games", "1", "--size", "5", "--out", str(tmp_path)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, env=ENV, cwd=tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["games"] == 1 and summary["wins"] + summary["losses"] + summary["draws"] == 1
    assert summary["move_cap"] == gojax.GoConfig(size=5).move_cap == 50  # the library's default cap
    assert (
        summary["commands"][0].startswith(arena.find_gnugo()) and "--chinese-rules" in summary["commands"][0]
    )
    assert "--level 0" in summary["commands"][1]
    record = gojax.sgf.read_sgf(tmp_path / "game_000.sgf")
    assert record.result == summary["per_game"][0]["result"]
    assert "[95% Wilson" in done.stdout
    bad = subprocess.run([*argv[:3], "leela", "gnugo"], capture_output=True, text=True, timeout=120, env=ENV)
    assert bad.returncode == 2 and "engine 'leela'" in bad.stderr
