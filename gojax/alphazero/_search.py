"""AlphaZero search on a batch of games: mctx's PUCT or Gumbel MuZero policy, :func:`gojax.step` as the model.

::

    out = search(config, graphdef, variables, states, key, SearchSettings(num_simulations=64))
    out.action            # int32[B]: the move to play
    out.action_weights    # float32[B, A]: the policy target for training

The **model** is exact: ``recurrent_fn`` plays the action with
:func:`gojax.step` and evaluates the new position with the network
(:func:`apply` in eval mode on ``observe(config, state)``). The mctx
**embedding** of a node is its :class:`gojax.GoState`.

**Values and signs.** A node's value is from the view of the player to move
there (the network's convention). The edge into a node that is still running
carries ``reward = 0`` and ``discount = -1``, so mctx's
``Q = reward + discount * value`` at the parent is from the parent's mover's
view.

**Terminal nodes.** A move that ends the game (the second pass, the move cap;
an illegal move, were one played) gets ``reward`` = its result for the player
who made it (+1 win, -1 loss, 0 draw, :func:`gojax.winner`: the
Tromp-Taylor area decides, also for a game stopped by the move cap),
``discount = 0`` and value 0, so nothing below it counts. Below a terminal
node only pass is allowed; stepping a finished game changes nothing and those
edges have reward 0 and discount 0. A game **already finished at the root**
gets root value 0 and only pass legal: the search runs (its simulations are
wasted but harmless: everything is 0) and returns pass.

**Illegal moves are masked at every depth.** mctx masks only the root (its
``invalid_actions``). Here every node's prior logits (root and
``recurrent_fn``) are :data:`ILLEGAL_LOGIT` (``float32`` min) at the actions
illegal in its position, so their prior probability is exactly 0; the
``qtransform`` is wrapped to give them a value score of ``-1e9`` as well.
PUCT's score ``value_score + prior_score`` then never picks them. Gumbel's
interior rule picks the argmax of ``pi(a) - n(a) / (1 + sum n)``: 0 at an
illegal action, while the legal actions' scores sum to ``1 / (1 + sum n) > 0``,
so the best legal one is positive and wins. Were an illegal action chosen
anyway, :func:`gojax.step` would end the game as a loss for the mover - a
terminal loss, not a corrupt tree.

**Memory.** The tree stores one :class:`gojax.GoState` per node:
``B * (num_simulations + 1)`` states - 2,528 bytes each on 9x9 under
positional superko (242 with ``ko_rule="simple"``), 7,704 on 19x19 (218
simple ko) - plus six ``[B, num_simulations + 1, A]`` 4-byte arrays of child
statistics. For 9x9, batch 256 and 64 simulations: 42 MB of states and 33 MB
of statistics; for 19x19, batch 256 and 800 simulations: 1.6 GB of states
and 1.8 GB of statistics (use the simple ko rule, or a smaller batch).
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
from gojax.alphazero._network import Variables, apply
from gojax.alphazero._settings import SearchSettings
from gojax.features import Observation, basic_planes

if TYPE_CHECKING:
    import mctx
    from flax import nnx

__all__ = [
    "ILLEGAL_LOGIT",
    "legal_logits",
    "make_recurrent_fn",
    "make_root",
    "search",
]

ILLEGAL_LOGIT = float(np.finfo(np.float32).min)
"""Prior logit of an illegal action at every node of the tree."""

_LEGAL_ABOVE = -1e30  # prior logits above this are legal actions
_ILLEGAL_VALUE_SCORE = -1e9  # value score of an illegal action in the wrapped qtransform
_DEFAULT_SETTINGS = SearchSettings()


def _black_result_if_ended(
    config: GoConfig, states: GoState, ended: jax.Array
) -> tuple[jax.Array, jax.Array]:
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


def _evaluate(config, graphdef, variables, states, observe):
    """Masked prior logits ``[B, A]`` and values ``[B]`` (0 for finished games) of a batch."""
    planes = jax.vmap(functools.partial(observe, config))(states)
    logits, value, _ = apply(graphdef, variables, planes, train=False)
    logits = jax.vmap(functools.partial(legal_logits, config))(states, logits)
    value = jnp.where(states.done, 0.0, value).astype(jnp.float32)
    return logits, value


def make_root(
    config: GoConfig,
    graphdef: nnx.GraphDef,
    variables: Variables,
    states: GoState,
    observe: Observation = basic_planes,
) -> tuple[mctx.RootFnOutput, jax.Array]:
    """The mctx root of a batch of games, and its invalid-action mask.

    Args:
      config: the rules.
      graphdef, variables: the network (:func:`split`).
      states: :class:`gojax.GoState` with a leading ``[B]`` axis.
      observe: ``observe(config, state) -> float32[N, N, C]`` the network's input.

    Returns:
      ``(root, invalid_actions)``: ``mctx.RootFnOutput`` (``prior_logits
      float32[B, A]`` masked, ``value float32[B]``, ``embedding`` = ``states``)
      and ``float32[B, A]`` (1 at illegal actions) for mctx's ``invalid_actions``.
    """
    import mctx

    logits, value = _evaluate(config, graphdef, variables, states, observe)
    root = mctx.RootFnOutput(prior_logits=logits, value=value, embedding=states)
    return root, (logits <= _LEGAL_ABOVE).astype(jnp.float32)


def make_recurrent_fn(config: GoConfig, graphdef: nnx.GraphDef, observe: Observation = basic_planes):
    """mctx's ``recurrent_fn(variables, key, action int32[B], states [B]) -> (RecurrentFnOutput, states)``.

    ``params`` of the mctx call are the network's ``variables``. See the
    module docstring for rewards, discounts and terminal nodes.
    """
    import mctx

    def recurrent_fn(variables, rng_key, action, parents):
        del rng_key
        children = jax.vmap(functools.partial(step, config))(parents, action)
        ends = children.done & ~parents.done
        # Scored only where the game just ended: the other nodes pay almost nothing for it.
        black, _ = _black_result_if_ended(config, children, ends)
        reward = jnp.where(parents.turn == 0, black, -black).astype(jnp.float32)
        discount = jnp.where(children.done, 0.0, -1.0).astype(jnp.float32)
        logits, value = _evaluate(config, graphdef, variables, children, observe)
        output = mctx.RecurrentFnOutput(reward=reward, discount=discount, prior_logits=logits, value=value)
        return output, children

    return recurrent_fn


def _masked_qtransform(qtransform):
    """``qtransform`` with the value score of illegal actions (prior :data:`ILLEGAL_LOGIT`) set very low."""

    def masked(tree, node_index, *args, **kwargs):
        scores = qtransform(tree, node_index, *args, **kwargs)
        legal = tree.children_prior_logits[node_index] > _LEGAL_ABOVE
        return jnp.where(legal, scores, _ILLEGAL_VALUE_SCORE)

    return masked


def search(
    config: GoConfig,
    graphdef: nnx.GraphDef,
    variables: Variables,
    states: GoState,
    key: jax.Array,
    settings: SearchSettings = _DEFAULT_SETTINGS,
    *,
    observe: Observation = basic_planes,
) -> mctx.PolicyOutput:
    """Runs the AlphaZero search from a batch of games (see the module docstring).

    Pure and jittable (``config``, ``graphdef``, ``settings`` and ``observe``
    are static).

    Args:
      config: the rules.
      graphdef, variables: the network (:func:`split`); evaluated in eval mode.
      states: :class:`gojax.GoState` with a leading ``[B]`` axis.
      key: PRNG key.
      settings: the algorithm, simulations and noise (:class:`SearchSettings`).
      observe: ``observe(config, state) -> float32[N, N, C]``, the network's input.

    Returns:
      ``mctx.PolicyOutput``: ``action int32[B]`` (always legal; pass for a
      finished game), ``action_weights float32[B, A]`` (0 at illegal actions)
      and ``search_tree`` (``mctx.Tree``; ``tree.embeddings`` are the nodes'
      :class:`gojax.GoState`, ``[B, num_simulations + 1]``).

    Raises:
      TypeError: if ``settings`` is not a :class:`SearchSettings`.
    """
    import mctx

    if not isinstance(settings, SearchSettings):
        raise TypeError(f"settings must be a SearchSettings, got {settings!r}")
    root, invalid = make_root(config, graphdef, variables, states, observe)
    recurrent_fn = make_recurrent_fn(config, graphdef, observe)
    common = dict(
        params=variables,
        rng_key=key,
        root=root,
        recurrent_fn=recurrent_fn,
        num_simulations=settings.num_simulations,
        invalid_actions=invalid,
        max_depth=settings.max_depth,
    )
    if settings.algorithm == "puct":
        return mctx.muzero_policy(
            **common,
            qtransform=_masked_qtransform(mctx.qtransform_by_parent_and_siblings),
            dirichlet_fraction=settings.dirichlet_fraction,
            dirichlet_alpha=settings.dirichlet_alpha,
            pb_c_init=settings.pb_c_init,
            pb_c_base=settings.pb_c_base,
            temperature=settings.temperature,
        )
    return mctx.gumbel_muzero_policy(
        **common,
        qtransform=_masked_qtransform(mctx.qtransform_completed_by_mix_value),
        max_num_considered_actions=settings.max_num_considered_actions,
        gumbel_scale=settings.gumbel_scale,
    )
