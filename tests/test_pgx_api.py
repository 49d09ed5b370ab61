"""gojax.make against pgx: pgx's own API checker, seat order, and whole random games played move for
move in pgx's Go and in gojax (boards, observations, masks, rewards, ends).

pgx is a test dependency only (the ``test`` extra); gojax never imports it.
"""

from __future__ import annotations

import functools
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import without_history

import gojax

pgx = pytest.importorskip("pgx")


@pytest.fixture(scope="module")
def pgx_checker():
    """pgx's ``api_test`` with its random-action helper made to take one game's mask.

    pgx 2.6's ``api_test_single`` calls ``act_randomly(key, mask)`` (categorical
    over ``axis=1``) on a single state's 1-D mask, which raises an IndexError
    for every environment, pgx's own Go included; the batched half is
    unaffected. The wrapper adds the batch axis and removes it again.
    """
    from pgx._src import api_test as checker

    batched = checker.act_randomly
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(
            checker,
            "act_randomly",
            jax.jit(lambda key, mask: batched(key, mask[None])[0] if mask.ndim == 1 else batched(key, mask)),
        )
        yield checker.api_test


@pytest.mark.parametrize("env_id", ["go_9x9", "go_19x19"])
def test_pgx_api_test_passes(pgx_checker, env_id):
    env = gojax.make(env_id)
    assert env.id == env_id and env.num_players == 2
    pgx_checker(env, num=1)


def test_make_mirrors_pgx_make_and_takes_the_rules():
    for env_id in ("go_9x9", "go_19x19"):
        ours, theirs = gojax.make(env_id), pgx.make(env_id)
        assert ours.id == theirs.id and ours.num_players == theirs.num_players
        assert ours.num_actions == theirs.num_actions
        assert ours.observation_shape == tuple(theirs.observation_shape)
    env = gojax.make("go_13x13", komi=6.5, ko_rule="situational", suicide=True, max_moves=50)
    assert env.config == gojax.GoConfig(size=13, komi=6.5, ko_rule="situational", suicide=True, max_moves=50)
    state = jax.eval_shape(env.init, jax.random.PRNGKey(0))
    assert state.env_id == "go_13x13" and state.legal_action_mask.shape == (170,)
    assert gojax.make("go_9x9", observation="basic").observation_shape == (9, 9, 15)
    for bad in ("go_9x10", "chess", "go_9x9x9", 9):
        with pytest.raises(ValueError, match=f"unknown environment id {re.escape(repr(bad))}.*'go_NxN'"):
            gojax.make(bad)
    for bad in ("go_1x1", "go_26x26"):
        with pytest.raises(ValueError, match="size"):
            gojax.make(bad)
    with pytest.raises(ValueError, match="ko_rule"):
        gojax.make("go_9x9", ko_rule="japanese")


def test_state_fields_are_pgxs():
    key = jax.random.PRNGKey(1)
    state = jax.eval_shape(gojax.make("go_9x9").init, key)  # shapes and dtypes only
    public = [name for name in vars(state) if not name.startswith("_")]
    assert public == [
        "current_player",
        "observation",
        "rewards",
        "terminated",
        "truncated",
        "legal_action_mask",
    ]
    theirs = jax.eval_shape(pgx.make("go_9x9").init, key)
    for name in public:
        ours, other = getattr(state, name), getattr(theirs, name)
        assert ours.dtype == other.dtype and ours.shape == other.shape, name


def test_seats_are_drawn_as_pgx_draws_them():
    keys = jax.random.split(jax.random.PRNGKey(5), 256)
    ours = jax.jit(jax.vmap(gojax.make("go_9x9", observation=None).init))(keys)
    theirs = jax.jit(jax.vmap(pgx.make("go_9x9").init))(keys)
    black = np.asarray(ours._black)
    assert 0.4 < black.mean() < 0.6  # player 0 is black in about half of the games
    np.testing.assert_array_equal(black, np.asarray(theirs._player_order)[:, 0])
    np.testing.assert_array_equal(ours.current_player, theirs.current_player)  # black moves first


