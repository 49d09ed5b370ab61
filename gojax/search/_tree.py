"""The search tree on the host: NumPy arrays of nodes, their edges and their RAVE (AMAF) statistics.

**Why a tree of its own, not mctx's.** ``mctx.search`` keeps per-edge visit
counts and values and calls one ``recurrent_fn`` per simulation; RAVE needs
per-node *all-moves-as-first* counts that every simulation updates for every
move played after the node (in the tree and in the playout), a selection rule
that blends them with the edge's own mean, virtual loss to send a batch of
paths down different branches, and a tree that survives from one move to the
next. None of these fit ``mctx.search``'s fixed-shape, one-path-per-step
tree, so this module keeps a small tree of its own on the host, and the
device does what it is fast at: stepping and playing out many games at once.

Node ``i`` holds:

* ``parent[i]``, ``action[i]`` (the move from the parent; -1 at the root),
  ``to_play[i]`` (colour index to move there: 0 black, 1 white);
* ``visits[i]`` (playouts through the node, plus pending virtual losses) and
  ``wins[i]`` (those won by the player who moved *into* the node, a draw
  counting 1/2);
* ``children[i, a]`` (node id or -1), ``legal[i, a]`` (``bool[A]``, the exact
  rules), ``expanded[i]`` (legal moves known), ``done[i]`` (game over);
* ``prior_rate[i, a]``: the prior win rate of each action (see
  :mod:`gojax.search._prior`);
* ``black_score[i]``: the sum over those playouts of black's final area
  score minus the komi (its mean is the node's expected score lead for black);
* ``amaf_visits[i, a]``, ``amaf_wins[i, a]``: playouts through the node in
  which the player to move at the node played point ``a`` before the other
  player did, at any later turn, and how many of them that player won
  (Gelly & Silver 2007). Pass gets no AMAF samples.
* ``blend[i, a]``: a cache of the selection value of each action without
  its UCB term and jitter (``-inf`` where illegal), computed by
  :func:`gojax.search._select.refresh` for the settings ``blend_settings``.
  The tree's own updates (:meth:`Tree.expand`, :meth:`Tree.add_virtual_loss`,
  :meth:`Tree.backup`; :meth:`Tree.add` changes no value) mark what they
  change as stale: whole nodes in ``stale_rows``, single edges ``(i, a)`` in
  ``stale_edges``. Direct writes to the statistics are not tracked
  (:func:`gojax.search._select.child_values` reads them as they stand);
* an optional payload per node (the game state), any pytree of NumPy arrays
  with a leading node axis, kept in step with the nodes (growth, re-rooting).

Shapes: ``A`` actions (``P`` points and pass, ``P = A - 1``).
"""

from __future__ import annotations

from typing import Any

import jax
import numpy as np

__all__ = ["Tree"]


