"""``TreeSearch``: Monte-Carlo tree search with RAVE for one game, batched playouts on the device.

A host tool (like the GTP engine): the tree lives on the host in NumPy
(:mod:`gojax.search._tree`), and each *batch step* sends ``K`` leaves to one
compiled call that expands them and runs ``M`` playouts from each
(:func:`gojax.search._leaves.evaluate_leaves`). A batch step:

1. **Selection** of ``K = leaves_per_batch`` paths, one after the other, by
   the RAVE value of :mod:`gojax.search._select`. Each path ends at a move
   not yet in the tree (a new node is added for it), at a node added earlier
   in the same batch (evaluated again), or at a finished game. Virtual loss
   along each path sends the next ones elsewhere.
2. **Expansion and playouts** on the device: ``K`` steps and legal masks
   under the exact rules, then ``K * M`` playouts under the simple ko rule.
3. **Backup** of each leaf's ``M`` results to its path (visits and wins) and
   of the moves played after each node to its AMAF statistics.

The steps overlap: while the device runs one batch (JAX dispatches
asynchronously), the host selects the next, its paths kept apart from the
batch in flight by the same virtual loss. With several local devices (a CPU
split into one device per core, as ``gojax-gtp --host-devices`` does), the
``K`` leaves of a batch are shared among them (:mod:`gojax.search._devices`).

With a **guide** (:mod:`gojax.search._guide`: a network's policy and
value), each batch step also runs the guide on the ``K`` expanded positions:
its policy enters the new nodes' prior and its value is mixed with the
playouts' results.

Tree moves are legal under the game's exact rules at every depth (superko
included): every node's legal mask is :func:`gojax.legal_action_mask` of its
exact :class:`gojax.GoState`, kept per node. The tree is kept between moves:
:meth:`TreeSearch.set_root` re-roots it when the new position is a node
already in the tree (found by comparing whole states).

A search is reproducible: the playout keys are ``fold_in(seed, batch)``
and ties are broken by a generator seeded with ``seed``, so two searches
with the same seed, the same roots and the same playout budgets build the
same tree. Budgets are whole batches: a ``playouts`` budget runs until at
least that many playouts are done; a ``seconds`` budget starts a batch only
when it is predicted to end within the budget less ``time_margin``.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from typing import Any

import jax
import numpy as np

from gojax._core import checks
from gojax._core import guards as _guards
from gojax._core.types import GoConfig, GoState
from gojax._host import compiled
from gojax.mcts import Evaluator
from gojax.search._devices import device_count, evaluate_on_devices, place
from gojax.search._guide import guide_policy, guided_rates, mixed_black_wins
from gojax.search._komi import komi_offset
from gojax.search._leaves import evaluate_leaves
from gojax.search._prior import point_priors
from gojax.search._select import prior_rates, refresh, selection_values
from gojax.search._settings import TreeSearchSettings
from gojax.search._stats import SearchStats, root_stats
from gojax.search._tree import Tree

__all__ = ["TreeSearch"]

_JITTER = 1e-9


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``bool[C]``: whether each of the ``C`` rows of ``a`` equals ``b``."""
    return np.all((a == b[None]).reshape(a.shape[0], -1), axis=1)


