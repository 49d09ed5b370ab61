"""Batched self-play: ``B`` games at once, searched with the network, written to the replay buffer.

:func:`selfplay` plays ``T`` moves of ``B`` games in one ``lax.scan`` (jit it;
nothing here calls ``jax.jit``). At every move:

1. :func:`gojax.mcts.search` searches all ``B`` positions
   (Gumbel MuZero by default, a few simulations), its leaves valued by the
   network - or, with :attr:`SelfPlaySettings.playout_weight` above 0, by
   the network's value blended with a fast playout's result
   (:class:`gojax.mcts.MixedEvaluator`, AlphaGo's leaf evaluation). With **playout cap
   randomization** (KataGo; :attr:`SelfPlaySettings.full_search_fraction`
   below 1) a move is searched in full only with that probability (one draw
   for the whole batch), else with ``cheap_simulations``;
2. the position's planes and the search policy - the **policy target**:
   Gumbel MuZero's improved policy ``softmax(logits + sigma(completed Q))``,
   or PUCT's root visit frequencies - are written to the replay buffer
   (:func:`gojax.alphazero.replay_write`), not ready yet, the policy
   target's weight 1 after a full search and 0 after a cheap one (a cheap
   search's policy is too poor a target; its position still trains the
   value and the auxiliary heads);
3. the move is chosen: during the first ``explore_moves`` moves of a game it
   is **sampled** from the search policy (exploration, AlphaZero's
   temperature 1); after that it is the search's own choice - for Gumbel the
   action Sequential Halving selects (Gumbel noise over the considered moves
   included, as in the Gumbel MuZero paper), for PUCT the most visited move;
4. :func:`gojax.step` plays it; a game that ends (two passes, or the move
   cap) gets its outcome ``z`` written into the rows of all its positions -
   +1 for the positions where the eventual winner was to move, -1 for the
   others, 0 for a draw (a whole-number komi) - with the final owner of
   every point (Tromp-Taylor, :func:`gojax.playouts.ownership`) and the
   final score, both for the player to move, and the opponent's answer to
   each position's move (the move after it; ``-1`` for the last) - and those rows become ready
   (:func:`gojax.alphazero.replay_finish`). With
   :attr:`SelfPlaySettings.root_value_weight` ``w`` above 0 a row's value
   target is ``(1 - w) * z + w * v``, ``v`` the search's root value there. The slot then starts a new game
   on the empty board (**auto-reset**), so all ``B`` slots always play.

**Outcomes.** A game ends after two consecutive passes and is scored by
Tromp-Taylor area minus komi (:func:`gojax.winner`). A game stopped by the
**move cap** (``config.max_moves``, ``2 * N * N`` by default) is scored the
same way, by area, as it stands: it is a training example like any other
(``SelfPlayStats.truncated`` counts them).

**Resignation** (off unless :attr:`SelfPlaySettings.resign_threshold` is
above 0), as AlphaGo Zero's: the player to move resigns (:func:`gojax.resign`,
a loss) when the search's root value is below ``-resign_threshold``. A
fraction of the games (``resign_check_fraction``, drawn when a game starts)
never resign: there the first player that would have resigned is noted, and
when the game ends a win of that player counts as a **false resignation**
(``SelfPlayStats.resign_checks`` and ``false_resigns``: their ratio is the
rate at which resignation would have lost a won game). A resigned game's
ownership and score targets are those of the board as it stands.

**Komi per slot** (KataGo's komi randomization): ``selfplay_init(...,
komi=...)`` gives each slot its own komi (``SelfPlayState.komi``), kept for
every game the slot plays; its games are scored, and their observations
made, at that komi. :func:`selfplay_sharded` plays them (it plays each game
alone, at its own komi).

Games that are still running when ``T`` moves have been played continue in the
next call (their state is part of :class:`SelfPlayState`); their rows stay
not ready until they end. The replay buffer must hold at least ``B`` times the
move cap rows (:func:`gojax.alphazero.check_capacity`). A buffer with one
ring per game (``replay_init(..., slots=B)``) gets game ``b``'s positions in
ring ``b``: split over devices with the games, self-play then needs no
communication between devices but one sum of its counts per call.

Shapes: ``B`` games, ``L`` = move cap, ``N`` side, ``A = N * N + 1``.
"""

