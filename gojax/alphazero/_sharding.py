"""Data parallelism over all devices: one mesh axis, batches split, parameters replicated.

The training loop (:mod:`gojax.training`) runs the same jitted
functions on one device or many. With ``D`` devices:

* the **mesh** (:func:`make_mesh`) is a 1-D :class:`jax.sharding.Mesh` over the
  devices with the axis name :data:`DATA_AXIS` (``"data"``);
* **batched** arrays - the self-play games, the training batch, the network
  inputs and outputs - have their leading axis split over the devices
  (:func:`batch_sharding`, ``PartitionSpec("data")``): device ``d`` holds games
  ``[d * B / D, (d + 1) * B / D)``, so ``B`` must be a multiple of ``D``;
* **everything else** - network variables, optimizer state, the replay buffer,
  counters, PRNG keys - is replicated on every device (:func:`replicated`).

XLA's SPMD partitioner then splits the computation: each device searches and
steps its own games, and computes the loss and gradient of its part of the
training batch; gradients are summed across devices by an all-reduce that XLA
inserts for the mean over the batch, and every device applies the same
update to its copy of the parameters. New examples are all-gathered into
every device's copy of the replay buffer (the only other communication), so
sampling a training batch needs none.

Because the arrays are the same global arrays whatever ``D`` is, and JAX's
random numbers are partitionable (``jax_threefry_partitionable``, the default),
a run with a fixed seed computes the same thing on 1 or ``D`` devices; only the
order of floating-point sums (the batch mean of the loss and gradients, split
in ``D`` partial sums) differs, so results agree to rounding, not bit for bit.

Several hosts: call :func:`initialize_distributed` first (it wraps
:func:`jax.distributed.initialize`); :func:`make_mesh` then spans
``jax.devices()``, the devices of all processes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from gojax._core import checks

__all__ = [
    "DATA_AXIS",
    "batch_sharding",
    "constrain_batch",
    "initialize_distributed",
    "make_mesh",
    "replicate",
    "replicated",
    "shard_batch",
]

DATA_AXIS = "data"
"""Name of the mesh axis that splits batches."""


def make_mesh(num_devices: int | None = None, devices: Sequence[jax.Device] | None = None) -> Mesh:
    """A 1-D mesh (axis :data:`DATA_AXIS`) over the first ``num_devices`` devices.

    Args:
      num_devices: how many devices (``None``: all of ``devices``).
      devices: the devices to use (``None``: :func:`jax.devices`, every device
        of every process).

    Raises:
      TypeError: if ``num_devices`` is not an int.
      ValueError: if ``num_devices`` is not in ``[1, len(devices)]``.
    """
    devices = list(jax.devices() if devices is None else devices)
    if num_devices is None:
        num_devices = len(devices)
    num_devices = checks.integer(num_devices, "num_devices", least=1, most=len(devices))
    return Mesh(np.array(devices[:num_devices]), (DATA_AXIS,))


def batch_sharding(mesh: Mesh) -> NamedSharding:
    """Leading axis split over the mesh, the rest whole."""
    return NamedSharding(mesh, PartitionSpec(DATA_AXIS))


def replicated(mesh: Mesh) -> NamedSharding:
    """A full copy on every device of the mesh."""
    return NamedSharding(mesh, PartitionSpec())


def _check_divisible(tree: Any, mesh: Mesh) -> None:
    devices = mesh.devices.size
    for leaf in jax.tree.leaves(tree):
        if np.ndim(leaf) == 0 or np.shape(leaf)[0] % devices:
            shape = np.shape(leaf)
            raise ValueError(
                f"a batched array needs a leading axis divisible by {devices} devices, got {shape}"
            )


def shard_batch(tree: Any, mesh: Mesh) -> Any:
    """Places every array of ``tree`` with its leading (batch) axis split over ``mesh``.

    Raises:
      ValueError: if a leading axis is not a multiple of the device count.
    """
    _check_divisible(tree, mesh)
    return jax.device_put(tree, batch_sharding(mesh))


def replicate(tree: Any, mesh: Mesh) -> Any:
    """Places a full copy of every array of ``tree`` on each device of ``mesh``."""
    return jax.device_put(tree, replicated(mesh))


def constrain_batch(tree: Any, mesh: Mesh) -> Any:
    """Inside ``jit``: asks XLA to keep the leading axis of every array split over ``mesh``.

    A no-op on a one-device mesh.
    """
    if mesh.devices.size == 1:
        return tree
    return jax.lax.with_sharding_constraint(tree, batch_sharding(mesh))


def initialize_distributed(
    coordinator_address: str | None = None, num_processes: int | None = None, process_id: int | None = None
) -> None:
    """Multi-host setup: :func:`jax.distributed.initialize` (call once, before any JAX work).

    With no arguments JAX reads them from the cluster environment (SLURM,
    Cloud TPU, Kubernetes, ...); otherwise give the coordinator's
    ``host:port``, the number of processes and this process's id. Every
    process then runs the same training script; :func:`make_mesh` spans all
    their devices.
    """
    jax.distributed.initialize(
        coordinator_address=coordinator_address, num_processes=num_processes, process_id=process_id
    )
