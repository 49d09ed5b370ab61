"""Batches of playouts with their statistics: ``M`` playouts from each of ``K`` positions, in one call.

:func:`run_playouts` is the device work of a Monte-Carlo evaluation: ``K *
M`` playouts under one ``jax.vmap`` (or the light kernel's loop), reduced on
the device to per-position statistics so that little comes back to the host.

The playouts run under a cheaper rule set, the *playout config*
(:func:`playout_config`): the same board, komi and suicide rule but the
**simple ko rule** (no Zobrist history, so a playout may repeat a
whole-board position that positional superko would forbid - harmless for an
estimate) and no move cap of their own; each playout stops at two passes, at
the game's move cap, or after ``playout_moves`` moves, and is scored by
Tromp-Taylor area with the config's komi.

The playout policy, chosen by name (:data:`POLICY_NAMES`): ``"light"``,
uniformly random playouts (own one-point eyes never filled, suicide never
played) on the bitboard-only kernel of :mod:`gojax.playouts._light`, several
times faster than ``gojax.step``; ``"heavy"``, MoGo-style priorities (the
last move's captures and atari escapes, 3x3 patterns next to it, any capture
or escape, no self-atari) on the same kernel (:mod:`gojax.playouts._heavy`);
``"random"``, the light policy (:data:`random_playout_policy`) on
``gojax.step``; or ``"heuristic"`` (:data:`heuristic_playout_policy`:
capture, escape atari, avoid self-atari) on ``gojax.step``. On the CPU the
light kernel's playouts run in C (:mod:`gojax.playouts._native_loop`): the
XLA loop's moves for the same random draws.

The statistics, summed over the ``M`` playouts of each position: black's
wins (a draw counts 1/2), for each colour and point how many playouts that
colour played *first* at that point and how many of those it won (the AMAF
counts of Gelly & Silver 2007), and the final ownership.

:func:`playout_wins` is the lean form for an evaluator inside a search: one
light-kernel playout per position with its own key, black's result only. It
has a batching rule (``jax.custom_batching.custom_vmap``): under ``vmap``
(self-play's one search per game, several devices' games) the positions of
every mapped level are played as one batch in one loop, instead of one
loop per game in which every phase of every turn is computed for all.

Shapes: ``K`` positions, ``M`` playouts each, ``N`` board side, ``P = N * N``.
"""

from __future__ import annotations

import dataclasses
import functools
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from gojax._core import bitboard as bb
from gojax._core import loops
from gojax._core.native import on_cpu
from gojax._core.rules import step
from gojax._core.scoring import score
from gojax._core.types import GoConfig, GoState
from gojax.playouts._heavy import heavy_move
from gojax.playouts._heuristic import heuristic_playout_policy
from gojax.playouts._light import light_move, light_owner, light_state
from gojax.playouts._light_loop import light_playouts, playout_draws
from gojax.playouts._native_loop import native_playouts
from gojax.playouts._random import random_playout_policy

__all__ = [
    "POLICY_NAMES",
    "STEP_POLICIES",
    "PlayoutResults",
    "ownership",
    "playout_config",
    "playout_wins",
    "run_playouts",
    "to_playout_state",
]

STEP_POLICIES = {"random": random_playout_policy, "heuristic": heuristic_playout_policy}
"""The playout policies that run on ``gojax.step``, by name."""

POLICY_NAMES = ("light", "heavy", "random", "heuristic")
"""Every playout policy :func:`run_playouts` takes: the light kernel's two, then :data:`STEP_POLICIES`."""


class PlayoutResults(NamedTuple):
    """The statistics of ``M`` playouts from each of ``K`` positions.

    Attributes:
      black_wins: ``float32[K]`` black's wins over the ``M`` playouts (draw 1/2).
      first: ``float32[K, 2, P]`` playouts in which colour ``c`` (0 black,
        1 white) played point ``p`` before the other colour did.
      first_wins: ``float32[K, 2, P]`` how many of those colour ``c`` won.
      ownership: ``float32[K, P]`` summed final ownership, black +1, white -1.
    """

    black_wins: jax.Array
    first: jax.Array
    first_wins: jax.Array
    ownership: jax.Array


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
    policy = STEP_POLICIES[policy_name]
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


def _light_playouts(config, policy_name, playout_moves, per_position, starts, keys, shrink):
    """``(black_win [K M], by_colour float32[K, 2, M, P], owner [K M, P])`` on the light kernel: in C
    on the CPU (:mod:`gojax.playouts._native_loop`), else the XLA loop; the same playouts."""
    count = starts.move_number.shape[0]
    room = jnp.int32(config.move_cap) - starts.move_number
    limits = jnp.where(starts.terminated | starts.truncated, 0, jnp.minimum(playout_moves, room))
    limits = jnp.repeat(limits.astype(jnp.int32), per_position)

    def xla():
        lights = jax.vmap(lambda s: light_state(config, s))(starts)
        lights = jax.tree.map(lambda x: jnp.repeat(x, per_position, axis=0), lights)
        choose = heavy_move if policy_name == "heavy" else light_move
        _, first_bits, owner, _ = light_playouts(
            config, limits, playout_moves, lights, keys, 2, choose, shrink
        )
        return first_bits, owner.astype(jnp.int8)

    def native():
        repeated = jax.tree.map(lambda x: jnp.repeat(x, per_position, axis=0), starts)
        owner, first_bits, _ = native_playouts(
            config, policy_name, repeated, limits, playout_draws(keys, playout_moves)
        )
        return first_bits, owner

    first_bits, owner = on_cpu(native, xla)
    owner = owner.astype(jnp.float32)
    margin = jnp.sum(owner, axis=-1) - jnp.float32(config.komi)
    black_win = jnp.where(margin > 0, 1.0, jnp.where(margin < 0, 0.0, 0.5)).astype(jnp.float32)
    played = bb.to_points(first_bits, config.size)  # [K * M, 2, P]
    played = played.reshape(count, per_position, 2, config.num_points)
    return black_win, jnp.moveaxis(played, 1, 2).astype(jnp.float32), owner


