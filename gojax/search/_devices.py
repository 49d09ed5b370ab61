"""One leaf batch over several devices: each device expands and plays out its share of the ``K`` leaves.

A batch step of :class:`gojax.search.TreeSearch` is one call of
:func:`gojax.search._leaves.evaluate_leaves` on ``K`` leaves. On a CPU, XLA
runs that call on one core; JAX can split a CPU into several devices
(``XLA_FLAGS=--xla_force_host_platform_device_count=D``, what ``gojax-gtp
--host-devices`` sets), and :func:`evaluate_on_devices` then gives each of
``D`` devices ``K / D`` leaves under :func:`jax.shard_map`. The devices run
side by side (one core each) with no communication: each has its own
playout loop, which ends with its own slowest playout.

Each device folds its index into the batch's key, so its playouts differ
from the other devices'; the results are those of ``D`` independent calls of
``evaluate_leaves`` on consecutive slices of the leaves. With ``D = 1``
:class:`~gojax.search.TreeSearch` calls ``evaluate_leaves`` itself.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from gojax._core import checks
from gojax._core.types import GoConfig, GoState
from gojax._host.cpu_devices import common_divisor
from gojax.search._leaves import LeafResults, evaluate_leaves

__all__ = ["AXIS", "device_count", "evaluate_on_devices", "place"]

AXIS = "leaves"


def device_count(leaves: int, devices: int | None, available: int) -> int:
    """``D``: the devices a batch of ``leaves`` is split over.

    The largest divisor of ``leaves`` that is at most ``devices`` (``None``:
    every one of the ``available`` devices) and at most ``available``, so
    every device gets the same number of leaves.

    Raises:
      TypeError, ValueError: ``devices`` is not ``None`` or an int of at least 1.
    """
    if devices is not None:
        devices = checks.integer(devices, "TreeSearch devices", least=1)
    return common_divisor([leaves], min(available, leaves if devices is None else devices))


@functools.cache
def _mesh(num_devices: int) -> Mesh:
    """The 1-D mesh over the first ``num_devices`` local devices (made once per count)."""
    return Mesh(np.array(jax.local_devices()[:num_devices]), (AXIS,))


@functools.cache
def _shardings(num_devices: int) -> tuple[NamedSharding, NamedSharding]:
    """``(split over the leaves, copied to every device)`` on :func:`_mesh`."""
    mesh = _mesh(num_devices)
    return NamedSharding(mesh, PartitionSpec(AXIS)), NamedSharding(mesh, PartitionSpec())


def place(num_devices: int, parents: GoState, actions, key, index, komi=0.0):
    """The arguments of :func:`evaluate_on_devices` put on its devices (leaves split, the rest copied).

    A compiled call (an executable loaded from disk, say) takes its
    arguments where it was compiled for them; ``jax.jit`` would move them.
    """
    split, whole = _shardings(num_devices)
    parents, actions = jax.device_put((parents, actions), split)
    key, index, komi = jax.device_put((key, np.int32(index), np.float32(komi)), whole)
    return parents, actions, key, index, komi


def evaluate_on_devices(
    config: GoConfig,
    policy_name: str,
    playout_moves: int,
    playouts_per_leaf: int,
    num_devices: int,
    parents: GoState,
    actions: jax.Array,
    key: jax.Array,
    index: jax.typing.ArrayLike = 0,
    komi: jax.typing.ArrayLike | None = None,
    *,
    opening: bool = False,
) -> LeafResults:
    """``evaluate_leaves`` with the ``K`` leaves split over the first ``D`` local devices.

    Args:
      config, policy_name, playout_moves, playouts_per_leaf: as for
        ``evaluate_leaves``.
      num_devices: ``D``, which divides ``K``; the first ``D`` of
        :func:`jax.local_devices`.
      parents: :class:`GoState` ``[K]``.
      actions: ``int32[K]``.
      key: PRNG key, the same for every device (each folds in its index).
      index: ``int[]``, the batch number.
      komi: ``float32[]`` komi as data (``None``: the config's).
      opening: the prior's opening rules, as for ``evaluate_leaves``.

    Returns:
      :class:`~gojax.search._leaves.LeafResults` of the ``K`` leaves, in
      order, sharded over the devices.
    """
    mesh = _mesh(num_devices)
    split, whole = PartitionSpec(AXIS), PartitionSpec()

    komi = config.komi if komi is None else komi

    def share(parents, actions, key, index, komi):
        key = jax.random.fold_in(key, jax.lax.axis_index(AXIS))
        sizes = (playout_moves, playouts_per_leaf)
        return evaluate_leaves(
            config, policy_name, *sizes, parents, actions, key, index, komi, opening=opening
        )

    # No collectives: each device's loops carry its own values.
    run = jax.shard_map(share, mesh=mesh, in_specs=(split, split, whole, whole, whole), out_specs=split)
    return run(parents, actions, key, jnp.asarray(index, jnp.int32), jnp.asarray(komi, jnp.float32))
