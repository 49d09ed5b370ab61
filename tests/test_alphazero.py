"""gojax.alphazero: observation planes, network, search, player, checkpoints.

Positions are hand-built on 5x5 (komi 0.5, simple ko: smaller programs); the
expected planes, moves and signs are read off the diagrams, written beside
them. Every jitted function is compiled once per module (fixtures); the
networks are tiny (1 block, 8 channels). Two networks share one compiled
search per algorithm (their weights are arguments): one that knows nothing
(uniform policy, value 0) and one that loves illegal moves (huge logits on
occupied, ko and suicide points).
"""

from __future__ import annotations

import functools
import os
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import TEST_EXTRA, stack_states, swap_colours
from conftest import jitted as compiled

pytest.importorskip("flax", reason=TEST_EXTRA)
pytest.importorskip("mctx", reason=TEST_EXTRA)

from flax import nnx

import gojax
from gojax import alphazero as az
from gojax import mcts, players, symmetry

CONFIG = gojax.GoConfig(size=5, komi=0.5, ko_rule="simple", max_moves=60)
N, PASS = CONFIG.size, CONFIG.pass_action
TINY = az.NetworkConfig(blocks=1, channels=8, value_hidden=8)
SIMS = 32
CH = az.BASIC_CHANNELS


def point(row: int, col: int) -> int:
    return row * N + col


def mask(text: str) -> np.ndarray:
    """``bool[N, N]`` from a diagram of ``1`` and ``.``."""
    rows = [line.split() for line in text.strip().splitlines()]
    return np.array([[c == "1" for c in row] for row in rows])


# Black owns columns 0-2 (15 points), White columns 3-4 (10): Black wins by
# 15 - 10 - 0.5 = 4.5 once the game ends. Swapped colours: White wins by 5.5.
BLACK_AHEAD = """
. . X O .
. . X O .
. . X O .
. . X O .
. . X O .
"""

# Black to move. Black at (1,2) captures the white stone (1,1): a ko. After it
# White may not retake at (1,1) (ko_point), and (0,0) is suicide for White
# (its neighbours are Black's (0,1) and (1,0), and neither chain is in atari).
KO = """
. X O . .
X O . O .
. X O . .
. . . . .
. . . . .
"""
KO_CAPTURE = point(1, 2)

# Planes after Black's KO_CAPTURE, White (the mover) to move, read by hand.
# White (0,2): liberty (0,3) -> 1.  (2,2): (2,3), (3,2) -> 2.  (1,3): (0,3), (1,4), (2,3) -> 3.
# Black (1,2): liberty (1,1) -> 1.  (0,1): (0,0), (1,1) -> 2.  (1,0), (2,1): 3 each.
KO_EXPECTED = {
    "mover": ". . 1 . .\n. . . 1 .\n. . 1 . .\n. . . . .\n. . . . .",
    "opponent": ". 1 . . .\n1 . 1 . .\n. 1 . . .\n. . . . .\n. . . . .",
    "mover_lib1": ". . 1 . .\n. . . . .\n. . . . .\n. . . . .\n. . . . .",
    "mover_lib2": ". . . . .\n. . . . .\n. . 1 . .\n. . . . .\n. . . . .",
    "mover_lib3": ". . . . .\n. . . 1 .\n. . . . .\n. . . . .\n. . . . .",
    "opponent_lib1": ". . . . .\n. . 1 . .\n. . . . .\n. . . . .\n. . . . .",
    "opponent_lib2": ". 1 . . .\n. . . . .\n. . . . .\n. . . . .\n. . . . .",
    "opponent_lib3": ". . . . .\n1 . . . .\n. 1 . . .\n. . . . .\n. . . . .",
    "legal": ". . . 1 1\n. . . . 1\n1 . . 1 1\n1 1 1 1 1\n1 1 1 1 1",
    "ko": ". . . . .\n. 1 . . .\n. . . . .\n. . . . .\n. . . . .",
    "last_move": ". . . . .\n. . 1 . .\n. . . . .\n. . . . .\n. . . . .",
}


# ----------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def jitted():
    """Rules functions of one game, compiled once."""
    return {"step": compiled("step", CONFIG), "legal": compiled("legal_action_mask", CONFIG)}


