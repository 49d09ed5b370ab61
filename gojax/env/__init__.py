"""A thin pgx-style environment over the gojax rules, for RL code written for pgx.

::

    env = gojax.env.GoEnv(gojax.GoConfig(size=9))
    init = jax.jit(jax.vmap(env.init))
    step = jax.jit(jax.vmap(gojax.env.auto_reset(env.step, env.init)))
    state = init(jax.random.split(key, 1024))
    state = step(state, actions, jax.random.split(key2, 1024))

**Observations** are named in the registry of :mod:`gojax.features`
(``gojax.features.OBSERVATIONS``): ``GoEnv(config, observation="basic")``
picks the 15 planes AlphaZero reads, the default ``"alphago_zero"`` the 17
planes of AlphaGo Zero. They are ``bool`` (every registered preset is 0/1;
convert at the network input, or ask for ``observation_dtype=jnp.float32``).

**Players.** Player 0 is always black and player 1 always white (no random
seat order, unlike pgx): ``rewards[0]`` is black's, ``current_player`` is
``0`` when black is to move. Observations are from the mover's point of view.

**Rewards** are ``float32[2]`` (player 0, player 1), non-zero only on the
``step`` that terminates the game: +1 the winner, -1 the loser, 0 each for a
draw (whole-number komi). A game stopped by the move cap is *truncated* and
gets 0 each (adjudicate with :func:`gojax.score` if you want to).

**Illegal actions** (occupied point, suicide, ko or superko repeat, an index
outside ``[0, P]``) are inherited from :func:`gojax.step`: the game
terminates and the mover loses (-1 to the mover, +1 to the opponent), as pgx
does. A ``step`` on a finished game changes nothing and gives 0 rewards.

**Legal mask** at a finished game is all ``True`` (as in pgx: no division by
zero when normalising a masked policy; any action is a no-op there).

**Cost.** The only expensive part of a reward is Tromp-Taylor scoring (a
flood fill of the empty regions). ``step`` scores a copy of the board whose
stones are cleared unless the game just ended by two passes; the flood fill
of an empty board stops after its first test, so scoring costs almost nothing
on the other steps - also under ``jax.vmap``, where the fill's loop runs as
long as the slowest game of the batch needs.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core.rules import init as game_init
from gojax._core.rules import legal_action_mask
from gojax._core.rules import step as game_step
from gojax._core.scoring import score_if_ended
from gojax._core.types import GoConfig, GoState
from gojax.features import (
    BoardHistory,
    HistoryObservation,
    ObservationSpec,
    history_init,
    history_push,
    observation,
)

__all__ = ["EnvState", "GoEnv", "auto_reset"]

NUM_PLAYERS = 2


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class EnvState:
    """One game seen by an RL loop (add a leading ``B`` to every field under ``jax.vmap``).

    Attributes:
      current_player: ``int32[]`` player to move: 0 black, 1 white.
      observation: ``[N, N, C]`` the chosen observation for the player to
        move (``bool`` for a registered preset, see
        :attr:`GoEnv.observation_dtype`), or ``None`` when the environment
        was built with ``observation=None``.
      legal_action_mask: ``bool[A]`` legal actions of the player to move; all
        ``True`` once the game is over.
      rewards: ``float32[2]`` reward of player 0 (black) and player 1 (white)
        from the last ``step``.
      terminated: ``bool[]`` over by two passes or an illegal action.
      truncated: ``bool[]`` stopped by the move cap.
      game: the :class:`gojax.GoState` (for search, scoring, rendering).
      history: the :class:`~gojax.features.BoardHistory` of the last 8 boards.
    """

    current_player: jax.Array
    observation: jax.Array | None
    legal_action_mask: jax.Array
    rewards: jax.Array
    terminated: jax.Array
    truncated: jax.Array
    game: GoState
    history: BoardHistory

    def replace(self, **changes) -> EnvState:
        """Returns a copy with the given fields replaced."""
        return dataclasses.replace(self, **changes)


@dataclasses.dataclass(frozen=True)
class GoEnv:
    """A pgx-style environment for one game; batch its methods with ``jax.vmap``.

    Attributes:
      config: the rules.
      observation: a name in ``gojax.features.OBSERVATIONS`` (default
        ``"alphago_zero"``, 17 planes; ``"basic"``, ``"alphago"``, ... or one
        you registered), an :class:`~gojax.features.ObservationSpec`, a
        function ``fn(config, game, history) -> [N, N, C]`` of your own, or
        ``None`` to skip the observation entirely - for search, where only
        the legal mask, rewards and the game are needed (the history of
        boards is still kept: an 8-row shift per step).
      observation_dtype: dtype of the observation; ``None`` (default) gives
        ``bool`` for a binary observation (every registered preset: its
        planes are 0/1) and the function's own dtype otherwise (your own
        function, or a spec not marked ``binary``). Pass ``jnp.float32`` to
        feed a network directly.
    """

    config: GoConfig
    observation: str | ObservationSpec | HistoryObservation | None = "alphago_zero"
    observation_dtype: Any = None

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
        if self.observation_dtype is not None:
            try:
                np.dtype(self.observation_dtype)
            except TypeError:
                raise ValueError(
                    f"observation_dtype must be a dtype or None, got {self.observation_dtype!r}"
                ) from None

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

    @property
    def num_players(self) -> int:
        """2."""
        return NUM_PLAYERS

    @property
    def num_actions(self) -> int:
        """``A = P + 1``."""
        return self.config.num_actions

    @property
    def observation_shape(self) -> tuple[int, ...] | None:
        """Shape of one observation (host side, no computation), or ``None``."""
        state = jax.eval_shape(self.init, None)
        return None if state.observation is None else tuple(state.observation.shape)

    def observe(self, game: GoState, history: BoardHistory) -> jax.Array | None:
        """The configured observation of ``game``, ``[N, N, C]`` (``None`` if there is none)."""
        spec = self.observation_spec
        if spec is None:
            return None
        planes = spec(self.config, game, history)
        if self.observation_dtype is not None:
            return planes.astype(self.observation_dtype)
        return planes.astype(jnp.bool_) if spec.binary else planes

    def _wrap(self, game: GoState, history: BoardHistory, rewards: jax.Array) -> EnvState:
        done = game.terminated | game.truncated
        mask = legal_action_mask(self.config, game) | done
        return EnvState(
            current_player=game.turn.astype(jnp.int32),
            observation=self.observe(game, history),
            legal_action_mask=mask,
            rewards=rewards,
            terminated=game.terminated,
            truncated=game.truncated,
            game=game,
            history=history,
        )

    def init(self, key: jax.Array | None = None) -> EnvState:
        """A new game, black (player 0) to move.

        Args:
          key: accepted for pgx compatibility and ignored (the start is
            deterministic).

        Returns:
          :class:`EnvState`.
        """
        del key
        game = game_init(self.config)
        return self._wrap(game, history_init(self.config, game), jnp.zeros((NUM_PLAYERS,), jnp.float32))

    def step(self, state: EnvState, action: jax.Array, key: jax.Array | None = None) -> EnvState:
        """Plays ``action`` (``int[]`` in ``[0, P]``, ``P`` = pass) for the player to move.

        Args:
          state: one game.
          action: the action; an illegal one ends the game as a loss for the
            mover.
          key: accepted for pgx compatibility and ignored (Go is deterministic).

        Returns:
          :class:`EnvState` after the move, rewards set if it ended the game.
        """
        del key
        config = self.config
        before = state.game
        was_over = before.terminated | before.truncated
        game = game_step(config, before, action)
        history = jax.tree.map(
            lambda old, new: jnp.where(was_over, old, new),
            state.history,
            history_push(config, state.history, game),
        )
        ended = game.terminated & ~was_over
        # Score only a game that just ended by passes (see module doc); a forfeit is decided by the loser.
        margin = score_if_ended(config, game, ended & (game.loser == 0))
        black = jnp.where(game.loser > 0, jnp.where(game.loser == 1, -1.0, 1.0), jnp.sign(margin))
        rewards = jnp.where(ended, jnp.stack([black, -black]), 0.0).astype(jnp.float32)
        return self._wrap(game, history, rewards)


def auto_reset(
    step_fn: Callable[[EnvState, jax.Array, jax.Array | None], EnvState],
    init_fn: Callable[[jax.Array | None], EnvState],
) -> Callable[[EnvState, jax.Array, jax.Array | None], EnvState]:
    """Wraps ``step_fn`` so that a game that ends is replaced by a new one, as pgx's ``auto_reset``.

    The returned state of a game that just ended is ``init_fn(key)``'s fresh
    game, carrying the finished game's ``terminated``, ``truncated`` and
    ``rewards`` (so the RL loop sees the end and the reward, and the
    observation and legal mask are already those of the new game). The next
    call clears those flags before stepping. The last observation of a
    truncated game is therefore not returned: keep it before stepping if you
    bootstrap from it.

    Args:
      step_fn: ``(state, action, key) -> state``, e.g. ``GoEnv.step``.
      init_fn: ``key -> state``, e.g. ``GoEnv.init``.

    Returns:
      ``wrapped(state, action, key=None) -> state``, for one game (vmap it).
      With a key, it is split between the step and the reset.
    """

    def wrapped(state: EnvState, action: jax.Array, key: jax.Array | None = None) -> EnvState:
        step_key = reset_key = None
        if key is not None:
            step_key, reset_key = jax.random.split(key)
        cleared = state.replace(
            terminated=jnp.zeros_like(state.terminated),
            truncated=jnp.zeros_like(state.truncated),
            rewards=jnp.zeros_like(state.rewards),
        )
        state = step_fn(cleared, action, step_key)
        over = state.terminated | state.truncated
        fresh = init_fn(reset_key).replace(
            terminated=state.terminated, truncated=state.truncated, rewards=state.rewards
        )
        return jax.tree.map(lambda new, old: jnp.where(over, new, old), fresh, state)

    return wrapped