from __future__ import annotations

import dataclasses
import functools
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core import checks
from gojax._core.rules import init, reset_if_done, resign, step
from gojax._core.types import GoConfig, GoState
from gojax.alphazero._player import network_evaluator
from gojax.alphazero._replay import ReplayBuffer, replay_finish, replay_write
from gojax.alphazero._sharding import DATA_AXIS
from gojax.features import Observation, basic_planes, settled
from gojax.mcts import MIXED_POLICIES, MixedEvaluator, SearchSettings, black_result_if_ended, search
from gojax.playouts import ownership

__all__ = [
    "SelfPlaySettings",
    "SelfPlayState",
    "SelfPlayStats",
    "selfplay",
    "selfplay_init",
    "selfplay_sharded",
]

_DEFAULT_SEARCH = SearchSettings()


@dataclasses.dataclass(frozen=True)
class SelfPlaySettings:
    """How self-play searches and chooses its moves (frozen, hashable: close over it).

    Attributes:
      search: the search of every move (:class:`gojax.mcts.SearchSettings`).
      explore_moves: the first this many moves of each game are sampled from
        the search policy; later moves are the search's choice.
      observe: the network's observation ``(config, state) -> [N, N, C]``.
      full_search_fraction: the probability that a move is searched in full
        (playout cap randomization; 1: every move).
      cheap_simulations: the simulations of the other moves' searches.
      resign_threshold: resign when the root value is below minus this
        (0: never resign).
      resign_check_fraction: the fraction of games that never resign, to
        measure the false resignations.
      root_value_weight: the value target of a position is ``(1 - w) * z +
        w * v``: the game's outcome ``z`` blended with the search's root
        value ``v`` there (KataGo's and MuZero's way to lower the target's
        variance; 0: the outcome alone).
      playout_weight: the search values a leaf by ``(1 - w) * v + w * r``,
        the network's value ``v`` blended with the result ``r`` of one
        playout (:class:`gojax.mcts.MixedEvaluator`; 0: the network alone).
      playout_policy: that playout's policy, one of
        :data:`gojax.mcts.MIXED_POLICIES`.
      end_settled: a game ends as soon as its board is settled
        (:func:`gojax.features.settled`: every point a pass-alive stone or
        in pass-alive territory, no stone inside a territory), scored by
        Tromp-Taylor area as it stands - the score both players passing
        would give it - instead of being played on to two passes or the
        move cap.

    Raises:
      TypeError, ValueError: naming the field and the value.
    """

    search: SearchSettings = _DEFAULT_SEARCH
    explore_moves: int = 8
    observe: Observation = basic_planes
    full_search_fraction: float = 1.0
    cheap_simulations: int = 4
    resign_threshold: float = 0.0
    resign_check_fraction: float = 0.1
    root_value_weight: float = 0.0
    playout_weight: float = 0.0
    playout_policy: str = "heavy"
    end_settled: bool = False

    def __post_init__(self):
        if not isinstance(self.search, SearchSettings):
            raise TypeError(f"SelfPlaySettings.search must be a SearchSettings, got {self.search!r}")
        explore_moves = checks.integer(self.explore_moves, "SelfPlaySettings.explore_moves", least=0)
        object.__setattr__(self, "explore_moves", explore_moves)
        fraction = checks.number(
            self.full_search_fraction, "SelfPlaySettings.full_search_fraction", least=0.0, most=1.0
        )
        object.__setattr__(self, "full_search_fraction", fraction)
        cheap = checks.integer(self.cheap_simulations, "SelfPlaySettings.cheap_simulations", least=1)
        object.__setattr__(self, "cheap_simulations", cheap)
        for name in ("resign_threshold", "resign_check_fraction", "root_value_weight", "playout_weight"):
            value = checks.number(getattr(self, name), f"SelfPlaySettings.{name}", least=0.0, most=1.0)
            object.__setattr__(self, name, value)
        if self.playout_policy not in MIXED_POLICIES:
            raise ValueError(
                f"SelfPlaySettings.playout_policy must be one of {MIXED_POLICIES}, "
                f"got {self.playout_policy!r}"
            )
        if not isinstance(self.end_settled, bool):
            raise TypeError(f"SelfPlaySettings.end_settled must be a bool, got {self.end_settled!r}")

    @property
    def cheap_search(self) -> SearchSettings:
        """The search of the moves not searched in full: :attr:`search` with ``cheap_simulations``."""
        return self.search.replace(num_simulations=min(self.cheap_simulations, self.search.num_simulations))

    def evaluator(self, graphdef: Any, variables: Any):
        """The searches' evaluator: the network's, mixed with playouts when :attr:`playout_weight` > 0."""
        evaluate = network_evaluator(graphdef, variables, self.observe)
        if self.playout_weight <= 0.0:
            return evaluate
        return MixedEvaluator(evaluate, self.playout_weight, self.playout_policy)


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class SelfPlayState:
    """``B`` running self-play games (checkpoint it: a resumed run continues them).

    Attributes:
      games: :class:`gojax.GoState` with a leading ``[B]`` axis, never finished
        (a finished game is replaced by a new one at once).
      rows: ``int32[B, L]`` replay rows of each game's positions so far.
      moves: ``int16[B, L]`` each game's moves so far, ``-1`` after.
      last_moves: ``int16[B, L]`` the moves of the last game finished in each
        slot (``-1`` padded; all ``-1`` before the first), for SGF samples.
      last_result: ``float32[B]`` that game's result for black (+1, -1, 0).
      last_score: ``float32[B]`` its Tromp-Taylor score, black - white - komi.
      last_truncated: ``bool[B]`` whether it was stopped by the move cap.
      no_resign: ``bool[B]`` games that never resign (to check resignation).
      would_resign: ``int8[B]`` in those games, the colour (1 black, 2
        white) that would have resigned first; 0 none yet.
      komi: ``float32[B]`` the komi of each slot's games; ``None``: the
        config's komi in every slot.
    """

    games: GoState
    rows: jax.Array
    moves: jax.Array
    last_moves: jax.Array
    last_result: jax.Array
    last_score: jax.Array
    last_truncated: jax.Array
    no_resign: jax.Array
    would_resign: jax.Array
    komi: jax.Array | None = None


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class SelfPlayStats:
    """Counts over one :func:`selfplay` call (``int32[]`` each).

    Attributes:
      moves: positions searched and written (``B * T``).
      full: positions searched in full (their policy targets train).
      games: games finished.
      black_wins, white_wins, draws: their results.
      truncated: finished games stopped by the move cap (scored by area).
      settled: finished games ended on a settled board
        (:attr:`SelfPlaySettings.end_settled`; scored by area).
      resigned: finished games that a player resigned.
      resign_checks: finished games without resignation in which a player
        would have resigned.
      false_resigns: those of them that the would-be resigner won.
      length: total moves of the finished games.
    """

    moves: jax.Array
    full: jax.Array
    games: jax.Array
    black_wins: jax.Array
    white_wins: jax.Array
    draws: jax.Array
    truncated: jax.Array
    settled: jax.Array
    resigned: jax.Array
    resign_checks: jax.Array
    false_resigns: jax.Array
    length: jax.Array


