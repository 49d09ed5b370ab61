"""The playout loop in C on the CPU: the light kernel's playouts in one FFI call (gojax/_native/playouts.c).

:func:`native_playouts` plays ``B`` playouts of the light kernel
(:mod:`gojax.playouts._light`, the policy ``"light"`` or ``"heavy"``) in the
C kernel: the same moves as :func:`gojax.playouts._light_loop.light_playouts`
for the same start and the same random draws (one ``uint32`` per move,
:func:`gojax.playouts._light_loop.playout_draws`), and the same results. The
kernel keeps each chain's stones and liberties as it plays instead of growing
chains, and plays a game to its end without waiting for the others of its
batch; the batch is split over XLA's CPU threads. :func:`gojax.playouts.run_playouts`
and :func:`gojax.playouts.playout_wins` pick it on the CPU platform when the
native kernels are built (``GOJAX_NATIVE=0`` turns it off, as for the rules).

Shapes: ``B`` playouts, ``N`` board side, ``P = N * N``, ``W`` words of a bitboard, ``T`` draws.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core.native import call
from gojax._core.types import GoConfig, GoState
from gojax.playouts._patterns import pattern_table

__all__ = ["native_playouts"]


def native_playouts(
    config: GoConfig, policy_name: str, starts: GoState, limits: jax.Array, draws: jax.Array
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """``(owner int8[B, P], first uint32[B, 2, W], final uint32[B, 2, W])`` of ``B`` playouts by the C kernel.

    Args:
      config: the rules (the board size is read).
      policy_name: ``"light"`` or ``"heavy"``.
      starts: :class:`GoState` ``[B]``, the starts (their stones, turn, ko
        point, passes and last move are read).
      limits: ``int32[B]`` most moves of each playout.
      draws: ``uint32[B, T]`` the random draw of each move (move ``t`` of a
        playout reads ``draws[t]``, past ``T`` the last one).

    Returns:
      The final Tromp-Taylor owner of each point (+1 black, -1 white), the
      points black, white played before the other colour did, and the final stones.
    """
    points = config.num_points
    last = jnp.where(starts.last_move < points, starts.last_move, -1)
    args = (
        starts.stones.astype(jnp.uint32),
        *(jnp.asarray(x, jnp.int32) for x in (starts.turn, starts.ko_point, starts.passes, last, limits)),
        draws.astype(jnp.uint32),
    )
    count = starts.stones.shape[:-2]
    result = (
        jax.ShapeDtypeStruct((*count, points), jnp.int8),
        jax.ShapeDtypeStruct(starts.stones.shape, jnp.uint32),
        jax.ShapeDtypeStruct(starts.stones.shape, jnp.uint32),
    )
    heavy = np.int32(policy_name == "heavy")
    return call("gojax_ffi_playouts", result, args, "broadcast_all", heavy=heavy, patterns=pattern_table())
