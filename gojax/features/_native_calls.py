"""The features' calls into the native CPU kernels (:mod:`gojax._native`), with the XLA code beside them.

:func:`on_cpu` picks, when the computation is lowered, the native kernel on
the CPU platform and the XLA function on every other (``lax.platform_dependent``),
so one jitted function serves both; with the kernels not built, or
``GOJAX_NATIVE=0``, the XLA function runs everywhere. A kernel is an XLA FFI
custom call (``jax.ffi.ffi_call``) of a handler compiled in C
(``gojax/_native/ffi.c``): XLA calls it directly, without Python, once for
the whole batch (``vmap`` adds leading axes to its arguments, which the
handler reads), and the handler splits large batches over XLA's CPU thread
pool. The targets are registered with XLA on the first trace of a call.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from gojax import _native
from gojax._core import loops
from gojax._core.types import GoConfig, GoState

__all__ = ["alphago_planes", "benson_tables", "katago_tables", "ladder_reads", "on_cpu"]


def on_cpu(native: Callable[[], Any], xla: Callable[[], Any]):
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


def _call(target: str, result: jax.ShapeDtypeStruct, args: tuple, vmap_method: str, **attributes):
    """The FFI custom call ``target`` of ``args`` (its handler registered first)."""
    if not _native.register():
        raise RuntimeError("gojax's native kernels are not built (reinstall gojax with a C compiler)")
    return jax.ffi.ffi_call(target, result, vmap_method=vmap_method)(*args, **attributes)


def _mover(state: GoState) -> tuple[jax.Array, jax.Array, jax.Array]:
    return state.stones, state.turn.astype(jnp.int32), state.ko_point.astype(jnp.int32)


def alphago_planes(config: GoConfig, state: GoState, standing: jax.Array, legal: jax.Array, channels: int):
    """``bool[N, N, channels]``: AlphaGo's planes of one game by the kernel (see
    :func:`gojax._native.alphago_planes`); ``standing`` ``uint32[8, W]``, ``legal`` ``bool[N, N]``."""
    size = config.size
    args = (*_mover(state), standing, jnp.asarray(legal, jnp.bool_).reshape(size, size))
    result = jax.ShapeDtypeStruct((size, size, channels), jnp.bool_)
    return _call("gojax_ffi_alphago_planes", result, args, "broadcast_all")


def katago_tables(config: GoConfig, state: GoState, ladder_moves=True) -> jax.Array:
    """``int16[4, P]``: the rows of :data:`gojax._native.KATAGO_TABLES` for one game; with
    ``ladder_moves`` False (a ``bool`` scalar, traced or not) its ladder-moves row is 0."""
    result = jax.ShapeDtypeStruct((len(_native.KATAGO_TABLES), config.num_points), jnp.int16)
    args = (*_mover(state), jnp.asarray(ladder_moves, jnp.int32))
    return _call("gojax_ffi_katago_tables", result, args, "broadcast_all")


def benson_tables(config: GoConfig, state: GoState) -> jax.Array:
    """``int16[2, 4, P]``: Benson's marks (:data:`gojax._native.BENSON_MARKS`) of black and
    white for one game."""
    result = jax.ShapeDtypeStruct((2, len(_native.BENSON_MARKS), config.num_points), jnp.int16)
    suicide = np.int32(config.suicide)
    return _call("gojax_ffi_benson_tables", result, (state.stones,), "broadcast_all", suicide=suicide)


def ladder_reads(size: int, stones, turn, ko_point, mode, mover_attacks, move, prey, active) -> jax.Array:
    """``bool[T]``: the reads of :func:`gojax.features.ladders._pool.pooled_reads` (its
    arguments, every per-read one ``int32[T]``), made by the native kernel.

    Under ``vmap`` the task arrays the same for every game stay unbatched
    (``expand_dims``: the handler broadcasts them); the kernel makes the active reads only.
    """
    args = (
        stones,
        jnp.asarray(turn, jnp.int32),
        jnp.asarray(ko_point, jnp.int32),
        *(jnp.asarray(x, jnp.int32) for x in (mode, mover_attacks, move, prey)),
        jnp.asarray(active, jnp.bool_),
    )
    result = jax.ShapeDtypeStruct(active.shape, jnp.bool_)
    return _call("gojax_ffi_ladder_reads", result, args, "expand_dims", size=np.int32(size))
