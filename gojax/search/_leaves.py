"""Batched leaf evaluation: expand ``K`` leaves and run ``M`` playouts from each, in one call.

One call of :func:`evaluate_leaves` does the device work of one batch step of
:class:`gojax.search.TreeSearch`:

1. **Expansion**: ``child = step(parent, action)`` for each of the ``K``
   leaves (``action < 0`` evaluates the parent itself, e.g. a finished game)
   and the child's legal mask, both under the game's exact rules (ko rule,
   superko history): every move the tree stores is legal.
2. **Playouts**: ``M`` playouts from each child with their statistics
   (black's wins, AMAF counts, ownership), by
   :func:`gojax.playouts.run_playouts` under its cheaper playout rules.
3. **Priors**: the rule-of-thumb win rate of each point at each child
   (:func:`gojax.search._prior.point_priors`).

Shapes: ``K`` leaves, ``M`` playouts each, ``P = N * N``, ``A = P + 1``.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from gojax._core.rules import legal_action_mask, step
from gojax._core.types import GoConfig, GoState
from gojax.playouts import run_playouts
from gojax.search._prior import point_priors

__all__ = ["LeafResults", "evaluate_leaves"]


class LeafResults(NamedTuple):
    """What one batch step returns, for ``K`` leaves of ``M`` playouts each.

    Attributes:
      children: :class:`GoState` ``[K]``, the expanded positions (exact rules).
      legal: ``bool[K, A]`` their legal moves (exact rules).
      black_wins: ``float32[K]`` black's wins over the ``M`` playouts (draw 1/2).
      first: ``float32[K, 2, P]`` playouts in which colour ``c`` (0 black,
        1 white) played point ``p`` before the other colour did.
      first_wins: ``float32[K, 2, P]`` how many of those colour ``c`` won.
      ownership: ``float32[K, P]`` summed final ownership, black +1, white -1.
      priors: ``float32[K, P]`` the prior win rate of each point at each child
        (:func:`gojax.search._prior.point_priors`).
    """

    children: GoState
    legal: jax.Array
    black_wins: jax.Array
    first: jax.Array
    first_wins: jax.Array
    ownership: jax.Array
    priors: jax.Array


def evaluate_leaves(
    config: GoConfig,
    policy_name: str,
    playout_moves: int,
    playouts_per_leaf: int,
    parents: GoState,
    actions: jax.Array,
    key: jax.Array,
    index: jax.typing.ArrayLike = 0,
    komi: jax.typing.ArrayLike | None = None,
    *,
    shrink: int = 4,
    opening: bool = False,
) -> LeafResults:
    """Expands ``K`` leaves and runs ``playouts_per_leaf`` playouts from each (see the module docstring).

    Args:
      config: the game's rules (exact ko rule).
      policy_name: one of :data:`gojax.playouts.POLICY_NAMES`.
      playout_moves: most moves of one playout.
      playouts_per_leaf: ``M``.
      parents: :class:`GoState` ``[K]`` under ``config``.
      actions: ``int32[K]``: the move to expand from each parent, or -1 to
        evaluate the parent itself.
      key: PRNG key.
      index: ``int[]``, folded into ``key`` (the batch number of a search).
      komi: ``float32[]`` komi as data, replacing ``config.komi`` (``None``:
        the config's); a compiled search then serves every komi.
      shrink: how the light kernel's loop narrows its tail: speed only.
      opening: the prior's opening rules (:func:`gojax.search._prior.point_priors`; static).

    Returns:
      :class:`LeafResults`.
    """
    key = jax.random.fold_in(key, index)
    if komi is not None:
        config = config.with_komi(jnp.asarray(komi, jnp.float32))

    def expand(parent: GoState, action: jax.Array):
        child = step(config, parent, jnp.maximum(action, 0))
        child = jax.tree.map(lambda new, old: jnp.where(action >= 0, new, old), child, parent)
        return child, legal_action_mask(config, child)

    children, legal = jax.vmap(expand)(parents, actions)
    stats = run_playouts(config, policy_name, playout_moves, playouts_per_leaf, children, key, shrink=shrink)
    return LeafResults(
        children=children,
        legal=legal,
        black_wins=stats.black_wins,
        first=stats.first,
        first_wins=stats.first_wins,
        ownership=stats.ownership,
        priors=jax.vmap(lambda s: point_priors(config, s, opening))(children),
    )
