"""The 8 board symmetries: a group, consistent on boards, policies and actions, and
the rules are equivariant under them (boards, captures, ko, legal masks with
superko bans), checked move by move on random games.

The reference transforms here are written from the coordinate table of the
module docstring, point by point, independently of the implementation.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import stack_states, without_history

import gojax
from gojax import symmetry as sym

# (r, c) -> (r', c') with M = N - 1, as documented in gojax.symmetry.
_MAPS = [
    lambda r, c, m: (r, c),
    lambda r, c, m: (m - c, r),
    lambda r, c, m: (m - r, m - c),
    lambda r, c, m: (c, m - r),
    lambda r, c, m: (r, m - c),
    lambda r, c, m: (m - r, c),
    lambda r, c, m: (c, r),
    lambda r, c, m: (m - c, m - r),
]


def ref_board(k, x):
    x = np.asarray(x)
    n = x.shape[0]
    out = np.empty_like(x)
    for r in range(n):
        for c in range(n):
            out[_MAPS[k](r, c, n - 1)] = x[r, c]
    return out


def ref_action(k, action, n):
    if action < 0 or action >= n * n:
        return action
    r, c = _MAPS[k](action // n, action % n, n - 1)
    return r * n + c


def ref_policy(k, policy, n):
    policy = np.asarray(policy)
    out = np.empty_like(policy)
    for a in range(n * n + 1):
        out[ref_action(k, a, n)] = policy[a]
    return out


def test_reference_rotation_is_anticlockwise():
    # The top-right corner goes to the top-left under ROT90, as np.rot90 does.
    x = np.zeros((3, 3), int)
    x[0, 2] = 1
    assert ref_board(sym.ROT90, x)[0, 0] == 1
    np.testing.assert_array_equal(
        ref_board(sym.ROT90, np.arange(9).reshape(3, 3)), [[2, 5, 8], [1, 4, 7], [0, 3, 6]]
    )


# --- the group -----------------------------------------------------------------------------------


def test_composition_table_matches_composed_transforms():
    x = np.arange(25).reshape(5, 5)
    for a in range(8):
        for b in range(8):
            c = sym.compose(a, b)
            assert isinstance(c, int)
            np.testing.assert_array_equal(ref_board(c, x), ref_board(b, ref_board(a, x)), err_msg=(a, b))


def test_group_axioms():
    table = np.array([[sym.compose(a, b) for b in range(8)] for a in range(8)])
    for row in range(8):  # closed, and a Latin square (every element invertible, cancellation)
        assert sorted(table[row]) == list(range(8))
        assert sorted(table[:, row]) == list(range(8))
    for k in range(8):
        assert table[sym.IDENTITY, k] == table[k, sym.IDENTITY] == k
        assert sym.compose(k, sym.inverse(k)) == sym.compose(sym.inverse(k), k) == sym.IDENTITY
    for a in range(8):
        for b in range(8):
            for c in range(8):
                assert table[table[a, b], c] == table[a, table[b, c]]
    # Known facts of D4: rotations commute and cycle, reflections are involutions, it is not abelian.
    assert sym.compose(sym.ROT90, sym.ROT90) == sym.ROT180
    assert sym.compose(sym.ROT90, sym.ROT270) == sym.IDENTITY
    assert sym.inverse(sym.ROT90) == sym.ROT270
    for reflection in (sym.FLIP_LR, sym.FLIP_UD, sym.TRANSPOSE, sym.ANTI_TRANSPOSE):
        assert sym.inverse(reflection) == reflection
    assert sym.compose(sym.ROT90, sym.FLIP_LR) != sym.compose(sym.FLIP_LR, sym.ROT90)


def test_traced_compose_and_inverse_equal_static():
    ks = jnp.arange(8)
    table = jax.jit(sym.compose)(ks[:, None], ks[None, :])
    np.testing.assert_array_equal(table, [[sym.compose(a, b) for b in range(8)] for a in range(8)])
    np.testing.assert_array_equal(jax.jit(jax.vmap(sym.inverse))(ks), [sym.inverse(k) for k in range(8)])


# --- boards, policies, actions -------------------------------------------------------------------


@pytest.mark.parametrize("shape", [(5, 5), (4, 4, 3), (1, 1)])
def test_transform_board_static_and_traced(shape):
    x = np.random.default_rng(0).integers(0, 100, size=shape).astype(np.int32)
    traced = jax.jit(sym.transform_board)
    inverse = jax.jit(sym.inverse_transform_board)
    for k in range(8):
        expected = ref_board(k, x)
        np.testing.assert_array_equal(sym.transform_board(k, x), expected, err_msg=k)
        np.testing.assert_array_equal(traced(jnp.int32(k), x), expected, err_msg=k)
        np.testing.assert_array_equal(sym.inverse_transform_board(k, expected), x, err_msg=k)
        np.testing.assert_array_equal(inverse(jnp.int32(k), expected), x, err_msg=k)
    ks = jnp.arange(8)
    batched = jax.jit(jax.vmap(sym.transform_board, in_axes=(0, None)))(ks, x)
    np.testing.assert_array_equal(batched, np.stack([ref_board(k, x) for k in range(8)]))


def test_policy_action_and_board_agree():
    n = 5
    config = gojax.GoConfig(size=n)
    policy = np.random.default_rng(1).random(n * n + 1).astype(np.float32)
    actions = np.arange(-2, n * n + 3)  # includes out-of-range values
    policy_traced = jax.jit(sym.transform_policy)
    action_traced = jax.jit(functools.partial(sym.transform_action, config))
    for k in range(8):
        expected = ref_policy(k, policy, n)
        assert expected[n * n] == policy[n * n]  # pass stays
        np.testing.assert_array_equal(sym.transform_policy(k, policy), expected)
        np.testing.assert_array_equal(policy_traced(jnp.int32(k), policy), expected)
        np.testing.assert_array_equal(sym.inverse_transform_policy(k, expected), policy)
        # The points of a policy move as the board does.
        np.testing.assert_array_equal(
            sym.transform_policy(k, policy)[: n * n].reshape(n, n),
            sym.transform_board(k, policy[: n * n].reshape(n, n)),
        )
        moved = [ref_action(k, int(a), n) for a in actions]
        np.testing.assert_array_equal(sym.transform_action(config, k, actions), moved)
        np.testing.assert_array_equal(action_traced(jnp.int32(k), actions), moved)
        np.testing.assert_array_equal(sym.inverse_transform_action(config, k, np.asarray(moved)), actions)
        # A one-hot policy moves to the one-hot of the moved action.
        for a in range(n * n + 1):
            one_hot = np.zeros(n * n + 1, np.float32)
            one_hot[a] = 1
            assert int(np.argmax(sym.transform_policy(k, one_hot))) == int(sym.transform_action(config, k, a))


def test_policy_with_trailing_axes():
    policy = np.arange(26 * 2).reshape(26, 2)
    for k in range(8):
        out = np.asarray(sym.transform_policy(k, policy))
        for column in range(2):
            np.testing.assert_array_equal(out[:, column], ref_policy(k, policy[:, column], 5))


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="8"):
        sym.transform_board(8, np.zeros((3, 3)))
    with pytest.raises(ValueError, match="True"):
        sym.compose(True, 1)
    with pytest.raises(ValueError, match="-1"):
        sym.inverse(-1)
    with pytest.raises(ValueError, match=r"\(3, 4\)"):
        sym.transform_board(0, np.zeros((3, 4)))
    with pytest.raises(ValueError, match="27"):
        sym.transform_policy(0, np.zeros(27))
    with pytest.raises(ValueError, match="9"):
        sym.transform_action(gojax.GoConfig(size=5), 9, 3)


# --- augmentation and inference averaging ---------------------------------------------------------


def test_augment_and_all_symmetries():
    n, batch = 5, 200
    rng = np.random.default_rng(2)
    planes = rng.random((batch, n, n, 3)).astype(np.float32)
    policy = rng.random((batch, n * n + 1)).astype(np.float32)
    keys = jax.random.split(jax.random.PRNGKey(0), batch)
    out_planes, out_policy, ks = jax.jit(jax.vmap(sym.augment))(keys, planes, policy)
    ks = np.asarray(ks)
    assert sorted(set(ks.tolist())) == list(range(8))  # every symmetry gets drawn
    for b in range(0, batch, 7):
        np.testing.assert_array_equal(out_planes[b], ref_board(ks[b], planes[b]))
        np.testing.assert_array_equal(out_policy[b], ref_policy(ks[b], policy[b], n))
    only_planes, none, _ = sym.augment(keys[0], planes[0])
    assert none is None and only_planes.shape == (n, n, 3)

    every_planes, every_policy = sym.all_symmetries(planes[0], policy[0])
    assert every_planes.shape == (8, n, n, 3) and every_policy.shape == (8, n * n + 1)
    for k in range(8):
        np.testing.assert_array_equal(every_planes[k], ref_board(k, planes[0]))
        np.testing.assert_array_equal(every_policy[k], ref_policy(k, policy[0], n))
    assert sym.all_symmetries(planes[0])[1] is None


def _linear_net(n, channels, seed):
    rng = np.random.default_rng(seed)
    w_policy = rng.normal(size=(n * n * channels, n * n + 1)).astype(np.float32)
    w_value = rng.normal(size=(n * n * channels,)).astype(np.float32)

    def apply_fn(planes):  # deliberately not symmetric
        flat = planes.reshape(planes.shape[0], -1)
        return flat @ w_policy, {"value": flat @ w_value, "pair": jnp.stack([flat @ w_value] * 2, axis=1)}

    return apply_fn


def test_symmetrize_all_averages_untransformed_outputs():
    n, channels, batch = 5, 2, 3
    apply_fn = _linear_net(n, channels, seed=3)
    planes = np.random.default_rng(4).random((batch, n, n, channels)).astype(np.float32)
    policy, value = jax.jit(functools.partial(sym.symmetrize, apply_fn))(planes)
    for b in range(batch):
        policies, values = [], []
        for k in range(8):
            p, v = apply_fn(jnp.asarray(ref_board(k, planes[b]))[None])
            policies.append(ref_policy(sym.inverse(k), np.asarray(p[0]), n))
            values.append(float(v["value"][0]))
        np.testing.assert_allclose(policy[b], np.mean(policies, axis=0), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(value["value"][b], np.mean(values), rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(value["pair"][b], [np.mean(values)] * 2, rtol=1e-4, atol=1e-4)


def test_symmetrize_of_an_equivariant_function_is_the_function():
    n = 5

    def apply_fn(planes):  # policy: per-point sum of channels, pass: total; value: total
        per_point = planes.sum(-1).reshape(planes.shape[0], -1)
        total = per_point.sum(-1)
        return jnp.concatenate([per_point, total[:, None]], axis=1), total

    planes = np.random.default_rng(5).random((4, n, n, 3)).astype(np.float32)
    policy, value = sym.symmetrize(apply_fn, planes, mode="all")
    expected_policy, expected_value = apply_fn(jnp.asarray(planes))
    np.testing.assert_allclose(policy, expected_policy, rtol=1e-5)
    np.testing.assert_allclose(value, expected_value, rtol=1e-5)


def test_symmetrize_random_uses_one_symmetry_per_sample():
    n, channels, batch = 5, 1, 16
    apply_fn = _linear_net(n, channels, seed=6)
    planes = np.random.default_rng(7).random((batch, n, n, channels)).astype(np.float32)
    policy, value = sym.symmetrize(apply_fn, planes, mode="random", key=jax.random.PRNGKey(1))
    used = set()
    for b in range(batch):
        matches = []
        for k in range(8):
            p, v = apply_fn(jnp.asarray(ref_board(k, planes[b]))[None])
            p = ref_policy(sym.inverse(k), np.asarray(p[0]), n)
            if np.allclose(policy[b], p, atol=1e-4) and np.isclose(
                value["value"][b], v["value"][0], atol=1e-4
            ):
                matches.append(k)
        assert matches, b
        used.update(matches)
    assert len(used) > 1


def test_symmetrize_bad_inputs():
    apply_fn = _linear_net(3, 1, seed=0)
    planes = np.zeros((2, 3, 3, 1), np.float32)
    with pytest.raises(ValueError, match="'mean'"):
        sym.symmetrize(apply_fn, planes, mode="mean")
    with pytest.raises(ValueError, match="key"):
        sym.symmetrize(apply_fn, planes, mode="random")
    with pytest.raises(ValueError, match=r"\(3, 3, 1\)"):
        sym.symmetrize(apply_fn, planes[0])


# --- rules equivariance --------------------------------------------------------------------------

GAMES = 6


def _replay_runner(config, moves):
    """Plays random legal games on lanes ``[8, G]``: lane ``(0, g)`` samples from its legal
    mask, lane ``(k, g)`` plays the image under ``k`` of lane ``(0, g)``'s move."""
    n, points = config.size, config.num_points
    table = np.array([[ref_action(k, a, n) for a in range(points + 1)] for k in range(8)], np.int32)
    simple = gojax.GoConfig(size=n, komi=config.komi, ko_rule="simple", suicide=config.suicide)
    legal = jax.vmap(jax.vmap(functools.partial(gojax.legal_action_mask, config)))
    legal_simple = jax.vmap(functools.partial(gojax.legal_action_mask, simple))
    step = jax.vmap(jax.vmap(functools.partial(gojax.step, config)))
    board = jax.vmap(jax.vmap(functools.partial(gojax.board, config)))

    def record(state, mask):
        return {
            "board": board(state),
            "mask": mask,
            "superko_bans": jnp.sum(
                legal_simple(without_history(jax.tree.map(lambda x: x[0], state))) & ~mask[0], axis=-1
            ),
            "captures": state.captures,
            "ko_point": state.ko_point,
            "terminated": state.terminated,
            "truncated": state.truncated,
            "illegal": state.illegal_move,
            "passes": state.passes,
        }

    def move(state, key):
        mask = legal(state)
        logits = jnp.where(mask[0], 0.0, -jnp.inf).at[:, points].add(-5.0)
        action = jax.random.categorical(key, logits)  # [G]
        actions = jnp.asarray(table)[:, action]  # [8, G]
        after = step(state, actions)
        return after, record(after, legal(after))

    @jax.jit
    def run(start, key):
        first = record(start, legal(start))
        _, records = jax.lax.scan(move, start, jax.random.split(key, moves))
        return jax.tree.map(lambda a, b: jnp.concatenate([a[None], b]), first, records)

    return run


