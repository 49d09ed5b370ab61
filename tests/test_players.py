"""Classic players, the match runner and the tiny-board alpha-beta.

Positions are hand-built on 5x5 (komi 0.5); expected moves and values come
from reading the positions, written next to each diagram. Each jitted function
is compiled once per module (fixtures).
"""

from __future__ import annotations

import functools
import math
import operator

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import jitted, needs, stack_states, swap_colours

import gojax
from gojax import features
from gojax import players as P
from gojax.players import alphabeta

# Simple ko keeps the compiled programs small (no superko history); superko is
# part of gojax's legal mask, which every player here reads, not of the players.
CONFIG = gojax.GoConfig(size=5, komi=0.5, ko_rule="simple", max_moves=200)
PASS = CONFIG.pass_action


def point(row: int, col: int) -> int:
    return row * CONFIG.size + col


# Black to move. White's 8-stone chain (right column and row 3) has one liberty,
# (4,4); so has Black's bottom chain (row 4). Black captures at (4,4) and owns
# the whole board; any other move lets White capture the bottom chain at (4,4).
CAPTURE_WIN = """
. . . X O
. . . X O
X X X X O
O O O O O
X X X X .
"""
CAPTURE = point(4, 4)

# Black to move. The only legal point is the centre, which captures White's
# ring (its last liberty); (4,4) would fill Black's own last liberty (suicide).
# One level deeper, (4,4) is suicide for White after the capture, and the
# centre is suicide for White after a Black pass.
RING = """
X X X X X
X O O O X
X O . O X
X O O O X
X X X X .
"""
CENTRE = point(2, 2)

# Black to move; every empty point is one of Black's own eyes.
TWO_EYES = """
X X X X X
X . X . X
X X X X X
X X X X X
X X X X X
"""

# Black to move. (0,0) captures one white stone, (4,3) captures three.
TWO_CAPTURES = """
. O X . .
X X . . .
X X X X X
X O O O X
X X X . .
"""

# Black to move. Black (2,1) is in atari; (3,1) extends it to three liberties.
# No white chain is in atari.
ATARI = """
. . . . .
. O . . .
O X O . .
. . . . .
. . . . .
"""

# Black to move. (4,2) would be a self-atari (one liberty, (3,2)); (4,0) and
# (4,4) are suicide; every other empty point is safe. Nothing to capture.
SELF_ATARI = """
. . . . .
. . . . .
. . . . .
O O . O O
. O . O .
"""


def state_of(text: str, to_play: int = 1) -> gojax.GoState:
    return gojax.from_ascii(CONFIG, text, to_play=to_play)


def stack(*states):
    return stack_states(states)


def keys(n: int, seed: int = 0):
    return jax.random.split(jax.random.PRNGKey(seed), n)


def repeat(state, n):
    return jax.tree.map(lambda x: jnp.broadcast_to(x, (n, *x.shape)), state)


@pytest.fixture(scope="module")
def many_moves():
    """``fn(policy)``: jitted ``[B]`` actions of ``policy`` on ``[B]`` states."""
    return lambda policy: jitted(policy, CONFIG, batched=True)


# --------------------------------------------------------------------------- helpers


def test_own_eyes_matches_the_feature_plane():
    """The bitboard eyes agree with ``features.mover_eyes`` (gathers) on random positions."""
    config = gojax.GoConfig(size=7, ko_rule="simple")

    def body(state, key):
        mask = gojax.legal_action_mask(config, state).at[-1].set(False)
        return gojax.step(config, state, P.sample_uniform(key, mask)), state

    def run(key):
        _, states = jax.lax.scan(body, gojax.init(config), jax.random.split(key, 60))
        ours = jax.vmap(functools.partial(P.own_eyes, config))(states)
        theirs = jax.vmap(functools.partial(features.mover_eyes, config))(states)
        return ours, theirs.reshape(ours.shape)

    ours, theirs = jax.jit(jax.vmap(run))(keys(8))
    np.testing.assert_array_equal(ours, theirs)
    assert np.asarray(ours).sum() > 20  # the positions do have eyes
    eyes = np.asarray(P.own_eyes(CONFIG, state_of(TWO_EYES)))
    assert set(np.flatnonzero(eyes)) == {point(1, 1), point(1, 3)}


