"""The rules of Go as pure functions on one game: ``init``, ``step``, legal moves.

Every function takes the static :class:`~gojax.GoConfig` first and works on a
single game; batch with ``jax.vmap`` (e.g.
``jax.jit(jax.vmap(functools.partial(gojax.step, config)))``). Nothing here
calls ``jax.jit`` or raises on traced values.

Illegal actions inside ``step``: the board is left untouched, the game ends
(``terminated``), the mover is recorded as the loser (``loser``) and
``illegal_move`` is set - the behaviour pgx uses, so a learning agent is
punished and nothing is ever corrupted. A ``step`` on a game that is already
over (terminated or truncated) returns it unchanged.

A state built for another config (board size, ko rule, move cap), a batch
of states passed without ``jax.vmap`` or a non-integer action raise a
``ValueError`` / ``TypeError`` naming what does not fit; the check is made on
shapes and dtypes while the function is traced and costs nothing at run time.

``step`` runs in named phases: :mod:`gojax._core.play` places the stone,
captures (reading the liberty labels of the chains in atari) and removes a suicide;
:mod:`gojax._core.bookkeeping` hashes the new position, tests it against the
ko rule, updates the chains in atari and the history, and chooses the outcome.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from gojax._core import atari as _atari
from gojax._core import bitboard as bb
from gojax._core import bookkeeping as _bookkeeping
from gojax._core import guards as _guards
from gojax._core import history as _history
from gojax._core import native as _native
from gojax._core import play as _play
from gojax._core.types import GoConfig, GoState

__all__ = [
    "board",
    "init",
    "legal_action_mask",
    "reset_if_done",
    "resign",
    "step",
    "step_with_mask",
    "to_play",
]


def init(config: GoConfig) -> GoState:
    """An empty board with black to move.

    Args:
      config: the rules.

    Returns:
      A :class:`GoState` for one game.
    """
    words = bb.num_words(config.size)
    lists = _history.empty(config)
    if config.history_length:
        start = _history.PositionKey(
            situation=_bookkeeping.situation_key(config, 0), count=jnp.int32(0), white=jnp.int32(0)
        )
        lists = _history.record(config, lists, 0, start)
    return GoState(
        stones=jnp.zeros((2, words), jnp.uint32),
        atari=jnp.zeros((2, words), jnp.uint32),
        atari_liberty=jnp.zeros((config.liberty_label_planes, words), jnp.uint32),
        turn=jnp.int8(0),
        hash=jnp.zeros((2,), jnp.uint32),
        history=lists.entries,
        history_head=lists.heads,
        history_prev=lists.links,
        move_number=jnp.int32(0),
        passes=jnp.int8(0),
        ko_point=jnp.int16(-1),
        captures=jnp.zeros((2,), jnp.int16),
        last_move=jnp.int16(-1),
        terminated=jnp.bool_(False),
        truncated=jnp.bool_(False),
        loser=jnp.int8(0),
        illegal_move=jnp.bool_(False),
    )


def to_play(config: GoConfig, state: GoState) -> jax.Array:
    """Stone value of the player to move: ``int8[]``, 1 black or 2 white."""
    _guards.check_state(config, state, "gojax.to_play")
    return (state.turn + 1).astype(jnp.int8)


def board(config: GoConfig, state: GoState) -> jax.Array:
    """The board as ``int8[N, N]``: 0 empty, 1 black, 2 white (row 0 at the top)."""
    _guards.check_state(config, state, "gojax.board")
    grid = bb.to_grid(state.stones, config.size)
    return (grid[0].astype(jnp.int8) + 2 * grid[1].astype(jnp.int8)).astype(jnp.int8)


@bb.scoped
def step(config: GoConfig, state: GoState, action: jax.typing.ArrayLike) -> GoState:
    """Plays ``action`` for the player to move.

    Args:
      config: the rules.
      state: one game.
      action: ``int[]`` in ``[0, P]``: point ``row * N + col`` or ``P`` for pass
        (a Python or NumPy int, or an array of any integer dtype). Any other
        value, like any illegal move, ends the game as a loss for the mover
        with the board untouched (see the module docstring).

    Returns:
      The next state. Captured chains are removed, captures counted, the hash
      updated incrementally and recorded in the history; two consecutive
      passes terminate the game and reaching the move cap truncates it.

    Raises:
      ValueError: ``state`` was not built for ``config`` (or is a batch).
      TypeError: ``action`` is not an integer (e.g. a float).
    """
    _guards.check_state(config, state, "gojax.step")
    _guards.check_action(action, "gojax.step")
    return _play_move(config, state, action, None)


@bb.scoped
def step_with_mask(
    config: GoConfig, state: GoState, action: jax.typing.ArrayLike, mask: jax.Array
) -> GoState:
    """:func:`step` for a caller that holds the position's legal mask: the ko
    and superko verdict on ``action`` is read from ``mask`` instead of the history.

    An RL loop draws its action from ``legal_action_mask(config, state)``; passing
    that mask here skips the step's own search of the position history (the one
    part of ``step`` the mask has already done). :class:`gojax.env.GoEnv` steps
    this way with its state's ``legal_action_mask``.

    Args:
      config: the rules.
      state: one game.
      action: as for :func:`step`.
      mask: ``bool[A]``: ``legal_action_mask(config, state)``, for this
        ``state``. Precondition: it is that mask. Occupied points, suicide
        and actions outside ``[0, P]`` are still tested here, so a wrong mask
        never corrupts the board; what it decides is only whether a move that
        recreates an earlier position (a ko or superko repeat) is played
        (``True``) or forfeits the game (``False``), and a ``False`` for a
        legal move forfeits it too.

    Returns:
      The next state, equal to ``step(config, state, action)`` when ``mask``
      is the state's legal mask.

    Raises:
      ValueError: ``state`` was not built for ``config``, or ``mask`` is not
        a ``bool[A]`` array.
      TypeError: ``action`` is not an integer.
    """
    _guards.check_state(config, state, "gojax.step_with_mask")
    _guards.check_action(action, "gojax.step_with_mask")
    _guards.check_mask(config, mask, "gojax.step_with_mask")
    return _play_move(config, state, action, mask)


def _play_move(
    config: GoConfig, state: GoState, action: jax.typing.ArrayLike, mask: jax.Array | None
) -> GoState:
    """:func:`step`: the native kernel on the CPU, else its phases in XLA."""
    state = state.canonical()
    return _native.on_cpu(
        lambda: _native.play(config, state, action, mask), lambda: _phases(config, state, action, mask)
    )


def _phases(
    config: GoConfig, state: GoState, action: jax.typing.ArrayLike, mask: jax.Array | None
) -> GoState:
    """:func:`step`'s phases; the repeat test from the history, or from ``mask`` when given."""
    move = _play.place(config, state, action)
    capture = _play.capture(config, move)
    settled = _play.settle(config, move, capture)
    hashed = _bookkeeping.hash_move(config, state, move, capture, settled)
    legal = _bookkeeping.is_legal(config, state, move, settled, hashed, mask)
    chains = _bookkeeping.atari_after(config, move, capture, settled)
    lists = _bookkeeping.record_move(config, state, move, hashed, legal)
    played = _bookkeeping.played(config, state, move, capture, settled, hashed, chains)
    return _bookkeeping.outcome(state, played, lists, legal)


