"""The features' calls into the native CPU kernels (:mod:`gojax._native`), with the XLA code beside them.

:func:`on_cpu` picks, when the computation is lowered, the native kernel on
the CPU platform and the XLA function on every other (``lax.platform_dependent``),
so one jitted function serves both; with the kernels not built, or
``GOJAX_NATIVE=0``, the XLA function runs everywhere. A kernel is a
``jax.pure_callback`` over the whole batch (``vmap`` adds leading axes to
its arguments), which :mod:`gojax._native` splits over the CPU cores.
"""

from __future__ import annotations

import math
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
    (:func:`gojax._core.loops.varying`): a callback's result varies along none,
    and the two branches must have one type.
    """
    if not _native.available():
        return xla()
    return jax.lax.platform_dependent(
        cpu=lambda: loops.varying(native()), default=lambda: loops.varying(xla())
    )


def _flat(x: np.ndarray, trailing: int) -> np.ndarray:
    """``x`` with its leading (batch) axes merged into one."""
    return np.asarray(x).reshape((-1, *x.shape[x.ndim - trailing :]))


def _tables(host_tables, rows: int, config: GoConfig, state: GoState, *extra) -> jax.Array:
    """``int16[rows, P]`` of ``host_tables(size, stones, turn, ko_point, *extra)`` (each
    ``extra`` a per-game scalar) for one game."""
    size, points = config.size, config.num_points

    def host(stones, turn, ko_point, *extra):
        batch = stones.shape[:-2]
        per_game = (x.reshape(-1) for x in (turn, ko_point, *extra))
        out = host_tables(size, _flat(stones, 2), *per_game)
        return out.reshape((*batch, rows, points))

    return jax.pure_callback(
        host,
        jax.ShapeDtypeStruct((rows, points), jnp.int16),
        state.stones,
        state.turn.astype(jnp.int32),
        state.ko_point.astype(jnp.int32),
        *(jnp.asarray(x, jnp.int32) for x in extra),
        vmap_method="broadcast_all",
    )


def alphago_planes(config: GoConfig, state: GoState, standing: jax.Array, legal: jax.Array, channels: int):
    """``bool[N, N, channels]``: AlphaGo's planes of one game by the kernel (see
    :func:`gojax._native.alphago_planes`); ``standing`` ``uint32[8, W]``, ``legal`` ``bool[N, N]``."""
    size, points = config.size, config.num_points

    def host(stones, turn, ko_point, standing, legal):
        batch = stones.shape[:-2]
        out = _native.alphago_planes(
            size, _flat(stones, 2), turn.reshape(-1), ko_point.reshape(-1), _flat(standing, 2),
            np.asarray(legal).reshape(-1, points), channels,
        )  # fmt: skip
        return out.reshape((*batch, size, size, channels))

    return jax.pure_callback(
        host,
        jax.ShapeDtypeStruct((size, size, channels), jnp.bool_),
        state.stones,
        state.turn.astype(jnp.int32),
        state.ko_point.astype(jnp.int32),
        standing,
        legal,
        vmap_method="broadcast_all",
    )


def katago_tables(config: GoConfig, state: GoState, ladder_moves=True) -> jax.Array:
    """``int16[4, P]``: the rows of :data:`gojax._native.KATAGO_TABLES` for one game; with
    ``ladder_moves`` False (a ``bool`` scalar, traced or not) its ladder-moves row is 0."""
    rows = len(_native.KATAGO_TABLES)
    return _tables(_native.katago_tables, rows, config, state, ladder_moves)


def benson_tables(config: GoConfig, state: GoState) -> jax.Array:
    """``int16[2, 4, P]``: Benson's marks (:data:`gojax._native.BENSON_MARKS`) of black and
    white for one game."""
    size, points = config.size, config.num_points
    shape = (2, len(_native.BENSON_MARKS), points)

    def host(stones):
        batch = stones.shape[:-2]
        out = _native.benson_tables(size, _flat(stones, 2), config.suicide)
        return out.reshape((*batch, *shape))

    return jax.pure_callback(
        host, jax.ShapeDtypeStruct(shape, jnp.int16), state.stones, vmap_method="broadcast_all"
    )


def ladder_reads(size: int, stones, turn, ko_point, mode, mover_attacks, move, prey, active) -> jax.Array:
    """``bool[T]``: the reads of :func:`gojax.features.ladders._pool.pooled_reads` (its
    arguments, every per-read one ``int32[T]``), made by the native kernel.

    Under ``vmap`` the task arrays the same for every game stay unbatched
    (``expand_dims``); the kernel makes the active reads only.
    """

    def host(stones, turn, ko_point, mode, mover_attacks, move, prey, active):
        batch = np.broadcast_shapes(stones.shape[:-2], active.shape[:-1])
        tasks = active.shape[-1]
        games = math.prod(batch)

        def per_game(x, trailing):
            return np.broadcast_to(x, (*batch, *x.shape[x.ndim - trailing :])).reshape(
                (games, *x.shape[x.ndim - trailing :])
            )

        flags = per_game(active, 1)
        game, task = np.nonzero(flags)
        columns = [per_game(x, 1)[game, task] for x in (mode, mover_attacks, move, prey)]
        captured = _native.ladder_reads(
            size, per_game(stones, 2), per_game(turn, 0), per_game(ko_point, 0), game, *columns
        )
        out = np.zeros((games, tasks), bool)
        out[game, task] = captured
        return out.reshape((*batch, tasks))

    return jax.pure_callback(
        host,
        jax.ShapeDtypeStruct(active.shape, jnp.bool_),
        stones,
        jnp.asarray(turn, jnp.int32),
        jnp.asarray(ko_point, jnp.int32),
        mode,
        jnp.asarray(mover_attacks, jnp.int32),
        move,
        prey,
        active,
        vmap_method="expand_dims",
    )