def test_sample_uniform_is_uniform_over_the_mask():
    mask = jnp.zeros(10, bool).at[jnp.array([1, 4, 9])].set(True)
    picks = np.asarray(jax.jit(jax.vmap(P.sample_uniform, (0, None)))(keys(3000), mask))
    counts = np.bincount(picks, minlength=10)
    assert set(np.flatnonzero(counts)) == {1, 4, 9}
    assert counts[[1, 4, 9]].min() > 900  # 1000 expected each


@pytest.mark.parametrize("size", [9, 19])
def test_sample_uniform_on_a_batch_of_masks(size):
    """Batched masks (one key for all): only True entries, each about equally
    often, whatever rows of the internal square are empty."""
    actions, draws = size * size + 1, 2000
    rng = np.random.default_rng(size)
    masks = rng.random((6, actions)) < np.array([0.02, 0.3, 0.9, 0.0, 0.5, 0.0])[:, None]
    masks[3, -1] = True  # only the last entry (pass)
    masks[4, : actions // 2] = False  # a long empty stretch first
    masks[5, [0, actions - 1]] = True  # only the first and the last
    sample = jax.jit(jax.vmap(P.sample_uniform, (0, None)))
    picks = np.asarray(sample(keys(draws), jnp.asarray(masks)))  # [draws, 6]
    assert picks.shape == (draws, 6) and picks.dtype == np.int32
    for b in range(len(masks)):
        counts = np.bincount(picks[:, b], minlength=actions)
        assert not counts[~masks[b]].any(), f"mask {b}: sampled a False entry"
        n = masks[b].sum()
        expected = draws / n
        chi2 = ((counts[masks[b]] - expected) ** 2 / expected).sum()
        # Chi-square with n - 1 degrees of freedom, 6 standard deviations above its mean.
        assert chi2 < (n - 1) + 6 * np.sqrt(2 * max(n - 1, 1)), (b, n, chi2)
    assert int(P.sample_uniform(jax.random.PRNGKey(0), jnp.zeros(actions, bool))) == 0


@pytest.mark.parametrize("actions", [82, 362])
def test_sample_uniform_finds_a_lone_entry_anywhere(actions):
    """A mask with one True entry gives that entry, wherever it sits in the
    packed words (first and last bit of a word, the last word partly used)."""
    masks = jnp.eye(actions, dtype=bool)  # row i: only entry i
    picks = np.asarray(jax.jit(P.sample_uniform)(jax.random.PRNGKey(7), masks))
    np.testing.assert_array_equal(picks, np.arange(actions))


# --------------------------------------------------------------------------- random and heuristic


BATCH = 128  # every batched call uses this size: one compilation per policy


def moves_on(policy_fn, text, to_play=1, seed=0):
    return np.asarray(policy_fn(repeat(state_of(text, to_play), BATCH), keys(BATCH, seed)))


def test_random_player(many_moves):
    move = many_moves(P.random_player)
    empty = repeat(gojax.init(CONFIG), BATCH)
    actions = np.concatenate([np.asarray(move(empty, keys(BATCH, seed))) for seed in range(8)])
    counts = np.bincount(actions, minlength=CONFIG.num_actions)
    assert counts[PASS] == 0 and counts[:PASS].min() > 15  # 41 expected per point
    np.testing.assert_array_equal(moves_on(move, RING), CENTRE)  # never the illegal (4,4), never pass
    assert set(moves_on(move, TWO_EYES)) == {point(1, 1), point(1, 3)}  # fills its own eyes
    playout = moves_on(many_moves(P.random_playout_policy), TWO_EYES)
    np.testing.assert_array_equal(playout, PASS)  # the playout policy does not
    always = np.asarray(many_moves(P.RandomPlayer(pass_probability=1.0))(empty, keys(BATCH)))
    np.testing.assert_array_equal(always, PASS)
    with pytest.raises(ValueError, match="pass_probability"):
        P.RandomPlayer(pass_probability=1.5)


def test_heuristic_policy(many_moves):
    move = many_moves(P.heuristic_playout_policy)
    np.testing.assert_array_equal(moves_on(move, TWO_CAPTURES), point(4, 3))  # the larger capture
    np.testing.assert_array_equal(moves_on(move, ATARI), point(3, 1))  # escape by extending
    safe = set(moves_on(move, SELF_ATARI))
    assert point(4, 2) not in safe and not {point(4, 0), point(4, 4), PASS} & safe
    assert len(safe) > 10  # random among the safe points
    assert point(4, 2) in set(moves_on(many_moves(P.random_player), SELF_ATARI))  # the test can fail
    np.testing.assert_array_equal(moves_on(move, RING), CENTRE)
    np.testing.assert_array_equal(moves_on(move, TWO_EYES), PASS)


# --------------------------------------------------------------------------- rollouts


@pytest.fixture(scope="module")
def step():
    return jitted("step", CONFIG)  # eager step would compile op by op


def test_rollout_value_signs(step):
    """A game Black has won is +1 for Black to move and -1 for White to move, finished or not."""
    fn = jax.jit(jax.vmap(functools.partial(P.rollout, CONFIG)))
    positions = []
    for to_play in (1, 2):
        state = gojax.from_ascii(CONFIG, TWO_EYES, to_play=to_play)  # 25 black points, komi 0.5
        over = step(step(state, PASS), PASS)
        assert bool(over.terminated) and int(over.turn) == to_play - 1
        positions += [over, state]
    # Black to move after its capture: Black owns the board but White may still
    # play inside Black's area; the playouts go on to the end.
    captured = step(state_of(CAPTURE_WIN), CAPTURE)
    positions += [captured, gojax.init(CONFIG), gojax.init(CONFIG), gojax.init(CONFIG)]
    values = np.asarray(fn(stack(*positions), keys(8)))
    np.testing.assert_array_equal(values[:4], [1.0, 1.0, -1.0, -1.0])
    assert values[4] == -1.0  # White to move there, and White loses
    assert set(values[5:]) <= {-1.0, 1.0}  # komi 0.5: no draws


# --------------------------------------------------------------------------- pure Monte-Carlo


def test_pure_monte_carlo_finds_the_capture_win_for_both_colours():
    player = P.pure_monte_carlo(16)

    def run(state, key):
        values = player.action_values(CONFIG, state, key)
        return values, player.choose(values, jax.random.fold_in(key, 1))

    black = state_of(CAPTURE_WIN)
    white = state_of(swap_colours(CAPTURE_WIN), to_play=2)
    ring = state_of(RING)
    v, actions = jax.jit(jax.vmap(run))(stack(black, white, ring), keys(3))
    v = np.asarray(v)
    for row in v[:2]:
        assert row[CAPTURE] == 1.0  # a sure win for the mover, whichever colour
        assert np.all(row[np.delete(np.arange(CONFIG.num_actions), CAPTURE)] < 1.0)
    legal = np.flatnonzero(np.isfinite(v[2]))
    assert set(legal) == {CENTRE, PASS}  # illegal actions are never candidates
    assert v[2][CENTRE] > 0.5 > v[2][PASS]
    np.testing.assert_array_equal(actions, [CAPTURE, CAPTURE, CENTRE])
    with pytest.raises(ValueError, match="num_playouts"):
        P.pure_monte_carlo(0)


# --------------------------------------------------------------------------- UCT


UCT = P.uct_player(96)


@pytest.fixture(scope="module")
def uct_run():
    """Trees (mctx's batch of 1 dropped) and chosen moves on [capture win, its colour swap, ring]."""
    needs("mctx")

    from gojax import mcts

    def run(state, key):
        out = mcts.search(CONFIG, UCT.evaluator, jax.tree.map(lambda x: x[None], state), key, UCT.settings)
        return jax.tree.map(lambda x: x[0], out.search_tree), out.action[0]

    positions = stack(state_of(CAPTURE_WIN), state_of(swap_colours(CAPTURE_WIN), to_play=2), state_of(RING))
    trees, actions = jax.jit(jax.vmap(run))(positions, keys(3, 7))
    return jax.tree.map(np.asarray, trees), np.asarray(actions)


@pytest.fixture(scope="module")
def uct_trees(uct_run):
    return uct_run[0]


def test_uct_finds_the_capture_win_with_the_right_signs(uct_trees):
    for game in (0, 1):  # Black to move, then the colour-swapped position with White to move
        visits = uct_trees.children_visits[game, 0]
        assert np.argmax(visits) == CAPTURE
        q = (
            uct_trees.children_rewards[game, 0]
            + uct_trees.children_discounts[game, 0] * (uct_trees.children_values[game, 0])
        )
        assert q[CAPTURE] > 0.9  # from the mover's view, whichever colour moves
        assert uct_trees.node_values[game, 0] > 0  # the root value: the mover wins
    ring_visits = uct_trees.children_visits[2, 0]
    assert set(np.flatnonzero(ring_visits)) == {CENTRE, PASS}  # only the legal moves
    assert np.argmax(ring_visits) == CENTRE


def test_uct_never_expands_an_illegal_move_at_any_depth(uct_trees):
    def legal_and_board(state):
        return gojax.legal_action_mask(CONFIG, state), gojax.board(CONFIG, state)

    legal_fn = jax.jit(jax.vmap(legal_and_board))
    checked = subtle = 0
    for game in range(3):
        tree = jax.tree.map(operator.itemgetter(game), uct_trees)
        states = tree.embeddings
        legal, grid = legal_fn(states)  # [nodes, A], [nodes, N, N]
        legal, grid = np.asarray(legal), np.asarray(grid).reshape(len(legal), -1)
        assert not np.asarray(states.illegal_move).any()
        for node in range(1, len(tree.parents)):
            parent, action = tree.parents[node], tree.action_from_parent[node]
            if parent < 0:
                continue  # not expanded
            checked += 1
            if bool(states.done[parent]):
                assert action == PASS  # below a finished game only pass
            else:
                assert legal[parent, action], (game, node, parent, action)
                # An empty point illegal in the parent (suicide, ko, superko) exists.
                subtle += bool(np.any((grid[parent] == 0) & ~legal[parent, :PASS]))
    assert checked > 150 and subtle > 10


def test_uct_player_moves(uct_run):
    np.testing.assert_array_equal(uct_run[1], [CAPTURE, CAPTURE, CENTRE])
    positions = stack(state_of(CAPTURE_WIN), state_of(RING))
    moves = jax.jit(jax.vmap(lambda s, k: UCT(CONFIG, s, k)))(positions, keys(2, 3))
    np.testing.assert_array_equal(moves, [CAPTURE, CENTRE])
    with pytest.raises(ValueError, match="num_simulations"):
        P.uct_player(0)


def test_ucb1_selection_is_ucb1():
    """On a hand-filled tree node: unvisited legal children first, then UCB1; never illegal ones."""
    mctx = needs("mctx")
    actions = 4
    nodes = 3

    def tree(visits, values, logits, node_visits):
        zeros = jnp.zeros((nodes, actions))
        return mctx.Tree(
            node_visits=jnp.array([node_visits, 0, 0], jnp.int32),
            raw_values=jnp.zeros(nodes),
            node_values=jnp.zeros(nodes),
            parents=jnp.full(nodes, -1, jnp.int32),
            action_from_parent=jnp.full(nodes, -1, jnp.int32),
            children_index=jnp.full((nodes, actions), -1, jnp.int32),
            children_prior_logits=zeros.at[0].set(jnp.array(logits, jnp.float32)),
            children_values=zeros.at[0].set(jnp.array(values, jnp.float32)),
            children_visits=jnp.zeros((nodes, actions), jnp.int32).at[0].set(jnp.array(visits)),
            children_rewards=zeros,
            children_discounts=zeros.at[0].set(-1.0),
            embeddings=jnp.zeros(nodes),
            root_invalid_actions=jnp.zeros(actions),
            extra_data=None,
        )

    from gojax import mcts

    select = jax.jit(functools.partial(mcts.ucb1_action_selection, c=math.sqrt(2)))
    bad = mcts.ILLEGAL_LOGIT
    # Action 3 is unvisited but illegal; action 2 unvisited and legal: it goes first.
    t = tree([5, 3, 0, 0], [0.2, -0.4, 0.0, 0.0], [0.0, 0.0, 0.0, bad], 9)
    assert int(select(jax.random.PRNGKey(0), t, 0, 1)) == 2
    # All legal children visited. Child values are from the child's mover's view,
    # so Q = -value and the win rate W = (1 - value) / 2:
    #   a0: n=5, W=0.4, 0.4 + sqrt(2 ln 9 / 5) = 1.3370
    #   a1: n=3, W=0.7, 0.7 + sqrt(2 ln 9 / 3) = 1.9116
    #   a2: n=1, W=0.0, 0.0 + sqrt(2 ln 9 / 1) = 2.0963  <- UCB1's choice
    # (PUCT with a uniform prior would rank a1 above a2: it weights 1/(1+n), not sqrt(ln N / n).)
    t = tree([5, 3, 1, 0], [0.2, -0.4, 1.0, -1.0], [0.0, 0.0, 0.0, bad], 10)
    assert int(select(jax.random.PRNGKey(0), t, 0, 1)) == 2
    # With C = 0 it is greedy in the win rate: a1.
    greedy = jax.jit(functools.partial(mcts.ucb1_action_selection, c=0.0))
    assert int(greedy(jax.random.PRNGKey(0), t, 0, 1)) == 1
    # Illegal at the root through mctx's root_invalid_actions only.
    t = tree([5, 3, 1, 0], [0.2, -0.4, 1.0, -1.0], [0.0] * 4, 10).replace(
        root_invalid_actions=jnp.array([0.0, 0.0, 1.0, 1.0])
    )
    assert int(select(jax.random.PRNGKey(0), t, 0, 0)) == 1


# --------------------------------------------------------------------------- match runner


def always_pass(config, state, key):
    del state, key
    return jnp.int32(config.pass_action)


def centre_then_pass(config, state, key):
    del key
    centre = (config.size // 2) * config.size + config.size // 2
    free = gojax.legal_action_mask(config, state)[centre]
    return jnp.where(free, centre, config.pass_action).astype(jnp.int32)


def test_match_counts_and_colour_alternation():
    # A stone in the centre owns the empty board: A wins with either colour.
    result = P.play_match(CONFIG, centre_then_pass, always_pass, 4, jax.random.PRNGKey(1), return_moves=True)
    assert (result.wins, result.losses, result.draws) == (4, 0, 0)
    assert (result.wins_as_black, result.wins_as_white) == (2, 2)
    np.testing.assert_array_equal(result.a_is_black, [True, True, False, False])
    np.testing.assert_array_equal(result.result, 1.0)
    assert result.moves.shape == (4, CONFIG.move_cap)
    np.testing.assert_array_equal(result.moves[:2, :4], [[CENTRE, PASS, PASS, -1]] * 2)  # A black
    np.testing.assert_array_equal(result.moves[2:, :5], [[PASS, CENTRE, PASS, PASS, -1]] * 2)  # A white
    np.testing.assert_array_equal(result.length, [3, 3, 4, 4])
    assert result.score == 1.0 and result.elo == math.inf and result.score_interval[1] == 1.0
    assert result.adjudicated == 0 and result.mean_length == 3.5
    # One move each, in batches of 2 (each batch alternates colours), then
    # adjudication by area: the centre stone of whoever is Black wins.
    capped = P.play_match(
        CONFIG, centre_then_pass, centre_then_pass, 4, jax.random.PRNGKey(2), max_moves=1, batch_size=2
    )
    np.testing.assert_array_equal(capped.a_is_black, [True, False, True, False])
    np.testing.assert_array_equal(capped.result, [1, -1, 1, -1])
    assert capped.adjudicated == 4 and capped.moves is None
    assert (capped.wins_as_black, capped.wins_as_white) == (2, 0)
    for bad in (3, 0):
        with pytest.raises(ValueError, match="num_games"):
            P.play_match(CONFIG, always_pass, always_pass, bad, jax.random.PRNGKey(0))
    with pytest.raises(ValueError, match="batch_size"):
        P.play_match(CONFIG, always_pass, always_pass, 6, jax.random.PRNGKey(0), batch_size=4)


def test_match_between_passers_goes_to_white_on_komi():
    """An empty board: White wins on komi, so A wins exactly the games where A is White."""
    result = P.play_match(CONFIG, always_pass, always_pass, 4, jax.random.PRNGKey(0))
    assert (result.wins, result.losses, result.draws) == (2, 2, 0)
    np.testing.assert_array_equal(result.result, [-1, -1, 1, 1])
    np.testing.assert_array_equal(result.length, 2)
    assert result.score == 0.5 and result.elo == 0.0


def test_match_statistics():
    # Wilson's interval for 0 of n has the closed form [0, z^2 / (n + z^2)].
    lo, hi = P.wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(1.96**2 / (10 + 1.96**2))
    lo, hi = P.wilson_interval(10, 10)
    assert hi == 1.0 and lo == pytest.approx(10 / (10 + 1.96**2))
    lo, hi = P.wilson_interval(5, 10)
    assert lo + hi == pytest.approx(1.0)  # symmetric around 1/2
    assert P.elo_difference(0.5) == 0.0
    assert P.elo_difference(0.75) == pytest.approx(400 * math.log10(3))
    assert P.elo_difference(1.0) == math.inf and P.elo_difference(0.0) == -math.inf
    with pytest.raises(ValueError):
        P.wilson_interval(11, 10)


# --------------------------------------------------------------------------- alpha-beta


def test_alphabeta_tiny_board_rules():
    game = alphabeta.TinyGo(3)
    # Black at the centre, White around it on three sides, Black to move at (0,1).
    black, white = 1 << 4, (1 << 1) | (1 << 3) | (1 << 5)
    assert game.play((black, white), 1, 7) == (0, white | (1 << 7))  # White captures the centre
    assert game.play((black, white), 0, 4) is None  # occupied
    corner = (0, (1 << 1) | (1 << 3))
    assert game.play(corner, 0, 0) is None  # suicide in the corner
    assert game.score((1, 0)) == 9.0  # one stone owns the board (komi 0)


def test_alphabeta_solves_2x2():
    """2x2, area scoring, positional superko, komi 0: Black wins by 1 (Bill Taylor)."""
    sound = alphabeta.solve(2, komi=0.0, tt_key="history")
    assert sound.completed and sound.value == 1.0
    assert sound.best_move in (0, 1, 2, 3)  # all four points are equivalent
    fast = alphabeta.solve(2, komi=0.0, tt_key="position")
    assert fast.completed and fast.value == 1.0 and fast.nodes < sound.nodes
    hinted = alphabeta.solve(2, komi=0.0, ordering_hints=True)  # better move ordering, same value
    assert hinted.value == 1.0 and hinted.nodes < sound.nodes
    assert alphabeta.solve(2, komi=0.0, superko="situational").value == 1.0
    # With komi 1 the game is a draw; with komi 1.5 White wins by 0.5.
    assert alphabeta.solve(2, komi=1.0).value == 0.0
    assert alphabeta.solve(2, komi=1.5).value == -0.5
    stopped = alphabeta.solve(2, node_limit=50)
    assert not stopped.completed and stopped.value is None
    with pytest.raises(ValueError, match="tt_key"):
        alphabeta.solve(2, tt_key="bogus")
    with pytest.raises(ValueError, match="illegal move"):
        alphabeta.solve(2, moves=(0, 0))
