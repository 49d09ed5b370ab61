"""``stored(x)``: an array computed once and kept, where XLA would recompute it in every consumer.

XLA's CPU compiler fuses cheap elementwise producers into their consumers,
and when a producer has several consumers it is recomputed in each. That is
usually right; it goes badly wrong for bitboard code, where a value per board
(a popcount over the ``W`` words, an "any stone" test, a liberty table
gathered four ways) is broadcast back over the words and recomputed for every
word of every consumer. Measured on the ladder reader (19x19, ``W = 12``): one
round of 128 chases took 5.5-6.1 ms before its counts were stored and about
2.9 ms after (1.9-2.1 ms once its fills also ran one loop per kind).

:func:`stored` puts ``x`` behind a conditional whose predicate is always true
but cannot be folded at compile time (``(a | 1) != 0`` for an integer ``a``
read from ``x``): the conditional's result is a buffer, so the consumers read
it instead of recomputing it. Under ``jax.vmap`` with a batched ``x`` the
conditional becomes a select of both branches (the fusion barrier is lost,
the result is still ``x``); the ladder pool calls it outside any ``vmap``.
It costs one small conditional per call. On other platforms (a GPU's
conditional copies its predicate to the host and waits for it) it is the
identity.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

__all__ = ["stored"]


def stored(x: jax.Array) -> jax.Array:
    """``x`` itself, kept in memory (see the module docstring). ``x``: an integer or bool array."""
    if x.ndim == 0 or x.size == 0:
        return x
    probe = x.reshape(-1)[0]
    if probe.dtype == jnp.bool_:
        probe = probe.astype(jnp.uint8)
    if not jnp.issubdtype(probe.dtype, jnp.integer):
        raise TypeError(f"stored: x must be an integer or bool array, got {x.dtype}")

    def on_cpu(value: jax.Array) -> jax.Array:
        always = (probe | jnp.ones((), probe.dtype)) != 0
        return jax.lax.cond(always, lambda kept: kept, jnp.zeros_like, value)

    # Only on a CPU: a GPU's conditional waits for its predicate on the host.
    return jax.lax.platform_dependent(x, cpu=on_cpu, default=lambda value: value)
