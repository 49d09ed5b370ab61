"""The native kernels as XLA FFI custom calls (``gojax/_native/ffi.c``, :mod:`gojax.features._native_calls`).

The answers themselves are compared with the XLA code in ``test_native.py``;
here: that gojax holds no host callback, that one custom call serves every
batch shape ``vmap`` makes (none, one game, nested ``vmap`` with arguments
batched on different axes, ``shard_map``), that the handlers refuse
malformed buffers with an error naming them and read out-of-range values
inside a jitted function as documented, and that a compiled function holding
the calls can be kept: in JAX's persistent compilation cache, in the GTP
engine's store of executables, and as a ``jax.export`` artifact run by a
fresh process. Every cross-process step runs in a fresh interpreter.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import native_built, native_kernels, needs, whole_game_batch

import gojax
from gojax import _native, features
from gojax.features import _native_calls
from gojax.features.ladders import _pool as _ladder_pool

REPO = Path(__file__).resolve().parents[1]
CONFIG = gojax.GoConfig(size=7)


@pytest.fixture(autouse=True)
def _built():
    if not native_built():
        pytest.skip("the native kernels are not built")


def test_gojax_holds_no_host_callback():
    # The kernels are custom calls: no module of gojax calls back into Python from XLA.
    pattern = re.compile(r"pure_callback|io_callback|host_callback|jax\.debug\.callback")
    found = [
        f"{path.relative_to(REPO)}:{number}"
        for path in sorted((REPO / "gojax").rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if pattern.search(line)
    ]
    assert found == []


def _planes(state, history):
    """Every feature with a native kernel, for one game."""
    return (
        features.alphago_planes(CONFIG, state, history, dtype=jnp.bool_, player_colour=True),
        features.alphago_zero_planes(CONFIG, state, history, dtype=jnp.bool_),
        features.katago_planes(CONFIG, state, history, dtype=jnp.bool_),
        features.pass_alive(CONFIG, state),
        features.ladder_capture_plane(CONFIG, state),
    )


@functools.cache
def _batch(games: int = 12):
    batch = whole_game_batch(CONFIG, games, seed=7)
    return batch._game, batch._history


def _both(function, *args):
    """``(native, xla)`` results of ``jax.jit(function)(*args)``, as NumPy."""
    results = []
    for enabled in (True, False):
        with native_kernels(enabled):
            results.append(jax.tree.map(np.asarray, jax.jit(function)(*args)))
    return results


def _assert_same(native, xla):
    for a, b in zip(jax.tree.leaves(native), jax.tree.leaves(xla), strict=True):
        np.testing.assert_array_equal(a, b)


def test_one_game_and_a_batch_of_one():
    games, histories = _batch()
    one = jax.tree.map(lambda x: x[5], (games, histories))
    native, xla = _both(_planes, *one)
    _assert_same(native, xla)
    batched, reference = _both(jax.vmap(_planes), *jax.tree.map(lambda x: x[5:6], (games, histories)))
    _assert_same(batched, reference)
    _assert_same(jax.tree.map(lambda x: x[0], batched), native)
    # Stones on the board, pass-alive ones too.
    assert native[0].any() and native[1].any() and native[3].stones.any()


def test_nested_vmap_with_arguments_batched_on_different_axes():
    # The outer axis batches the history, the inner the position (and both for the reads'
    # per-task arrays): every argument of a custom call comes with the other's axis added.
    games, histories = _batch()
    positions = jax.tree.map(lambda x: x[:4], games)
    pasts = jax.tree.map(lambda x: x[4:7], histories)
    nested = jax.vmap(jax.vmap(_planes, in_axes=(0, None)), in_axes=(None, 0))
    native, xla = _both(nested, positions, pasts)
    assert native[0].shape == (3, 4, 7, 7, 49)
    _assert_same(native, xla)


def test_ladder_reads_broadcast_the_arguments_vmap_leaves_unbatched():
    # vmap_method="expand_dims": arrays the same for every game keep an axis of size 1, which
    # the handler broadcasts: per-task arrays batched over one axis, the position over another.
    games, _ = _batch()
    games = jax.tree.map(lambda x: x[:5], games)
    points = CONFIG.num_points
    rng = np.random.default_rng(0)
    modes = jnp.asarray(rng.integers(0, 3, (3, points)), jnp.int32)
    attacks = jnp.asarray(rng.random((3, points)) < 0.5)
    moves = jnp.asarray(rng.integers(-1, points, (3, points)), jnp.int32)
    prey = jnp.arange(points, dtype=jnp.int32)

    def reads(state, mode, attacks, move):
        active = gojax.board(CONFIG, state).reshape(-1) != 0
        return _ladder_pool.pooled_reads(
            CONFIG.size,
            mode,
            state.stones,
            state.atari,
            state.turn,
            state.ko_point,
            attacks,
            move,
            prey,
            active,
        )

    nested = jax.vmap(jax.vmap(reads, in_axes=(0, None, None, None)), in_axes=(None, 0, 0, 0))
    native, xla = _both(nested, games, modes, attacks, moves)
    assert native.shape == (3, 5, points) and native.any()
    np.testing.assert_array_equal(native, xla)


SHARDED = textwrap.dedent(
    """
    import os, sys
    sys.path.insert(0, {tests!r})
    import jax, jax.numpy as jnp, numpy as np
    from jax.sharding import PartitionSpec as P
    import gojax
    from gojax import features
    from conftest import whole_game_batch

    config = gojax.GoConfig(size=7)
    batch = whole_game_batch(config, 8, seed=3)
    mesh = jax.sharding.Mesh(np.array(jax.devices()), ("games",))

    def sharded():  # a new function each time: traced anew
        def planes(state, history):
            alphago = features.alphago_planes(config, state, history, dtype=jnp.bool_)
            escape = features.ladder_escape_plane(config, state)
            return alphago, features.pass_alive(config, state).stones, escape

        return jax.shard_map(jax.vmap(planes), mesh=mesh, in_specs=P("games"), out_specs=P("games"))

    results = []
    for native in ("1", "0"):
        os.environ["GOJAX_NATIVE"] = native
        function = jax.jit(sharded())
        text = function.lower(batch._game, batch._history).as_text()
        print(native, "custom call", "@gojax_ffi_alphago_planes" in text)
        results.append([np.asarray(x) for x in function(batch._game, batch._history)])
    for a, b in zip(*results, strict=True):
        np.testing.assert_array_equal(a, b)
    print("devices", len(jax.devices()), "equal", results[0][0].any())
    """
)


def _run(code: str, *args: str, env: dict[str, str] | None = None) -> str:
    """stdout of ``code`` in a fresh interpreter that imports this checkout's gojax."""
    env = {**os.environ, **(env or {})}
    env["PYTHONPATH"] = os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")])
    done = subprocess.run(
        [sys.executable, "-c", code, *args], capture_output=True, text=True, env=env, timeout=600
    )
    assert done.returncode == 0, done.stderr[-5000:]
    return done.stdout


