"""Playouts: the policies that play a game out, and the loops that run them, below every search.

Import explicitly (``from gojax import playouts``); ``import gojax`` does not
load this package. Every search of gojax evaluates positions with what is
here: the mctx players' rollouts (:func:`rollout`), pure Monte-Carlo
(:func:`playout`), the host tree search's batched playouts
(:func:`run_playouts`), the GTP engine's dead-stone judgement.

* :data:`Player` - the player signature ``(config, state, key) -> int32[]``
  action for ONE game; a playout policy is a player.
* :data:`random_player`, :class:`RandomPlayer` - uniform over legal points;
  :data:`random_playout_policy` also never fills its own eyes.
* :data:`heuristic_playout_policy`, :class:`HeuristicPolicy`,
  :func:`heuristic_tiers` - capture (largest first), else escape atari, else
  avoid self-atari, else random.
* :func:`own_eyes`, :func:`sample_uniform`, :func:`result_for` - the pieces
  policies and rollouts share.
* :func:`playout`, :func:`rollout` - one game played to its end with a
  policy on :func:`gojax.step`, and its result.
* :func:`run_playouts` - ``M`` playouts from each of ``K`` positions in one
  call, reduced to wins, AMAF counts and ownership, on the bitboard-only
  light kernel (``"light"``, ``"heavy"``: MoGo's priorities and 3x3
  patterns; on the CPU its loop runs in C, ``gojax/_native/playouts.c``,
  the same playouts) or on ``gojax.step`` (``"random"``, ``"heuristic"``);
  :data:`POLICY_NAMES`, :func:`playout_config`, :func:`ownership`;
  :func:`playout_wins`, one light-kernel playout per position with its own
  key, batched across ``vmap`` levels (a search's evaluator).

Shapes: ``K`` positions, ``M`` playouts each, ``N`` board side, ``P = N * N``,
``A = P + 1`` (pass is ``P``).
"""

from gojax.playouts._batch import (
    POLICY_NAMES,
    STEP_POLICIES,
    PlayoutResults,
    ownership,
    playout_config,
    playout_wins,
    run_playouts,
    to_playout_state,
)
from gojax.playouts._common import Player, own_eyes, result_for, sample_uniform
from gojax.playouts._heuristic import HeuristicPolicy, heuristic_playout_policy, heuristic_tiers
from gojax.playouts._random import RandomPlayer, random_player, random_playout_policy
from gojax.playouts._rollout import playout, rollout

__all__ = [
    "POLICY_NAMES",
    "STEP_POLICIES",
    "HeuristicPolicy",
    "Player",
    "PlayoutResults",
    "RandomPlayer",
    "heuristic_playout_policy",
    "heuristic_tiers",
    "own_eyes",
    "ownership",
    "playout",
    "playout_config",
    "playout_wins",
    "random_player",
    "random_playout_policy",
    "result_for",
    "rollout",
    "run_playouts",
    "sample_uniform",
    "to_playout_state",
]
