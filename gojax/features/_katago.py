"""KataGo-style inputs (KataGo v7, ``cpp/neuralnet/nninputs.cpp``, ``fillRowV7``) for gojax's rules.

Returns ``(spatial, global)``: channels-last ``[N, N, C]`` planes and a
``float32[G]`` vector, all from the point of view of the player to move
(*own* = the mover's). Two layouts (static ``layout``):

* ``"compact"`` (default): only the 18 planes and 11 globals that apply to
  gojax's rules, packed (:data:`KATAGO_CHANNELS`, :data:`KATAGO_GLOBALS`).
* ``"katago"``: KataGo's own indices, 22 planes and 19 globals, the omitted
  ones left at zero (:data:`KATAGO_V7_CHANNELS`, :data:`KATAGO_V7_GLOBALS`) -
  what a network trained by KataGo reads (with ``area="katago"``).

:func:`katago_globals` computes the global vector alone (cheap: no ladders),
:func:`last_moves` the move history as KataGo shows it, and
:mod:`gojax.features._benson` the area.

=============  ========  ==========================================================
compact        KataGo    spatial plane (0/1)
=============  ========  ==========================================================
0              0         on board (all ones)
1, 2           1, 2      own stones, opponent stones
3, 4, 5        3, 4, 5   stones whose chain has 1, 2, 3 liberties
6              6         ko-banned: empty, not a suicide for the mover, yet illegal
7-11           9-13      the move 1, ..., 5 moves ago (passes leave the plane empty)
12, 13, 14     14-16     ladderable stones now, 1 move ago, 2 moves ago
15             17        moves that start a working ladder
16, 17         18, 19    area of the mover, of the opponent
=============  ========  ==========================================================

=============  ========  ==========================================================
compact        KataGo    global
=============  ========  ==========================================================
0-4            0-4       the move 1, ..., 5 moves ago was a pass
5              5         komi from the mover's view / 20 (``+komi`` for white)
6              6         1 under a superko rule (positional or situational)
7              7         +0.5 positional, -0.5 situational, 0 simple ko
8              8         1 when suicide is legal
9              14        1 when a pass would end the game (the last move was a pass)
10             18        komi parity wave (KataGo's triangle wave, area scoring)
=============  ========  ==========================================================

Definitions, following ``fillRowV7``:

* **Move history** (:func:`last_moves`): the last 5 actions come from a
  :class:`MoveHistory` (exact), or, when ``moves`` is ``None``, from the
  :class:`BoardHistory` and ``state.last_move``: the move ``i`` ago is the
  stone of its colour that is on board ``i - 1`` and not on board ``i``
  (none: a pass). That is exact except for a suicide under ``suicide=True``
  (it leaves no stone, so it reads as a pass) - carry a :class:`MoveHistory`
  there. Moves before the start of the history are unknown: no plane, no pass
  flag. As in KataGo, the history is hidden once the game is over (no move
  planes, no pass flags, the "ago" ladder planes repeat the board, and "a
  pass would end the game" reads 0).
* **Ladders** (KataGo ``iterLadders``, :mod:`gojax.features.ladders._katago`),
  read by :mod:`gojax.features.ladders`' search on every chain of either
  colour with 1 or 2 liberties. A chain with 1 liberty is *ladderable* when,
  with its owner to move, neither extending nor capturing an adjacent
  attacker chain in atari gets it out of the ladder. A chain with
  2 liberties is ladderable when its opponent, to move, captures it by a
  ladder starting on one of them (:func:`ladder_capture`). The "ago" planes
  read the boards 1 and 2 moves ago from the :class:`BoardHistory`, each with
  the ko point it had (read off the move that made it,
  :func:`gojax.features.ladders._katago.ko_after`); before the history starts
  they repeat the later board, as KataGo does. The three boards are read in
  one batched call (``vmap``); given the planes of the previous position
  (``previous``), only the board now is read.
  *Ladder moves*: the mover's legal moves that start a working ladder on an
  opponent chain with 2 liberties (the same set as
  :func:`ladder_capture_plane`).
* **Area** (static ``area``): ``"pass_alive"`` (default) is Benson's
  pass-alive stones and pass-alive territory
  (:func:`gojax.features.pass_alive_area` with its defaults); ``"katago"`` is
  what ``fillRowV7`` computes under area scoring without a tax:
  ``calculateArea`` with all three options (pass-alive area, then regions
  bordered by one colour only, then every other stone).
* **Komi parity**: KataGo's triangle wave of the mover's komi against the
  board's parity (``fillRowV7``; always on, scoring being by area).

Omitted (zero in the ``"katago"`` layout), because gojax has no such rule or
setting: spatial 7, 8 (encore ko-recapture bans) and 20, 21 (stones at the
start of the second encore phase) - territory-scoring encore only; globals 9
(territory scoring), 10, 11 (seki / group tax), 12, 13 (encore phase), 15, 16
(playout-doubling advantage, a search setting of handicap play) and 17
(button Go). KataGo's ``conservativePass`` history hiding is a search option
and is not applied.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core.types import GoConfig, GoState
from gojax.features import _benson, _blocks
from gojax.features._board_history import BoardHistory
from gojax.features._katago_moves import KATAGO_MOVES, MoveHistory, last_moves
from gojax.features.ladders import _katago as _katago_ladders
from gojax.features.ladders import _planes as _ladders

__all__ = [
    "KATAGO_CHANNELS",
    "KATAGO_GLOBALS",
    "KATAGO_V7_CHANNELS",
    "KATAGO_V7_GLOBALS",
    "KataGoChannels",
    "KataGoGlobals",
    "katago_globals",
    "katago_planes",
]

_LAYOUTS = ("compact", "katago")
_AREAS = ("pass_alive", "katago")


class KataGoChannels(NamedTuple):
    """Where each KataGo plane lies on the channel axis (``int`` or ``slice``)."""

    on_board: int
    own: int
    opponent: int
    liberties: slice  # chains with 1, 2, 3 liberties
    ko_banned: int
    last_moves: slice  # 1, ..., 5 moves ago
    ladderable: slice  # now, 1 move ago, 2 moves ago
    ladder_moves: int
    area_own: int
    area_opponent: int
    num_channels: int


class KataGoGlobals(NamedTuple):
    """Where each KataGo global feature lies in the vector (``int`` or ``slice``)."""

    passes: slice  # the move 1, ..., 5 ago was a pass
    komi: int
    superko: int
    superko_kind: int
    suicide: int
    pass_ends_game: int
    komi_parity: int
    num_features: int


# (field, width, KataGo v7 index of the first channel), in compact order.
_SPATIAL = (
    ("on_board", 1, 0),
    ("own", 1, 1),
    ("opponent", 1, 2),
    ("liberties", 3, 3),
    ("ko_banned", 1, 6),
    ("last_moves", KATAGO_MOVES, 9),
    ("ladderable", 3, 14),
    ("ladder_moves", 1, 17),
    ("area_own", 1, 18),
    ("area_opponent", 1, 19),
)
_GLOBAL = (
    ("passes", KATAGO_MOVES, 0),
    ("komi", 1, 5),
    ("superko", 1, 6),
    ("superko_kind", 1, 7),
    ("suicide", 1, 8),
    ("pass_ends_game", 1, 14),
    ("komi_parity", 1, 18),
)
_V7_SPATIAL, _V7_GLOBAL = 22, 19


def _layout(cls, groups, katago: bool, total: int):
    where, start, count = {}, 0, "num_channels" if cls is KataGoChannels else "num_features"
    for name, width, v7 in groups:
        first = v7 if katago else start
        where[name] = first if width == 1 else slice(first, first + width)
        start += width
    return cls(**where, **{count: total if katago else start})


def _v7_indices(groups) -> np.ndarray:
    return np.concatenate([np.arange(v7, v7 + width) for _, width, v7 in groups])


KATAGO_CHANNELS = _layout(KataGoChannels, _SPATIAL, False, 0)
KATAGO_V7_CHANNELS = _layout(KataGoChannels, _SPATIAL, True, _V7_SPATIAL)
KATAGO_GLOBALS = _layout(KataGoGlobals, _GLOBAL, False, 0)
KATAGO_V7_GLOBALS = _layout(KataGoGlobals, _GLOBAL, True, _V7_GLOBAL)


# --------------------------------------------------------------------------- the preset


def _komi_parity(self_komi: jax.Array, points: int) -> jax.Array:
    """KataGo's triangle wave of the komi against the parity of the board area."""
    if points % 2 == 0:
        floor = jnp.floor(self_komi / 2.0) * 2.0
    else:
        floor = jnp.floor((self_komi - 1.0) / 2.0) * 2.0 + 1.0
    delta = jnp.clip(self_komi - floor, 0.0, 2.0)
    return jnp.where(delta < 0.5, delta, jnp.where(delta < 1.5, 1.0 - delta, delta - 2.0))