def _step_playouts(config, policy_name, playout_moves, per_position, starts, keys):
    """``(black_win [K M], by_colour float32[K, 2, M, P], owner [K M, P])`` on ``gojax.step``."""
    count = starts.move_number.shape[0]
    fast = playout_config(config)
    starts = jax.vmap(lambda s: to_playout_state(config, s))(starts)
    starts = jax.tree.map(lambda x: jnp.repeat(x, per_position, axis=0), starts)
    play = jax.vmap(lambda s, k: _one_playout(config, policy_name, playout_moves, s, k))
    black_win, first, finals = play(starts, keys)
    owner = jax.vmap(lambda s: ownership(fast, s))(finals)
    first = first.reshape(count, per_position, config.num_points)
    return black_win, jnp.stack([first == 1, first == 2], axis=1).astype(jnp.float32), owner


def run_playouts(
    config: GoConfig,
    policy_name: str,
    playout_moves: int,
    playouts_per_position: int,
    starts: GoState,
    key: jax.Array,
    *,
    shrink: int = 4,
) -> PlayoutResults:
    """Runs ``playouts_per_position`` playouts from each of ``K`` positions (see the module docstring).

    Args:
      config: the game's rules (the playouts use :func:`playout_config`).
      policy_name: one of :data:`POLICY_NAMES` (static).
      playout_moves: most moves of one playout (static).
      playouts_per_position: ``M`` (static).
      starts: :class:`GoState` ``[K]`` under ``config``.
      key: PRNG key.
      shrink: how the light kernel's loop narrows its tail
        (:func:`gojax.playouts._light_loop.light_playouts`; 1 never): speed only.

    Returns:
      :class:`PlayoutResults`.
    """
    if policy_name not in POLICY_NAMES:
        raise ValueError(f"policy_name must be one of {POLICY_NAMES}, got {policy_name!r}")
    count = starts.move_number.shape[0]
    per = playouts_per_position
    keys = jax.random.split(key, count * per)
    if policy_name in ("light", "heavy"):
        black_win, by_colour, owner = _light_playouts(
            config, policy_name, playout_moves, per, starts, keys, shrink
        )
    else:
        black_win, by_colour, owner = _step_playouts(config, policy_name, playout_moves, per, starts, keys)
    black_win = black_win.reshape(count, per)
    wins = jnp.stack([black_win, 1.0 - black_win], axis=1)[..., None]  # [K, 2, M, 1]
    return PlayoutResults(
        black_wins=jnp.sum(black_win, axis=1),
        first=jnp.sum(by_colour, axis=2),
        first_wins=jnp.sum(by_colour * wins, axis=2),
        ownership=jnp.sum(owner.reshape(count, per, config.num_points), axis=1),
    )


def playout_wins(config: GoConfig, policy_name: str, playout_moves: int, starts: GoState, keys: jax.Array):
    """``float32[K]``: black's result of one playout from each of ``K`` positions (1 win, 1/2 draw, 0 loss).

    The playouts of :func:`run_playouts` on the light kernel, position ``k``
    played from ``keys[k]`` alone (its result does not depend on the other
    positions nor on how they are batched or mapped).

    Args:
      config: the game's rules.
      policy_name: ``"light"`` or ``"heavy"`` (static).
      playout_moves: most moves of one playout (static).
      starts: :class:`GoState` ``[K]`` under ``config``.
      keys: ``[K]`` PRNG keys (``uint32[K, 2]`` raw keys or typed keys).
    """
    if policy_name not in ("light", "heavy"):
        raise ValueError(
            f"playout_wins runs the light kernel's policies 'light' and 'heavy', got {policy_name!r}"
        )
    margin = _pooled_margins(config.static, policy_name, int(playout_moves))(starts, keys)
    margin = margin - jnp.float32(config.komi)  # komi may be data (GoConfig.with_komi)
    return jnp.where(margin > 0, 1.0, jnp.where(margin < 0, 0.0, 0.5)).astype(jnp.float32)


@functools.cache
def _pooled_margins(
    config: GoConfig, policy_name: str, playout_moves: int
) -> Callable[[Any, jax.Array], jax.Array]:
    """Black's area margin before komi of each playout of :func:`playout_wins` (static arguments).

    Its batching rule joins ``vmap`` levels into one batch of playouts.
    """

    @jax.custom_batching.custom_vmap
    def pooled(starts: GoState, keys: jax.Array) -> jax.Array:
        owner = _light_playouts(config, policy_name, playout_moves, 1, starts, keys, 4)[2]
        return jnp.sum(owner, axis=-1)

    @pooled.def_vmap
    def rule(
        axis_size: int, in_batched: Sequence[Any], starts: GoState, keys: jax.Array
    ) -> tuple[jax.Array, bool]:
        def flat(x: jax.Array, batched: bool) -> jax.Array:
            x = x if batched else jnp.broadcast_to(x[None], (axis_size, *x.shape))
            return x.reshape(axis_size * x.shape[1], *x.shape[2:])

        count = keys.shape[1] if in_batched[1] else keys.shape[0]
        starts = jax.tree.map(flat, starts, in_batched[0])
        wins = pooled(starts, flat(keys, in_batched[1]))
        return wins.reshape(axis_size, count), True

    return pooled