def test_save_svg_draws_one_board_or_a_grid(tmp_path):
    env = gojax.make("go_5x5", observation=None, ko_rule="simple")
    keys = jax.random.split(jax.random.PRNGKey(2), 5)
    step = jax.jit(jax.vmap(env.step))
    states = jax.jit(jax.vmap(env.init))(keys)
    for action in (12, 13, 7):
        states = step(states, jnp.full(5, action))
    states.save_svg(tmp_path / "grid.svg")
    text = (tmp_path / "grid.svg").read_text()
    assert text.count('<svg x="') == 5  # one board per game
    assert len(re.findall(r'class="stone (black|white)"', text)) == 5 * 3
    one = jax.tree.map(lambda x: x[0], states)
    single = one.to_svg()
    assert single.count("<svg") == 1 and len(re.findall(r'class="stone black"', single)) == 2
    with pytest.raises(ValueError, match=r"must end with \.svg"):
        one.save_svg(tmp_path / "board.png")
    with pytest.raises(ValueError, match="color_theme"):
        one.to_svg(color_theme="dark")


# --------------------------------------------------------------------------- move for move against pgx

GAMES = 8


def _boards_of_pgx(state) -> np.ndarray:
    """``int8[B, N, N]`` from pgx's chain-id board (> 0 black, < 0 white) as 0/1/2."""
    board = np.asarray(state._x.board)
    size = round(board.shape[-1] ** 0.5)
    return np.where(board > 0, gojax.BLACK, np.where(board < 0, gojax.WHITE, gojax.EMPTY)).reshape(
        -1, size, size
    )


@pytest.fixture(scope="module")
def played_9x9():
    """Whole random games in both environments from the same keys and actions; per-move records."""
    env, other = gojax.make("go_9x9"), pgx.make("go_9x9")
    config = env.config
    simple = gojax.GoConfig(size=9, ko_rule="simple")
    ours_step, theirs_step = jax.jit(jax.vmap(env.step)), jax.jit(jax.vmap(other.step))
    simple_mask = jax.jit(jax.vmap(functools.partial(gojax.legal_action_mask, simple)))
    board = jax.jit(jax.vmap(functools.partial(gojax.board, config)))
    keys = jax.random.split(jax.random.PRNGKey(11), GAMES)
    ours, theirs = jax.jit(jax.vmap(env.init))(keys), jax.jit(jax.vmap(other.init))(keys)
    # Half of the games pass often (they end by two passes), half only when nothing else is legal
    # (they reach the move cap, and repeat captures where superko bans show).
    pass_bias = jnp.where(jnp.arange(GAMES) % 2 == 0, 3.0, -30.0)
    key = jax.random.PRNGKey(12)
    records = []
    while not bool(np.asarray(ours.terminated).all()):
        key, sub = jax.random.split(key)
        logits = jnp.where(ours.legal_action_mask, 0.0, -jnp.inf).at[:, -1].add(pass_bias)
        actions = jax.random.categorical(sub, logits)  # legal for gojax, hence for pgx
        mine = np.asarray(ours.legal_action_mask)
        records.append(
            dict(
                ours=mine,
                theirs=np.asarray(theirs.legal_action_mask),
                simple=np.asarray(simple_mask(without_history(ours._game)))
                | np.asarray(ours.terminated)[:, None],
            )
        )
        ours, theirs = ours_step(ours, actions), theirs_step(theirs, actions)
        records[-1].update(
            terminated=(np.asarray(ours.terminated), np.asarray(theirs.terminated)),
            rewards=(np.asarray(ours.rewards), np.asarray(theirs.rewards)),
            player=(np.asarray(ours.current_player), np.asarray(theirs.current_player)),
            steps=(np.asarray(ours._step_count), np.asarray(theirs._step_count)),
            observation=(np.asarray(ours.observation), np.asarray(theirs.observation)),
            board=(np.asarray(board(ours._game)), _boards_of_pgx(theirs)),
            capped=np.asarray(ours._game.truncated),
        )
    return records


def test_random_games_agree_with_pgx_move_for_move(played_9x9):
    for number, record in enumerate(played_9x9, start=1):
        for what in ("terminated", "rewards", "player", "steps", "observation", "board"):
            ours, theirs = record[what]
            np.testing.assert_array_equal(ours, theirs, err_msg=f"{what} after move {number}")
    assert played_9x9[-1]["terminated"][0].all()
    capped = played_9x9[-1]["capped"]
    assert capped.any() and not capped.all()  # both kinds of end: two passes and the move cap (scored)
    totals = sum(record["rewards"][0] for record in played_9x9)
    assert (np.abs(totals).sum(axis=1) == 2).all()  # every game has one winner (komi 7.5)