def resign(config: GoConfig, state: GoState) -> GoState:
    """The player to move resigns: the game terminates with them as ``loser``.

    A game that is already over is returned unchanged.
    """
    _guards.check_state(config, state, "gojax.resign")
    resigned = state.replace(terminated=jnp.bool_(True), loser=(state.turn + 1).astype(jnp.int8))
    return jax.tree.map(lambda old, new: jnp.where(state.done, old, new), state, resigned)


def reset_if_done(config: GoConfig, state: GoState) -> GoState:
    """A new game (:func:`init`) in place of a finished one (terminated or
    truncated); a game still running is returned unchanged.

    ``jax.vmap`` it after ``step`` to keep a batch of games playing::

        state = jax.vmap(functools.partial(gojax.reset_if_done, config))(step(state, actions))

    Read what you need of the finished games (winner, score, records) before.
    """
    _guards.check_state(config, state, "gojax.reset_if_done")
    fresh = init(config)
    return jax.tree.map(lambda old, new: jnp.where(state.done, new, old), state, fresh)


@bb.scoped
def legal_action_mask(config: GoConfig, state: GoState, superko: bool = True) -> jax.Array:
    """Legal actions for the player to move: ``bool[A]`` (``A = P + 1``).

    Excluded: occupied points, suicide (unless ``config.suicide``), the simple
    ko recapture, and - under the positional / situational rules - every move
    that would recreate an earlier position (situation) of this game. Pass is
    always legal. The mask is computed from the board alone, also for a game
    that is over.

    ``superko=False`` (a Python bool) leaves the moves that recreate an
    earlier position other than by the simple ko recapture in the mask, as
    pgx's mask does: :func:`step` still refuses them (the mover forfeits), so
    the mask then lists moves that lose. The history is not searched; under
    ``ko_rule="simple"`` it changes nothing.

    Method: suicides and captures are read off ``state.atari`` with a few
    bitboard operations. Plain placements are tested against the history all
    at once by walking one stone-count bucket; capturing moves (and suicides,
    where allowed) are hashed and tested a few at a time, the stones each one
    removes read off the liberty labels of the chains in atari
    (``state.atari_liberty``).
    """
    _guards.check_state(config, state, "gojax.legal_action_mask")
    if not isinstance(superko, bool):
        raise TypeError(f"gojax.legal_action_mask: superko must be a Python bool, got {superko!r}")
    state = state.canonical()
    return _native.on_cpu(
        lambda: _native.legal_action_mask(config, state, superko), lambda: _legal_mask(config, state, superko)
    )


@bb.scoped
def _legal_mask(config: GoConfig, state: GoState, superko: bool) -> jax.Array:
    """:func:`legal_action_mask` in XLA."""
    size = config.size
    full = jnp.asarray(bb.board_mask(size))
    colour, own, opponent = _play.own_and_opponent(state)
    own_chains, opponent_chains = _atari.chains_in_atari(state, colour)
    own_atari, opponent_atari = own_chains.stones, opponent_chains.stones

    empty = full & ~(own | opponent)
    captures = bb.neighbours(opponent_atari, size) & empty
    breathes = bb.neighbours(empty, size) | bb.neighbours(own & ~own_atari, size) | captures
    suicides = empty & ~breathes
    legal = empty if config.suicide else empty & breathes

    if config.ko_rule == "simple" or not superko:
        legal = legal & ~bb.point_bits(state.ko_point.astype(jnp.int32), size)
    else:
        lists = _history.HistoryLists.of(state)
        base = _history.PositionKey(
            situation=state.hash ^ _bookkeeping.situation_key(config, 1 - colour),
            count=bb.count(own | opponent),
            white=bb.count(state.stones[1]),
        )
        special = (captures | suicides) if config.suicide else captures
        plain = legal & ~special
        banned = plain & _history.plain_repeats(config, lists, base, colour)
        banned |= _atari.capture_repeats(
            config,
            lists,
            special & legal,
            colour,
            own_chains if config.suicide else None,
            opponent_chains,
            suicides,
            base,
        )
        legal = legal & ~banned
    return jnp.concatenate([bb.to_points(legal, size), jnp.ones((1,), jnp.bool_)])
