"""The invariant checker itself: it passes well-formed states and names each corruption.

The stress and replay tests lean on :func:`gojax.check_invariants`; these
tests make sure it can fail - one corrupted field at a time, on a small
position with chains in atari (so the atari bitboards and their liberty
labels are not empty).
"""

import numpy as np
import pytest

import gojax
from gojax._host.invariants import InvariantError

CONFIG = gojax.GoConfig(size=5)
POSITION = """
. X O . .
X O . . .
. X . . .
. . . O .
. . O X .
"""


@pytest.fixture(scope="module")
def state():
    state = gojax.from_ascii(CONFIG, POSITION, to_play=2)
    gojax.check_invariants(CONFIG, state)
    return state


def _corrupt(state, field, change):
    value = np.array(getattr(state, field))
    change(value)
    return state.replace(**{field: value})


def test_position_has_labelled_chains_in_atari(state):
    # In atari: black B5 (liberty A5) and D1 (liberty E1), white B4 (liberty C4).
    board = np.asarray(gojax.board(CONFIG, state))
    atari = np.asarray(gojax._core.bitboard.to_grid(state.atari, 5))
    np.testing.assert_array_equal(np.argwhere(atari[0]), [[0, 1], [4, 3]])
    np.testing.assert_array_equal(np.argwhere(atari[1]), [[1, 1]])
    assert board[0, 1] == 1 and board[1, 1] == 2
    labels = np.asarray(gojax._core.bitboard.to_grid(state.atari_liberty, 5))  # [L, N, N], both colours
    index = (labels * (1 << np.arange(5))[:, None, None]).sum(0)  # liberty index per stone
    assert index[0, 1] == 0 * 5 + 0  # A5
    assert index[4, 3] == 4 * 5 + 4  # E1
    assert index[1, 1] == 1 * 5 + 2  # C4
    assert np.asarray(state.atari_liberty).shape == (CONFIG.liberty_label_planes, 1)  # W = 1 word


def _flip(array, lead, point):
    """Toggles the bit of ``point`` in the bitboard ``array[lead]`` (in place)."""
    word, bit = divmod(point, 32)
    array[(*lead, word)] ^= np.uint32(1 << bit)


@pytest.mark.parametrize(
    ("field", "change", "message"),
    [
        ("atari", lambda a: _flip(a, (0,), 4 * 5 + 0), "atari bitboards differ"),
        ("atari_liberty", lambda a: _flip(a, (0,), 1 * 5 + 1), "atari_liberty differs"),
        ("atari_liberty", lambda a: _flip(a, (2,), 4 * 5 + 3), "atari_liberty differs"),
        ("hash", lambda a: a.__setitem__(0, a[0] + 1), "incremental hash"),
        ("history", lambda a: a.__setitem__((0, 1), a[0, 1] + 1), "history entry for the current move"),
        ("stones", lambda a: a.__setitem__((0, -1), a[0, -1] | (1 << 31)), "bits set beyond the board"),
        ("ko_point", lambda a: a.fill(1), "ko point"),
    ],
)
def test_each_corruption_is_reported(state, field, change, message):
    with pytest.raises(InvariantError, match=message):
        gojax.check_invariants(CONFIG, _corrupt(state, field, change))


def test_with_atari_liberty_recomputes_the_labels(state):
    from gojax._core.atari import with_atari_liberty

    wiped = state.replace(atari_liberty=np.zeros_like(np.asarray(state.atari_liberty)))
    with pytest.raises(InvariantError, match="atari_liberty differs"):
        gojax.check_invariants(CONFIG, wiped)
    restored = with_atari_liberty(CONFIG, wiped)
    gojax.check_invariants(CONFIG, restored)
    np.testing.assert_array_equal(restored.atari_liberty, state.atari_liberty)