def test_masks_differ_from_pgx_only_by_superko(played_9x9):
    for number, record in enumerate(played_9x9, start=1):
        # pgx bans only the simple ko recapture: its mask is gojax's under the simple ko rule.
        np.testing.assert_array_equal(record["theirs"], record["simple"], err_msg=f"before move {number}")
        assert not (record["ours"] & ~record["theirs"]).any()  # gojax's mask lies inside pgx's


def test_a_superko_repeat_is_refused_by_gojax_and_lost_in_pgx():
    # Sending two, returning one (9x9, top left). Start: black a1 = 1, b = 9; white 3, 10, 11, 12.
    #   . X p O        black plays p = 2 (two stones in atari), white takes both at 0, and black's
    #   X O O O        retake at 1 recreates the start: a positional superko repeat. Simple ko
    # allows it (the retaking stone has two liberties), and so does pgx's mask.
    pass_ = 81
    setup = [1, 3, 9, 10, pass_, 11, pass_, 12, 2, 0]
    ours_env, pgx_env = gojax.make("go_9x9"), pgx.make("go_9x9")
    ours, theirs = ours_env.init(jax.random.PRNGKey(0)), pgx_env.init(jax.random.PRNGKey(0))
    ours_step, theirs_step = jax.jit(ours_env.step), jax.jit(pgx_env.step)
    for action in setup:
        ours, theirs = ours_step(ours, action), theirs_step(theirs, action)
    assert not bool(ours.terminated) and not bool(theirs.terminated)
    differ = np.flatnonzero(np.asarray(ours.legal_action_mask) != np.asarray(theirs.legal_action_mask))
    assert differ.tolist() == [1] and bool(theirs.legal_action_mask[1])  # only the repeat, pgx lists it
    mover = int(ours.current_player)
    ours, theirs = ours_step(ours, 1), theirs_step(theirs, 1)
    # Both end the game as a loss for the mover: pgx because the position repeats, gojax because
    # the move is illegal (gojax leaves the board as it was; pgx's board shows the repeat).
    assert bool(ours.terminated) and bool(theirs.terminated)
    np.testing.assert_array_equal(ours.rewards, theirs.rewards)
    assert float(ours.rewards[mover]) == -1 and bool(ours._game.illegal_move)


def test_with_repeats_in_the_mask_gojax_lists_and_loses_a_superko_repeat_as_pgx():
    """``mask_repeats=False``: the mask lists the repeat as pgx's does, at every move of the game, and
    playing it ends the game with pgx's rewards and flags (the board and the player to move stay as
    they were, where pgx plays the move)."""
    pass_ = 81
    setup = [1, 3, 9, 10, pass_, 11, pass_, 12, 2, 0]  # as in the test above: 1 is then a repeat
    ours_env, pgx_env = gojax.make("go_9x9", mask_repeats=False), pgx.make("go_9x9")
    ours, theirs = ours_env.init(jax.random.PRNGKey(0)), pgx_env.init(jax.random.PRNGKey(0))
    ours_step, theirs_step = jax.jit(ours_env.step), jax.jit(pgx_env.step)
    fields = ("legal_action_mask", "rewards", "terminated", "truncated", "_step_count", "current_player")
    for number, action in enumerate([*setup, 1]):
        ours, theirs = ours_step(ours, action), theirs_step(theirs, action)
        last = number == len(setup)
        for name in fields[:-1] if last else fields:
            np.testing.assert_array_equal(getattr(ours, name), getattr(theirs, name), err_msg=name)
        if not last:
            np.testing.assert_array_equal(ours.observation, theirs.observation)
    assert bool(ours.terminated) and bool(ours._game.illegal_move)  # the repeat lost
    mover = 1 - int(theirs.current_player)
    assert int(ours.current_player) == mover and float(ours.rewards[mover]) == -1
    with pytest.raises(ValueError, match="mask_repeats"):
        gojax.make("go_9x9", mask_repeats=0)
    with pytest.raises(TypeError, match="superko"):
        gojax.legal_action_mask(ours_env.config, ours._game, superko=jnp.bool_(False))


