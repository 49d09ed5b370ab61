"""The engine's judgement of dead stones and seki at the end of a game (host side, one jitted estimate).

GTP's ``final_status_list`` and ``final_score``, and the cleanup of
``kgs-genmove_cleanup``, need to know which stones are dead. gojax plays
Tromp-Taylor rules, where every stone on the board counts; a GUI or a server
that ends a game with dead stones still on the board wants them named. The
estimate (:func:`judge`):

1. **Playouts.** From the current board, ``playouts`` games are played to
   their end, half with black to move first and half with white, all in one
   ``jax.vmap``. The playout policy is the heuristic one (capture, escape
   atari, avoid self-atari; never fill a one-point eye of one's own), except
   that it passes rather than put two or more of its stones in atari: so a
   seki stays a seki, while a single-stone throw-in (to kill an eye) is
   still played. Each final board is scored point by point as Tromp-Taylor
   does (a stone, or an empty point reaching one colour only).
2. **Benson.** Pass-alive chains (:func:`gojax.features.pass_alive`) are
   alive whatever the playouts say.
3. **Chains.** A chain is *dead* when its points end up owned by the
   opponent in more than ``DEAD_SHARE`` of the playouts in which its own
   colour moves first (averaged over its points): it dies even with the
   move. A living chain is in *seki* when one of its liberties stays
   empty and owned by no one in most playouts while touching a living
   opponent chain (the shared liberties of a seki, which neither side
   fills). Every other stone is *alive*.

:func:`judge` returns a :class:`Status`; ``final_score`` is then the
Tromp-Taylor area score of the board with the dead stones removed (dame and
seki liberties count for no one, the komi is subtracted), which is what GNU Go
answers and a GUI shows. The estimate is random but seeded: the same position
with the same seed gets the same answer.

Shapes: ``N`` board side, ``P = N * N`` points, ``K`` playouts per colour to
move first.
"""

from __future__ import annotations

import dataclasses
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from gojax import players
from gojax._core import bitboard as bb
from gojax._core.types import BLACK, EMPTY, WHITE, GoConfig, GoState
from gojax._host import compiled
from gojax._host.chains import chains
from gojax._host.diagram import from_board
from gojax.features import move_outcomes, pass_alive

__all__ = ["DEAD_SHARE", "PLAYOUTS", "Status", "cleanup_policy", "judge", "ownership", "score_without"]

PLAYOUTS = 128  # playouts per colour to move first
DEAD_SHARE = 0.5  # a chain is dead when the opponent owns its points in more than this share of playouts
_NEUTRAL_SHARE = 0.5  # a seki liberty is owned by no one in at least this share of playouts


class Status(NamedTuple):
    """The judgement of one position: ``bool[N, N]`` stone masks, and the playouts' ownership.

    Attributes:
      dead: stones judged dead.
      seki: living stones in seki.
      alive: every other stone.
      black: ``float32[N, N]`` share of all playouts ending with the point black's.
      white: ``float32[N, N]`` the same for white.
    """

    dead: np.ndarray
    seki: np.ndarray
    alive: np.ndarray
    black: np.ndarray
    white: np.ndarray


def cleanup_policy(config: GoConfig, state: GoState, key: jax.Array) -> jax.Array:
    """``int32[]``: the playout policy of the estimate (module docstring), for ONE game.

    The tiers of :func:`gojax.players.heuristic_tiers` (capture, escape,
    no self-atari), then moves that put at most one stone in atari; a pass
    when none is left.
    """
    points = config.num_points
    tiers = players.heuristic_tiers(config, state)
    lonely = tiers[3] & (move_outcomes(config, state).self_atari_size.reshape(points) <= 1)
    tiers = jnp.stack([tiers[0], tiers[1], tiers[2], lonely])
    nonempty = jnp.any(tiers, axis=1)
    choice = players.sample_uniform(key, tiers[jnp.argmax(nonempty)])
    return jnp.where(jnp.any(nonempty), choice, points).astype(jnp.int32)


def _owners(config: GoConfig, state: GoState) -> jax.Array:
    """``int8[P]``: Tromp-Taylor owner of every point (1 black, 2 white, 0 no one)."""
    size = config.size
    stones = state.stones
    empty = jnp.asarray(bb.board_mask(size)) & ~(stones[0] | stones[1])
    reach = bb.flood_fill(bb.neighbours(stones, size), empty[None], size)
    black = bb.to_grid(stones[0] | (reach[0] & ~reach[1]), size).reshape(-1)
    white = bb.to_grid(stones[1] | (reach[1] & ~reach[0]), size).reshape(-1)
    return jnp.where(black, BLACK, jnp.where(white, WHITE, EMPTY)).astype(jnp.int8)


