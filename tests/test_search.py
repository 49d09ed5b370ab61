"""TreeSearch on 5x5 boards: legality at every depth (superko), captures found, reuse, time, arguments.

One config and one settings object for the whole file, so the batch step is
compiled once (``compiled.jitted`` shares it between searches).
"""

from __future__ import annotations

import copy
import dataclasses
import functools

import jax
import numpy as np
import pytest
from conftest import swap_colours

import gojax
from gojax.search import SearchStats, TreeSearch, TreeSearchSettings

CONFIG = gojax.GoConfig(size=5, komi=0.5)  # positional superko
SETTINGS = TreeSearchSettings(leaves_per_batch=8, playouts_per_leaf=4)
P = CONFIG.num_points

# White to move; white's plain move at 1 would recreate the start position of
# SUPERKO_START (see tests/test_superko_cases.py, PLAIN_REPEAT): banned by
# positional superko only.
SUPERKO_START = """
. O O . O
X X X O .
. . . . .
. . . . .
. . . . .
"""

# Black to move: black's left group (A4-A1) and white's big group share the
# one liberty A5 (point 0): whoever plays there first captures.
SEMEAI = """
. O O O O
X O X X X
X O X . .
X O X . .
X O X . .
"""


@functools.cache
def _step(config=CONFIG):
    return jax.jit(functools.partial(gojax.step, config))


@functools.cache
def _legal(config=CONFIG):
    return jax.jit(functools.partial(gojax.legal_action_mask, config))


def _play(state, *actions):
    for action in actions:
        assert np.asarray(_legal()(state))[action]
        state = _step()(state, action)
    return state


@pytest.fixture(scope="module")
def superko_root():
    start = gojax.from_ascii(CONFIG, SUPERKO_START, to_play=gojax.WHITE)
    # White fills A5, black takes three at D5, white takes back at C5, black passes.
    state = _play(start, 0, 3, 2, P)
    assert int(state.turn) == 1
    board = np.asarray(gojax.board(CONFIG, state)).reshape(-1)
    assert board[1] == gojax.EMPTY and not np.asarray(_legal()(state))[1]  # B5: the superko ban
    return state


@pytest.fixture(scope="module")
def searched(superko_root):
    search = TreeSearch(CONFIG, SETTINGS, seed=1)
    search.warm_up()
    search.set_root(superko_root)
    stats = search.search(playouts=1536)
    return search, stats


def _depths(tree) -> np.ndarray:
    depth = np.zeros(tree.size, int)
    for node in range(1, tree.size):  # parents come before children
        depth[node] = depth[tree.parent[node]] + 1
    return depth


def _assert_every_edge_legal(search: TreeSearch, config: gojax.GoConfig) -> int:
    """Checks each edge of the tree against the exact legal mask of its parent's state; returns the edges."""
    tree = search._tree
    states = tree.payload
    edges = 0
    for node in np.flatnonzero(tree.expanded[: tree.size]):
        parent = jax.tree.map(lambda x, node=node: x[node], states)
        legal = np.asarray(_legal(config)(parent))
        np.testing.assert_array_equal(tree.legal[node], legal)
        for action in np.flatnonzero(tree.children[node] >= 0):
            assert legal[action], (node, action)
            child = int(tree.children[node, action])
            if tree.expanded[child]:
                stepped = _step(config)(parent, int(action))
                assert not bool(stepped.illegal_move)
                for mine, theirs in zip(jax.tree.leaves(stepped), jax.tree.leaves(states), strict=True):
                    np.testing.assert_array_equal(np.asarray(mine), theirs[child])
            edges += 1
    return edges


def test_no_illegal_move_at_any_depth_superko_included(searched):
    search, stats = searched
    assert _depths(search._tree).max() >= 3
    assert search._tree.children[0, 1] == -1 and stats.visits[1] == 0  # the superko-banned move
    assert _assert_every_edge_legal(search, CONFIG) > 50