def test_a_step_on_auto_resets_new_game_is_ignored_as_pgx_ignores_it():
    """pgx's AlphaZero example searches from the state auto_reset returns (``terminated`` still set):
    pgx's ``step`` leaves such a state as it is - rewards 0, every action legal - and so must gojax's."""
    from pgx.experimental import auto_reset as pgx_auto_reset

    env, other = gojax.make("go_9x9"), pgx.make("go_9x9")
    pass_ = env.num_actions - 1
    keys = jax.random.split(jax.random.PRNGKey(5), 4)
    ours = jax.vmap(env.init)(keys)
    theirs = jax.vmap(other.init)(keys)
    ours_reset = jax.jit(jax.vmap(gojax.env.auto_reset(env.step, env.init)))
    theirs_reset = jax.jit(jax.vmap(pgx_auto_reset(other.step, other.init)))
    ours_step, theirs_step = jax.jit(jax.vmap(env.step)), jax.jit(jax.vmap(other.step))
    for move, action in enumerate([40, 41, pass_, pass_]):  # two passes end every game
        actions = jnp.full(4, action)
        step_keys = jax.random.split(jax.random.PRNGKey(100 + move), 4)
        ours, theirs = ours_reset(ours, actions, step_keys), theirs_reset(theirs, actions, step_keys)
    assert np.asarray(ours.terminated).all() and np.asarray(theirs.terminated).all()
    assert not np.asarray(ours._game.terminated).any()  # the new games, with the old flags
    for action in (40, pass_, 3):
        ours, theirs = ours_step(ours, jnp.full(4, action)), theirs_step(theirs, jnp.full(4, action))
        fields = ("rewards", "terminated", "truncated", "legal_action_mask", "current_player", "_step_count")
        for name in fields:
            np.testing.assert_array_equal(getattr(ours, name), getattr(theirs, name), err_msg=name)
        np.testing.assert_array_equal(ours.observation, theirs.observation)
        assert not np.asarray(ours._game.stones).any()  # the move was not played


# --------------------------------------------------------------------------- through the end and auto_reset


def _public(state, boards) -> dict[str, np.ndarray]:
    """The fields a pgx program reads, the step count and the board, as NumPy arrays."""
    fields = ("current_player", "observation", "rewards", "terminated", "truncated", "legal_action_mask")
    out = {name: np.asarray(getattr(state, name)) for name in fields}
    out["_step_count"] = np.asarray(state._step_count)
    out["board"] = boards(state)
    return out


@pytest.mark.parametrize("wrapper", ["gojax", "pgx"])
def test_steps_through_the_end_and_auto_reset_agree_with_pgx(wrapper):
    """Games played with auto_reset, and from every state two plain ``env.step`` calls (the path a
    search such as pgx's AlphaZero example takes from its root): the same states as pgx's Go. The
    new game auto_reset returns still carries the end flags, so pgx's ``step`` ignores the action
    there (rewards 0, step count kept, mask all True), and gojax must too."""
    from pgx.experimental import auto_reset as pgx_auto_reset

    games, moves = 8, 24
    env, other = gojax.make("go_9x9"), pgx.make("go_9x9")
    wrap = gojax.auto_reset if wrapper == "gojax" else pgx_auto_reset
    ours_play = jax.jit(jax.vmap(wrap(env.step, env.init)))
    theirs_play = jax.jit(jax.vmap(pgx_auto_reset(other.step, other.init)))
    ours_step, theirs_step = jax.jit(jax.vmap(env.step)), jax.jit(jax.vmap(other.step))
    board = jax.jit(jax.vmap(functools.partial(gojax.board, env.config)))
    ours_board = lambda state: np.asarray(board(state._game))  # noqa: E731

    keys = jax.random.split(jax.random.PRNGKey(21), games)
    ours, theirs = jax.jit(jax.vmap(env.init))(keys), jax.jit(jax.vmap(other.init))(keys)
    key = jax.random.PRNGKey(22)
    pass_bias = jnp.where(jnp.arange(games) % 2 == 0, 5.0, 4.0)
    searched_ended = 0
    for move in range(moves):
        key, k_play, k_wild, k_first, k_second, k_reset = jax.random.split(key, 6)
        # Passes often (games end by two passes within a few moves); now and then any point,
        # occupied ones included (an illegal action: the mover loses in both).
        logits = jnp.where(ours.legal_action_mask, 0.0, -jnp.inf).at[:, -1].add(pass_bias)
        actions = jax.random.categorical(k_play, logits)
        wild = jax.random.uniform(k_wild, (games,)) < 0.1
        actions = jnp.where(wild, jax.random.randint(k_wild, (games,), 0, env.num_actions), actions)
        reset_keys = jax.random.split(k_reset, games)
        ours, theirs = ours_play(ours, actions, reset_keys), theirs_play(theirs, actions, reset_keys)
        here = _public(ours, ours_board), _public(theirs, _boards_of_pgx)
        for name in here[0]:
            np.testing.assert_array_equal(*(side[name] for side in here), err_msg=f"{name} after move {move}")
        # Two plain steps from here, as a search explores from its root.
        searched = ours, theirs
        for depth, k_depth in enumerate((k_first, k_second), start=1):
            logits = jnp.where(searched[0].legal_action_mask, 0.0, -jnp.inf)
            probe = jax.random.categorical(k_depth, logits)
            searched = ours_step(searched[0], probe), theirs_step(searched[1], probe)
            there = _public(searched[0], ours_board), _public(searched[1], _boards_of_pgx)
            for name in there[0]:
                np.testing.assert_array_equal(
                    *(side[name] for side in there), err_msg=f"{name}, search depth {depth} after move {move}"
                )
        searched_ended += int(here[0]["terminated"].sum())
    assert searched_ended >= games  # many searches started from auto_reset's flagged new game