@pytest.fixture(scope="module")
def positions(jitted):
    """The batch searched by every search test, and the name of each entry."""
    step = jitted["step"]
    black_ahead = BLACK_AHEAD
    white_ahead = swap_colours(BLACK_AHEAD)
    named = {
        # White passed; Black (ahead) to move: Black's pass ends the game and wins.
        "ahead_black": step(gojax.from_ascii(CONFIG, black_ahead, to_play=2), PASS),
        # Black passed; White (ahead) to move: White's pass wins.
        "ahead_white": step(gojax.from_ascii(CONFIG, white_ahead, to_play=1), PASS),
        # Black passed; White (behind) to move: White's pass loses.
        "behind_white": step(gojax.from_ascii(CONFIG, black_ahead, to_play=1), PASS),
        # White passed; Black (behind) to move: Black's pass loses.
        "behind_black": step(gojax.from_ascii(CONFIG, white_ahead, to_play=2), PASS),
        # Two passes: over before the search starts.
        "finished": step(step(gojax.from_ascii(CONFIG, black_ahead), PASS), PASS),
        "ko": step(gojax.from_ascii(CONFIG, KO), KO_CAPTURE),
        "ko_before": gojax.from_ascii(CONFIG, KO),
        "empty": gojax.init(CONFIG),
    }
    assert bool(named["finished"].terminated) and not bool(named["ahead_black"].done)
    return list(named), stack_states(list(named.values()))


def _net(seed=0):
    return az.PolicyValueNet(TINY, N, az.BASIC_NUM_CHANNELS, rngs=nnx.Rngs(seed))


VALUE = 0.5


@pytest.fixture(scope="module")
def clueless():
    """A network that knows nothing: uniform policy logits, the same value VALUE for every position."""
    net = _net()
    for layer in (net.policy_out, net.value_out):
        layer.kernel[...] = jnp.zeros_like(layer.kernel[...])
        layer.bias[...] = jnp.zeros_like(layer.bias[...])
    net.value_out.bias[...] = jnp.full_like(net.value_out.bias[...], np.arctanh(VALUE))
    return az.split(net)


@pytest.fixture(scope="module")
def illegal_lover():
    """A network whose policy puts logit +30 on stones and on the ko and suicide points, -30 on pass."""
    net = _net()
    bad = np.zeros(CONFIG.num_actions, np.float32)
    stones = gojax.parse_board(BLACK_AHEAD, N) | gojax.parse_board(KO, N)
    bad[:-1][np.asarray(stones).reshape(-1) > 0] = 30.0
    bad[[point(0, 0), point(1, 1)]] = 30.0
    bad[PASS] = -30.0
    net.policy_out.kernel[...] = jnp.zeros_like(net.policy_out.kernel[...])
    net.policy_out.bias[...] = jnp.asarray(bad)
    return az.split(net)


@pytest.fixture(scope="module")
def searches():
    """``algorithm -> jitted search(variables, states, key)``; both networks share the graphdef."""
    graphdef = az.split(_net())[0]
    options = {
        "puct": dict(dirichlet_fraction=0.0, temperature=0.0),
        "gumbel": dict(gumbel_scale=0.0, max_num_considered_actions=32),
    }

    def searcher(settings):
        def run(variables, states, key):
            return mcts.search(CONFIG, az.network_evaluator(graphdef, variables), states, key, settings)

        return jax.jit(run)

    return {
        name: searcher(az.SearchSettings(num_simulations=SIMS, algorithm=name, **opts))
        for name, opts in options.items()
    }


@pytest.fixture(scope="module")
def tree_legality():
    """``jit``: legal mask (only pass once over) of every node of a batched tree."""

    def one(state):
        legal = gojax.legal_action_mask(CONFIG, state)
        return jnp.where(state.done, jnp.arange(CONFIG.num_actions) == PASS, legal)

    return jax.jit(jax.vmap(jax.vmap(one)))


# ------------------------------------------------------------- observation


def test_basic_planes_hand_read_ko_position(jitted):
    after_ko = jitted["step"](gojax.from_ascii(CONFIG, KO), KO_CAPTURE)
    after_pass = jitted["step"](after_ko, PASS)
    planes = np.asarray(
        jax.jit(jax.vmap(functools.partial(az.basic_planes, CONFIG)))(stack_states([after_ko, after_pass]))
    )
    assert planes.shape == (2, N, N, 15) and planes.dtype == np.float32
    assert set(np.unique(planes)) <= {0.0, 1.0}
    p = planes[0]
    channels = {
        "mover": CH.mover,
        "opponent": CH.opponent,
        "legal": CH.legal,
        "ko": CH.ko,
        "last_move": CH.last_move,
    }
    for i in range(3):
        channels[f"mover_lib{i + 1}"] = CH.mover_liberties.start + i
        channels[f"opponent_lib{i + 1}"] = CH.opponent_liberties.start + i
    for name, channel in channels.items():
        np.testing.assert_array_equal(p[..., channel], mask(KO_EXPECTED[name]), err_msg=name)
    stones = mask(KO_EXPECTED["mover"]) | mask(KO_EXPECTED["opponent"])
    np.testing.assert_array_equal(p[..., CH.empty], ~stones)
    assert np.all(p[..., CH.ones] == 1) and np.all(p[..., CH.black_to_move] == 0)  # White to move
    assert np.all(p[..., CH.passed] == 0)
    # After White's pass: Black to move, "passed" set, no last-move point, no ko, colours swapped.
    q = planes[1]
    assert np.all(q[..., CH.passed] == 1) and np.all(q[..., CH.black_to_move] == 1)
    assert not q[..., CH.last_move].any() and not q[..., CH.ko].any()
    np.testing.assert_array_equal(q[..., CH.mover], mask(KO_EXPECTED["opponent"]))
    np.testing.assert_array_equal(q[..., CH.mover_liberties], p[..., CH.opponent_liberties])
    assert q[1, 1, CH.legal] == 1  # Black may fill the ko point: not a ko for Black


