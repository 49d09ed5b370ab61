"""Playouts per second of one game's TreeSearch, next to the engine's random-play rates, in one run.

Rows (9x9 by default, komi 7.5, positional superko for the engine rows):

* ``engine random moves``: ``--batch`` games play uniformly random legal moves
  (``step`` + ``legal_action_mask`` + ``reset_if_done`` in a ``lax.scan`` of
  ``--steps`` moves, from positions spread over whole games); moves/s.
* ``engine random playouts``: ``--batch`` playouts of
  :func:`gojax.players.rollout` (random playout policy: own eyes never filled)
  from the empty board, one compiled call; playouts/s (and moves/s).
* ``leaf batch``: the compiled batch step of :class:`gojax.search.TreeSearch`
  alone (``K`` expansions + ``K * M`` playouts under the simple ko rule) from
  the empty board; playouts/s. One row per playout policy of ``--policies``:
  ``random`` runs the playouts on ``gojax.step``, ``light`` the same random
  policy on the light kernel of ``gojax/search/_light.py``, ``heavy`` the
  MoGo-style priorities of ``gojax/search/_heavy.py`` on that kernel,
  ``heuristic`` the heuristic policy on ``gojax.step``. With ``--shrink 1,4``
  each leaf batch row is run for each value of the light kernel's tail
  compaction (``shrink`` of :func:`gojax.playouts._light_loop.light_playouts`:
  1 never narrows the loop, 4 the default), side by side. With ``--loops c,xla``
  each leaf batch row of the light kernel is run on the playout loop in C
  (``gojax/_native/playouts.c``, the CPU's default) and on the XLA loop
  (the accelerators' one), side by side: the same playouts.
* ``search``: ``TreeSearch.search(seconds=--seconds)`` from the empty board,
  host tree included; playouts/s as ``stats.playouts / stats.seconds``. One
  row per device count of ``--devices`` (``D``: the leaves of each batch are
  shared among ``D`` devices; ``--host-devices`` splits the CPU into that
  many first).

Each figure is the median of ``--repeats`` timed calls (min and max in the
CSV); every row runs in each repeat, one after the other, so the ratios are
taken side by side. Compiling is not timed.

From the repository root::

    PYTHONPATH=. python experiments/playout_rate.py --quick
    PYTHONPATH=. python experiments/playout_rate.py --repeats 3 --seconds 2 --shapes 32x8,32x32
    PYTHONPATH=. python experiments/playout_rate.py --repeats 3 --seconds 2 --shapes 32x32 \
        --policies light,heavy
    PYTHONPATH=. python experiments/playout_rate.py --repeats 5 --seconds 2 --shapes 32x8,32x32 \
        --policies heavy --shrink 1,4
    PYTHONPATH=. python experiments/playout_rate.py --repeats 3 --seconds 2 --shapes 32x8,32x16 \
        --policies heavy --host-devices 2 --devices 1,2

Prints a Markdown table and writes ``<out>/playout_rate.csv`` (``--out``,
default ``experiments/results``). ``--csv PATH`` also appends the run to a
table of ``docs/results/`` (``playout_rate_9x9.csv``, ``playout_rate_19x19.csv``):
``date`` (with the time, so that two runs of a day stay apart), ``machine``,
``command``, ``host_devices``, then ``row`` (the policy in its name), ``K``,
``M``, ``D``, ``rate`` and ``unit``.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import datetime
import functools
import itertools
import statistics
import sys
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import gojax
from gojax import _native
from gojax._host import compiled
from gojax._host.cpu_devices import split_host_cpu
from gojax.players import playout, random_playout_policy, sample_uniform
from gojax.search import TreeSearch, TreeSearchSettings
from gojax.search._leaves import evaluate_leaves

sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance import append_rows, provenance

RESULTS = Path(__file__).resolve().parent / "results"
FIELDS = ["row", "policy", "K", "M", "D", "rate", "rate_min", "rate_max", "unit", "moves_per_playout"]
DOCS_FIELDS = ["host_devices", "row", "K", "M", "D", "rate", "unit"]
"""The columns of a ``--csv`` row after ``date``, ``machine`` and ``command``."""


def docs_rows(rows: list[dict], batch: int, host_devices: int) -> list[dict]:
    """The run's rows as the tables of ``docs/results/`` name them (the policy in the row's name; the
    engine rows with their batch; the random playouts' moves left out), after their provenance."""
    common = provenance("playout_rate.py")
    common["date"] += datetime.datetime.now().strftime(" %H:%M")
    out = []
    for r in rows:
        name = r["row"]
        if name == "engine random playout moves":
            continue
        if name == "engine random moves":
            name = f"engine random moves (batch {batch})"
        elif name == "engine random playouts":
            name = f"engine random playouts (`players.rollout`, batch {batch})"
        else:  # "leaf batch[, ...]" or "search": the policy after the first word group
            head, _, rest = name.partition(",")
            name = ", ".join(part for part in (head, r["policy"], rest.strip()) if part)
        cells = {key: r[key] for key in ("K", "M", "D", "unit")}
        out.append({**common, "host_devices": host_devices, "row": name, **cells, "rate": round(r["rate"])})
    return out


