"""One mctx search for every player: the exact rules as the model, an evaluator at the leaves.

::

    out = search(config, evaluate, states, key, SearchSettings(num_simulations=64))
    out.action            # int32[B]: the move to play
    out.action_weights    # float32[B, A]: the policy target for training
    out.search_tree       # mctx.Tree: tree.embeddings are the nodes' GoState

The tree is mctx's (node storage, expansion, backup). gojax supplies the
**model** and, for UCT, the selection rule:

* ``recurrent_fn`` plays the action with :func:`gojax.step` and asks the
  **evaluator** (:mod:`gojax.mcts._evaluators`: ``evaluate(config, states,
  key) -> (logits, value)``) about the new position: a network, or a uniform
  prior and a rollout. The mctx **embedding** of a node is its
  :class:`gojax.GoState`.
* The algorithm (:attr:`SearchSettings.algorithm`): ``"gumbel"``
  (``mctx.gumbel_muzero_policy``), ``"puct"`` (``mctx.muzero_policy``) or
  ``"uct"`` (``mctx.search`` with :func:`ucb1_action_selection`, below).

**Values and signs.** A node's value is from the view of the player to move
there (the evaluator's convention). The edge into a node that is still
running carries ``reward = 0`` and ``discount = -1``, so mctx's
``Q = reward + discount * value`` at the parent is from the parent's mover's
view.

**Terminal nodes.** A move that ends the game (the second pass, the move cap;
an illegal move, were one played) gets ``reward`` = its result for the player
who made it (+1 win, -1 loss, 0 draw, as :func:`gojax.winner` decides: a
forfeit, else the Tromp-Taylor area, also for a game stopped by the move
cap), ``discount = 0`` and value 0, so nothing below it counts. Only the
games that just ended are scored (:func:`gojax._core.scoring.score_if_ended`).
Below a terminal node only pass is allowed; stepping a finished game changes
nothing and those edges have reward 0 and discount 0. A game **already
finished at the root** gets root value 0 and only pass legal: the search
runs (its simulations are wasted but harmless: everything is 0) and returns
pass.

**Illegal moves are masked at every depth.** mctx masks only the root (its
``invalid_actions``). Here every node's prior logits (root and
``recurrent_fn``) are :data:`ILLEGAL_LOGIT` (``float32`` min) at the actions
illegal in its position, so their prior probability is exactly 0; the
``qtransform`` is wrapped to give them a value score of ``-1e9`` as well.
PUCT's score ``value_score + prior_score`` then never picks them. Gumbel's
interior rule picks the argmax of ``pi(a) - n(a) / (1 + sum n)``: 0 at an
illegal action, while the legal actions' scores sum to ``1 / (1 + sum n) > 0``,
so the best legal one is positive and wins. UCB1 reads the mask off the
prior logits. Were an illegal action chosen anyway, :func:`gojax.step` would
end the game as a loss for the mover - a terminal loss, not a corrupt tree.

**Own eyes** (``SearchSettings.fill_own_eyes=False``, what
:meth:`SearchSettings.for_play` sets): the mover's one-point eyes
(:func:`gojax.playouts.own_eyes`) are masked the same way, at every node, so
no line of the tree fills one; pass stays legal, so a position whose only
other moves are own eyes is passed in.

**UCT** (Kocsis & Szepesvari 2006). No choice of ``pb_c_init``,
``pb_c_base`` or prior turns PUCT's ``sqrt(N) / (1 + n)`` into UCB1's
``sqrt(ln N / n)``, so ``"uct"`` passes its own selection to mctx's public
search loop (the one ``muzero_policy`` runs)::

    score(a) = W(a) + C * sqrt(ln N / n(a))     (C = SearchSettings.ucb_c)

where ``n(a)`` is the child's visit count, ``N`` the node's (mctx's
``node_visits``), ``W(a) = (1 + Q(a)) / 2`` the child's mean result **in
[0, 1]** for the player choosing at the node (UCB1's ``sqrt(2)`` assumes
rewards in ``[0, 1]``). Unvisited legal children score ``+inf`` (each is
tried once before any is tried twice), in random order; ties are broken at
random. The move is the most visited root child (ties: the higher ``Q``,
then random); the policy target is the root's visit frequencies.

**Memory.** The tree stores one :class:`gojax.GoState` per node:
``B * (num_simulations + 1)`` states - 2,444 bytes each on 9x9 under
positional superko (158 with ``ko_rule="simple"``), 8,136 on 19x19 (650
simple ko) - plus six ``[B, num_simulations + 1, A]`` 4-byte arrays of child
statistics. For 9x9, batch 256 and 64 simulations: 41 MB of states and 33 MB
of statistics; for 19x19, batch 256 and 800 simulations: 1.7 GB of states
and 1.8 GB of statistics (use the simple ko rule, or a smaller batch).

Shapes: ``B`` batch, ``N`` board side, ``P = N * N``, ``A = P + 1`` (pass is ``P``).
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core.rules import legal_action_mask, step
from gojax._core.scoring import score_if_ended
from gojax._core.types import BLACK, GoConfig, GoState
from gojax._host.optional import import_optional
from gojax.mcts._evaluators import Evaluator
from gojax.mcts._settings import SearchSettings
from gojax.playouts import own_eyes

if TYPE_CHECKING:
    import mctx

__all__ = [
    "ILLEGAL_LOGIT",
    "black_result_if_ended",
    "legal_logits",
    "make_recurrent_fn",
    "make_root",
    "search",
    "ucb1_action_selection",
]

ILLEGAL_LOGIT = float(np.finfo(np.float32).min)
"""Prior logit of an illegal action at every node of the tree."""

_LEGAL_ABOVE = -1e30  # prior logits above this are legal actions
_ILLEGAL_VALUE_SCORE = -1e9  # value score of an illegal action in the wrapped qtransform
_UNVISITED = 1e6  # UCB1 score of an unvisited child (+inf, kept finite for the random order)
_DEFAULT_SETTINGS = SearchSettings()


def _mctx():
    """mctx, imported on use (``pip install 'gojax[players]'``)."""
    return import_optional("mctx", feature="gojax.mcts.search", extra="players")


def black_result_if_ended(config: GoConfig, states: GoState, ended: jax.Array) -> tuple[jax.Array, jax.Array]:
    """``(result, score)``, ``float32[B]`` each, of the games that ``ended`` (``bool[B]``); 0 elsewhere.

    ``result`` is black's (+1, -1, 0) as :func:`gojax.winner` decides it - a
    forfeit (resignation, illegal move), otherwise the Tromp-Taylor area
    score - and ``score`` that area score; both are computed only for the
    games that ended (:func:`gojax._core.scoring.score_if_ended`).
    """
    margin = jax.vmap(functools.partial(score_if_ended, config))(states, ended)
    forfeit = jnp.where(states.loser == BLACK, -1.0, 1.0)
    black = jnp.where(states.loser > 0, forfeit, jnp.sign(margin))
    return jnp.where(ended, black, 0.0).astype(jnp.float32), margin


def legal_logits(config: GoConfig, state: GoState, logits: jax.Array) -> jax.Array:
    """``float32[A]``: ``logits`` with :data:`ILLEGAL_LOGIT` at the illegal actions of ONE game.

    Once the game is over only pass counts as legal (it changes nothing).
    """
    legal = legal_action_mask(config, state)
    only_pass = jnp.arange(config.num_actions) == config.pass_action
    legal = jnp.where(state.done, only_pass, legal)
    return jnp.where(legal, logits.astype(jnp.float32), ILLEGAL_LOGIT)


def _evaluate(config: GoConfig, evaluate: Evaluator, states: GoState, key: jax.Array):
    """Masked prior logits ``[B, A]`` and values ``[B]`` (0 for finished games) of a batch."""
    logits, value = evaluate(config, states, key)
    logits = jax.vmap(functools.partial(legal_logits, config))(states, logits)
    value = jnp.where(states.done, 0.0, value).astype(jnp.float32)
    return logits, value


def make_root(
    config: GoConfig, evaluate: Evaluator, states: GoState, key: jax.Array
) -> tuple[mctx.RootFnOutput, jax.Array]:
    """The mctx root of a batch of games, and its invalid-action mask.

    Args:
      config: the rules.
      evaluate: the evaluator (:mod:`gojax.mcts._evaluators`).
      states: :class:`gojax.GoState` with a leading ``[B]`` axis.
      key: PRNG key of the evaluator.

    Returns:
      ``(root, invalid_actions)``: ``mctx.RootFnOutput`` (``prior_logits
      float32[B, A]`` masked, ``value float32[B]``, ``embedding`` = ``states``)
      and ``float32[B, A]`` (1 at illegal actions) for mctx's ``invalid_actions``.
    """
    logits, value = _evaluate(config, evaluate, states, key)
    root = _mctx().RootFnOutput(prior_logits=logits, value=value, embedding=states)
    return root, (logits <= _LEGAL_ABOVE).astype(jnp.float32)


def make_recurrent_fn(config: GoConfig, evaluate: Evaluator):
    """mctx's ``recurrent_fn(params, key, action int32[B], states [B]) -> (RecurrentFnOutput, states)``.

    ``params`` of the mctx call are not used (an evaluator closes over what
    it needs). See the module docstring for rewards, discounts and terminal
    nodes.
    """
    mctx = _mctx()

    def recurrent_fn(params, rng_key, action, parents):
        del params
        children = jax.vmap(functools.partial(step, config))(parents, action)
        ends = children.done & ~parents.done
        # Scored only where the game just ended: the other nodes pay almost nothing for it.
        black, _ = black_result_if_ended(config, children, ends)
        reward = jnp.where(parents.turn == 0, black, -black).astype(jnp.float32)
        discount = jnp.where(children.done, 0.0, -1.0).astype(jnp.float32)
        logits, value = _evaluate(config, evaluate, children, rng_key)
        output = mctx.RecurrentFnOutput(reward=reward, discount=discount, prior_logits=logits, value=value)
        return output, children

    return recurrent_fn


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


def _sparing_own_eyes(evaluate: Evaluator) -> Evaluator:
    """``evaluate`` with :data:`ILLEGAL_LOGIT` at the mover's one-point eyes (pruned as illegal moves)."""

    def sparing(config: GoConfig, states: GoState, key: jax.Array) -> tuple[jax.Array, jax.Array]:
        logits, value = evaluate(config, states, key)
        eyes = jax.vmap(functools.partial(own_eyes, config))(states)  # [B, P]
        eyes = jnp.pad(eyes, ((0, 0), (0, 1)))  # pass is never an eye
        return jnp.where(eyes, ILLEGAL_LOGIT, logits), value

    return sparing


