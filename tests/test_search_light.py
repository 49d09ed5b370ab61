"""The light playout kernel (gojax/search/_light.py) against the engine, move for move.

* Random games (uniform over gojax's legal points, own eyes included, so that
  captures, snapbacks and kos come often) step the engine (``gojax.step``,
  simple ko, no suicide) and the light kernel side by side; after every move
  the stones, the chains in atari, their liberty labels, the ko point and the
  last move must be equal, and the light kernel's legal points must be gojax's legal mask,
  its playable points that mask minus :func:`gojax.players.own_eyes`.
* Whole light playouts are replayed on the engine: the playouts of one key
  cut after 0, 1, 2, ... moves differ by one move each, which must be legal
  and not an own eye for the engine, reach the same board, and end with the
  engine's area score and the right first-play (AMAF) points. A heavy
  playout (:mod:`gojax.playouts._heavy`) is replayed the same way, each move
  also in the first non-empty tier of the engine's position.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import gojax
from gojax._core import bitboard as bb
from gojax._core.bitboard import WordTuples as words
from gojax.players import own_eyes
from gojax.playouts import _heavy, _light, _light_loop


def _side_by_side(config: gojax.GoConfig, games: int, moves: int, seed: int):
    """``moves`` random moves in ``games`` games on both kernels; per move the comparisons, and the finals."""
    size, points = config.size, config.num_points

    def one_game(key):
        state = gojax.init(config)
        light = _light.light_state(config, state)

        def move(carry, key):
            state, light = carry
            legal = gojax.legal_action_mask(config, state)[:points]
            light_legal, light_playable = _light.light_moves(size, light)
            alive = ~state.done
            checks = {
                "legal": jnp.array_equal(bb.to_points(words.stacked(light_legal), size), legal),
                "playable": jnp.array_equal(
                    bb.to_points(words.stacked(light_playable), size), legal & ~own_eyes(config, state)
                ),
            }
            choice, chance = jax.random.split(key)
            point = jax.random.choice(choice, points, p=legal / jnp.maximum(legal.sum(), 1))
            action = jnp.where(legal.any() & (jax.random.uniform(chance) > 0.03), point, points)
            opponent = bb.count(state.stones[1 - state.turn])
            state = gojax.step(config, state, action)
            light = jax.tree.map(
                functools.partial(jnp.where, alive), _light.light_play(size, light, action), light
            )
            seen = {
                "ko": alive & (state.ko_point >= 0),
                "taken": opponent - bb.count(state.stones[state.turn]),
            }
            checks |= {
                "stones": jnp.array_equal(words.stacked(light.stones), state.stones),
                "atari": jnp.array_equal(words.stacked(light.atari), state.atari),
                "labels": jnp.array_equal(
                    words.stacked(light.labels)[0] | words.stacked(light.labels)[1], state.atari_liberty
                ),
                "ko": light.ko == state.ko_point,
                "turn": light.turn == state.turn,
                "passes": light.passes == state.passes,
                "last": light.last == jnp.where(state.last_move < points, state.last_move, -1),
            }
            return (state, light), ({name: ok | ~alive for name, ok in checks.items()}, seen)

        (state, light), (checks, seen) = jax.lax.scan(move, (state, light), jax.random.split(key, moves))
        return checks, seen, state, light

    run = jax.jit(jax.vmap(one_game))
    return run(jax.random.split(jax.random.key(seed), games))


@pytest.mark.parametrize("size, games, moves", [(7, 24, 100)])
def test_moves_match_the_engine_move_for_move(size, games, moves):
    config = gojax.GoConfig(size=size, komi=0.5, ko_rule="simple")
    checks, seen, finals, lights = _side_by_side(config, games, moves, seed=size)
    for name, ok in checks.items():
        bad = np.argwhere(~np.asarray(ok))
        assert bad.size == 0, f"{name} differs from gojax (game, move) {bad[:3].tolist()}"
    # The games met kos and captures of several stones: the comparison covered them.
    assert np.asarray(seen["ko"]).sum() >= 3
    assert np.asarray(seen["taken"]).max() >= 3
    # Tromp-Taylor area of the final boards.
    owner = jax.vmap(lambda s: _light.light_owner(size, s))(words.stacked(lights.stones))
    margin = np.asarray(owner).sum(axis=1) - config.komi
    np.testing.assert_allclose(margin, np.asarray(jax.vmap(functools.partial(gojax.score, config))(finals)))


def _replay(config: gojax.GoConfig, limit: int, seed: int, rounds: int, policy: str, shrink: int):
    """One light-kernel playout cut after 0..limit moves (one key): the outputs, batched over the cut."""
    start = _light.light_state(config, gojax.init(config))
    lights = jax.tree.map(lambda x: jnp.broadcast_to(x, (limit + 1, *x.shape)), start)
    keys = jnp.broadcast_to(jax.random.key(seed), (limit + 1,))
    choose = {"choose": _heavy.heavy_move} if policy == "heavy" else {}
    stages = {"shrink": shrink, "narrowest": 4}
    run = jax.jit(
        functools.partial(
            _light_loop.light_playouts, config, max_moves=limit, rounds=rounds, **choose, **stages
        )
    )
    return run(jnp.arange(limit + 1, dtype=jnp.int32), lights=lights, keys=keys)


@pytest.mark.parametrize(
    "size, limit, rounds, policy, shrink, seed",
    [(5, 60, 1, "light", 2, 5), (14, 12, 2, "light", 1, 3), (7, 90, 1, "heavy", 1, 3)],
)
def test_a_light_playout_replays_on_the_engine(size, limit, rounds, policy, shrink, seed):
    """With one dilation a turn, moves whose chains take several turns to decide resume correctly.

    With ``shrink`` 2 the loop's tail runs compacted (stages of 61, 30, 15 and 7
    games; that playout reaches its limit), so the cuts finish in other stages
    than they started in.
    A heavy playout's move must also lie in the first non-empty tier of
    :func:`gojax.playouts._heavy.heavy_tiers` read from the engine's position.
    """
    config = gojax.GoConfig(size=size, komi=2.5, ko_rule="simple", max_moves=2 * limit)  # cap out of reach
    points = config.num_points
    assert len(_light_loop.stage_widths(limit + 1, shrink, 4)) == {1: 1, 2: 4}[shrink]
    black_win, first, owner, finals = jax.device_get(_replay(config, limit, seed, rounds, policy, shrink))
    tiers = jax.jit(
        lambda s: [words.stacked(t) for t in _heavy.heavy_tiers(size, _light.light_state(config, s))]
    )
    reached = np.zeros(5, int)  # moves chosen from each tier
    stones = np.asarray(words.stacked(finals.stones))  # [limit + 1, 2, W]
    step = jax.jit(functools.partial(gojax.step, config))
    legal_mask = jax.jit(functools.partial(gojax.legal_action_mask, config))
    eyes = jax.jit(functools.partial(own_eyes, config))
    state = gojax.init(config)
    played_first = np.zeros((2, points), bool)
    moves = int(finals.moves[-1])
    assert moves >= min(limit, 10)
    assert moves == limit or finals.passes[-1] == 2  # the longest cut played to its end
    np.testing.assert_array_equal(finals.moves, np.minimum(np.arange(limit + 1), moves))
    for k in range(1, moves + 1):
        mover = int(state.turn)
        new = bb.to_grid_np(stones[k, mover] & ~stones[k - 1, mover], size).reshape(-1)
        assert new.sum() <= 1
        action = int(np.flatnonzero(new)[0]) if new.any() else points
        if action < points:
            allowed = np.asarray(legal_mask(state))[:points] & ~np.asarray(eyes(state))
            assert allowed[action], f"move {k}: {action} is not a playable point"
            if policy == "heavy":
                sets = [bb.to_points(t, size) for t in jax.device_get(tiers(state))]
                tier = next(i for i, t in enumerate(sets) if t.any())
                assert sets[tier][action], f"move {k}: {action} is not in the first non-empty tier {tier}"
                reached[tier] += 1
            if not played_first[1 - mover, action]:
                played_first[mover, action] = True
        else:
            allowed = np.asarray(legal_mask(state))[:points] & ~np.asarray(eyes(state))
            assert not allowed.any(), f"move {k}: passed with playable points left"
        state = step(state, action)
        np.testing.assert_array_equal(np.asarray(state.stones), stones[k], err_msg=f"move {k}")
    margin = float(gojax.score(config, state))
    assert owner[moves].sum() - config.komi == pytest.approx(margin)
    assert black_win[moves] == (1.0 if margin > 0 else 0.0 if margin < 0 else 0.5)
    np.testing.assert_array_equal(bb.to_points(first[moves], size), played_first)
    if policy == "heavy":  # the playout went through the captures and escapes, and the quiet moves
        assert reached[0] + reached[2] >= 3 and reached[1] >= 3 and reached[3] >= 20, reached


def test_the_tail_compaction_plays_the_same_playouts():
    """Playouts from many positions with mixed move limits: the same results for any stages."""
    config = gojax.GoConfig(size=5, komi=0.5, ko_rule="simple")
    games, moves = 48, 40
    start = _light.light_state(config, gojax.init(config))
    lights = jax.tree.map(lambda x: jnp.broadcast_to(x, (games, *x.shape)), start)
    limits = jnp.asarray(np.random.default_rng(0).integers(0, moves + 1, games), jnp.int32)
    keys = jax.random.split(jax.random.key(11), games)

    def compiled(shrink, narrowest):
        stages = {"shrink": shrink, "narrowest": narrowest}
        return jax.jit(
            functools.partial(_light_loop.light_playouts, config, max_moves=moves, rounds=1, **stages)
        )

    single, staged = compiled(1, 1), compiled(4, 3)
    starts = single(jnp.full(games, 9, jnp.int32), lights=lights, keys=keys)[3]  # 9 moves into each game
    starts = starts._replace(moves=jnp.zeros(games, jnp.int32))
    keys = jax.vmap(lambda k: jax.random.fold_in(k, 1))(keys)
    one = jax.device_get(single(limits, lights=starts, keys=keys))
    assert len(set(np.asarray(one[3].moves).tolist())) > 10  # playouts of many lengths
    assert _light_loop.stage_widths(games, 4, 3) == (48, 12, 3)
    for got, want in zip(
        jax.tree.leaves(staged(limits, lights=starts, keys=keys)), jax.tree.leaves(one), strict=True
    ):
        np.testing.assert_array_equal(got, want)
    assert _light_loop.stage_widths(games, 4, 16) == (48,) == _light_loop.stage_widths(games, 1, 1)


def test_playout_ownership_counts_the_area_of_each_colour():
    # The owner map that scores the gojax.step playouts: its +1 / -1 counts are the area.
    from gojax.playouts import ownership

    config = gojax.GoConfig(size=5)
    state = gojax.from_ascii(config, ". X O . .\nX X O . .\n. X O O .\nX X X O O\n. . X O .", gojax.BLACK)
    owner = np.asarray(ownership(config, state))
    black, white = (int(v) for v in np.asarray(gojax.area(config, state)))
    assert (int((owner == 1).sum()), int((owner == -1).sum())) == (black, white)
    assert black > 0 and white > 0 and (owner == 0).sum() == 25 - black - white
