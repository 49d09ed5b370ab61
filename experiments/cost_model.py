"""What a move of whole random games costs the rules, counted from the program, and what it predicts on a GPU.

    python experiments/cost_model.py                      # 9x9 and 19x19, batch 1024
    python experiments/cost_model.py --sizes 9 --batch 256 --plies 200

No accelerator is needed: everything here is counted, not timed. For each
board size, ``--batch`` games play uniformly random legal moves
(``legal_action_mask``, ``step``, ``reset_if_done`` each ply, as
``experiments/benchmark.py`` plays them), first ``--warmup`` plies (default
the move cap, so that the batch holds games of every length), then
``--plies`` counted plies. The program is the XLA code, the native CPU
kernels off (what an accelerator runs). Counted:

* **Loop trips.** Every ``lax.while_loop`` of gojax goes through
  :func:`gojax._core.loops.while_loop`; here it is replaced by one that
  carries a trip counter (and, for a loop inside another loop's body, the
  inner loop's trips summed over the outer one's). Under ``jax.vmap`` each
  game's counter stops when its own condition does, so a ply gives each
  game's trips (what it alone needs) and the batch's (the maximum over its
  games: a batched loop runs until its slowest game is done).
* **Bytes.** A loop reads and writes its carry once a trip; the carry's
  bytes per game come from the traced shapes. Once a ply, the state is read
  and written and the legal mask written.
* **Kernels.** In the optimized HLO of the compiled ply (CPU backend: a
  proxy for the GPU's fusion decisions), the instructions that launch work
  (fusions, custom calls, copies and the like, not parameters, constants,
  tuples or bitcasts), in the entry computation and in each loop's
  condition and body.

**The model** of one batched ply on an accelerator::

    time = kernels_once * LAUNCH
         + sum over loops of batch_trips * (kernels_per_trip * LAUNCH + TRIP_SYNC)
         + batch * bytes_per_game / (BANDWIDTH * EFFICIENCY)

with ``LAUNCH`` (seconds a small kernel takes, launch to end), ``TRIP_SYNC``
(the copy of a loop's predicate to the host that XLA makes every trip) and
the memory bandwidth given as flags (H200 defaults below). ``batch_trips``
at the predicted batches is the median over plies of the measured batch's
maximum: a lower bound, since a larger batch has slower slowest games.
Moves/s = batch / time.

Results: one row per size appended to ``docs/results/cost_model.csv``
(``--csv``); ``experiments/report.py`` renders its table in
``docs/performance.md``. The loops one by one are printed.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import re
import sys
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np
from provenance import append_rows, provenance

import gojax
from gojax import _native
from gojax._core import loops
from gojax.players import sample_uniform

FIELDS = [
    "date", "machine", "command", "size", "batch", "plies", "loops_per_ply",
    "game_trips_median", "game_trips_p99", "batch_trips_median", "batch_trips_p99",
    "kernels_once", "kernels_per_trip", "state_bytes", "bytes_per_game",
    "launch_us", "trip_sync_us", "bandwidth_gbs", "efficiency",
    "predicted_16k", "predicted_32k", "predicted_64k", "bound_64k",
]  # fmt: skip
PREDICTED = {"predicted_16k": 16384, "predicted_32k": 32768, "predicted_64k": 65536}
_ORIGINAL = loops.while_loop
_STACK: list[list[tuple[str, int, jax.Array]]] = []
"""While a ply is traced: the loops recorded at each nesting level (site, carry bytes per game, trips)."""


def _bytes(tree) -> int:
    """Bytes of ``tree``'s arrays as traced (per game under ``jax.vmap``)."""
    return int(
        sum(np.prod(np.shape(x)) * np.dtype(jnp.result_type(x)).itemsize for x in jax.tree.leaves(tree))
    )


def _site() -> str:
    """``module.function`` of the gojax code that called the loop."""
    frame = sys._getframe(2)
    while frame is not None and frame.f_globals.get("__name__", "").startswith(
        ("gojax._core.loops", __name__)
    ):
        frame = frame.f_back
    if frame is None:
        return "?"
    return f"{frame.f_globals.get('__name__', '?').removeprefix('gojax.')}.{frame.f_code.co_name}"


