"""The 8 symmetries of the board (the dihedral group D4) for boards, planes, policies and actions.

A symmetry is an int ``k`` in ``[0, 8)``; it may be a Python int (a static
transform: XLA reverses and transposes) or a traced integer array (a gather
through a small index table, so it can be drawn at random per sample and
batched with ``jax.vmap``). ``out = transform_board(k, x)`` moves the value of
point ``(r, c)`` of ``x`` to the point ``(r', c')`` given below, with
``M = N - 1`` and row 0 at the top::

    k  name            (r, c) -> (r', c')   as NumPy
    0  IDENTITY        (r, c)               x
    1  ROT90           (M - c, r)           np.rot90(x, 1)   (anticlockwise)
    2  ROT180          (M - r, M - c)       np.rot90(x, 2)
    3  ROT270          (c, M - r)           np.rot90(x, 3)
    4  FLIP_LR         (r, M - c)           x[:, ::-1]       (mirror the columns)
    5  FLIP_UD         (M - r, c)           x[::-1]          (mirror the rows)
    6  TRANSPOSE       (c, r)               x.swapaxes(0, 1)
    7  ANTI_TRANSPOSE  (M - c, M - r)       np.rot90(x, 2).swapaxes(0, 1)

Composition order: ``compose(a, b)`` is "apply ``a``, then ``b``"::

    transform_board(compose(a, b), x) == transform_board(b, transform_board(a, x))

Every function works on **one** sample (add a batch with ``jax.vmap``), except
:func:`symmetrize`, which wraps a network that already takes a batch.

Shapes: ``N`` board side, ``P = N * N``, ``A = P + 1`` (the last action is pass,
which every symmetry leaves in place), ``C`` feature channels.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core.types import GoConfig

__all__ = [
    "ANTI_TRANSPOSE",
    "FLIP_LR",
    "FLIP_UD",
    "IDENTITY",
    "NUM_SYMMETRIES",
    "ROT90",
    "ROT180",
    "ROT270",
    "SYMMETRY_NAMES",
    "TRANSPOSE",
    "all_symmetries",
    "augment",
    "compose",
    "inverse",
    "inverse_transform_action",
    "inverse_transform_board",
    "inverse_transform_policy",
    "symmetrize",
    "transform_action",
    "transform_board",
    "transform_policy",
]

IDENTITY = 0
ROT90 = 1
ROT180 = 2
ROT270 = 3
FLIP_LR = 4
FLIP_UD = 5
TRANSPOSE = 6
ANTI_TRANSPOSE = 7
NUM_SYMMETRIES = 8
SYMMETRY_NAMES = (
    "IDENTITY",
    "ROT90",
    "ROT180",
    "ROT270",
    "FLIP_LR",
    "FLIP_UD",
    "TRANSPOSE",
    "ANTI_TRANSPOSE",
)

_MODES = ("all", "random")


def _apply_static(k: int, x, xp):
    """Symmetry ``k`` on the two leading axes of ``x``, with ``xp`` = ``np`` or ``jnp``."""
    if k == IDENTITY:
        return x
    if k in (ROT90, ROT180, ROT270):
        return xp.rot90(x, k, axes=(0, 1))
    if k == FLIP_LR:
        return xp.flip(x, axis=1)
    if k == FLIP_UD:
        return xp.flip(x, axis=0)
    if k == TRANSPOSE:
        return xp.swapaxes(x, 0, 1)
    return xp.swapaxes(xp.rot90(x, 2, axes=(0, 1)), 0, 1)  # ANTI_TRANSPOSE


def _static_index(k) -> int | None:
    """``k`` as a Python int when it is static (checked to be in range), else ``None``."""
    if isinstance(k, (bool, np.bool_)):
        raise ValueError(f"a symmetry is an int in [0, {NUM_SYMMETRIES}), got {k!r}")
    if isinstance(k, (int, np.integer)):
        if not 0 <= int(k) < NUM_SYMMETRIES:
            raise ValueError(f"a symmetry is an int in [0, {NUM_SYMMETRIES}), got {k!r}")
        return int(k)
    return None


@functools.cache
def _group_tables() -> tuple[np.ndarray, np.ndarray]:
    """``(compose int8[8, 8], inverse int8[8])``, read off the action on a 3x3 grid."""
    grid = np.arange(9).reshape(3, 3)
    images = [_apply_static(k, grid, np).tobytes() for k in range(NUM_SYMMETRIES)]
    table = np.zeros((NUM_SYMMETRIES, NUM_SYMMETRIES), np.int8)
    for a in range(NUM_SYMMETRIES):
        for b in range(NUM_SYMMETRIES):
            both = _apply_static(b, _apply_static(a, grid, np), np)
            table[a, b] = images.index(both.tobytes())
    inverse_table = np.argmax(table == IDENTITY, axis=1).astype(np.int8)
    return table, inverse_table


@functools.cache
def _action_tables(size: int) -> tuple[np.ndarray, np.ndarray]:
    """``(source, destination)``, both ``int32[8, A]`` with pass fixed.

    ``transform_policy(k, p)[a] == p[source[k, a]]`` and
    ``transform_action(k, a) == destination[k, a]``.
    """
    points = size * size
    source = np.empty((NUM_SYMMETRIES, points + 1), np.int32)
    for k in range(NUM_SYMMETRIES):
        source[k, :points] = _apply_static(k, np.arange(points).reshape(size, size), np).reshape(-1)
    source[:, points] = points
    destination = np.argsort(source, axis=1).astype(np.int32)
    return source, destination


def compose(a, b):
    """The symmetry "``a``, then ``b``".

    Args:
      a, b: symmetries, Python ints or ``int[]`` arrays (broadcast together).

    Returns:
      A Python int when both are static, else ``int32[...]``.
    """
    table, _ = _group_tables()
    sa, sb = _static_index(a), _static_index(b)
    if sa is not None and sb is not None:
        return int(table[sa, sb])
    return jnp.asarray(table, jnp.int32)[jnp.asarray(a), jnp.asarray(b)]


def inverse(k):
    """The symmetry that undoes ``k``: a Python int for a static ``k``, else ``int32[...]``."""
    _, table = _group_tables()
    static = _static_index(k)
    if static is not None:
        return int(table[static])
    return jnp.asarray(table, jnp.int32)[jnp.asarray(k)]


def _check_board_like(x: jax.Array) -> int:
    if x.ndim < 2 or x.shape[0] != x.shape[1]:
        raise ValueError(f"expected a board-like array [N, N, ...], got shape {x.shape}")
    return x.shape[0]


def _side_of_policy(policy: jax.Array) -> int:
    if policy.ndim < 1:
        raise ValueError(f"expected a policy [A, ...] with A = N * N + 1, got shape {policy.shape}")
    size = int(np.sqrt(max(policy.shape[0] - 1, 0)))
    if size < 1 or size * size + 1 != policy.shape[0]:
        raise ValueError(f"a policy has N * N + 1 entries; got {policy.shape[0]} (shape {policy.shape})")
    return size


def transform_board(k, x: jax.Array) -> jax.Array:
    """Symmetry ``k`` applied to a board-like array.

    Args:
      k: symmetry, a Python int or a traced ``int[]``.
      x: ``[N, N, ...]`` anything indexed by ``(row, col)`` first: a board
        ``int8[N, N]``, channels-last feature planes ``[N, N, C]``, a grid of
        policy logits.

    Returns:
      ``x``'s shape and dtype, points moved as in the module table.
    """
    x = jnp.asarray(x)
    size = _check_board_like(x)
    static = _static_index(k)
    if static is not None:
        return _apply_static(static, x, jnp)
    source = jnp.asarray(_action_tables(size)[0][:, : size * size])[k]  # [P]
    flat = x.reshape((size * size, *x.shape[2:]))
    return jnp.take(flat, source, axis=0).reshape(x.shape)


def inverse_transform_board(k, x: jax.Array) -> jax.Array:
    """Undoes :func:`transform_board`: ``[N, N, ...]`` -> ``[N, N, ...]``."""
    return transform_board(inverse(k), x)


def transform_policy(k, policy: jax.Array) -> jax.Array:
    """Symmetry ``k`` applied to a policy (probabilities, logits or a legal mask).

    Args:
      k: symmetry, a Python int or a traced ``int[]``.
      policy: ``[A, ...]`` one entry per action; the pass entry (the last)
        stays in place.

    Returns:
      ``[A, ...]``: ``out[transform_action(k, a)] == policy[a]``.
    """
    policy = jnp.asarray(policy)
    size = _side_of_policy(policy)
    points = size * size
    static = _static_index(k)
    if static is not None:
        grid = policy[:points].reshape((size, size, *policy.shape[1:]))
        moved = _apply_static(static, grid, jnp).reshape((points, *policy.shape[1:]))
        return jnp.concatenate([moved, policy[points:]], axis=0)
    source = jnp.asarray(_action_tables(size)[0])[k]  # [A]
    return jnp.take(policy, source, axis=0)


def inverse_transform_policy(k, policy: jax.Array) -> jax.Array:
    """Undoes :func:`transform_policy`: ``[A, ...]`` -> ``[A, ...]``.

    Use it on a network's output for transformed planes to get the policy for
    the original position.
    """
    return transform_policy(inverse(k), policy)


def transform_action(config: GoConfig, k, action: jax.Array) -> jax.Array:
    """Symmetry ``k`` applied to an action index.

    Args:
      config: the rules (only ``size`` is used).
      k: symmetry, a Python int or a traced ``int[]``.
      action: ``int[...]`` actions in ``[0, P]``; pass (``P``) stays pass, and
        values outside ``[0, P]`` (illegal for ``gojax.step``) are returned
        unchanged so they stay illegal.

    Returns:
      ``int32[...]`` (broadcast of ``k`` and ``action``).
    """
    _static_index(k)  # a static k is checked to be in range
    destination = jnp.asarray(_action_tables(config.size)[1])  # [8, A]
    action = jnp.asarray(action, jnp.int32)
    inside = (action >= 0) & (action <= config.num_points)
    moved = destination[jnp.asarray(k, jnp.int32), jnp.clip(action, 0, config.num_points)]
    return jnp.where(inside, moved, action)


def inverse_transform_action(config: GoConfig, k, action: jax.Array) -> jax.Array:
    """Undoes :func:`transform_action`: ``int[...]`` -> ``int32[...]``."""
    return transform_action(config, inverse(k), action)


def augment(key: jax.Array, planes: jax.Array, policy: jax.Array | None = None):
    """Training augmentation: one uniformly random symmetry for one sample.

    For a batch, one symmetry per sample::

        keys = jax.random.split(key, batch)
        planes, policy, k = jax.vmap(gojax.symmetry.augment)(keys, planes, policy)

    Args:
      key: a PRNG key.
      planes: ``[N, N, ...]`` feature planes (channels last) or a board.
      policy: optional ``[A, ...]`` policy target (pass entry stays put).

    Returns:
      ``(planes, policy, k)``: transformed planes ``[N, N, ...]``, transformed
      policy ``[A, ...]`` (``None`` if not given) and the symmetry ``int32[]``.
    """
    k = jax.random.randint(key, (), 0, NUM_SYMMETRIES, dtype=jnp.int32)
    moved_policy = None if policy is None else transform_policy(k, policy)
    return transform_board(k, planes), moved_policy, k


def all_symmetries(planes: jax.Array, policy: jax.Array | None = None):
    """All 8 symmetric copies of one sample, in symmetry order ``k = 0..7``.

    Under ``jax.vmap`` over a batch the results are ``[B, 8, ...]``; reshape to
    ``[B * 8, ...]`` and repeat per-sample targets with ``jnp.repeat(v, 8)``.

    Args:
      planes: ``[N, N, ...]`` feature planes (channels last) or a board.
      policy: optional ``[A, ...]`` policy target.

    Returns:
      ``(planes [8, N, N, ...], policy [8, A, ...] or None)``.
    """
    ks = range(NUM_SYMMETRIES)
    stacked = jnp.stack([transform_board(k, planes) for k in ks])
    if policy is None:
        return stacked, None
    return stacked, jnp.stack([transform_policy(k, policy) for k in ks])


def symmetrize(
    apply_fn: Callable[[jax.Array], tuple[jax.Array, Any]],
    planes: jax.Array,
    mode: str = "all",
    key: jax.Array | None = None,
):
    """Inference over symmetries: average over all 8, or one random symmetry.

    Unlike the rest of the module this takes a **batch**, because ``apply_fn``
    is a network that already does.

    ``mode="all"`` calls ``apply_fn`` once on the ``8 * B`` transformed
    positions, maps each policy back with :func:`inverse_transform_policy`
    and returns the mean over the 8 symmetries of the policy and of the value
    outputs. The mean is taken of whatever ``apply_fn`` returns: return
    probabilities to average probabilities (AlphaGo Zero's evaluation), logits
    to average logits. ``mode="random"`` draws one symmetry per sample from
    ``key`` (AlphaGo Zero's self-play) and maps its policy back.

    Args:
      apply_fn: ``planes [B', N, N, C] -> (policy [B', A], value)`` where
        ``value`` is a pytree of arrays with leading axis ``B'`` that the
        symmetries leave unchanged (a value, a score estimate).
      planes: ``[B, N, N, C]`` channels-last feature planes.
      mode: ``"all"`` or ``"random"``.
      key: a PRNG key, needed for ``mode="random"``.

    Returns:
      ``(policy [B, A], value)`` for the untransformed positions.

    Raises:
      ValueError: for an unknown ``mode``, a missing ``key`` or planes that are
        not ``[B, N, N, C]``.
    """
    if mode not in _MODES:
        raise ValueError(f"mode must be one of {_MODES}, got {mode!r}")
    planes = jnp.asarray(planes)
    if planes.ndim != 4 or planes.shape[1] != planes.shape[2]:
        raise ValueError(f"symmetrize takes a batch of planes [B, N, N, C], got shape {planes.shape}")
    batch = planes.shape[0]
    if mode == "random":
        if key is None:
            raise ValueError("symmetrize(mode='random') needs a PRNG key, got key=None")
        drawn = jax.random.randint(key, (batch,), 0, NUM_SYMMETRIES, dtype=jnp.int32)
        policy, value = apply_fn(jax.vmap(transform_board)(drawn, planes))
        return jax.vmap(inverse_transform_policy)(drawn, policy), value
    ks = range(NUM_SYMMETRIES)
    moved = jnp.concatenate([jax.vmap(functools.partial(transform_board, k))(planes) for k in ks])
    policy, value = apply_fn(moved)
    policy = policy.reshape((NUM_SYMMETRIES, batch, *policy.shape[1:]))
    back = [jax.vmap(functools.partial(inverse_transform_policy, k))(policy[k]) for k in ks]
    policy = jnp.mean(jnp.stack(back), axis=0)
    value = jax.tree.map(lambda v: jnp.mean(v.reshape((NUM_SYMMETRIES, batch, *v.shape[1:])), axis=0), value)
    return policy, value
