"""Evaluation of a network with search against the classic players, through the match runner.

:class:`Evaluator` plays the agent - :class:`gojax.alphazero.AlphaZeroPlayer`,
the network plus search - against fixed baselines with
:func:`gojax.players.play_games` (the jittable core of
:func:`gojax.players.play_match`: colours alternated, A black in the first
half of the games, unfinished games scored by area) and summarises each
matchup as a :class:`gojax.players.MatchResult` (wins, Wilson interval, Elo).

It is a host-side tool and jits one function per baseline with the player's
weights as an **argument** (:class:`AlphaZeroPlayer` is a pytree whose leaves
are its variables), so evaluating new weights during training does not
recompile. The default baselines (:func:`default_baselines`):

* ``random``: :data:`gojax.players.random_player` (uniform over legal points);
* ``pure_mc``: :class:`gojax.players.PureMonteCarlo` with ``mc_playouts``
  random playouts per legal move;
* ``uct``: :class:`gojax.players.UCTPlayer` with random playouts and the
  **same number of simulations** as the agent's search.

:func:`play_gnugo` plays a saved network (a :class:`gojax.gtp.GTPEngine`)
against GNU Go over GTP: a :func:`gojax.arena.play_match` on the host, game
by game.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import jax
import numpy as np

from gojax._core import checks
from gojax._core.types import GoConfig
from gojax.alphazero import PLAY_SETTINGS, AlphaZeroPlayer, Observation, SearchSettings, basic_planes
from gojax.arena import GTPClient, find_gnugo, gnugo_command, play_match
from gojax.gtp import EngineOptions, GTPEngine, PlayerSpec
from gojax.players import PureMonteCarlo, UCTPlayer, random_player
from gojax.players.match import MatchResult, play_games, summarize_results

__all__ = ["Evaluator", "default_baselines", "gnugo_available", "play_gnugo", "summarize_games"]


def default_baselines(num_simulations: int, mc_playouts: int = 2) -> dict[str, Any]:
    """``{"random", "pure_mc", "uct"}`` players (see the module docstring)."""
    return {
        "random": random_player,
        "pure_mc": PureMonteCarlo(num_playouts=mc_playouts),
        "uct": UCTPlayer(num_simulations=num_simulations),
    }


def summarize_games(records: Any) -> MatchResult:
    """A :class:`gojax.players.MatchResult` from :class:`gojax.players.GameRecords` (NumPy or device)."""
    return summarize_results(
        np.asarray(records.result),
        np.asarray(records.a_is_black),
        np.asarray(records.length),
        np.asarray(records.final.terminated),
        np.asarray(records.moves),
    )


class Evaluator:
    """Matches of the agent against baselines, compiled once per baseline (host-side).

    Args:
      config: the rules.
      graphdef: the network's graph definition (:func:`gojax.alphazero.split`).
      settings: the agent's search (e.g. :meth:`SearchSettings.for_play`).
      baselines: ``{name: player}``; default :func:`default_baselines` with
        the agent's number of simulations.
      observe: the network's observation.
      batch_size: games per compiled call (even; ``None``: all at once).
      mc_playouts: playouts per move of the default ``pure_mc`` baseline.

    Raises:
      TypeError: if ``settings`` is not a :class:`gojax.alphazero.SearchSettings`.
    """

    def __init__(
        self,
        config: GoConfig,
        graphdef: Any,
        settings: SearchSettings = PLAY_SETTINGS,
        baselines: Mapping[str, Any] | None = None,
        *,
        observe: Observation = basic_planes,
        batch_size: int | None = None,
        mc_playouts: int = 2,
    ):
        if not isinstance(settings, SearchSettings):
            raise TypeError(f"Evaluator settings must be a SearchSettings, got {settings!r}")
        self.config = config
        self.graphdef = graphdef
        self.settings = settings
        if baselines is None:
            baselines = default_baselines(settings.num_simulations, mc_playouts)
        self.baselines = dict(baselines)
        self.observe = observe
        self.batch_size = batch_size
        self._compiled: dict[str, Any] = {}

    def player(self, variables: Any) -> AlphaZeroPlayer:
        """The agent with these weights."""
        return AlphaZeroPlayer(self.graphdef, variables, self.settings, observe=self.observe)

    def _runner(self, name: str):
        if name not in self._compiled:
            baseline = self.baselines[name]

            def run(player, keys):
                return play_games(self.config, player, baseline, keys)

            self._compiled[name] = jax.jit(run)
        return self._compiled[name]

    def play(self, variables: Any, name: str, num_games: int, key: jax.Array) -> MatchResult:
        """``num_games`` games (even) of the agent against baseline ``name``.

        Raises:
          TypeError: for a ``num_games`` that is not an int.
          ValueError: for an unknown baseline or a bad number of games.
        """
        if name not in self.baselines:
            raise ValueError(f"unknown baseline {name!r}; have {sorted(self.baselines)}")
        num_games = checks.integer(num_games, "num_games", least=2, even=True)
        batch = num_games if self.batch_size is None else min(self.batch_size, num_games)
        if batch % 2 or num_games % batch:
            raise ValueError(f"batch_size {self.batch_size} must be even and divide num_games={num_games}")
        player = self.player(variables)
        keys = jax.random.split(key, num_games)
        run = self._runner(name)
        parts = [jax.device_get(run(player, keys[i : i + batch])) for i in range(0, num_games, batch)]
        records = jax.tree.map(lambda *xs: np.concatenate(xs), *parts)
        return summarize_games(records)

    def evaluate(self, variables: Any, num_games: int, key: jax.Array, names=None) -> dict[str, MatchResult]:
        """:meth:`play` against every baseline (or ``names``), each with its own key."""
        names = list(self.baselines) if names is None else list(names)
        keys = jax.random.split(key, len(names))
        return {name: self.play(variables, name, num_games, k) for name, k in zip(names, keys, strict=True)}


def gnugo_available() -> bool:
    """Whether a GNU Go binary is installed (:func:`gojax.arena.find_gnugo`)."""
    return find_gnugo() is not None


def play_gnugo(
    config: GoConfig,
    checkpoint: str,
    num_games: int,
    *,
    settings: SearchSettings = PLAY_SETTINGS,
    level: int = 1,
    seed: int = 0,
    sgf_dir: str | None = None,
    seconds_per_move: float | None = None,
) -> MatchResult:
    """The agent of a saved network against GNU Go over GTP, refereed by gojax (host side, game by game).

    The agent is :class:`gojax.gtp.GTPEngine` with an ``"az"`` player, as pure
    as the engine allows (``pass_when_ahead=False``, ``allow_early_pass=True``:
    the search's own moves); GNU Go runs under Chinese rules with positional
    superko and ``--capture-all-dead`` (:func:`gojax.arena.gnugo_command`).
    The games are a :func:`gojax.arena.play_match`: colours alternate (the
    agent is black in even games), gojax referees and scores each game by
    Tromp-Taylor area, and a game an engine fails is void (left out).

    Args:
      config: the rules.
      checkpoint: a :func:`gojax.alphazero.save_checkpoint` directory.
      num_games: even number of games.
      settings: the agent's search.
      level: GNU Go's level (1 the weakest, 10 the default).
      seed: seeds both programs.
      sgf_dir: if given, every game is written there as SGF (``game_NNN.sgf``).
      seconds_per_move: the agent's time a move: its search grows from
        ``settings.num_simulations`` to what fits (as ``gojax-gtp
        --seconds-per-move``); ``None``: ``settings.num_simulations`` a move.

    Raises:
      FileNotFoundError: if GNU Go is not installed.
      TypeError: for a ``num_games`` that is not an int.
      ValueError: for an odd ``num_games`` or one below 2, or if no game
        finished.
    """
    num_games = checks.integer(num_games, "num_games", least=2, even=True)
    if seconds_per_move is not None:
        seconds_per_move = checks.number(seconds_per_move, "seconds_per_move", positive=True)
    player = PlayerSpec(
        kind="az",
        simulations=settings.num_simulations,
        checkpoint=checkpoint,
        search=settings,
        seed=seed,
        seconds_per_move=seconds_per_move,
    )
    options = EngineOptions(
        name="gojax-alphazero", warm_up=False, pass_when_ahead=False, allow_early_pass=True
    )
    rules = GoConfig(size=config.size, komi=config.komi, ko_rule=config.ko_rule, max_moves=config.move_cap)
    engine = GTPEngine(rules, player, options)
    out = None if sgf_dir is None else Path(sgf_dir)
    # A timed player compiles its larger searches in the background: wait for all of them, so
    # that none is still inside XLA when the caller's process exits (GTPEngine.close).
    with GTPClient(gnugo_command(level=level, seed=seed)) as gnugo, contextlib.ExitStack() as stack:
        stack.callback(engine.close, timeout=None)
        names = ("gojax-alphazero", f"GNU Go {level}")
        record = play_match(
            config, (engine, gnugo), names, num_games, out, warm_up=False, ask_final_score=False, log=_quiet
        )
    return record.result()


def _quiet(line: str) -> None:
    """Drops a match's per-game line (a training run prints its own summary)."""
