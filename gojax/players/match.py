"""Matches between two players: a batch of games, colours alternated, honest statistics.

::

    from gojax import players
    result = players.play_match(config, players.pure_monte_carlo(16), players.random_player,
                                num_games=200, key=jax.random.PRNGKey(0))
    print(result)        # wins/losses/draws of A, win rate with a 95% Wilson interval, Elo difference

**Colours.** ``num_games`` must be even: in the first half of the games A is
black, in the second half B is black. Every game starts on the empty board, so
in all running games the same colour is to move at every ply; the runner keeps
the two halves side by side and, at each ply, calls A on the half where A is
to move and B on the other half (each player runs on ``num_games / 2`` games
per ply; nothing is computed twice).

**Results** are :func:`gojax.winner`: a forfeit (illegal move, resignation)
loses, otherwise Tromp-Taylor area minus komi - also for a game stopped by the
move cap or by ``max_moves`` (counted in ``MatchResult.adjudicated``).

**Statistics.** The score of A is ``(wins + draws / 2) / games``. Its 95%
interval is Wilson's score interval (a draw counted as half a win, the usual
approximation); the Elo difference is ``400 * log10(s / (1 - s))`` and its
interval is the same transform of the Wilson bounds (``inf`` when a bound is
0 or 1). Games of a match are independent only if the players are random
enough: two deterministic players replay the same two games.

:func:`play_match` is a host-side driver: it jits :func:`play_games` (pure,
jittable, vmap-free: it batches the players itself), keeps the compiled
function of recent matchups (players are compared by hash: frozen dataclasses
by value, functions by identity; an unhashable player compiles every call) and
runs ``batch_size`` games per call of the compiled function.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core import checks, loops
from gojax._core.rules import init, step
from gojax._core.types import GoConfig, GoState
from gojax._host import compiled
from gojax.playouts import Player, result_for

__all__ = [
    "GameRecords",
    "MatchResult",
    "elo_difference",
    "play_games",
    "play_match",
    "summarize_results",
    "wilson_interval",
]


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class GameRecords:
    """The games of :func:`play_games` (``G`` games, ``L`` = ply limit).

    Attributes:
      final: :class:`gojax.GoState` with a leading ``[G]`` axis.
      moves: ``int16[G, L]`` the actions played, ``-1`` after the game ended.
      a_is_black: ``bool[G]``: ``True`` for the first ``G / 2`` games.
      result: ``float32[G]``: +1 A won, -1 A lost, 0 draw.
      length: ``int32[G]`` moves played (passes included).
    """

    final: GoState
    moves: jax.Array
    a_is_black: jax.Array
    result: jax.Array
    length: jax.Array


def _ply_limit(config: GoConfig, max_moves: int | None) -> int:
    if max_moves is None:
        return config.move_cap
    return min(checks.integer(max_moves, "max_moves", least=1), config.move_cap)


def play_games(
    config: GoConfig,
    player_a: Player,
    player_b: Player,
    keys: jax.Array,
    max_moves: int | None = None,
) -> GameRecords:
    """Plays ``G`` games of A against B from the empty board; A is black in the first half.

    Pure and jittable (``jax.jit(functools.partial(play_games, config, a, b))``).

    Args:
      config: the rules.
      player_a: player ``(config, state, key) -> action`` on ONE game.
      player_b: the opponent.
      keys: ``[G]`` PRNG keys, one per game; ``G`` must be even.
      max_moves: stop after this many moves (static; ``None``: the move cap).

    Returns:
      :class:`GameRecords`.
    """
    games = keys.shape[0]
    if games % 2:
        raise ValueError(f"the number of games must be even (colours alternate), got {games}")
    half = games // 2
    limit = _ply_limit(config, max_moves)
    start = jax.vmap(lambda _: init(config))(jnp.arange(half))
    batch_step = jax.vmap(functools.partial(step, config))

    def play(player, states, ids, ply):
        ply_keys = jax.vmap(lambda i: jax.random.fold_in(keys[i], ply))(ids)
        actions = jax.vmap(functools.partial(player, config))(states, ply_keys)
        actions = jnp.where(states.done, -1, actions).astype(jnp.int32)
        return batch_step(states, jnp.maximum(actions, 0)), actions

    def running(carry):
        ply, a_states, b_states = carry[0], carry[1], carry[3]
        return (ply < limit) & ~(jnp.all(a_states.done) & jnp.all(b_states.done))

    def one_ply(carry):
        ply, a_states, a_ids, b_states, b_ids, moves = carry
        a_next, a_actions = play(player_a, a_states, a_ids, ply)
        b_next, b_actions = play(player_b, b_states, b_ids, ply)
        moves = moves.at[a_ids, ply].set(a_actions.astype(moves.dtype))
        moves = moves.at[b_ids, ply].set(b_actions.astype(moves.dtype))
        # The half where A just moved now waits for B, and the other way round.
        return ply + 1, b_next, b_ids, a_next, a_ids, moves

    a_ids = jnp.arange(half, dtype=jnp.int32)  # A is black: A moves first
    b_ids = a_ids + half  # B is black
    moves = jnp.full((games, limit), -1, jnp.int16)
    carry = (jnp.int32(0), start, a_ids, start, b_ids, moves)
    _, x, x_ids, y, y_ids, moves = loops.while_loop(running, one_ply, carry)
    order = jnp.argsort(jnp.concatenate([x_ids, y_ids]))
    final = jax.tree.map(lambda u, v: jnp.concatenate([u, v])[order], x, y)
    a_is_black = jnp.arange(games) < half
    a_colour = jnp.where(a_is_black, 0, 1)
    result = jax.vmap(functools.partial(result_for, config))(final, a_colour)
    length = jnp.sum(moves >= 0, axis=1).astype(jnp.int32)
    return GameRecords(final=final, moves=moves, a_is_black=a_is_black, result=result, length=length)


def wilson_interval(successes: float, trials: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of a proportion (95% for ``z = 1.96``).

    Raises:
      ValueError: if ``trials < 1`` or ``successes`` is outside ``[0, trials]``.
    """
    if trials < 1:
        raise ValueError(f"trials must be >= 1, got {trials}")
    if not 0 <= successes <= trials:
        raise ValueError(f"successes must be in [0, {trials}], got {successes}")
    p = successes / trials
    z2 = z * z
    centre = (p + z2 / (2 * trials)) / (1 + z2 / trials)
    half = z / (1 + z2 / trials) * math.sqrt(p * (1 - p) / trials + z2 / (4 * trials * trials))
    return max(0.0, centre - half), min(1.0, centre + half)


