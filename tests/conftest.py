"""Helpers shared by the test files, and the CI rule that a skipped test is a failure.

Import the helpers as plain functions: ``from conftest import jitted, ref_chain``
(pytest puts ``tests/`` on ``sys.path``). Boards are ``int8[N, N]`` grids
(0 empty, 1 black, 2 white, row 0 at the top); a point is ``row * N + col``.

* Compiled rules: :func:`jitted` (one ``jax.jit`` per function and config).
* Batches of states: :func:`stack_states`, :func:`game_at`; :func:`without_history` for a simple-ko config.
* Plain-Python references, independent of gojax: :func:`points_of`, :func:`ref_neighbours`,
  :func:`ref_chain`, :func:`ref_chains`, :func:`ref_grid_neighbours`, :func:`ref_fill`,
  :func:`ref_area_difference`.
* Random material: :func:`random_boards` (stones at random, dead chains removed),
  :func:`random_game` (a random legal game played with the rules).
* Colours: :func:`swap_colours` of a diagram or a board.
* File modes: :func:`umask` (a block under another umask), :func:`plain_modes` (what ``open()`` gives).
* The GTP tree-search player, compiled once a session: the fixture :func:`tree_searcher_5x5`.
* Compilations: :func:`compilations` lists the functions JAX compiles inside a block.
* Scripts of ``experiments/`` as modules: :func:`experiment_module`.
* External data and programs: :data:`SGF_DATA`, :func:`gnugo_binary`,
  :func:`sgfmill_grid`, :func:`sgf_moves`, :func:`needs`.

**One JAX compilation cache per checkout.** The test processes (both xdist
workers, and every subprocess they start: the GTP engine, training, the
notebook) share JAX's persistent compilation cache in
``.pytest_cache/d/jax-compilation`` (:func:`pytest_configure`), so a function
compiled by one of them is loaded by the others, and by the next run (every
compile is kept: :data:`JAX_CACHE_MIN_COMPILE_SECONDS`). A test that needs JAX
without it drops ``JAX_COMPILATION_CACHE_DIR`` from its subprocess's
environment.

**No silent skips in CI.** When the environment variable ``CI`` is ``true``, a
test (or a test module) that skips is reported as a failure, unless its skip
reason matches an entry of :data:`EXPECTED_SKIPS`. So a CI run without GNU Go,
without the shared game records or without a package of the ``test`` extra
fails instead of passing with fewer tests. Without ``CI`` skips stay skips and
are listed at the end of the run (``-ra``).
"""

from __future__ import annotations

import contextlib
import functools
import importlib.util
import json
import os
import re
import sys
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import gojax

# --------------------------------------------------------------------------- CI: skips fail

CI = os.environ.get("CI") == "true"

EXPECTED_SKIPS: dict[str, str] = {
    # regular expression matched against the skip reason -> why CI may skip it
    r"needs an accelerator": "CI runs on CPU only; accelerator tests run where a GPU or TPU is present",
    r"soak run: opt-in": "the soak run (tests/test_soak.py) runs only with GOJAX_SOAK=1 or -m soak",
}
"""Skips that stay skips under ``CI=true``: ``{reason pattern: why it is expected}``."""


def _skip_reason(report: Any) -> str:
    longrepr = report.longrepr
    reason = str(longrepr[2]) if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)
    return reason.removeprefix("Skipped: ")


def expected_skip(reason: str) -> bool:
    """Whether a skip with this reason is allowed under ``CI=true`` (see :data:`EXPECTED_SKIPS`)."""
    return any(re.search(pattern, reason) for pattern in EXPECTED_SKIPS)


def _fail_unexpected_skip(report: Any) -> None:
    if not CI or not report.skipped or hasattr(report, "wasxfail"):
        return
    reason = _skip_reason(report)
    if expected_skip(reason):
        return
    report.outcome = "failed"
    report.longrepr = (
        f"skipped under CI=true, which allows only the skips in tests/conftest.py EXPECTED_SKIPS: {reason}"
    )


