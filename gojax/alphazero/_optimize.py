"""Training the policy-value network on replay examples: loss, optimizer, augmentation, one step.

The loss of AlphaGo Zero (Silver et al. 2017, Methods, equation 1) on a batch
of ``B`` examples ``(planes, pi, z)``, with KataGo's auxiliary targets (Wu
2019) and its policy target weights::

    loss = sum_b w_b [ -sum_a pi_b[a] log softmax(logits_b)[a] ] / sum_b w_b   policy cross-entropy
         + value * mean_b [ (v_b - z_b)^2 ]                      value mean squared error
         + ownership * mean_b,p [ CE((1 + o_bp) / 2, (1 + q_bp) / 2) ] ownership cross-entropy
         + score * mean_b [ huber(s_b - S_b / N) ]               score (Huber, delta 1)
         + opponent * mean_b:m_b>=0 [ -log softmax(r_b)[m_b] ]   opponent's answer cross-entropy
         + weight decay                                          (decoupled, in the optimizer)

where ``pi`` is the search policy (visit counts or Gumbel MuZero's improved
policy), ``w`` its weight (0 for a position searched only cheaply: playout
cap randomization), ``z`` the game's outcome for the player to move, ``o``
the final owner of each point for the player to move (+1, -1, 0) and ``q``
the ownership head's prediction, ``S`` the final score for the player to
move and ``s`` the score head's prediction (in points / ``N``), ``m`` the
opponent's answer to the move played (the examples without one, ``m = -1``,
are left out) and ``r`` the opponent head's logits. The weights ``value``,
``ownership``, ``score`` and ``opponent`` are :class:`LossWeights`; the
auxiliary terms need the network's heads (:class:`NetworkConfig`). The weight decay
is AdamW's decoupled decay (or SGD's, added to the gradient) on the
convolution and dense **kernels** only - not on biases nor BatchNorm scales,
the usual choice. BatchNorm uses the training batch's statistics and updates
its running averages (``apply(..., train=True)``); under data parallelism the
batch statistics are those of the whole global batch (XLA all-reduces them),
so the result does not depend on the device count.

**Augmentation.** Each example is replaced by one of its 8 board symmetries
drawn at random (:func:`augment_batch`, :func:`gojax.symmetry.augment`): the
planes, the policy target, the ownership target and the opponent's answer
move together and the pass entry stays put.

:func:`train_step` is a pure function (no ``jax.jit`` inside): jit it with the
optimizer and the graph definition closed over (``functools.partial``).

Shapes: ``B`` batch, ``N`` side, ``C`` channels, ``A = N * N + 1`` actions.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import optax

from gojax import symmetry
from gojax.alphazero._network import apply_outputs
from gojax.alphazero._replay import ReplayBuffer, ReplaySample, replay_sample

__all__ = [
    "LossWeights",
    "OptimizerConfig",
    "TrainMetrics",
    "augment_batch",
    "average_variables",
    "loss_fn",
    "make_optimizer",
    "sample_and_train",
    "train_step",
]

_OPTIMIZERS = ("adamw", "sgd")


@dataclasses.dataclass(frozen=True)
class OptimizerConfig:
    """The optimizer and its learning-rate schedule (frozen; saved in the run's metadata).

    Attributes:
      kind: ``"adamw"`` (default) or ``"sgd"`` (with Nesterov momentum, the
        AlphaGo Zero choice for long runs).
      learning_rate: peak learning rate.
      weight_decay: decoupled weight decay on kernels (AdamW); for SGD it is
        added to the gradient (L2), as AlphaGo Zero's ``c ||theta||^2``.
      momentum: SGD momentum (ignored by AdamW).
      warmup_steps: linear warm-up from 0 to ``learning_rate``.
      decay_steps: if set, cosine decay to ``final_fraction * learning_rate``
        at this step (use it for a run of known length); ``None`` keeps the
        rate constant after the warm-up (a run limited by wall time).
      final_fraction: the end of the cosine decay, as a fraction of the peak.
      clip_norm: global gradient-norm clipping (``None``: none).
    """

    kind: str = "adamw"
    learning_rate: float = 1e-3
    weight_decay: float = 1e-4
    momentum: float = 0.9
    warmup_steps: int = 100
    decay_steps: int | None = None
    final_fraction: float = 0.1
    clip_norm: float | None = 1.0

    def __post_init__(self):
        if self.kind not in _OPTIMIZERS:
            raise ValueError(f"optimizer kind must be one of {_OPTIMIZERS}, got {self.kind!r}")
        if not float(self.learning_rate) > 0:
            raise ValueError(f"learning_rate must be > 0, got {self.learning_rate!r}")
        if float(self.weight_decay) < 0:
            raise ValueError(f"weight_decay must be >= 0, got {self.weight_decay!r}")
        if self.warmup_steps < 0:
            raise ValueError(f"warmup_steps must be >= 0, got {self.warmup_steps!r}")
        if self.decay_steps is not None and self.decay_steps <= self.warmup_steps:
            raise ValueError(f"decay_steps must be > warmup_steps, got {self.decay_steps!r}")


def _schedule(config: OptimizerConfig) -> optax.Schedule:
    peak = float(config.learning_rate)
    if config.decay_steps is not None:
        return optax.warmup_cosine_decay_schedule(
            0.0, peak, max(config.warmup_steps, 1), config.decay_steps, peak * config.final_fraction
        )
    if config.warmup_steps == 0:
        return optax.constant_schedule(peak)
    return optax.join_schedules(
        [optax.linear_schedule(0.0, peak, config.warmup_steps), optax.constant_schedule(peak)],
        [config.warmup_steps],
    )


def _kernel_mask(params: Any) -> Any:
    """``True`` for the arrays that get weight decay: kernels (rank >= 2), not biases nor scales."""
    return jax.tree.map(lambda p: jnp.ndim(p) >= 2, params)


def make_optimizer(config: OptimizerConfig) -> optax.GradientTransformation:
    """The optax optimizer of ``config``: clipping, then AdamW or SGD with momentum and L2.

    Its learning rate at step ``t`` is ``_schedule(config)(t)``; optax keeps the
    step count in the optimizer state, so a restored state resumes the schedule.
    """
    schedule = _schedule(config)
    parts = []
    if config.clip_norm is not None:
        parts.append(optax.clip_by_global_norm(float(config.clip_norm)))
    if config.kind == "adamw":
        parts.append(optax.adamw(schedule, weight_decay=float(config.weight_decay), mask=_kernel_mask))
    else:
        if config.weight_decay:
            parts.append(optax.add_decayed_weights(float(config.weight_decay), mask=_kernel_mask))
        parts.append(optax.sgd(schedule, momentum=float(config.momentum), nesterov=True))
    return optax.chain(*parts)


@dataclasses.dataclass(frozen=True)
class LossWeights:
    """The weights of the loss terms besides the policy's (module docstring; frozen, hashable).

    Attributes:
      value: the value loss.
      ownership: the ownership loss (0 without the network's ownership head).
      score: the score loss (0 without the network's score head).
      opponent: the opponent-move loss (0 without the network's opponent head).
    """

    value: float = 1.0
    ownership: float = 0.0
    score: float = 0.0
    opponent: float = 0.0

    def __post_init__(self):
        for name in ("value", "ownership", "score", "opponent"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value >= 0:
                raise ValueError(f"LossWeights.{name} must be a number >= 0, got {value!r}")
            object.__setattr__(self, name, float(value))


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class TrainMetrics:
    """Scalars of one training step (``f32[]`` each; the mean over the batch).

    Attributes:
      loss: total loss without the weight decay.
      policy_loss: cross-entropy of the policy head against the search policy.
      value_loss: squared error of the value head against ``z``.
      policy_entropy: entropy of the targets (``policy_loss - entropy`` is the KL).
      value_accuracy: fraction of decided games (``z != 0``) whose sign the value head gets right.
      ownership_loss: cross-entropy of the ownership head (unweighted; 0 without the head's weight).
      score_loss: Huber loss of the score head (unweighted).
      opponent_loss: cross-entropy of the opponent head against the opponent's answers (unweighted;
        over the examples that have one).
      policy_fraction: mean weight of the policy targets (the fraction of full searches).
      grad_norm: global norm of the gradient (before clipping).
    """

    loss: jax.Array
    policy_loss: jax.Array
    value_loss: jax.Array
    policy_entropy: jax.Array
    value_accuracy: jax.Array
    ownership_loss: jax.Array
    score_loss: jax.Array
    opponent_loss: jax.Array
    policy_fraction: jax.Array
    grad_norm: jax.Array


def augment_batch(
    key: jax.Array,
    planes: jax.Array,
    policy: jax.Array,
    ownership: jax.Array | None = None,
    opponent_move: jax.Array | None = None,
) -> tuple[jax.Array, ...]:
    """One random board symmetry per example (:func:`gojax.symmetry.augment`).

    Args:
      key: PRNG key.
      planes: ``[B, N, N, C]``.
      policy: ``f32[B, A]`` (pass, the last entry, stays in place).
      ownership: optional ``[B, P]`` per-point targets, moved with the board.
      opponent_move: optional ``int[B]`` actions, moved with the board (pass,
        ``P``, and ``-1`` stay as they are).

    Returns:
      ``(planes [B, N, N, C], policy f32[B, A])``, example ``b`` moved by the same
      symmetry in both; then ``ownership [B, P]`` and ``opponent_move int[B]``,
      each when given.
    """
    batch, size = planes.shape[0], planes.shape[1]
    points = size * size
    extra = []
    if ownership is not None:
        extra.append(ownership.reshape(batch, size, size, 1).astype(planes.dtype))
    if opponent_move is not None:
        on_board = (opponent_move >= 0) & (opponent_move < points)
        marked = jax.nn.one_hot(jnp.where(on_board, opponent_move, points), points, dtype=planes.dtype)
        extra.append(marked.reshape(batch, size, size, 1))
    stacked = jnp.concatenate([planes, *extra], axis=-1)
    keys = jax.random.split(key, batch)
    moved, moved_policy, _ = jax.vmap(symmetry.augment)(keys, stacked, policy)
    out = [moved[..., : planes.shape[-1]], moved_policy]
    if ownership is not None:
        out.append(moved[..., planes.shape[-1]].reshape(batch, -1).astype(ownership.dtype))
    if opponent_move is not None:
        point = jnp.argmax(moved[..., -1].reshape(batch, -1), axis=-1)
        out.append(jnp.where(on_board, point, opponent_move).astype(opponent_move.dtype))
    return tuple(out)


def _policy_terms(logits: jax.Array, sample: ReplaySample) -> tuple[jax.Array, jax.Array]:
    """``(policy_loss, entropy)``: cross-entropy and the targets' entropy, weighted by ``policy_weight``."""
    weight = sample.policy_weight
    total = jnp.maximum(jnp.sum(weight), 1e-6)
    log_probs = jax.nn.log_softmax(logits, axis=-1)
    policy_loss = -jnp.sum(weight * jnp.sum(sample.policy * log_probs, axis=-1)) / total
    safe = jnp.where(sample.policy > 0, sample.policy, 1.0)
    entropy = -jnp.sum(weight * jnp.sum(sample.policy * jnp.log(safe), axis=-1)) / total
    return policy_loss, entropy


def _ownership_loss(predicted: jax.Array, target: jax.Array) -> jax.Array:
    """Mean over examples and points of the cross-entropy of ``(1 + o) / 2`` against ``(1 + q) / 2``."""
    q = jnp.clip((1.0 + predicted) / 2.0, 1e-6, 1.0 - 1e-6)
    t = (1.0 + target) / 2.0
    return -jnp.mean(t * jnp.log(q) + (1.0 - t) * jnp.log(1.0 - q))


def _opponent_loss(logits: jax.Array, move: jax.Array) -> jax.Array:
    """Mean cross-entropy of ``logits`` (``f32[B, A]``) against ``move`` (``int[B]``) over ``move >= 0``."""
    known = move >= 0
    log_probs = jax.nn.log_softmax(logits, axis=-1)
    picked = jnp.take_along_axis(log_probs, jnp.maximum(move, 0)[:, None], axis=-1)[:, 0]
    count = jnp.maximum(jnp.sum(known.astype(jnp.float32)), 1.0)
    return -jnp.sum(jnp.where(known, picked, 0.0)) / count


def loss_fn(
    variables: dict[str, Any],
    graphdef: Any,
    sample: ReplaySample,
    weights: LossWeights = LossWeights(),
) -> tuple[jax.Array, tuple[Any, TrainMetrics]]:
    """The loss (module docstring) of the network in training mode.

    Differentiate it with respect to the whole ``variables`` and keep the
    gradient of ``variables["params"]`` (the BatchNorm statistics get a
    gradient too, unused): NNX's BatchNorm refuses to update statistics that
    belong to an outer trace, which they do when only the params are traced.

    Args:
      variables: ``{"params", "batch_stats"}`` (:func:`gojax.alphazero.split`).
      graphdef: from :func:`gojax.alphazero.split`.
      sample: the batch (:class:`ReplaySample`; ``rows`` is not read).
      weights: the weights of the loss terms.

    Returns:
      ``(loss f32[], (new_batch_stats, metrics))``.
    """
    out, new_variables = apply_outputs(graphdef, variables, sample.planes, train=True)
    policy_loss, entropy = _policy_terms(out.logits, sample)
    z = sample.value
    value_loss = jnp.mean(jnp.square(out.value - z))
    decided = z != 0
    right = jnp.sum(jnp.where(decided, (jnp.sign(out.value) == jnp.sign(z)).astype(jnp.float32), 0.0))
    accuracy = right / jnp.maximum(jnp.sum(decided.astype(jnp.float32)), 1.0)
    ownership_loss = _ownership_loss(out.ownership, sample.ownership)
    size = sample.planes.shape[1]
    score_loss = jnp.mean(optax.huber_loss(out.score, sample.score / size, delta=1.0))
    loss = policy_loss + weights.value * value_loss
    loss = loss + weights.ownership * ownership_loss + weights.score * score_loss
    opponent_loss = _opponent_loss(out.opponent_logits, sample.opponent_move)
    loss = loss + weights.opponent * opponent_loss
    metrics = TrainMetrics(
        loss=loss,
        policy_loss=policy_loss,
        value_loss=value_loss,
        policy_entropy=entropy,
        value_accuracy=accuracy,
        ownership_loss=ownership_loss,
        score_loss=score_loss,
        opponent_loss=opponent_loss,
        policy_fraction=jnp.mean(sample.policy_weight),
        grad_norm=jnp.zeros((), jnp.float32),
    )
    return loss, (new_variables["batch_stats"], metrics)


def train_step(
    graphdef: Any,
    optimizer: optax.GradientTransformation,
    variables: dict[str, Any],
    opt_state: Any,
    batch: ReplaySample,
    key: jax.Array | None = None,
    *,
    weights: LossWeights = LossWeights(),
    batch_constraint: Any = None,
    lr_scale: jax.Array | float | None = None,
) -> tuple[dict[str, Any], Any, TrainMetrics]:
    """One optimizer step on one batch (pure; jit it with ``graphdef`` and ``optimizer`` closed over).

    Args:
      graphdef: from :func:`gojax.alphazero.split`.
      optimizer: from :func:`make_optimizer` (``opt_state = optimizer.init(variables["params"])``).
      variables: ``{"params", "batch_stats"}``.
      opt_state: the optimizer state.
      batch: a :class:`ReplaySample` (``rows`` is not read).
      key: if given, one random symmetry per example (:func:`augment_batch`); ``None``: no augmentation.
      weights: the weights of the loss terms.
      batch_constraint: optional function applied to the batch after
        augmentation (e.g. :func:`gojax.alphazero.constrain_batch` bound to a
        mesh, to split it over devices).
      lr_scale: ``float32[]`` (may be traced), if given, multiplies the
        step's update: the learning rate of the optimizer's schedule times
        this (weight decay included, as optax scales it with the learning
        rate). A schedule set at run time, e.g. by the fraction of a run's
        wall time spent (``TrainConfig.final_lr_fraction``).

    Returns:
      ``(variables, opt_state, metrics)`` after the update.
    """
    if key is not None:
        planes, policy, ownership, answer = augment_batch(
            key, batch.planes, batch.policy, batch.ownership, batch.opponent_move
        )
        batch = batch._replace(planes=planes, policy=policy, ownership=ownership, opponent_move=answer)
    if batch_constraint is not None:
        batch = batch_constraint(batch)
    grad_fn = jax.value_and_grad(loss_fn, has_aux=True)
    (_, (batch_stats, metrics)), grads = grad_fn(variables, graphdef, batch, weights)
    grads = grads["params"]
    updates, opt_state = optimizer.update(grads, opt_state, variables["params"])
    if lr_scale is not None:
        updates = jax.tree.map(lambda u: (u * lr_scale).astype(u.dtype), updates)
    params = optax.apply_updates(variables["params"], updates)
    metrics = dataclasses.replace(metrics, grad_norm=optax.tree.norm(grads))
    return {"params": params, "batch_stats": batch_stats}, opt_state, metrics


def sample_and_train(
    graphdef: Any,
    optimizer: optax.GradientTransformation,
    variables: dict[str, Any],
    opt_state: Any,
    buffer: ReplayBuffer,
    key: jax.Array,
    batch_size: int,
    num_steps: int,
    *,
    augment: bool = True,
    weights: LossWeights = LossWeights(),
    batch_constraint: Any = None,
    unroll: bool | int = True,
    lr_scale: jax.Array | float | None = None,
) -> tuple[dict[str, Any], Any, TrainMetrics]:
    """``num_steps`` training steps on batches drawn from the replay buffer, in one ``lax.scan``.

    The scan is **unrolled** by default: on XLA:CPU (JAX 0.10) the gradient of
    a convolution inside a loop body runs many times slower than the same
    code outside a loop (a ``lax.scan`` of length 1 is as slow), while the
    forward pass is not affected. Keep ``num_steps`` small (the training loop calls this with
    ``num_steps=1`` repeatedly) or pass ``unroll=1`` on accelerators to
    compile a rolled loop.

    Args:
      graphdef, optimizer, variables, opt_state: as :func:`train_step`.
      buffer: the replay buffer (at least one ready row).
      key: PRNG key (sampling and augmentation).
      batch_size: examples per step (static).
      num_steps: steps (static).
      augment: one random symmetry per example.
      weights: the weights of the loss terms.
      batch_constraint: as :func:`train_step`.
      unroll: ``True``: the steps are traced one after the other (no XLA
        loop; compile time grows with ``num_steps``); otherwise ``lax.scan``
        with this ``unroll``.
      lr_scale: as :func:`train_step`, for every step.

    Returns:
      ``(variables, opt_state, metrics)``; ``metrics`` holds the mean over the steps.
    """

    def one(carry, step_key):
        variables, opt_state = carry
        sample_key, augment_key = jax.random.split(step_key)
        sample = replay_sample(buffer, sample_key, batch_size)
        variables, opt_state, metrics = train_step(
            graphdef,
            optimizer,
            variables,
            opt_state,
            sample,
            augment_key if augment else None,
            weights=weights,
            batch_constraint=batch_constraint,
            lr_scale=lr_scale,
        )
        return (variables, opt_state), metrics

    carry, history = (variables, opt_state), []
    if unroll is True:  # a Python loop: no XLA loop at all
        for step_key in jax.random.split(key, num_steps):
            carry, metrics = one(carry, step_key)
            history.append(metrics)
        metrics = jax.tree.map(lambda *xs: jnp.stack(xs), *history)
    else:
        carry, metrics = jax.lax.scan(one, carry, jax.random.split(key, num_steps), unroll=unroll)
    variables, opt_state = carry
    return variables, opt_state, jax.tree.map(jnp.mean, metrics)


def average_variables(averaged: dict[str, Any], variables: dict[str, Any], decay: float) -> dict[str, Any]:
    """One step of an exponential moving average of the network's variables.

    ``decay * averaged + (1 - decay) * variables`` on every floating-point
    array (the parameters and BatchNorm's running statistics alike); any
    other array is taken from ``variables``. After ``k`` steps from ``a`` with
    the variables held at ``v`` the average is ``v + decay**k * (a - v)``: a
    weight of about ``1 / (1 - decay)`` steps back. Played instead of the
    latest weights, an average smooths the noise of the last steps out of a
    network trained at a constant learning rate (KataGo plays an average of
    its snapshots).

    Args:
      averaged: the average so far (a tree of the variables' structure).
      variables: the latest variables.
      decay: in ``[0, 1)``; ``0`` gives ``variables``.

    Returns:
      the new average, of ``averaged``'s structure and dtypes.
    """

    def mix(old: jax.Array, new: jax.Array) -> jax.Array:
        if not jnp.issubdtype(new.dtype, jnp.floating):
            return new
        return (decay * old.astype(jnp.float32) + (1.0 - decay) * new.astype(jnp.float32)).astype(old.dtype)

    return jax.tree.map(mix, averaged, variables)
