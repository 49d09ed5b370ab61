""":class:`GoEnv`: pgx's ``Env`` interface over the gojax rules (see :mod:`gojax.env`)."""

from __future__ import annotations

import dataclasses
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core.rules import init as game_init
from gojax._core.rules import legal_action_mask, step_with_mask
from gojax._core.rules import step as game_step
from gojax._core.scoring import score_if_ended
from gojax._core.types import GoConfig, GoState
from gojax.env._state import EnvState
from gojax.features import (
    BoardHistory,
    HistoryObservation,
    ObservationSpec,
    history_init,
    history_push,
    observation,
)

__all__ = ["GoEnv"]

NUM_PLAYERS = 2
VERSION = "gojax-v1"


@dataclasses.dataclass(frozen=True)
class GoEnv:
    """Go with pgx's ``Env`` interface for one game; batch its methods with ``jax.vmap``.

    ``gojax.make("go_19x19")`` builds one as pgx's ``pgx.make`` does (with
    pgx's observation); build it yourself for another observation.

    Attributes:
      config: the rules (``GoConfig(size=19)`` is pgx's: komi 7.5,
        positional superko, no suicide, a cap of ``2 * N * N`` moves).
      observation: a name in ``gojax.features.OBSERVATIONS`` (default
        ``"alphago_zero"``, the paper's 17 planes; ``"pgx"`` the same planes
        with pgx's colour plane; ``"basic"``, ``"katago"``, ... or one you
        registered), an :class:`~gojax.features.ObservationSpec`, a function
        ``fn(config, game, history) -> [N, N, C]`` of your own, or ``None``
        to skip the observation entirely - for search, where only the legal
        mask, rewards and the game are needed.
      observation_dtype: dtype of the planes; ``None`` (default) gives
        ``bool`` for a 0/1 observation (every registered preset) and the
        function's own dtype otherwise. The network converts them to float
        at its first layer (``gojax.alphazero``'s does); pass ``jnp.float32``
        to have float planes stored instead (4 times larger).
      mask_repeats: ``True`` (default): a move that would recreate an
        earlier position (superko, under ``config.ko_rule``) is left out of
        ``legal_action_mask``. ``False``: as pgx's Go, it stays in the mask
        (only the simple ko recapture is left out) and playing it ends the
        game as a loss for the mover - with the board and the player to
        move as they were, where pgx plays the move. A program written for
        pgx then sees pgx's masks, rewards and ends bit for bit, the
        searches that reach a repeat included.
    """

    config: GoConfig
    observation: str | ObservationSpec | HistoryObservation | None = "alphago_zero"
    observation_dtype: Any = None
    mask_repeats: bool = True

    def __post_init__(self):
        if not isinstance(self.config, GoConfig):
            raise ValueError(f"config must be a gojax.GoConfig, got {self.config!r}")
        if isinstance(self.observation, (str, ObservationSpec)):
            observation(self.observation)  # an unknown name raises, listing the registered ones
        elif self.observation is not None and not callable(self.observation):
            raise ValueError(
                f"observation must be a registered name, an ObservationSpec, a function or None; "
                f"got {self.observation!r}"
            )
        if not isinstance(self.mask_repeats, bool):
            raise ValueError(f"mask_repeats must be True or False, got {self.mask_repeats!r}")
        if self.observation_dtype is not None:
            try:
                np.dtype(self.observation_dtype)
            except TypeError:
                raise ValueError(
                    f"observation_dtype must be a dtype or None, got {self.observation_dtype!r}"
                ) from None

    # ------------------------------------------------------------------ pgx's attributes

    @property
    def id(self) -> str:
        """``"go_NxN"`` (pgx's ids ``"go_9x9"`` and ``"go_19x19"``, and the other sizes alike)."""
        return f"go_{self.config.size}x{self.config.size}"

    @property
    def version(self) -> str:
        """``"gojax-v1"`` (pgx's Go is ``"v1"``; where the rules differ: docs/env.md)."""
        return VERSION

    @property
    def num_players(self) -> int:
        """2."""
        return NUM_PLAYERS

    @property
    def num_actions(self) -> int:
        """``A = P + 1`` (the last action is pass)."""
        return self.config.num_actions

    @property
    def observation_shape(self) -> tuple[int, ...] | tuple[tuple[int, ...], ...] | None:
        """Shape of one observation, ``(N, N, C)`` (host side, no computation).

        A ``(planes, globals)`` observation gives both shapes, ``((N, N, C), (G,))``;
        ``None`` without an observation.
        """
        shaped = jax.eval_shape(self.init, None).observation
        if shaped is None:
            return None
        if isinstance(shaped, tuple):
            return tuple(tuple(part.shape) for part in shaped)
        return tuple(shaped.shape)

    @property
    def observation_spec(self) -> ObservationSpec | None:
        """The :class:`~gojax.features.ObservationSpec` observed (``None`` without an observation).

        A function of your own is wrapped as a spec that reads the history
        and is not ``binary``.
        """
        if self.observation is None:
            return None
        if isinstance(self.observation, (str, ObservationSpec)):
            return observation(self.observation)
        name = getattr(self.observation, "__name__", "custom")
        return ObservationSpec(name, self.observation, needs_history=True)

    # ------------------------------------------------------------------ pgx's methods

    def init(self, key: jax.Array | None) -> EnvState:
        """A new game, black to move; the seats are drawn from ``key``.

        Args:
          key: a PRNG key: player 0 plays black when ``jax.random.bernoulli(key)``
            is ``False`` (the draw pgx makes, so the same key seats the same
            way as in pgx), white otherwise. ``None``: player 0 plays black.

        Returns:
          :class:`EnvState` with zero rewards and ``_step_count`` 0.
        """
        game, history = self._new_game()
        return self._wrap(game, history, _seats(key), jnp.int32(0), jnp.zeros(2, jnp.float32))

    def step(self, state: EnvState, action: jax.Array, key: jax.Array | None = None) -> EnvState:
        """Plays ``action`` (``int[]`` in ``[0, P]``, ``P`` = pass) for the player to move.

        Args:
          state: one game.
          action: the action. An illegal one (occupied point, suicide, a ko
            or superko repeat, an index outside ``[0, P]``) ends the game as
            a loss for the mover, as in pgx. On a finished game - one
            whose ``terminated`` or ``truncated`` is set, which includes the
            new game :func:`auto_reset` returns in place of a finished one -
            nothing changes, as pgx's ``step`` does: the rewards are 0,
            ``_step_count`` is kept, and every action is legal once
            ``terminated`` is set (on a state flagged only ``truncated``, by
            hand, an action its mask forbids loses and terminates it, as in
            pgx). Whether a move repeats an earlier
            position is read from ``state.legal_action_mask`` (which ``init``
            and ``step`` compute for the state they return), not searched for
            again: see :func:`gojax.step_with_mask`.
          key: accepted for pgx compatibility and ignored (Go is deterministic).

        Returns:
          :class:`EnvState` after the move, rewards set if it ended the game.
        """
        del key
        game, history, black, steps, rewards = self._advance(state, action)
        stepped = self._wrap(game, history, black, steps, rewards, previous=state.observation)
        # pgx: a state flagged terminated or truncated (auto_reset's new game too) stays as it is: rewards 0,
        # the flags kept, every action legal once terminated (pgx opens the mask on `terminated` alone). An
        # action its mask forbids still loses there (only a state flagged truncated by hand has such a mask).
        flagged = state.terminated | state.truncated
        forfeit = flagged & ~state.legal_action_mask[action]
        lost = jnp.where(jnp.arange(NUM_PLAYERS) == state.current_player, -1.0, 1.0).astype(jnp.float32)
        terminated = stepped.terminated | state.terminated | forfeit
        stepped = stepped.replace(
            rewards=jnp.where(forfeit, lost, stepped.rewards),
            terminated=terminated,
            truncated=stepped.truncated | state.truncated,
            legal_action_mask=stepped.legal_action_mask | terminated,
        )
        if self.observation_spec is not None and self.observation_spec.from_previous is not None:
            observation = jax.tree.map(
                lambda old, new: jnp.where(flagged, old, new), state.observation, stepped.observation
            )
            stepped = stepped.replace(observation=observation)
        return stepped

    def step_and_reset(self, state: EnvState, action: jax.Array, key: jax.Array | None = None) -> EnvState:
        """:meth:`step`, then a new game in place of one that ended: what :func:`auto_reset` does.

        ``auto_reset(env.step, env.init)`` runs this for a :class:`GoEnv`.
        The finished game is replaced *before* the observation and the legal
        mask are computed, so they are computed once, for the new game,
        instead of for the finished one and then for a fresh one.

        Args:
          state: one game.
          action: as for :meth:`step`.
          key: split between the step and the new game's seat draw, as in
            :func:`auto_reset`; ``None``: player 0 plays black in a new game.

        Returns:
          The state after the move; if that ended the game, a new game
          carrying the finished game's ``terminated``, ``truncated`` and
          ``rewards``.
        """
        reset_key = None if key is None else jax.random.split(key)[1]
        game, history, black, steps, rewards = self._advance(state.cleared(), action)
        over = game.terminated | game.truncated  # both end an environment's game (see EnvState)
        fresh_game, fresh_history = self._new_game()  # constants of the compiled step

        def renew(old, new):
            return jax.tree.map(lambda o, n: jnp.where(over, n, o), old, new)

        game, history = renew(game, fresh_game), renew(history, fresh_history)
        black, steps = jnp.where(over, _seats(reset_key), black), jnp.where(over, 0, steps)
        wrapped = self._wrap(game, history, black, steps, rewards, previous=state.observation)
        return wrapped.replace(terminated=over)

    def _new_game(self) -> tuple[GoState, BoardHistory]:
        """The empty board and its history (no input: constants under ``jit``)."""
        game = game_init(self.config)
        return game, history_init(self.config, game)

    def _advance(self, state: EnvState, action: jax.Array) -> tuple:
        """``(game, history, black, steps, rewards)`` after ``action`` (see :meth:`step`)."""
        config = self.config
        before = state._game
        # Over as pgx reads it: the state's own flags (still set on the new game auto_reset returns) or the
        # game's. Such a game is marked finished for the step, which then changes nothing, and unmarked.
        flagged = state.terminated | state.truncated
        was_over = flagged | before.terminated | before.truncated
        marked = before.replace(terminated=before.terminated | flagged)
        if self.mask_repeats:
            # The mask was computed for this position by the last step (or init): it decides ko and superko.
            game = step_with_mask(config, marked, action, state.legal_action_mask)
        else:  # the mask lists repeats: the step searches the history itself, and a repeat forfeits
            game = game_step(config, marked, action)
        game = game.replace(terminated=jnp.where(flagged, before.terminated, game.terminated))
        history = jax.tree.map(
            lambda old, new: jnp.where(was_over, old, new),
            state._history,
            history_push(config, state._history, game),
        )
        ended = (game.terminated | game.truncated) & ~was_over
        # Score only a game that just ended by passes or the move cap; a forfeit is decided by the loser.
        margin = score_if_ended(config, game, ended & (game.loser == 0))
        black = jnp.where(game.loser > 0, jnp.where(game.loser == 1, -1.0, 1.0), jnp.sign(margin))
        black = jnp.where(ended, black, 0.0)
        # Player p plays colour p ^ _black: flip the (black, white) pair when player 0 is white.
        rewards = (jnp.stack([black, -black]) * (1 - 2 * state._black)).astype(jnp.float32)
        rewards = jnp.where(rewards == 0, jnp.float32(0), rewards)  # 0.0, never -0.0
        steps = state._step_count + (~was_over).astype(jnp.int32)
        return game, history, state._black, steps, rewards

    def observe(self, state: EnvState) -> Any:
        """The configured observation of ``state`` for the player to move (``None`` if there is none)."""
        return self._observe(state._game, state._history)

    # ------------------------------------------------------------------ internals

    def _observe(self, game: GoState, history: BoardHistory, previous: Any = None) -> Any:
        """The observation; ``previous``: the game's observation before its last move (a new game's
        is not read), for a spec that can use it (``ObservationSpec.from_previous``)."""
        spec = self.observation_spec
        if spec is None:
            return None
        if previous is not None and spec.from_previous is not None:
            planes = spec.from_previous(self.config, game, history, previous)
        else:
            planes = spec(self.config, game, history)
        extra = None
        if isinstance(planes, tuple):
            planes, extra = planes
        if self.observation_dtype is not None:
            planes = planes.astype(self.observation_dtype)
        elif spec.binary:
            planes = planes.astype(jnp.bool_)
        return planes if extra is None else (planes, extra)

    def _wrap(self, game: GoState, history: BoardHistory, black, steps, rewards, previous=None) -> EnvState:
        over = game.terminated | game.truncated
        return EnvState(
            current_player=(game.turn.astype(jnp.int32) ^ black).astype(jnp.int32),
            observation=self._observe(game, history, previous),
            rewards=rewards,
            terminated=over,
            truncated=jnp.zeros_like(over),
            legal_action_mask=legal_action_mask(self.config, game, superko=self.mask_repeats) | over,
            _step_count=steps,
            _black=black,
            _game=game,
            _history=history,
        )


def _seats(key: jax.Array | None) -> jax.Array:
    """``int32[]``: the player who plays black, drawn from ``key`` as pgx does (0 for ``None``)."""
    return jnp.int32(0) if key is None else jax.random.bernoulli(key).astype(jnp.int32)