def elo_difference(score: float) -> float:
    """Elo difference for an expected score in ``[0, 1]`` (``+-inf`` at 1 and 0)."""
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"score must be in [0, 1], got {score}")
    if score == 1.0:
        return math.inf
    if score == 0.0:
        return -math.inf
    return 400.0 * math.log10(score / (1.0 - score))


@dataclasses.dataclass(frozen=True)
class MatchResult:
    """Outcome of :func:`play_match`, from player A's point of view.

    Attributes:
      num_games, wins, losses, draws: counts for A.
      score: ``(wins + draws / 2) / num_games``.
      score_interval: 95% Wilson interval of ``score``.
      elo: Elo difference A - B; ``elo_interval`` its 95% interval.
      wins_as_black, wins_as_white: A's wins by colour.
      adjudicated: games stopped by the move cap or ``max_moves`` and scored by area.
      mean_length: mean moves per game.
      a_is_black, result, length: per game (NumPy), as in :class:`GameRecords`.
      moves: ``int16[G, L]`` actions (``-1`` padded) if asked for, else ``None``.
    """

    num_games: int
    wins: int
    losses: int
    draws: int
    score: float
    score_interval: tuple[float, float]
    elo: float
    elo_interval: tuple[float, float]
    wins_as_black: int
    wins_as_white: int
    adjudicated: int
    mean_length: float
    a_is_black: np.ndarray
    result: np.ndarray
    length: np.ndarray
    moves: np.ndarray | None = None

    def __str__(self) -> str:
        lo, hi = self.score_interval
        elo_lo, elo_hi = self.elo_interval
        return (
            f"{self.num_games} games: A {self.wins} wins ({self.wins_as_black} as black, "
            f"{self.wins_as_white} as white), {self.losses} losses, {self.draws} draws; "
            f"score {self.score:.3f} [{lo:.3f}, {hi:.3f}]; "
            f"Elo {self.elo:+.0f} [{elo_lo:+.0f}, {elo_hi:+.0f}]; "
            f"{self.mean_length:.1f} moves/game, {self.adjudicated} adjudicated"
        )


