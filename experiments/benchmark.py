"""Whole-game random-play throughput: gojax rules, gojax GoEnv and pgx side by side, plus features.

Each engine plays uniformly random *legal* moves from its own legal mask and
restarts finished games with its own auto-reset: ``gojax`` (the rules alone:
``step`` + ``legal_action_mask`` + ``reset_if_done``, positional superko; on
the CPU the rules' C kernels), ``gojax-xla`` (the same on the rules' XLA code,
what an accelerator runs), ``goenv`` (``gojax.env.GoEnv``, default 17-plane ``bool`` observation, like
pgx's ``step``), ``pgx`` (``pgx.make("go_NxN")``, ``pgx.experimental.auto_reset``)
and ``openspiel`` (its C++ game from Python, one thread, games back to back).

Whole games: ``--warmup-games`` games play ``--warmup`` moves (default the
move cap ``2*N*N``), game ``i`` restarted at a random step, so their plies are
spread over whole games; the batch is tiled from them (copies diverge at
once), and one untimed scan of ``--steps`` moves precedes the timed ones.
Under ``jax.vmap`` a while loop runs as long as the batch's slowest game, so
this is the rate of a long self-play run, not of the opening.

Each figure is the median of ``--repeats`` timings (min and max in the
CSV); a timing runs an engine's scan as many times as take ``--min-seconds``
(a fast engine's single scan of a large batch lasts a few tens of milliseconds,
too short to time alone), and in a repeat the engines run one after the
other; a ratio to pgx is the median of the per-repeat ratios. Compile time: ``lower().compile()`` of
each jitted scan. Bytes per state: ``GoState``, ``EnvState`` (with its
observation), pgx ``State``. Features: boards/s of ``step``, the legal mask
and each ``gojax.features.OBSERVATIONS`` preset on ``--feature-batch``
whole-game positions, with the ratio to ``step`` of the same repeat; a preset
that can be computed from the previous observation (``katago``) also as
``GoEnv.step`` computes it.

Quick mode (about 2 minutes on a calm 2-core CPU), then the full mode, from the
repository root (``PYTHONPATH=.`` times this checkout's gojax)::

    PYTHONPATH=. python experiments/benchmark.py --quick
    PYTHONPATH=. python experiments/benchmark.py --sizes 9 19 --batches 1 256 1024 --repeats 5

Prints one Markdown table and writes ``<out>/benchmark.csv`` and
``<out>/benchmark.png`` (``--out``, default ``experiments/results``).
"""

from __future__ import annotations

import argparse
import csv
import dataclasses
import functools
import math
import os
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import gojax
from gojax import _native, features
from gojax.env import GoEnv, auto_reset
from gojax.players import sample_uniform

sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance import provenance

RESULTS = Path(__file__).resolve().parent / "results"
FIELDS = [
    "date", "machine", "command",
    "section", "engine", "size", "batch", "rate", "rate_min", "rate_max", "unit",
    "ratio", "ratio_to", "compile_s", "bytes_per_state", "ratio_rules",
]  # fmt: skip


def _bytes(tree) -> int:
    return int(sum(leaf.size * np.dtype(leaf.dtype).itemsize for leaf in jax.tree.leaves(tree)))


def _where(flags: jax.Array, new, old):
    """Per game of a batch: ``new`` where ``flags``, else ``old``."""
    return jax.tree.map(lambda n, o: jnp.where(flags.reshape((-1,) + (1,) * (o.ndim - 1)), n, o), new, old)


@dataclasses.dataclass(frozen=True)
class Engine:
    """A batched random player: ``fresh(key, n)`` new games, ``move(state, key)`` one move in each."""

    name: str
    fresh: Callable[[jax.Array, int], Any]
    move: Callable[[Any, jax.Array], Any]
    bytes_per_state: int


def gojax_engine(size: int) -> Engine:
    config = gojax.GoConfig(size=size)
    step = jax.vmap(functools.partial(gojax.step, config))
    legal = jax.vmap(functools.partial(gojax.legal_action_mask, config))
    reset = jax.vmap(functools.partial(gojax.reset_if_done, config))

    def fresh(key, n):
        return jax.vmap(lambda _: gojax.init(config))(jnp.arange(n))

    def move(state, key):
        return reset(step(state, sample_uniform(key, legal(state))))

    return Engine("gojax", fresh, move, _bytes(jax.eval_shape(functools.partial(gojax.init, config))))