def ownership(config: GoConfig, starts: GoState, key: jax.Array, playouts: int) -> tuple[jax.Array, ...]:
    """Playout ownership and pass-alive stones of one position (library-style: jit it to use it).

    Args:
      config: the playouts' rules.
      starts: the position twice, stacked (``[2]`` leading axis): black to
        move, then white to move.
      key: PRNG key.
      playouts: ``K``, playouts from each start (static).

    Returns:
      ``(black, white, neutral, alive)``: ``float32[2, P]`` shares of the
      ``K`` playouts from each start in which a point ends black's, white's,
      no one's, and ``bool[P]`` pass-alive stones of either colour.
    """
    keys = jax.random.split(key, (2, playouts))

    def one(state, key):
        return _owners(config, players.playout(config, state, key, cleanup_policy))

    owners = jax.vmap(lambda state, keys: jax.vmap(lambda k: one(state, k))(keys))(starts, keys)
    shares = [jnp.mean(owners == colour, axis=1) for colour in (BLACK, WHITE, EMPTY)]
    first = jax.tree.map(lambda x: x[0], starts)
    alive = pass_alive(config, first).stones.reshape(2, -1)
    return shares[0], shares[1], shares[2], alive[0] | alive[1]


def _playout_config(config: GoConfig) -> GoConfig:
    """The playouts' rules: simple ko, no komi, a move cap of ``3 P`` (playouts need no superko)."""
    return dataclasses.replace(config, ko_rule="simple", komi=0.0, max_moves=3 * config.num_points)


def _neighbours(size: int, point: int) -> list[int]:
    row, col = divmod(point, size)
    return [r * size + c for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
            if 0 <= r < size and 0 <= c < size]  # fmt: skip


def judge(config: GoConfig, grid: np.ndarray, seed: int = 0, playouts: int = PLAYOUTS) -> Status:
    """Dead, seki and alive stones of ``int8[N, N]`` ``grid`` (see the module docstring).

    Args:
      config: the rules (size, suicide).
      grid: the board (0 empty, 1 black, 2 white).
      seed: seeds the playouts.
      playouts: ``K`` playouts from each colour to move.

    Raises:
      ValueError: for a board of the wrong shape or values, or ``playouts < 1``.
    """
    if isinstance(playouts, bool) or not isinstance(playouts, int) or playouts < 1:
        raise ValueError(f"playouts must be a positive int, got {playouts!r}")
    size = config.size
    grid = np.asarray(grid)
    rules = _playout_config(config)
    starts = [from_board(rules, grid, to_play=colour) for colour in (BLACK, WHITE)]
    stacked = jax.tree.map(lambda *x: jnp.stack(x), *starts)
    estimate = compiled.jitted(ownership, rules, playouts=playouts)
    black, white, neutral, benson = (np.asarray(x) for x in estimate(stacked, jax.random.key(seed)))
    share = {BLACK: black, WHITE: white}
    dead = np.zeros(config.num_points, bool)
    groups = chains(grid)
    colour_of = [int(grid.reshape(-1)[chain.points[0]]) for chain in groups]
    for chain, colour in zip(groups, colour_of, strict=True):
        opponent = BLACK + WHITE - colour
        # The opponent's share when the chain's own colour moves first: dead even with the move.
        taken = share[opponent][colour - 1, chain.points].mean()
        if not benson[chain.points].any() and taken > DEAD_SHARE:
            dead[chain.points] = True
    living = (grid.reshape(-1) != EMPTY) & ~dead
    seki = np.zeros(config.num_points, bool)
    flat = grid.reshape(-1)
    for chain, colour in zip(groups, colour_of, strict=True):
        if dead[chain.points[0]] or benson[chain.points].any():
            continue
        opponent = BLACK + WHITE - colour
        for liberty in chain.liberties:
            if neutral[:, liberty].mean() >= _NEUTRAL_SHARE and any(
                flat[n] == opponent and living[n] for n in _neighbours(size, int(liberty))
            ):
                seki[chain.points] = True
                break
    alive = living & ~seki
    masks = (dead, seki, alive, black.mean(axis=0), white.mean(axis=0))
    return Status(*(mask.reshape(size, size) for mask in masks))


def score_without(config: GoConfig, grid: np.ndarray, dead: np.ndarray) -> float:
    """Tromp-Taylor area score ``black - white - komi`` of ``grid`` with the ``dead`` stones removed."""
    cleared = np.where(dead, EMPTY, np.asarray(grid)).astype(np.int8)
    return compiled.score(config, from_board(compiled.rules_config(config), cleared))