def _fresh_games(config: GoConfig, batch: int) -> GoState:
    return jax.vmap(lambda _: init(config))(jnp.arange(batch))


def selfplay_init(config: GoConfig, batch_size: int, komi: Any = None) -> SelfPlayState:
    """``B = batch_size`` new games on the empty board.

    Args:
      config: the rules.
      batch_size: ``B``, the game slots.
      komi: ``float32[B]``, each slot's komi for all its games
        (:func:`selfplay_sharded` plays them); ``None``: ``config.komi``.

    Raises:
      TypeError: if ``batch_size`` is not an int.
      ValueError: if ``batch_size`` is below 1, or ``komi`` is not ``B``
        finite numbers.
    """
    batch_size = checks.integer(batch_size, "batch_size", least=1)
    if komi is not None:
        if not isinstance(komi, jax.Array):  # host values: checked here
            komi = np.asarray(komi, np.float32)
            if not np.all(np.isfinite(komi)):
                raise ValueError(f"selfplay_init: every komi must be a finite number, got {komi}")
        komi = jnp.asarray(komi, jnp.float32)
        if komi.shape != (batch_size,):
            raise ValueError(
                f"selfplay_init: komi must hold one komi per slot, shape ({batch_size},), got {komi.shape}"
            )
    cap = config.move_cap
    return SelfPlayState(
        komi=komi,
        games=_fresh_games(config, batch_size),
        rows=jnp.zeros((batch_size, cap), jnp.int32),
        moves=jnp.full((batch_size, cap), -1, jnp.int16),
        last_moves=jnp.full((batch_size, cap), -1, jnp.int16),
        last_result=jnp.zeros((batch_size,), jnp.float32),
        last_score=jnp.zeros((batch_size,), jnp.float32),
        last_truncated=jnp.zeros((batch_size,), bool),
        no_resign=jnp.zeros((batch_size,), bool),
        would_resign=jnp.zeros((batch_size,), jnp.int8),
    )


