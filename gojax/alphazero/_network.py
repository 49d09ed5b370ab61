"""The AlphaZero policy-value network: a residual tower with a policy head and a value head (Flax NNX).

Silver et al. 2017 (*Mastering the game of Go without human knowledge*,
Methods, "Neural network architecture"), scaled down by
:class:`NetworkConfig`, with KataGo's additions (Wu 2019, *Accelerating
Self-Play Learning in Go*) as options::

    stem      conv 3x3 (channels) - BatchNorm - relu
    tower     blocks x [conv 3x3 - BN - relu - conv 3x3 - BN - (+ input) - relu]
    policy    conv 1x1 (policy_channels) - BN - relu - dense -> A logits
    value     conv 1x1 (value_channels) - BN - relu - dense (value_hidden) - relu - dense -> 1 - tanh
    ownership conv 1x1 -> P - tanh                                  (ownership_head)
    score     dense (value_hidden) -> 1, the value head's hidden layer (score_head)
    opponent  dense -> A logits, on the policy head's features        (opponent_head)

**Global pooling** (``global_pooling``): every second block of the tower
(the 2nd, 4th, ...) adds to its first convolution's output a per-channel
bias computed from that output's mean and maximum over the board (a dense
layer of ``2 * channels`` features), so that the whole board informs every
point within one block - KataGo's global pooling bias structure.

**Auxiliary heads** (KataGo's auxiliary targets): the **ownership** head
predicts each point's final owner for the player to move (+1 theirs, -1 the
opponent's, in ``[-1, 1]``); the **score** head the final score for the
player to move, in points divided by ``N``. Their targets come from the
finished self-play games; they train the tower and are not used by the
search. :meth:`PolicyValueNet.outputs` and :func:`apply_outputs` return
them; the search-facing ``net(planes)`` and :func:`apply` return the policy
and the value only. The **opponent** head predicts the move the opponent will
answer with (KataGo's opponent-move policy target): logits over the ``A``
actions, from the same features as the policy.

Convolutions keep the ``N x N`` board (``SAME`` zero padding; the ``ones``
plane of the observation shows the edge). The value is for the **player to
move** in the observed position, in ``[-1, 1]``.

**Two ways to call it.** As an NNX module, ``net(planes)``; ``net.train()`` /
``net.eval()`` switch BatchNorm between batch statistics and running
averages. As a pure function for ``jax.jit``, ``jax.vmap``, mctx and optax::

    graphdef, variables = split(net)      # variables = {"params": ..., "batch_stats": ...}
    logits, value, variables = apply(graphdef, variables, planes, train=True)

``variables`` is a pytree of arrays: differentiate a loss with respect to
``variables["params"]`` only and keep the returned ``"batch_stats"`` (the
running averages that ``train=True`` updates).
"""

from __future__ import annotations

import dataclasses
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from flax import nnx

from gojax._core import checks

__all__ = [
    "NetworkConfig",
    "NetworkOutputs",
    "PolicyValueNet",
    "Variables",
    "apply",
    "apply_outputs",
    "merge",
    "split",
]

Variables = dict[str, Any]
"""``{"params": nnx.State, "batch_stats": nnx.State}``: the network's arrays (a pytree)."""


@dataclasses.dataclass(frozen=True)
class NetworkConfig:
    """Sizes of :class:`PolicyValueNet` (frozen, hashable; saved as JSON in checkpoints).

    Attributes:
      blocks: residual blocks in the tower (AlphaGo Zero: 19 or 39).
      channels: convolution channels of the stem and the tower (AlphaGo Zero: 256).
      policy_channels: channels of the policy head's 1x1 convolution (AlphaGo Zero: 2).
      value_channels: channels of the value head's 1x1 convolution (AlphaGo Zero: 1).
      value_hidden: width of the value head's hidden dense layer (AlphaGo Zero: 256).
      batch_norm_momentum: momentum of BatchNorm's running averages.
      ownership_head: add the ownership head (KataGo's auxiliary target).
      score_head: add the score head (KataGo's auxiliary target).
      global_pooling: global pooling bias in every second block of the tower.
      opponent_head: add the opponent-move policy head (KataGo's auxiliary target).
    """

    blocks: int = 4
    channels: int = 32
    policy_channels: int = 2
    value_channels: int = 1
    value_hidden: int = 64
    batch_norm_momentum: float = 0.9
    ownership_head: bool = False
    score_head: bool = False
    global_pooling: bool = False
    opponent_head: bool = False

    def __post_init__(self):
        for name in ("ownership_head", "score_head", "global_pooling", "opponent_head"):
            if not isinstance(getattr(self, name), bool):
                raise TypeError(f"NetworkConfig.{name} must be a bool, got {getattr(self, name)!r}")
        for name in ("blocks", "channels", "policy_channels", "value_channels", "value_hidden"):
            value = checks.integer(getattr(self, name), f"NetworkConfig.{name}", least=int(name != "blocks"))
            object.__setattr__(self, name, value)
        momentum = checks.number(
            self.batch_norm_momentum, "NetworkConfig.batch_norm_momentum", least=0.0, most=1.0
        )
        if momentum == 1.0:
            raise ValueError(
                f"NetworkConfig.batch_norm_momentum must be below 1, got {self.batch_norm_momentum!r}"
            )
        object.__setattr__(self, "batch_norm_momentum", momentum)

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> NetworkConfig:
        """Inverse of :meth:`to_dict`.

        Raises:
          TypeError: naming the field and the value, for a value of the wrong type.
          ValueError: on an unknown field or a bad value.
        """
        checks.known_fields(cls, data)
        return cls(**data)


