"""The observation registry of gojax.features: lookup, errors, registration, declared channel counts,
and that the environment, the dataset builder, AlphaZero and the GTP loader all resolve one name to
the same function."""

from __future__ import annotations

import functools
import inspect
import itertools
import uuid

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import gojax
import gojax.dataset
from gojax import features
from gojax.env import GoEnv

# name -> (function, channels, needs history): what the docs promise for the built-in presets.
PRESETS = {
    "basic": (features.basic_planes, 15, False),
    "basic_ladders": (features.basic_ladder_planes, 17, False),
    "basic_komi": (features.basic_komi_planes, 16, False),
    "alphago_zero": (None, 17, True),
    "pgx": (None, 17, True),
    "alphago": (None, 48, True),
    "alphago_value": (None, 49, True),
}
# Presets registered as a function with settings: name -> (function, its keyword arguments).
PARTIALS = {
    "alphago_zero": (features.alphago_zero_planes, {"dtype": jnp.bool_}),
    "pgx": (features.alphago_zero_planes, {"dtype": jnp.bool_, "colour_plane": "white"}),
    "alphago": (features.alphago_planes, {"dtype": jnp.bool_}),
    "alphago_value": (features.alphago_planes, {"player_colour": True, "dtype": jnp.bool_}),
    "katago": (features.katago_planes, {"dtype": jnp.bool_}),
}
_FRESH = itertools.count()


def _fresh_name() -> str:
    return f"test_{uuid.uuid4().hex[:8]}_{next(_FRESH)}"


def test_lookup_returns_the_registered_specs():
    assert set(PRESETS) <= set(features.OBSERVATIONS)
    for name, (function, channels, history) in PRESETS.items():
        spec = features.observation(name)
        assert spec is features.OBSERVATIONS[name] and spec.name == name
        assert spec.num_channels == channels and spec.needs_history is history
        assert spec.binary is (name != "basic_komi") and spec.reads_komi is (name == "basic_komi")
        if function is not None:
            assert spec.observe is function
        assert features.observation(spec) is spec  # a spec is passed through
    for name, (function, keywords) in PARTIALS.items():
        observe = features.observation(name).observe
        assert observe.func is function and observe.keywords == keywords, name
    katago = features.observation("katago")
    assert katago.with_globals and katago.needs_history and katago.reads_komi


def test_unknown_name_is_an_error_listing_the_known_ones():
    with pytest.raises(ValueError, match=r"unknown observation 'katago9'; registered: .*alphago_zero, basic"):
        features.observation("katago9")
    with pytest.raises(ValueError, match="unknown observation 17"):
        features.observation(17)


def test_register_refuses_duplicates_and_the_registry_is_read_only():
    def two_planes(config, state):
        return jnp.stack([features.mover_stones(config, state), features.opponent_stones(config, state)], -1)

    name = _fresh_name()
    spec = features.register_observation(name, two_planes, binary=True, description="mine")
    assert features.observation(name) is spec and features.OBSERVATIONS[name] is spec
    assert spec.num_channels is None and spec.channels(gojax.GoConfig(size=7)) == 2  # from the shape
    with pytest.raises(ValueError, match=f"'{name}' is already registered"):
        features.register_observation(name, two_planes)
    assert features.observation(name) is spec  # the first one stays
    with pytest.raises(ValueError, match="'basic' is already registered"):
        features.register_observation("basic", two_planes)
    assert features.observation("basic").observe is features.basic_planes
    with pytest.raises(TypeError):
        features.OBSERVATIONS[_fresh_name()] = spec  # type: ignore[index]
    with pytest.raises(ValueError, match="num_channels"):
        features.register_observation(_fresh_name(), two_planes, num_channels=0)
    with pytest.raises(ValueError, match="callable"):
        features.register_observation(_fresh_name(), "not a function")
    with pytest.raises(ValueError, match="non-empty"):
        features.register_observation("", two_planes)
    per_size = features.ObservationSpec("sized", two_planes, num_channels=lambda config: config.size)
    assert per_size.channels(gojax.GoConfig(size=6)) == 6


def test_history_is_required_where_it_is_read():
    config = gojax.GoConfig(size=5)
    state = gojax.init(config)
    with pytest.raises(ValueError, match="'alphago_zero' reads the board history"):
        features.observation("alphago_zero")(config, state)
    basic = features.observation("basic")
    np.testing.assert_array_equal(
        basic(config, state, features.history_init(config, state)), features.basic_planes(config, state)
    )


def _positions(config: gojax.GoConfig, moves: int, seed: int):
    """A random game's state and board history after each of ``moves`` moves (a pass among them)."""
    step = jax.jit(functools.partial(gojax.step, config))
    legal = jax.jit(functools.partial(gojax.legal_action_mask, config))
    rng = np.random.default_rng(seed)
    state = gojax.init(config)
    hist = features.history_init(config, state)
    out = []
    for number in range(moves):
        mask = np.asarray(legal(state))
        action = config.pass_action if number == 3 else int(rng.choice(np.flatnonzero(mask[:-1])))
        state = step(state, action)
        hist = features.history_push(config, hist, state)
        out.append((state, hist))
    return jax.tree.map(lambda *leaves: jnp.stack(leaves), *out)


