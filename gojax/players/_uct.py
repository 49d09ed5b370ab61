"""UCT (Kocsis & Szepesvari 2006): UCB1 in the tree, random playouts at the leaves, on mctx.

The tree is mctx's (``mctx.search``: its node storage, expansion and backup);
gojax supplies the model (``recurrent_fn``: :func:`gojax.step` plus a
rollout) and the selection rule. The four phases of one simulation:

1. **Selection** - from the root, pick the child maximising UCB1 (below)
   until an action whose child is not in the tree yet.
2. **Expansion** - mctx adds that child (one new node per simulation) and
   calls ``recurrent_fn`` on it: ``step`` the parent's game with the action.
3. **Simulation** - ``recurrent_fn`` plays one rollout from the new node
   (:func:`gojax.players.rollout`, random or heuristic policy) and returns its
   result as the node's value.
4. **Backpropagation** - mctx adds the value to every node on the path,
   flipping its sign at each level (``discount = -1``).

**Why not** ``mctx.muzero_policy``: its selection score is
``qtransform(Q) + sqrt(N) * c(N) * prior / (1 + n)`` with
``c(N) = pb_c_init + log((N + pb_c_base + 1) / pb_c_base)`` (PUCT). No
choice of ``pb_c_init``, ``pb_c_base`` or prior turns
``sqrt(N) / (1 + n)`` into UCB1's ``sqrt(ln N / n)``, and a ``qtransform``
only replaces the value term (one could return the whole UCB1 score from it
after zeroing the PUCT term with ``pb_c_init = 0`` and a ``pb_c_base`` so
large that ``log(1 + (N + 1) / pb_c_base)`` rounds to 0 in float32 - a trick
that depends on rounding). So this module passes its own selection function,
:func:`ucb1_action_selection`, to ``mctx.search`` - mctx's public search
loop, the same one ``muzero_policy`` runs - and UCT is exact:

    score(a) = W(a) + C * sqrt(ln N / n(a))     (C = sqrt(2) by default)

where ``n(a)`` is the child's visit count, ``N`` the node's visit count
(mctx's ``node_visits``: 1 for the node's own rollout plus its children's
visits, as in UCT), ``W(a) = (1 + Q(a)) / 2`` the child's mean result **in
[0, 1]** for the player choosing at the node (``Q`` is mctx's
``reward + discount * value`` in ``[-1, 1]``; UCB1's ``sqrt(2)`` assumes
rewards in ``[0, 1]``). Unvisited legal children score ``+inf`` (each is tried
once before any is tried twice), in random order; ties are broken at random.

**Values and signs.** A node's value is from the view of the player to move
there; the edge into it carries ``discount = -1``, so ``Q`` at the parent is
from the parent's mover's view. A move that ends the game (two passes, the
move cap, an illegal move) gets ``reward`` = its result for the player who made
it (+1, -1, 0; a game stopped by the move cap is scored by area, like the
rollouts), ``discount = 0`` and value 0: a terminal node adds nothing more.
Below a terminal node only "pass" is allowed, stepping a finished game does
nothing, and those edges have reward 0 and discount 0.

**Illegal moves** are masked at every depth: ``recurrent_fn`` returns a prior
logit of ``float32`` min for the actions illegal in the new position (mctx
masks only the root, through ``invalid_actions``), and the selection never
picks them. Were one picked anyway, :func:`gojax.step` would end the game as a
loss for the mover - a terminal loss, not a corrupt tree.

**Memory.** Every node stores its whole :class:`gojax.GoState` as the mctx
embedding: ``B * (num_simulations + 1)`` states (9x9 under positional
superko: 2,528 bytes each, 242 under the simple ko rule), plus six
``[B, num_simulations + 1, A]`` 4-byte arrays of per-child statistics - for
9x9, 512 simulations and 256 games about 330 MB of states and 260 MB of
statistics.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core import checks
from gojax._core.rules import legal_action_mask, step
from gojax._core.types import GoConfig, GoState
from gojax._host.optional import import_optional, require
from gojax.players._common import Player, result_for
from gojax.players._random import random_playout_policy
from gojax.players._rollout import rollout

if TYPE_CHECKING:
    import mctx

__all__ = ["ILLEGAL_LOGIT", "UCTPlayer", "ucb1_action_selection", "uct_player"]

ILLEGAL_LOGIT = float(np.finfo(np.float32).min)
"""Prior logit that marks an illegal action in the tree."""

_LEGAL_ABOVE = -1e30  # logits above this are legal actions
_UNVISITED = 1e6  # UCB1 score of an unvisited child (+inf, kept finite for the random order)


def _mctx():
    """mctx (the players extra), imported on use so the other players work without it."""
    return import_optional("mctx", feature="gojax.players.uct_player", extra="players")


def ucb1_action_selection(
    rng_key: jax.Array, tree: mctx.Tree, node_index: jax.Array, depth: jax.Array | int = 0, *, c: float
) -> jax.Array:
    """UCB1 selection for ``mctx.search`` (an unbatched tree, one node).

    Args:
      rng_key: PRNG key (random order of unvisited children and ties).
      tree: the unbatched mctx tree.
      node_index: ``int32[]`` node to select from.
      depth: ``int[]`` its depth (0 at the root, where mctx's
        ``root_invalid_actions`` also apply).
      c: the exploration constant ``C``.

    Returns:
      ``int32[]``: the legal action with the highest UCB1 score (see the
      module docstring).
    """
    visits = tree.children_visits[node_index]
    parent_visits = tree.node_visits[node_index].astype(jnp.float32)
    win_rate = (1.0 + tree.qvalues(node_index)) / 2.0
    explore = c * jnp.sqrt(jnp.log(jnp.maximum(parent_visits, 1.0)) / jnp.maximum(visits, 1))
    noise = jax.random.uniform(rng_key, visits.shape)
    score = jnp.where(visits > 0, win_rate + explore + 1e-6 * noise, _UNVISITED + noise)
    legal = tree.children_prior_logits[node_index] > _LEGAL_ABOVE
    at_root = jnp.asarray(depth) == 0
    legal = legal & ~(at_root & (tree.root_invalid_actions > 0))
    return jnp.argmax(jnp.where(legal, score, -jnp.inf)).astype(jnp.int32)


def _prior_logits(config: GoConfig, state: GoState) -> jax.Array:
    """``float32[A]``: 0 for legal actions, :data:`ILLEGAL_LOGIT` else; only pass once the game is over."""
    legal = legal_action_mask(config, state)
    only_pass = jnp.arange(config.num_actions) == config.pass_action
    legal = jnp.where(state.done, only_pass, legal)
    return jnp.where(legal, 0.0, ILLEGAL_LOGIT).astype(jnp.float32)


@dataclasses.dataclass(frozen=True)
class UCTPlayer:
    """UCT with playout evaluation on mctx (see the module docstring).

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

    def _evaluate(self, config: GoConfig, state: GoState, key: jax.Array) -> jax.Array:
        return rollout(config, state, key, self.rollout_policy, self.max_rollout_moves)

    def recurrent_fn(self, config: GoConfig):
        """The mctx ``recurrent_fn(params, key, action[B], embedding[B]) -> (output, embedding)``."""

        def one(parent: GoState, action: jax.Array, key: jax.Array):
            child = step(config, parent, action)
            ends = child.done & ~parent.done
            reward = jnp.where(ends, result_for(config, child, parent.turn), 0.0)
            discount = jnp.where(child.done, 0.0, -1.0).astype(jnp.float32)
            value = jnp.where(child.done, 0.0, self._evaluate(config, child, key))
            return reward, discount, _prior_logits(config, child), value, child

        mctx = _mctx()

        def recurrent_fn(params, rng_key, action, embedding):
            del params
            keys = jax.random.split(rng_key, action.shape[0])
            reward, discount, logits, value, child = jax.vmap(one)(embedding, action, keys)
            output = mctx.RecurrentFnOutput(
                reward=reward, discount=discount, prior_logits=logits, value=value
            )
            return output, child

        return recurrent_fn

    def search(self, config: GoConfig, state: GoState, key: jax.Array) -> mctx.Tree:
        """Runs the search from ONE game and returns mctx's tree (batch of 1).

        Returns:
          ``mctx.Tree`` with a leading batch axis of size 1; node 0 is the
          root, ``tree.embeddings`` are the nodes' :class:`gojax.GoState`.
        """
        mctx = _mctx()
        root_key, search_key = jax.random.split(key)
        logits = _prior_logits(config, state)
        value = jnp.where(state.done, 0.0, self._evaluate(config, state, root_key))
        root = mctx.RootFnOutput(
            prior_logits=logits[None],
            value=value[None].astype(jnp.float32),
            embedding=jax.tree.map(lambda x: x[None], state),
        )
        select = functools.partial(ucb1_action_selection, c=float(self.c))
        return mctx.search(
            params=None,
            rng_key=search_key,
            root=root,
            recurrent_fn=self.recurrent_fn(config),
            root_action_selection_fn=lambda k, tree, node: select(k, tree, node, 0),
            interior_action_selection_fn=select,
            num_simulations=self.num_simulations,
            max_depth=self.max_depth,
            invalid_actions=(logits <= _LEGAL_ABOVE)[None].astype(jnp.float32),
        )

    def choose(self, config: GoConfig, tree: mctx.Tree, state: GoState, key: jax.Array) -> jax.Array:
        """``int32[]``: the most visited root move (ties: higher ``Q``, then random); pass if over."""
        visits = tree.children_visits[0, 0].astype(jnp.float32)
        q = tree.qvalues(jnp.zeros((1,), jnp.int32))[0]
        noise = jax.random.uniform(key, visits.shape, maxval=1e-3)
        legal = tree.children_prior_logits[0, 0] > _LEGAL_ABOVE
        score = jnp.where(legal, visits + 0.25 * (q + 1.0) + noise, -jnp.inf)
        return jnp.where(state.done, config.pass_action, jnp.argmax(score)).astype(jnp.int32)

    def __call__(self, config: GoConfig, state: GoState, key: jax.Array) -> jax.Array:
        """``int32[]``: :meth:`choose` after :meth:`search`."""
        search_key, tie_key = jax.random.split(key)
        return self.choose(config, self.search(config, state, search_key), state, tie_key)


def uct_player(
    num_simulations: int = 64,
    c: float = math.sqrt(2.0),
    rollout_policy: Player = random_playout_policy,
    max_rollout_moves: int | None = None,
) -> UCTPlayer:
    """A :class:`UCTPlayer`: ``num_simulations`` UCB1 simulations with ``rollout_policy`` playouts."""
    return UCTPlayer(num_simulations, c, rollout_policy, max_rollout_moves)
