"""TreeSearch with a guide: the policy enters the prior, the value is mixed with the playouts.

Guides here are plain JAX functions with known answers (a value that always
favours black, a policy that wants one point), so each effect is checked by
its exact consequence; the last tests use a real (untrained) network through
:func:`gojax.alphazero.network_evaluator` and the GTP engine's ``--checkpoint``.
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np
import pytest

import gojax
from gojax.search import TreeSearch, TreeSearchSettings
from gojax.search._guide import guided_rates, mixed_black_wins

CONFIG = gojax.GoConfig(size=5, komi=0.5)
SETTINGS = TreeSearchSettings(leaves_per_batch=8, playouts_per_leaf=4)
A = CONFIG.num_actions


def _black_always_wins(config, states, key):
    """Uniform policy; value +1 for black, whoever is to move."""
    del key
    value = jnp.where(states.turn == 0, 1.0, -1.0)
    return jnp.zeros((states.turn.shape[0], config.num_actions)), value


def _wants(point):
    def guide(config, states, key):
        del key
        logits = jnp.full((states.turn.shape[0], config.num_actions), -1e9).at[:, point].set(0.0)
        return logits, jnp.zeros(states.turn.shape[0])

    return guide


def test_guided_rates_blend_the_policy_relative_to_its_best_legal_point():
    rates = np.array([0.5, 0.4, 0.2, 0.8, 0.1])  # four points and pass
    policy = np.array([0.1, 0.2, 0.6, 0.05, 0.05])
    legal = np.array([True, True, False, True, True])  # the policy's favourite is illegal
    out = guided_rates(rates, policy, legal, 0.5)
    # Relative to the best LEGAL point (0.2): liked = [0.5, 1, 0, 0.25]; pass keeps its rate.
    np.testing.assert_allclose(out, [0.5, 0.7, 0.1, 0.525, 0.1], rtol=1e-6)
    np.testing.assert_allclose(guided_rates(rates, policy, legal, 0.0), rates, rtol=1e-6)
    uniform = guided_rates(rates, np.zeros(5), legal, 1.0)  # no mass on any legal point: 1/2
    np.testing.assert_allclose(uniform[:4], 0.5)


def test_mixed_black_wins_by_hand():
    # 8 playouts, 2 black wins; the guide says white (to move) wins with value 0.5 -> black 0.25.
    assert mixed_black_wins(2.0, 8.0, 0.5, 1, 0.5, False) == pytest.approx(0.5 * 2 + 0.5 * 8 * 0.25)
    # Black to move, value 0.5 -> black 0.75.
    assert mixed_black_wins(2.0, 8.0, 0.5, 0, 0.5, False) == pytest.approx(0.5 * 2 + 0.5 * 8 * 0.75)
    assert mixed_black_wins(2.0, 8.0, 1.0, 0, 1.0, True) == 2.0  # a finished game keeps its result
    assert mixed_black_wins(2.0, 8.0, 1.0, 0, 0.0, False) == 2.0


def test_a_full_value_weight_makes_the_guide_the_judge():
    settings = dataclasses.replace(SETTINGS, value_weight=1.0)
    search = TreeSearch(CONFIG, settings, seed=0, guide=_black_always_wins)
    search.set_root(gojax.init(CONFIG))  # black to move
    stats = search.search(playouts=256)
    assert stats.root_winrate == pytest.approx(1.0)
    visited = stats.visits > 0
    np.testing.assert_allclose(stats.winrate[visited], 1.0)
    # Without the guide the same search sees both results.
    plain = TreeSearch(CONFIG, settings, seed=0)
    plain.set_root(gojax.init(CONFIG))
    assert plain.search(playouts=256).root_winrate < 0.99


def test_the_policy_steers_the_prior_and_the_first_visits():
    point = 0  # a corner: the rules of thumb rate it low (0.3)
    settings = dataclasses.replace(SETTINGS, policy_weight=1.0, prior_visits=1000.0)
    search = TreeSearch(CONFIG, settings, seed=0, guide=_wants(point))
    search.set_root(gojax.init(CONFIG))
    stats = search.search(playouts=64)
    assert int(np.argmax(stats.prior)) == point
    assert stats.best_action == point
    plain = TreeSearch(CONFIG, settings, seed=0)
    plain.set_root(gojax.init(CONFIG))
    plain_stats = plain.search(playouts=64)
    assert plain_stats.prior[point] < plain_stats.prior.max()
    assert plain_stats.best_action != point


def test_a_guide_that_wants_an_illegal_move_never_gets_it():
    occupied = 0
    root = gojax.step(CONFIG, gojax.init(CONFIG), occupied)  # white to move; the point is taken
    settings = dataclasses.replace(SETTINGS, policy_weight=1.0, prior_visits=1000.0)
    search = TreeSearch(CONFIG, settings, seed=1, guide=_wants(occupied))
    search.set_root(root)
    stats = search.search(playouts=512)
    tree = search._tree
    size = tree.size
    kids = tree.children[:size]
    assert np.all(tree.legal[:size][kids >= 0])  # every edge of the tree is a legal move
    assert kids[0, occupied] < 0 and stats.visits[occupied] == 0 and stats.prior[occupied] == 0
    assert stats.best_action != occupied


def test_bad_guide_and_weights_name_the_value():
    with pytest.raises(TypeError, match="guide"):
        TreeSearch(CONFIG, SETTINGS, guide="network")
    with pytest.raises(ValueError, match="value_weight"):
        TreeSearchSettings(value_weight=1.5)
    with pytest.raises(ValueError, match="policy_weight"):
        TreeSearchSettings(policy_weight=-0.1)


def test_a_network_guides_the_gtp_tree_search(tmp_path):
    pytest.importorskip("flax")
    pytest.importorskip("orbax.checkpoint")
    from flax import nnx

    from gojax import alphazero as az
    from gojax import gtp
    from gojax.gtp import PlayerSpec

    network = az.NetworkConfig(blocks=0, channels=4)
    net = az.PolicyValueNet(network, 5, az.BASIC_NUM_CHANNELS, rngs=nnx.Rngs(0))
    az.save_checkpoint(tmp_path / "net", net, network, board_size=5)
    spec = PlayerSpec("mcts", simulations=64, seconds_per_move=None, checkpoint=str(tmp_path / "net"))
    engine = gtp.GTPEngine(gojax.GoConfig(size=9, komi=0.5), spec)
    assert engine.config.size == 5  # the network's board
    assert engine.searcher.guide is not None
    reply = engine.send("genmove b")
    assert gojax.from_gtp(engine.config, reply) in range(CONFIG.num_actions)
    with pytest.raises(ValueError, match=r"PlayerSpec\.checkpoint .*'uct'"):
        PlayerSpec("uct", checkpoint=str(tmp_path / "net"))


def test_the_prior_weighs_more_with_a_guide_unless_set():
    from gojax.search import GUIDED_PRIOR_VISITS, PRIOR_VISITS

    assert GUIDED_PRIOR_VISITS > PRIOR_VISITS
    alone = TreeSearch(CONFIG, SETTINGS)
    guided = TreeSearch(CONFIG, SETTINGS, guide=_wants(12))
    assert SETTINGS.prior_visits is None  # the default: chosen by the search
    assert alone.settings.prior_visits == PRIOR_VISITS
    assert guided.settings.prior_visits == GUIDED_PRIOR_VISITS
    assert guided.settings.value_weight == 0.0  # the playouts judge; the guide's policy steers
    chosen = dataclasses.replace(SETTINGS, prior_visits=7.0)
    for guide in (None, _wants(12)):
        assert TreeSearch(CONFIG, chosen, guide=guide).settings.prior_visits == 7.0
    with pytest.raises(ValueError, match="prior_visits"):
        TreeSearchSettings(prior_visits=-1.0)