def test_a_state_flagged_truncated_alone_keeps_its_mask_as_in_pgx():
    """pgx's ``step`` opens the legal mask on ``terminated`` alone: a live game flagged ``truncated``
    by hand is left as it is, its mask too, and an action the mask forbids still loses (neither
    environment sets ``truncated`` itself)."""
    env, other = gojax.make("go_9x9"), pgx.make("go_9x9")
    key = jax.random.PRNGKey(3)
    ours, theirs = env.init(key), other.init(key)
    ours_step, theirs_step = jax.jit(env.step), jax.jit(other.step)
    for action in (40, 41, 30):
        ours, theirs = ours_step(ours, action), theirs_step(theirs, action)
    ours, theirs = ours.replace(truncated=jnp.bool_(True)), theirs.replace(truncated=jnp.bool_(True))
    fields = ("rewards", "terminated", "truncated", "legal_action_mask", "current_player", "_step_count")
    for action in (31, 40, 42):  # a legal move, then an occupied point: it loses (terminated), then nothing
        ours, theirs = ours_step(ours, action), theirs_step(theirs, action)
        for name in fields:
            np.testing.assert_array_equal(getattr(ours, name), getattr(theirs, name), err_msg=name)
        np.testing.assert_array_equal(ours.observation, theirs.observation)
        if action == 31:
            assert not np.asarray(ours.legal_action_mask).all() and not bool(ours.terminated)
    assert bool(ours.terminated) and np.asarray(ours.legal_action_mask).all() and int(ours._step_count) == 3
    assert int(ours._game.move_number) == 3  # no move was played


# --------------------------------------------------------------------------- pgx's AlphaZero example


def _example_iteration(env, params, key, games: int = 4, moves: int = 24, simulations: int = 32):
    """One iteration of pgx's AlphaZero example (``examples/alphazero/train.py``), written here in small:
    batched self-play (a Gumbel MuZero search per move from the states ``auto_reset`` returns, its
    recurrent step ``env.step``), the value targets from the rewards, and one Adam step on the example's
    loss (:func:`_example_update`), with a linear network. Returns the self-play's arrays,
    ``[moves, games, ...]``."""
    import mctx

    auto_reset = gojax.auto_reset if isinstance(env, gojax.env.GoEnv) else pgx.experimental.auto_reset

    def forward(params, observation):
        flat = observation.reshape(observation.shape[0], -1).astype(jnp.float32)
        return flat @ params["policy"], jnp.tanh(flat @ params["value"])

    def recurrent_fn(params, key, action, state):
        del key
        mover = state.current_player
        state = jax.vmap(env.step)(state, action)
        logits, value = forward(params, state.observation)
        logits = logits - jnp.max(logits, axis=-1, keepdims=True)
        logits = jnp.where(state.legal_action_mask, logits, jnp.finfo(logits.dtype).min)
        reward = state.rewards[jnp.arange(games), mover]
        value = jnp.where(state.terminated, 0.0, value)
        discount = jnp.where(state.terminated, 0.0, -jnp.ones_like(value))
        return mctx.RecurrentFnOutput(
            reward=reward, discount=discount, prior_logits=logits, value=value
        ), state

    def selfplay(params, key):
        def move(state, key):
            search_key, reset_key = jax.random.split(key)
            logits, value = forward(params, state.observation)
            root = mctx.RootFnOutput(prior_logits=logits, value=value, embedding=state)
            out = mctx.gumbel_muzero_policy(
                params=params,
                rng_key=search_key,
                root=root,
                recurrent_fn=recurrent_fn,
                num_simulations=simulations,
                invalid_actions=~state.legal_action_mask,
                qtransform=mctx.qtransform_completed_by_mix_value,
                gumbel_scale=1.0,
            )
            mover = state.current_player
            after = jax.vmap(auto_reset(env.step, env.init))(
                state, out.action, jax.random.split(reset_key, games)
            )
            discount = jnp.where(after.terminated, 0.0, -jnp.ones_like(value))
            reward = after.rewards[jnp.arange(games), mover]
            return after, (state.observation, out.action_weights, reward, after.terminated, discount)

        init_key, play_key = jax.random.split(key)
        state = jax.vmap(env.init)(jax.random.split(init_key, games))
        _, data = jax.lax.scan(move, state, jax.random.split(play_key, moves))
        return dict(zip(("obs", "weights", "reward", "terminated", "discount"), data, strict=True))

    # Compiled with LLVM's optimisation on, as a user's program is: the suite turns it off (conftest), and
    # then the same operations can round differently in two programs whose fusions differ.
    compiled = jax.jit(selfplay).lower(params, key).compile(compiler_options=OPTIMISED)
    return jax.device_get(compiled(params, key))