class TreeSearch:
    """Monte-Carlo tree search with RAVE and batched playouts for one game (see the module docstring).

    Args:
      config: the rules (any board size, any ko rule).
      settings: :class:`TreeSearchSettings` (default settings if ``None``).
      seed: the seed of the playouts and tie-breaks.
      guide: an evaluator ``guide(config, states, key) -> (logits, value)``
        (:data:`gojax.mcts.Evaluator`; :func:`gojax.alphazero.network_evaluator`
        makes one from a network; :mod:`gojax.search._guide`), or ``None``
        for playouts alone.
      devices: how many local devices share each batch's leaves, at most
        (``None``: all of :func:`jax.local_devices`). The search uses the
        largest count that divides ``leaves_per_batch``; it is
        :attr:`devices`. Each device draws its own playouts, so searches
        with different ``D`` differ; with the same ``D`` and seed they repeat.

    Raises:
      TypeError: ``config`` is not a :class:`gojax.GoConfig`, ``settings`` not
        a :class:`TreeSearchSettings`, ``seed`` not an int, ``guide`` not
        callable, or ``devices`` not an int.
      ValueError: ``devices`` below 1.
    """

    def __init__(
        self,
        config: GoConfig,
        settings: TreeSearchSettings | None = None,
        seed: int = 0,
        guide: Evaluator | None = None,
        devices: int | None = None,
    ):
        if not isinstance(config, GoConfig):
            raise TypeError(f"TreeSearch config must be a gojax.GoConfig, got {config!r}")
        settings = TreeSearchSettings() if settings is None else settings
        if not isinstance(settings, TreeSearchSettings):
            raise TypeError(f"TreeSearch settings must be a TreeSearchSettings, got {settings!r}")
        seed = checks.integer(seed, "TreeSearch seed", least=0)
        if guide is not None and not callable(guide):
            raise TypeError(f"TreeSearch guide must be an evaluator (config, states, key), got {guide!r}")
        self.config = config
        self.settings = settings.resolved(guided=guide is not None)
        settings = self.settings
        self._key = jax.random.key(seed)
        self._rng = np.random.default_rng(seed)
        self._batches = 0
        self._rates = prior_rates(config.num_actions, settings)
        moves = settings.moves_per_playout(config.num_points)
        policy, per_leaf = settings.playout_policy, settings.playouts_per_leaf
        # One compiled function per distinct (rules, policy, sizes), shared by every search in the process.
        self.devices = device_count(settings.leaves_per_batch, devices, len(jax.local_devices()))
        """``D``: the local devices each batch's leaves are split over."""
        # Compiled for the komi-free rules, komi an argument: one compile serves every komi (set_komi).
        base = compiled.rules_config(config)
        opening = {"opening": True} if settings.opening_prior else {}  # the default's compiled call as before
        if self.devices == 1:
            self._evaluate = compiled.jitted(evaluate_leaves, base, policy, moves, per_leaf, **opening)
        else:
            self._evaluate = compiled.jitted(
                evaluate_on_devices, base, policy, moves, per_leaf, self.devices, **opening
            )
        self._legal = compiled.rules(config).legal
        self._priors = compiled.jitted(point_priors, base, **opening)
        # A host tool compiles what it runs; one compiled guide per search (it closes over its network).
        self._guide = None
        if guide is not None:
            guide_key = jax.random.fold_in(self._key, 1)
            self._guide = jax.jit(
                lambda states, index: guide_policy(
                    config, guide, states, jax.random.fold_in(guide_key, index)
                )
            )
        self._warm = False
        self._tree: Tree | None = None
        self._ownership = np.zeros(config.num_points)
        self._ownership_count = 0
        self.komi_offset = 0.0
        """The extra komi of the playouts of the current search (``TreeSearchSettings.dynamic_komi``)."""
        self._lead: tuple[int, float] | None = None  # (move number, black's lead) of the last search

    def _place(self, parents: GoState, actions: np.ndarray, key: jax.Array, index: np.int32) -> tuple:
        """The leaf batch's arguments (komi last), split over the devices when there are several."""
        komi = np.float32(self.config.komi + self.komi_offset)
        if self.devices == 1:
            return parents, actions, key, index, komi
        return place(self.devices, parents, actions, key, index, komi)

    def set_komi(self, komi: float) -> None:
        """Plays on with another komi: nothing is compiled again; the tree (its results) is dropped.

        Raises:
          ValueError: ``komi`` is not a finite number.
        """
        komi = checks.number(komi, "TreeSearch.set_komi komi")
        if komi == self.config.komi:
            return
        self.config = self.config.with_komi(komi)
        self._tree = None
        self._ownership[:] = 0.0
        self._ownership_count = 0
        self._lead = None

    # -- roots ------------------------------------------------------------------------------------

    def warm_up(self) -> None:
        """Compiles every function a search runs (a timed search then never compiles)."""
        if self._warm:
            return
        start = jax.device_get(compiled.rules(self.config).init())
        jax.block_until_ready(self._legal(start))
        jax.block_until_ready(self._priors(start))
        parents = jax.tree.map(lambda x: np.stack([x] * self.settings.leaves_per_batch), start)
        actions = np.zeros(self.settings.leaves_per_batch, np.int32)
        jax.block_until_ready(self._evaluate(*self._place(parents, actions, self._key, np.int32(0))))
        if self._guide is not None:
            jax.block_until_ready(self._guide(parents, np.int32(0)))
            jax.block_until_ready(self._guide(jax.tree.map(lambda x: x[None], start), np.int32(0)))
        self._warm = True

    def set_root(self, state: GoState) -> None:
        """Makes ``state`` (one game under the config) the root, keeping its subtree if it is in the tree.

        Raises:
          TypeError: ``state`` is not a :class:`gojax.GoState`.
          ValueError: ``state`` was not built for the config (or is a batch).
        """
        if not isinstance(state, GoState):
            raise TypeError(f"TreeSearch.set_root needs a gojax.GoState, got {type(state).__name__}")
        _guards.check_state(self.config, state, "TreeSearch.set_root")
        host = jax.device_get(state)
        tree = self._tree
        if tree is not None:
            found = self._find(host)
            if found is not None:
                if found != 0:
                    tree.reroot(found)
                    self._ownership[:] = 0.0
                    self._ownership_count = 0
                return
        if self._lead is not None and int(host.move_number) <= self._lead[0]:
            self._lead = None  # another game, or back in this one: the lead found is not this root's
        tree = Tree(self.config.num_actions, payload=host)
        root = tree.add(-1, -1, int(host.turn))
        tree.set_payload(np.array([root]), jax.tree.map(lambda x: np.asarray(x)[None], host))
        done = bool(host.terminated or host.truncated)
        legal = np.asarray(self._legal(host))
        guided = None
        if self._guide is not None:
            one = jax.tree.map(lambda x: np.asarray(x)[None], host)
            guided = jax.device_get(self._guide(one, np.int32(self._batches)))
        tree.expand(root, legal, done, self._prior(np.asarray(self._priors(host)), legal, guided, 0))
        self._tree = tree
        self._ownership[:] = 0.0
        self._ownership_count = 0

    def _find(self, host: GoState) -> int | None:
        """The expanded node whose state is ``host``, or ``None``."""
        tree = self._tree
        assert tree is not None
        size = tree.size
        stored = tree.payload
        assert stored is not None
        candidates = np.flatnonzero(tree.expanded[:size] & (stored.move_number[:size] == host.move_number))
        for name in ("stones", "turn", "passes", "ko_point", "hash", "captures", "last_move"):
            if candidates.size == 0:
                return None
            candidates = candidates[_same(getattr(stored, name)[candidates], np.asarray(getattr(host, name)))]
        for node in candidates:
            mine = tree.get_payload(np.array([node]))
            if all(
                np.array_equal(x[0], y)
                for x, y in zip(jax.tree.leaves(mine), jax.tree.leaves(host), strict=True)
            ):
                return int(node)
        return None

    # -- searching --------------------------------------------------------------------------------

    def search(
        self,
        seconds: float | None = None,
        playouts: int | None = None,
        should_stop: Callable[[], bool] | None = None,
        on_progress: Callable[[SearchStats], None] | None = None,
        progress_every: float = 1.0,
        now: Callable[[], float] = time.monotonic,
    ) -> SearchStats:
        """Searches from the root until a budget is spent or ``should_stop()``; returns the root's statistics.

        Args:
          seconds: wall-clock budget, or ``None``.
          playouts: playout budget (rounded up to whole batches), or ``None``.
            At least one of the two is given.
          should_stop: polled between batches; the search ends when it returns
            true.
          on_progress: called with the statistics about every
            ``progress_every`` seconds.
          progress_every: seconds between progress calls (> 0).
          now: the time source (seconds).

        Raises:
          ValueError: no root yet, no budget, or a budget out of range.
          TypeError: a budget of the wrong type or a callback that is not callable.
        """
        if seconds is None and playouts is None:
            raise ValueError("TreeSearch.search needs seconds or playouts (or both), got neither")
        if seconds is not None:
            seconds = checks.number(seconds, "TreeSearch.search seconds", positive=True)
        if playouts is not None:
            playouts = checks.integer(playouts, "TreeSearch.search playouts", least=1)
        progress_every = checks.number(progress_every, "TreeSearch.search progress_every", positive=True)
        for name, function in (("should_stop", should_stop), ("on_progress", on_progress), ("now", now)):
            if function is not None and not callable(function):
                raise TypeError(f"TreeSearch.search {name} must be callable, got {function!r}")
        if self._tree is None:
            raise ValueError("TreeSearch.search: no root; call set_root(state) first")
        self.warm_up()
        self._adapt_komi()
        per_batch = self.settings.leaves_per_batch * self.settings.playouts_per_leaf
        start = now()
        last_progress = tick = start
        recent: list[float] = []  # the last batches' durations, from one clock reading to the next
        done = 0
        pending = None  # the batch in flight on the device
        while True:
            if playouts is not None and done >= playouts:
                break
            if should_stop is not None and should_stop():
                break
            if seconds is not None:
                # This step and, at the end, waiting for the batch still in flight.
                predicted = 2.0 * max(recent[-8:]) if recent else 0.0
                if tick - start + predicted > seconds * (1.0 - self.settings.time_margin):
                    break
            launched = self._launch()
            if pending is not None:
                self._finish(*pending)
            pending = launched
            done += per_batch
            after = now()
            recent.append(after - tick)
            tick = after
            if on_progress is not None and after - last_progress >= progress_every:
                on_progress(self._stats(after - start))
                last_progress = after
        if pending is not None:
            self._finish(*pending)
        tree = self._tree
        assert tree is not None and tree.payload is not None
        if self.settings.dynamic_komi > 0 and tree.visits[0] > 0:  # only dynamic komi reads it
            self._lead = (int(tree.payload.move_number[0]), float(tree.black_score[0] / tree.visits[0]))
        return self._stats(now() - start)

    def _adapt_komi(self) -> None:
        """Sets :attr:`komi_offset` for the search about to run (:func:`gojax.search.komi_offset`), from
        the lead the last search of the same game found (none after a new game, an undo or a komi)."""
        tree = self._tree
        assert tree is not None and tree.payload is not None
        move_number, to_play = int(tree.payload.move_number[0]), int(tree.to_play[0])
        offset = 0.0
        if self.settings.dynamic_komi > 0 and self._lead is not None and self._lead[0] <= move_number:
            lead = self._lead[1]
            offset = komi_offset(
                lead, to_play, move_number, self.config.num_points, self.settings.dynamic_komi
            )
        self.komi_offset = offset

    def _descend(self, tree: Tree, jitter: np.ndarray) -> tuple[list[tuple[int, int]], int | None, int, int]:
        """One path: ``(edges, target, node whose state is stepped, action or -1)``."""
        refresh(tree, self.settings)  # the cached values, up to date with the last paths and backups
        node = 0
        edges: list[tuple[int, int]] = []
        while True:
            if not tree.expanded[node]:  # added earlier in this batch: evaluate it again
                return edges, node, int(tree.parent[node]), int(tree.action[node])
            if tree.done[node]:
                return edges, node, node, -1
            noise = jitter[len(edges) % jitter.shape[0]]
            action = int(selection_values(tree, node, self.settings, noise).argmax())
            edges.append((node, action))
            child = int(tree.children[node, action])
            if child < 0:
                if tree.size >= self.settings.max_nodes:
                    return edges, None, node, action
                child = tree.add(node, action, 1 - int(tree.to_play[node]))
                return edges, child, node, action
            node = child

    def _launch(self) -> tuple[list, Any]:
        """Selects ``K`` leaves (with virtual loss) and starts their evaluation on the device.

        Returns the paths and the results, not waited for (JAX dispatches
        asynchronously): the host selects the next batch while the device runs
        this one.
        """
        tree = self._tree
        assert tree is not None
        settings = self.settings
        jitter = self._rng.random((8, self.config.num_actions)) * _JITTER
        paths = []
        for _ in range(settings.leaves_per_batch):
            edges, target, source, action = self._descend(tree, jitter)
            tree.add_virtual_loss(edges, target, settings.virtual_loss)
            paths.append((edges, target, source, action))
        sources = np.array([p[2] for p in paths])
        actions = np.array([p[3] for p in paths], np.int32)
        index = np.int32(self._batches)
        self._batches += 1
        results = self._evaluate(*self._place(tree.get_payload(sources), actions, self._key, index))
        guided = None if self._guide is None else self._guide(results.children, index)
        return paths, (results, guided)

    def _finish(self, paths: list, pending: Any) -> None:
        """Waits for a launched batch, stores its new nodes and backs its results up."""
        tree = self._tree
        assert tree is not None
        settings = self.settings
        results, guided = jax.device_get(pending)
        children = results.children
        done = np.asarray(children.terminated) | np.asarray(children.truncated)
        count = float(settings.playouts_per_leaf)
        komi = self.config.komi * count
        new = [(k, target) for k, (_, target, _, _) in enumerate(paths) if target is not None]
        new = [(k, target) for k, target in new if not tree.expanded[target]]
        if new:
            rows, targets = (np.array(column) for column in zip(*new, strict=True))
            tree.set_payload(targets, jax.tree.map(lambda x: x[rows], children))
        for k, target in new:
            if not tree.expanded[target]:
                prior = self._prior(results.priors[k], results.legal[k], guided, k)
                tree.expand(target, results.legal[k], bool(done[k]), prior)
        for k, (edges, target, _, _) in enumerate(paths):
            tree.add_virtual_loss(edges, target, -settings.virtual_loss)
            black_wins, score = float(results.black_wins[k]), float(results.ownership[k].sum()) - komi
            if guided is not None:
                to_play = int(results.children.turn[k])
                value = float(guided[1][k])
                black_wins = mixed_black_wins(
                    black_wins, count, value, to_play, settings.value_weight, bool(done[k])
                )
            tree.backup(0, edges, target, count, black_wins, results.first[k], results.first_wins[k], score)
        self._ownership += results.ownership.sum(axis=0)
        self._ownership_count += settings.leaves_per_batch * settings.playouts_per_leaf

    def _prior(self, points: np.ndarray, legal: np.ndarray, guided: Any, row: int) -> np.ndarray:
        """``float[A]``: the prior win rates of a node from its points' (pass: ``pass_prior``).

        ``guided``: the guide's ``(policy [K, A], value [K])`` of the batch
        (the node is row ``row``), or ``None``.
        """
        rates = np.append(points, self.settings.pass_prior) if self.settings.heuristic_prior else self._rates
        if guided is None:
            return rates
        return guided_rates(rates, np.asarray(guided[0][row]), legal, self.settings.policy_weight)

    # -- statistics -------------------------------------------------------------------------------

    def stats(self) -> SearchStats:
        """The root statistics now, without searching (``seconds`` is 0).

        Raises:
          ValueError: no root yet.
        """
        if self._tree is None:
            raise ValueError("TreeSearch.stats: no root; call set_root(state) first")
        return self._stats(0.0)

    def _stats(self, seconds: float) -> SearchStats:
        assert self._tree is not None
        stats = root_stats(
            self._tree, self.config, self.settings, self._ownership, self._ownership_count, seconds
        )
        return dataclasses.replace(stats, komi_offset=self.komi_offset) if self.komi_offset else stats
