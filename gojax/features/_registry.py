"""Named observations: the one registry that the environment, the dataset builder, AlphaZero and GTP read.

An *observation* is what a network sees of ONE game: ``[N, N, C]`` planes,
channels last, from the point of view of the player to move (with global
features too: a ``(planes, globals)`` pair). Each name in
:data:`OBSERVATIONS` maps to an :class:`ObservationSpec` - the function, its
channel count ``C`` and whether it reads the board history::

    spec = gojax.features.observation("basic")
    planes = spec(config, state)             # float32[N, N, 15]
    spec.channels(config)                    # 15, no computation
    env = gojax.env.GoEnv(config, observation="alphago_zero")
    data = gojax.dataset.build_dataset(folder, 9, observation="basic")

================  ====  =======  ==============================================
name              C     history  function
================  ====  =======  ==============================================
``basic``         15    no       :func:`basic_planes` (AlphaZero's default)
``basic_ladders`` 17    no       :func:`basic_ladder_planes`: and ladder
                                 captures and escapes
``basic_komi``    16    no       :func:`basic_komi_planes`: and the komi
``alphago_zero``  17    yes      :func:`alphago_zero_planes`, ``bool``
``pgx``           17    yes      the same with pgx's colour plane (1 when
                                 white is to move), ``bool``: pgx's observation
``alphago``       48    yes      :func:`alphago_planes` (the policy network's)
``alphago_value`` 49    yes      :func:`alphago_planes` with ``player_colour``
``katago``        18    yes      :func:`katago_planes` (compact layout) and
                                 11 global features: ``(planes, globals)``
================  ====  =======  ==============================================

Every registered preset but ``basic_komi`` is *binary* (each value of its
planes is 0 or 1); those with history return their planes as ``bool``, as pgx's observation
is: converting them to ``float32`` (exact) is left to the network's first
layer (the functions themselves, e.g. :func:`alphago_planes`, take a
``dtype``). ``basic``, the AlphaZero network's input, is ``float32``.

An observation that needs the history is called
``observe(config, state, history)`` with a
:class:`~gojax.features.BoardHistory` kept beside the game
(:class:`gojax.env.GoEnv` and :func:`gojax.dataset.build_dataset` keep one);
the others are ``observe(config, state)``. The AlphaZero search expands nodes
from a :class:`gojax.GoState` alone, so it takes only observations without
history. A spec with ``with_globals`` returns a ``(planes, globals)`` pair
(``globals`` is ``float32[G]``, not binary): :class:`gojax.env.GoEnv` keeps
the pair as its observation.

Add your own with :func:`register_observation` (a name is registered once).
"""

from __future__ import annotations

import dataclasses
import functools
import types
from collections.abc import Callable, Mapping
from typing import Any

import jax
import jax.numpy as jnp

from gojax._core import checks
from gojax._core.rules import init
from gojax._core.types import GoConfig, GoState
from gojax.features._alphago import ALPHAGO_NUM_CHANNELS, ALPHAGO_VALUE_NUM_CHANNELS, alphago_planes
from gojax.features._alphago_zero import AGZ_NUM_CHANNELS, alphago_zero_planes
from gojax.features._basic import (
    BASIC_KOMI_NUM_CHANNELS,
    BASIC_LADDERS_NUM_CHANNELS,
    BASIC_NUM_CHANNELS,
    basic_komi_planes,
    basic_ladder_planes,
    basic_planes,
)
from gojax.features._board_history import BoardHistory, history_init
from gojax.features._katago import katago_planes

__all__ = [
    "OBSERVATIONS",
    "HistoryObservation",
    "Observation",
    "ObservationSpec",
    "num_planes",
    "observation",
    "register_observation",
]

Observation = Callable[[GoConfig, GoState], jax.Array]
"""``observe(config, state) -> [N, N, C]`` for ONE game (no history)."""

HistoryObservation = Callable[[GoConfig, GoState, BoardHistory], jax.Array]
"""``observe(config, state, history) -> [N, N, C]`` for ONE game."""


