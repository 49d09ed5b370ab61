"""The players behind ``genmove`` and the time-aware search that runs them (host side).

A player is a gojax player ``player(config, state, key) -> int32[] action``
(see :mod:`gojax.players`). The engine knows it as a ladder of **levels**,
strongest first: the configured search (UCT with ``--simulations``, pure
Monte-Carlo with ``--playouts``, the AlphaZero network's search), the same
search a quarter the size, and the heuristic playout policy as the fast
fallback. An AlphaZero player with a time budget (``seconds_per_move``) adds
the searches of twice, four times ... the simulations above it, up to
:data:`MOST_SIMULATIONS`, so it spends the time it is given. Each level is
``jax.jit``-ed once per rules config (the engine is a host tool; the library
never jits) and compiled ahead of time, so compile time and run time are
measured apart.

Without a time limit ``genmove`` runs the strongest level. With one (the
clock's budget, else the searcher's ``seconds_per_move``),
:class:`Searcher` picks the strongest level whose measured (or scaled)
run time (its first run time times its family's recent load) fits 80 % of the
move's budget, runs it in a worker thread and waits at most the budget. First,
when the family's smallest level takes at most 5 % of the budget, that one
runs: its move is played should the chosen search be late; without it the
move is the caller's instant fallback (a random legal point that fills no own
eye). So a move never takes longer than the budget plus a few milliseconds; a
late search still running is waited for (up to half the budget) before the
next move searches, so that it does not slow that one down too. Levels that would fit but are not compiled
yet are compiled (and timed once) in the background for later moves;
:meth:`Searcher.warm_up` does it up front (the engine calls it on
``time_settings``, before the clocks run; a searcher with
``seconds_per_move`` does it on its first move of a board size, since its
budget is the engine's own, not a controller's clock).

Run times and the deadline are read from the searcher's time source
(``Searcher(..., now=time.monotonic)``): a test can pass a clock it advances
by hand, and the level chosen and the cut-off follow that clock alone.
"""

from __future__ import annotations

import concurrent.futures
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from gojax import players
from gojax._core.types import GoConfig, GoState
from gojax._host.compiled import rules_config
from gojax.features import observation
from gojax.gtp._cache import compile_player
from gojax.gtp._spec import AZ_ALGORITHM, Level, PlayerSpec

__all__ = ["MOST_SIMULATIONS", "Searcher", "load_network", "player_levels", "safe_move"]

MOST_SIMULATIONS = 4096
"""The largest search of an AlphaZero player's time ladder (when its ``simulations`` are fewer)."""
SAFE = -1  # the level index of :func:`safe_move` in a :class:`Searcher`
_FIT = 0.8  # a level is chosen when its estimate is at most this fraction of the budget
_POLL = 0.05  # seconds between two looks at the time source while a search runs
_QUICK = 0.05  # a smaller level runs first as the late search's fallback when it takes at most this share

log = logging.getLogger("gojax.gtp")
_SHARED: dict = {}  # (config, player) -> compiled player, for every Searcher of the process
_SHARED_LOCK = threading.Lock()


def safe_move(config: GoConfig, state: GoState, key: jax.Array) -> jax.Array:
    """``int32[]``: a capture, an atari escape or a move that is no self-atari (own eyes excluded), else pass.

    The first three tiers of the heuristic playout policy
    (:func:`gojax.players.heuristic_tiers`), at random within the first
    non-empty tier: the engine plays it instead of a search's pass while the
    game is still open (under area scoring such a move costs nothing, and it
    never fills an own eye or puts the mover's stones in atari).
    """
    tiers = players.heuristic_tiers(config, state)[:3]
    nonempty = jnp.any(tiers, axis=1)
    choice = players.sample_uniform(key, tiers[jnp.argmax(nonempty)])
    return jnp.where(jnp.any(nonempty), choice, config.pass_action).astype(jnp.int32)


def _constant(player):
    return lambda config: player


def load_network(checkpoint: str) -> tuple[Any, Any, Any, int | None]:
    """``(graphdef, variables, observe, board_size)`` of an AlphaZero checkpoint (flax: a lazy import).

    Raises:
      ValueError: the checkpoint's observation is not registered or reads the board history.
    """
    from gojax import alphazero as az

    net, network_config, metadata = az.load_checkpoint(checkpoint)
    graphdef, variables = az.split(net)
    metadata = dict(metadata or {})
    name = str(metadata.get("observe_name") or "basic")
    try:
        spec = observation(name)
    except ValueError as error:
        raise ValueError(f"checkpoint {checkpoint}: its observation is not registered: {error}") from None
    if spec.needs_history:
        raise ValueError(
            f"checkpoint {checkpoint}: observation {name!r} reads the board history; "
            "a search needs one of the position alone"
        )
    size = metadata.get("board_size")
    log.info("loaded %s: %s, board %s, observation %s", checkpoint, network_config, size, name)
    return graphdef, variables, spec.observe, (int(size) if size is not None else None)