def gojax_xla_engine(size: int) -> Engine:
    """The gojax rules on their XLA code also on the CPU (``gojax._native.disabled()`` while
    traced): what an accelerator runs, and the CPU without the native kernels."""
    engine = gojax_engine(size)

    def fresh(key, n):
        with _native.disabled():
            return engine.fresh(key, n)

    def move(state, key):
        with _native.disabled():
            return engine.move(state, key)

    return Engine("gojax-xla", fresh, move, engine.bytes_per_state)


def goenv_engine(size: int, observation: str | None = "alphago_zero") -> Engine:
    env = GoEnv(gojax.GoConfig(size=size), observation=observation)
    step = jax.vmap(auto_reset(env.step, env.init))

    def fresh(key, n):
        return jax.vmap(env.init)(jax.random.split(key, n))

    def move(state, key):
        return step(state, sample_uniform(key, state.legal_action_mask))

    return Engine("goenv", fresh, move, _bytes(jax.eval_shape(lambda: env.init(None))))


def pgx_engine(size: int) -> Engine:
    import pgx
    from pgx.experimental import auto_reset as pgx_auto_reset

    env = pgx.make(f"go_{size}x{size}")
    step = jax.vmap(pgx_auto_reset(env.step, env.init))

    def fresh(key, n):
        return jax.vmap(env.init)(jax.random.split(key, n))

    def move(state, key):
        action_key, step_key = jax.random.split(key)
        actions = sample_uniform(action_key, state.legal_action_mask)
        return step(state, actions, jax.random.split(step_key, actions.shape[0]))

    return Engine("pgx", fresh, move, _bytes(jax.eval_shape(env.init, jax.random.PRNGKey(0))))


ENGINES = {
    "gojax": gojax_engine,
    "gojax-xla": gojax_xla_engine,
    "goenv": goenv_engine,
    "goenv-none": lambda size: dataclasses.replace(goenv_engine(size, observation=None), name="goenv-none"),
    "pgx": pgx_engine,
}


def steady_state(engine: Engine, games: int, warmup: int, key: jax.Array):
    """``games`` games at spread-out plies: ``warmup`` moves, game ``i`` restarted at a random step."""
    restart = jax.random.randint(key, (games,), 0, warmup)

    def body(state, inputs):
        t, k = inputs
        move_key, fresh_key = jax.random.split(k)
        state = engine.move(state, move_key)
        return _where(restart == t, engine.fresh(fresh_key, games), state), None

    @jax.jit
    def run(key):
        state = engine.fresh(key, games)
        return jax.lax.scan(body, state, (jnp.arange(warmup), jax.random.split(key, warmup)))[0]

    return jax.block_until_ready(run(jax.random.fold_in(key, 1)))


def tile(state, batch: int):
    """``batch`` games taken round-robin from the games of ``state``."""
    return jax.tree.map(lambda x: x[jnp.arange(batch) % x.shape[0]], state)


def _timed(function, *args) -> float:
    begin = time.perf_counter()
    jax.block_until_ready(function(*args))
    return time.perf_counter() - begin


