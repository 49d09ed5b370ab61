"""The engine's calls into the native CPU kernels (:mod:`gojax._native`): the rules in C on the CPU.

:func:`on_cpu` picks, when the computation is lowered, the native kernel on
the CPU platform and the XLA function on every other (``lax.platform_dependent``),
so one jitted function serves both; with the kernels not built, or
``GOJAX_NATIVE=0``, or inside :func:`gojax._native.disabled`, the XLA function
runs everywhere. A kernel is an XLA FFI custom call (``jax.ffi.ffi_call``) of
a handler compiled in C (``gojax/_native/ffi.c``): XLA calls it directly,
without Python, once for the whole batch (``vmap`` adds leading axes to its
arguments, which the handler reads), and the handler splits large batches
over XLA's CPU thread pool. The targets are registered with XLA on the first
trace of a call.

:func:`play` and :func:`legal_action_mask` are :func:`gojax.step` and
:func:`gojax.legal_action_mask` in C (``gojax/_native/rules.c``): the same
state, field by field, for every well-formed state (the tests compare them
move by move with the XLA code); the features' kernels go through
:func:`call` too.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from gojax import _native
from gojax._core import loops
from gojax._core.types import STATE_DTYPES, GoConfig, GoState

__all__ = ["call", "legal_action_mask", "on_cpu", "play"]

_KO_RULES = {"simple": 0, "positional": 1, "situational": 2}  # rules.c's GOJAX_KO_*
_FIELDS = tuple(field.name for field in dataclasses.fields(GoState))


def on_cpu(native: Callable[[], Any], xla: Callable[[], Any]) -> Any:
    """``native()`` on the CPU platform when the kernels are available, else ``xla()``.

    Under ``jax.shard_map`` both results are cast to vary along its axes
    (:func:`gojax._core.loops.varying`): a custom call's result varies along
    none, and the two branches must have one type.
    """
    if not _native.available():
        return xla()
    return jax.lax.platform_dependent(
        cpu=lambda: loops.varying(native()), default=lambda: loops.varying(xla())
    )


def call(
    target: str,
    result: Any,
    args: tuple,
    vmap_method: str,
    *,
    aliases: dict[int, int] | None = None,
    **attributes: Any,
) -> Any:
    """The FFI custom call ``target`` of ``args`` (its handler registered first); ``aliases``
    maps arguments to the results written in their buffers, ``attributes`` are the handler's."""
    if not _native.register():
        raise RuntimeError("gojax's native kernels are not built (reinstall gojax with a C compiler)")
    function = jax.ffi.ffi_call(target, result, vmap_method=vmap_method, input_output_aliases=aliases)
    return function(*args, **attributes)


def _rules(config: GoConfig) -> dict[str, Any]:
    return {
        "size": np.int32(config.size),
        "ko_rule": np.int32(_KO_RULES[config.ko_rule]),
        "suicide": np.int32(config.suicide),
        "move_cap": np.int32(config.move_cap),
    }


def _fields(state: GoState) -> tuple[jax.Array, ...]:
    """The fields in order, each in its dtype (which the handlers check)."""
    return tuple(jnp.asarray(getattr(state, name), STATE_DTYPES[name]) for name in _FIELDS)


def play(config: GoConfig, state: GoState, action: jax.typing.ArrayLike, mask: jax.Array | None) -> GoState:
    """:func:`gojax.step` (``mask`` None) or :func:`gojax.step_with_mask` by the kernel; each
    field of the result is written in its argument's buffer."""
    fields = _fields(state)
    args = (*fields, jnp.asarray(action, jnp.int32))
    if mask is not None:
        args = (*args, jnp.asarray(mask, jnp.bool_))
    result = tuple(jax.ShapeDtypeStruct(x.shape, x.dtype) for x in fields)
    aliases = {k: k for k in range(len(fields))}
    out = call("gojax_ffi_step", result, args, "broadcast_all", aliases=aliases, **_rules(config))
    return GoState(**dict(zip(_FIELDS, out, strict=True)))


def legal_action_mask(config: GoConfig, state: GoState, superko: bool) -> jax.Array:
    """:func:`gojax.legal_action_mask` by the kernel: ``bool[A]``."""
    fields = _fields(state)
    result = jax.ShapeDtypeStruct((config.num_actions,), jnp.bool_)
    return call(
        "gojax_ffi_legal_mask", result, fields, "broadcast_all", superko=np.int32(superko), **_rules(config)
    )