class _ConvBN(nnx.Module):
    """Convolution (no bias) followed by BatchNorm."""

    def __init__(self, cin: int, cout: int, kernel: int, momentum: float, rngs: nnx.Rngs):
        self.conv = nnx.Conv(cin, cout, (kernel, kernel), padding="SAME", use_bias=False, rngs=rngs)
        self.norm = nnx.BatchNorm(cout, momentum=momentum, rngs=rngs)

    def __call__(self, x: jax.Array) -> jax.Array:
        return self.norm(self.conv(x))


class _ResidualBlock(nnx.Module):
    """conv - BN - relu - [+ global pooling bias] - conv - BN - (+ input) - relu."""

    def __init__(self, channels: int, momentum: float, pooling: bool, rngs: nnx.Rngs):
        self.first = _ConvBN(channels, channels, 3, momentum, rngs)
        self.second = _ConvBN(channels, channels, 3, momentum, rngs)
        self.pool = nnx.Linear(2 * channels, channels, rngs=rngs) if pooling else None

    def __call__(self, x: jax.Array) -> jax.Array:
        hidden = jax.nn.relu(self.first(x))
        if self.pool is not None:
            pooled = jnp.concatenate([jnp.mean(hidden, axis=(1, 2)), jnp.max(hidden, axis=(1, 2))], axis=-1)
            hidden = hidden + self.pool(pooled)[:, None, None, :]
        return jax.nn.relu(x + self.second(hidden))


class NetworkOutputs(NamedTuple):
    """Every head of :class:`PolicyValueNet` on a batch.

    Attributes:
      logits: ``f32[B, A]`` policy logits.
      value: ``f32[B]`` value for the player to move, in ``[-1, 1]``.
      ownership: ``f32[B, P]`` each point's predicted final owner for the
        player to move, in ``[-1, 1]`` (zeros without the head).
      score: ``f32[B]`` the predicted final score for the player to move, in
        points divided by ``N`` (zeros without the head).
      opponent_logits: ``f32[B, A]`` logits of the opponent's answer to the
        move the player to move will play (zeros without the head).
    """

    logits: jax.Array
    value: jax.Array
    ownership: jax.Array
    score: jax.Array
    opponent_logits: jax.Array


class PolicyValueNet(nnx.Module):
    """AlphaZero residual policy-value network for an ``N x N`` board (see the module docstring).

    Args:
      config: the sizes.
      board_size: ``N``.
      in_channels: ``C``, channels of the observation planes.
      rngs: ``nnx.Rngs`` for the initial weights.
    """

    def __init__(self, config: NetworkConfig, board_size: int, in_channels: int, *, rngs: nnx.Rngs):
        board_size = checks.integer(board_size, "board_size", least=1)
        in_channels = checks.integer(in_channels, "in_channels", least=1)
        self.config = config
        self.board_size = board_size
        self.in_channels = in_channels
        self.num_actions = board_size * board_size + 1
        width, momentum, points = config.channels, config.batch_norm_momentum, board_size * board_size
        self.stem = _ConvBN(in_channels, width, 3, momentum, rngs)
        self.tower = nnx.List(
            [
                _ResidualBlock(width, momentum, config.global_pooling and i % 2 == 1, rngs)
                for i in range(config.blocks)
            ]
        )
        self.policy_conv = _ConvBN(width, config.policy_channels, 1, momentum, rngs)
        self.policy_out = nnx.Linear(points * config.policy_channels, self.num_actions, rngs=rngs)
        self.value_conv = _ConvBN(width, config.value_channels, 1, momentum, rngs)
        self.value_hidden = nnx.Linear(points * config.value_channels, config.value_hidden, rngs=rngs)
        self.value_out = nnx.Linear(config.value_hidden, 1, rngs=rngs)
        self.ownership_conv = nnx.Conv(width, 1, (1, 1), rngs=rngs) if config.ownership_head else None
        self.score_out = nnx.Linear(config.value_hidden, 1, rngs=rngs) if config.score_head else None
        policy_features = points * config.policy_channels
        opponent = nnx.Linear(policy_features, self.num_actions, rngs=rngs) if config.opponent_head else None
        self.opponent_out = opponent

    def __call__(self, planes: jax.Array) -> tuple[jax.Array, jax.Array]:
        """Policy logits and value of a batch of observations.

        Args:
          planes: ``float32[B, N, N, C]``.

        Returns:
          ``(logits float32[B, A], value float32[B])``; the value is in
          ``[-1, 1]`` for the player to move. Illegal moves are not masked
          here (the search masks them).

        Raises:
          ValueError: if ``planes`` is not ``[B, N, N, C]`` for this network.
        """
        out = self.outputs(planes)
        return out.logits, out.value

    def outputs(self, planes: jax.Array) -> NetworkOutputs:
        """Every head on a batch of observations ``float32[B, N, N, C]`` (:class:`NetworkOutputs`).

        Raises:
          ValueError: if ``planes`` is not ``[B, N, N, C]`` for this network.
        """
        expected = (self.board_size, self.board_size, self.in_channels)
        if planes.ndim != 4 or tuple(planes.shape[1:]) != expected:
            raise ValueError(
                f"planes must have shape [B, {', '.join(map(str, expected))}], got {planes.shape}"
            )
        x = jax.nn.relu(self.stem(planes.astype(jnp.float32)))
        for block in self.tower:
            x = block(x)
        batch = x.shape[0]
        policy = jax.nn.relu(self.policy_conv(x)).reshape(batch, -1)
        logits = self.policy_out(policy)
        hidden = jax.nn.relu(self.value_conv(x)).reshape(batch, -1)
        hidden = jax.nn.relu(self.value_hidden(hidden))
        value = jnp.tanh(self.value_out(hidden))[:, 0]
        ownership = jnp.zeros((batch, self.num_actions - 1), jnp.float32)
        if self.ownership_conv is not None:
            ownership = jnp.tanh(self.ownership_conv(x)).reshape(batch, -1)
        score = jnp.zeros((batch,), jnp.float32)
        if self.score_out is not None:
            score = self.score_out(hidden)[:, 0]
        opponent = jnp.zeros_like(logits)
        if self.opponent_out is not None:
            opponent = self.opponent_out(policy)
        return NetworkOutputs(logits, value, ownership, score, opponent)