def _globals(config: GoConfig, state: GoState, actions: jax.Array) -> jax.Array:
    """``float32[11]``: the compact global features."""
    points = config.num_points
    self_komi = _blocks.mover_komi(config, state)
    kind = {"simple": 0.0, "positional": 0.5, "situational": -0.5}[config.ko_rule]
    rules = [float(config.ko_rule != "simple"), kind, float(config.suicide)]
    return jnp.concatenate(
        [
            (actions == config.pass_action).astype(jnp.float32),
            (self_komi / 20.0)[None],
            jnp.asarray(rules, jnp.float32),
            ((state.passes >= 1) & ~state.done).astype(jnp.float32)[None],
            _komi_parity(self_komi, points)[None],
        ]
    )


def _to_v7_globals(globals_: jax.Array) -> jax.Array:
    return jnp.zeros((_V7_GLOBAL,), jnp.float32).at[_v7_indices(_GLOBAL)].set(globals_)


def katago_globals(
    config: GoConfig,
    state: GoState,
    hist: BoardHistory,
    moves: MoveHistory | None = None,
    *,
    layout: str = "compact",
) -> jax.Array:
    """The global half of :func:`katago_planes` alone (no ladders, so cheap): ``float32[G]``.

    Args and ``layout``: as :func:`katago_planes`; ``G`` is 11 (``"compact"``) or 19 (``"katago"``).
    """
    _check_layout(layout)
    globals_ = _globals(config, state, last_moves(config, state, hist, moves))
    return _to_v7_globals(globals_) if layout == "katago" else globals_