def test_basic_planes_equivariant_along_a_game(jitted):
    """The KO capture, random legal moves and a pass, played under each of the 8 symmetries."""
    rng = np.random.default_rng(3)
    state, moves = gojax.from_ascii(CONFIG, KO), [KO_CAPTURE]
    state = jitted["step"](state, KO_CAPTURE)
    for ply in range(14):
        legal = np.flatnonzero(np.asarray(jitted["legal"](state))[:-1])
        move = PASS if ply == 9 else int(rng.choice(legal))
        moves.append(move)
        state = jitted["step"](state, move)
    assert not bool(state.done)
    grid = np.asarray(gojax.board(CONFIG, gojax.from_ascii(CONFIG, KO)))
    starts = stack_states(
        [gojax.from_board(CONFIG, np.asarray(symmetry.transform_board(k, grid))) for k in range(8)]
    )

    def play(k, start):
        def one(state, move):
            state = gojax.step(CONFIG, state, symmetry.transform_action(CONFIG, k, move))
            return state, az.basic_planes(CONFIG, state)

        return jax.lax.scan(one, start, jnp.asarray(moves))[1]

    planes = np.asarray(jax.jit(jax.vmap(play))(jnp.arange(8), starts))  # [8, T, N, N, C]
    assert planes[0, 0, ..., CH.ko].any() and planes[0, 0, ..., CH.last_move].any()
    for k in range(8):
        expected = jax.vmap(lambda x, k=k: symmetry.transform_board(k, x))(planes[0])
        np.testing.assert_array_equal(planes[k], np.asarray(expected), err_msg=f"symmetry {k}")


def test_num_planes():
    assert az.num_planes(az.basic_planes, CONFIG) == az.BASIC_NUM_CHANNELS == CH.num_channels == 15
    assert gojax.features.OBSERVATIONS["basic"].observe is az.basic_planes
    assert az.num_planes(lambda c, s: jnp.zeros((c.size, c.size, 3)), CONFIG) == 3
    with pytest.raises(ValueError, match="shape"):
        az.num_planes(lambda c, s: jnp.zeros((c.size, 3)), CONFIG)


# ----------------------------------------------------------------- network


def test_network_shapes_apply_jit_vmap_and_batch_stats():
    net = _net(1)
    graphdef, variables = az.split(net)
    planes = jax.random.bernoulli(jax.random.PRNGKey(0), 0.5, (6, N, N, az.BASIC_NUM_CHANNELS)).astype(
        jnp.float32
    )
    net.eval()
    logits, value = net(planes)
    assert logits.shape == (6, CONFIG.num_actions) and value.shape == (6,)
    assert np.all(np.abs(np.asarray(value)) <= 1.0)
    # jit of vmap over a second batch axis (eval mode treats every example on its own) == the module call.
    batched = jax.jit(jax.vmap(az.apply, in_axes=(None, None, 0)), static_argnums=0)
    logits2, value2, same = batched(graphdef, variables, planes.reshape(2, 3, N, N, -1))
    np.testing.assert_allclose(np.asarray(logits2).reshape(6, -1), logits, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(value2).reshape(6), value, rtol=1e-5, atol=1e-5)
    assert jax.tree.structure(same) == jax.tree.structure(variables)
    # train mode: batch statistics move the running averages (initially mean 0, var 1), params do not change.
    _, _, trained = jax.jit(az.apply, static_argnums=(0, 3))(graphdef, variables, planes, True)
    before = jax.tree.leaves(variables["batch_stats"])
    after = jax.tree.leaves(trained["batch_stats"])
    assert any(not np.allclose(a, b) for a, b in zip(before, after, strict=True))
    for a, b in zip(jax.tree.leaves(variables["params"]), jax.tree.leaves(trained["params"]), strict=True):
        np.testing.assert_array_equal(a, b)

    # The gradient with respect to the params alone, batch statistics passed in
    # undifferentiated and updated (what a training step does): the running
    # averages move exactly as in the plain train-mode call.
    def loss(params, batch_stats):
        logits, value, new = az.apply(graphdef, {"params": params, "batch_stats": batch_stats}, planes, True)
        return jnp.sum(logits) + jnp.sum(value), new["batch_stats"]

    grads, stats = jax.jit(jax.grad(loss, has_aux=True))(variables["params"], variables["batch_stats"])
    assert any(np.any(np.asarray(g) != 0) for g in jax.tree.leaves(grads))
    for a, b in zip(jax.tree.leaves(stats), after, strict=True):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    with pytest.raises(ValueError, match="planes must have shape"):
        net(planes[..., :3])
    with pytest.raises(ValueError, match="blocks"):
        az.NetworkConfig(blocks=-1)