def _split_params(net: PolicyValueNet) -> tuple[nnx.GraphDef, nnx.State, nnx.State]:
    """``nnx.split(net, nnx.Param, ...)``: the graphdef, the params and everything else."""
    # flax's stub types a split with 2+ filters as a variadic tuple; two filters give exactly 3 items.
    graphdef, params, rest = nnx.split(net, nnx.Param, ...)  # type: ignore[misc]
    return graphdef, params, rest


def split(net: PolicyValueNet) -> tuple[nnx.GraphDef, Variables]:
    """``(graphdef, variables)``: the static structure and the arrays of ``net``.

    ``variables = {"params": ..., "batch_stats": ...}`` (``nnx.State`` pytrees:
    the trainable weights, and everything else - BatchNorm's running
    averages). ``graphdef`` is hashable and can be closed over or passed as a
    static argument.
    """
    graphdef, params, rest = _split_params(net)
    return graphdef, {"params": params, "batch_stats": rest}


def merge(graphdef: nnx.GraphDef, variables: Variables) -> PolicyValueNet:
    """The module of ``split(net)`` (a new object sharing nothing with ``net``).

    The variables are copied into fresh NNX variables, so :func:`apply` may
    update the batch statistics inside a transformation that traces only
    part of ``variables`` (e.g. ``jax.grad`` with respect to the params).
    """
    return nnx.merge(graphdef, variables["params"], variables["batch_stats"], copy=True)


def apply(
    graphdef: nnx.GraphDef, variables: Variables, planes: jax.Array, train: bool = False
) -> tuple[jax.Array, jax.Array, Variables]:
    """The network as a pure function (for ``jax.jit``, ``jax.vmap``, mctx and optax).

    Args:
      graphdef: from :func:`split`.
      variables: from :func:`split` (or an earlier :func:`apply`).
      planes: ``float32[B, N, N, C]``.
      train: static; ``True`` normalises with the batch's statistics and
        updates the running averages, ``False`` uses the running averages.

    Returns:
      ``(logits float32[B, A], value float32[B], new_variables)``;
      ``new_variables`` is ``variables`` with the updated ``"batch_stats"``
      when ``train`` (``variables`` itself otherwise).
    """
    out, new_variables = apply_outputs(graphdef, variables, planes, train)
    return out.logits, out.value, new_variables


def apply_outputs(
    graphdef: nnx.GraphDef, variables: Variables, planes: jax.Array, train: bool = False
) -> tuple[NetworkOutputs, Variables]:
    """Every head as a pure function: :func:`apply` with the auxiliary heads too.

    Returns:
      ``(outputs, new_variables)``: :class:`NetworkOutputs`, and the
      variables as :func:`apply` returns them.
    """
    net = merge(graphdef, variables)
    if train:
        net.train()
    else:
        net.eval()
    out = net.outputs(planes)
    if not train:
        return out, variables
    _, params, rest = _split_params(net)
    return out, {"params": params, "batch_stats": rest}
