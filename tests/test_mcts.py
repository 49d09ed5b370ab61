"""The one mctx search (:mod:`gojax.mcts`): one model and one evaluator signature for every algorithm.

Checked here: the terminal results the model hands mctx against a plain-Python
Tromp-Taylor scorer (conftest's ``ref_area_difference``, written apart from
gojax's scoring); the rewards of a game that ends inside the tree, for UCT as
for PUCT and Gumbel; the same evaluator driving the three mctx algorithms and
the host tree search's guide; bad input. The UCT selection rule and the
searches' masking at every depth are checked in ``test_players.py`` and
``test_alphazero.py``.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import needs, random_game, ref_area_difference, stack_states

import gojax
from gojax import mcts, playouts
from gojax.search import TreeSearch, TreeSearchSettings

CONFIG = gojax.GoConfig(size=5, komi=0.5)
PASS = CONFIG.pass_action

# Black owns the left side, White the right: black area 10, white area 10, komi 0.5 -> White leads.
EVEN = """
. X O . .
. X O . .
. X O . .
. X O . .
. X O . .
"""


def _finished_games(count: int, seed: int) -> list[gojax.GoState]:
    rng = np.random.default_rng(seed)
    games = []
    for _ in range(count):
        states, _ = random_game(CONFIG, rng, fill_own_eyes=False)
        games.append(states[-1])
    return games


def test_terminal_results_match_a_plain_python_scorer():
    games = _finished_games(12, seed=3)
    batch = stack_states(games)
    ended = jnp.ones(len(games), bool).at[0].set(False)  # the first is not asked for: 0
    result, margin = jax.jit(functools.partial(mcts.black_result_if_ended, CONFIG))(batch, ended)
    board = jax.jit(jax.vmap(functools.partial(gojax.board, CONFIG)))(batch)
    signs = set()
    for i, grid in enumerate(np.asarray(board)):
        expected = ref_area_difference(grid) - CONFIG.komi
        if i == 0:
            assert float(result[i]) == 0.0
            continue
        assert float(margin[i]) == pytest.approx(expected)
        assert float(result[i]) == np.sign(expected)
        signs.add(float(result[i]))
    assert signs == {-1.0, 1.0}  # both colours won some of the games


def _after_a_pass(to_play: int) -> gojax.GoState:
    state = gojax.from_ascii(CONFIG, EVEN, to_play=2 if to_play == 1 else 1)
    return gojax.step(CONFIG, state, PASS)  # the opponent passed: a pass now ends the game


@pytest.mark.parametrize("algorithm", mcts.ALGORITHMS)
def test_a_game_that_ends_in_the_tree_is_rewarded_for_the_mover(algorithm):
    """After the opponent's pass, passing ends the game: +1 for White (ahead by komi), -1 for Black."""
    needs("mctx")
    settings = mcts.SearchSettings(num_simulations=24, algorithm=algorithm, max_num_considered_actions=26)
    states = stack_states([_after_a_pass(1), _after_a_pass(2)])
    run = jax.jit(lambda s, k: mcts.search(CONFIG, _uniform_but_one(PASS), s, k, settings))
    tree = run(states, jax.random.PRNGKey(0)).search_tree
    for game, reward in ((0, -1.0), (1, 1.0)):  # black to move, white to move
        assert int(tree.children_visits[game, 0, PASS]) > 0
        assert float(tree.children_rewards[game, 0, PASS]) == reward
        assert float(tree.children_discounts[game, 0, PASS]) == 0.0
        child = int(tree.children_index[game, 0, PASS])
        assert bool(tree.embeddings.done[game, child])


def _uniform_but_one(point: int):
    """An evaluator of this file's own: all its logits on ``point``, value 0."""

    def evaluate(config, states, key):
        del key
        logits = jnp.full((states.turn.shape[0], config.num_actions), -30.0).at[:, point].set(30.0)
        return logits, jnp.zeros(states.turn.shape[0])

    return evaluate