def _load_alphazero(checkpoint: str, search: Any, playout_weight: float = 0.0, symmetries: int = 1):
    """``(make(num_simulations) -> player, board_size, algorithm)`` from an AlphaZero checkpoint.

    ``search`` is the :class:`gojax.alphazero.SearchSettings` of every level
    (``None``: ``SearchSettings(algorithm=AZ_ALGORITHM).for_play()``); each level replaces its
    ``num_simulations``. ``playout_weight`` mixes heavy playouts into the
    leaves' values and ``symmetries`` averages the network over the board's
    symmetries (:class:`gojax.alphazero.AlphaZeroPlayer`).
    """
    from gojax import alphazero as az

    if search is None:
        search = az.SearchSettings(algorithm=AZ_ALGORITHM).for_play()
    if not isinstance(search, az.SearchSettings):
        raise TypeError(f"PlayerSpec.search must be a gojax.alphazero.SearchSettings, got {search!r}")
    graphdef, variables, observe, size = load_network(checkpoint)

    def make(num_simulations: int):
        settings = search.replace(num_simulations=num_simulations)
        player = az.AlphaZeroPlayer(
            graphdef,
            variables,
            settings,
            observe=observe,
            playout_weight=playout_weight,
            symmetries=symmetries,
        )
        return lambda config: player

    return make, size, search.algorithm


def player_levels(spec: PlayerSpec) -> tuple[list[Level], int | None]:
    """The level ladder of a player, strongest first, and the one board size it needs (or ``None``).

    Args:
      spec: the player (:class:`~gojax.gtp.PlayerSpec`).

    Raises:
      ValueError, TypeError: for a bad search, or a checkpoint that cannot be read.
    """
    policies: dict[str, players.Player] = {
        "random": players.random_playout_policy,
        "heuristic": players.heuristic_playout_policy,
    }
    kind, rollout = spec.kind, spec.rollout
    policy = policies[rollout]
    fast = Level("heuristic playout policy", _constant(players.heuristic_playout_policy), "heuristic")

    def smaller(n: int, least: int) -> list[int]:
        quarter = n // 4
        return [n, quarter] if quarter >= least else [n]

    size = None
    if kind == "random":
        levels = [Level("random (no own-eye filling)", _constant(players.random_playout_policy), "random")]
    elif kind == "heuristic":
        levels = [fast]
    elif kind == "mc":
        levels = [
            Level(
                f"pure Monte-Carlo, {n} playouts/move", _constant(players.PureMonteCarlo(n, policy)), "mc", n
            )
            for n in smaller(spec.playouts, 1)
        ] + [fast]
    elif kind == "uct":
        levels = [
            Level(
                f"UCT {n} simulations, {rollout} playouts",
                _constant(players.UCTPlayer(n, rollout_policy=policy)),
                "uct",
                n,
            )
            for n in smaller(spec.simulations, 8)
        ] + [fast]
    elif kind == "policy":
        assert spec.checkpoint is not None  # PlayerSpec checks it
        from gojax import alphazero as az

        graphdef, variables, observe, size = load_network(spec.checkpoint)
        symmetries = spec.network_symmetries
        player = az.PolicyPlayer(graphdef, variables, observe=observe, symmetries=symmetries)
        averaged = f", mean over {symmetries} symmetries" if symmetries > 1 else ""
        levels = [
            Level(f"AlphaZero network's policy, no search{averaged}", _constant(player), "policy"),
            fast,
        ]
    else:
        assert spec.checkpoint is not None  # PlayerSpec checks it
        symmetries = spec.network_symmetries
        make, size, algorithm = _load_alphazero(spec.checkpoint, spec.search, spec.playout_weight, symmetries)
        larger = _doublings(spec.simulations) if spec.seconds_per_move is not None else []
        mixed = f", playout weight {spec.playout_weight:g}" if spec.playout_weight else ""
        mixed += f", mean over {symmetries} symmetries" if symmetries > 1 else ""
        levels = [
            Level(f"AlphaZero {algorithm} {n} simulations{mixed}", make(n), "az", n)
            for n in larger + smaller(spec.simulations, 2)
        ] + [fast]
    return levels, size