@pytest.mark.integration
def test_shard_map_runs_the_custom_call_on_each_device():
    flags = os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=2"
    out = _run(SHARDED.format(tests=str(REPO / "tests")), env={"XLA_FLAGS": flags})
    assert "1 custom call True" in out and "0 custom call False" in out, out
    assert "devices 2 equal True" in out, out


def _call(target, result, *args, **attributes):
    _native.register()
    return jax.jit(lambda *a: jax.ffi.ffi_call(target, result)(*a, **attributes))(*args)


def test_malformed_buffers_are_refused_with_an_error_naming_the_target():
    stones = jnp.zeros((2, 2), jnp.uint32)
    turn, ko = jnp.zeros((), jnp.int32), jnp.full((), -1, jnp.int32)
    tables = jax.ShapeDtypeStruct((4, 49), jnp.int16)
    with pytest.raises(Exception, match=r"gojax_ffi_katago_tables: want_moves must be int32"):
        _call("gojax_ffi_katago_tables", tables, stones, turn, ko, jnp.ones((), jnp.float32))
    with pytest.raises(Exception, match=r"gojax_ffi_katago_tables: turn must be int32"):
        _call("gojax_ffi_katago_tables", tables, stones, turn.astype(jnp.int16), ko, turn)
    with pytest.raises(
        Exception, match=r"gojax_ffi_katago_tables: the result must be int16\[\.\.\., 4, N \* N\]"
    ):
        _call("gojax_ffi_katago_tables", jax.ShapeDtypeStruct((4, 50), jnp.int16), stones, turn, ko, turn)
    with pytest.raises(Exception, match=r"gojax_ffi_benson_tables: needs an integer attribute suicide"):
        _call("gojax_ffi_benson_tables", jax.ShapeDtypeStruct((2, 4, 49), jnp.int16), stones)
    with pytest.raises(Exception, match=r"2 words cannot hold a 9x9 board"):
        _call("gojax_ffi_benson_tables", jax.ShapeDtypeStruct((2, 4, 81), jnp.int16), stones, suicide=0)
    with pytest.raises(Exception, match=r"gojax_ffi_alphago_planes: channels must be 48 or 49, got 47"):
        legal = jnp.ones((7, 7), jnp.bool_)
        standing = jnp.zeros((8, 2), jnp.uint32)
        _call(
            "gojax_ffi_alphago_planes",
            jax.ShapeDtypeStruct((7, 7, 47), jnp.bool_),
            stones,
            turn,
            ko,
            standing,
            legal,
        )
    planes17, target = jax.ShapeDtypeStruct((7, 7, 17), jnp.bool_), "gojax_ffi_history_planes"
    with pytest.raises(Exception, match=rf"{target}: history must be uint32\[\.\.\., 8, 2, W\]"):
        _call(target, planes17, stones, turn, jnp.zeros((7, 2, 2), jnp.uint32), colour_white=0)
    with pytest.raises(Exception, match=rf"{target}: needs an integer attribute colour_white"):
        _call(target, planes17, stones, turn, jnp.zeros((8, 2, 2), jnp.uint32))
    with pytest.raises(Exception, match=r"gojax_ffi_ladder_reads: needs an attribute size in 2..25"):
        column = jnp.zeros(3, jnp.int32)
        args = (stones, turn, ko, column, column, column, column, jnp.ones(3, jnp.bool_))
        _call("gojax_ffi_ladder_reads", jax.ShapeDtypeStruct((3,), jnp.bool_), *args, size=np.int32(26))