def counting_while_loop(cond, body, init):
    """``loops.while_loop`` with a trip counter; records ``(site, carry bytes, trips)`` on :data:`_STACK`.

    Loops traced inside this one's body are recorded here too: their trips
    summed over this loop's trips (their tracers cannot leave the body).
    """
    if not _STACK:
        return _ORIGINAL(cond, body, init)
    site = _site()
    _STACK.append([])
    jax.eval_shape(body, init)  # finds the loops inside the body
    inner = [(s, b) for s, b, _ in _STACK.pop()]

    def step(carry):
        state, trips, sums = carry
        _STACK.append([])
        state = body(state)
        recorded = _STACK.pop()
        return state, trips + 1, tuple(total + t for total, (_, _, t) in zip(sums, recorded, strict=True))

    start = (init, jnp.int32(0), tuple(jnp.int32(0) for _ in inner))
    out, trips, sums = _ORIGINAL(lambda carry: cond(carry[0]), step, start)
    _STACK[-1].append((site, _bytes(init), trips))
    _STACK[-1].extend((s, b, total) for (s, b), total in zip(inner, sums, strict=True))
    return out


@contextlib.contextmanager
def counted_loops():
    """Inside the block, gojax's loops traced in a :func:`counted` function count their trips."""
    loops.while_loop = counting_while_loop
    try:
        yield
    finally:
        loops.while_loop = _ORIGINAL


def counted(function):
    """``function`` that also returns its loops' trips, ``int32[L]``; the loops' ``(site, carry
    bytes)`` are in the result's ``sites`` attribute once traced. Trace it inside
    :func:`counted_loops`; ``jax.vmap`` it to count each game's trips."""

    def run(*args):
        _STACK.append([])
        try:
            out = function(*args)
        finally:
            recorded = _STACK.pop()
        run.sites = [(s, b) for s, b, _ in recorded]
        return out, jnp.stack([t for _, _, t in recorded]) if recorded else jnp.zeros((0,), jnp.int32)

    run.sites = []
    return run


def ply_function(config: gojax.GoConfig):
    """One game's ply: ``(state, key) -> state`` (a uniformly random legal move, then a reset if over)."""
    legal = functools.partial(gojax.legal_action_mask, config)
    step = functools.partial(gojax.step, config)
    reset = functools.partial(gojax.reset_if_done, config)

    def one(state, key):
        return reset(step(state, sample_uniform(key, legal(state))))

    return one


def batched(one):
    """``(states, key) -> ...``: ``one`` over a batch of games, each with its own key."""

    def ply(states, key):
        return jax.vmap(one)(states, jax.random.split(key, jax.tree.leaves(states)[0].shape[0]))

    return ply


_NOT_KERNELS = {"parameter", "constant", "get-tuple-element", "tuple", "bitcast", "after-all", "partition-id"}
_INSTRUCTION = re.compile(r"^\s*(?:ROOT\s+)?%?[\w.\-]+ = [^=]*?\b([a-z][a-z0-9\-]*)\(")


def kernel_counts(hlo: str) -> tuple[int, int]:
    """``(kernels of the entry computation, kernels of every loop's condition and body together)``."""
    computations: dict[str, list[str]] = {}
    name, entry = None, None
    for line in hlo.splitlines():
        header = re.match(r"^(ENTRY\s+)?%?([\w.\-]+) .*\{\s*$", line)
        if header:
            name = header.group(2)
            computations[name] = []
            entry = name if header.group(1) else entry
        elif name is not None and line.strip() == "}":
            name = None
        elif name is not None:
            computations[name].append(line)

    def kernels(lines):
        ops = [m.group(1) for m in map(_INSTRUCTION.match, lines) if m]
        return sum(op not in _NOT_KERNELS and op != "while" for op in ops)

    in_loops = set()
    for lines in computations.values():
        for line in lines:
            for part in re.findall(r"(?:condition|body)=%?([\w.\-]+)", line):
                in_loops.add(part)
    return kernels(computations.get(entry, [])), sum(kernels(computations[c]) for c in in_loops)