JAX_CACHE_MIN_COMPILE_SECONDS = "0"
"""Every compile is written to the shared cache, the eager operations' small ones too: most of a test's
time is many small compiles, and loading one costs less than compiling it (a second run of a tier takes
about 2.5 times less; writing them all costs the first run nothing measurable)."""


XLA_TEST_FLAGS = {
    "--xla_backend_optimization_level": "0",
    "--xla_cpu_use_fusion_emitters": "false",
}
"""How the suite compiles (most of its time is compiling): LLVM's optimisations off, and XLA:CPU's
elemental emitters instead of its MLIR fusion emitters; each makes a program compile faster and leaves
its results alone, to rounding where float operations fuse otherwise. A flag that ``XLA_FLAGS``
already names keeps its value."""


def _compile_for_tests() -> None:
    flags = os.environ.get("XLA_FLAGS", "")
    added = [f"{flag}={value}" for flag, value in XLA_TEST_FLAGS.items() if flag + "=" not in flags]
    # Set before JAX starts its backend; the subprocesses inherit it.
    os.environ["XLA_FLAGS"] = " ".join([flags, *added]).strip()


def pytest_configure(config):
    """Registers the tiers (:data:`TIERS`); compiles with :data:`XLA_TEST_FLAGS`; points every test
    process at one JAX compilation cache."""
    for tier, text in TIER_MARKERS.items():
        config.addinivalue_line("markers", f"{tier}: {text}")
    if hasattr(config.option, "loadscopereorder"):  # xdist's scheduler: files in the order collected
        config.option.loadscopereorder = False  # (heaviest first), not by their number of tests
    _compile_for_tests()
    cache = getattr(config, "cache", None)
    if cache is None or os.environ.get("JAX_COMPILATION_CACHE_DIR"):
        return
    directory = str(cache.mkdir("jax-compilation"))
    os.environ["JAX_COMPILATION_CACHE_DIR"] = directory  # the subprocesses
    os.environ.setdefault("JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS", JAX_CACHE_MIN_COMPILE_SECONDS)
    jax.config.update("jax_compilation_cache_dir", directory)  # this process
    jax.config.update(
        "jax_persistent_cache_min_compile_time_secs",
        float(os.environ["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"]),
    )


TIERS = {
    "integration": {
        "test_executables.py",
        "test_gtp.py",
        "test_gtp_handicap.py",
        "test_gtp_startup.py",
        "test_gtp_status.py",
        "test_match.py",
        "test_notebook.py",
        "test_packaging.py",
        "test_search_devices.py",
        "test_selfplay_cli.py",
        "test_soak.py",
        "test_stress.py",
        "test_supervised.py",
        "test_training.py",
        "test_training_distributed.py",
    },
    "reference": {
        "test_dataset.py",
        "test_native_ffi.py",
        "test_differential.py",
        "test_game_view.py",
        "test_native.py",
        "test_native_rules.py",
        "test_pgx_api.py",
        "test_playouts_native.py",
        "test_replay_games.py",
        "test_sgf.py",
    },
}
"""The suite's tiers by test file; every other file is ``unit``. ``reference``: the differential tests
against other engines, real game records and the native kernels' reference; ``integration``: processes,
notebooks, matches, training runs, stress runs (``pytest -m unit`` is the quick local loop)."""


HEAVIEST_FILES = (
    "test_training.py",
    "test_native.py",
    "test_mcts.py",
    "test_native_ffi.py",
    "test_native_rules.py",
    "test_playouts_native.py",
    "test_features_ladders.py",
    "test_training_distributed.py",
    "test_ladder.py",
    "test_pgx_api.py",
    "test_batching.py",
)
"""The test files that take the longest on one worker (a minute or more on 2 cores with an empty JAX
cache), run first, heaviest first, so that no worker is left with one of them at the end (xdist hands
out whole files: ``--dist loadfile``)."""