def measure_engines(names, size, batches, args) -> list[dict]:
    """Whole-game moves per second of each engine and batch (rows of the CSV)."""
    warmup = args.warmup or 2 * size * size
    rows = []
    pools = {}
    for name in names:
        engine = ENGINES[name](size)
        begin = time.perf_counter()
        pool = steady_state(engine, args.warmup_games, warmup, jax.random.PRNGKey(size))
        pools[name] = (engine, pool)
        seconds = time.perf_counter() - begin
        print(f"  {name} {size}x{size}: {args.warmup_games} games warmed up in {seconds:.1f} s", flush=True)
    for batch in batches:
        runs = {}
        for name, (engine, pool) in pools.items():
            if name == "pgx" and batch > args.pgx_max_batch:
                continue

            def scan(state, key, engine=engine):
                def body(carry, k):
                    return engine.move(carry, k), None

                return jax.lax.scan(body, state, jax.random.split(key, args.steps))[0]

            state = tile(pool, batch)
            key = jax.random.PRNGKey(batch)
            begin = time.perf_counter()
            compiled = jax.jit(scan).lower(state, key).compile()
            compile_s = time.perf_counter() - begin
            state = jax.block_until_ready(compiled(state, key))  # untimed: copies diverge
            begin = time.perf_counter()
            state = jax.block_until_ready(compiled(state, jax.random.fold_in(key, 1)))
            calls = max(1, math.ceil(args.min_seconds / (time.perf_counter() - begin)))
            runs[name] = dict(run=compiled, state=state, compile_s=compile_s, seconds=[], calls=calls)
        for repeat in range(args.repeats):
            for entry in runs.values():  # each timing: `calls` scans, at least --min-seconds in all
                begin = time.perf_counter()
                for call in range(entry["calls"]):
                    key = jax.random.PRNGKey(1000 * (repeat * entry["calls"] + call) + batch)
                    entry["state"] = jax.block_until_ready(entry["run"](entry["state"], key))
                entry["seconds"].append((time.perf_counter() - begin) / entry["calls"])
        for name, entry in runs.items():
            rates = [batch * args.steps / s for s in entry["seconds"]]
            ratio = float("nan")
            if "pgx" in runs:
                ratio = statistics.median(
                    p / s for s, p in zip(entry["seconds"], runs["pgx"]["seconds"], strict=True)
                )
            rows.append(_row("engines", name, size, batch, rates, "moves/s", ratio, "pgx",
                             entry["compile_s"], pools[name][0].bytes_per_state))  # fmt: skip
            if "gojax" in runs:  # the rules alone, same repeats
                rows[-1]["ratio_rules"] = statistics.median(
                    g / s for s, g in zip(entry["seconds"], runs["gojax"]["seconds"], strict=True)
                )
            _echo(rows[-1])
    return rows


def measure_openspiel(size: int, seconds: float, repeats: int) -> dict:
    import pyspiel

    game = pyspiel.load_game("go", {"board_size": size, "komi": 7.5})
    rng = np.random.default_rng(0)
    rates = []
    for _ in range(repeats):
        moves, state, begin = 0, game.new_initial_state(), time.perf_counter()
        while time.perf_counter() - begin < seconds:
            if state.is_terminal():
                state = game.new_initial_state()
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            moves += 1
        rates.append(moves / (time.perf_counter() - begin))
    row = _row("engines", "openspiel", size, 1, rates, "moves/s", float("nan"), "", float("nan"), 0)
    _echo(row)
    return row


def measure_features(size: int, batch: int, names, args) -> list[dict]:
    """Boards per second of ``step``, the legal mask and each observation on whole-game positions."""
    config = gojax.GoConfig(size=size)
    engine = goenv_engine(size, observation=None)
    state = steady_state(engine, batch, args.warmup or 2 * size * size, jax.random.PRNGKey(7))
    game, history = state._game, state._history
    actions = sample_uniform(jax.random.PRNGKey(3), state.legal_action_mask)
    candidates = {
        "step": lambda g, h: jax.vmap(functools.partial(gojax.step, config))(g, actions),
        "legal_action_mask": lambda g, h: jax.vmap(functools.partial(gojax.legal_action_mask, config))(g),
    }
    for name in names:
        spec = features.OBSERVATIONS[name]
        candidates[f"{name} ({spec.channels(config)} planes)"] = jax.vmap(functools.partial(spec, config))
        if spec.from_previous is not None:  # what GoEnv.step computes, given the last observation
            previous = jax.jit(jax.vmap(functools.partial(spec, config)))(game, history)
            candidates[f"{name}, from the previous one"] = lambda g, h, s=spec, p=previous: jax.vmap(
                functools.partial(s.from_previous, config)
            )(g, h, p)
    runs = {}
    for what, function in candidates.items():
        begin = time.perf_counter()
        compiled = jax.jit(function).lower(game, history).compile()
        compile_s = time.perf_counter() - begin  # as in the engines section: not the first call
        jax.block_until_ready(compiled(game, history))
        runs[what] = (compiled, compile_s, [])
    for _ in range(args.repeats):  # each timing: enough calls for about 0.2 s
        for run, _compile_s, seconds in runs.values():
            calls = max(1, int(0.2 / max(_timed(run, game, history), 1e-6)))
            seconds.append(_timed(lambda r=run, c=calls: [r(game, history) for _ in range(c)]) / calls)
    rows = []
    for what, (_run, compile_s, seconds) in runs.items():
        rates = [batch / s for s in seconds]
        ratio = statistics.median(s / w for w, s in zip(seconds, runs["step"][2], strict=True))
        rows.append(_row("features", what, size, batch, rates, "boards/s", ratio, "step", compile_s, 0))
        _echo(rows[-1])
    return rows