def test_every_registered_observation_has_its_declared_shape():
    size = 7  # channel counts do not depend on the size; one odd size for every preset
    config = gojax.GoConfig(size=size)
    states, hists = _positions(config, 8, seed=size)
    for name, (_, channels, _) in PRESETS.items():
        spec = features.observation(name)
        assert spec.channels(config) == channels, name
        batched = jax.vmap(functools.partial(spec, config))
        shape = jax.eval_shape(batched, states, hists)
        assert shape.shape == (8, size, size, channels), name
        # basic is the AlphaZero network's input, computed at every search expansion.
        assert shape.dtype == (jnp.float32 if name.startswith("basic") else jnp.bool_), name
        if name in ("basic", "alphago_zero", "pgx"):  # values too (the ladder presets take long to compile)
            planes = np.asarray(jax.jit(batched)(states, hists))
            assert np.isin(planes, [0, 1]).all(), f"{name} is declared binary"
            assert planes.any(axis=(0, 1, 2)).sum() >= channels // 2, name  # not a blank stack
    katago = features.observation("katago")
    planes, globals_ = jax.eval_shape(jax.vmap(functools.partial(katago, config)), states, hists)
    assert planes.shape == (8, size, size, katago.channels(config)) and globals_.shape[0] == 8
    assert planes.dtype == jnp.bool_ and globals_.dtype == jnp.float32
    assert katago.channels(config) == features.KATAGO_CHANNELS.num_channels


# White's stone at (2, 3) has two liberties, (2, 4) and (3, 3): with Black to move, either atari
# starts a ladder that Black's stones around it win (ladder captures there). White's stone at
# (6, 3) is in atari: with White to move, extending to (5, 3) gives it three liberties (an escape).
LADDER = """
. . . . . . .
. . . X . . .
. . X O . . .
. . . . X . .
. . . . . . .
. . . . . . .
. . X O X . .
"""


def test_basic_ladders_are_the_basic_planes_and_the_two_ladder_planes():
    config = gojax.GoConfig(size=7)

    @jax.jit
    def planes(state):
        return (
            features.basic_ladder_planes(config, state),
            features.basic_planes(config, state),
            features.ladder_capture_plane(config, state),
            features.ladder_escape_plane(config, state),
        )

    marked = {}
    for colour in (gojax.BLACK, gojax.WHITE):
        state = gojax.from_ascii(config, LADDER, to_play=colour)
        both, basic, capture, escape = map(np.asarray, planes(state))
        assert both.shape == (7, 7, features.BASIC_LADDERS_NUM_CHANNELS) and both.dtype == np.float32
        np.testing.assert_array_equal(both[..., :15], basic)
        np.testing.assert_array_equal(both[..., 15], capture)
        np.testing.assert_array_equal(both[..., 16], escape)
        marked[colour] = [sorted(map(tuple, np.argwhere(both[..., c]).tolist())) for c in (15, 16)]
    assert marked[gojax.BLACK] == [[(2, 4), (3, 3)], []]
    assert marked[gojax.WHITE] == [[], [(5, 3)]]


def test_basic_komi_is_the_basic_planes_and_the_komi_of_the_player_to_move():
    config = gojax.GoConfig(size=7)

    @jax.jit
    def planes(state, komi):  # komi as data: one compiled function for every komi
        return features.basic_komi_planes(config.with_komi(komi), state), features.basic_planes(config, state)

    for colour, sign in ((gojax.BLACK, -1.0), (gojax.WHITE, 1.0)):
        state = gojax.from_ascii(config, LADDER, to_play=colour)
        for komi, shown in ((7.5, 7.5), (-3.0, -3.0), (0.0, 0.0), (1000.0, 69.0)):  # clipped at P + 20
            both, basic = map(np.asarray, planes(state, jnp.float32(komi)))
            assert both.shape == (7, 7, features.BASIC_KOMI_NUM_CHANNELS) and both.dtype == np.float32
            np.testing.assert_array_equal(both[..., :15], basic)
            np.testing.assert_allclose(both[..., 15], np.full((7, 7), sign * shown / 20.0, np.float32))