# ------------------------------------------------------------------ search


@pytest.fixture(scope="module", params=["puct", "gumbel"])
def algorithm(request):
    return request.param


@pytest.fixture(scope="module")
def clueless_out(searches, positions, clueless, algorithm):
    return jax.device_get(searches[algorithm](clueless[1], positions[1], jax.random.PRNGKey(1)))


@pytest.fixture(scope="module")
def lover_out(searches, positions, illegal_lover, algorithm):
    return jax.device_get(searches[algorithm](illegal_lover[1], positions[1], jax.random.PRNGKey(2)))


def _depths(parents: np.ndarray) -> np.ndarray:
    depth = np.zeros(parents.shape, np.int32)
    for b in range(parents.shape[0]):
        for i in range(1, parents.shape[1]):
            if parents[b, i] >= 0:
                depth[b, i] = depth[b, parents[b, i]] + 1
    return depth


def test_illegal_moves_never_visited_at_any_depth(lover_out, illegal_lover, positions, tree_legality):
    names, states = positions
    # The network does prefer illegal moves: its favourite action is illegal in the ko position.
    planes = jax.vmap(functools.partial(az.basic_planes, CONFIG))(states)
    raw_logits = np.asarray(az.apply(*illegal_lover, planes)[0])
    legal_root = np.asarray(jax.vmap(functools.partial(gojax.legal_action_mask, CONFIG))(states))
    ko = names.index("ko")
    assert not legal_root[ko, raw_logits[ko].argmax()]
    tree = lover_out.search_tree
    legal = np.asarray(tree_legality(tree.embeddings))  # [B, S + 1, A]
    expanded = np.asarray(tree.node_visits) > 0
    visited = np.asarray(tree.children_visits) > 0
    bad = visited & ~legal & expanded[..., None]
    assert not bad.any(), f"illegal children visited at (batch, node, action) {np.argwhere(bad)[:5]}"
    assert not np.asarray(tree.embeddings.illegal_move)[expanded].any()
    depth = _depths(np.asarray(tree.parents))
    assert depth[expanded].max() >= 3  # the search went deep
    action = np.asarray(lover_out.action)
    assert legal[np.arange(len(names)), 0, action].all()
    weights = np.asarray(lover_out.action_weights)
    assert np.all(weights[~legal[:, 0]] == 0)
    np.testing.assert_allclose(weights.sum(-1), 1.0, rtol=1e-5)


@pytest.mark.parametrize("name", ["ahead_black", "ahead_white"])
def test_finds_the_winning_pass_for_both_colours(clueless_out, positions, name):
    b = positions[0].index(name)
    tree = clueless_out.search_tree
    assert int(clueless_out.action[b]) == PASS
    assert float(tree.children_rewards[b, 0, PASS]) == 1.0  # the mover's win, from the mover's view
    assert float(tree.children_discounts[b, 0, PASS]) == 0.0
    child = int(tree.children_index[b, 0, PASS])
    assert float(tree.node_values[b, child]) == 0.0  # a terminal node adds nothing
    q = np.asarray(tree.qvalues(jnp.zeros(len(positions[0]), jnp.int32)))[b]
    assert q[PASS] == 1.0 and q[PASS] == q.max()


def test_discount_flips_the_sign_between_players(clueless_out, positions):
    """A running child's value (VALUE, for its mover) counts as -VALUE for the parent's mover."""
    tree = clueless_out.search_tree
    q = np.asarray(tree.qvalues(jnp.zeros(len(positions[0]), jnp.int32)))
    once = np.asarray(tree.children_visits[:, 0]) == 1
    running = np.asarray(tree.children_discounts[:, 0]) == -1.0
    finished = positions[0].index("finished")
    assert (once & running).sum() >= 10
    np.testing.assert_allclose(q[once & running], -VALUE, rtol=1e-6)
    np.testing.assert_allclose(np.asarray(tree.children_rewards[:, 0])[running], 0.0)
    assert float(tree.node_values[positions[0].index("empty"), 0]) != 0.0
    assert not running[finished].any()