def _choose(settings: SelfPlaySettings, games: GoState, output: Any, key: jax.Array) -> jax.Array:
    """``int32[B]``: sampled from the search policy while exploring, else the search's choice."""
    weights = output.action_weights
    sampled = jax.random.categorical(key, jnp.log(jnp.maximum(weights, 0.0)), axis=-1)
    late = output.action if settings.search.algorithm == "gumbel" else jnp.argmax(weights, axis=-1)
    explore = games.move_number < settings.explore_moves
    return jnp.where(explore, sampled, late).astype(jnp.int32)


class _Output(NamedTuple):
    """What self-play reads of a search: the move, the policy target, the root value for the mover."""

    action: jax.Array
    action_weights: jax.Array
    value: jax.Array


def _search(config, settings, evaluate, games, key):
    """``(output, full)``: the move's search, in full or cheap (playout cap randomization)."""

    def run(chosen):
        out = search(config, evaluate, games, search_key, chosen)
        return _Output(out.action, out.action_weights, out.search_tree.node_values[:, 0])

    draw_key, search_key = jax.random.split(key)
    if settings.full_search_fraction >= 1.0:
        return run(settings.search), jnp.bool_(True)
    if settings.full_search_fraction <= 0.0:
        return run(settings.cheap_search), jnp.bool_(False)
    full = jax.random.uniform(draw_key) < settings.full_search_fraction
    return jax.lax.cond(full, lambda: run(settings.search), lambda: run(settings.cheap_search)), full


def _finish_games(config, settings, buffer, rows, moves, ply, after, ended):
    """Writes the outcome, final ownership and score of the games that ``ended`` into their rows, and the
    opponent's answer to each position's move (``moves`` ``int16[B, L]``, ``-1`` after the last)."""
    cap = rows.shape[1]
    # Only the games that just ended are scored: the others pay almost nothing for it.
    # z of the position at ply j: the result for the colour to move there (black at even plies).
    black_result, margin = black_result_if_ended(config, after, ended)
    plies = jnp.arange(cap)
    sign = jnp.where(plies % 2 == 0, 1, -1).astype(jnp.int8)
    written = plies[None, :] <= ply[:, None]
    finish = ended[:, None] & written
    # Owners only of the games that ended: the others' boards are cleared, so when no game ended the
    # flood fill stops after its first test, and otherwise it runs as long as the ended games need.
    cleared = after.replace(stones=jnp.where(ended[:, None, None], after.stones, jnp.uint32(0)))
    black_owner = jax.vmap(functools.partial(ownership, config))(cleared).astype(jnp.int8)  # [B, P]
    owner = black_owner[:, None, :] * sign[None, :, None]  # [B, L, P]
    z, score = black_result[:, None] * sign[None, :], margin[:, None] * sign[None, :]
    answer = jnp.concatenate([moves[:, 1:], jnp.full_like(moves[:, :1], -1)], axis=1)  # [B, L]

    def finish_rows(buffer, rows, z, finish, owner, score, answer):
        weight = settings.root_value_weight
        return replay_finish(buffer, rows, z, finish, owner, score, weight, opponent_move=answer)

    if buffer.slots is None:
        buffer = finish_rows(buffer, rows, z, finish, owner, score, answer)
    else:  # game b's rows are in ring b
        buffer = jax.vmap(finish_rows)(buffer, rows, z, finish, owner, score, answer)
    return buffer, black_result, margin, written