@pytest.mark.parametrize("algorithm", ["puct", "gumbel"])
def test_the_evaluator_prior_steers_the_policy_searches(algorithm):
    needs("mctx")
    centre = 12
    settings = mcts.SearchSettings(
        num_simulations=8, algorithm=algorithm, gumbel_scale=0.0, dirichlet_fraction=0.0, temperature=0.0
    )
    states = stack_states([gojax.init(CONFIG)] * 2)
    out = mcts.search(CONFIG, _uniform_but_one(centre), states, jax.random.PRNGKey(1), settings)
    assert np.asarray(out.action).tolist() == [centre, centre]


def test_one_evaluator_for_every_search():
    """One :class:`RolloutEvaluator` drives the mctx search and guides the host tree search.

    Every algorithm calls the evaluator the same way (``evaluate(config, states, key) -> (logits,
    value)``; PUCT and Gumbel: test_the_evaluator_prior_steers_the_policy_searches); UCT, the rollouts' own
    search, runs it here."""
    needs("mctx")
    evaluate = mcts.RolloutEvaluator(max_moves=20)
    states = stack_states([gojax.init(CONFIG), _after_a_pass(1)])
    legal = np.asarray(jax.vmap(functools.partial(gojax.legal_action_mask, CONFIG))(states))
    settings = mcts.SearchSettings(num_simulations=8, algorithm="uct")
    out = jax.jit(lambda s, k: mcts.search(CONFIG, evaluate, s, k, settings))(states, jax.random.PRNGKey(2))
    actions = np.asarray(out.action)
    assert all(legal[i, a] for i, a in enumerate(actions)), actions
    weights = np.asarray(out.action_weights)
    np.testing.assert_allclose(weights.sum(axis=1), 1.0, rtol=1e-5)
    assert not np.any(weights[~legal])
    search = TreeSearch(CONFIG, TreeSearchSettings(leaves_per_batch=4, playouts_per_leaf=2), guide=evaluate)
    search.set_root(gojax.init(CONFIG))
    stats = search.search(playouts=16)
    assert stats.visits.sum() >= 16


def test_rollout_evaluator_values_are_the_rollout_results():
    """Its value is :func:`gojax.playouts.rollout` with the split keys; its logits uniform."""
    evaluate = mcts.RolloutEvaluator(max_moves=60)
    states = stack_states([gojax.init(CONFIG), _after_a_pass(2)])
    key = jax.random.PRNGKey(5)
    logits, value = jax.jit(lambda s, k: evaluate(CONFIG, s, k))(states, key)
    assert logits.shape == (2, CONFIG.num_actions) and not np.any(np.asarray(logits))
    keys = jax.random.split(key, 2)
    for i in range(2):
        one = jax.tree.map(lambda x, i=i: x[i], states)
        assert float(value[i]) == float(playouts.rollout(CONFIG, one, keys[i], max_moves=60))


# Black's two one-point eyes (A5, E2) and nothing else empty; White has no stone. Whoever is to
# move, every playout passes out at once (Black keeps its eyes, White may not play into them) and
# Black wins by area.
BLACK_ALIVE = """
. X X X X
X X X X X
X X X X X
X X X X .
X X X X X
"""


def _constant_guide(config, states, key):
    del key
    batch = states.turn.shape[0]
    logits = jnp.tile(jnp.arange(config.num_actions, dtype=jnp.float32), (batch, 1))
    return logits, jnp.full((batch,), 0.25, jnp.float32)


