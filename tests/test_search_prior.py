"""The tree's prior (gojax/search/_prior.py) against a point-by-point reading of its rules."""

from __future__ import annotations

import functools

import jax
import numpy as np
import pytest

import gojax
from gojax.search._prior import OPENING_SIZE, RATES, point_priors


def _reference(size: int, grid: np.ndarray, last: int, opening: bool) -> np.ndarray:
    """The base, edge, open-area and last-move rules, one point at a time (no chain in atari)."""
    rates = np.full(size * size, RATES["base"])
    for p in range(size * size):
        r, c = divmod(p, size)
        edges = (r in (0, size - 1)) + (c in (0, size - 1))
        if edges == 1:
            rates[p] = RATES["edge"]
        elif edges == 2:
            rates[p] = RATES["corner"]
        if size < OPENING_SIZE or not opening:
            continue
        line = min(r, c, size - 1 - r, size - 1 - c) + 1
        window = grid[max(r - 3, 0) : r + 4, max(c - 3, 0) : c + 4]
        if not window.any():
            rates[p] = RATES["open_low"] if line <= 2 else RATES["open_high"] if line <= 4 else rates[p]
        if 0 <= last < size * size and abs(r - last // size) + abs(c - last % size) <= 2:
            rates[p] = max(rates[p], RATES["near_last"])
    return rates


@pytest.mark.parametrize("size, opening", [(9, True), (13, True), (19, True), (19, False)])
def test_the_open_area_and_last_move_rules_on_sparse_boards(size, opening):
    """A few scattered stones: at the points with no stone beside them (no capture, escape, eye or
    self-atari there) the prior is the first rules' alone; every rate of them is met. The opening
    rules only when asked for, and on 13x13 and more."""
    config = gojax.GoConfig(size=size)
    priors = jax.jit(functools.partial(point_priors, config, opening=opening))
    rng = np.random.default_rng(size)
    seen = set()
    for _ in range(6):
        state = gojax.init(config)
        for _ in range(int(rng.integers(1, 7))):
            legal = np.flatnonzero(np.asarray(gojax.legal_action_mask(config, state))[:-1])
            state = gojax.step(config, state, int(rng.choice(legal)))
        grid = np.asarray(gojax.board(config, state)) != 0
        want = _reference(size, grid, int(state.last_move), opening)
        got = np.asarray(priors(state))
        padded = np.pad(grid, 1)
        beside = padded[:-2, 1:-1] | padded[2:, 1:-1] | padded[1:-1, :-2] | padded[1:-1, 2:]
        empty = ~(grid | beside).reshape(-1)
        np.testing.assert_allclose(got[empty], want[empty], rtol=0, atol=1e-6)
        seen |= set(np.round(want[empty], 2).tolist())
    if size >= OPENING_SIZE and opening:
        expected = {RATES[k] for k in ("base", "edge", "corner", "open_low", "open_high", "near_last")}
        assert expected <= seen, seen
    else:
        assert seen == {RATES["base"], RATES["edge"], RATES["corner"]}


def test_the_search_uses_the_opening_rules_when_its_settings_ask():
    """On an empty 13x13 board: the root's prior and a leaf batch's priors rank a third-line point
    above the centre above a second-line point only with the opening rules."""
    from gojax.search import TreeSearch, TreeSearchSettings
    from gojax.search._leaves import evaluate_leaves

    config = gojax.GoConfig(size=13)
    third, centre, second = 2 * 13 + 6, 6 * 13 + 6, 1 * 13 + 6
    parents = jax.tree.map(lambda x: x[None], gojax.init(config))
    for opening in (False, True):
        settings = TreeSearchSettings(opening_prior=opening, leaves_per_batch=4, playouts_per_leaf=2)
        search = TreeSearch(config, settings, seed=0)
        search.set_root(gojax.init(config))
        root = search.search(playouts=16).prior
        leaves = evaluate_leaves(
            config, "light", 20, 1, parents, np.array([-1]), jax.random.key(0), opening=opening
        )
        for prior in (root, np.asarray(leaves.priors[0])):
            if opening:
                assert prior[third] > prior[centre] > prior[second]
            else:
                assert prior[third] == prior[centre] == prior[second]