def play_match(
    config: GoConfig,
    player_a: Player,
    player_b: Player,
    num_games: int,
    key: jax.Array,
    max_moves: int | None = None,
    return_moves: bool = False,
    batch_size: int | None = None,
) -> MatchResult:
    """Plays ``num_games`` games of A against B (colours alternated) and summarises them.

    Args:
      config: the rules.
      player_a: player ``(config, state, key) -> action`` on ONE game.
      player_b: the opponent.
      num_games: even number of games; A is black in half of them.
      key: PRNG key.
      max_moves: stop each game after this many moves and score it by area
        (``None``: the config's move cap).
      return_moves: keep the move lists (``MatchResult.moves``).
      batch_size: games per compiled call (even, dividing ``num_games``;
        ``None``: all at once). Each batch alternates colours itself.

    Returns:
      :class:`MatchResult`.

    Raises:
      TypeError: for a ``num_games``, ``batch_size`` or ``max_moves`` that is not an int.
      ValueError: on an odd or non-positive ``num_games`` or a bad ``batch_size``.
    """
    num_games = checks.integer(num_games, "num_games", least=2, even=True)
    batch = num_games if batch_size is None else checks.integer(batch_size, "batch_size", least=2, even=True)
    if num_games % batch:
        raise ValueError(f"batch_size must be an even int dividing num_games={num_games}, got {batch_size!r}")
    _ply_limit(config, max_moves)
    run = compiled.jitted(play_games, config, player_a, player_b, max_moves=max_moves)
    keys = jax.random.split(key, num_games)
    parts = [jax.device_get(run(keys[i : i + batch])) for i in range(0, num_games, batch)]

    def gather(name):
        return np.concatenate([np.asarray(getattr(p, name)) for p in parts])

    terminated = np.concatenate([np.asarray(p.final.terminated) for p in parts])
    return summarize_results(
        gather("result"),
        gather("a_is_black"),
        gather("length"),
        terminated,
        gather("moves") if return_moves else None,
    )


def summarize_results(result, a_is_black, length, terminated, moves=None) -> MatchResult:
    """A :class:`gojax.players.MatchResult` from per-game arrays.

    Args:
      result: ``float[G]`` +1 A won, -1 A lost, 0 draw.
      a_is_black: ``bool[G]``.
      length: ``int[G]`` moves per game.
      terminated: ``bool[G]``: ended by two passes (else scored by area at the move cap).
      moves: optional ``int16[G, L]`` move lists.
    """
    result, a_is_black = np.asarray(result, np.float32), np.asarray(a_is_black, bool)
    length, terminated = np.asarray(length), np.asarray(terminated, bool)
    games = int(result.shape[0])
    wins, losses = int(np.sum(result > 0)), int(np.sum(result < 0))
    draws = games - wins - losses
    score = (wins + 0.5 * draws) / games
    lo, hi = wilson_interval(wins + 0.5 * draws, games)
    return MatchResult(
        num_games=games,
        wins=wins,
        losses=losses,
        draws=draws,
        score=score,
        score_interval=(lo, hi),
        elo=elo_difference(score),
        elo_interval=(elo_difference(lo), elo_difference(hi)),
        wins_as_black=int(np.sum((result > 0) & a_is_black)),
        wins_as_white=int(np.sum((result > 0) & ~a_is_black)),
        adjudicated=int(np.sum(~terminated)),
        mean_length=float(np.mean(length)),
        a_is_black=a_is_black,
        result=result,
        length=length,
        moves=moves,
    )
