"""Training with several processes on JAX's multi-controller runtime (host side).

``gojax-train`` runs as ``N`` cooperating processes - one per host, or several
on one machine (:mod:`gojax.training.launch`) - after
:func:`gojax.alphazero.initialize_distributed`. Every process runs the same
program over one global mesh (:func:`gojax.alphazero.process_devices`); this
module holds what a run of several processes adds to one of a single process:

* :func:`gather_json` - every process's small JSON-ready value;
* :func:`same_settings_everywhere` - refuses, at the start, processes started
  with different settings, naming every difference;
* :func:`checksum` and :func:`same_network_everywhere` - each device's
  checksum of its copy of the network after every training step, compared
  across processes (they are bit for bit the same: every device applies the
  same all-reduced gradient);
* :func:`collective_bytes` - the bytes the devices exchange per call of a
  compiled program, read from its collectives;
* :func:`watch_processes`, :func:`stopped_processes` and
  :func:`report_failure` - when a process dies, the others stop within a
  second (the processes of one machine watch each other's process ids) or,
  across machines, at their next collective or after JAX's heartbeat
  timeout, naming the processes that stopped.
"""

from __future__ import annotations

import atexit
import json
import os
import re
import socket
import sys
import threading
import time
from collections.abc import Mapping
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

__all__ = [
    "checksum",
    "collective_bytes",
    "from_process_zero",
    "gather_json",
    "report_failure",
    "same_network_everywhere",
    "same_settings_everywhere",
    "stopped_processes",
    "watch_processes",
]

_DTYPE_BYTES = {"pred": 1, "s8": 1, "u8": 1, "s16": 2, "u16": 2, "f16": 2, "bf16": 2, "s32": 4, "u32": 4}
_DTYPE_BYTES.update({"f32": 4, "s64": 8, "u64": 8, "f64": 8, "c64": 8, "c128": 16})
_COLLECTIVE = re.compile(
    r"=\s*(?P<shape>.+?)\s+(?P<op>all-reduce|all-gather|reduce-scatter|all-to-all|collective-permute)"
    r"(?:-start)?\("
)
_ARRAY = re.compile(r"\b(?P<dtype>[a-z]+[0-9]*)\[(?P<dims>[0-9,]*)\]")


def collective_bytes(hlo_text: str) -> int:
    """The bytes of the results of the collectives in a compiled program (``compiled.as_text()``).

    Each all-reduce, all-gather, reduce-scatter, all-to-all and
    collective-permute counts once, with the size of its result: what every
    device receives per call (a collective inside a loop counts once, not
    once per trip). Between processes, a ring all-reduce of ``S`` bytes over
    ``P`` of them sends and receives about ``2 S (P - 1) / P`` bytes per process.
    """
    total = 0
    for line in hlo_text.splitlines():
        match = _COLLECTIVE.search(line)
        if match is None:
            continue
        for array in _ARRAY.finditer(match.group("shape")):
            dims = [int(d) for d in array.group("dims").split(",") if d]
            total += _DTYPE_BYTES.get(array.group("dtype"), 4) * int(np.prod(dims, dtype=np.int64))
    return total


def checksum(tree: Any) -> jax.Array:
    """``uint32[]``: a checksum of the bits of every array of ``tree`` (jit-able; 32-bit arrays or narrower).

    Any change of one bit of one entry changes it (an entry's bits are
    multiplied by an odd number depending on its place, and summed modulo
    ``2**32``).
    """
    total = jnp.uint32(0)
    for index, leaf in enumerate(jax.tree.leaves(tree)):
        leaf = jnp.asarray(leaf).reshape(-1)
        if jnp.issubdtype(leaf.dtype, jnp.floating):
            bits = jax.lax.bitcast_convert_type(leaf.astype(jnp.float32), jnp.uint32)
        else:
            bits = leaf.astype(jnp.uint32)
        place = jnp.arange(bits.size, dtype=jnp.uint32) * jnp.uint32(2654435761) + jnp.uint32(2 * index + 1)
        total = total * jnp.uint32(1000003) + jnp.sum(bits * (place | jnp.uint32(1)), dtype=jnp.uint32)
    return total