def _check_equivariant(config, records):
    n = config.size
    rec = jax.tree.map(np.asarray, records)
    steps = rec["board"].shape[0]
    assert not rec["illegal"].any()
    for k in range(1, 8):
        for name in ("captures", "terminated", "truncated", "passes"):
            np.testing.assert_array_equal(rec[name][:, k], rec[name][:, 0], err_msg=(k, name))
        for t in range(steps):
            for g in range(GAMES):
                where = (k, t, g)
                np.testing.assert_array_equal(
                    rec["board"][t, k, g], ref_board(k, rec["board"][t, 0, g]), where
                )
                np.testing.assert_array_equal(
                    rec["mask"][t, k, g], ref_policy(k, rec["mask"][t, 0, g], n), where
                )
                assert rec["ko_point"][t, k, g] == ref_action(k, int(rec["ko_point"][t, 0, g]), n), where


EQUIVARIANCE_CONFIGS = {
    "5x5-positional": gojax.GoConfig(size=5, max_moves=150),
    "4x4-situational-suicide": gojax.GoConfig(size=4, ko_rule="situational", suicide=True, max_moves=120),
}


@pytest.fixture(scope="module", params=sorted(EQUIVARIANCE_CONFIGS))
def replayed(request):
    config = EQUIVARIANCE_CONFIGS[request.param]
    run = _replay_runner(config, moves=config.move_cap)
    start = jax.vmap(jax.vmap(lambda _: gojax.init(config)))(jnp.zeros((8, GAMES)))
    return config, run, run(start, jax.random.PRNGKey(11))


def test_rules_are_equivariant_from_the_empty_board(replayed):
    config, _, records = replayed
    _check_equivariant(config, records)
    # The comparison covered what it claims: captures, ko bans and superko bans happened.
    assert np.asarray(records["captures"]).sum() > 0
    assert (np.asarray(records["ko_point"]) >= 0).any()
    assert np.asarray(records["superko_bans"]).sum() > 0


def test_rules_are_equivariant_from_transformed_setups(replayed):
    # Start each symmetry from gojax.from_board of the transformed board of a mid-game position.
    config, run, records = replayed
    boards = np.asarray(records["board"])
    middle = boards.shape[0] // 3
    starts = []
    for k in range(8):
        row = []
        for g in range(GAMES):
            to_play = 1 + middle % 2
            row.append(gojax.from_board(config, ref_board(k, boards[middle, 0, g]), to_play=to_play))
        starts.append(stack_states(row))
    start = stack_states(starts)
    again = run(start, jax.random.PRNGKey(12))
    _check_equivariant(config, again)
    assert np.asarray(again["captures"]).sum() > 0