def test_env_dataset_alphazero_and_gtp_resolve_the_same_function(tmp_path):
    config = gojax.GoConfig(size=5)
    for name in PRESETS:
        spec = features.observation(name)
        assert GoEnv(config, observation=name).observation_spec is spec
    # The dataset records the name it resolved and computes that function's planes.
    record = gojax.sgf.parse_sgf("(;GM[1]FF[4]SZ[5]RE[B+1];B[cc];W[bb];B[];W[dc])", name="g")
    data = gojax.dataset.build_dataset([record], observation="basic", games_per_call=1)
    assert data.observe_name == "basic"
    states = record.states_along()
    expected = jax.vmap(functools.partial(features.observation("basic").observe, config))(states)
    np.testing.assert_array_equal(data.features, np.asarray(expected)[:-1])

    pytest.importorskip("flax")
    pytest.importorskip("mctx")
    pytest.importorskip("orbax.checkpoint")
    from flax import nnx

    from gojax import alphazero as az
    from gojax import gtp, training
    from gojax.gtp._players import player_levels

    basic = features.observation("basic").observe
    assert az.basic_planes is basic and not hasattr(az, "OBSERVATIONS")
    assert az.SelfPlaySettings().observe is basic
    for function in (az.network_evaluator,):
        assert inspect.signature(function).parameters["observe"].default is basic
    net_config = az.NetworkConfig(blocks=1, channels=8, value_hidden=8)
    net = az.PolicyValueNet(net_config, 5, 15, rngs=nnx.Rngs(0))
    graphdef, variables = az.split(net)
    assert az.AlphaZeroPlayer(graphdef, variables, az.PLAY_SETTINGS).observe is basic
    assert training.Evaluator(config, graphdef, baselines={}).observe is basic

    # A checkpoint names its observation; the GTP loader looks it up and refuses an unknown one.
    az.save_checkpoint(tmp_path / "basic", net, net_config, board_size=5, observe_name="basic")
    levels, size = player_levels(gtp.PlayerSpec("az", simulations=2, checkpoint=str(tmp_path / "basic")))
    assert size == 5 and levels[0].make(config).observe is basic
    # Without a search: PUCT for play (gtp.AZ_ALGORITHM), as `gojax-gtp --player az`.
    default = [level.make(config).settings for level in levels if level.family == "az"]
    assert default and all(
        s == az.SearchSettings(algorithm="puct", num_simulations=s.num_simulations).for_play()
        for s in default
    )
    # Playouts mixed into the leaves, the network averaged over the symmetries: each level's player.
    for field, value, label in (
        ("playout_weight", 0.5, "playout weight 0.5"),
        ("symmetries", 8, "mean over 8"),
    ):
        spec = gtp.PlayerSpec("az", simulations=2, checkpoint=str(tmp_path / "basic"), **{field: value})
        searches = [level for level in player_levels(spec)[0] if level.family == "az"]
        assert searches and all(getattr(level.make(config), field) == value for level in searches)
        assert all(label in level.label for level in searches)
    plain = [level.make(config) for level in levels if level.family == "az"]
    assert all(player.playout_weight == 0.0 and player.symmetries == 1 for player in plain)
    for symmetries in (8, 1):
        raw, _ = player_levels(
            gtp.PlayerSpec("policy", checkpoint=str(tmp_path / "basic"), symmetries=symmetries)
        )
        assert raw[0].make(config).symmetries == symmetries and raw[0].make(config).observe is basic
        assert ("mean over 8 symmetries" in raw[0].label) == (symmetries == 8)
    az.save_checkpoint(tmp_path / "unknown", net, net_config, board_size=5, observe_name="katago9")
    with pytest.raises(ValueError, match=r"observation is not registered: unknown observation 'katago9'"):
        player_levels(gtp.PlayerSpec("az", simulations=2, checkpoint=str(tmp_path / "unknown")))
    az.save_checkpoint(tmp_path / "history", net, net_config, board_size=5, observe_name="alphago_zero")
    with pytest.raises(ValueError, match="'alphago_zero' reads the board history"):
        player_levels(gtp.PlayerSpec("az", simulations=2, checkpoint=str(tmp_path / "history")))


def test_env_steps_observe_from_the_previous_observation_where_the_spec_can():
    """``GoEnv.step`` calls ``from_previous`` with its last observation; ``init`` and
    ``observe`` call ``observe``."""
    config = gojax.GoConfig(size=5, max_moves=20)

    def fresh(config, state, history):
        return jnp.zeros((config.size, config.size, 1), jnp.int32)

    def counted(config, state, history, previous):
        return previous + 1

    spec = features.ObservationSpec("counted", fresh, needs_history=True, from_previous=counted)
    env = GoEnv(config, observation=spec)
    state = env.init(None)
    for expected in (1, 2, 3):
        state = env.step(state, jnp.int32(config.pass_action if expected == 3 else expected))
        assert np.all(np.asarray(state.observation) == expected)
    assert np.all(np.asarray(env.observe(state)) == 0)
    reset = env.step_and_reset(state, jnp.int32(config.pass_action))  # two passes: a new game
    assert bool(reset.terminated) and int(reset._game.move_number) == 0
    with pytest.raises(ValueError, match="from_previous must be callable"):
        features.ObservationSpec("bad", fresh, from_previous=3)
