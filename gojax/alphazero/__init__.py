"""AlphaZero for gojax: observation planes, a residual policy-value network, mctx search, a player.

Import explicitly (``from gojax import alphazero as az``); ``import gojax``
does not load this package. It needs flax (NNX), mctx and orbax-checkpoint.

* :func:`basic_planes`, :data:`BASIC_CHANNELS`, :func:`num_planes`,
  :data:`OBSERVATIONS` (by checkpoint name) - the
  default observation, 15 planes from the :class:`gojax.GoState` alone
  (``_observe.py``; table in ``docs/features.md``).
* :class:`NetworkConfig`, :class:`PolicyValueNet`, :func:`split`,
  :func:`apply`, :func:`merge` - the network, as an NNX module and as a pure
  function (``_network.py``).
* :func:`search`, :func:`make_root`, :func:`make_recurrent_fn`,
  :func:`legal_logits` - batched AlphaZero search on mctx (PUCT or Gumbel
  MuZero) with :func:`gojax.step` as the model (``_search.py``).
* :class:`AlphaZeroPlayer` - network plus search as a gojax player (``_player.py``).
* :func:`save_checkpoint`, :func:`load_checkpoint` - orbax checkpoints (``_checkpoint.py``).

Shapes: ``B`` batch, ``N`` board side, ``P = N * N``, ``A = P + 1`` (pass is
action ``P``), ``C`` observation channels.
"""

from gojax.alphazero._checkpoint import CHECKPOINT_FORMAT, load_checkpoint, save_checkpoint
from gojax.alphazero._network import NetworkConfig, PolicyValueNet, Variables, apply, merge, split
from gojax.alphazero._observe import (
    BASIC_CHANNELS,
    BASIC_NUM_CHANNELS,
    OBSERVATIONS,
    BasicChannels,
    Observation,
    basic_planes,
    num_planes,
)
from gojax.alphazero._player import AlphaZeroPlayer
from gojax.alphazero._search import ILLEGAL_LOGIT, legal_logits, make_recurrent_fn, make_root, search

__all__ = [
    "BASIC_CHANNELS",
    "BASIC_NUM_CHANNELS",
    "CHECKPOINT_FORMAT",
    "ILLEGAL_LOGIT",
    "OBSERVATIONS",
    "AlphaZeroPlayer",
    "BasicChannels",
    "NetworkConfig",
    "Observation",
    "PolicyValueNet",
    "Variables",
    "apply",
    "basic_planes",
    "legal_logits",
    "load_checkpoint",
    "make_recurrent_fn",
    "make_root",
    "merge",
    "num_planes",
    "save_checkpoint",
    "search",
    "split",
]

# Other modules of this package add their exports below, in their own block.
