"""``experiments/playout_accuracy.py``: GNU Go's dragons read right, and the playouts scored against them."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import SGF_DATA, experiment_module, gnugo_client

import gojax
from gojax import GoConfig, from_gtp

CONFIG = GoConfig(size=19, komi=7.5)


@pytest.fixture(scope="module")
def script():
    return experiment_module("playout_accuracy")


@pytest.fixture(scope="module")
def gnugo():
    yield from gnugo_client(level=10, timeout=120)


def test_dragon_status_lines_give_each_dragon_its_status(script):
    reply = "F18: dead\nB17: critical B16 B16\nN16: alive\nJ11: unknown"
    assert script.parse_dragons(CONFIG, reply) == {
        "F18": "dead",
        "B17": "critical",
        "N16": "alive",
        "J11": "unknown",
    }
    with pytest.raises(ValueError):
        script.parse_dragons(CONFIG, "Z99: alive")


def test_agreement_scores_each_stone_by_its_colour_and_status(script):
    colour = np.array([1, 2, 1, 2, 0])  # black, white, black, white, empty
    owned_by_black = np.array([0.75, 0.25, 0.1, 0.9, 0.5])
    shares = script.agreement(colour, owned_by_black, {"alive": [0, 1], "dead": [2, 3]})
    # Alive: black kept where black owns (0.75); white kept where black does not (1 - 0.25).
    # Dead: black taken where black does not own (1 - 0.1); white taken where black owns (0.9).
    assert shares == {"alive": [0.75, 0.75], "dead": [0.9, 0.9]}
    with pytest.raises(ValueError, match="holds no stone"):
        script.agreement(colour, owned_by_black, {"alive": [4], "dead": []})


def test_gnugo_judges_stones_of_a_real_game(script, gnugo):
    record = sorted(SGF_DATA.glob("pro19*.sgf"))[0]
    positions = script._positions([record], [100])
    assert [(path, move) for path, move, _ in positions] == [(record, 100)]
    state = positions[0][2]
    stones = script.judge(gnugo, CONFIG, record, 100)
    colour = np.asarray(gojax.board(CONFIG, state)).reshape(-1)
    alive, dead = set(stones["alive"]), set(stones["dead"])
    assert alive and not alive & dead
    assert all(colour[p] in (1, 2) for p in alive | dead)  # GNU Go's board is gojax's board
    # Each dragon is one colour: GNU Go's stones of the dragon through each judged point.
    first = min(alive)
    dragon = [from_gtp(CONFIG, v) for v in gnugo.send(f"dragon_stones {script_vertex(first)}").split()]
    assert first in dragon and len({int(colour[p]) for p in dragon}) == 1
    # Every stone of a dragon GNU Go calls alive (dead) is judged alive (dead), not only its head.
    for head, status in script.parse_dragons(CONFIG, gnugo.send("dragon_status")).items():
        if status in stones:
            whole = {from_gtp(CONFIG, v) for v in gnugo.send(f"dragon_stones {head}").split()}
            assert whole <= set(stones[status]), (head, status)
    # Playouts that end with black owning every point keep every black stone and take every white one.
    owned = np.ones(CONFIG.num_points)
    shares = script.agreement(colour, owned, stones)
    black = {status: [colour[p] == 1 for p in stones[status]] for status in ("alive", "dead")}
    assert shares["alive"] == [1.0 if b else 0.0 for b in black["alive"]]
    assert shares["dead"] == [0.0 if b else 1.0 for b in black["dead"]]


def script_vertex(point: int) -> str:
    """The GTP vertex of a 19x19 point."""
    return gojax.to_gtp(CONFIG, point)