@pytest.mark.parametrize("name", ["behind_black", "behind_white"])
def test_avoids_the_losing_pass_for_both_colours(clueless_out, positions, name):
    b = positions[0].index(name)
    tree = clueless_out.search_tree
    assert int(clueless_out.action[b]) != PASS
    assert int(tree.children_visits[b, 0, PASS]) >= 1
    assert float(tree.children_rewards[b, 0, PASS]) == -1.0
    q = np.asarray(tree.qvalues(jnp.zeros(len(positions[0]), jnp.int32)))[b]
    assert (
        q[PASS] == -1.0
        and q[PASS] < np.delete(q, PASS)[np.asarray(tree.children_visits[b, 0, :PASS]) > 0].min()
    )


def test_finished_game_at_the_root(clueless_out, lover_out, positions):
    b = positions[0].index("finished")
    for out in (clueless_out, lover_out):
        assert int(out.action[b]) == PASS
        assert float(out.action_weights[b, PASS]) == pytest.approx(1.0)
        tree = out.search_tree
        assert float(tree.node_values[b, 0]) == 0.0
        assert np.all(np.asarray(tree.children_rewards[b]) == 0)
        assert np.all(np.asarray(tree.children_visits[b, :, :PASS]) == 0)


def test_search_rejects_bad_options(positions, clueless):
    graphdef, variables = clueless
    with pytest.raises(ValueError, match=r"algorithm.*'x'"):
        az.SearchSettings(num_simulations=2, algorithm="x")
    with pytest.raises(ValueError, match=r"num_simulations.*0"):
        az.SearchSettings(num_simulations=0)
    with pytest.raises(TypeError, match="SearchSettings"):
        evaluate = az.network_evaluator(graphdef, variables)
        mcts.search(CONFIG, evaluate, positions[1], jax.random.PRNGKey(0), {"num_simulations": 2})


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("num_simulations", 0, ValueError),
        ("num_simulations", 2.0, TypeError),
        ("num_simulations", True, TypeError),
        ("algorithm", "mcts", ValueError),
        ("max_depth", 0, ValueError),
        ("max_num_considered_actions", 0, ValueError),
        ("gumbel_scale", -1.0, ValueError),
        ("gumbel_scale", "big", TypeError),
        ("dirichlet_fraction", 1.5, ValueError),
        ("dirichlet_alpha", 0.0, ValueError),
        ("temperature", float("nan"), ValueError),
        ("pb_c_init", -0.5, ValueError),
        ("pb_c_base", 0, ValueError),
    ],
)
def test_search_settings_name_the_bad_field_and_value(field, value, error):
    with pytest.raises(error, match=rf"SearchSettings\.{field} .*{re.escape(repr(value))}"):
        az.SearchSettings(**{field: value})


def test_search_settings_are_hashable_values_shared_by_every_user(clueless):
    graphdef, variables = clueless
    settings = az.SearchSettings(num_simulations=8, gumbel_scale=0)
    assert settings == az.SearchSettings(num_simulations=8, gumbel_scale=0.0)
    assert hash(settings) == hash(az.SearchSettings(num_simulations=8, gumbel_scale=0.0))
    assert isinstance(settings.gumbel_scale, float)
    play = settings.for_play()
    assert (play.temperature, play.dirichlet_fraction, play.num_simulations) == (0.0, 0.0, 8)
    assert az.SearchSettings.from_dict(settings.to_dict()) == settings
    with pytest.raises(ValueError, match="unknown SearchSettings fields"):
        az.SearchSettings.from_dict({"simulations": 8})
    assert az.SelfPlaySettings(search=settings).search is settings
    assert az.AlphaZeroPlayer(graphdef, variables, settings).settings is settings
    with pytest.raises(TypeError, match=r"SelfPlaySettings\.search"):
        az.SelfPlaySettings(search=8)
    with pytest.raises(TypeError, match=r"AlphaZeroPlayer\.settings"):
        az.AlphaZeroPlayer(graphdef, variables, 8)


def test_score_if_ended_scores_only_the_games_that_ended():
    from gojax._core.scoring import score_if_ended

    ahead = gojax.from_ascii(CONFIG, BLACK_AHEAD)
    full = float(gojax.score(CONFIG, ahead))
    assert full > 0  # black is ahead by more than the komi
    both = stack_states([ahead, ahead])
    ended = jnp.asarray([True, False])
    margins = jax.jit(jax.vmap(functools.partial(score_if_ended, CONFIG)))(both, ended)
    assert margins.dtype == jnp.float32
    assert np.asarray(margins).tolist() == [full, 0.0]