def test_values_off_the_board_inside_a_jitted_function():
    # Inside jit nothing can raise: a read of a prey or kind off the board is False, a ko point
    # off the board is none, a first move off the board is no move (the read then fails).
    games, _ = _batch()
    state = jax.tree.map(lambda x: x[9], games)
    points = CONFIG.num_points
    grid = np.asarray(gojax.board(CONFIG, state)).reshape(-1)
    stones = np.flatnonzero(grid != 0)[:4]

    def reads(ko, mode, move, prey):
        tasks = prey.shape[0]
        args = (
            state.stones,
            state.turn,
            ko,
            mode,
            jnp.ones(tasks, jnp.int32),
            move,
            prey,
            jnp.ones(tasks, bool),
        )
        return _native_calls.ladder_reads(CONFIG.size, *args)

    run = jax.jit(reads)
    n = len(stones)
    prey = jnp.asarray(np.concatenate([stones, [-1, points, points + 40]]), jnp.int32)
    modes = jnp.asarray([1] * n + [1, 1, 1], jnp.int32)
    off = np.asarray(run(jnp.int32(-1), modes, jnp.full(n + 3, -1, jnp.int32), prey))
    assert not off[n:].any()
    same = np.asarray(run(jnp.int32(points + 5), modes, jnp.full(n + 3, -1, jnp.int32), prey))
    np.testing.assert_array_equal(same, off)
    bad_kind = np.asarray(
        run(jnp.int32(-1), jnp.full(n + 3, 7, jnp.int32), jnp.full(n + 3, -1, jnp.int32), prey)
    )
    assert not bad_kind.any()
    no_move = np.asarray(
        run(jnp.int32(-1), jnp.zeros(n + 3, jnp.int32), jnp.full(n + 3, points + 1, jnp.int32), prey)
    )
    assert not no_move.any()
    tables = jax.jit(lambda ko: _native_calls.katago_tables(CONFIG, state.replace(ko_point=ko)))
    np.testing.assert_array_equal(tables(jnp.int32(points + 3)), tables(jnp.int32(-1)))


