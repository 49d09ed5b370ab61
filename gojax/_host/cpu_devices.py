"""Splitting a CPU into several JAX devices, for the command-line tools (host side).

XLA runs one computation on one CPU core; a process that asks for
``--xla_force_host_platform_device_count=D`` in ``XLA_FLAGS`` gets ``D`` CPU
devices instead of one, and work placed on different devices runs side by
side. The flag is read when JAX starts its backends, so a tool sets it first
thing, before any JAX work (gojax does none at import).
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from gojax._core import checks

__all__ = ["FLAG", "common_divisor", "default_host_devices", "split_host_cpu"]

FLAG = "--xla_force_host_platform_device_count"


def common_divisor(sizes: Sequence[int], most: int) -> int:
    """The largest count from 1 to ``most`` that divides every one of ``sizes``."""
    return max(d for d in range(1, max(most, 1) + 1) if all(size % d == 0 for size in sizes))


def default_host_devices(sizes: Sequence[int], most: int = 8) -> int | None:
    """The CPU devices a tool asks for by default: one per core, as many as divide ``sizes``.

    ``None`` when ``XLA_FLAGS`` already names a count (the environment
    decides). At most ``most`` devices, and at most the cores.
    """
    if FLAG + "=" in os.environ.get("XLA_FLAGS", ""):
        return None
    return common_divisor(sizes, min(os.cpu_count() or 1, most))


def split_host_cpu(count: int) -> None:
    """Asks for ``count`` CPU devices in ``XLA_FLAGS`` (a count already there is replaced).

    Takes effect only in a process whose JAX backends have not started yet.

    Raises:
      TypeError, ValueError: ``count`` is not an int of at least 1.
    """
    count = checks.integer(count, "host devices", least=1)
    kept = [flag for flag in os.environ.get("XLA_FLAGS", "").split() if not flag.startswith(FLAG + "=")]
    os.environ["XLA_FLAGS"] = " ".join([*kept, f"{FLAG}={count}"])