TIER_MARKERS = {
    "unit": "fast tests of one module or concept (the default tier; pytest -m unit)",
    "reference": "differential tests against other engines, real game records, the native kernels' reference",
    "integration": "processes, several devices, notebooks, matches, training and stress runs",
}


def pytest_collection_modifyitems(config, items):
    """Marks every test with its tier: the tier its own marker names (``@pytest.mark.integration`` on
    one test of a ``unit`` file), else its file's (:data:`TIERS`); then puts the files of
    :data:`HEAVIEST_FILES` first, heaviest first."""
    tier_of = {name: tier for tier, names in TIERS.items() for name in names}
    for item in items:
        own = [tier for tier in TIER_MARKERS if item.get_closest_marker(tier)]
        if len(own) > 1:
            raise pytest.UsageError(f"{item.nodeid} is marked with two tiers: {', '.join(own)}")
        if not own:
            item.add_marker(getattr(pytest.mark, tier_of.get(item.path.name, "unit")))
    rank = {name: i for i, name in enumerate(HEAVIEST_FILES)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest in order


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    _fail_unexpected_skip(outcome.get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector):
    outcome = yield
    _fail_unexpected_skip(outcome.get_result())


# --------------------------------------------------------------------------- external data and programs

TEST_EXTRA = "a package of the test extra is missing (pip install -e '.[test]')"
"""The skip reason for a missing test dependency: ``pytest.importorskip(name, reason=TEST_EXTRA)``."""

SGF_DATA = Path(os.environ.get("GOJAX_SGF_DATA", Path(__file__).resolve().parents[2] / "shared/data/sgf"))
"""The shared real game records: ``../shared/data/sgf`` beside the checkout, or ``$GOJAX_SGF_DATA``."""

LETTERS = "abcdefghijklmnopqrstuvwxy"
"""SGF coordinate letters (``aa`` is the top-left point)."""


def experiment_module(name: str) -> Any:
    """The script ``experiments/NAME.py`` loaded as a module (``experiments/`` on ``sys.path`` meanwhile,
    since the scripts import ``provenance`` from beside them); registered in ``sys.modules`` as ``name``."""
    folder = Path(__file__).resolve().parents[1] / "experiments"
    sys.path.insert(0, str(folder))
    try:
        spec = importlib.util.spec_from_file_location(name, folder / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(folder))
    return module


def needs(module: str) -> Any:
    """``pytest.importorskip(module, reason=TEST_EXTRA)``, for use inside a test or fixture."""
    return pytest.importorskip(module, reason=f"{module}: {TEST_EXTRA}")


@pytest.fixture(scope="session")
def tree_searcher_5x5() -> Any:
    """One tree-search player (``gojax.gtp._mcts.TreeSearcher``, 0.1 s a move) for 5x5 engines, compiled once.

    Give it to an engine with ``engine.searcher = tree_searcher_5x5``; a test
    that sets ``engine.time_source`` sets the searcher's clock: restore
    ``time.monotonic`` after.
    """
    from gojax.gtp import PlayerSpec
    from gojax.gtp._mcts import TreeSearcher

    return TreeSearcher(PlayerSpec("mcts", seconds_per_move=0.1, seed=1))


def gnugo_binary() -> str | None:
    """The GNU Go binary the library finds (``gojax.arena.find_gnugo``), or ``None``."""
    from gojax.arena import find_gnugo  # gojax.arena imports gtp, players, search: only tests that need it

    return find_gnugo()


def gnugo_client(level: int, timeout: float) -> Iterable[Any]:
    """Yields a ``gojax.arena.GTPClient`` on GNU Go at ``level`` (seed 1); skips when GNU Go is missing.

    For a module-scoped fixture: ``yield from gnugo_client(level=1, timeout=60)``.
    """
    if gnugo_binary() is None:
        pytest.skip("GNU Go is not installed")
    from gojax import arena

    with arena.GTPClient(arena.gnugo_command(level=level, seed=1), timeout=timeout) as client:
        yield client


def sgfmill_grid(board: Any) -> np.ndarray:
    """An ``sgfmill.boards.Board`` (row 0 at the bottom) as ``int8[N, N]`` (row 0 at the top)."""
    size = board.side
    stone = {None: gojax.EMPTY, "b": gojax.BLACK, "w": gojax.WHITE}
    return np.array(
        [[stone[board.get(size - 1 - row, col)] for col in range(size)] for row in range(size)], np.int8
    )


def sgf_moves(text: str) -> list[tuple[str, tuple[int, int] | None]]:
    """``[(colour 'b'/'w', (row, col) or None for a pass)]`` read straight from SGF text (no parser)."""
    return [
        (colour.lower(), None if value == "" else (LETTERS.index(value[1]), LETTERS.index(value[0])))
        for colour, value in re.findall(r";([BW])\[([a-z]{0,2})\]", text)
    ]


# --------------------------------------------------------------------------- compiled rules, batches


@functools.cache
def jitted(fn: str | Callable, config: gojax.GoConfig, *, batched: bool = False, **options: Any) -> Callable:
    """``jax.jit(partial(fn, config, **options))``, compiled once per (fn, config, options).

    ``fn`` is a function taking the config first, or the name of one in ``gojax``
    (``"step"``, ``"legal_action_mask"``, ``"features.history_push"``).
    ``batched=True`` vmaps it over a leading ``[B]`` axis of every argument.
    """
    if isinstance(fn, str):
        target: Any = gojax
        for part in fn.split("."):
            target = getattr(target, part)
        fn = target
    assert callable(fn)
    bound = functools.partial(fn, config, **options)
    return jax.jit(jax.vmap(bound) if batched else bound)


def stack_states(states: Iterable[Any]) -> Any:
    """One pytree with a leading ``[B]`` axis from ``B`` states (or any equal pytrees)."""
    return jax.tree.map(lambda *x: jnp.stack(x), *states)


def game_at(batch: Any, index: int) -> Any:
    """Game ``index`` of a batched pytree (the inverse of :func:`stack_states`)."""
    return jax.tree.map(lambda x: x[index], batch)


def assert_trees_equal(a: Any, b: Any, message: str = "") -> None:
    """Two pytrees have the same structure and equal leaves (an ``AssertionError`` naming ``message``)."""
    flat_a, tree_a = jax.tree.flatten(a)
    flat_b, tree_b = jax.tree.flatten(b)
    assert tree_a == tree_b, message
    for x, y in zip(flat_a, flat_b, strict=True):
        np.testing.assert_array_equal(x, y, err_msg=message)


def without_history(state: gojax.GoState) -> gojax.GoState:
    """``state`` (any leading axes) with an empty history, as a simple-ko config's functions take it:
    ``legal_action_mask(simple, without_history(state))`` is what the simple ko rule allows."""
    lead = state.turn.shape
    empty = jnp.zeros((*lead, 0), jnp.int16)
    return state.replace(history=jnp.zeros((*lead, 0, 2), jnp.uint32), history_head=empty, history_prev=empty)


@contextlib.contextmanager
def umask(mask: int) -> Iterator[None]:
    """Runs the block under the process umask ``mask`` (restored after)."""
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def plain_modes(folder: Path) -> tuple[int, int]:
    """``(file, folder)`` permission bits that a plain ``open(path, "w")`` and ``os.mkdir`` give in ``folder``
    under the current umask (made and removed here, so default ACLs count too)."""
    file, sub = folder / ".plain-open-probe", folder / ".plain-mkdir-probe"
    with open(file, "w"):
        pass
    sub.mkdir()
    modes = file.stat().st_mode & 0o7777, sub.stat().st_mode & 0o7777
    file.unlink()
    sub.rmdir()
    return modes


# --------------------------------------------------------------------------- plain-Python references


def points_of(plane: np.ndarray) -> set[tuple[int, int]]:
    """The ``(row, col)`` points where a ``[N, N]`` plane is non-zero."""
    return {(int(r), int(c)) for r, c in zip(*np.nonzero(np.asarray(plane)), strict=True)}


def ref_neighbours(point: int, size: int) -> list[int]:
    """On-board orthogonal neighbours of ``point`` (up, down, left, right)."""
    r, c = divmod(point, size)
    return [
        rr * size + cc
        for rr, cc in ((r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1))
        if 0 <= rr < size and 0 <= cc < size
    ]


def ref_chain(grid: np.ndarray, point: int) -> tuple[set[int], set[int]]:
    """``(stones, liberties)`` of the chain through the stone at ``point``, as sets of points."""
    size = grid.shape[0]
    flat = grid.reshape(-1)
    colour = flat[point]
    stones, libs, stack = {point}, set(), [point]
    while stack:
        for q in ref_neighbours(stack.pop(), size):
            if flat[q] == gojax.EMPTY:
                libs.add(q)
            elif flat[q] == colour and q not in stones:
                stones.add(q)
                stack.append(q)
    return stones, libs


def ref_chains(grid: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per point: chain label (its lowest point, -1 on empty), chain size, chain liberties; ``[N, N]``."""
    size = grid.shape[0]
    labels = np.full((size, size), -1)
    sizes = np.zeros((size, size), int)
    libs = np.zeros((size, size), int)
    for p in np.flatnonzero(grid):
        stones, liberties = ref_chain(grid, int(p))
        labels.flat[p] = min(stones)
        sizes.flat[p] = len(stones)
        libs.flat[p] = len(liberties)
    return labels, sizes, libs


def ref_grid_neighbours(grid: np.ndarray) -> np.ndarray:
    """Points next to a point of a bool ``[..., N, N]`` grid (off-board dropped), bool ``[..., N, N]``."""
    padded = np.pad(grid, [(0, 0)] * (grid.ndim - 2) + [(1, 1), (1, 1)])
    return padded[..., :-2, 1:-1] | padded[..., 2:, 1:-1] | padded[..., 1:-1, :-2] | padded[..., 1:-1, 2:]


def ref_fill(seed: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Points of ``mask`` connected to ``seed & mask``: bool ``[..., N, N]``, by repeated dilation."""
    region = seed & mask
    while True:
        grown = (region | ref_grid_neighbours(region)) & mask
        if np.array_equal(grown, region):
            return region
        region = grown


def ref_owners(grid: np.ndarray) -> np.ndarray:
    """Tromp-Taylor owner of every point, ``int[P]``: +1 black, -1 white, 0 no one.

    A stone is its colour's; an empty region reaching stones of one colour only is that colour's.
    """
    size = grid.shape[0]
    flat = grid.reshape(-1)
    owner = np.where(flat == gojax.BLACK, 1, np.where(flat == gojax.WHITE, -1, 0))
    seen = np.zeros(flat.shape, bool)
    for start in np.flatnonzero(flat == gojax.EMPTY):
        if seen[start]:
            continue
        seen[start] = True
        stack, region, reached = [int(start)], [], set()
        while stack:
            point = stack.pop()
            region.append(point)
            for other in ref_neighbours(point, size):
                if flat[other] == gojax.EMPTY:
                    if not seen[other]:
                        seen[other] = True
                        stack.append(other)
                else:
                    reached.add(int(flat[other]))
        if reached == {gojax.BLACK}:
            owner[region] = 1
        elif reached == {gojax.WHITE}:
            owner[region] = -1
    return owner


def ref_area_difference(grid: np.ndarray) -> int:
    """Tromp-Taylor: black area minus white area (stones, and empty regions reaching one colour only)."""
    return int(np.sum(ref_owners(grid)))


# --------------------------------------------------------------------------- random material


def random_boards(seed: int, count: int, size: int, density: tuple[float, float] = (0.25, 0.85)) -> list:
    """``count`` legal ``int8[N, N]`` boards: stones at random, then every chain without a liberty
    removed. The stone density rises from ``density[0]`` (first board) to ``density[1]`` (last)."""
    rng = np.random.default_rng(seed)
    low, high = density
    boards = []
    for i in range(count):
        dense = low + (high - low) * i / max(count - 1, 1)
        grid = rng.choice(3, size=(size, size), p=[1 - dense, dense / 2, dense / 2]).astype(np.int8)
        for p in range(size * size):
            if grid.flat[p] and not ref_chain(grid, p)[1]:
                grid.flat[list(ref_chain(grid, p)[0])] = 0
        boards.append(grid)
    return boards


def random_game(
    config: gojax.GoConfig,
    rng: np.random.Generator,
    moves: int | None = None,
    *,
    fill_own_eyes: bool = True,
) -> tuple[list[gojax.GoState], list[int]]:
    """A random legal game: ``(states, actions)``, ``states[0]`` the empty board, ``states[i + 1]``
    after ``actions[i]``.

    Each move is drawn uniformly (``rng.choice``) from the legal points; the
    player passes only when no point is left (with ``fill_own_eyes=False`` a
    point whose neighbours are all the mover's stones does not count). The game
    runs ``moves`` moves, or (``moves=None``) until it is over.
    """
    step, legal, board = jitted("step", config), jitted("legal_action_mask", config), jitted("board", config)
    n = config.size
    states, actions = [gojax.init(config)], []
    while (moves is None and not bool(states[-1].done)) or (moves is not None and len(actions) < moves):
        state = states[-1]
        points = np.array(legal(state))[: n * n]
        if not fill_own_eyes:
            flat, mover = np.asarray(board(state)).reshape(-1), int(gojax.to_play(config, state))
            for p in np.flatnonzero(points):
                if all(flat[q] == mover for q in ref_neighbours(int(p), n)):
                    points[p] = False
        choices = np.flatnonzero(points)
        action = int(rng.choice(choices)) if len(choices) else n * n
        actions.append(action)
        states.append(step(state, action))
    return states, actions


def sgf_positions(count: int, seed: int = 0, size: int = 19) -> list[tuple[np.ndarray, int]]:
    """``count`` ``(int8[N, N] grid, mover)`` pairs from the shared game records of that size,
    up to 8 a game at random moves, so they spread over whole games."""
    from gojax._core.bitboard import board_np

    manifest = SGF_DATA / "manifest.json"
    if not manifest.is_file():
        pytest.skip(f"game records not found at {SGF_DATA}")
    files = sorted(e["file"] for e in json.loads(manifest.read_text()) if e["size"] == size)
    rng = np.random.default_rng(seed)
    positions = []
    for name in rng.permutation(files):
        record = gojax.sgf.read_sgf(SGF_DATA / name, ko_rule="simple")
        states = record.states_along()
        stones = np.asarray(states.stones)
        turns = np.asarray(states.turn)
        for t in rng.choice(len(turns), size=min(8, len(turns)), replace=False):
            positions.append((board_np(stones[t], size), 1 + int(turns[t])))
            if len(positions) == count:
                return positions
    return positions


def whole_game_batch(config: gojax.GoConfig, games: int, seed: int) -> Any:
    """A ``GoEnv`` state (no observation) of ``games`` random games at plies spread over whole
    games: ``2 N^2`` uniform legal moves with auto-reset, game ``i`` restarted at a random
    move (so the batch holds openings, middle games, crowded late boards and kos)."""
    from gojax.env import GoEnv, auto_reset
    from gojax.players import sample_uniform

    env = GoEnv(config, observation=None)
    step = jax.vmap(auto_reset(env.step, env.init))
    moves = 2 * config.num_points
    key = jax.random.PRNGKey(seed)
    restart = jax.random.randint(key, (games,), 0, moves)

    def body(state, inputs):
        t, k = inputs
        move_key, fresh_key = jax.random.split(k)
        state = step(state, sample_uniform(move_key, state.legal_action_mask))
        fresh = jax.vmap(env.init)(jax.random.split(fresh_key, games))
        again = restart == t

        def pick(new, old):
            return jnp.where(again.reshape((-1,) + (1,) * (old.ndim - 1)), new, old)

        return jax.tree.map(pick, fresh, state), None

    @jax.jit
    def run(key):
        state = jax.vmap(env.init)(jax.random.split(key, games))
        return jax.lax.scan(body, state, (jnp.arange(moves), jax.random.split(key, moves)))[0]

    return run(jax.random.fold_in(key, 1))


_LOWERING = "/jax/core/compile/jaxpr_to_mlir_module_duration"


@contextlib.contextmanager
def compilations() -> Iterator[list[str]]:
    """The names of the functions JAX compiles anew inside the block (a list, filled as they come).

    Counts JAX's lowering events (``jax.monitoring``): every new compiled
    function - a ``jax.jit`` cache miss, an ahead-of-time ``lower``, an eager
    operation of a new shape - lowers once, whether or not the persistent
    compilation cache then holds its executable. A call served by a compiled
    function is not counted.
    """
    lowered: list[str] = []

    def listen(event: str, seconds: float, **kwargs: Any) -> None:
        if event == _LOWERING:
            lowered.append(str(kwargs.get("fun_name")))

    jax.monitoring.register_event_duration_secs_listener(listen)
    try:
        yield lowered
    finally:
        jax.monitoring.unregister_event_duration_listener(listen)


@contextlib.contextmanager
def native_kernels(enabled: bool) -> Iterator[None]:
    """The rules and the feature planes traced on the native CPU kernels or on XLA
    (``GOJAX_NATIVE``) inside the block; the functions cached by :func:`jitted` are dropped on
    the way in and out (each was traced under one setting)."""
    before = os.environ.get("GOJAX_NATIVE")
    os.environ["GOJAX_NATIVE"] = "1" if enabled else "0"
    _drop_compiled()
    try:
        yield
    finally:
        if before is None:
            del os.environ["GOJAX_NATIVE"]
        else:
            os.environ["GOJAX_NATIVE"] = before
        _drop_compiled()


def _drop_compiled() -> None:
    jitted.cache_clear()  # gojax._host.compiled keys its functions by the setting itself


@pytest.fixture
def xla_path() -> Iterator[None]:
    """The feature planes on their XLA code (the reference), native kernels built or not; the kernels
    are compared with it in ``tests/test_native.py``."""
    with native_kernels(False):
        yield


@pytest.fixture(params=[pytest.param("native", marks=pytest.mark.reference), "xla"])
def kernel_path(request: Any) -> Iterator[str]:
    """Runs a test twice: the feature planes on the native CPU kernels, then on XLA. The XLA run is in
    the test file's tier; the native one in ``reference`` (the kernels against their XLA reference)."""
    if request.param == "native" and not native_built():
        pytest.skip("the native kernels are not built")
    with native_kernels(request.param == "native"):
        yield request.param


@pytest.fixture(params=["native", "xla"])
def rules_path(request: Any) -> Iterator[str]:
    """Runs a rules test twice: ``step`` and the legal mask in C (the CPU's default), then in XLA
    (the reference, and what accelerators run); ``tests/test_native_rules.py`` compares the two
    move by move."""
    if request.param == "native" and not native_built():
        pytest.skip("the native kernels are not built")
    with native_kernels(request.param == "native"):
        yield request.param


def native_built() -> bool:
    """Whether gojax's native kernels are built (required under ``CI=true``: see test_native.py)."""
    from gojax import _native

    return _native.library_path() is not None


# --------------------------------------------------------------------------- colours


def swap_colours(position: Any) -> Any:
    """Black and white exchanged: in a diagram (``X`` <-> ``O``) or an ``int8[..., N, N]`` board."""
    if isinstance(position, str):
        return position.replace("X", "_").replace("O", "X").replace("_", "O")
    board = np.asarray(position)
    return np.where(
        board == gojax.BLACK, gojax.WHITE, np.where(board == gojax.WHITE, gojax.BLACK, board)
    ).astype(board.dtype)