def _row(section, engine, size, batch, rates, unit, ratio, ratio_to, compile_s, nbytes) -> dict:
    """One row of the CSV: the median of ``rates`` and their spread."""
    rate, low, high = statistics.median(rates), min(rates), max(rates)
    return dict(section=section, engine=engine, size=size, batch=batch, rate=rate, rate_min=low,
                rate_max=high, unit=unit, ratio=ratio, ratio_to=ratio_to, compile_s=compile_s,
                bytes_per_state=nbytes, ratio_rules=float("nan"))  # fmt: skip


def _echo(row: dict) -> None:
    ratio = "" if np.isnan(row["ratio"]) else f"x{row['ratio']:.3g} {row['ratio_to']}"
    if not np.isnan(row["ratio_rules"]):
        ratio += f"  x{row['ratio_rules']:.3g} rules"
    print(
        f"  {row['engine']:28s} {row['size']}x{row['size']} batch {row['batch']:6d}: "
        f"{row['rate']:12,.0f} {row['unit']} (min {row['rate_min']:,.0f}, max {row['rate_max']:,.0f})  "
        f"{ratio}",
        flush=True,
    )


def main(argv=None) -> None:
    formatter = argparse.RawDescriptionHelpFormatter
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=formatter)
    add = parser.add_argument
    add(
        "--quick",
        action="store_true",
        help="a check of the whole script in about 2 minutes on a 2-core CPU: 9x9, batches 1 and 64, "
        "16 moves, 1 repeat, 16 warm-up games, basic and alphago_zero at 9x9 batch 256",
    )
    add("--sizes", type=int, nargs="+", default=[9, 19])
    add("--batches", type=int, nargs="+", default=[1, 256, 1024])
    add("--steps", type=int, default=64, help="moves per timed jitted scan (default 64)")
    add("--repeats", type=int, default=3, help="timings; figures are their median (default 3)")
    add(
        "--min-seconds",
        type=float,
        default=0.5,
        help="least duration of one timing: a fast engine's timing runs its scan several times (default 0.5)",
    )
    add("--warmup", type=int, default=None, help="warm-up moves (default the move cap 2*N*N)")
    add("--warmup-games", type=int, default=64, help="distinct games of the steady state (default 64)")
    add("--engines", nargs="+", default=["gojax", "gojax-xla", "goenv", "pgx", "openspiel"])
    add("--pgx-max-batch", type=int, default=4096, help="skip pgx above this batch (slow on CPU)")
    add("--features", nargs="*", default=None, help="observations to time (default: all registered)")
    add("--no-features", action="store_true", help="skip the features section")
    add("--feature-size", type=int, default=19)
    add("--feature-batch", type=int, default=1024)
    add("--out", type=Path, default=RESULTS)
    args = parser.parse_args(argv)
    if args.quick:
        args.sizes, args.batches, args.steps, args.repeats = [9], [1, 64], 16, 1
        args.warmup_games, args.feature_size, args.feature_batch = 16, 9, 256
        args.features = args.features or ["basic", "alphago_zero"]
    names = list(features.OBSERVATIONS) if not args.features else args.features
    args.out.mkdir(parents=True, exist_ok=True)
    device = jax.devices()[0]
    print(f"JAX {jax.__version__} on {device.platform} ({device.device_kind}), {os.cpu_count()} CPU cores")
    if os.environ.get("GLIBC_TUNABLES"):  # e.g. huge pages for XLA's temporaries (docs/performance.md)
        print(f"GLIBC_TUNABLES={os.environ['GLIBC_TUNABLES']}")
    rows = []
    for size in args.sizes:
        rows += measure_engines([e for e in args.engines if e in ENGINES], size, args.batches, args)
        if "openspiel" in args.engines:
            rows.append(measure_openspiel(size, seconds=2.0, repeats=args.repeats))
    if not args.no_features:
        print(f"features, {args.feature_size}x{args.feature_size} whole-game positions:", flush=True)
        rows += measure_features(args.feature_size, args.feature_batch, names, args)
    if rows:
        common = provenance("benchmark.py", sys.argv[1:] if argv is None else argv, packages=("pgx",))
        _report(args, [{**common, **row} for row in rows], device)