def _play(config, settings, actor, action, value):
    """``(after, resigned, would_resign)``: the move played, or the mover's resignation.

    ``value`` is the search's root value for the mover (``f32[B]``); below
    ``-resign_threshold`` the mover resigns, except in the games that never
    resign, where the first colour that would have resigned is noted.
    """
    games = actor.games
    after = jax.vmap(functools.partial(step, config))(games, action)
    if settings.resign_threshold <= 0.0:
        return after, jnp.zeros_like(games.done), actor.would_resign
    hopeless = value < -settings.resign_threshold
    resigned = hopeless & ~actor.no_resign
    gave_up = jax.vmap(functools.partial(resign, config))(games)
    after = jax.tree.map(lambda r, a: jnp.where(_rows(resigned, a), r, a), gave_up, after)
    first = hopeless & actor.no_resign & (actor.would_resign == 0)
    would_resign = jnp.where(first, (games.turn + 1).astype(jnp.int8), actor.would_resign)
    return after, resigned, would_resign


def _end_settled(config, settings, after):
    """``(after, settled)``: the games whose board is settled, marked over (``end_settled``; else none)."""
    if not settings.end_settled:
        return after, jnp.zeros_like(after.done)
    now = jax.vmap(functools.partial(settled, config))(after) & ~after.done
    return after.replace(terminated=after.terminated | now), now


def _rows(mask: jax.Array, like: jax.Array) -> jax.Array:
    """``mask`` (``[B]``) broadcast against ``like`` (``[B, ...]``)."""
    return mask.reshape(mask.shape + (1,) * (like.ndim - 1))


def _one_move(config, settings, graphdef, variables, constrain, carry, key):
    actor, buffer = carry
    games = actor.games
    search_key, choice_key, start_key = jax.random.split(key, 3)
    evaluate = settings.evaluator(graphdef, variables)
    output, full = _search(config, settings, evaluate, games, search_key)
    action = constrain(_choose(settings, games, output, choice_key))
    planes = jax.vmap(functools.partial(settings.observe, config))(games)
    batch = actor.rows.shape[0]
    weight = jnp.broadcast_to(full.astype(jnp.float32), (batch,))
    if buffer.slots is None:
        buffer, new_rows = replay_write(
            buffer, planes, output.action_weights, policy_weight=weight, root_value=output.value
        )
    else:  # game b writes into ring b
        write = jax.vmap(
            lambda b, x, p, w, v: replay_write(b, x[None], p[None], policy_weight=w[None], root_value=v[None])
        )
        buffer, new_rows = write(buffer, planes, output.action_weights, weight, output.value)
        new_rows = new_rows[:, 0]

    slot = jnp.arange(batch)
    ply = games.move_number.astype(jnp.int32)
    rows = actor.rows.at[slot, ply].set(new_rows)
    moves = actor.moves.at[slot, ply].set(action.astype(jnp.int16))
    after, resigned, would_resign = _play(config, settings, actor, action, output.value)
    after, settled_now = _end_settled(config, settings, after)
    moves = jnp.where(resigned[:, None] & (jnp.arange(moves.shape[1]) == ply[:, None]), -1, moves)
    ended = after.done
    buffer, black_result, margin, written = _finish_games(
        config, settings, buffer, rows, moves, ply, after, ended
    )
    checked = ended & (would_resign > 0)
    false_resign = checked & (jnp.where(would_resign == 1, black_result > 0, black_result < 0))
    fresh_no_resign = jax.random.uniform(start_key, (batch,)) < settings.resign_check_fraction

    actor = SelfPlayState(
        games=jax.vmap(functools.partial(reset_if_done, config))(after),
        rows=rows,
        moves=jnp.where(ended[:, None], jnp.int16(-1), moves),
        last_moves=jnp.where(ended[:, None], jnp.where(written, moves, jnp.int16(-1)), actor.last_moves),
        last_result=jnp.where(ended, black_result, actor.last_result),
        last_score=jnp.where(ended, margin, actor.last_score),
        last_truncated=jnp.where(ended, after.truncated, actor.last_truncated),
        no_resign=jnp.where(ended, fresh_no_resign, actor.no_resign),
        would_resign=jnp.where(ended, jnp.int8(0), would_resign),
    )
    # Per game (int32[B]), summed over games and moves once at the end of selfplay: split over
    # devices, the sums are then one all-reduce per call instead of one per move.
    count = lambda mask: mask.astype(jnp.int32)  # noqa: E731
    stats = SelfPlayStats(
        moves=jnp.ones((batch,), jnp.int32),
        full=jnp.broadcast_to(full.astype(jnp.int32), (batch,)),
        games=count(ended),
        black_wins=count(ended & (black_result > 0)),
        white_wins=count(ended & (black_result < 0)),
        draws=count(ended & (black_result == 0)),
        truncated=count(ended & after.truncated),
        settled=count(ended & settled_now),
        resigned=count(ended & resigned),
        resign_checks=count(checked),
        false_resigns=count(false_resign),
        length=jnp.where(ended, ply + 1, 0),
    )
    return (actor, buffer), stats