def from_process_zero(value: np.ndarray) -> np.ndarray:
    """Process 0's ``value`` (a NumPy array of the same shape and dtype everywhere), in every
    process: one broadcast (each process must call it); in one process, ``value`` itself."""
    if jax.process_count() == 1:
        return value
    from jax.experimental import multihost_utils

    return np.asarray(multihost_utils.broadcast_one_to_all(value), value.dtype)


def gather_json(value: Any) -> list[Any]:
    """Every process's JSON-ready ``value``, in process order (every process must call it).

    Two all-gathers over the processes (of the lengths, then of the padded
    UTF-8 text); in one process, ``[value]``.
    """
    if jax.process_count() == 1:
        return [json.loads(json.dumps(value))]
    return [json.loads(raw) for raw in _gather_bytes(json.dumps(value).encode())]


def _gather_bytes(data: bytes) -> list[bytes]:
    """Every process's ``data``, in process order (two all-gathers: the lengths, the padded bytes)."""
    from jax.experimental import multihost_utils

    lengths = np.asarray(multihost_utils.process_allgather(np.array([len(data)], np.int32))).reshape(-1)
    padded = np.zeros(int(lengths.max()), np.uint8)
    padded[: len(data)] = np.frombuffer(data, np.uint8)
    everyone = np.asarray(multihost_utils.process_allgather(padded))
    return [bytes(row[:length]) for row, length in zip(everyone, lengths, strict=True)]


def same_settings_everywhere(settings: Mapping[str, Any]) -> None:
    """Raises ``ValueError`` naming each setting that differs between processes (each must call it).

    Args:
      settings: this process's settings, JSON-ready (the run's config, the
        JAX and gojax versions, its device count, ...).

    Raises:
      ValueError: on every process, naming each differing setting with each
        process's value (process 0's first).
    """
    if jax.process_count() == 1:
        return
    everyone = gather_json(dict(settings))
    first, lines = everyone[0], []
    for process, theirs in enumerate(everyone[1:], start=1):
        for name in sorted(set(first) | set(theirs)):
            if first.get(name) != theirs.get(name):
                lines.append(
                    f"{name}: process 0 has {first.get(name)!r}, process {process} has {theirs.get(name)!r}"
                )
    if lines:
        raise ValueError("the processes were started with different settings: " + "; ".join(lines))


def same_network_everywhere(checksums: np.ndarray, first_step: int) -> None:
    """Raises ``RuntimeError`` unless every device of every process has the same network after each step.

    Every process must call it (an all-gather), with the same number of steps.

    Args:
      checksums: ``uint32[steps, local devices]``: :func:`checksum` of the
        network after each training step, on each of this process's devices.
      first_step: the number of the first of these steps, minus one.
    """
    from jax.experimental import multihost_utils

    if checksums.size == 0:
        return
    everyone = np.asarray(multihost_utils.process_allgather(np.ascontiguousarray(checksums)))
    for step in range(checksums.shape[0]):
        values = everyone[:, step, :]
        if np.any(values != values[0, 0]):
            per_process = {p: sorted({int(v) for v in row}) for p, row in enumerate(values)}
            raise RuntimeError(
                f"the copies of the network differ after training step {first_step + step + 1}: "
                f"checksums per process {per_process}"
            )


def _machine() -> str:
    """Processes with the same value see each other's process ids (one kernel, one pid namespace)."""
    try:
        with open("/proc/sys/kernel/random/boot_id", encoding="ascii") as handle:
            boot = handle.read().strip()
        return f"{boot}:{os.stat('/proc/self/ns/pid').st_ino}"
    except OSError:
        return socket.gethostname()