def _ladders_of_history(config: GoConfig, state: GoState, hist: BoardHistory, known):
    """:func:`gojax.features.ladders._katago.board_tables` of the boards now, 1 and 2 moves
    ago, each read with its own ko point (``[3, ...]`` each)."""
    turn = state.turn.astype(jnp.int32)
    one_ago, two_ago = known >= 1, known >= 2
    # The ko point a history board had is read off the move that made it (known when the
    # move before it is); the start of the history has none.
    ko_after = functools.partial(_katago_ladders.ko_after, config)
    ko_1 = jnp.where(known >= 2, ko_after(hist.stones[1], hist.stones[2], turn), -1)
    ko_2 = jnp.where(known >= 3, ko_after(hist.stones[2], hist.stones[3], 1 - turn), -1)
    ko = state.ko_point.astype(jnp.int32)
    stones_1 = jnp.where(one_ago, hist.stones[1], state.stones)
    stones_2 = jnp.where(two_ago, hist.stones[2], stones_1)
    turns = jnp.stack(
        [turn, jnp.where(one_ago, 1 - turn, turn), jnp.where(two_ago | ~one_ago, turn, 1 - turn)]
    )
    ko_1 = jnp.where(one_ago, ko_1, ko)
    kos = jnp.stack([ko, ko_1, jnp.where(two_ago, ko_2, ko_1)])
    boards = jnp.stack([state.stones, stones_1, stones_2])

    def ladders_of(stones, board_turn, board_ko, now):
        turn_ko = {"turn": board_turn.astype(jnp.int8), "ko_point": board_ko.astype(jnp.int16)}
        return _katago_ladders.board_tables(config, state.replace(stones=stones, **turn_ko), now)

    # The tables of the board now (index 0) are the ones the other planes read; of the
    # boards before it only the ladderable stones are.
    now = jnp.arange(3) == 0
    return jax.vmap(ladders_of)(boards, turns, kos, now)


def _now_and_history(config: GoConfig, state: GoState, hist: BoardHistory, known):
    """``(ladderable stones [N, N, 3], ladder moves, chain liberties, not a suicide)`` of the
    board now, the ladderable stones of the boards 1 and 2 moves ago stacked last."""
    stones, moves, liberties, not_suicide = _ladders_of_history(config, state, hist, known)
    return jnp.moveaxis(stones, 0, -1), moves[0], liberties[0], not_suicide[0]


def _check_layout(layout) -> None:
    if layout not in _LAYOUTS:
        raise ValueError(f"layout must be one of {_LAYOUTS}, got {layout!r}")