def test_other_rules_situational_superko_with_suicide():
    config = gojax.GoConfig(size=4, komi=0.5, ko_rule="situational", suicide=True)
    search = TreeSearch(config, TreeSearchSettings(leaves_per_batch=4, playouts_per_leaf=2), seed=5)
    search.set_root(gojax.init(config))
    stats = search.search(playouts=400)
    assert stats.playouts >= 400 and 0 <= stats.best_action <= config.pass_action
    assert _depths(search._tree).max() >= 3
    assert _assert_every_edge_legal(search, config) > 20


def test_stats_are_consistent(searched, superko_root):
    _, stats = searched
    assert isinstance(stats, SearchStats) and stats.to_play == gojax.WHITE
    assert stats.visits.shape == (P + 1,) and stats.visits.dtype == np.int64
    assert stats.playouts >= 1536 and stats.visits.sum() == stats.playouts
    legal = np.asarray(_legal()(superko_root))
    assert stats.prior.sum() == pytest.approx(1.0) and stats.prior[1] == 0
    assert (stats.prior[~legal] == 0).all()
    assert (stats.prior[legal] > 0).all() and (stats.visits[~legal] == 0).all()
    visited = stats.visits > 0
    assert np.isnan(stats.winrate[~visited]).all()
    assert ((stats.winrate[visited] >= 0) & (stats.winrate[visited] <= 1)).all()
    assert stats.best_action == int(np.argmax(stats.visits))
    assert set(stats.pvs) == set(np.flatnonzero(visited).tolist())
    assert all(pv[0] == action for action, pv in stats.pvs.items())
    assert stats.ownership is not None and stats.ownership.shape == (P,)
    assert (np.abs(stats.ownership) <= 1).all()
    # Scores come from the same playouts as the ownership: at the root, white's lead is the
    # negated mean area difference plus the komi; the children's leads average to it.
    assert stats.root_score_lead == pytest.approx(CONFIG.komi - float(stats.ownership.sum()), abs=1e-3)
    assert np.isnan(stats.score_lead[~visited]).all()
    weighted = float((stats.score_lead[visited] * stats.visits[visited]).sum() / stats.visits.sum())
    assert weighted == pytest.approx(stats.root_score_lead, abs=0.05)


@pytest.mark.parametrize("colour", [gojax.BLACK, gojax.WHITE], ids=["black", "white"])
def test_a_capture_that_wins_is_found(colour):
    board = gojax.parse_board(SEMEAI, 5)
    if colour == gojax.WHITE:
        board = swap_colours(board)
    state = gojax.from_board(CONFIG, board, to_play=colour)
    search = TreeSearch(CONFIG, SETTINGS, seed=0)
    search.set_root(state)
    stats = search.search(playouts=1024)
    assert stats.best_action == 0
    assert stats.winrate[0] > 0.8 and stats.root_winrate > 0.6
    # The capture wins on the board too: the mover's expected lead is positive, for either colour.
    assert stats.score_lead[0] > 0 and stats.root_score_lead > 0


def test_tree_reuse_keeps_the_statistics_of_the_same_simulations(superko_root):
    first = TreeSearch(CONFIG, SETTINGS, seed=7)
    first.set_root(superko_root)
    first.search(playouts=512)
    tree = first._tree
    action = int(np.argmax(np.where(tree.children[0] >= 0, tree.visits[np.maximum(tree.children[0], 0)], -1)))
    child = int(tree.children[0, action])
    expected_visits = tree.visits[np.maximum(tree.children[child], 0)] * (tree.children[child] >= 0)
    expected_amaf = tree.amaf_visits[child].copy()
    expected_playouts = int(tree.visits[child])

    # The same search again (same seed, same budget), then the move is played: the root's
    # statistics are those of the child in the first tree.
    again = TreeSearch(CONFIG, SETTINGS, seed=7)
    again.set_root(superko_root)
    again.search(playouts=512)
    again.set_root(_play(superko_root, action))
    stats = again.stats()
    assert stats.playouts == expected_playouts > 0
    np.testing.assert_array_equal(stats.visits, expected_visits)
    np.testing.assert_array_equal(again._tree.amaf_visits[0], expected_amaf)
    # And searching on from the reused tree is reproducible too.
    more = again.search(playouts=256)
    assert more.playouts == expected_playouts + 256