@dataclasses.dataclass(frozen=True)
class ObservationSpec:
    """A named observation (frozen and hashable: usable as a static argument).

    Attributes:
      name: the registry name, also what a checkpoint or a dataset records.
      observe: ``observe(config, state) -> [N, N, C]``, or
        ``observe(config, state, history) -> [N, N, C]`` when
        ``needs_history``; ONE game, batch with ``jax.vmap``.
      num_channels: ``C``: an ``int``, a function ``config -> int``, or
        ``None`` to read it from the output's shape (``jax.eval_shape``).
      needs_history: whether ``observe`` reads a
        :class:`~gojax.features.BoardHistory`.
      binary: every value of the planes is 0 or 1 (exact as ``bool``/``uint8``).
      description: one line for people.
      with_globals: ``observe`` returns a ``(planes [N, N, C], globals
        float32[G])`` pair instead of the planes alone.
      from_previous: ``None``, or ``observe(config, state, history,
        previous) -> observation``: the same observation, computed with the
        help of ``previous``, this spec's observation (any dtype) of the
        position before the last move of the same game. It must give what
        ``observe`` gives, and must not depend on ``previous`` for a game
        with no move yet or one that is over. :class:`gojax.env.GoEnv` uses
        it in ``step`` (``katago``: only the board now is read for ladders).
      reads_komi: the observation shows ``config.komi`` (a network reading
        it can be trained on games of many komis).
    """

    name: str
    observe: Callable[..., Any]
    num_channels: int | Callable[[GoConfig], int] | None = None
    needs_history: bool = False
    binary: bool = False
    description: str = ""
    with_globals: bool = False
    from_previous: Callable[..., Any] | None = None
    reads_komi: bool = False

    def __post_init__(self):
        if not isinstance(self.name, str) or not self.name:
            raise ValueError(f"an observation name must be a non-empty string, got {self.name!r}")
        if not callable(self.observe):
            raise ValueError(f"observation {self.name!r}: observe must be callable, got {self.observe!r}")
        if self.from_previous is not None and not callable(self.from_previous):
            raise ValueError(
                f"observation {self.name!r}: from_previous must be callable or None, "
                f"got {self.from_previous!r}"
            )
        count = self.num_channels
        if count is not None and not callable(count):
            checks.integer(count, f"observation {self.name!r}: num_channels", least=1)

    def __call__(self, config: GoConfig, state: GoState, history: BoardHistory | None = None) -> Any:
        """``[N, N, C]`` planes of ONE game (a ``(planes, globals)`` pair when
        :attr:`with_globals`); ``history`` is required when :attr:`needs_history`.

        Raises:
          ValueError: if the observation needs the history and none is given.
        """
        if not self.needs_history:
            return self.observe(config, state)
        if history is None:
            raise ValueError(f"observation {self.name!r} reads the board history: pass a BoardHistory")
        return self.observe(config, state, history)

    def channels(self, config: GoConfig) -> int:
        """``C`` for these rules (from :attr:`num_channels`, else from the output's shape)."""
        count = self.num_channels
        if count is None:
            return num_planes(self, config)
        return int(count(config)) if callable(count) else int(count)


def num_planes(observe: Observation | ObservationSpec, config: GoConfig) -> int:
    """``C``: the channels of an observation, from its output's shape alone (``jax.eval_shape``).

    Args:
      observe: an :class:`ObservationSpec` (given a history when it needs one)
        or a function ``observe(config, state)``.
      config: the rules.

    Raises:
      ValueError: if the observation is not ``[N, N, C]``.
    """

    def planes():
        state = init(config)
        if isinstance(observe, ObservationSpec):
            return observe(config, state, history_init(config, state))
        return observe(config, state)

    shaped = jax.eval_shape(planes)
    shape = (shaped[0] if isinstance(shaped, tuple) else shaped).shape
    if len(shape) != 3 or shape[:2] != (config.size, config.size):
        raise ValueError(f"observation must have shape [N, N, C] with N={config.size}, got {shape}")
    return int(shape[2])


_REGISTRY: dict[str, ObservationSpec] = {}

OBSERVATIONS: Mapping[str, ObservationSpec] = types.MappingProxyType(_REGISTRY)
"""The registered observations by name (read-only; add with :func:`register_observation`)."""


