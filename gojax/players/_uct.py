"""UCT (Kocsis & Szepesvari 2006) as a player: UCB1 in mctx's tree, a rollout at each new node.

The search is :func:`gojax.mcts.search` with ``algorithm="uct"`` and a
:class:`gojax.mcts.RolloutEvaluator`; its module docstring states the four
phases, the UCB1 score, the signs and the terminal nodes. The player is the
search on a batch of one game.
"""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp

from gojax._core import checks
from gojax._core.types import GoConfig, GoState
from gojax._host.optional import require
from gojax.mcts import RolloutEvaluator, SearchSettings, search
from gojax.playouts import Player, random_playout_policy

__all__ = ["UCTPlayer", "uct_player"]


@dataclasses.dataclass(frozen=True)
class UCTPlayer:
    """UCT with rollout evaluation, on :func:`gojax.mcts.search` (needs mctx: the ``players`` extra).

    Attributes:
      num_simulations: simulations (new nodes, rollouts) per move.
      c: UCB1 exploration constant for win rates in ``[0, 1]``.
      rollout_policy: playout policy of the simulation phase.
      max_rollout_moves: cap on the moves of one rollout (``None``: to the end).
      max_depth: cap on the tree depth (``None``: ``num_simulations``).
    """

    num_simulations: int = 64
    c: float = math.sqrt(2.0)
    rollout_policy: Player = random_playout_policy
    max_rollout_moves: int | None = None
    max_depth: int | None = None

    def __post_init__(self):
        require("mctx", feature="gojax.players.uct_player", extra="players")
        simulations = checks.integer(self.num_simulations, "num_simulations", least=1)
        object.__setattr__(self, "num_simulations", simulations)
        if not math.isfinite(float(self.c)) or float(self.c) < 0:
            raise ValueError(f"c must be a finite number >= 0, got {self.c!r}")

    @property
    def settings(self) -> SearchSettings:
        """The :class:`gojax.mcts.SearchSettings` of the search (``algorithm="uct"``)."""
        return SearchSettings(
            num_simulations=self.num_simulations,
            algorithm="uct",
            ucb_c=float(self.c),
            max_depth=self.max_depth,
        )

    @property
    def evaluator(self) -> RolloutEvaluator:
        """The search's evaluator: a uniform prior and one ``rollout_policy`` rollout."""
        return RolloutEvaluator(self.rollout_policy, self.max_rollout_moves)

    def __call__(self, config: GoConfig, state: GoState, key: jax.Array) -> jax.Array:
        """``int32[]``: the most visited root move of the search from ``state``; pass if over."""
        batch = jax.tree.map(lambda x: x[None], state)
        out = search(config, self.evaluator, batch, key, self.settings)
        return jnp.where(state.done, config.pass_action, out.action[0]).astype(jnp.int32)


def uct_player(
    num_simulations: int = 64,
    c: float = math.sqrt(2.0),
    rollout_policy: Player = random_playout_policy,
    max_rollout_moves: int | None = None,
) -> UCTPlayer:
    """A :class:`UCTPlayer`: ``num_simulations`` UCB1 simulations with ``rollout_policy`` playouts."""
    return UCTPlayer(num_simulations, c, rollout_policy, max_rollout_moves)
