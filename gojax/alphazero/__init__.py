"""AlphaZero for gojax: observation planes, a residual policy-value network, mctx search, a player.

Import explicitly (``from gojax import alphazero as az``); ``import gojax``
does not load this package. It needs flax (NNX), mctx and orbax-checkpoint.

* :func:`basic_planes`, :data:`BASIC_CHANNELS`, :func:`num_planes` - the
  default observation, 15 planes from the :class:`gojax.GoState` alone,
  re-exported from :mod:`gojax.features`, where every observation is
  registered by the name a checkpoint records
  (:func:`gojax.features.observation`; table in ``docs/features.md``).
* :class:`NetworkConfig`, :class:`PolicyValueNet`, :func:`split`,
  :func:`apply`, :func:`merge` - the network, as an NNX module and as a pure
  function (``_network.py``).
* :func:`network_evaluator` - the network as an evaluator
  (``evaluate(config, states, key) -> (logits, value)``), what
  :func:`gojax.mcts.search` (PUCT, Gumbel MuZero), self-play and
  :class:`gojax.search.TreeSearch`'s guide take (``_player.py``). The search
  and its settings are :mod:`gojax.mcts`; :class:`SearchSettings`, the one
  settings object of every search, is re-exported here.
* :class:`AlphaZeroPlayer` - network plus search as a gojax player; :class:`PolicyPlayer` - the
  network's raw policy, no search (``_player.py``).
* :func:`save_checkpoint`, :func:`load_checkpoint` - orbax network
  checkpoints, what players and ``gojax-gtp --player az`` load (``_checkpoint.py``).
* the pieces of self-play training: the replay buffer (``_replay.py``),
  self-play (``_selfplay.py``), the loss, optimizer and training step
  (``_optimize.py``) and data parallelism (``_sharding.py``). The training
  driver that runs them (configuration, run state, run checkpoints,
  evaluation, metrics) is :mod:`gojax.training`.

Shapes: ``B`` batch, ``N`` board side, ``P = N * N``, ``A = P + 1`` (pass is
action ``P``), ``C`` observation channels.
"""

from gojax._host.optional import require

require("flax", "optax", "orbax.checkpoint", "mctx", "chex", feature="gojax.alphazero", extra="alphazero")

from gojax.alphazero._checkpoint import CHECKPOINT_FORMAT, load_checkpoint, save_checkpoint
from gojax.alphazero._network import (
    NetworkConfig,
    NetworkOutputs,
    PolicyValueNet,
    Variables,
    apply,
    apply_outputs,
    merge,
    split,
)
from gojax.alphazero._player import PLAY_SETTINGS, AlphaZeroPlayer, PolicyPlayer, network_evaluator
from gojax.features import (
    BASIC_CHANNELS,
    BASIC_NUM_CHANNELS,
    BasicChannels,
    Observation,
    basic_planes,
    num_planes,
)
from gojax.mcts import SearchSettings

__all__ = [
    "BASIC_CHANNELS",
    "BASIC_NUM_CHANNELS",
    "CHECKPOINT_FORMAT",
    "PLAY_SETTINGS",
    "AlphaZeroPlayer",
    "BasicChannels",
    "NetworkConfig",
    "NetworkOutputs",
    "Observation",
    "PolicyPlayer",
    "PolicyValueNet",
    "SearchSettings",
    "Variables",
    "apply",
    "apply_outputs",
    "basic_planes",
    "load_checkpoint",
    "merge",
    "network_evaluator",
    "num_planes",
    "save_checkpoint",
    "split",
]

# Other modules of this package add their exports below, in their own block.

# Self-play training: replay buffer, self-play, loss and optimizer, data parallelism.
# isort: split
from gojax.alphazero._optimize import (
    LossWeights,
    OptimizerConfig,
    TrainMetrics,
    augment_batch,
    average_variables,
    loss_fn,
    make_optimizer,
    sample_and_train,
    train_step,
)
from gojax.alphazero._replay import (
    ReplayBuffer,
    ReplaySample,
    check_capacity,
    replay_add,
    replay_finish,
    replay_gather,
    replay_init,
    replay_ready_groups,
    replay_sample,
    replay_write,
)
from gojax.alphazero._selfplay import (
    SelfPlaySettings,
    SelfPlayState,
    SelfPlayStats,
    selfplay,
    selfplay_init,
    selfplay_sharded,
)
from gojax.alphazero._sharding import (
    DATA_AXIS,
    batch_sharding,
    constrain_batch,
    initialize_distributed,
    make_mesh,
    process_devices,
    replicate,
    replicated,
    shard_batch,
)

__all__ += [
    "DATA_AXIS",
    "LossWeights",
    "OptimizerConfig",
    "ReplayBuffer",
    "ReplaySample",
    "SelfPlaySettings",
    "SelfPlayState",
    "SelfPlayStats",
    "TrainMetrics",
    "augment_batch",
    "average_variables",
    "batch_sharding",
    "check_capacity",
    "constrain_batch",
    "initialize_distributed",
    "loss_fn",
    "make_mesh",
    "make_optimizer",
    "process_devices",
    "replay_add",
    "replay_finish",
    "replay_gather",
    "replay_init",
    "replay_ready_groups",
    "replay_sample",
    "replay_write",
    "replicate",
    "replicated",
    "sample_and_train",
    "selfplay",
    "selfplay_init",
    "selfplay_sharded",
    "shard_batch",
    "train_step",
]
