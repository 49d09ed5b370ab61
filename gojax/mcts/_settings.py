"""The settings of an mctx search (:class:`SearchSettings`), shared by self-play, players and GTP.

::

    settings = SearchSettings(num_simulations=64, algorithm="puct")
    out = search(config, evaluate, states, key, settings)
    player = AlphaZeroPlayer(graphdef, variables, settings.for_play())

One frozen, hashable, validated object: close over it or pass it as a static
argument of ``jax.jit``. :func:`gojax.mcts.search`, self-play
(:class:`gojax.alphazero.SelfPlaySettings`), the players
(:class:`gojax.players.UCTPlayer`, :class:`gojax.alphazero.AlphaZeroPlayer`),
the training driver's evaluation and the GTP engine all take it.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Literal

from gojax._core import checks

__all__ = ["ALGORITHMS", "SearchSettings"]

ALGORITHMS = ("gumbel", "puct", "uct")
"""The search algorithms: Gumbel MuZero, AlphaZero's PUCT (both from mctx) and UCT (UCB1 on mctx's tree)."""


@dataclasses.dataclass(frozen=True)
class SearchSettings:
    """How :func:`search` searches (frozen and hashable; every field is validated).

    Attributes:
      num_simulations: simulations (new tree nodes) per game and move.
      algorithm: ``"gumbel"`` (``mctx.gumbel_muzero_policy``: Sequential
        Halving with Gumbel noise at the root; the policy target is the
        improved policy ``softmax(logits + completed Q)``) or ``"puct"``
        (``mctx.muzero_policy``: AlphaZero's PUCT with Dirichlet noise at the
        root; the policy target is the root visit frequencies) or ``"uct"``
        (``mctx.search`` with UCB1 selection; the move is the most visited
        root child, the policy target the root visit frequencies).
      max_depth: cap on the depth of a simulation (``None``: ``num_simulations``).
      max_num_considered_actions: ``"gumbel"``: root actions sampled.
      gumbel_scale: ``"gumbel"``: scale of the root Gumbel noise (0: deterministic).
      dirichlet_fraction, dirichlet_alpha: ``"puct"``: weight and
        concentration of the root Dirichlet noise (fraction 0: none).
      temperature: ``"puct"``: the action is sampled from
        ``visits ** (1 / temperature)`` (0: the most visited, ties at random).
      pb_c_init, pb_c_base: ``"puct"``: the PUCT exploration constants.
      ucb_c: ``"uct"``: the UCB1 exploration constant ``C`` for win rates
        in ``[0, 1]``.
      fill_own_eyes: ``False``: the mover's one-point eyes
        (:func:`gojax.playouts.own_eyes`) are pruned at every node, as the
        illegal moves are, so the search never fills one (pass stays
        legal). What a player in a match wants; self-play keeps them.

    Raises:
      TypeError: naming the field and the value, for a value of the wrong type.
      ValueError: naming the field and the value, for a value out of range.
    """

    num_simulations: int = 16
    algorithm: Literal["gumbel", "puct", "uct"] = "gumbel"
    max_depth: int | None = None
    max_num_considered_actions: int = 16
    gumbel_scale: float = 1.0
    dirichlet_fraction: float = 0.25
    dirichlet_alpha: float = 0.3
    temperature: float = 1.0
    pb_c_init: float = 1.25
    pb_c_base: float = 19652.0
    ucb_c: float = math.sqrt(2.0)
    fill_own_eyes: bool = True

    def __post_init__(self):
        if self.algorithm not in ALGORITHMS:
            raise ValueError(f"SearchSettings.algorithm must be one of {ALGORITHMS}, got {self.algorithm!r}")
        for name in ("num_simulations", "max_depth", "max_num_considered_actions"):
            value = getattr(self, name)
            if value is not None or name != "max_depth":
                object.__setattr__(self, name, checks.integer(value, f"SearchSettings.{name}", least=1))
        # Floats, so that equal settings hash equal.
        for name, positive, most in (
            ("gumbel_scale", False, None),
            ("dirichlet_fraction", False, 1.0),
            ("dirichlet_alpha", True, None),
            ("temperature", False, None),
            ("pb_c_init", False, None),
            ("pb_c_base", True, None),
            ("ucb_c", False, None),
        ):
            value = checks.number(
                getattr(self, name), f"SearchSettings.{name}", least=0.0, most=most, positive=positive
            )
            object.__setattr__(self, name, value)
        if not isinstance(self.fill_own_eyes, bool):
            raise TypeError(f"SearchSettings.fill_own_eyes must be a bool, got {self.fill_own_eyes!r}")

    def replace(self, **changes: Any) -> SearchSettings:
        """A copy with the given fields replaced (validated again)."""
        return dataclasses.replace(self, **changes)

    def for_play(self) -> SearchSettings:
        """The same search for matches: ``temperature=0``, ``dirichlet_fraction=0``, ``fill_own_eyes=False``.

        What a player in a match uses: PUCT plays its most visited move;
        Gumbel keeps its ``gumbel_scale`` (set it to 0 for a deterministic
        search); neither fills its own one-point eyes.
        """
        return self.replace(temperature=0.0, dirichlet_fraction=0.0, fill_own_eyes=False)

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict."""
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> SearchSettings:
        """Inverse of :meth:`to_dict`.

        Raises:
          ValueError: on an unknown field (or a bad value, as the constructor).
        """
        checks.known_fields(cls, data)
        return cls(**data)
