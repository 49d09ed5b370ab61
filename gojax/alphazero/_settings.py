"""The settings of an AlphaZero search (:class:`SearchSettings`), shared by self-play, players and GTP.

::

    settings = SearchSettings(num_simulations=64, algorithm="puct")
    out = search(config, graphdef, variables, states, key, settings)
    player = AlphaZeroPlayer(graphdef, variables, settings.for_play())

One frozen, hashable, validated object: close over it or pass it as a static
argument of ``jax.jit``. Self-play (:class:`SelfPlaySettings`), the player
(:class:`AlphaZeroPlayer`), the training driver's evaluation and the GTP
engine all take it.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal

__all__ = ["ALGORITHMS", "SearchSettings"]

ALGORITHMS = ("gumbel", "puct")
"""The search algorithms: Gumbel MuZero and AlphaZero's PUCT (both from mctx)."""


def _check_int(name: str, value: Any, least: int) -> None:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"SearchSettings.{name} must be an int, got {value!r}")
    if value < least:
        raise ValueError(f"SearchSettings.{name} must be >= {least}, got {value!r}")


def _check_float(settings: SearchSettings, name: str, low: float, high: float, open_low: bool) -> None:
    value = getattr(settings, name)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"SearchSettings.{name} must be a number, got {value!r}")
    value = float(value)
    below = value <= low if open_low else value < low
    if not math.isfinite(value) or below or value > high:
        bound = f"({low:g}" if open_low else f"[{low:g}"
        raise ValueError(f"SearchSettings.{name} must be finite and in {bound}, {high:g}], got {value!r}")
    object.__setattr__(settings, name, value)  # a float, so equal settings hash equal


@dataclasses.dataclass(frozen=True)
class SearchSettings:
    """How :func:`search` searches (frozen and hashable; every field is validated).

    Attributes:
      num_simulations: simulations (new tree nodes) per game and move.
      algorithm: ``"gumbel"`` (``mctx.gumbel_muzero_policy``: Sequential
        Halving with Gumbel noise at the root; the policy target is the
        improved policy ``softmax(logits + completed Q)``) or ``"puct"``
        (``mctx.muzero_policy``: AlphaZero's PUCT with Dirichlet noise at the
        root; the policy target is the root visit frequencies).
      max_depth: cap on the depth of a simulation (``None``: ``num_simulations``).
      max_num_considered_actions: ``"gumbel"``: root actions sampled.
      gumbel_scale: ``"gumbel"``: scale of the root Gumbel noise (0: deterministic).
      dirichlet_fraction, dirichlet_alpha: ``"puct"``: weight and
        concentration of the root Dirichlet noise (fraction 0: none).
      temperature: ``"puct"``: the action is sampled from
        ``visits ** (1 / temperature)`` (0: the most visited, ties at random).
      pb_c_init, pb_c_base: ``"puct"``: the PUCT exploration constants.

    Raises:
      TypeError: naming the field and the value, for a value of the wrong type.
      ValueError: naming the field and the value, for a value out of range.
    """

    num_simulations: int = 16
    algorithm: Literal["gumbel", "puct"] = "gumbel"
    max_depth: int | None = None
    max_num_considered_actions: int = 16
    gumbel_scale: float = 1.0
    dirichlet_fraction: float = 0.25
    dirichlet_alpha: float = 0.3
    temperature: float = 1.0
    pb_c_init: float = 1.25
    pb_c_base: float = 19652.0

    def __post_init__(self):
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"SearchSettings.algorithm must be one of {ALGORITHMS}, got {self.algorithm!r}")
        _check_int("num_simulations", self.num_simulations, 1)
        if self.max_depth is not None:
            _check_int("max_depth", self.max_depth, 1)
        _check_int("max_num_considered_actions", self.max_num_considered_actions, 1)
        _check_float(self, "gumbel_scale", 0.0, math.inf, open_low=False)
        _check_float(self, "dirichlet_fraction", 0.0, 1.0, open_low=False)
        _check_float(self, "dirichlet_alpha", 0.0, math.inf, open_low=True)
        _check_float(self, "temperature", 0.0, math.inf, open_low=False)
        _check_float(self, "pb_c_init", 0.0, math.inf, open_low=False)
        _check_float(self, "pb_c_base", 0.0, math.inf, open_low=True)

    def replace(self, **changes: Any) -> SearchSettings:
        """A copy with the given fields replaced (validated again)."""
        return dataclasses.replace(self, **changes)

    def for_play(self) -> SearchSettings:
        """The same search without PUCT's training noise: ``temperature=0``, ``dirichlet_fraction=0``.

        What a player in a match uses: PUCT plays its most visited move;
        Gumbel keeps its ``gumbel_scale`` (set it to 0 for a deterministic search).
        """
        return self.replace(temperature=0.0, dirichlet_fraction=0.0)

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SearchSettings:
        """Inverse of :meth:`to_dict`.

        Raises:
          ValueError: on an unknown field (or a bad value, as the constructor).
        """
        unknown = sorted(set(data) - {f.name for f in dataclasses.fields(cls)})
        if unknown:
            raise ValueError(f"unknown SearchSettings fields {unknown}")
        return cls(**data)