def _masked_qtransform(qtransform):
    """``qtransform`` with the value score of illegal actions (prior :data:`ILLEGAL_LOGIT`) set very low."""

    def masked(tree, node_index, *args, **kwargs):
        scores = qtransform(tree, node_index, *args, **kwargs)
        legal = tree.children_prior_logits[node_index] > _LEGAL_ABOVE
        return jnp.where(legal, scores, _ILLEGAL_VALUE_SCORE)

    return masked


def _uct(common: dict, settings: SearchSettings, key: jax.Array) -> mctx.PolicyOutput:
    """``"uct"``: ``mctx.search`` with UCB1; the most visited root move (ties: higher ``Q``, then random)."""
    mctx = _mctx()
    search_key, tie_key = jax.random.split(key)
    select = functools.partial(ucb1_action_selection, c=settings.ucb_c)
    tree = mctx.search(
        **common,
        rng_key=search_key,
        root_action_selection_fn=lambda k, tree, node: select(k, tree, node, 0),
        interior_action_selection_fn=select,
    )
    root = jnp.zeros(tree.node_visits.shape[:1], jnp.int32)
    visits = tree.children_visits[:, 0].astype(jnp.float32)
    legal = tree.children_prior_logits[:, 0] > _LEGAL_ABOVE
    q = tree.qvalues(root)
    noise = jax.random.uniform(tie_key, visits.shape, maxval=1e-3)
    action = jnp.argmax(jnp.where(legal, visits + 0.25 * (q + 1.0) + noise, -jnp.inf), axis=-1)
    weights = jnp.where(legal, visits, 0.0)
    weights = weights / jnp.maximum(jnp.sum(weights, axis=-1, keepdims=True), 1.0)
    return mctx.PolicyOutput(action=action.astype(jnp.int32), action_weights=weights, search_tree=tree)


