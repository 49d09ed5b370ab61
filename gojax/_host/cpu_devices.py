"""Splitting a CPU into several JAX devices, for the command-line tools (host side).

XLA runs one computation on one CPU core; a process that asks for
``--xla_force_host_platform_device_count=D`` in ``XLA_FLAGS`` gets ``D`` CPU
devices instead of one, and work placed on different devices runs side by
side. The flag is read when JAX starts its backends, so a tool sets it first
thing, before any JAX work (gojax does none at import).
"""

from __future__ import annotations

import os

from gojax._core import checks

__all__ = ["FLAG", "split_host_cpu"]

FLAG = "--xla_force_host_platform_device_count"


def split_host_cpu(count: int) -> None:
    """Asks for ``count`` CPU devices in ``XLA_FLAGS`` (a count already there is replaced).

    Takes effect only in a process whose JAX backends have not started yet.

    Raises:
      TypeError, ValueError: ``count`` is not an int of at least 1.
    """
    count = checks.integer(count, "host devices", least=1)
    kept = [flag for flag in os.environ.get("XLA_FLAGS", "").split() if not flag.startswith(FLAG + "=")]
    os.environ["XLA_FLAGS"] = " ".join([*kept, f"{FLAG}={count}"])
