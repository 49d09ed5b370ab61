"""``gojax-train --local-processes N``: ``N`` cooperating training processes on this machine.

The launcher does no JAX work itself. It picks a free TCP port on
``127.0.0.1`` for JAX's coordination service and starts ``N`` copies of
``gojax-train`` with the same flags plus ``--coordinator 127.0.0.1:PORT
--num-processes N --process-id I`` and ``--host-devices D`` (each process
gets ``D`` CPU devices: ``--host-devices`` if given, else an equal share of
the cores, as many as divide the batches). The processes share every core
(the scheduler places them): each one runs threads besides its XLA
computation (gloo's, the coordination service's, Python's), and pinned to
a share of the cores they compete with its computation there
(``pin=True`` pins each process to its share; ``experiments/
distributed_benchmark.py`` measures both). The processes exchange their
collectives through gloo over the loopback interface. Process 0's output
passes through unchanged (its progress bar included); the other processes'
lines are prefixed ``[process I]``.

When a process exits with a non-zero status, the launcher names it, waits
up to ``grace`` seconds for the others to stop on their own (JAX's runtime
stops them: a failed collective, or the coordination service's heartbeat),
then ends those still running; its own status is then non-zero.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from typing import IO

__all__ = ["child_arguments", "free_port", "run_local_processes", "share_of_cores"]

_CHILD = "import sys; from gojax.scripts import train; sys.exit(train(sys.argv[1:]))"


def free_port() -> int:
    """A TCP port of ``127.0.0.1`` that is free now (the coordinator binds it a moment later)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _drop(argv: Sequence[str], flag: str) -> list[str]:
    """``argv`` without ``flag`` and its value (``--flag V`` or ``--flag=V``)."""
    kept, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg == flag:
            skip = True
        elif not arg.startswith(flag + "="):
            kept.append(arg)
    return kept


def child_arguments(argv: Sequence[str], count: int, index: int, port: int, host_devices: int) -> list[str]:
    """The flags of process ``index``: ``argv`` without ``--local-processes``, plus where it belongs."""
    kept = _drop(_drop(argv, "--local-processes"), "--host-devices")
    return [
        *kept,
        "--coordinator",
        f"127.0.0.1:{port}",
        "--num-processes",
        str(count),
        "--process-id",
        str(index),
        "--host-devices",
        str(host_devices),
    ]


def share_of_cores(count: int, sizes: Sequence[int], cores: int | None = None) -> int:
    """CPU devices per process: an equal share of the cores (at least 1), as many as let
    ``count`` times it divide every one of ``sizes`` (the global batches)."""
    cores = cores or os.cpu_count() or 1
    share = max(1, cores // count)
    while share > 1 and any(size % (share * count) for size in sizes):
        share -= 1
    return share


def _describe(status: int) -> str:
    if status < 0:
        try:
            return f"was killed by {signal.Signals(-status).name}"
        except ValueError:
            return f"was killed by signal {-status}"
    return f"exited with status {status}"


def _relay(stream: IO[bytes], prefix: str) -> None:
    """Copies a child's output to our stderr, each line prefixed."""
    for line in iter(stream.readline, b""):
        sys.stderr.write(prefix + line.decode(errors="replace"))
        sys.stderr.flush()


def _start(
    argv: Sequence[str], count: int, host_devices: int, pin: bool, command: Sequence[str]
) -> tuple[list[subprocess.Popen], list[threading.Thread]]:
    port, cores = free_port(), sorted(os.sched_getaffinity(0))
    per = len(cores) // count
    processes, relays = [], []
    for index in range(count):
        mine = set(cores[index * per : (index + 1) * per]) if pin and per else None
        pipe = None if index == 0 else subprocess.PIPE
        child = subprocess.Popen(
            [*command, *child_arguments(argv, count, index, port, host_devices)],
            stdout=pipe,
            stderr=subprocess.STDOUT if pipe else None,
            preexec_fn=(lambda cpus=mine: os.sched_setaffinity(0, cpus)) if mine else None,
        )
        processes.append(child)
        if child.stdout is not None:
            relay = threading.Thread(target=_relay, args=(child.stdout, f"[process {index}] "), daemon=True)
            relay.start()
            relays.append(relay)
    return processes, relays


def run_local_processes(
    argv: Sequence[str],
    count: int,
    host_devices: int,
    *,
    pin: bool = False,
    grace: float = 60.0,
    command: Sequence[str] | None = None,
    name: str = "gojax-train",
) -> int:
    """Runs ``gojax-train`` as ``count`` processes of this machine (module docstring); returns its status.

    Args:
      argv: ``gojax-train``'s flags (``--local-processes`` is dropped from them).
      count: ``N``, the processes.
      host_devices: CPU devices per process.
      pin: give each process its own share of the cores (when there are at least ``N``);
        ``False``: every process may run on every core.
      grace: seconds the other processes get to stop after one failed.
      command: the program each process runs, given the flags (default
        ``gojax-train``); any program that reads ``--coordinator``,
        ``--num-processes``, ``--process-id`` and ``--host-devices``.
      name: the program's name in the launcher's messages.

    Returns:
      0 when every process exits with 0; else 1 (or the first failure's
      status), after a line naming each process that failed.
    """
    command = [sys.executable, "-c", _CHILD] if command is None else list(command)
    processes, relays = _start(argv, count, host_devices, pin, command)
    failed: dict[int, int] = {}
    deadline = None
    try:
        while any(p.poll() is None for p in processes):
            for index, child in enumerate(processes):
                status = child.poll()
                if status not in (None, 0) and index not in failed:
                    failed[index] = status
                    print(
                        f"{name}: process {index} of {count} (pid {child.pid}) {_describe(status)}; "
                        f"the others stop (at most {grace:.0f} s)",
                        file=sys.stderr,
                        flush=True,
                    )
                    deadline = deadline or time.monotonic() + grace
            if deadline is not None and time.monotonic() > deadline:
                _end(processes, count, name)
                break
            time.sleep(0.1)
    except KeyboardInterrupt:
        _end(processes, count, name, grace=10.0)
    for relay in relays:
        relay.join(timeout=5)
    for index, child in enumerate(processes):
        if child.wait() != 0 and index not in failed:
            failed[index] = child.returncode
    if not failed:
        return 0
    first = min(failed)
    return failed[first] if failed[first] > 0 else 1


def _end(processes: list[subprocess.Popen], count: int, name: str, grace: float = 5.0) -> None:
    """Terminates the processes still running, then kills those still there after ``grace`` seconds."""
    running = [(i, p) for i, p in enumerate(processes) if p.poll() is None]
    for index, child in running:
        print(
            f"{name}: process {index} of {count} (pid {child.pid}) is still running: ending it",
            file=sys.stderr,
            flush=True,
        )
        child.terminate()
    end = time.monotonic() + grace
    for _, child in running:
        try:
            child.wait(timeout=max(0.0, end - time.monotonic()))
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
