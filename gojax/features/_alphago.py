"""AlphaGo's 48 input planes (Silver et al. 2016, Nature, Extended Data Table 2), plus 1 for the value net.

Channels last, ``[N, N, 48]`` (``[N, N, 49]`` with ``player_colour=True``),
all from the point of view of the player to move (the *mover*). Integer
features are one-hot over 8 planes: plane ``k`` (0..7) means the value
``k + 1`` and the last plane "8 or more"; a value of 0 sets no plane (so a
move that captures nothing has no capture-size plane set). Move features
(capture size, self-atari size, liberties after move, ladders) are set only
at legal moves.

=======  ====================  =======================================================
channel  group                 meaning (dtype: float32 by default, values 0 or 1)
=======  ====================  =======================================================
0        stone colour          mover's stones
1        stone colour          opponent's stones
2        stone colour          empty points
3        ones                  all ones
4-11     turns since           stone played 1, 2, ..., 7, 8+ moves ago
12-19    liberties             its chain has 1, 2, ..., 7, 8+ liberties
20-27    capture size          the move captures 1, 2, ..., 7, 8+ stones
28-35    self-atari size       the move leaves its chain of 1, ..., 8+ in atari
36-43    liberties after move  the move's chain then has 1, ..., 7, 8+ liberties
44       ladder capture        the move wins a ladder (:mod:`gojax.features.ladders`)
45       ladder escape         the move escapes a ladder
46       sensibleness          legal and not filling one of the mover's eyes
47       zeros                 all zeros
48       player colour         1 when black is to move (only with ``player_colour``)
=======  ====================  =======================================================

Use :data:`ALPHAGO_CHANNELS` instead of these numbers, e.g.
``planes[..., ALPHAGO_CHANNELS.liberties]`` is ``[N, N, 8]``.

Definitions: *turns since* comes from the :class:`BoardHistory` (exact up to
7 moves, passes count); an *eye* is :func:`gojax.features.mover_eyes` (every
orthogonal neighbour the mover's, at most one diagonal the opponent's, none
on the edge). The paper's tables leave offsets open; RocAlphaGo counts turns
since and capture size from 0 - here every integer plane starts at 1.

On the CPU the native kernel (:mod:`gojax._native`) writes the planes whole,
given XLA's legal moves and turns-since bitboards; elsewhere, or with the
kernels off, the XLA code below computes them. Both give the same planes.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import jax
import jax.numpy as jnp

from gojax._core.types import GoConfig, GoState
from gojax.features import _blocks, _chains, _native_calls
from gojax.features._board_history import BoardHistory
from gojax.features.ladders import _planes as _ladders

__all__ = [
    "ALPHAGO_CHANNELS",
    "ALPHAGO_NUM_CHANNELS",
    "ALPHAGO_VALUE_NUM_CHANNELS",
    "AlphaGoChannels",
    "alphago_planes",
]

_ONE_HOT = 8


class AlphaGoChannels(NamedTuple):
    """Where each group of AlphaGo planes lies on the channel axis.

    Single planes are ``int`` channel indices, groups of 3 or 8 are ``slice``.
    """

    mover: int
    opponent: int
    empty: int
    stone_colour: slice
    ones: int
    turns_since: slice
    liberties: slice
    capture_size: slice
    self_atari_size: slice
    liberties_after: slice
    ladder_capture: int
    ladder_escape: int
    sensibleness: int
    zeros: int
    player_colour: int


def _layout() -> AlphaGoChannels:
    groups = [
        ("stone_colour", 3),
        ("ones", 1),
        ("turns_since", _ONE_HOT),
        ("liberties", _ONE_HOT),
        ("capture_size", _ONE_HOT),
        ("self_atari_size", _ONE_HOT),
        ("liberties_after", _ONE_HOT),
        ("ladder_capture", 1),
        ("ladder_escape", 1),
        ("sensibleness", 1),
        ("zeros", 1),
        ("player_colour", 1),
    ]
    where: dict[str, Any] = {}  # name -> int channel or slice of channels
    start = 0
    for name, width in groups:
        where[name] = start if width == 1 else slice(start, start + width)
        start += width
    colour: slice = where["stone_colour"]
    return AlphaGoChannels(mover=colour.start, opponent=colour.start + 1, empty=colour.start + 2, **where)


ALPHAGO_CHANNELS = _layout()
ALPHAGO_NUM_CHANNELS = ALPHAGO_CHANNELS.player_colour  # 48: the policy network's input
ALPHAGO_VALUE_NUM_CHANNELS = ALPHAGO_NUM_CHANNELS + 1  # 49: the value network's


def alphago_planes(
    config: GoConfig,
    state: GoState,
    hist: BoardHistory,
    *,
    player_colour: bool = False,
    dtype=jnp.float32,
    ladder_chunk: int = 8,
) -> jax.Array:
    """AlphaGo's feature planes of one game (see the module table).

    Args:
      config: the rules.
      state: the current position.
      hist: its :class:`~gojax.features.BoardHistory` (for turns since).
      player_colour: add the value network's 49th plane, 1 when black is to move.
      dtype: of the result; every value is 0 or 1, so ``bool``/``uint8``
        store it exactly.
      ladder_chunk: ladder reads run together (static); does not change the
        result (see :func:`gojax.features.ladder_capture_plane`).

    Returns:
      ``dtype[N, N, 48]``, or ``[N, N, 49]`` with ``player_colour``.
    """
    _ladders._check_chunk(ladder_chunk)
    legal = _blocks.legal_plane(config, state)
    channels = ALPHAGO_VALUE_NUM_CHANNELS if player_colour else ALPHAGO_NUM_CHANNELS

    def native() -> jax.Array:  # the whole planes, written by the kernel
        return _native_calls.alphago_planes(config, state, _blocks._standing(state, hist), legal, channels)

    planes = _native_calls.on_cpu(native, lambda: _xla_planes(config, state, hist, legal, player_colour))
    return planes.astype(dtype)


def _xla_planes(
    config: GoConfig, state: GoState, hist: BoardHistory, legal: jax.Array, player_colour: bool
) -> jax.Array:
    """:func:`alphago_planes` in XLA, ``bool[N, N, 48 or 49]``."""
    size = config.size
    tables = _xla_tables(config, state, legal)
    liberties, capture, self_atari, after, ladder_capture, ladder_escape, eyes = (
        tables[k].reshape(size, size) for k in range(len(tables))
    )
    empty = _blocks.empty_points(config, state)

    def at_legal(values):
        return _blocks.one_hot_planes(jnp.where(legal, values, 0), _ONE_HOT)

    planes = [
        _blocks.mover_stones(config, state),
        _blocks.opponent_stones(config, state),
        empty,
        _blocks.ones(config, jnp.bool_),
        _blocks.turns_since_planes(config, state, hist),
        _blocks.one_hot_planes(liberties, _ONE_HOT),
        at_legal(capture),
        at_legal(self_atari),
        at_legal(after),
        ladder_capture.astype(jnp.bool_) & legal,
        ladder_escape.astype(jnp.bool_) & legal,
        legal & (eyes == 0),
        _blocks.zeros(config, jnp.bool_),
    ]
    if player_colour:
        planes.append(jnp.broadcast_to(state.turn == 0, (size, size)))
    return _blocks.stack_planes(*planes, dtype=jnp.bool_)


def _xla_tables(config: GoConfig, state: GoState, legal: jax.Array) -> jax.Array:
    """``int32[7, P]``: chain liberties, capture size, self-atari size, liberties after, ladder
    capture and ladder escape (the last two at legal moves), the mover's eyes, in XLA."""
    analysis = _chains._analyse(config, state)  # chain labels and liberties, once
    chains = _chains._chains_of(config, analysis)
    # The move outcomes and the ladder candidates (the runner's liberties after its
    # extension) read the same liberty tables, counted once.
    variants = ((_chains._MOVER, True), (_chains._OPPONENT, False))
    mover_after, runner_after = _chains._liberties_after(config, analysis, variants)
    outcomes = _chains._move_outcomes_of(config, analysis, mover_after)
    ladders = _ladders._both_planes(config, state, analysis, legal, mover_after, runner_after)
    values = (chains.liberties, outcomes.capture_size, outcomes.self_atari_size, outcomes.liberties_after)
    eyes = _blocks.mover_eyes(config, state)
    rows = [v.astype(jnp.int32) for v in (*values, *ladders, eyes)]
    return jnp.stack(rows).reshape(len(rows), config.num_points)