def _gone(pid: int) -> bool:
    """Whether process ``pid`` of this machine has ended (a zombie that no one has reaped yet counts)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        pass
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


_NEIGHBOURS: dict[int, int] = {}
"""The other processes of the run on this machine: process index -> operating-system pid."""
_DONE = threading.Event()
"""Set when this process exits: the watcher stops."""


def watch_processes(interval: float = 0.5) -> dict[int, int]:
    """Watches the run's other processes on this machine: when one ends, this one stops, naming it.

    Every process must call it (an all-gather of where each process runs).
    A daemon thread looks at the others of this machine every ``interval``
    seconds; when one has ended it prints ``gojax-train: process I: process
    J of N (pid P) stopped; stopping`` and ends this process (status 1),
    whatever it is doing, until this process itself exits. Processes on
    other machines are JAX's to watch (its coordination service's
    heartbeats; :func:`report_failure`).

    Returns:
      ``{process index: pid}`` of the other processes of this machine.
    """
    me = jax.process_index()
    where = gather_json([_machine(), os.getpid()])
    here = where[me][0]
    _NEIGHBOURS.clear()
    _NEIGHBOURS.update({p: pid for p, (machine, pid) in enumerate(where) if machine == here and p != me})
    if _NEIGHBOURS:
        # Stopped when this process exits (before JAX's shutdown, which waits for every process):
        # processes that end together are not taken for processes that died.
        _DONE.clear()
        atexit.register(_DONE.set)
        threading.Thread(target=_watch, args=(dict(_NEIGHBOURS), interval), daemon=True).start()
    return dict(_NEIGHBOURS)


def _name(process: int, count: int) -> str:
    pid = _NEIGHBOURS.get(process)
    return f"{process} of {count}" + (f" (pid {pid})" if pid is not None else "")


def _watch(neighbours: dict[int, int], interval: float) -> None:
    while not _DONE.is_set():
        gone = [p for p, pid in neighbours.items() if _gone(pid)]
        if gone and not _DONE.is_set():
            me, count = jax.process_index(), jax.process_count()
            names = ", ".join(_name(p, count) for p in gone)
            print(
                f"gojax-train: process {me}: process {names} stopped; stopping", file=sys.stderr, flush=True
            )
            sys.stdout.flush()
            os._exit(1)
        time.sleep(interval)


def stopped_processes(timeout: float = 30.0) -> list[int] | None:
    """The processes that have stopped: those of this machine that ended (:func:`watch_processes`),
    else those that JAX's coordination service no longer sees alive.

    The coordination service answers once every live process has asked too
    (a barrier of the live ones) or the dead ones have missed their
    heartbeats; at most ``timeout`` seconds. ``None`` when it cannot tell
    (no answer in time, or the coordinator itself is gone).
    """
    local = sorted(p for p, pid in _NEIGHBOURS.items() if _gone(pid))
    if local:
        return local
    from jax.experimental import multihost_utils

    answer: list[Any] = []

    def ask() -> None:
        try:
            with multihost_utils.live_devices(jax.devices()) as alive:
                answer.append({d.process_index for d in alive})
        except Exception as error:  # the coordinator is gone, or a process failed meanwhile
            answer.append(error)

    thread = threading.Thread(target=ask, daemon=True)
    thread.start()
    thread.join(timeout)
    if not answer or not isinstance(answer[0], set):
        return None
    return sorted(set(range(jax.process_count())) - answer[0])


def report_failure(error: BaseException) -> str:
    """The line ``gojax-train`` prints when a run of several processes fails: which processes stopped.

    Prints a first line at once (in case JAX's coordination service ends
    this process before the second: its own message then names the task
    that stopped), then asks :func:`stopped_processes`.
    """
    me, count = jax.process_index(), jax.process_count()
    cause = str(error).strip().splitlines()[0][:300] if str(error).strip() else type(error).__name__
    print(f"gojax-train: process {me} of {count}: the run failed: {cause}", file=sys.stderr, flush=True)
    stopped = stopped_processes()
    if stopped is None:
        line = (
            f"gojax-train: process {me}: the coordinator (process 0) or another process stopped "
            "(no answer from JAX's coordination service); stopping"
        )
    elif stopped:
        names = ", ".join(_name(p, count) for p in stopped)
        line = f"gojax-train: process {me}: process {names} stopped; stopping"
    else:
        line = f"gojax-train: process {me}: every process is alive; stopping on the error above"
    print(line, file=sys.stderr, flush=True)
    return line