@pytest.mark.parametrize(
    "overrides",
    [
        {},
        {"exploration": 0.3},
        {"prior_visits": 0.0, "first_play_urgency": 0.7},
        {"rave_equivalence": 0.0},
        {"rave_equivalence": 0.0, "prior_visits": 0.0},
    ],
)
def test_the_selection_cache_gives_child_values_bit_for_bit(searched, overrides):
    """The descent's cached values equal child_values exactly, through virtual loss, backup and re-rooting."""
    from gojax.search._select import child_values, refresh, selection_values

    tree = copy.deepcopy(searched[0]._tree)
    settings = dataclasses.replace(SETTINGS, **overrides)
    rng = np.random.default_rng(0)
    zero = np.zeros(tree.num_actions)

    def check() -> None:
        refresh(tree, settings)
        for node in np.flatnonzero(tree.expanded[: tree.size]):
            cached = selection_values(tree, int(node), settings, zero)
            fresh = child_values(tree, int(node), settings, tree.prior_rate[node], zero)
            assert cached.tobytes() == fresh.tobytes(), (node, cached - fresh)

    def random_path() -> tuple[list[tuple[int, int]], int]:
        node, edges = 0, []
        while (tree.children[node] >= 0).any():
            action = int(rng.choice(np.flatnonzero(tree.children[node] >= 0)))
            edges.append((node, action))
            node = int(tree.children[node, action])
        return edges, node

    check()
    for step in range(12):
        edges, target = random_path()
        tree.add_virtual_loss(edges, target, 1 + step % 3)  # stale edges alone: one at a time
        check()
        if step % 3 == 2:  # stale nodes: vectorized
            first = rng.integers(0, 4, (2, P)).astype(np.float32)
            tree.backup(0, edges, target, 4.0, 1.5, first, np.floor(first / 2), 3.0)
            check()
    edges, target = random_path()
    tree.add_virtual_loss(edges, target, 2)
    tree.reroot(int(tree.children[edges[0]]))  # the marks follow their nodes
    check()


def test_a_position_not_in_the_tree_starts_a_new_one(superko_root):
    search = TreeSearch(CONFIG, SETTINGS, seed=2)
    search.set_root(superko_root)
    search.search(playouts=64)
    search.set_root(gojax.init(CONFIG))
    assert search.stats().playouts == 0 and search.stats().visits.sum() == 0


class _Clock:
    """A clock that moves on by ``tick`` seconds each time it is read."""

    def __init__(self, tick: float):
        self.tick, self.time, self.reads = tick, 100.0, 0

    def __call__(self) -> float:
        self.reads += 1
        self.time += self.tick
        return self.time


def test_the_time_budget_is_kept_with_a_margin():
    # Each batch reads the clock a fixed number of times, so each takes a fixed time; the search
    # must stop before a batch that would run past the budget less the margin.
    search = TreeSearch(CONFIG, SETTINGS, seed=3)
    search.set_root(gojax.init(CONFIG))
    clock = _Clock(0.05)
    progress: list[SearchStats] = []
    stats = search.search(seconds=2.0, now=clock, on_progress=progress.append, progress_every=0.5)
    assert 2.0 * (1 - SETTINGS.time_margin) - 0.15 <= stats.seconds <= 2.0
    assert stats.playouts >= 2 * SETTINGS.leaves_per_batch * SETTINGS.playouts_per_leaf
    assert len(progress) >= 2 and progress[-1].playouts <= stats.playouts