def selfplay(
    config: GoConfig,
    settings: SelfPlaySettings,
    graphdef: Any,
    variables: Any,
    actor: SelfPlayState,
    buffer: ReplayBuffer,
    key: jax.Array,
    num_moves: int,
    batch_constraint: Any = None,
) -> tuple[SelfPlayState, ReplayBuffer, SelfPlayStats]:
    """Plays ``T = num_moves`` moves in each of the ``B`` games (see the module docstring).

    Pure; jit it with ``config``, ``settings``, ``graphdef`` and ``num_moves``
    static (donate ``actor`` and ``buffer`` to update them in place).

    Args:
      config: the rules (its move cap is ``L``).
      settings: search and exploration settings.
      graphdef, variables: the network (:func:`gojax.alphazero.split`),
        evaluated in eval mode.
      actor: the running games (:func:`selfplay_init`).
      buffer: the replay buffer, at least ``B * L`` rows
        (:func:`gojax.alphazero.check_capacity`); or ``B`` rings of at least
        ``L + 1`` rows (``replay_init(..., slots=B)``), game ``b`` writing
        into ring ``b``.
      key: PRNG key.
      num_moves: ``T``, moves per game in this call (static).
      batch_constraint: optional function applied to the ``[B]`` actions to
        keep them split over devices (:func:`gojax.alphazero.constrain_batch`).

    Returns:
      ``(actor, buffer, stats)``: the games after ``T`` moves, the buffer
      with ``B * T`` new rows (ready once their game has ended), and
      :class:`SelfPlayStats` summed over the ``T`` moves.

    Raises:
      ValueError: for a ringed buffer that does not have ``B`` rings of ``L + 1`` rows.
    """
    batch, cap = actor.rows.shape
    if actor.komi is not None:
        raise ValueError(
            "selfplay plays every game at config.komi; games with a komi per slot "
            "(selfplay_init(..., komi=...)) are played by selfplay_sharded"
        )
    if buffer.slots is not None and (buffer.slots != batch or buffer.capacity < cap + 1):
        raise ValueError(
            f"a replay buffer of {buffer.slots} rings of {buffer.capacity} rows does not fit {batch} games "
            f"of up to {cap} moves: it needs {batch} rings of at least {cap + 1} rows"
        )
    constrain = batch_constraint if batch_constraint is not None else (lambda x: x)
    move = functools.partial(_one_move, config, settings, graphdef, variables, constrain)
    (actor, buffer), stats = jax.lax.scan(move, (actor, buffer), jax.random.split(key, num_moves))
    return actor, buffer, jax.tree.map(jnp.sum, stats)


