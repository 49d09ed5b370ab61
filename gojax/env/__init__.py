"""Go with pgx's environment interface: change one line of a pgx program to run it on gojax.

::

    env = gojax.make("go_19x19")          # was: env = pgx.make("go_19x19")
    init = jax.jit(jax.vmap(env.init))
    step = jax.jit(jax.vmap(env.step))     # or pgx.experimental.auto_reset(env.step, env.init)
    state = init(jax.random.split(key, 1024))
    state = step(state, actions, jax.random.split(key2, 1024))

:func:`make` takes ``"go_NxN"`` for any side 2..25 and the rules as keywords
(``komi``, ``ko_rule``, ``suicide``, ``max_moves``); :class:`GoEnv` is the
environment itself (``GoEnv(config, observation=...)`` for any observation of
the registry ``gojax.features.OBSERVATIONS``); :func:`auto_reset` restarts
finished games as pgx's wrapper does.

**State** (:class:`EnvState`): the public fields are exactly pgx's -
``current_player`` (``int32``), ``observation``, ``rewards`` (``float32[2]``,
by player), ``terminated``, ``truncated``, ``legal_action_mask`` (``bool[A]``,
all ``True`` once over) - and the rest is private: ``_step_count``,
``_black`` (the player who plays black), ``_game`` (the
:class:`gojax.GoState`) and ``_history`` (the last 8 boards).
``state.env_id``, ``state.save_svg(path)`` (a batch draws as a grid) as in pgx.

**As in pgx**: the seats are drawn at ``init`` (player 0 is black in about
half of the games; ``init(None)`` seats player 0 as black); ``make``'s
default observation is pgx's 17 ``bool`` planes, colour plane included; a
game that reaches the move cap (``2 * N * N`` moves by default) is scored and
*terminated*; an illegal action ends the game, -1 for the mover and +1 for the
other player; a ``step`` on a state flagged ``terminated`` or ``truncated``
changes nothing and gives 0 rewards - also on the new game :func:`auto_reset`
returns, which still carries the finished game's flags (the wrapper clears
them before its next step).

**Where gojax's rules differ from pgx's** (the table is in ``docs/env.md``):
a move that repeats an earlier position (positional superko) is not in the
legal mask - pgx lists it and ends the game as a loss when it is played
(``make(..., mask_repeats=False)`` does the same);
Tromp-Taylor scoring decides, and a draw (a whole-number komi) gives 0 each
where pgx gives the game to white; an illegal action leaves the board as it
was.

**Cost.** Tromp-Taylor scoring (a flood fill of the empty regions) runs on a
cleared board unless the game just ended by passes or the move cap, so it
costs almost nothing on the other steps, also under ``jax.vmap``.
"""

from gojax.env._auto_reset import auto_reset
from gojax.env._env import GoEnv
from gojax.env._make import make
from gojax.env._state import EnvState

__all__ = ["EnvState", "GoEnv", "auto_reset", "make"]