class _Device:
    """The clock of a device that runs one batch at a time, ``batch`` seconds each, while the host's
    work takes no time: a search reads it as its clock, and its batches move it on.

    A batch starts when it is launched or when the batch before it ends, whichever is later;
    waiting for a batch (the search's ``_finish``) moves the clock to its end.
    """

    def __init__(self, search: TreeSearch, batch: float):
        self.time, self.batch, self.busy_until, self.ends = 100.0, batch, 100.0, []
        self.launched = 0
        launch, finish = search._launch, search._finish

        def timed_launch():
            self.busy_until = max(self.time, self.busy_until) + self.batch
            self.ends.append(self.busy_until)
            self.launched += 1
            return launch()

        def timed_finish(*pending):
            self.time = max(self.time, self.ends.pop(0))
            return finish(*pending)

        search._launch, search._finish = timed_launch, timed_finish

    def __call__(self) -> float:
        return self.time


def test_the_time_budget_counts_the_batch_still_in_flight():
    # Batches of 0.25 s, one after the other on the device; the host selects the next batch
    # while one runs. Launching a batch at time t ends the search at t + 0.5 at the earliest
    # (the batch in flight ends at t + 0.25, the new one at t + 0.5), so the last batch is the
    # one launched at 1.25: 1.25 + 0.5 = 1.75 is within 1.875 s less the 5% margin (1.78125);
    # one launched at 1.5 would end at 2.0, past the budget itself.
    search = TreeSearch(CONFIG, SETTINGS, seed=3)
    search.set_root(gojax.init(CONFIG))
    search.warm_up()
    device = _Device(search, 0.25)
    stats = search.search(seconds=1.875, now=device)
    assert SETTINGS.time_margin == 0.05
    assert stats.seconds == 1.75 and device.time == 101.75
    assert device.launched == 7 and not device.ends  # launched at 0, 0, 0.25, ..., 1.25; all waited for
    assert stats.playouts == 7 * SETTINGS.leaves_per_batch * SETTINGS.playouts_per_leaf


@pytest.mark.parametrize("policy", ["random", "heuristic"])
def test_the_step_playout_policies_search_legally(policy, superko_root):
    # The policies gojax-gtp --playout-policy offers besides the light kernel's: a seeded search
    # with each keeps to the rules at every depth (the superko ban included), its statistics
    # add up, the same seed builds the same tree, and it finds the capture that wins.
    settings = dataclasses.replace(SETTINGS, playout_policy=policy)
    search = TreeSearch(CONFIG, settings, seed=11)
    search.set_root(superko_root)
    stats = search.search(playouts=768)
    tree, size = search._tree, search._tree.size
    assert stats.playouts >= 768 and stats.visits.sum() == stats.playouts
    assert tree.children[0, 1] == -1 and stats.visits[1] == 0  # the superko-banned move
    assert _depths(tree).max() >= 2 and _assert_every_edge_legal(search, CONFIG) > 30
    visits = tree.visits[:size, None]
    assert (tree.wins[:size] <= tree.visits[:size]).all() and (tree.amaf_visits[:size] <= visits).all()
    assert (tree.amaf_wins[:size] <= tree.amaf_visits[:size]).all() and tree.amaf_visits[0].sum() > 0
    again = TreeSearch(CONFIG, settings, seed=11)
    again.set_root(superko_root)
    np.testing.assert_array_equal(again.search(playouts=768).visits, stats.visits)
    search.set_root(gojax.from_board(CONFIG, gojax.parse_board(SEMEAI, 5), to_play=gojax.BLACK))
    found = search.search(playouts=1024)
    assert found.best_action == 0 and found.winrate[0] > 0.8


def test_should_stop_ends_the_search():
    search = TreeSearch(CONFIG, SETTINGS, seed=4)
    search.set_root(gojax.init(CONFIG))
    calls = []

    def stop() -> bool:
        calls.append(1)
        return len(calls) > 3

    stats = search.search(seconds=1e6, should_stop=stop)
    assert stats.playouts == 3 * SETTINGS.leaves_per_batch * SETTINGS.playouts_per_leaf