def search(
    config: GoConfig,
    evaluate: Evaluator,
    states: GoState,
    key: jax.Array,
    settings: SearchSettings = _DEFAULT_SETTINGS,
) -> mctx.PolicyOutput:
    """Searches a batch of games with mctx (see the module docstring).

    Pure and jittable (``config``, ``evaluate`` and ``settings`` are static;
    an evaluator that closes over traced arrays, such as a network's
    variables, is fine inside a jitted function).

    Args:
      config: the rules.
      evaluate: ``evaluate(config, states, key) -> (logits, value)``
        (:mod:`gojax.mcts._evaluators`).
      states: :class:`gojax.GoState` with a leading ``[B]`` axis.
      key: PRNG key.
      settings: the algorithm, simulations and noise (:class:`SearchSettings`).

    Returns:
      ``mctx.PolicyOutput``: ``action int32[B]`` (always legal; pass for a
      finished game), ``action_weights float32[B, A]`` (0 at illegal actions)
      and ``search_tree`` (``mctx.Tree``; ``tree.embeddings`` are the nodes'
      :class:`gojax.GoState`, ``[B, num_simulations + 1]``).

    Raises:
      TypeError: if ``settings`` is not a :class:`SearchSettings` or
        ``evaluate`` is not callable.
    """
    mctx = _mctx()
    if not isinstance(settings, SearchSettings):
        raise TypeError(f"settings must be a SearchSettings, got {settings!r}")
    if not callable(evaluate):
        raise TypeError(
            f"evaluate must be an evaluator (config, states, key) -> (logits, value), got {evaluate!r}"
        )
    if not settings.fill_own_eyes:
        evaluate = _sparing_own_eyes(evaluate)
    root_key, search_key = jax.random.split(key)
    root, invalid = make_root(config, evaluate, states, root_key)
    common = dict(
        params=None,
        root=root,
        recurrent_fn=make_recurrent_fn(config, evaluate),
        num_simulations=settings.num_simulations,
        invalid_actions=invalid,
        max_depth=settings.max_depth,
    )
    if settings.algorithm == "uct":
        return _uct(common, settings, search_key)
    if settings.algorithm == "puct":
        return mctx.muzero_policy(
            **common,
            rng_key=search_key,
            qtransform=_masked_qtransform(mctx.qtransform_by_parent_and_siblings),
            dirichlet_fraction=settings.dirichlet_fraction,
            dirichlet_alpha=settings.dirichlet_alpha,
            pb_c_init=settings.pb_c_init,
            pb_c_base=settings.pb_c_base,
            temperature=settings.temperature,
        )
    return mctx.gumbel_muzero_policy(
        **common,
        rng_key=search_key,
        qtransform=_masked_qtransform(mctx.qtransform_completed_by_mix_value),
        max_num_considered_actions=settings.max_num_considered_actions,
        gumbel_scale=settings.gumbel_scale,
    )