OPTIMISED = {"xla_backend_optimization_level": 3}
"""XLA's default optimisation level, for a program whose floats are compared bit for bit across programs."""


@jax.jit
def _example_update(params, data):
    """The example's value targets, loss and one Adam step on one iteration's self-play ``data``."""
    import optax

    mask = jnp.cumsum(data["terminated"][::-1], axis=0)[::-1] >= 1
    steps = jnp.arange(data["reward"].shape[0])[::-1]
    back = lambda v, i: (data["reward"][i] + data["discount"][i] * v,) * 2  # noqa: E731
    target = jax.lax.scan(back, jnp.zeros(data["reward"].shape[1]), steps)[1][::-1]

    def loss(params):
        obs, weights = data["obs"], data["weights"]
        flat = obs.reshape(-1, obs[0, 0].size).astype(jnp.float32)
        logits, value = flat @ params["policy"], jnp.tanh(flat @ params["value"])
        policy = jnp.mean(optax.softmax_cross_entropy(logits, weights.reshape(-1, weights.shape[-1])))
        return policy + jnp.mean(optax.l2_loss(value, target.reshape(-1)) * mask.reshape(-1))

    optimizer = optax.adam(1e-3)
    value, grads = jax.value_and_grad(loss)(params)
    updates, _ = optimizer.update(grads, optimizer.init(params))
    return {"target": target, "loss": value, "params": optax.apply_updates(params, updates)}


def test_the_alphazero_example_gives_pgxs_numbers_bit_for_bit():
    """pgx's AlphaZero example with its environment line changed to ``gojax.make`` must give pgx's numbers
    bit for bit (experiments/pgx_example.py runs the example itself): its self-play, search policies,
    value targets, loss and updated network, with games ending and restarting during the self-play so
    that searches start from the new games ``auto_reset`` returns."""
    from pgx.go import Go

    # A cap of 10 moves ends every game twice in the 24 moves of self-play.
    env, other = gojax.make("go_9x9", max_moves=10), Go(size=9, max_terminal_steps=10)
    keys = jax.random.split(jax.random.PRNGKey(8), 3)
    features = 9 * 9 * 17
    # Weights on a grid of 1/256: the network's sums are exact, whatever order XLA adds them in.
    grid = lambda key, shape: jnp.round(8 * jax.random.normal(key, shape)) / 256  # noqa: E731
    params = {
        "policy": grid(keys[0], (features, env.num_actions)),
        "value": grid(keys[1], (features,)),
    }
    ours, theirs = _example_iteration(env, params, keys[2]), _example_iteration(other, params, keys[2])
    # Games ended, so searches started from the new games auto_reset returns.
    assert int(theirs["terminated"].sum()) == 8
    for name in theirs:
        np.testing.assert_array_equal(ours[name], theirs[name], err_msg=name)
    ours, theirs = _example_update(params, ours), _example_update(params, theirs)
    assert float(np.abs(theirs["target"]).sum()) > 0
    for name in ("target", "loss"):
        np.testing.assert_array_equal(ours[name], theirs[name], err_msg=name)
    for name in params:
        np.testing.assert_array_equal(ours["params"][name], theirs["params"][name], err_msg=name)