@pytest.mark.parametrize(
    ("field", "value", "error"),
    [
        ("leaves_per_batch", 0, ValueError),
        ("playouts_per_leaf", 2.5, TypeError),
        ("playout_policy", "smart", ValueError),
        ("rave_equivalence", -1.0, ValueError),
        ("first_play_urgency", 1.5, ValueError),
        ("time_margin", float("nan"), ValueError),
        ("max_nodes", True, TypeError),
    ],
)
def test_bad_settings_name_the_value(field, value, error):
    with pytest.raises(error, match=f"TreeSearchSettings.{field}.*{value!r}".replace("(", r"\(")):
        TreeSearchSettings(**{field: value})


def test_bad_arguments_name_the_value():
    with pytest.raises(TypeError, match="GoConfig, got 9"):
        TreeSearch(9)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="TreeSearchSettings, got 'fast'"):
        TreeSearch(CONFIG, "fast")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed must be an int >= 0, got -1"):
        TreeSearch(CONFIG, SETTINGS, seed=-1)
    search = TreeSearch(CONFIG, SETTINGS)
    with pytest.raises(ValueError, match="no root"):
        search.search(playouts=8)
    with pytest.raises(TypeError, match="GoState, got ndarray"):
        search.set_root(np.zeros((5, 5)))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"TreeSearch\.set_root"):
        search.set_root(gojax.init(gojax.GoConfig(size=7)))
    search.set_root(gojax.init(CONFIG))
    with pytest.raises(ValueError, match="neither"):
        search.search()
    with pytest.raises(ValueError, match=r"seconds must be a finite number > 0, got -1\.0"):
        search.search(seconds=-1.0)
    with pytest.raises(TypeError, match=r"playouts must be an int >= 1, got '10'"):
        search.search(playouts="10")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="should_stop must be callable, got 3"):
        search.search(playouts=8, should_stop=3)  # type: ignore[arg-type]


def test_komi_is_data_to_the_leaf_evaluation_and_set_komi_keeps_the_compiled_search():
    from gojax.search._leaves import evaluate_leaves

    drawn = gojax.from_ascii(CONFIG, ". X . O .\n" * 5)  # 10 points each: komi decides the playouts
    parents = jax.tree.map(lambda x: np.stack([x] * 4), drawn)
    actions = np.array([-1, CONFIG.pass_action, 2, 22], np.int32)
    key = jax.random.key(3)
    traces = []

    def leaves(config, *args):
        traces.append(config.komi)
        return evaluate_leaves(config, "random", 30, 8, *args)

    traced = jax.jit(functools.partial(leaves, gojax.GoConfig(size=5, komi=0.0)))
    wins = {}
    for komi in (-3.0, 3.0):
        static = jax.jit(functools.partial(leaves, CONFIG.with_komi(komi)))(parents, actions, key, 0)
        data = traced(parents, actions, key, 0, np.float32(komi))
        np.testing.assert_array_equal(data.black_wins, static.black_wins)
        np.testing.assert_array_equal(data.ownership, static.ownership)
        wins[komi] = np.asarray(data.black_wins)
    assert traces == [-3.0, 0.0, 3.0]  # the komi-data function traced once, the static ones each
    assert (wins[-3.0] >= wins[3.0]).all() and (wins[-3.0] > wins[3.0]).any()  # the same playouts
    search = TreeSearch(CONFIG, SETTINGS, seed=2)
    search.set_root(drawn)
    search.search(playouts=64)
    evaluate = search._evaluate
    search.set_komi(-0.5)
    assert search.config == CONFIG.with_komi(-0.5) and search._tree is None  # results of another komi
    search.set_root(drawn)
    stats = search.search(playouts=64)
    assert search._evaluate is evaluate and stats.playouts >= 64
    with pytest.raises(ValueError, match="set_komi"):
        search.set_komi(float("nan"))