def _one_game_each(config, settings, graphdef, variables, actor, buffer, keys, num_moves):
    """:func:`selfplay` of each game alone with its own key (``keys`` ``[B]``), vmapped: per-game stats."""

    def one(game, ring, key):
        single = lambda tree: jax.tree.map(lambda x: x[None], tree)  # noqa: E731
        rules = config if game.komi is None else config.with_komi(game.komi)  # komi as data
        alone = dataclasses.replace(game, komi=None)
        alone, ring, stats = selfplay(
            rules, settings, graphdef, variables, single(alone), single(ring), key, num_moves
        )
        game = dataclasses.replace(jax.tree.map(lambda x: x[0], alone), komi=game.komi)
        return game, jax.tree.map(lambda x: x[0], ring), stats

    return jax.vmap(one)(actor, buffer, keys)


def selfplay_sharded(
    config: GoConfig,
    settings: SelfPlaySettings,
    graphdef: Any,
    variables: Any,
    actor: SelfPlayState,
    buffer: ReplayBuffer,
    key: jax.Array,
    num_moves: int,
    mesh: Any,
) -> tuple[SelfPlayState, ReplayBuffer, SelfPlayStats]:
    """:func:`selfplay` with each device playing its own games, and each game its own random numbers.

    ``key`` is split into one key per game (``jax.random.split(key, B)``);
    game ``b`` is played from its key alone, so its moves do not depend on
    the other games nor on how the games are split: the result is the same
    on one device or ``D``, in one process or several. Each device plays its
    ``B / D`` games (a :func:`jax.shard_map` over the mesh axis
    :data:`gojax.alphazero.DATA_AXIS`) and writes them into its rings of the
    buffer: the devices exchange nothing during the call but the sum of the
    counts at its end. Jit it with the games and the buffer split over
    ``mesh`` (``PartitionSpec("data")``), the network replicated.

    Args:
      config, settings, graphdef, variables, num_moves: as :func:`selfplay`;
        ``settings.full_search_fraction`` must be 0 or 1 (draw playout cap
        randomization per call: each game drawing its own would run both
        searches).
      actor: the ``B`` running games.
      buffer: ``B`` rings of at least ``L + 1`` rows (``replay_init(..., slots=B)``).
      key: PRNG key.
      mesh: a 1-D mesh (:func:`gojax.alphazero.make_mesh`) whose size divides ``B``.

    Returns:
      ``(actor, buffer, stats)`` as :func:`selfplay`.

    Raises:
      ValueError: for a buffer without ``B`` rings, a fraction strictly
        between 0 and 1, or ``B`` not a multiple of the mesh size.
    """
    batch = actor.rows.shape[0]
    if buffer.slots != batch:
        raise ValueError(
            f"selfplay_sharded needs a replay buffer of {batch} rings (replay_init(..., slots=B))"
        )
    if 0.0 < settings.full_search_fraction < 1.0:
        raise ValueError(
            "selfplay_sharded needs full_search_fraction 0 or 1: draw playout cap randomization per call"
        )
    if batch % mesh.devices.size:
        raise ValueError(f"{batch} games do not split over {mesh.devices.size} devices")
    from jax.sharding import PartitionSpec

    def local(variables, actor, buffer, keys):
        actor, buffer, stats = _one_game_each(
            config, settings, graphdef, variables, actor, buffer, keys, num_moves
        )
        return actor, buffer, jax.tree.map(lambda x: jax.lax.psum(jnp.sum(x), DATA_AXIS), stats)

    split, whole = PartitionSpec(DATA_AXIS), PartitionSpec()
    # check_vma=False: mctx's loops start from values that are the same on every device.
    run = jax.shard_map(
        local,
        mesh=mesh,
        in_specs=(whole, split, split, split),
        out_specs=(split, split, whole),
        check_vma=False,
    )
    return run(variables, actor, buffer, jax.random.split(key, batch))
