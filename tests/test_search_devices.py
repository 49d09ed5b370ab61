"""A tree search's leaf batch split over several devices (``gojax.search._devices``).

The pytest workers see one CPU device, so the multi-device checks run in a
subprocess with the CPU split into two devices (as ``gojax-gtp
--host-devices 2`` does).
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

import gojax
from gojax.search import TreeSearch, TreeSearchSettings
from gojax.search._devices import device_count


@pytest.mark.parametrize(
    ("leaves", "devices", "available", "expected"),
    [
        (32, None, 1, 1),
        (32, None, 2, 2),
        (32, None, 3, 2),  # the largest divisor of K within reach
        (12, None, 8, 6),
        (32, 1, 4, 1),
        (32, 4, 2, 2),  # never more than there are
        (7, None, 4, 1),
        (1, None, 2, 1),
    ],
)
def test_device_count_divides_the_leaves(leaves, devices, available, expected):
    assert device_count(leaves, devices, available) == expected


BAD = [(0, ValueError), (-2, ValueError), ("2", TypeError), (1.5, TypeError)]


@pytest.mark.parametrize(("devices", "error"), BAD)
def test_bad_device_counts_are_refused(devices, error):
    with pytest.raises(error, match="TreeSearch devices"):
        TreeSearch(gojax.GoConfig(size=5), TreeSearchSettings(leaves_per_batch=4), devices=devices)


def test_one_device_is_the_default_here():
    search = TreeSearch(gojax.GoConfig(size=5), TreeSearchSettings(leaves_per_batch=4))
    assert search.devices == 1


_TWO_DEVICES = textwrap.dedent(
    """
    import jax, numpy as np
    import gojax
    from gojax.search import TreeSearch, TreeSearchSettings
    from gojax.search._devices import evaluate_on_devices
    from gojax.search._leaves import evaluate_leaves

    assert len(jax.local_devices()) == 2, jax.local_devices()
    config = gojax.GoConfig(size=5)
    state = gojax.init(config)
    for action in (6, 12, 8):
        state = gojax.step(config, state, action)
    parents = jax.tree.map(lambda x: np.stack([np.asarray(x)] * 4), state)
    actions = np.array([0, 18, -1, 24], np.int32)
    key = jax.random.key(5)
    split = jax.jit(lambda p, a, k: evaluate_on_devices(config, "heavy", 40, 4, 2, p, a, k, 3))
    alone = jax.jit(lambda p, a, k: evaluate_leaves(config, "heavy", 40, 4, p, a, k, 3))
    together = jax.device_get(split(parents, actions, key))
    halves = [
        jax.device_get(alone(jax.tree.map(lambda x: x[2 * d : 2 * d + 2], parents),
                             actions[2 * d : 2 * d + 2], jax.random.fold_in(key, d)))
        for d in range(2)
    ]
    expected = jax.tree.map(lambda *parts: np.concatenate(parts), *halves)
    jax.tree.map(np.testing.assert_array_equal, together, expected)

    # A host tool's store of compiled executables is off with several devices (an executable
    # loaded there would expect its arguments on every device); the searches below run with it asked for.
    import tempfile
    from pathlib import Path
    from gojax._host import executables
    executables.use_directory(Path(tempfile.mkdtemp()))
    assert executables.directory() is None

    def searched(seed):
        search = TreeSearch(config, TreeSearchSettings(leaves_per_batch=4, playouts_per_leaf=4), seed=seed)
        search.warm_up()
        search.set_root(state)
        return search, search.search(playouts=512)

    search, stats = searched(1)
    assert search.devices == 2
    legal = np.asarray(gojax.legal_action_mask(config, state))
    assert legal[stats.best_action], stats.best_action
    again = searched(1)[1]
    np.testing.assert_array_equal(stats.visits, again.visits)
    np.testing.assert_array_equal(stats.winrate, again.winrate)
    print("two devices ok")
    """
)


def test_two_devices_share_a_batch_as_two_calls_on_its_halves():
    """The split batch equals ``evaluate_leaves`` on each half with the device's key; searches repeat."""
    env = dict(os.environ)
    env["JAX_PLATFORMS"] = "cpu"
    env["XLA_FLAGS"] = f"{env.get('XLA_FLAGS', '')} --xla_force_host_platform_device_count=2".strip()
    result = subprocess.run(
        [sys.executable, "-c", _TWO_DEVICES], env=env, capture_output=True, text=True, timeout=600
    )
    assert result.returncode == 0, result.stderr[-3000:]
    assert "two devices ok" in result.stdout