def _doublings(simulations: int) -> list[int]:
    """``[..., 4 * simulations, 2 * simulations]``, up to :data:`MOST_SIMULATIONS`, largest first."""
    larger: list[int] = []
    n = 2 * simulations
    while n <= MOST_SIMULATIONS:
        larger.insert(0, n)
        n *= 2
    return larger


def _in_thread(function, *args) -> concurrent.futures.Future:
    """Runs ``function(*args)`` in a daemon thread (a late search must not keep the process alive)."""
    future: concurrent.futures.Future = concurrent.futures.Future()

    def target():
        if not future.set_running_or_notify_cancel():
            return
        try:
            future.set_result(function(*args))
        except BaseException as error:
            future.set_exception(error)

    threading.Thread(target=target, daemon=True, name="gojax-gtp-search").start()
    return future


class Searcher:
    """Runs a level ladder under a time budget (see the module docstring).

    Args:
      levels: the ladder, strongest first (:func:`player_levels`).
      seed: seeds the PRNG keys of the searches.
      now: the time source, seconds as a float (``time.monotonic``): it times
        the levels and sets the deadline of a timed search.
      seconds_per_move: the budget of a move without a clock (``None``: no
        limit, the strongest level runs).
    """

    def __init__(
        self,
        levels: list[Level],
        seed: int = 0,
        now: Callable[[], float] = time.monotonic,
        seconds_per_move: float | None = None,
    ):
        if not levels:
            raise ValueError("a player needs at least one level")
        self.levels = list(levels)
        self.now = now
        self.seconds_per_move = seconds_per_move
        self._warmed: set[GoConfig] = set()
        self._late: concurrent.futures.Future | None = None  # a search that was late and may still run
        self.safe = Level("safe move (no early pass)", lambda config: safe_move, "safe")
        self._rng = np.random.default_rng(seed)
        self._compiled: dict[tuple[GoConfig, int], Callable] = {}
        self._first_time: dict[tuple[int, int], float] = {}  # (size, level) -> its first run's seconds
        self._load: dict[tuple[int, str], float] = {}  # (size, family) -> recent run time / first run time
        self._pending: dict[tuple[GoConfig, int], concurrent.futures.Future] = {}
        self._jobs: list[concurrent.futures.Future] = []
        self._lock = threading.RLock()  # _start is called with it held (_prepare_later)

    # -- compiling and timing ----------------------------------------------------------------------

    def new_key(self) -> np.ndarray:
        """A fresh raw PRNG key (``uint32[2]``)."""
        return self._rng.integers(0, 2**32, size=2, dtype=np.uint32)

    def compiled(self, config: GoConfig, index: int) -> bool:
        """Whether level ``index`` is compiled for ``config``."""
        with self._lock:
            return (rules_config(config), index) in self._compiled

    def function(self, config: GoConfig, index: int, state: GoState) -> Callable:
        """``fn(state, key, komi) -> action`` of a level, compiled (ahead of time) on first use.

        Komi is data (a ``float32[]`` argument, see :class:`gojax.GoConfig`):
        one compiled function serves every komi of a board size and rules,
        so a controller's ``komi`` never recompiles. Compiled players are
        shared by every :class:`Searcher` of the process (keyed by the
        komi-free config and the player, when the player is hashable). A
        network's weights are arguments too (:meth:`_compiled_with_weights`):
        another network of the same shape and settings plays on the same
        compiled function.
        """
        base = rules_config(config)
        with self._lock:
            function = self._compiled.get((base, index))
        if function is not None:
            return function
        level = self.safe if index == SAFE else self.levels[index]
        player = level.make(base)

        def with_komi(state: GoState, key: jax.Array, komi: Any) -> jax.Array:  # komi: float32[]
            return player(base.with_komi(komi), state, key)

        if level.jit:
            function = self._compiled_level(base, level, player, with_komi, state)
        else:
            function = lambda state, key, komi: player(  # noqa: E731
                base.with_komi(float(komi)), state, key
            )
        with self._lock:
            self._compiled[(base, index)] = function
        return function

    def _compiled_level(
        self, base: GoConfig, level: Level, player: Callable, function: Callable, state: GoState
    ) -> Callable:
        """``function`` compiled ahead of time, or the one another searcher of the process compiled."""
        leaves, treedef = jax.tree.flatten(player)
        if leaves and all(isinstance(leaf, jax.Array | np.ndarray) for leaf in leaves):
            return self._compiled_with_weights(base, level, leaves, treedef, state)
        try:
            shared_key = (base, player)
            hash(shared_key)
        except TypeError:
            shared_key = None
        with _SHARED_LOCK:
            compiled_function = _SHARED.get(shared_key) if shared_key is not None else None
        if compiled_function is None:
            start = time.perf_counter()
            compiled_function = compile_player(base, player, function, (state, self.new_key(), np.float32(0)))
            seconds = time.perf_counter() - start
            log.info("compiled %s for %dx%d in %.1f s", level.label, base.size, base.size, seconds)
            if shared_key is not None:
                with _SHARED_LOCK:
                    _SHARED[shared_key] = compiled_function
        return compiled_function

    def _compiled_with_weights(
        self, base: GoConfig, level: Level, leaves: list, treedef: Any, state: GoState
    ) -> Callable:
        """A player with arrays (a network's weights: a pytree's leaves), compiled with them as arguments.

        The compiled function is keyed by the player's structure (``treedef``:
        the network's graph and the search settings), so another network of
        the same shape - the next checkpoint of a training run - reuses it
        instead of compiling again with its weights as constants.
        """

        def with_weights(weights: list, state: GoState, key: jax.Array, komi: Any) -> jax.Array:
            return jax.tree.unflatten(treedef, weights)(base.with_komi(komi), state, key)

        shared_key = (base, treedef)
        with _SHARED_LOCK:
            compiled_function = _SHARED.get(shared_key)
        if compiled_function is None:
            start = time.perf_counter()
            example = (leaves, state, self.new_key(), np.float32(0))
            compiled_function = compile_player(base, treedef, with_weights, example)
            seconds = time.perf_counter() - start
            log.info("compiled %s for %dx%d in %.1f s", level.label, base.size, base.size, seconds)
            with _SHARED_LOCK:
                _SHARED[shared_key] = compiled_function
        return lambda state, key, komi: compiled_function(leaves, state, key, komi)

    def run(self, config: GoConfig, index: int, state: GoState, key=None) -> tuple[int, float]:
        """``(action, seconds)``: level ``index`` on ``state`` (compiled first if needed; not timed)."""
        function = self.function(config, index, state)
        key = self.new_key() if key is None else key
        start = self.now()
        action = int(np.asarray(function(state, key, np.float32(config.komi))))
        seconds = self.now() - start
        with self._lock:
            first = self._first_time.setdefault((config.size, index), seconds)
            if index != SAFE and first > 0:
                family = (config.size, self.levels[index].family)
                load = seconds / first
                old = self._load.get(family)
                self._load[family] = load if old is None else 0.5 * old + 0.5 * load
        return action, seconds

    def estimate(self, config: GoConfig, index: int) -> float | None:
        """Expected run time of a level, ``None`` if unknown.

        A level's first run time (or, never run, a family member's scaled by
        ``cost``) times its family's load: the recent run times of the family
        over their first ones. So a level that once ran slowly (a busy
        machine) is tried again when its family runs fast, and the reverse.
        """
        level = self.levels[index]
        with self._lock:
            first = dict(self._first_time)
            load = self._load.get((config.size, level.family), 1.0)
        seconds = first.get((config.size, index))
        if seconds is not None:
            return seconds * load
        for (size, j), other in first.items():
            if j != SAFE and size == config.size and self.levels[j].family == level.family:
                return other * level.cost / self.levels[j].cost * load
        return None

    def warm_up(self, config: GoConfig, state: GoState, max_seconds: float | None = None) -> None:
        """Compiles :func:`safe_move`, then compiles and times the levels, fastest first.

        Stops after a level slower than ``max_seconds``.
        """
        self.function(config, SAFE, state)
        for index in reversed(range(len(self.levels))):
            _, seconds = self.run(config, index, state)
            log.info("warm-up: %s runs in %.3f s", self.levels[index].label, seconds)
            if max_seconds is not None and seconds > max_seconds:
                break
        self._warmed.add(rules_config(config))

    def _prepare_later(self, config: GoConfig, index: int, state: GoState) -> None:
        """Compiles and times level ``index`` in the background (once; one such job at a time)."""
        with self._lock:
            if (config, index) in self._pending or (rules_config(config), index) in self._compiled:
                return
            if any(not job.done() for job in self._pending.values()):
                return
            self._pending[(config, index)] = self._start(config, index, state)
        log.info("compiling %s in the background", self.levels[index].label)

    # -- choosing a move ---------------------------------------------------------------------------

    def choose_level(self, config: GoConfig, state: GoState, budget: float) -> int | None:
        """The strongest compiled level expected to fit ``budget`` seconds, or ``None``.

        Meanwhile one level is prepared (compiled and timed) in the background:
        the fastest if nothing is known yet, else the strongest level that
        would fit but is not compiled, else the strongest level not timed yet.
        """
        estimates = [self.estimate(config, index) for index in range(len(self.levels))]
        if all(estimate is None for estimate in estimates):
            self._prepare_later(config, len(self.levels) - 1, state)
            return None
        chosen = None
        for index, estimate in enumerate(estimates):
            if estimate is not None and estimate <= _FIT * budget:
                if self.compiled(config, index):
                    chosen = index
                    break
                self._prepare_later(config, index, state)
        unknown = [index for index, estimate in enumerate(estimates) if estimate is None]
        if unknown and (chosen is None or unknown[0] < chosen):
            self._prepare_later(config, unknown[0], state)
        return chosen

    def genmove(
        self, config: GoConfig, state: GoState, budget: float | None, fallback: Callable[[], int]
    ) -> tuple[int, str]:
        """``(action, how)``: the move of the strongest level that fits ``budget`` (``None``: no limit).

        ``fallback()`` gives the move when no level fits or the search is late.
        Without a clock's ``budget`` the budget is ``seconds_per_move``; the
        levels are then warmed up (compiled and timed) on the first move of a
        board size.
        """
        if budget is None and self.seconds_per_move is not None:
            budget = self.seconds_per_move
            if rules_config(config) not in self._warmed:
                self.warm_up(config, state, budget)
        if budget is None:
            action, seconds = self.run(config, 0, state)
            return action, f"{self.levels[0].label}, {seconds:.2f} s"
        start = self.now()
        self._finish_late_search(start + 0.5 * budget)
        budget -= self.now() - start
        index = self.choose_level(config, state, budget)
        if index is None:
            return fallback(), f"fallback (no level fits {budget:.2f} s)"
        quick = self._quick_move(config, index, state, budget)
        future = self._start(config, index, state)
        deadline = start + budget
        while not future.done():
            left = deadline - self.now()
            if left <= 0:
                with self._lock:
                    self._late = future
                late = f"{self.levels[index].label} late for {budget:.2f} s"
                if quick is not None:
                    return quick[0], f"{self.levels[quick[1]].label} ({late})"
                return fallback(), f"fallback ({late})"
            concurrent.futures.wait([future], timeout=min(_POLL, left))
        action, seconds = future.result()
        return action, f"{self.levels[index].label}, {seconds:.2f} s of {budget:.2f} s"

    def _start(self, config: GoConfig, index: int, state: GoState) -> concurrent.futures.Future:
        """Runs level ``index`` in a thread of its own; :meth:`wait_idle` waits for it."""
        future = _in_thread(self.run, config, index, state)
        with self._lock:
            self._jobs = [job for job in self._jobs if not job.done()] + [future]
        return future

    def wait_idle(self, timeout: float | None = None) -> bool:
        """Waits (up to ``timeout`` seconds; ``None``: no limit) for the searches still running.

        A search left late or compiling in the background runs in a daemon
        thread; call this before the process exits, which must not end while
        a thread is inside XLA. Returns whether none is running now.
        """
        with self._lock:
            jobs = list(self._jobs)
        _, running = concurrent.futures.wait(jobs, timeout=timeout)
        return not running

    def _finish_late_search(self, until: float) -> None:
        """Waits (up to time ``until``) for a search that was late for the last move: it still runs."""
        with self._lock:
            late, self._late = self._late, None
        while late is not None and not late.done():
            left = until - self.now()
            if left <= 0:
                return
            concurrent.futures.wait([late], timeout=min(_POLL, left))

    def _quick_move(
        self, config: GoConfig, index: int, state: GoState, budget: float
    ) -> tuple[int, int] | None:
        """``(action, level)`` of the smallest compiled level of ``index``'s family, if it is quick.

        Run first, when its estimate is at most :data:`_QUICK` of ``budget``:
        its move replaces the random fallback should level ``index`` be late.
        """
        family = self.levels[index].family
        smaller = [
            j
            for j in range(index + 1, len(self.levels))
            if self.levels[j].family == family and self.compiled(config, j)
        ]
        if not smaller:
            return None
        quick = smaller[-1]
        estimate = self.estimate(config, quick)
        if estimate is None or estimate > _QUICK * budget:
            return None
        action, _ = self.run(config, quick, state)
        return action, quick