# ------------------------------------------------------------------ player


def test_player_in_a_match_against_random(clueless, jitted):
    graphdef, variables = clueless
    settings = az.SearchSettings(num_simulations=4, algorithm="puct").for_play()
    player = az.AlphaZeroPlayer(graphdef, variables, settings)
    result = players.play_match(
        CONFIG,
        player,
        players.random_player,
        num_games=2,
        key=jax.random.PRNGKey(3),
        max_moves=16,
        return_moves=True,
    )
    assert result.num_games == 2 and result.wins + result.losses + result.draws == 2
    for game in result.moves:  # replay: every move legal
        state = gojax.init(CONFIG)
        for move in game[game >= 0]:
            assert np.asarray(jitted["legal"](state))[move], (game, move)
            state = jitted["step"](state, int(move))
    # A pytree whose only leaves are the variables; hashed by identity.
    leaves, treedef = jax.tree.flatten(player)
    assert len(leaves) == len(jax.tree.leaves(variables))
    assert jax.tree.unflatten(treedef, leaves).settings.num_simulations == 4
    twin = az.AlphaZeroPlayer(graphdef, variables, settings)
    assert player == player and player != twin and isinstance(hash(player), int)
    with pytest.raises(ValueError, match="algorithm"):
        az.AlphaZeroPlayer(graphdef, variables, az.SearchSettings(algorithm="mcts"))


def test_player_with_playouts_mixes_them_into_its_search_with_komi_as_data(monkeypatch):
    """``playout_weight > 0``: the player's search calls :class:`gojax.mcts.MixedEvaluator` around
    its network (the network alone: not), also traced with komi as data, as the GTP engine
    compiles it."""
    graphdef, variables = az.split(_net(3))
    settings = az.SearchSettings(num_simulations=4).for_play()
    mixed = az.AlphaZeroPlayer(graphdef, variables, settings, playout_weight=0.5, playout_policy="light")
    alone = az.AlphaZeroPlayer(graphdef, variables, settings)
    calls, original = [], mcts.MixedEvaluator.__call__

    def spy(self, config, states, key):
        calls.append((self.weight, self.policy, config.komi))
        return original(self, config, states, key)

    monkeypatch.setattr(mcts.MixedEvaluator, "__call__", spy)
    state = gojax.init(CONFIG)
    for player in (alone, mixed):
        move = jax.eval_shape(
            lambda s, k, komi, p=player: p(CONFIG.with_komi(komi), s, k), state, jax.random.PRNGKey(0), 0.5
        )
        assert move.shape == () and move.dtype == jnp.int32
        if player is alone:
            assert calls == []
    assert calls and all(call[:2] == (0.5, "light") for call in calls)
    assert all(isinstance(call[2], jax.core.Tracer) for call in calls)  # komi as data reached the playouts
    assert len(jax.tree.leaves(mixed)) == len(jax.tree.leaves(variables))  # the weight is static
    for bad, error in ((1.5, ValueError), (-0.1, ValueError), ("0.5", TypeError)):
        with pytest.raises(error, match=r"AlphaZeroPlayer\.playout_weight"):
            az.AlphaZeroPlayer(graphdef, variables, settings, playout_weight=bad)
    with pytest.raises(ValueError, match=r"AlphaZeroPlayer\.playout_policy"):
        az.AlphaZeroPlayer(graphdef, variables, settings, playout_weight=0.5, playout_policy="random")


def test_policy_player_plays_the_networks_best_legal_move(illegal_lover, positions, jitted):
    """The raw policy: the highest logit among legal moves (the network ranks stones, the ko and a
    suicide point first), pass once the game is over; sampling with a temperature stays legal."""
    graphdef, variables = illegal_lover
    player = az.PolicyPlayer(graphdef, variables, symmetries=1)
    names, states = positions
    planes = jax.vmap(lambda s: az.basic_planes(CONFIG, s))(states)
    logits = np.asarray(az.apply(graphdef, variables, planes, train=False)[0])
    move = jax.jit(lambda p, s, k: p(CONFIG, s, k))
    masked_out = 0
    for i, name in enumerate(names):
        one = jax.tree.map(lambda x, i=i: x[i], states)
        legal = np.asarray(jitted["legal"](one))
        action = int(move(player, one, jax.random.PRNGKey(i)))
        if bool(one.done):
            assert action == PASS, name
            continue
        expected = int(np.argmax(np.where(legal, logits[i], -np.inf)))
        assert action == expected and legal[action], (name, action, expected)
        masked_out += not legal[int(np.argmax(logits[i]))]
        warm = az.PolicyPlayer(graphdef, variables, temperature=1.0, symmetries=1)
        sampled = [int(move(warm, one, jax.random.PRNGKey(k))) for k in range(8)]
        assert all(legal[a] for a in sampled), (name, sampled)
    assert masked_out >= 1  # the network's first choice was illegal in one position at least
    leaves = jax.tree.leaves(player)
    assert len(leaves) == len(jax.tree.leaves(variables)) and player != az.PolicyPlayer(graphdef, variables)
    with pytest.raises(ValueError, match=r"PolicyPlayer\.temperature .*-1"):
        az.PolicyPlayer(graphdef, variables, temperature=-1.0)