def measure(config: gojax.GoConfig, batch: int, warmup: int, plies: int, seed: int) -> dict:
    """Plays the batch and counts (see the module docstring); returns the per-size figures."""
    one = ply_function(config)
    plain, count = batched(one), counted(one)
    states = jax.vmap(lambda _: gojax.init(config))(jnp.arange(batch))
    key = jax.random.PRNGKey(seed)
    with _native.disabled():
        compiled = jax.jit(plain).lower(states, key).compile()
        once, per_trip = kernel_counts(compiled.as_text())
        with counted_loops():
            run = jax.jit(batched(count)).lower(states, key).compile()
    with _native.disabled():
        warm = jax.jit(
            lambda s, k: jax.lax.fori_loop(0, warmup, lambda i, s: plain(s, jax.random.fold_in(k, i)), s)
        )
        states = warm(states, jax.random.fold_in(key, 1))
    trips = []
    for i in range(plies):
        states, t = run(states, jax.random.fold_in(key, 2 + i))
        trips.append(np.asarray(t))
    trips = np.stack(trips).transpose(0, 2, 1)  # [plies, L, B]
    sites = count.sites
    per_game, per_batch = trips.sum(axis=1), trips.max(axis=2).sum(axis=1)  # [plies, B], [plies]
    state_bytes = _bytes(jax.tree.map(lambda x: x[0], states))
    batch_by_site = np.median(trips.max(axis=2), axis=0)  # [L]
    loop_bytes = sum(2 * b * t for (_, b), t in zip(sites, batch_by_site, strict=True))
    return {
        "size": config.size,
        "batch": batch,
        "plies": plies,
        "loops_per_ply": len(sites),
        "game_trips_median": float(np.median(per_game)),
        "game_trips_p99": float(np.percentile(per_game, 99)),
        "batch_trips_median": float(np.median(per_batch)),
        "batch_trips_p99": float(np.percentile(per_batch, 99)),
        "kernels_once": once,
        "kernels_per_trip": per_trip / max(1, len(sites)),
        "state_bytes": state_bytes,
        "bytes_per_game": int(2 * state_bytes + config.num_actions + loop_bytes),
        "_sites": [
            (s, b, float(np.median(trips[:, k])), float(batch_by_site[k])) for k, (s, b) in enumerate(sites)
        ],
    }


def predict(row: dict, batch: int, launch: float, sync: float, bandwidth: float, efficiency: float):
    """``(moves/s, the larger term: "launch" or "bandwidth")`` of the model at ``batch``."""
    fixed = row["kernels_once"] * launch
    trips = row["batch_trips_median"] * (row["kernels_per_trip"] * launch + sync)
    memory = batch * row["bytes_per_game"] / (bandwidth * efficiency)
    return batch / (fixed + trips + memory), ("bandwidth" if memory > fixed + trips else "launch")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[9, 19])
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument(
        "--warmup", type=int, default=None, help="plies before counting (default the move cap)"
    )
    parser.add_argument("--plies", type=int, default=300, help="counted plies")
    parser.add_argument("--launch-us", type=float, default=4.0, help="microseconds a small kernel takes")
    parser.add_argument(
        "--trip-sync-us", type=float, default=10.0, help="microseconds a loop's predicate copy takes"
    )
    parser.add_argument(
        "--bandwidth-gbs", type=float, default=4800.0, help="memory bandwidth, GB/s (H200: 4800)"
    )
    parser.add_argument("--efficiency", type=float, default=0.5, help="fraction of the bandwidth reached")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--csv", default=str(Path(__file__).resolve().parents[1] / "docs/results/cost_model.csv")
    )
    args = parser.parse_args(argv)
    common = provenance("cost_model.py", argv)
    rows = []
    for size in args.sizes:
        config = gojax.GoConfig(size=size)
        row = measure(
            config, args.batch, config.move_cap if args.warmup is None else args.warmup, args.plies, args.seed
        )
        for site, nbytes, game, batch in row.pop("_sites"):
            print(
                f"{size}x{size} {site}: {nbytes} B carry a game; trips a ply: game {game:g}, batch {batch:g}"
            )
        settings = dict(launch=args.launch_us * 1e-6, sync=args.trip_sync_us * 1e-6)
        settings.update(bandwidth=args.bandwidth_gbs * 1e9, efficiency=args.efficiency)
        for field, batch in PREDICTED.items():
            rate, bound = predict(row, batch, **settings)
            row[field] = round(rate)
        row["bound_64k"] = bound
        row.update(launch_us=args.launch_us, trip_sync_us=args.trip_sync_us)
        row.update(bandwidth_gbs=args.bandwidth_gbs, efficiency=args.efficiency)
        print({k: row[k] for k in FIELDS[3:]})
        rows.append({**common, **row})
    append_rows(args.csv, rows, FIELDS)
    print(f"-> {args.csv}")


if __name__ == "__main__":
    main()
