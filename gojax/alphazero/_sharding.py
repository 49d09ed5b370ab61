"""Data parallelism over all devices: one mesh axis, batches split, parameters replicated.

The training loop (:mod:`gojax.training`) runs the same jitted
functions on one device or many. With ``D`` devices:

* the **mesh** (:func:`make_mesh`) is a 1-D :class:`jax.sharding.Mesh` over the
  devices with the axis name :data:`DATA_AXIS` (``"data"``);
* **batched** arrays - the self-play games, the replay buffer's rings (one
  per game), the training batch, the network inputs and outputs - have their
  leading axis split over the devices (:func:`batch_sharding`,
  ``PartitionSpec("data")``): device ``d`` holds games
  ``[d * B / D, (d + 1) * B / D)``, so ``B`` must be a multiple of ``D``;
* **everything else** - network variables, optimizer state, counters, PRNG
  keys - is replicated on every device (:func:`replicated`).

XLA's SPMD partitioner then splits the computation: each device computes the
loss and gradient of its part of the training batch; gradients are summed
across devices by an all-reduce that XLA inserts for the mean over the batch,
and every device applies the same update to its copy of the parameters.
Self-play (:func:`gojax.alphazero.selfplay_sharded`) runs on each device
alone, on its own games, and writes them into the device's rings of the
replay buffer (split with the games); each device draws its part of a
training batch from its own rings. Besides the gradients, the devices
exchange only counts.

Because the arrays are the same global arrays whatever ``D`` is, each game
is played from its own key, and JAX's random numbers are partitionable
(``jax_threefry_partitionable``, the default), a run with a fixed seed
computes the same thing on 1 or ``D`` devices; only the order of
floating-point sums (the batch mean of the loss and gradients, split in
``D`` partial sums) differs, so results agree to rounding, not bit for bit.

**Several processes** (one per host, or several on one machine): call
:func:`initialize_distributed` first (it wraps
:func:`jax.distributed.initialize`); :func:`process_devices` lists the
devices of every process, in process order, and :func:`make_mesh` over them
is the one global mesh. Every process runs the same program on the same
global arrays; each holds and computes only the shards of its own devices.
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
    "process_devices",
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


def process_devices(per_process: int | None = None) -> list[jax.Device]:
    """The first ``per_process`` devices of every process (all its devices: ``None``), in process order.

    In one process these are the first ``per_process`` of :func:`jax.devices`.
    Each process's devices come together, so a batch split over a mesh of
    them gives each process one contiguous block.

    Raises:
      TypeError: if ``per_process`` is not an int.
      ValueError: if ``per_process`` is below 1 or above a process's device count.
    """
    by_process: dict[int, list[jax.Device]] = {}
    for device in jax.devices():
        by_process.setdefault(device.process_index, []).append(device)
    fewest = min(len(devices) for devices in by_process.values())
    if per_process is not None:
        per_process = checks.integer(per_process, "devices per process", least=1, most=fewest)
    return [
        device
        for process in sorted(by_process)
        for device in sorted(by_process[process], key=lambda d: d.id)[:per_process]
    ]


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
    coordinator_address: str | None = None,
    num_processes: int | None = None,
    process_id: int | None = None,
    *,
    heartbeat_timeout: int = 20,
    initialization_timeout: int = 300,
) -> None:
    """Several processes: :func:`jax.distributed.initialize` (call once, before any JAX work).

    With no arguments JAX reads them from the cluster environment (Slurm,
    Cloud TPU, Kubernetes, ...); otherwise give the coordinator's
    ``host:port`` (process 0 serves it there), the number of processes and
    this process's id. Every process then runs the same program;
    :func:`make_mesh` over :func:`process_devices` spans all their devices.
    CPU devices exchange their collectives through gloo (TCP).

    Args:
      coordinator_address, num_processes, process_id: as :func:`jax.distributed.initialize`.
      heartbeat_timeout: seconds without a heartbeat after which JAX's
        coordination service declares a process dead and stops the others.
      initialization_timeout: seconds to wait for every process to connect.
    """
    jax.config.update("jax_cpu_collectives_implementation", "gloo")
    jax.distributed.initialize(
        coordinator_address=coordinator_address,
        num_processes=num_processes,
        process_id=process_id,
        heartbeat_timeout_seconds=heartbeat_timeout,
        initialization_timeout=initialization_timeout,
    )