def register_observation(
    name: str,
    observe: Callable[..., Any],
    *,
    num_channels: int | Callable[[GoConfig], int] | None = None,
    needs_history: bool = False,
    binary: bool = False,
    description: str = "",
    with_globals: bool = False,
    from_previous: Callable[..., Any] | None = None,
    reads_komi: bool = False,
) -> ObservationSpec:
    """Registers an observation under ``name`` (see :class:`ObservationSpec` for the arguments).

    Returns:
      The new :class:`ObservationSpec`.

    Raises:
      ValueError: if ``name`` is taken (names are never replaced: a checkpoint
        or a dataset that records a name must keep meaning the same planes),
        or for a bad argument.
    """
    spec = ObservationSpec(
        name=name,
        observe=observe,
        num_channels=num_channels,
        needs_history=needs_history,
        binary=binary,
        description=description,
        with_globals=with_globals,
        from_previous=from_previous,
        reads_komi=reads_komi,
    )
    if name in _REGISTRY:
        raise ValueError(f"observation {name!r} is already registered; choose another name")
    _REGISTRY[name] = spec
    return spec


def observation(name: str | ObservationSpec) -> ObservationSpec:
    """The registered :class:`ObservationSpec` called ``name`` (a spec is returned as it is).

    Raises:
      ValueError: for an unknown name, listing the known ones.
    """
    if isinstance(name, ObservationSpec):
        return name
    if isinstance(name, str) and name in _REGISTRY:
        return _REGISTRY[name]
    raise ValueError(f"unknown observation {name!r}; registered: {', '.join(sorted(_REGISTRY))}")


register_observation(
    "basic",
    basic_planes,
    num_channels=BASIC_NUM_CHANNELS,
    binary=True,
    description="15 planes of the position alone: stones, liberties 1/2/3+, legal, ko, last move, colour",
)
register_observation(
    "basic_ladders",
    basic_ladder_planes,
    num_channels=BASIC_LADDERS_NUM_CHANNELS,
    binary=True,
    description="17 planes of the position alone: the 15 basic planes, ladder captures and ladder escapes",
)
register_observation(
    "basic_komi",
    basic_komi_planes,
    num_channels=BASIC_KOMI_NUM_CHANNELS,
    reads_komi=True,
    description="16 planes of the position alone: the 15 basic planes and the mover's komi / 20",
)
register_observation(
    "alphago_zero",
    functools.partial(alphago_zero_planes, dtype=jnp.bool_),
    num_channels=AGZ_NUM_CHANNELS,
    needs_history=True,
    binary=True,
    description="AlphaGo Zero's 17 planes: the last 8 boards of each colour and the colour to move",
)
register_observation(
    "pgx",
    functools.partial(alphago_zero_planes, dtype=jnp.bool_, colour_plane="white"),
    num_channels=AGZ_NUM_CHANNELS,
    needs_history=True,
    binary=True,
    description="pgx's Go observation: AlphaGo Zero's 17 planes, the colour plane set when white is to move",
)
register_observation(
    "alphago",
    functools.partial(alphago_planes, dtype=jnp.bool_),
    num_channels=ALPHAGO_NUM_CHANNELS,
    needs_history=True,
    binary=True,
    description="AlphaGo's 48 policy-network planes (ladders read by search)",
)
register_observation(
    "alphago_value",
    functools.partial(alphago_planes, player_colour=True, dtype=jnp.bool_),
    num_channels=ALPHAGO_VALUE_NUM_CHANNELS,
    needs_history=True,
    binary=True,
    description="AlphaGo's 49 value-network planes (the 48 and the colour to move)",
)


def _katago_from_previous(config: GoConfig, state: GoState, history: BoardHistory, previous) -> Any:
    """:func:`katago_planes` with the ladders of the earlier boards taken from ``previous``."""
    return katago_planes(config, state, history, previous=previous, dtype=jnp.bool_)


register_observation(
    "katago",
    functools.partial(katago_planes, dtype=jnp.bool_),
    needs_history=True,
    binary=True,
    description="KataGo v7-style planes (compact layout) and global features, as a (planes, globals) pair",
    with_globals=True,
    from_previous=_katago_from_previous,
    reads_komi=True,
)
