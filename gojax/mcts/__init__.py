"""Monte-Carlo tree search on mctx, with the exact rules as the model: one search for every player.

Import explicitly (``from gojax import mcts``); ``import gojax`` does not load
this package. :func:`search` needs mctx (the ``players`` extra: ``pip
install 'gojax[players]'``), imported when a search is built. ::

    out = mcts.search(config, mcts.RolloutEvaluator(), states, key, mcts.SearchSettings(algorithm="uct"))
    out.action          # int32[B]

* :func:`search` - UCT, PUCT or Gumbel MuZero on a batch of games
  (``_search.py``); :func:`make_root`, :func:`make_recurrent_fn`,
  :func:`legal_logits`, :func:`ucb1_action_selection`,
  :func:`black_result_if_ended`, :data:`ILLEGAL_LOGIT` - its pieces.
* :data:`Evaluator` - ``evaluate(config, states, key) -> (logits, value)``,
  what every search asks of a position: the mctx search, the players built
  on it and :class:`gojax.search.TreeSearch`'s guide
  (``_evaluators.py``); :class:`RolloutEvaluator` (a uniform prior and one
  rollout), :class:`MixedEvaluator` (another evaluator's value blended
  with playouts', :data:`MIXED_POLICIES`), :func:`uniform_logits`. A network's is
  :func:`gojax.alphazero.network_evaluator`.
* :class:`SearchSettings`, :data:`ALGORITHMS` - the one search-settings
  object, shared by self-play, players, evaluation and GTP (``_settings.py``).

Shapes: ``B`` batch, ``N`` board side, ``P = N * N``, ``A = P + 1`` (pass is ``P``).
"""

from gojax.mcts._evaluators import MIXED_POLICIES, Evaluator, MixedEvaluator, RolloutEvaluator, uniform_logits
from gojax.mcts._search import (
    ILLEGAL_LOGIT,
    black_result_if_ended,
    legal_logits,
    make_recurrent_fn,
    make_root,
    search,
    ucb1_action_selection,
)
from gojax.mcts._settings import ALGORITHMS, SearchSettings

__all__ = [
    "ALGORITHMS",
    "ILLEGAL_LOGIT",
    "MIXED_POLICIES",
    "Evaluator",
    "MixedEvaluator",
    "RolloutEvaluator",
    "SearchSettings",
    "black_result_if_ended",
    "legal_logits",
    "make_recurrent_fn",
    "make_root",
    "search",
    "ucb1_action_selection",
    "uniform_logits",
]
