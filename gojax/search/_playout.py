"""Batched leaf evaluation: expand ``K`` leaves and run ``M`` playouts from each, in one call.

One call of :func:`evaluate_leaves` does the device work of one batch step of
:class:`gojax.search.TreeSearch`:

1. **Expansion**: ``child = step(parent, action)`` for each of the ``K``
   leaves (``action < 0`` evaluates the parent itself, e.g. a finished game)
   and the child's legal mask, both under the game's exact rules (ko rule,
   superko history): every move the tree stores is legal.
2. **Playouts**: ``M`` playouts from each child, ``K * M`` games under one
   ``jax.vmap``. The playouts run under a cheaper rule set, the *playout
   config*: the same board, komi and suicide rule but the **simple ko rule**
   (no Zobrist history, so a playout may repeat a whole-board position that
   positional superko would forbid - harmless for an estimate) and no move
   cap of their own; each playout stops at two passes, at the game's move
   cap, or after ``playout_moves`` moves, and is scored by Tromp-Taylor area
   with the config's komi.
3. **Statistics**, summed over the ``M`` playouts of each leaf on the device,
   so that little comes back to the host: black's wins (a draw counts 1/2),
   for each colour and point how many playouts that colour played *first*
   at that point and how many of those it won (the AMAF counts of Gelly &
   Silver 2007), and the final ownership.

The playout policy, chosen by name: ``"light"``, uniformly
random playouts (own one-point eyes never filled, suicide never played) on
the bitboard-only kernel of :mod:`gojax.search._light`, several times faster
than ``gojax.step``; ``"heavy"`` (the default), MoGo-style priorities (the last move's
captures and atari escapes, 3x3 patterns next to it, any capture or escape,
no self-atari) on the same kernel (:mod:`gojax.search._heavy`); ``"random"``, the same policy
(:data:`gojax.players.random_playout_policy`) on ``gojax.step``; or
``"heuristic"`` (:data:`gojax.players.heuristic_playout_policy`: capture,
escape atari, avoid self-atari) on ``gojax.step``.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import jax
import jax.numpy as jnp

from gojax._core import bitboard as bb
from gojax._core import loops
from gojax._core.rules import legal_action_mask, step
from gojax._core.scoring import score
from gojax._core.types import GoConfig, GoState
from gojax.players import heuristic_playout_policy, random_playout_policy
from gojax.search._heavy import heavy_move
from gojax.search._light import light_move, light_owner, light_state
from gojax.search._prior import point_priors
from gojax.search._rollouts import light_playouts

__all__ = ["POLICIES", "LeafResults", "evaluate_leaves", "ownership", "playout_config", "to_playout_state"]

POLICIES = {"random": random_playout_policy, "heuristic": heuristic_playout_policy}
"""The playout policies run on ``gojax.step``, by name (``"light"``, ``"heavy"`` run on their own kernel)."""


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


def playout_config(config: GoConfig) -> GoConfig:
    """The cheaper rules the playouts use: simple ko, no hashing history, a move cap out of reach."""
    return dataclasses.replace(config, ko_rule="simple", max_moves=32767)


def to_playout_state(config: GoConfig, state: GoState) -> GoState:
    """``state`` (one game under ``config``) as a state of :func:`playout_config`: history dropped."""
    del config
    return state.replace(
        history=jnp.zeros((0, 2), jnp.uint32),
        history_head=jnp.zeros((0,), jnp.int16),
        history_prev=jnp.zeros((0,), jnp.int16),
    )


def ownership(config: GoConfig, state: GoState) -> jax.Array:
    """``float32[P]``: Tromp-Taylor owner of each point, +1 black, -1 white, 0 neither."""
    return light_owner(config.size, state.stones).astype(jnp.float32)


def _one_playout(config: GoConfig, policy_name: str, playout_moves: int, state: GoState, key: jax.Array):
    """One playout from ``state`` (a playout-config state); returns (black win, first[P] int8, final)."""
    fast = playout_config(config)
    policy = POLICIES[policy_name]
    points = config.num_points
    limit = jnp.minimum(jnp.int32(playout_moves), jnp.int32(config.move_cap) - state.move_number)

    def running(carry):
        game, _, moves, _ = carry
        return ~game.done & (moves < limit)

    def one_move(carry):
        game, key, moves, first = carry
        key, sub = jax.random.split(key)
        action = policy(fast, game, sub)
        # first[p]: 0 unplayed, 1 black played it first, 2 white.
        hit = (jnp.arange(points) == action) & (first == 0)
        first = jnp.where(hit, (game.turn + 1).astype(jnp.int8), first)
        return step(fast, game, action), key, moves + 1, first

    start = (state, key, jnp.int32(0), jnp.zeros((points,), jnp.int8))
    final, _, _, first = loops.while_loop(running, one_move, start)
    margin = score(fast, final)
    black_win = jnp.where(margin > 0, 1.0, jnp.where(margin < 0, 0.0, 0.5)).astype(jnp.float32)
    return black_win, first, final


def evaluate_leaves(
    config: GoConfig,
    policy_name: str,
    playout_moves: int,
    playouts_per_leaf: int,
    parents: GoState,
    actions: jax.Array,
    key: jax.Array,
    index: jax.typing.ArrayLike = 0,
    *,
    shrink: int = 4,
) -> LeafResults:
    """Expands ``K`` leaves and runs ``playouts_per_leaf`` playouts from each (see the module docstring).

    Args:
      config: the game's rules (exact ko rule).
      policy_name: ``"light"``, ``"heavy"`` or a key of :data:`POLICIES`.
      playout_moves: most moves of one playout.
      playouts_per_leaf: ``M``.
      parents: :class:`GoState` ``[K]`` under ``config``.
      actions: ``int32[K]``: the move to expand from each parent, or -1 to
        evaluate the parent itself.
      key: PRNG key.
      index: ``int[]``, folded into ``key`` (the batch number of a search).
      shrink: how the light kernel's loop narrows its tail
        (:func:`gojax.search._rollouts.light_playouts`; 1 never): speed only.

    Returns:
      :class:`LeafResults`.
    """
    key = jax.random.fold_in(key, index)
    points = config.num_points
    fast = playout_config(config)

    def expand(parent: GoState, action: jax.Array):
        child = step(config, parent, jnp.maximum(action, 0))
        child = jax.tree.map(lambda new, old: jnp.where(action >= 0, new, old), child, parent)
        return child, legal_action_mask(config, child)

    children, legal = jax.vmap(expand)(parents, actions)
    count = actions.shape[0]
    keys = jax.random.split(key, count * playouts_per_leaf)
    if policy_name in ("light", "heavy"):
        lights = jax.vmap(lambda s: light_state(config, s))(children)
        lights = jax.tree.map(lambda x: jnp.repeat(x, playouts_per_leaf, axis=0), lights)
        room = jnp.int32(config.move_cap) - children.move_number
        limits = jnp.where(children.terminated | children.truncated, 0, jnp.minimum(playout_moves, room))
        limits = jnp.repeat(limits.astype(jnp.int32), playouts_per_leaf)
        choose = heavy_move if policy_name == "heavy" else light_move
        black_win, first_bits, owner, _ = light_playouts(
            config, limits, playout_moves, lights, keys, 2, choose, shrink
        )
        played = bb.to_points(first_bits, config.size)  # [K * M, 2, P]
        played = played.reshape(count, playouts_per_leaf, 2, points)
        by_colour = jnp.moveaxis(played, 1, 2).astype(jnp.float32)  # [K, 2, M, P]
        owner = owner.astype(jnp.float32)
    else:
        starts = jax.vmap(lambda s: to_playout_state(config, s))(children)
        starts = jax.tree.map(lambda x: jnp.repeat(x, playouts_per_leaf, axis=0), starts)
        play = jax.vmap(lambda s, k: _one_playout(config, policy_name, playout_moves, s, k))
        black_win, first, finals = play(starts, keys)
        owner = jax.vmap(lambda s: ownership(fast, s))(finals)
        first = first.reshape(count, playouts_per_leaf, points)
        by_colour = jnp.stack([first == 1, first == 2], axis=1).astype(jnp.float32)  # [K, 2, M, P]
    black_win = black_win.reshape(count, playouts_per_leaf)
    wins = jnp.stack([black_win, 1.0 - black_win], axis=1)[..., None]  # [K, 2, M, 1]
    return LeafResults(
        children=children,
        legal=legal,
        black_wins=jnp.sum(black_win, axis=1),
        first=jnp.sum(by_colour, axis=2),
        first_wins=jnp.sum(by_colour * wins, axis=2),
        ownership=jnp.sum(owner.reshape(count, playouts_per_leaf, points), axis=1),
        priors=jax.vmap(lambda s: point_priors(config, s))(children),
    )