def _random_moves(config: gojax.GoConfig, batch: int, steps: int):
    """``run(states, key) -> states``: ``steps`` random legal moves in each game (auto-reset)."""

    def one(states, key):
        legal = jax.vmap(functools.partial(gojax.legal_action_mask, config))(states)
        actions = sample_uniform(key, legal)
        states = jax.vmap(functools.partial(gojax.step, config))(states, actions)
        return jax.vmap(functools.partial(gojax.reset_if_done, config))(states), None

    @jax.jit
    def run(states, key):
        return jax.lax.scan(one, states, jax.random.split(key, steps))[0]

    fresh = jax.vmap(lambda _: gojax.init(config))(jnp.arange(batch))
    spread = run(fresh, jax.random.key(1))  # games spread over whole games
    return run, spread


def _rollouts(config: gojax.GoConfig, batch: int):
    """``run(key) -> (scores, moves)``: ``batch`` random playouts from the empty board, scored by area."""
    start = gojax.init(config)

    @jax.jit
    def run(key):
        finals = jax.vmap(lambda k: playout(config, start, k, random_playout_policy))(
            jax.random.split(key, batch)
        )
        return jax.vmap(functools.partial(gojax.score, config))(finals), finals.move_number

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--batch", type=int, default=256, help="games of the engine rows")
    parser.add_argument("--steps", type=int, default=64, help="moves per timed scan (engine moves row)")
    parser.add_argument("--seconds", type=float, default=3.0, help="budget of each timed search")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--shapes", default="32x8,64x8,16x32", help="K x M of the search rows")
    parser.add_argument(
        "--policies", default="random,light", help="playout policies: random, light, heavy, heuristic"
    )
    parser.add_argument(
        "--shrink", default="4", help="tail compactions of the leaf batch rows (1: none; 4: the search's)"
    )
    parser.add_argument(
        "--loops", default="c", help="playout loops of the leaf batch rows: c (CPU default), xla"
    )
    parser.add_argument("--devices", default="1", help="devices sharing each search batch, e.g. 1,2")
    parser.add_argument(
        "--host-devices", type=int, default=None, help="split the CPU into this many JAX devices first"
    )
    parser.add_argument("--quick", action="store_true", help="1 repeat, 2-second searches, one shape")
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument("--csv", type=Path, default=None, help="append the run to this docs table")
    args = parser.parse_args()
    if args.host_devices:
        split_host_cpu(args.host_devices)  # before JAX starts its backends
    if args.quick:
        args.repeats, args.seconds, args.shapes = 1, 2.0, "32x8"
    config = gojax.GoConfig(size=args.size, komi=7.5)
    shapes = [tuple(int(x) for x in shape.split("x")) for shape in args.shapes.split(",")]
    policies = args.policies.split(",")
    shrinks = [int(x) for x in args.shrink.split(",")]
    loops = args.loops.split(",")
    if not set(loops) <= {"c", "xla"}:
        parser.error("--loops takes c and xla")
    device_counts = [int(x) for x in args.devices.split(",")]

    moves_run, spread = _random_moves(config, args.batch, args.steps)
    rollout_run = _rollouts(config, args.batch)
    jax.block_until_ready(rollout_run(jax.random.key(0)))
    searches = {}
    leaf_calls = {}
    empty = gojax.init(config)
    host_empty = jax.device_get(empty)
    for policy in policies:
        for k, m in shapes:
            settings = TreeSearchSettings(leaves_per_batch=k, playouts_per_leaf=m, playout_policy=policy)
            for d in device_counts:
                search = TreeSearch(config, settings, seed=0, devices=d)
                search.warm_up()
                searches[policy, k, m, search.devices] = search
            moves = settings.moves_per_playout(config.num_points)
            parents = jax.tree.map(lambda x, k=k: np.stack([x] * k), host_empty)
            actions = np.full(k, -1, np.int32)
            for shrink, loop in itertools.product(shrinks, loops):
                extra = {} if shrink == 4 else {"shrink": shrink}  # 4: the search's own compiled call
                with contextlib.nullcontext() if loop == "c" else _native.disabled():
                    call = compiled.jitted(evaluate_leaves, config, policy, moves, m, **extra)
                    jax.block_until_ready(call(parents, actions, jax.random.key(0), 0))  # traced here
                leaf_calls[policy, k, m, shrink, loop] = (call, parents, actions)

    samples: dict[tuple, list[float]] = {}
    moves_per_playout: dict[tuple, float] = {}
    for repeat in range(args.repeats):
        key = jax.random.key(100 + repeat)
        t = time.perf_counter()
        jax.block_until_ready(moves_run(spread, key))
        samples.setdefault(("engine random moves", "uniform", "", "", 1), []).append(
            args.batch * args.steps / (time.perf_counter() - t)
        )
        t = time.perf_counter()
        _, played = jax.block_until_ready(rollout_run(key))
        elapsed = time.perf_counter() - t
        row = ("engine random playouts", "random", "", "", 1)
        samples.setdefault(row, []).append(args.batch / elapsed)
        moves_per_playout[row] = float(np.mean(played))
        samples.setdefault(("engine random playout moves", "random", "", "", 1), []).append(
            float(np.sum(played)) / elapsed
        )
        for (policy, k, m, shrink, loop), (call, parents, actions) in leaf_calls.items():
            name = "leaf batch" if len(shrinks) == 1 else f"leaf batch, shrink {shrink}"
            if len(loops) > 1 and policy in ("light", "heavy"):
                name += ", C loop" if loop == "c" else ", XLA loop"
            t = time.perf_counter()
            jax.block_until_ready(call(parents, actions, key, repeat))
            samples.setdefault((name, policy, k, m, 1), []).append(k * m / (time.perf_counter() - t))
        for (policy, k, m, d), search in searches.items():
            search.set_root(gojax.step(config, empty, 40))  # then a fresh tree from the empty board
            search.set_root(empty)
            stats = search.search(seconds=args.seconds)
            samples.setdefault(("search", policy, k, m, d), []).append(stats.playouts / stats.seconds)

    rows = []
    for (name, policy, k, m, d), values in samples.items():
        unit = "moves/s" if "moves" in name else "playouts/s"
        rows.append(
            dict(
                row=name,
                policy=policy,
                K=k,
                M=m,
                D=d,
                rate=statistics.median(values),
                rate_min=min(values),
                rate_max=max(values),
                unit=unit,
                moves_per_playout=moves_per_playout.get((name, policy, k, m, d), ""),
            )
        )
    print(f"\n{args.size}x{args.size}, {jax.devices()[0].platform}, median of {args.repeats}\n")
    print("| row | policy | K | M | D | rate | unit |")
    print("|---|---|---|---|---|---:|---|")
    for row in rows:
        cells = [row["row"], row["policy"], row["K"], row["M"], row["D"], f"{row['rate']:,.0f}", row["unit"]]
        print("| " + " | ".join(str(cell) for cell in cells) + " |")
    args.out.mkdir(parents=True, exist_ok=True)
    path = args.out / "playout_rate.csv"
    with path.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    print(f"\nwrote {path}")
    if args.csv is not None:
        fields = ["date", "machine", "command", *DOCS_FIELDS]
        append_rows(args.csv, docs_rows(rows, args.batch, args.host_devices or 1), fields)
        print(f"appended the run to {args.csv}")


if __name__ == "__main__":
    main()
