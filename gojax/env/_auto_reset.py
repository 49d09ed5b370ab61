""":func:`auto_reset`: a finished game replaced by a new one, as pgx's wrapper (see :mod:`gojax.env`)."""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

from gojax.env._env import GoEnv
from gojax.env._state import EnvState

__all__ = ["auto_reset"]


def auto_reset(
    step_fn: Callable[[EnvState, jax.Array, jax.Array | None], EnvState],
    init_fn: Callable[[jax.Array | None], EnvState],
) -> Callable[[EnvState, jax.Array, jax.Array | None], EnvState]:
    """Wraps ``step_fn`` so that a game that ends is replaced by a new one, as pgx's ``auto_reset``.

    The returned state of a game that just ended is ``init_fn(key)``'s fresh
    game, carrying the finished game's ``terminated``, ``truncated`` and
    ``rewards`` (so the RL loop sees the end and the reward, and the
    observation and legal mask are already those of the new game). The next
    call clears those flags before stepping; a plain ``step`` from that
    flagged state does nothing, as in pgx (see :meth:`GoEnv.step`). (pgx's own
    ``pgx.experimental.auto_reset`` works on these states too.)

    Args:
      step_fn: ``(state, action, key) -> state``, e.g. ``GoEnv.step``.
      init_fn: ``key -> state``, e.g. ``GoEnv.init``.

    Returns:
      ``wrapped(state, action, key=None) -> state``, for one game (vmap it).
      With a key, it is split between the step and the reset (the new game's
      seats are drawn from it); without, player 0 plays black in the new game.
      For one :class:`GoEnv`'s own ``step`` and ``init`` it is
      :meth:`GoEnv.step_and_reset`, the same states computed more cheaply.
    """
    env = getattr(step_fn, "__self__", None)
    if (
        isinstance(env, GoEnv)
        and type(env).step is GoEnv.step
        and type(env).init is GoEnv.init
        and step_fn == env.step
        and init_fn == env.init
    ):
        return env.step_and_reset

    def wrapped(state: EnvState, action: jax.Array, key: jax.Array | None = None) -> EnvState:
        step_key = reset_key = None
        if key is not None:
            step_key, reset_key = jax.random.split(key)
        state = step_fn(state.cleared(), action, step_key)
        over = state.terminated | state.truncated
        fresh = init_fn(reset_key).replace(
            terminated=state.terminated, truncated=state.truncated, rewards=state.rewards
        )
        return jax.tree.map(lambda new, old: jnp.where(over, new, old), fresh, state)

    return wrapped
