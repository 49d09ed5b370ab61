"""The host tree of gojax.search on hand-built trees: AMAF backup, RAVE values, virtual loss, re-rooting.

Pure NumPy (nothing is compiled): a 2x2 board, ``P = 4`` points and pass ``4``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from gojax.search import TreeSearchSettings
from gojax.search._select import child_values, prior_rates
from gojax.search._tree import Tree

A = 5  # 2x2: points 0..3, pass 4
BLACK, WHITE = 0, 1


def _line_tree() -> tuple[Tree, int, int]:
    """root (black to move) -1-> c1 (white to move) -2-> c2 (black to move), all expanded."""
    tree = Tree(A, capacity=2)  # capacity 2: the third node makes it grow
    root = tree.add(-1, -1, BLACK)
    c1 = tree.add(root, 1, WHITE)
    c2 = tree.add(c1, 2, BLACK)
    for node in (root, c1, c2):
        tree.expand(node, np.ones(A, bool), False)
    return tree, c1, c2


def test_amaf_counts_of_scripted_playouts_match_a_hand_count():
    tree, c1, c2 = _line_tree()
    assert tree.capacity >= 3 and tree.children[0, 1] == c1 and tree.children[c1, 2] == c2
    # Playout batch 1 (2 playouts from c2, black won 1): black played 0 first in both, 3 in one
    # (which black won); white played 1 first in one (white lost it) and 2 in one (white won it).
    first = np.array([[2, 0, 0, 1], [0, 1, 1, 0]], float)
    first_wins = np.array([[1, 0, 0, 1], [0, 0, 1, 0]], float)
    tree.backup(0, [(0, 1), (c1, 2)], c2, 2.0, 1.0, first, first_wins, black_score=-1.5)
    # Batch 2 (3 playouts from c1 directly, black won all 3): black played 2 first in all three.
    first2 = np.array([[0, 0, 3, 0], [0, 0, 0, 0]], float)
    tree.backup(0, [(0, 1)], c1, 3.0, 3.0, first2, first2, black_score=10.5)
    # Black's score totals along each path: root and c1 saw both batches, c2 the first only.
    np.testing.assert_array_equal(tree.black_score[:3], [9.0, 9.0, -1.5])

    # Visits and wins (wins for the player who moved into the node).
    np.testing.assert_array_equal(tree.visits[:3], [5, 5, 2])
    # root: moved into by white (black is to move there): white won 1 + 0.
    # c1: moved into by black: 1 + 3. c2: moved into by white: 1.
    np.testing.assert_array_equal(tree.wins[:3], [1, 4, 1])

    # c2 (black to move): batch 1's black first-plays, as they are.
    np.testing.assert_array_equal(tree.amaf_visits[c2, :4], [2, 0, 0, 1])
    np.testing.assert_array_equal(tree.amaf_wins[c2, :4], [1, 0, 0, 1])
    # c1 (white to move): batch 1 with white's tree move 2 claiming point 2 in both playouts
    # (white won 1 of 2), plus batch 1's white first-play at 1 (lost); batch 2 from c1: white
    # played nothing. So white: 1 -> 1 visit 0 wins; 2 -> 2 visits 1 win.
    np.testing.assert_array_equal(tree.amaf_visits[c1, :4], [0, 1, 2, 0])
    np.testing.assert_array_equal(tree.amaf_wins[c1, :4], [0, 0, 1, 0])
    # root (black to move): black's tree move 1 claims point 1 in all 5 playouts (black won 1 + 3);
    # point 2 belongs to white's tree move in batch 1 and to black's playouts in batch 2 (3, won 3);
    # black's first plays at 0 (2, won 1) and 3 (1, won 1) from batch 1.
    np.testing.assert_array_equal(tree.amaf_visits[0, :4], [2, 5, 3, 1])
    np.testing.assert_array_equal(tree.amaf_wins[0, :4], [1, 4, 3, 1])
    assert tree.amaf_visits[:, 4].sum() == 0  # pass gets no AMAF samples


def test_a_tree_move_takes_its_point_from_the_other_colour():
    # The two tree moves' points were played first in the playouts by the other colour (a stone
    # captured, the point played again): black's tree move 1 and white's tree move 2 come
    # before, so from the nodes above them those points are theirs, not the playouts' colour's.
    tree, c1, c2 = _line_tree()
    # 2 playouts from c2, black won 1: black played 2 first in both (won 1), white played 1
    # first in one (which white won).
    first = np.array([[0, 0, 2, 0], [0, 1, 0, 0]], float)
    first_wins = np.array([[0, 0, 1, 0], [0, 1, 0, 0]], float)
    tree.backup(0, [(0, 1), (c1, 2)], c2, 2.0, 1.0, first, first_wins)
    # c2 (black to move): the playouts' black first plays, as they are.
    np.testing.assert_array_equal(tree.amaf_visits[c2, :4], [0, 0, 2, 0])
    np.testing.assert_array_equal(tree.amaf_wins[c2, :4], [0, 0, 1, 0])
    # c1 (white to move): white's tree move 2 claims point 2 in both playouts (white won 1);
    # white's first play at 1 in the playouts (won) is white's too.
    np.testing.assert_array_equal(tree.amaf_visits[c1, :4], [0, 1, 2, 0])
    np.testing.assert_array_equal(tree.amaf_wins[c1, :4], [0, 1, 1, 0])
    # root (black to move): black's tree move 1 claims point 1 in both (black won 1); point 2
    # is white's (its tree move came first), so black gets nothing there.
    np.testing.assert_array_equal(tree.amaf_visits[0, :4], [0, 2, 0, 0])
    np.testing.assert_array_equal(tree.amaf_wins[0, :4], [0, 1, 0, 0])


def test_rave_value_blends_the_mean_and_the_amaf_mean_by_hand():
    tree, c1, _ = _line_tree()
    tree.visits[c1], tree.wins[c1] = 4.0, 3.0  # the child of action 1: 3 wins of 4
    tree.visits[0] = 10.0
    tree.amaf_visits[0, :4] = [6, 10, 0, 2]
    tree.amaf_wins[0, :4] = [3, 2, 0, 2]
    tree.legal[0] = [True, True, True, False, True]
    settings = TreeSearchSettings(rave_equivalence=12.0, prior_visits=2.0, pass_prior=0.25, exploration=0.5)
    rates = prior_rates(A, settings)
    values = child_values(tree, 0, settings, rates)
    # action 1: beta = sqrt(12 / (3 * 4 + 12)); AMAF mean (2 + 2 * 0.5) / (10 + 2); UCB sqrt(ln 11 / 5).
    beta = math.sqrt(12 / 24)
    expected1 = (1 - beta) * 3 / 4 + beta * 3 / 12 + 0.5 * math.sqrt(math.log(11) / 5)
    # action 0 (no child): beta = 1; AMAF (3 + 1) / (6 + 2); UCB sqrt(ln 11 / 1).
    expected0 = 4 / 8 + 0.5 * math.sqrt(math.log(11))
    # pass: no AMAF samples, prior only: (0 + 2 * 0.25) / 2.
    expected_pass = 0.25 + 0.5 * math.sqrt(math.log(11))
    assert values[1] == pytest.approx(expected1)
    assert values[0] == pytest.approx(expected0)
    assert values[4] == pytest.approx(expected_pass)
    assert values[3] == -np.inf  # illegal
    # Pass visited 6 times, 3 wins: its prior counts as 2 visits at 0.25 on its own mean.
    passed = tree.add(0, 4, WHITE)
    tree.visits[passed], tree.wins[passed] = 6.0, 3.0
    values = child_values(tree, 0, settings, rates)
    assert values[4] == pytest.approx((3 + 2 * 0.25) / (6 + 2) + 0.5 * math.sqrt(math.log(11) / 7))


def test_virtual_loss_lowers_a_path_and_is_undone_exactly():
    tree, c1, c2 = _line_tree()
    tree.backup(0, [(0, 1), (c1, 2)], c2, 4.0, 2.0, np.ones((2, 4)), np.ones((2, 4)))
    before = {name: getattr(tree, name).copy() for name in ("visits", "wins", "amaf_visits", "amaf_wins")}
    settings = TreeSearchSettings(rave_equivalence=100.0)
    rates = prior_rates(A, settings)
    value = child_values(tree, 0, settings, rates)[1]
    tree.add_virtual_loss([(0, 1), (c1, 2)], c2, 3)
    assert child_values(tree, 0, settings, rates)[1] < value
    assert tree.visits[c1] == before["visits"][c1] + 3
    assert tree.amaf_visits[0, 1] == before["amaf_visits"][0, 1] + 3
    tree.add_virtual_loss([(0, 1), (c1, 2)], c2, -3)
    for name, array in before.items():
        np.testing.assert_array_equal(getattr(tree, name), array, err_msg=name)


def test_reroot_keeps_the_subtree_with_its_statistics_and_payload():
    payload = {"tag": np.zeros((2,), np.int32)}
    tree = Tree(A, payload=payload, capacity=2)
    root = tree.add(-1, -1, BLACK)
    a = tree.add(root, 0, WHITE)
    b = tree.add(root, 3, WHITE)
    a1 = tree.add(a, 2, BLACK)
    b1 = tree.add(b, 1, BLACK)
    b2 = tree.add(b1, 4, WHITE)
    for node in range(tree.size):
        tree.expand(node, np.ones(A, bool), False)
        tree.set_payload(np.array([node]), {"tag": np.array([[node, 10 * node]], np.int32)})
        tree.visits[node] = 100 + node
        tree.amaf_visits[node, node % 4] = node + 1
    del a1
    tree.reroot(b)
    assert tree.size == 3
    np.testing.assert_array_equal(tree.parent[:3], [-1, 0, 1])
    np.testing.assert_array_equal(tree.action[:3], [-1, 1, 4])
    np.testing.assert_array_equal(tree.visits[:3], [100 + b, 100 + b1, 100 + b2])
    np.testing.assert_array_equal(tree.payload["tag"][:3, 0], [b, b1, b2])
    assert tree.children[0, 1] == 1 and tree.children[1, 4] == 2
    assert (tree.children[:3] >= 0).sum() == 2
    assert tree.amaf_visits[1, b1 % 4] == b1 + 1
    # the freed rows are cleared
    assert tree.visits[3:].sum() == 0 and (tree.children[3:] == -1).all()


@pytest.mark.parametrize(
    ("pass_rate", "point_rates", "expected"),
    [
        (0.004, [0.0, 0.0, 0.0, 0.0], 1),  # a lost position: play on (the most visited point)
        (0.6, [0.55, 0.5, 0.5, 0.5], 4),  # passing wins
        (0.3, [0.2, 0.2, 0.1, 0.2], 4),  # every point clearly worse than passing
        (0.3, [0.28, 0.2, 0.1, 0.2], 1),  # a point about as good as passing: play it
    ],
)
def test_pass_only_when_it_wins_or_every_point_is_worse(pass_rate, point_rates, expected):
    import gojax
    from gojax.search import TreeSearch

    search = TreeSearch(gojax.GoConfig(size=2), TreeSearchSettings())
    tree = Tree(A)
    root = tree.add(-1, -1, BLACK)
    tree.expand(root, np.ones(A, bool), False)
    for action, (visits, rate) in enumerate(zip([10, 30, 20, 5, 40], [*point_rates, pass_rate], strict=True)):
        child = tree.add(root, action, WHITE)
        tree.visits[child], tree.wins[child] = visits, visits * rate
    tree.visits[root] = 105
    search._tree = tree
    assert search.stats().best_action == expected