# The 8 symmetries of a board on axes 1 and 2 of a NumPy array, each with its inverse: the rotations
# and the four mirrors (written from NumPy, not from gojax.symmetry).
NUMPY_SYMMETRIES = [
    *[
        (lambda x, k=k: np.rot90(x, k, axes=(1, 2)), lambda x, k=k: np.rot90(x, -k, axes=(1, 2)))
        for k in range(4)
    ],
    *[
        (mirror, mirror)
        for mirror in (
            lambda x: x[:, :, ::-1],
            lambda x: x[:, ::-1],
            lambda x: x.swapaxes(1, 2),
            lambda x: np.rot90(x, 2, axes=(1, 2)).swapaxes(1, 2),
        )
    ],
]


def test_policy_player_averages_the_logits_over_the_eight_symmetries(positions, jitted):
    """``symmetries=8`` (the policy player's default): the logits and the value are the means over the
    8 rotated and mirrored boards, each policy mapped back (computed here with NumPy), and the player's
    move the best legal one by that mean (the AlphaZero player's search evaluates the same way);
    ``symmetries=1`` the network on the board as it is."""
    graphdef, variables = az.split(_net(3))
    names, states = positions
    planes = np.asarray(jax.vmap(lambda s: az.basic_planes(CONFIG, s))(states))
    logits, values = [], []
    for forward, back in NUMPY_SYMMETRIES:
        out_logits, out_value, _ = az.apply(graphdef, variables, jnp.asarray(forward(planes).copy()))
        board = back(np.asarray(out_logits)[:, :-1].reshape(-1, N, N)).reshape(len(names), -1)
        logits.append(np.concatenate([board, np.asarray(out_logits)[:, -1:]], axis=1))
        values.append(np.asarray(out_value))
    mean_logits, mean_value = np.mean(logits, axis=0), np.mean(values, axis=0)
    got_logits, got_value = az.network_evaluator(graphdef, variables, symmetries=8)(
        CONFIG, states, jax.random.PRNGKey(0)
    )
    np.testing.assert_allclose(np.asarray(got_logits), mean_logits, rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(np.asarray(got_value), mean_value, rtol=1e-5, atol=1e-5)
    plain = az.network_evaluator(graphdef, variables)(CONFIG, states, jax.random.PRNGKey(0))[0]
    np.testing.assert_allclose(np.asarray(plain), logits[0], rtol=1e-5, atol=1e-5)
    searcher = az.AlphaZeroPlayer(graphdef, variables, az.PLAY_SETTINGS, symmetries=8)
    searched = searcher.evaluator()(CONFIG, states, jax.random.PRNGKey(0))[0]  # what its search calls
    np.testing.assert_allclose(np.asarray(searched), mean_logits, rtol=1e-5, atol=1e-5)
    assert az.AlphaZeroPlayer(graphdef, variables).symmetries == 1

    move = jax.jit(lambda p, s, k: p(CONFIG, s, k))
    assert az.PolicyPlayer(graphdef, variables).symmetries == 8
    # Own eyes left to the network: the best legal move is then the player's move.
    averaged = az.PolicyPlayer(graphdef, variables, fill_own_eyes=True)
    single = az.PolicyPlayer(graphdef, variables, fill_own_eyes=True, symmetries=1)
    changed = 0
    for i, name in enumerate(names):
        one = jax.tree.map(lambda x, i=i: x[i], states)
        if bool(one.done):
            continue
        legal = np.asarray(jitted["legal"](one))
        best = int(np.argmax(np.where(legal, mean_logits[i], -np.inf)))
        assert int(move(averaged, one, jax.random.PRNGKey(i))) == best, name
        assert int(move(single, one, jax.random.PRNGKey(i))) == int(
            np.argmax(np.where(legal, logits[0][i], -np.inf))
        )
        changed += best != int(np.argmax(np.where(legal, logits[0][i], -np.inf)))
    assert changed >= 1  # the mean chose another move than the plain network somewhere
    for bad, error in ((2, ValueError), (0, ValueError), (8.0, TypeError), (True, TypeError)):
        with pytest.raises(error, match=r"PolicyPlayer\.symmetries"):
            az.PolicyPlayer(graphdef, variables, symmetries=bad)
        with pytest.raises(error, match=r"network_evaluator: symmetries"):
            az.network_evaluator(graphdef, variables, symmetries=bad)
        with pytest.raises(error, match=r"AlphaZeroPlayer\.symmetries"):
            az.AlphaZeroPlayer(graphdef, variables, symmetries=bad)


# Black to move with three one-point eyes; White's side of the board is open (first), then a board
# where Black's eyes are the only empty points (second).
EYES_AND_ROOM = """
. X . X .
X X X X X
X X X X X
O O O O O
. . . . .
"""
ONLY_EYES = """
. X . X .
X X X X X
X X X X X
X X X X X
X . X . X
"""


def test_policy_player_never_fills_its_own_eyes_unless_told():
    """A network that ranks the mover's one-point eyes first: the player takes its best other move,
    passes when the eyes are all that is left, and with ``fill_own_eyes=True`` plays an eye."""
    net = _net()
    eyes = [point(0, 0), point(0, 2), point(0, 4), point(4, 1), point(4, 3)]
    bias = np.zeros(CONFIG.num_actions, np.float32)
    bias[eyes[:3]] = 40.0  # the eyes of both boards
    bias[eyes[3:]] = 30.0  # eyes of the second board only: the first's best points that are no eye
    bias[PASS] = -30.0
    net.policy_out.kernel[...] = jnp.zeros_like(net.policy_out.kernel[...])
    net.policy_out.bias[...] = jnp.asarray(bias)
    graphdef, variables = az.split(net)
    move = jax.jit(lambda p, s: p(CONFIG, s, jax.random.PRNGKey(0)))
    room = gojax.from_ascii(CONFIG, EYES_AND_ROOM, to_play=1)
    only = gojax.from_ascii(CONFIG, ONLY_EYES, to_play=1)
    spare, fill = (
        az.PolicyPlayer(graphdef, variables, symmetries=1),
        az.PolicyPlayer(graphdef, variables, fill_own_eyes=True, symmetries=1),
    )
    assert int(move(spare, room)) == point(4, 1)
    assert int(move(fill, room)) == point(0, 0)
    assert int(move(spare, only)) == PASS
    assert int(move(fill, only)) in eyes
    with pytest.raises(TypeError, match=r"PolicyPlayer\.fill_own_eyes"):
        az.PolicyPlayer(graphdef, variables, fill_own_eyes=1)


# ------------------------------------------------------------- checkpoints


def test_checkpoint_round_trip_and_errors(tmp_path):
    net = _net(5)
    graphdef, variables = az.split(net)
    planes = jax.random.bernoulli(jax.random.PRNGKey(4), 0.5, (3, N, N, az.BASIC_NUM_CHANNELS)).astype(
        jnp.float32
    )
    _, _, variables = az.apply(graphdef, variables, planes, train=True)  # non-trivial batch stats
    net = az.merge(graphdef, variables)
    path = tmp_path / "ckpt"
    az.save_checkpoint(path, net, TINY, board_size=N, metadata={"step": 7, "komi": 0.5})
    az.save_checkpoint(path, net, TINY, board_size=N, metadata={"step": 8, "komi": 0.5})  # overwrite
    loaded, config, meta = az.load_checkpoint(path)
    assert (
        config == TINY and meta["step"] == 8 and meta["board_size"] == N and meta["observe_name"] == "basic"
    )
    expected = az.apply(graphdef, variables, planes)
    got = az.apply(*az.split(loaded), planes)
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])
    assert not [p for p in os.listdir(tmp_path) if p != "ckpt"]  # no temporary left behind

    with pytest.raises(FileNotFoundError, match="nowhere"):
        az.load_checkpoint(tmp_path / "nowhere")
    # A half-written checkpoint: orbax's temporary directory is never read as valid.
    half = tmp_path / "half.orbax-checkpoint-tmp-1234"
    half.mkdir()
    (half / "arrays").mkdir()
    with pytest.raises(ValueError, match="half"):
        az.load_checkpoint(half)
    # A directory missing a part, and one with garbage metadata.
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "arrays").mkdir()
    with pytest.raises(ValueError, match="broken"):
        az.load_checkpoint(broken)
    (broken / "meta").mkdir()
    (broken / "meta" / "metadata").write_text("{not json")
    with pytest.raises(ValueError, match="broken"):
        az.load_checkpoint(broken)
    with pytest.raises(ValueError, match="reserved"):
        az.save_checkpoint(tmp_path / "x", net, TINY, board_size=N, metadata={"board_size": 3})
    with pytest.raises(ValueError, match="board_size"):
        az.save_checkpoint(tmp_path / "x", net, TINY, board_size=7)
