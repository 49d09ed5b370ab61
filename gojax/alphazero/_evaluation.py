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
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, Literal

import jax
import numpy as np

from gojax._core.types import GoConfig
from gojax.alphazero._player import AlphaZeroPlayer
from gojax.features import basic_planes
from gojax.players import PureMonteCarlo, UCTPlayer, random_player
from gojax.players.match import MatchResult, play_games, summarize_results

__all__ = [
    "Evaluator",
    "default_baselines",
    "gnugo_available",
    "play_gnugo",
    "summarize_games",
    "summarize_results",
]


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
      num_simulations: the agent's simulations per move.
      baselines: ``{name: player}``; default :func:`default_baselines`.
      algorithm: the agent's search (``"gumbel"`` or ``"puct"``).
      gumbel_scale: the agent's root Gumbel noise (0: deterministic search).
      observe: the network's observation.
      batch_size: games per compiled call (even; ``None``: all at once).
    """

    def __init__(
        self,
        config: GoConfig,
        graphdef: Any,
        num_simulations: int,
        baselines: Mapping[str, Any] | None = None,
        *,
        algorithm: Literal["gumbel", "puct"] = "gumbel",
        gumbel_scale: float = 1.0,
        observe: Any = None,
        batch_size: int | None = None,
        mc_playouts: int = 2,
    ):
        self.config = config
        self.graphdef = graphdef
        self.num_simulations = num_simulations
        self.baselines = dict(
            baselines if baselines is not None else default_baselines(num_simulations, mc_playouts)
        )
        self.algorithm = algorithm
        self.gumbel_scale = gumbel_scale
        self.observe = basic_planes if observe is None else observe
        self.batch_size = batch_size
        self._compiled: dict[str, Any] = {}

    def player(self, variables: Any) -> AlphaZeroPlayer:
        """The agent with these weights."""
        return AlphaZeroPlayer(
            self.graphdef,
            variables,
            num_simulations=self.num_simulations,
            algorithm=self.algorithm,
            observe=self.observe,
            gumbel_scale=self.gumbel_scale,
        )

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
          ValueError: for an unknown baseline or a bad number of games.
        """
        if name not in self.baselines:
            raise ValueError(f"unknown baseline {name!r}; have {sorted(self.baselines)}")
        if isinstance(num_games, bool) or not isinstance(num_games, int) or num_games < 2 or num_games % 2:
            raise ValueError(f"num_games must be an even int >= 2, got {num_games!r}")
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
    """Whether :mod:`gojax.gtp` and a GNU Go binary are both there."""
    try:
        from gojax.gtp import find_gnugo
    except ImportError:
        return False
    return find_gnugo() is not None


def play_gnugo(
    config: GoConfig,
    checkpoint: str,
    num_games: int,
    *,
    num_simulations: int,
    algorithm: Literal["gumbel", "puct"] = "gumbel",
    level: int = 1,
    seed: int = 0,
    sgf_dir: str | None = None,
) -> MatchResult:
    """The agent of a saved network against GNU Go over GTP, refereed by gojax (host side, game by game).

    The agent is :class:`gojax.gtp.GTPEngine` with ``player="az"``, as pure as
    the engine allows (``pass_when_ahead=False``, ``allow_early_pass=True``:
    the search's own moves); GNU Go runs under Chinese rules with positional
    superko and ``--capture-all-dead`` (:func:`gojax.gtp.gnugo_command`).
    Colours alternate (the agent is black in even games). Games are scored by
    gojax's Tromp-Taylor area, as in :func:`gojax.players.play_match`.

    Args:
      config: the rules.
      checkpoint: a :func:`gojax.alphazero.save_checkpoint` directory.
      num_games: even number of games.
      num_simulations: the agent's simulations per move.
      algorithm: its search.
      level: GNU Go's level (1 the weakest, 10 the default).
      seed: seeds both programs.
      sgf_dir: if given, every game is written there as SGF.

    Raises:
      FileNotFoundError: if GNU Go is not installed.
      ValueError: for an odd ``num_games``.
    """
    from gojax.gtp import GTPClient, GTPEngine, gnugo_command, referee_game
    from gojax.sgf import atomic_write

    if isinstance(num_games, bool) or not isinstance(num_games, int) or num_games < 2 or num_games % 2:
        raise ValueError(f"num_games must be an even int >= 2, got {num_games!r}")
    engine = GTPEngine(
        size=config.size,
        komi=config.komi,
        ko_rule=config.ko_rule,
        max_moves=config.move_cap,
        player="az",
        checkpoint=checkpoint,
        simulations=num_simulations,
        algorithm=algorithm,
        seed=seed,
        name="gojax-alphazero",
        warm_up=False,
        pass_when_ahead=False,
        allow_early_pass=True,
    )
    results, a_is_black, lengths, terminated = [], [], [], []
    with GTPClient(gnugo_command(level=level, seed=seed)) as gnugo:
        for game in range(num_games):
            ours_black = game % 2 == 0
            black, white = (engine, gnugo) if ours_black else (gnugo, engine)
            names = ("gojax-alphazero", "GNU Go") if ours_black else ("GNU Go", "gojax-alphazero")
            outcome = referee_game(config, black, white, names=names, ask_final_score=False)
            ours = 1 if ours_black else 2
            results.append(0.0 if outcome.winner == 0 else (1.0 if outcome.winner == ours else -1.0))
            a_is_black.append(ours_black)
            lengths.append(len(outcome.moves))
            terminated.append(outcome.reason != "move cap")
            if sgf_dir is not None:
                os.makedirs(sgf_dir, exist_ok=True)
                atomic_write(os.path.join(sgf_dir, f"gnugo_{game:04d}.sgf"), outcome.sgf())

    return summarize_results(results, a_is_black, lengths, terminated)
