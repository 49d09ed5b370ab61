"""The features' calls into the native CPU kernels (:mod:`gojax._native`), with the XLA code beside them.

Each function here is one kernel's FFI custom call for one game (``vmap``
adds the batch); :func:`on_cpu` (from :mod:`gojax._core.native`, where the
rules' kernels are called too) picks the kernel on the CPU platform and the
XLA code on every other.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from gojax import _native
from gojax._core.native import call, on_cpu
from gojax._core.types import GoConfig, GoState

__all__ = ["alphago_planes", "benson_tables", "history_planes", "katago_tables", "ladder_reads", "on_cpu"]


def _mover(state: GoState) -> tuple[jax.Array, jax.Array, jax.Array]:
    return state.stones, state.turn.astype(jnp.int32), state.ko_point.astype(jnp.int32)


def alphago_planes(config: GoConfig, state: GoState, standing: jax.Array, legal: jax.Array, channels: int):
    """``bool[N, N, channels]``: AlphaGo's planes of one game by the kernel (see
    :func:`gojax._native.alphago_planes`); ``standing`` ``uint32[8, W]``, ``legal`` ``bool[N, N]``."""
    size = config.size
    args = (*_mover(state), standing, jnp.asarray(legal, jnp.bool_).reshape(size, size))
    result = jax.ShapeDtypeStruct((size, size, channels), jnp.bool_)
    return call("gojax_ffi_alphago_planes", result, args, "broadcast_all")


def katago_tables(config: GoConfig, state: GoState, ladder_moves=True) -> jax.Array:
    """``int16[4, P]``: the rows of :data:`gojax._native.KATAGO_TABLES` for one game; with
    ``ladder_moves`` False (a ``bool`` scalar, traced or not) its ladder-moves row is 0."""
    result = jax.ShapeDtypeStruct((len(_native.KATAGO_TABLES), config.num_points), jnp.int16)
    args = (*_mover(state), jnp.asarray(ladder_moves, jnp.int32))
    return call("gojax_ffi_katago_tables", result, args, "broadcast_all")


def benson_tables(config: GoConfig, state: GoState) -> jax.Array:
    """``int16[2, 4, P]``: Benson's marks (:data:`gojax._native.BENSON_MARKS`) of black and
    white for one game."""
    result = jax.ShapeDtypeStruct((2, len(_native.BENSON_MARKS), config.num_points), jnp.int16)
    suicide = np.int32(config.suicide)
    return call("gojax_ffi_benson_tables", result, (state.stones,), "broadcast_all", suicide=suicide)


def history_planes(config: GoConfig, state: GoState, history: jax.Array, colour_white: bool) -> jax.Array:
    """``bool[N, N, 17]``: AlphaGo Zero's planes of one game by the kernel (see
    :func:`gojax.features.alphago_zero_planes`); ``history`` ``uint32[8, 2, W]`` (entry 0 unread)."""
    size = config.size
    result = jax.ShapeDtypeStruct((size, size, 17), jnp.bool_)
    args = (state.stones.astype(jnp.uint32), state.turn.astype(jnp.int32), history.astype(jnp.uint32))
    colour = np.int32(colour_white)
    return call("gojax_ffi_history_planes", result, args, "broadcast_all", colour_white=colour)


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
    return call("gojax_ffi_ladder_reads", result, args, "expand_dims", size=np.int32(size))