class Tree:
    """A growing tree of nodes (see the module docstring); node 0 is the root.

    Args:
      num_actions: ``A``.
      payload: a pytree of NumPy arrays for one node (its shapes and dtypes
        are those stored per node), or ``None``.
      capacity: initial room, doubled when full.
    """

    def __init__(self, num_actions: int, payload: Any = None, capacity: int = 256):
        self.num_actions = int(num_actions)
        self.size = 0
        cap = max(2, int(capacity))
        a = self.num_actions
        self.parent = np.full(cap, -1, np.int32)
        self.action = np.full(cap, -1, np.int32)
        self.to_play = np.zeros(cap, np.int8)
        self.visits = np.zeros(cap, np.float64)
        self.wins = np.zeros(cap, np.float64)
        self.black_score = np.zeros(cap, np.float64)
        self.expanded = np.zeros(cap, bool)
        self.done = np.zeros(cap, bool)
        self.children = np.full((cap, a), -1, np.int32)
        self.legal = np.zeros((cap, a), bool)
        self.amaf_visits = np.zeros((cap, a), np.float64)
        self.amaf_wins = np.zeros((cap, a), np.float64)
        self.prior_rate = np.full((cap, a), 0.5, np.float32)
        self.blend = np.zeros((cap, a), np.float64)
        self.blend_settings: Any = None
        self.stale_rows: set[int] = set()
        self.stale_edges: list[tuple[int, int]] = []
        if payload is None:
            self.payload = None
        else:
            self.payload = jax.tree.map(lambda x: np.zeros((cap, *np.shape(x)), np.asarray(x).dtype), payload)

    _NODE_ARRAYS = (
        "parent",
        "action",
        "to_play",
        "visits",
        "wins",
        "black_score",
        "expanded",
        "done",
        "children",
        "legal",
        "amaf_visits",
        "amaf_wins",
        "prior_rate",
        "blend",
    )

    @property
    def capacity(self) -> int:
        """Nodes the arrays hold now."""
        return self.parent.shape[0]

    def _grow(self) -> None:
        cap = self.capacity

        def bigger(x: np.ndarray) -> np.ndarray:
            fill = -1 if x.dtype == np.int32 else 0
            out = np.full((2 * cap, *x.shape[1:]), fill, x.dtype)
            out[:cap] = x
            return out

        for name in self._NODE_ARRAYS:
            setattr(self, name, bigger(getattr(self, name)))
        if self.payload is not None:
            self.payload = jax.tree.map(lambda x: np.concatenate([x, np.zeros_like(x)]), self.payload)

    def add(self, parent: int, action: int, to_play: int) -> int:
        """A new node (not expanded yet); also links it as ``children[parent, action]``. Returns its id."""
        if self.size == self.capacity:
            self._grow()
        node = self.size
        self.size += 1
        self.parent[node] = parent
        self.action[node] = action
        self.to_play[node] = to_play
        if parent >= 0:
            self.children[parent, action] = node  # no visits, no wins: the edge's value is unchanged
        return node

    def set_payload(self, nodes: np.ndarray, values: Any) -> None:
        """Stores ``values`` (the payload pytree with a leading axis over ``nodes``) for ``nodes``."""
        leaves, _ = jax.tree.flatten(self.payload)
        for leaf, value in zip(leaves, jax.tree.leaves(values), strict=True):
            leaf[nodes] = value

    def get_payload(self, nodes: np.ndarray) -> Any:
        """The payload of ``nodes`` (a leading axis over them)."""
        return jax.tree.map(lambda x: x[nodes], self.payload)

    def expand(self, node: int, legal: np.ndarray, done: bool, prior: np.ndarray | None = None) -> None:
        """Records the legal moves (``bool[A]``), whether the game is over and the prior win rates
        (``float[A]``; 1/2 everywhere if ``None``) at ``node``."""
        self.legal[node] = legal
        self.prior_rate[node] = 0.5 if prior is None else prior
        self.expanded[node] = True
        self.done[node] = done
        self.stale_rows.add(node)

    def path(self, node: int) -> list[int]:
        """Nodes from the root to ``node``, both included."""
        nodes = [node]
        while self.parent[nodes[-1]] >= 0:
            nodes.append(int(self.parent[nodes[-1]]))
        return nodes[::-1]

    def add_virtual_loss(self, edges: list[tuple[int, int]], target: int | None, amount: float) -> None:
        """Adds (or, with a negative ``amount``, removes) ``amount`` lost visits along a path.

        Each edge ``(node, action)`` gets ``amount`` lost AMAF samples, and
        each child on the path (``target`` included) ``amount`` lost visits.
        """
        a = self.num_actions
        amaf_visits, children, visits, stale = self.amaf_visits, self.children, self.visits, self.stale_edges
        for node, action in edges:
            if action < a - 1:
                amaf_visits[node, action] += amount
            child = children[node, action]
            if child >= 0:
                visits[child] += amount
            stale.append((node, action))
        if target is not None and (not edges or children[edges[-1][0], edges[-1][1]] != target):
            visits[target] += amount
            if self.parent[target] >= 0:
                stale.append((int(self.parent[target]), int(self.action[target])))

    def backup(
        self,
        root: int,
        edges: list[tuple[int, int]],
        target: int | None,
        count: float,
        black_wins: float,
        first: np.ndarray,
        first_wins: np.ndarray,
        black_score: float = 0.0,
    ) -> None:
        """Adds ``count`` playouts, ``black_wins`` of them won by black, to a path and its AMAF counts.

        Args:
          root: the root node (visited too).
          edges: ``(node, action)`` from the root down; the last edge's child
            is ``target`` (or the path ends in an unstored move when
            ``target`` is ``None``); for a leaf evaluated in place the path
            ends at ``target`` with no edge of its own.
          target: the leaf the playouts started from, or ``None``.
          count: ``M``, playouts.
          black_wins: black's wins among them.
          first: ``float[2, P]`` playouts in which colour ``c`` played point
            ``p`` first, after the leaf.
          first_wins: ``float[2, P]`` how many of those colour ``c`` won.
          black_score: black's final score (area minus komi), summed over the playouts.
        """
        points = self.num_actions - 1
        visits, wins, scores, to_play = self.visits, self.wins, self.black_score, self.to_play
        amaf_visits, amaf_wins, children = self.amaf_visits, self.amaf_wins, self.children
        wins_for = (float(black_wins), float(count - black_wins))
        # Changed: the nodes' AMAF rows, and each visited node's edge from its parent.
        self.stale_rows.update([node for node, _ in edges])
        if target is not None:
            self.stale_rows.add(target)
        if self.parent[root] >= 0:
            self.stale_rows.add(int(self.parent[root]))
        for node in [root] + [int(children[n, a]) for n, a in edges]:
            if node >= 0:
                visits[node] += count
                scores[node] += black_score
                # wins for the player who moved into the node: the other colour than its player to move.
                wins[node] += wins_for[1 - int(to_play[node])]
        firsts = np.array(first, np.float64)
        won = np.array(first_wins, np.float64)
        if target is not None and self.expanded[target] and not self.done[target]:
            colour = int(to_play[target])
            amaf_visits[target, :points] += firsts[colour]
            amaf_wins[target, :points] += won[colour]
        for node, action in reversed(edges):
            colour = int(to_play[node])
            if action < points:  # the tree move claims its point for its colour
                firsts[colour, action], firsts[1 - colour, action] = count, 0.0
                won[colour, action], won[1 - colour, action] = wins_for[colour], 0.0
            amaf_visits[node, :points] += firsts[colour]
            amaf_wins[node, :points] += won[colour]

    def subtree(self, node: int) -> np.ndarray:
        """``bool[size]``: the nodes at or below ``node``."""
        inside = np.zeros(self.size, bool)
        inside[node] = True
        parents = self.parent[: self.size]
        has_parent = parents >= 0
        while True:
            grown = inside.copy()
            grown[has_parent] |= inside[parents[has_parent]]
            if np.array_equal(grown, inside):
                return inside
            inside = grown

    def reroot(self, node: int) -> None:
        """Keeps only the subtree of ``node``, which becomes the root, node 0 (ids renumbered)."""
        keep = np.flatnonzero(self.subtree(node))  # ascending: parents before children, node first
        new_id = np.full(self.size + 1, -1, np.int32)  # index -1 maps to -1
        new_id[keep] = np.arange(keep.size, dtype=np.int32)
        for name in self._NODE_ARRAYS:
            array = getattr(self, name)
            array[: keep.size] = array[keep]
            array[keep.size :] = -1 if array.dtype == np.int32 else 0
        count = keep.size
        self.children[:count] = new_id[self.children[:count]]
        self.parent[:count] = new_id[self.parent[:count]]
        self.parent[0] = -1
        self.action[0] = -1
        if self.payload is not None:
            self.payload = jax.tree.map(lambda x: np.concatenate([x[keep], x[keep.size :]]), self.payload)
        self.size = count
        # The cache moved with its nodes; so do the stale marks (those of dropped nodes go).
        rows = new_id[np.fromiter(self.stale_rows, np.int64, len(self.stale_rows))]
        self.stale_rows = set(rows[rows >= 0].tolist())
        edges = np.array(self.stale_edges, np.int64).reshape(-1, 2)
        edges[:, 0] = new_id[edges[:, 0]]
        self.stale_edges = [(node, action) for node, action in edges[edges[:, 0] >= 0].tolist()]