# --------------------------------------------------------------------------- kept across processes

PERSISTENT = textwrap.dedent(
    """
    import sys
    import jax, jax.numpy as jnp, numpy as np
    import gojax
    from gojax import features

    events = []
    jax.monitoring.register_event_listener(lambda name, **kwargs: events.append(name))
    jax.config.update("jax_compilation_cache_dir", sys.argv[1])
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    config = gojax.GoConfig(size=7)
    state = gojax.init(config)
    for action in (24, 17, 23, 31, 25, 10):
        state = gojax.step(config, state, action)
    planes = jax.jit(
        lambda s: (features.pass_alive(config, s).stones, features.ladder_escape_plane(config, s))
    )
    print("custom call", "@gojax_ffi_benson_tables" in planes.lower(state).as_text())
    events.clear()
    print("result", np.asarray(planes(state)[0]).sum())
    print("hits", events.count("/jax/compilation_cache/cache_hits"))
    """
)


@pytest.mark.integration
def test_jax_persistent_cache_keeps_an_executable_with_the_custom_call(tmp_path):
    # JAX never writes an executable with a host callback to its cache; a custom call it does.
    cache = tmp_path / "jax-cache"
    first = _run(PERSISTENT, str(cache), env={"GOJAX_NATIVE": "1"})
    assert "hits 0" in first and any(cache.iterdir()), first
    second = _run(PERSISTENT, str(cache), env={"GOJAX_NATIVE": "1"})
    assert "hits 1" in second, second
    assert second.splitlines()[1] == first.splitlines()[1]  # the same result
    assert "custom call True" in first, first  # what was kept


STORED = textwrap.dedent(
    """
    import functools, logging, sys
    from pathlib import Path
    import jax, numpy as np
    import gojax
    from gojax import features
    from gojax._host import executables

    logging.basicConfig(level=logging.INFO, stream=sys.stdout)
    executables.use_directory(Path(sys.argv[1]))
    config = gojax.GoConfig(size=7)
    state = gojax.init(config)
    for action in (24, 17, 23, 31, 25, 10):
        state = gojax.step(config, state, action)
    function = functools.partial(features.pass_alive, config)
    compiled = executables.compile_ahead(config, function, function, (state,))
    alive = compiled(state)
    text = jax.jit(function).lower(state).as_text()  # traced after the load
    print("custom call", "@gojax_ffi_benson_tables" in text)
    print("result", np.asarray(alive.stones).sum(), np.asarray(alive.territory).sum())
    print("files", len(list(Path(sys.argv[1]).glob("*.pkl"))))
    """
)