@pytest.mark.parametrize("policy", mcts.MIXED_POLICIES)
def test_mixed_evaluator_blends_the_guide_with_playout_results(policy):
    """``(1 - w) v + w r``, ``r`` the playouts' result for the player to move; the guide's logits."""
    white_alive = BLACK_ALIVE.replace("X", "O")
    states = stack_states(
        [
            gojax.from_ascii(CONFIG, BLACK_ALIVE, to_play=1),  # Black wins: r = +1 for Black to move
            gojax.from_ascii(CONFIG, BLACK_ALIVE, to_play=2),  # r = -1 for White to move
            gojax.from_ascii(CONFIG, white_alive, to_play=1),  # White wins: r = -1 for Black to move
            gojax.from_ascii(CONFIG, white_alive, to_play=2),
        ]
    )
    key = jax.random.PRNGKey(1)
    for weight, expected in ((0.0, [0.25] * 4), (0.5, [0.625, -0.375, -0.375, 0.625]), (1.0, [1, -1, -1, 1])):
        evaluate = mcts.MixedEvaluator(_constant_guide, weight, policy, playouts=3)
        logits, value = jax.jit(lambda s, k, e=evaluate: e(CONFIG, s, k))(states, key)
        np.testing.assert_array_equal(np.asarray(logits), np.asarray(_constant_guide(CONFIG, states, key)[0]))
        np.testing.assert_allclose(np.asarray(value), expected, atol=1e-6)
    # On the empty board the playouts' results vary: the mixed values are not the guide's.
    empty = stack_states([gojax.init(CONFIG)] * 8)
    _, value = jax.jit(lambda s, k: mcts.MixedEvaluator(_constant_guide, 1.0, policy)(CONFIG, s, k))(
        empty, key
    )
    assert set(np.unique(np.asarray(value))) == {-1.0, 1.0}