def _report(args, rows, device) -> None:
    with open(args.out / "benchmark.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=FIELDS)
        writer.writeheader()
        writer.writerows(rows)
    print("\n| what | board | batch | rate (median) | min - max | ratio | / rules | compile (s) | bytes |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        ratio = "" if np.isnan(r["ratio"]) else f"{r['ratio']:.3g} x {r['ratio_to']}"
        compiled = "" if np.isnan(r["compile_s"]) else f"{r['compile_s']:.1f}"
        print(
            f"| {r['engine']} | {r['size']}x{r['size']} | {r['batch']} | {r['rate']:,.0f} {r['unit']} | "
            f"{r['rate_min']:,.0f} - {r['rate_max']:,.0f} | {ratio} | "
            f"{'' if np.isnan(r['ratio_rules']) else format(r['ratio_rules'], '.3g')} | {compiled} | "
            f"{r['bytes_per_state'] or ''} |"
        )
    for size in args.sizes:
        simple = _bytes(
            jax.eval_shape(functools.partial(gojax.init, gojax.GoConfig(size=size, ko_rule="simple")))
        )
        print(f"gojax {size}x{size} GoState with ko_rule='simple': {simple} bytes")
    print(f"wrote {args.out / 'benchmark.csv'}")
    _plot(rows, args.out / "benchmark.png", device)


def _plot(rows, path, device) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plot")
        return
    sizes = sorted({r["size"] for r in rows if r["section"] == "engines"})
    feats = [r for r in rows if r["section"] == "features"]
    panels = len(sizes) + bool(feats)
    figure, axes = plt.subplots(1, panels, figsize=(6 * panels, 4.5), squeeze=False)
    for axis, size in zip(axes[0], sizes, strict=False):
        for engine, style in (("gojax", "o-"), ("goenv", "^-"), ("pgx", "s--")):
            points = [
                (r["batch"], r["rate"], r["rate_min"], r["rate_max"])
                for r in rows
                if r["section"] == "engines" and r["engine"] == engine and r["size"] == size
            ]
            if points:
                x, y, low, high = (np.array(v) for v in zip(*points, strict=True))
                axis.errorbar(x, y, yerr=[y - low, high - y], fmt=style, capsize=3, label=engine)
        for r in rows:
            if r["engine"] == "openspiel" and r["size"] == size:
                axis.axhline(r["rate"], color="gray", linestyle=":", label="OpenSpiel (C++, 1 thread)")
        axis.set(
            xscale="log",
            yscale="log",
            xlabel="batch size (games)",
            ylabel="moves / s (whole games)",
            title=f"{size}x{size} random legal play, {device.platform}",
        )
        axis.grid(True, which="both", alpha=0.3)
        axis.legend()
    if feats:
        axis = axes[0][-1]
        axis.barh([r["engine"] for r in feats], [r["rate"] for r in feats], color="tab:blue")
        axis.set(
            xscale="log",
            xlabel="boards / s",
            title=f"{feats[0]['size']}x{feats[0]['size']} batch {feats[0]['batch']}, whole-game positions",
        )
        axis.invert_yaxis()
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
