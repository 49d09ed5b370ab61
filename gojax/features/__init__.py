"""Feature planes for Go networks: pure functions of one game, channels last.

Every preset returns ``[N, N, C]`` planes from the point of view of the player
to move, works on one game (batch with ``jax.vmap``) and is documented channel
by channel in ``docs/features.md``; channel positions are named constants, not
numbers to copy.

* The observation registry (``_registry.py``): :data:`OBSERVATIONS` maps a
  name (``"basic"``, ``"basic_ladders"``, ``"basic_komi"``, ``"alphago_zero"``, ``"pgx"``, ``"alphago"``,
  ``"alphago_value"``, ``"katago"``) to an :class:`ObservationSpec` - the
  function, its channel count, whether it reads the board history; :func:`observation` looks a name up,
  :func:`register_observation` adds your own. The environment, the dataset
  builder, AlphaZero and the GTP engine all pick their planes here by name.
* ``"basic"``, 15 planes of the position alone (AlphaZero's input):
  :func:`basic_planes`, :data:`BASIC_CHANNELS` (``_basic.py``); ``"basic_ladders"``, those and
  two ladder planes (captures, escapes): :func:`basic_ladder_planes`; ``"basic_komi"``,
  those and the komi: :func:`basic_komi_planes`.
* AlphaGo Zero, 17 planes: :func:`alphago_zero_planes`, with the
  :class:`BoardHistory` of the last 8 boards it reads
  (:func:`history_init`, :func:`history_push`) and :data:`AGZ_CHANNELS`
  (``_alphago_zero.py``, ``_board_history.py``).
* AlphaGo, 48/49 planes, ladders read by search, and the building blocks to
  compose your own set (``_alphago.py``, ``ladders/``, ``_blocks.py``).
* KataGo v7-style planes and global features (a ``(planes, globals)`` pair):
  :func:`katago_planes`, with the :class:`MoveHistory` of the last 5 actions
  (:func:`last_moves`), and Benson's pass-alive chains and area
  (:func:`pass_alive`, :func:`pass_alive_area`, :func:`settled`) (``_katago.py``,
  ``_katago_moves.py``, ``ladders/_katago.py``, ``_benson.py``).

Adding a module: import its public names below and add them to ``__all__``
(one list, kept sorted, as ruff wants).
"""

from gojax.features._alphago import (
    ALPHAGO_CHANNELS,
    ALPHAGO_NUM_CHANNELS,
    ALPHAGO_VALUE_NUM_CHANNELS,
    AlphaGoChannels,
    alphago_planes,
)
from gojax.features._alphago_zero import (
    AGZ_CHANNELS,
    AGZ_NUM_CHANNELS,
    AlphaGoZeroChannels,
    alphago_zero_planes,
)
from gojax.features._basic import (
    BASIC_CHANNELS,
    BASIC_KOMI_NUM_CHANNELS,
    BASIC_LADDERS_NUM_CHANNELS,
    BASIC_NUM_CHANNELS,
    BasicChannels,
    basic_komi_planes,
    basic_ladder_planes,
    basic_planes,
)
from gojax.features._benson import PassAlive, pass_alive, pass_alive_area, settled
from gojax.features._blocks import (
    Chains,
    MoveOutcomes,
    capture_size,
    chain_labels,
    chain_sizes,
    chains,
    edge_distance,
    empty_points,
    legal_plane,
    liberties,
    liberties_after_move,
    move_outcomes,
    mover_eyes,
    mover_komi,
    mover_stones,
    one_hot_planes,
    ones,
    opponent_stones,
    self_atari_size,
    stack_planes,
    turns_since,
    turns_since_planes,
    zeros,
)
from gojax.features._board_history import HISTORY_LENGTH, BoardHistory, history_init, history_push
from gojax.features._katago import (
    KATAGO_CHANNELS,
    KATAGO_GLOBALS,
    KATAGO_V7_CHANNELS,
    KATAGO_V7_GLOBALS,
    KataGoChannels,
    KataGoGlobals,
    katago_globals,
    katago_planes,
)
from gojax.features._katago_moves import (
    KATAGO_MOVES,
    MoveHistory,
    last_moves,
    move_history_init,
    move_history_push,
)
from gojax.features._registry import (
    OBSERVATIONS,
    HistoryObservation,
    Observation,
    ObservationSpec,
    num_planes,
    observation,
    register_observation,
)
from gojax.features.ladders import ladder_capture, ladder_capture_plane, ladder_escape, ladder_escape_plane

__all__ = [
    "AGZ_CHANNELS",
    "AGZ_NUM_CHANNELS",
    "ALPHAGO_CHANNELS",
    "ALPHAGO_NUM_CHANNELS",
    "ALPHAGO_VALUE_NUM_CHANNELS",
    "BASIC_CHANNELS",
    "BASIC_KOMI_NUM_CHANNELS",
    "BASIC_LADDERS_NUM_CHANNELS",
    "BASIC_NUM_CHANNELS",
    "HISTORY_LENGTH",
    "KATAGO_CHANNELS",
    "KATAGO_GLOBALS",
    "KATAGO_MOVES",
    "KATAGO_V7_CHANNELS",
    "KATAGO_V7_GLOBALS",
    "OBSERVATIONS",
    "AlphaGoChannels",
    "AlphaGoZeroChannels",
    "BasicChannels",
    "BoardHistory",
    "Chains",
    "HistoryObservation",
    "KataGoChannels",
    "KataGoGlobals",
    "MoveHistory",
    "MoveOutcomes",
    "Observation",
    "ObservationSpec",
    "PassAlive",
    "alphago_planes",
    "alphago_zero_planes",
    "basic_komi_planes",
    "basic_ladder_planes",
    "basic_planes",
    "capture_size",
    "chain_labels",
    "chain_sizes",
    "chains",
    "edge_distance",
    "empty_points",
    "history_init",
    "history_push",
    "katago_globals",
    "katago_planes",
    "ladder_capture",
    "ladder_capture_plane",
    "ladder_escape",
    "ladder_escape_plane",
    "last_moves",
    "legal_plane",
    "liberties",
    "liberties_after_move",
    "move_history_init",
    "move_history_push",
    "move_outcomes",
    "mover_eyes",
    "mover_komi",
    "mover_stones",
    "num_planes",
    "observation",
    "one_hot_planes",
    "ones",
    "opponent_stones",
    "pass_alive",
    "pass_alive_area",
    "register_observation",
    "self_atari_size",
    "settled",
    "stack_planes",
    "turns_since",
    "turns_since_planes",
    "zeros",
]