def test_playout_wins_are_the_same_batched_mapped_and_nested():
    """One playout per position from its own key: a batch, ``vmap`` of single positions and nested
    ``vmap`` (the batching rule joins them into one batch) give the same results."""
    rng = np.random.default_rng(2)
    games = [random_game(CONFIG, rng, fill_own_eyes=False)[0] for _ in range(3)]
    states = stack_states([game[len(game) // k] for game in games for k in (2, 3, 5, 8)])  # 12
    keys = jax.random.split(jax.random.PRNGKey(3), 12)
    wins = functools.partial(playouts.playout_wins, CONFIG, "heavy", 50)
    batched = jax.jit(wins)(states, keys)
    single = lambda s, k: wins(jax.tree.map(lambda x: x[None], s), k[None])[0]  # noqa: E731
    mapped = jax.jit(jax.vmap(single))(states, keys)
    halves = jax.tree.map(lambda x: x.reshape(2, 6, *x.shape[1:]), (states, keys))
    nested = jax.jit(jax.vmap(jax.vmap(single)))(*halves).reshape(12)
    np.testing.assert_array_equal(batched, mapped)
    np.testing.assert_array_equal(batched, nested)
    assert 0 < float(jnp.sum(batched)) < 12  # both colours won some
    with pytest.raises(ValueError, match="light kernel"):
        playouts.playout_wins(CONFIG, "random", 50, states, keys)


def test_playout_wins_take_komi_as_data():
    """Inside a jitted function komi may be an argument (``GoConfig.with_komi``, as the GTP engine
    compiles its players): the results are those of the same komi written in the config, and a komi
    beyond every margin decides every playout."""
    rng = np.random.default_rng(4)
    states = stack_states([random_game(CONFIG, rng, fill_own_eyes=False)[0][k] for k in (5, 10, 15, 20)])
    keys = jax.random.split(jax.random.PRNGKey(5), 4)
    as_data = jax.jit(lambda s, k, komi: playouts.playout_wins(CONFIG.with_komi(komi), "light", 30, s, k))
    written = jax.jit(functools.partial(playouts.playout_wins, CONFIG, "light", 30))(states, keys)
    np.testing.assert_array_equal(as_data(states, keys, jnp.float32(CONFIG.komi)), written)
    assert np.all(np.asarray(as_data(states, keys, jnp.float32(-30.5))) == 1.0)  # 5x5: margins within 25
    assert np.all(np.asarray(as_data(states, keys, jnp.float32(30.5))) == 0.0)


def test_bad_input_names_the_value():
    states = stack_states([gojax.init(CONFIG)])
    with pytest.raises(TypeError, match="evaluate"):
        mcts.search(CONFIG, "network", states, jax.random.PRNGKey(0))
    with pytest.raises(TypeError, match="SearchSettings"):
        mcts.search(CONFIG, mcts.RolloutEvaluator(), states, jax.random.PRNGKey(0), {"num_simulations": 2})
    with pytest.raises(ValueError, match="ucb_c"):
        mcts.SearchSettings(ucb_c=-1.0)
    with pytest.raises(ValueError, match="algorithm"):
        mcts.SearchSettings(algorithm="mcts")
    with pytest.raises(TypeError, match="policy"):
        mcts.RolloutEvaluator(policy="random")
    with pytest.raises(ValueError, match="max_moves"):
        mcts.RolloutEvaluator(max_moves=-1)
    with pytest.raises(TypeError, match="guide"):
        TreeSearch(CONFIG, guide="network")
    with pytest.raises(TypeError, match=r"MixedEvaluator\.evaluate"):
        mcts.MixedEvaluator("network")
    with pytest.raises(ValueError, match=r"MixedEvaluator\.weight"):
        mcts.MixedEvaluator(_constant_guide, 1.5)
    with pytest.raises(ValueError, match=r"MixedEvaluator\.policy"):
        mcts.MixedEvaluator(_constant_guide, 0.5, "random")
    with pytest.raises(ValueError, match=r"MixedEvaluator\.playouts"):
        mcts.MixedEvaluator(_constant_guide, 0.5, playouts=0)


# Black to move with three one-point eyes (A5, C5, E5 - points 0, 2, 4) and room to play in row 3.
EYES = """
. X . X .
X X X X X
. . . . .
O O O O O
. O . O .
"""
# The same with row 3 white: Black's only legal moves are its own eyes and pass.
ONLY_EYES = EYES.replace(". . . . .", "O O O O O")


@pytest.mark.parametrize("algorithm", mcts.ALGORITHMS)
def test_a_search_for_play_never_fills_an_own_eye(algorithm):
    needs("mctx")
    train = mcts.SearchSettings(
        num_simulations=16, algorithm=algorithm, gumbel_scale=0.0, dirichlet_fraction=0.0, temperature=0.0
    )
    play = train.for_play()
    assert train.fill_own_eyes and not play.fill_own_eyes
    eyes = [0, 2, 4]
    states = stack_states([gojax.from_ascii(CONFIG, EYES, to_play=1), gojax.from_ascii(CONFIG, ONLY_EYES)])
    assert np.asarray(jax.vmap(functools.partial(playouts.own_eyes, CONFIG))(states))[:, eyes].all()
    evaluate = _uniform_but_one(2)  # the prior wants an own eye
    out = mcts.search(CONFIG, evaluate, states, jax.random.PRNGKey(3), play)
    tree = out.search_tree
    assert int(out.action[0]) not in eyes and int(out.action[1]) == PASS
    assert not np.asarray(out.action_weights)[:, eyes].any()
    # No line of the tree fills an eye of the mover: below the root, Black's eyes are still never entered.
    black_to_move = np.asarray(tree.embeddings.turn) == 0  # [B, nodes]
    visits = np.asarray(tree.children_visits)[..., eyes]  # [B, nodes, 3]
    assert not visits[black_to_move].any()
    if algorithm != "uct":  # UCB1 ignores the prior; PUCT and Gumbel follow it into the eye
        filled = mcts.search(CONFIG, evaluate, states, jax.random.PRNGKey(3), train)
        assert np.asarray(filled.action).tolist() == [2, 2]
    with pytest.raises(TypeError, match="fill_own_eyes"):
        mcts.SearchSettings(fill_own_eyes=1)
