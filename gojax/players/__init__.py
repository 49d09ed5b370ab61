"""Classic Go players in JAX, a match runner, and a tiny-board alpha-beta solver.

Import explicitly (``from gojax import players``); ``import gojax`` does not
load this package. The UCT player needs the ``players`` extra (``pip install
gojax[players]``: mctx, chex), imported only when a search runs; the other
players need nothing beyond JAX.

A **player** is ``player(config, state, key) -> int32[] action`` on ONE game
(batch with ``jax.vmap``); players with settings are frozen dataclasses. The
random and heuristic players and the rollouts live in :mod:`gojax.playouts`
(the layer below every search) and are re-exported here.

* :data:`random_player`, :class:`RandomPlayer` - uniform over legal points,
  pass only when nothing else is legal (or with ``pass_probability``);
  :data:`random_playout_policy` also never fills its own eyes.
* :data:`heuristic_playout_policy`, :class:`HeuristicPolicy` - capture (largest
  first), else escape atari, else avoid self-atari, else random.
* :func:`rollout`, :func:`playout` - play a game to its end with a policy.
* :func:`pure_monte_carlo`, :class:`PureMonteCarlo` - N playouts per legal move.
* :func:`uct_player`, :class:`UCTPlayer` - UCT (UCB1, ``C = sqrt(2)``) with
  playouts, on :func:`gojax.mcts.search`.
* :mod:`gojax.players.match` - :func:`play_match`, :func:`play_games`,
  :class:`MatchResult`, :func:`wilson_interval`, :func:`elo_difference`.
* :mod:`gojax.players.alphabeta` - host-side alpha-beta with a Zobrist
  transposition table for 2x2 and 3x3 boards (not re-exported here).
"""

from gojax.players._monte_carlo import PureMonteCarlo, pure_monte_carlo
from gojax.players._uct import UCTPlayer, uct_player
from gojax.players.match import (
    GameRecords,
    MatchResult,
    elo_difference,
    play_games,
    play_match,
    wilson_interval,
)
from gojax.playouts import (
    HeuristicPolicy,
    Player,
    RandomPlayer,
    heuristic_playout_policy,
    heuristic_tiers,
    own_eyes,
    playout,
    random_player,
    random_playout_policy,
    result_for,
    rollout,
    sample_uniform,
)

__all__ = [
    "GameRecords",
    "HeuristicPolicy",
    "MatchResult",
    "Player",
    "PureMonteCarlo",
    "RandomPlayer",
    "UCTPlayer",
    "elo_difference",
    "heuristic_playout_policy",
    "heuristic_tiers",
    "own_eyes",
    "play_games",
    "play_match",
    "playout",
    "pure_monte_carlo",
    "random_player",
    "random_playout_policy",
    "result_for",
    "rollout",
    "sample_uniform",
    "uct_player",
    "wilson_interval",
]