@pytest.mark.integration
def test_the_executable_store_keeps_and_loads_an_executable_with_the_custom_call(tmp_path):
    # The GTP engine's store (gojax._host.executables): serialized after the first compile,
    # loaded by the next process, which registers the targets before it loads.
    store = tmp_path / "executables"
    first = _run(STORED, str(store), env={"GOJAX_NATIVE": "1"})
    assert "files 1" in first and "not stored" not in first, first
    assert "loaded a compiled function" not in first and "custom call True" in first, first
    second = _run(STORED, str(store), env={"GOJAX_NATIVE": "1"})
    assert "loaded a compiled function" in second and "cannot load" not in second, second
    result = [line for line in first.splitlines() if line.startswith("result")]
    assert result and result == [line for line in second.splitlines() if line.startswith("result")]
    # The XLA path is another key: GOJAX_NATIVE=0 compiles (and stores) its own.
    third = _run(STORED, str(store), env={"GOJAX_NATIVE": "0"})
    assert "custom call False" in third and "files 2" in third and "loaded a compiled" not in third, third


EXPORT = textwrap.dedent(
    """
    import os, sys
    import jax, jax.numpy as jnp, numpy as np
    import gojax
    from gojax import _native, features

    config = gojax.GoConfig(size=7)
    state = gojax.init(config)
    for action in (24, 17, 23, 31, 25, 10, 16, 30):
        state = gojax.step(config, state, action)
    history = features.history_init(config, state)
    batch = jax.tree.map(lambda x: jnp.stack([x] * 3), (state, history))

    def planes(state, history):  # the AlphaGo planes' custom call, and Benson's
        alphago = features.alphago_planes(config, state, history, dtype=jnp.bool_)
        return alphago, features.pass_alive(config, state).stones

    # The arguments as a flat list of arrays: jax.export serializes no gojax pytree.
    leaves, tree = jax.tree.flatten(batch)
    flat = jax.jit(lambda *leaves: jax.vmap(planes)(*jax.tree.unflatten(tree, leaves)))
    checks = [jax.export.DisabledSafetyCheck.custom_call(name) for name in _native.TARGETS]
    exported = jax.export.export(flat, platforms=["cpu"], disabled_checks=checks)(*leaves)
    print("custom call", "gojax_ffi_alphago_planes" in exported.mlir_module())
    with open(sys.argv[1], "wb") as f:
        f.write(exported.serialize())
    np.savez(sys.argv[2], *[np.asarray(x) for x in leaves])
    os.environ["GOJAX_NATIVE"] = "0"  # the reference: the XLA code
    reference = jax.jit(jax.vmap(planes))(*batch)
    np.savez(sys.argv[3], *[np.asarray(x) for x in jax.tree.leaves(reference)])
    """
)

RUN_EXPORTED = textwrap.dedent(
    """
    import sys
    import jax, numpy as np
    from gojax import _native

    exported = jax.export.deserialize(open(sys.argv[1], "rb").read())
    args = list(np.load(sys.argv[2]).values())
    reference = list(np.load(sys.argv[3]).values())
    if sys.argv[4] == "register":
        _native.register()
    try:
        out = exported.call(*args)
    except Exception as error:
        print("failed", type(error).__name__, str(error).splitlines()[0])
        raise SystemExit(0)
    for a, b in zip(jax.tree.leaves(out), reference, strict=True):
        np.testing.assert_array_equal(np.asarray(a), b)
    print("ran", len(reference), "outputs equal to the XLA code's")
    """
)


@pytest.mark.integration
def test_an_exported_function_runs_in_a_fresh_process_once_the_targets_are_registered(tmp_path):
    needs("flatbuffers")  # jax.export's serialization
    files = [str(tmp_path / name) for name in ("planes.bin", "args.npz", "reference.npz")]
    out = _run(EXPORT, *files, env={"GOJAX_NATIVE": "1"})
    assert "custom call True" in out, out
    ran = _run(RUN_EXPORTED, *files, "register")
    assert "ran 2 outputs equal to the XLA code's" in ran, ran
    # Without gojax's registration the custom calls have no handler in that process.
    unregistered = _run(RUN_EXPORTED, *files, "no")
    assert "failed" in unregistered and "gojax_ffi_" in unregistered, unregistered
