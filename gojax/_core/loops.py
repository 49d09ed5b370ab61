"""``lax.while_loop`` that also runs under ``jax.shard_map``.

Inside ``jax.shard_map`` (with its default ``check_vma=True``) every value
carries the mesh axes along which it *varies* from device to device. A loop
whose carry starts as a constant (a flag, a counter, an empty bitboard) and
is then computed from the device's own data changes type between the start
and the first round, which ``lax.while_loop`` refuses. :func:`while_loop`
casts the starting carry to vary along every manual axis in scope first
(``lax.pcast``); outside ``shard_map`` there is none and it is
``lax.while_loop`` itself. Every loop of gojax that may run on a user's
per-device data goes through it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import jax
import jax.numpy as jnp

__all__ = ["varying", "while_loop"]

_Carry = TypeVar("_Carry")


def _manual_axes() -> tuple[str, ...]:
    """The ``shard_map`` mesh axes in scope (none outside ``shard_map``)."""
    return tuple(jax.sharding.get_abstract_mesh().manual_axes)


def varying(tree: Any) -> Any:
    """``tree`` with every array made to vary along the ``shard_map`` axes in scope (no-op outside)."""
    names = _manual_axes()
    if not names:
        return tree

    def cast(x: Any) -> jax.Array:
        x = jnp.asarray(x)
        kind = getattr(jax.typeof(x), "manual_axis_type", None)
        have = kind.varying if kind is not None else frozenset()
        missing = tuple(name for name in names if name not in have)
        return jax.lax.pcast(x, missing, to="varying") if missing else x

    return jax.tree.map(cast, tree)


def while_loop(cond: Callable[[_Carry], jax.Array], body: Callable[[_Carry], _Carry], init: _Carry) -> _Carry:
    """``lax.while_loop(cond, body, init)``, its carry made :func:`varying` first."""
    return jax.lax.while_loop(cond, body, varying(init))
