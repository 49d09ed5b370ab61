"""``TreeSearchSettings``: the frozen, validated settings of :class:`gojax.search.TreeSearch`."""

from __future__ import annotations

import dataclasses

from gojax._core import checks
from gojax.playouts import POLICY_NAMES

__all__ = ["GUIDED_PRIOR_VISITS", "PRIOR_VISITS", "TreeSearchSettings"]

PRIOR_VISITS = 10.0
"""The prior's equivalent visits of a search without a guide (rules of thumb only)."""

GUIDED_PRIOR_VISITS = 50.0
"""The prior's equivalent visits of a search with a guide: its policy is worth more than the rules of
thumb, and it steers the search for longer."""


@dataclasses.dataclass(frozen=True)
class TreeSearchSettings:
    """How :class:`gojax.search.TreeSearch` searches.

    One batch step selects ``leaves_per_batch`` leaves (virtual loss keeps
    them apart), expands them and runs ``playouts_per_leaf`` playouts from
    each, so a batch is ``leaves_per_batch * playouts_per_leaf`` playouts in
    one compiled call.

    Attributes:
      leaves_per_batch: ``K``, leaves selected per batch step (1..4096).
      playouts_per_leaf: ``M``, playouts run from each leaf (1..4096).
      playout_policy: ``"heavy"`` (the default; on the light bitboard
        kernel of :mod:`gojax.playouts._light`, MoGo-style priorities of
        :mod:`gojax.playouts._heavy`: a capture or atari escape next to the last
        move, then a 3x3 pattern next to it, then any capture or escape, then
        a random move that is no self-atari), ``"light"`` (uniform, own eyes
        never filled, on the same kernel), ``"random"`` (the light policy on ``gojax.step``) or
        ``"heuristic"`` (capture, escape atari, avoid self-atari, on
        ``gojax.step``: slow).
      playout_moves: most moves of one playout; ``None`` for ``3 * P``. A
        playout stopped there is scored by area as it stands.
      rave_equivalence: ``k`` of MoGo's RAVE weight
        ``beta = sqrt(k / (3 n + k))`` for a child seen ``n`` times: the
        number of visits at which the child's own mean and its AMAF mean
        weigh equally (0 turns RAVE off).
      exploration: ``C`` of the UCB term ``C * sqrt(ln N / (n + 1))`` added
        to each child's blended value (0 for none, as MoGo with RAVE).
      first_play_urgency: value of a child with neither visits nor AMAF
        samples, in [0, 1].
      prior_visits: equivalent experience of the prior: every legal child
        starts with this many AMAF samples at its prior win rate, and pass
        with a win rate of ``pass_prior``. ``None`` (default):
        :data:`PRIOR_VISITS` without a guide, :data:`GUIDED_PRIOR_VISITS`
        with one (:meth:`resolved`), where the prior carries the network's
        policy.
      pass_prior: the win rate of pass's prior AMAF samples, in [0, 1] (low:
        pass is tried late unless it wins).
      heuristic_prior: whether the prior win rate of a point comes from the
        rules of thumb of :mod:`gojax.search._prior` (captures, escapes,
        self-ataris, own eyes, the first line) rather than 1/2.
      opening_prior: on boards of :data:`gojax.search._prior.OPENING_SIZE`
        and more, also the prior's open-area rules (the third and fourth
        lines before the first two where no stone is near) and its last-move
        rule. Off by default; they steer the search only with a heavy prior
        (``prior_visits`` in the hundreds), since the prior's samples are
        AMAF samples and the playouts give thousands.
      virtual_loss: losses added to each node of a path while its playouts
        are pending (keeps the leaves of one batch apart).
      max_nodes: nodes the tree may hold; when full, leaves are evaluated
        without being added.
      time_margin: fraction of a ``seconds`` budget kept in reserve; a batch
        is started only when the time left after it is predicted (from the
        slowest recent batch) to be at least this fraction of the budget.
      policy_weight: with a guide (:mod:`gojax.search._guide`), the weight
        in [0, 1] of its policy in each point's prior win rate.
      value_weight: with a guide, the weight in [0, 1] of its value against
        the playouts' results at each leaf (AlphaGo's mixing constant; 0,
        the default: the playouts alone judge, the guide's policy steers).
      dynamic_komi: ``f`` in [0, 1]: a player to move that leads must win its
        playouts by ``f`` of its lead, fading to none by move ``P / 2``
        (:mod:`gojax.search._komi`); 0, the default: the game's komi only.
    """

    leaves_per_batch: int = 32
    playouts_per_leaf: int = 8
    playout_policy: str = "heavy"
    playout_moves: int | None = None
    rave_equivalence: float = 1000.0
    exploration: float = 0.0
    first_play_urgency: float = 1.0
    prior_visits: float | None = None
    pass_prior: float = 0.1
    heuristic_prior: bool = True
    opening_prior: bool = False
    virtual_loss: int = 1
    max_nodes: int = 200_000
    time_margin: float = 0.05
    policy_weight: float = 0.5
    value_weight: float = 0.0
    dynamic_komi: float = 0.0

    def __post_init__(self) -> None:
        def integer(name: str, least: int, most: int) -> None:
            value = checks.integer(getattr(self, name), f"TreeSearchSettings.{name}", least=least, most=most)
            object.__setattr__(self, name, value)

        def number(name: str, least: float, most: float | None = None) -> None:
            value = checks.number(getattr(self, name), f"TreeSearchSettings.{name}", least=least, most=most)
            object.__setattr__(self, name, value)

        integer("leaves_per_batch", 1, 4096)
        integer("playouts_per_leaf", 1, 4096)
        if self.playout_policy not in POLICY_NAMES:
            raise ValueError(
                f"TreeSearchSettings.playout_policy must be one of {POLICY_NAMES}, "
                f"got {self.playout_policy!r}"
            )
        if self.playout_moves is not None:
            integer("playout_moves", 1, 32767)
        number("rave_equivalence", 0.0)
        number("exploration", 0.0)
        number("first_play_urgency", 0.0, 1.0)
        if self.prior_visits is not None:
            number("prior_visits", 0.0)
        number("pass_prior", 0.0, 1.0)
        for flag in ("heuristic_prior", "opening_prior"):
            if not isinstance(getattr(self, flag), bool):
                raise TypeError(f"TreeSearchSettings.{flag} must be a bool, got {getattr(self, flag)!r}")
        integer("virtual_loss", 0, 1000)
        integer("max_nodes", 2, 100_000_000)
        number("time_margin", 0.0, 0.9)
        number("policy_weight", 0.0, 1.0)
        number("value_weight", 0.0, 1.0)
        number("dynamic_komi", 0.0, 1.0)

    def resolved(self, guided: bool) -> TreeSearchSettings:
        """These settings with ``prior_visits`` set: as given, or its default for a search with or
        without a guide."""
        if self.prior_visits is not None:
            return self
        return dataclasses.replace(self, prior_visits=GUIDED_PRIOR_VISITS if guided else PRIOR_VISITS)

    def moves_per_playout(self, num_points: int) -> int:
        """The playout move limit for a board of ``num_points`` points."""
        return 3 * num_points if self.playout_moves is None else self.playout_moves