def katago_planes(
    config: GoConfig,
    state: GoState,
    hist: BoardHistory,
    moves: MoveHistory | None = None,
    *,
    layout: str = "compact",
    area: str = "pass_alive",
    dtype=jnp.float32,
    ladder_chunk: int = 8,
    previous: jax.Array | tuple[jax.Array, jax.Array] | None = None,
) -> tuple[jax.Array, jax.Array]:
    """KataGo v7-style spatial planes and global features of one game (see the module tables).

    Args:
      config: the rules (size, komi, ko rule and suicide rule all show).
      state: the current position.
      hist: its :class:`~gojax.features.BoardHistory` (boards 1 and 2 moves
        ago for the ladder planes; the last moves when ``moves`` is ``None``).
      moves: a :class:`MoveHistory`, or ``None`` to derive the last 5 moves
        from ``hist`` (exact unless a suicide was played).
      layout: ``"compact"`` (18 planes, 11 globals) or ``"katago"`` (KataGo's
        22 and 19, omitted entries zero); static.
      area: ``"pass_alive"`` (Benson's pass-alive area) or ``"katago"``
        (``fillRowV7``'s area-scoring map); static.
      dtype: of the spatial planes (every value is 0 or 1).
      ladder_chunk: accepted and not used (the reads are pooled over the batch); an int of at least 1.
      previous: the output of this function (same ``layout``; any dtype) for
        the position before the last move of the same game, or ``None``. Its
        "now" and "1 move ago" ladder planes become this position's "1 move
        ago" and "2 moves ago", so only the board now is read: the same
        result, about a third of the ladder reads. It is not read where
        those planes repeat the board (a game with no move yet or one that
        is over), so anything of the right shape will do for a new game.
        :class:`gojax.env.GoEnv` passes its last observation.

    Returns:
      ``(spatial, global)``: ``dtype[N, N, C]`` and ``float32[G]``.

    Raises:
      TypeError: for a ``ladder_chunk`` that is not an int.
      ValueError: for an unknown ``layout`` or ``area``, or a ``ladder_chunk`` below 1.
    """
    _check_layout(layout)
    if area not in _AREAS:
        raise ValueError(f"area must be one of {_AREAS}, got {area!r}")
    _ladders._check_chunk(ladder_chunk)
    size, points = config.size, config.num_points
    turn = state.turn.astype(jnp.int32)

    legal = _blocks.legal_plane(config, state)
    actions = last_moves(config, state, hist, moves)
    on_point = (actions >= 0) & (actions < points)
    recent = (jnp.arange(points)[:, None] == actions[None, :]) & on_point[None, :]  # [P, 5]

    # Ladders on the board now and 1, 2 moves ago (the later board before the history starts).
    known = jnp.sum(actions >= 0)
    one_ago = known >= 1
    two_ago = known >= 2
    channels = KATAGO_V7_CHANNELS if layout == "katago" else KATAGO_CHANNELS
    if previous is None:
        ladder_stones, ladder_moves, chain_libs, not_suicide = _now_and_history(config, state, hist, known)
    else:
        planes = previous[0] if isinstance(previous, tuple) else previous
        before = planes[..., channels.ladderable][..., :2] != 0  # now and 1 ago, one move ago
        now, ladder_moves, chain_libs, not_suicide = _katago_ladders.board_tables(config, state)
        ago_1 = jnp.where(one_ago, before[..., 0], now)
        ago_2 = jnp.where(two_ago, before[..., 1], ago_1)
        ladder_stones = jnp.stack([now, ago_1, ago_2], axis=-1)
    empty = _blocks.empty_points(config, state)
    ko_banned = empty & ~legal & (not_suicide | config.suicide)

    if area == "pass_alive":
        owner = _benson.pass_alive_area(config, state)
    else:
        owner = _benson.pass_alive_area(
            config, state, safe_big_territories=True, unsafe_big_territories=True, non_pass_alive_stones=True
        )
    mover_value = (turn + 1).astype(jnp.int8)

    spatial = _blocks.stack_planes(
        _blocks.ones(config, jnp.bool_),
        _blocks.mover_stones(config, state),
        _blocks.opponent_stones(config, state),
        _blocks.one_hot_planes(chain_libs, 4)[..., :3],  # 1, 2, 3 liberties (4+ dropped)
        ko_banned,
        recent.reshape(size, size, KATAGO_MOVES),
        ladder_stones,
        ladder_moves & legal,
        owner == mover_value,
        (owner != 0) & (owner != mover_value),
        dtype=dtype,
    )

    globals_ = _globals(config, state, actions)
    if layout == "katago":
        spatial = jnp.zeros((size, size, _V7_SPATIAL), dtype).at[..., _v7_indices(_SPATIAL)].set(spatial)
        globals_ = _to_v7_globals(globals_)
    return spatial, globals_
