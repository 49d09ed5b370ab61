"""Random-play throughput: gojax vs pgx vs OpenSpiel, side by side in one process.

Each engine plays uniformly random *legal* moves (sampled from its legal-action
mask; gojax with the full default rules, positional superko in the mask) with
finished games reset in place. The JAX engines run ``--steps`` moves per
jitted ``lax.scan``; OpenSpiel's C++ game is driven from Python, one thread.
Steps/s exclude compile time and are the median of ``--repeats`` runs;
compile time is that of the whole jitted scan (lowering and XLA compilation).

    python experiments/benchmark.py                       # quick: 9x9 and 19x19, batch 1..1024
    python experiments/benchmark.py --batches 1 64 1024 16384 --repeats 5

Prints one table, writes ``experiments/results/benchmark.csv`` and a log-log
plot ``experiments/results/benchmark.png`` (throughput vs batch size).
"""

from __future__ import annotations

import argparse
import csv
import functools
import os
import statistics
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

import gojax
from gojax.players import sample_uniform

RESULTS = Path(__file__).resolve().parent / "results"


def _state_bytes(state) -> int:
    return int(sum(np.asarray(leaf).nbytes for leaf in jax.tree.leaves(state)))


def gojax_runner(size: int, batch: int, steps: int):
    """``(run, state, bytes_per_state)``: ``run(state, key)`` plays ``steps`` moves in every game."""
    config = gojax.GoConfig(size=size)
    step = jax.vmap(functools.partial(gojax.step, config))
    legal = jax.vmap(functools.partial(gojax.legal_action_mask, config))
    reset = jax.vmap(functools.partial(gojax.reset_if_done, config))
    fresh = jax.vmap(lambda _: gojax.init(config))(jnp.arange(batch))

    def one(state, key):
        return reset(step(state, sample_uniform(key, legal(state))))

    @jax.jit
    def run(state, key):
        return jax.lax.scan(lambda s, k: (one(s, k), None), state, jax.random.split(key, steps))[0]

    step_only = (jax.jit(step), (fresh, jnp.zeros((batch,), jnp.int32)))
    return run, fresh, _state_bytes(gojax.init(config)), step_only


def pgx_runner(size: int, batch: int, steps: int):
    import pgx

    env = pgx.make(f"go_{size}x{size}")
    init, step = jax.vmap(env.init), jax.vmap(env.step)
    state = jax.jit(init)(jax.random.split(jax.random.PRNGKey(0), batch))

    def one(state, key):
        key_action, key_reset = jax.random.split(key)
        state = step(state, sample_uniform(key_action, state.legal_action_mask))
        done = state.terminated | state.truncated
        fresh = init(jax.random.split(key_reset, batch))
        return jax.tree.map(
            lambda s, f: jnp.where(done.reshape((-1,) + (1,) * (s.ndim - 1)), f, s), state, fresh
        )

    @jax.jit
    def run(state, key):
        return jax.lax.scan(lambda s, k: (one(s, k), None), state, jax.random.split(key, steps))[0]

    single = jax.tree.map(lambda x: x[0], state)
    step_only = (jax.jit(step), (state, jnp.zeros((batch,), jnp.int32)))
    return run, state, _state_bytes(single), step_only


def measure_jax(factory, size, batch, steps, repeats):
    run, state, nbytes, (step_only, step_args) = factory(size, batch, steps)
    start = time.perf_counter()
    step_only.lower(*step_args).compile()
    step_compile_s = time.perf_counter() - start
    key = jax.random.PRNGKey(1)
    start = time.perf_counter()
    run = run.lower(state, key).compile()
    compile_s = time.perf_counter() - start
    state = jax.block_until_ready(run(state, key))
    rates = []
    for repeat in range(repeats):
        key = jax.random.fold_in(key, repeat)
        begin = time.perf_counter()
        state = jax.block_until_ready(run(state, key))
        rates.append(batch * steps / (time.perf_counter() - begin))
    return statistics.median(rates), compile_s, step_compile_s, nbytes


def measure_openspiel(size, seconds, repeats):
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
    return statistics.median(rates)


def measure_features(size: int, batch: int, repeats: int, presets) -> list[dict]:
    """Boards per second of each feature preset, beside ``step`` and the legal mask,
    on a batch of mid-game positions (random legal play, ``P // 2`` moves)."""
    from gojax import features

    config = gojax.GoConfig(size=size)
    step = jax.vmap(functools.partial(gojax.step, config))
    legal = jax.vmap(functools.partial(gojax.legal_action_mask, config))
    push = jax.vmap(functools.partial(features.history_push, config))

    @jax.jit
    def advance(carry, key):
        state, history = carry
        state = step(state, sample_uniform(key, legal(state).at[:, -1].set(False)))
        return (state, push(history, state)), None

    state = jax.vmap(lambda _: gojax.init(config))(jnp.arange(batch))
    history = jax.vmap(functools.partial(features.history_init, config))(state)
    keys = jax.random.split(jax.random.PRNGKey(2), config.num_points // 2)
    (state, history), _ = jax.lax.scan(advance, (state, history), keys)
    actions = sample_uniform(jax.random.PRNGKey(3), legal(state))
    candidates = {
        "step": (lambda s, h: step(s, actions), "rules"),
        "legal_action_mask": (lambda s, h: legal(s), "rules"),
        "alphago_zero (bool)": (
            jax.vmap(functools.partial(features.alphago_zero_planes, config, dtype=jnp.bool_)),
            "features",
        ),
        "alphago_zero (float32)": (
            jax.vmap(functools.partial(features.alphago_zero_planes, config)),
            "features",
        ),
        "alphago (48 planes)": (jax.vmap(functools.partial(features.alphago_planes, config)), "features"),
        "katago (planes + globals)": (
            jax.vmap(functools.partial(features.katago_planes, config)),
            "features",
        ),
    }
    rows = []
    for name, (function, kind) in candidates.items():
        if kind == "features" and not any(name.startswith(p) for p in presets):
            continue
        run = jax.jit(function)
        start = time.perf_counter()
        jax.block_until_ready(run(state, history))
        compile_s = time.perf_counter() - start
        rates = []
        for _ in range(repeats):
            begin = time.perf_counter()
            jax.block_until_ready(run(state, history))
            rates.append(batch / (time.perf_counter() - begin))
        rows.append(
            dict(
                what=name, size=size, batch=batch, boards_per_s=statistics.median(rates), compile_s=compile_s
            )
        )
        print(
            f"  {name:24s} {size}x{size} batch {batch}: {rows[-1]['boards_per_s']:12,.0f} boards/s  "
            f"(first call {compile_s:.1f} s)",
            flush=True,
        )
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[9, 19])
    parser.add_argument("--batches", type=int, nargs="+", default=[1, 16, 256, 1024])
    parser.add_argument("--steps", type=int, default=64, help="moves per jitted scan")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--engines", nargs="+", default=["gojax", "pgx", "openspiel"])
    parser.add_argument(
        "--pgx-max-batch", type=int, default=4096, help="skip pgx above this batch (it is slow on CPU)"
    )
    parser.add_argument("--out", type=Path, default=RESULTS)
    parser.add_argument(
        "--features",
        nargs="*",
        default=["alphago_zero"],
        help="feature presets to time at 19x19 (alphago_zero, alphago, katago); none to skip",
    )
    parser.add_argument("--feature-batch", type=int, default=1024)
    parser.add_argument("--only-features", action="store_true", help="skip the engine comparison")
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    device = jax.devices()[0]
    print(f"JAX {jax.__version__} on {device.platform} ({device.device_kind}), {os.cpu_count()} CPU cores")

    rows = []
    if args.only_features:
        args.sizes = []
    for size in args.sizes:
        for batch in args.batches:
            results = {}
            for engine, factory in (("gojax", gojax_runner), ("pgx", pgx_runner)):
                if engine == "pgx" and batch > args.pgx_max_batch:
                    continue
                if engine in args.engines:
                    results[engine] = measure_jax(factory, size, batch, args.steps, args.repeats)
            for engine, (rate, compile_s, step_compile_s, nbytes) in results.items():
                ratio = rate / results["pgx"][0] if "pgx" in results else float("nan")
                rows.append(
                    dict(
                        engine=engine,
                        size=size,
                        batch=batch,
                        steps_per_s=rate,
                        ratio_to_pgx=ratio,
                        compile_s=compile_s,
                        step_compile_s=step_compile_s,
                        bytes_per_state=nbytes,
                    )
                )
                print(
                    f"  {engine:9s} {size}x{size} batch {batch:6d}: {rate:12,.0f} steps/s  "
                    f"x{ratio:6.1f} pgx  compile: loop {compile_s:4.1f} s, step {step_compile_s:4.1f} s  "
                    f"{nbytes:6d} B/state",
                    flush=True,
                )
        if "openspiel" in args.engines:
            rate = measure_openspiel(size, seconds=2.0, repeats=args.repeats)
            rows.append(
                dict(
                    engine="openspiel",
                    size=size,
                    batch=1,
                    steps_per_s=rate,
                    ratio_to_pgx=float("nan"),
                    compile_s=0.0,
                    step_compile_s=0.0,
                    bytes_per_state=0,
                )
            )
            print(f"  openspiel {size}x{size} (C++ from Python, 1 thread): {rate:,.0f} steps/s", flush=True)

    if rows:
        _report(args, rows, device)
    if args.features:
        print("\nfeature planes vs rules, 19x19 mid-game positions:")
        feature_rows = measure_features(19, args.feature_batch, args.repeats, args.features)
        with open(args.out / "features.csv", "w", newline="") as handle:
            writer = csv.DictWriter(handle, fieldnames=list(feature_rows[0]))
            writer.writeheader()
            writer.writerows(feature_rows)


def _report(args, rows, device) -> None:
    with open(args.out / "benchmark.csv", "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print("\n| engine | board | batch | steps/s | x pgx | compile: loop / step (s) | bytes/state |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        ratio = "" if np.isnan(row["ratio_to_pgx"]) else f"{row['ratio_to_pgx']:.1f}"
        compiled = f"{row['compile_s']:.1f} / {row['step_compile_s']:.1f}" if row["compile_s"] else ""
        print(
            f"| {row['engine']} | {row['size']}x{row['size']} | {row['batch']} | {row['steps_per_s']:,.0f} | "
            f"{ratio} | {compiled} | {row['bytes_per_state'] or ''} |"
        )
    for size in args.sizes:
        simple = _state_bytes(gojax.init(gojax.GoConfig(size=size, ko_rule="simple")))
        print(f"gojax {size}x{size} state with ko_rule='simple': {simple} bytes")
    _plot(rows, args.out / "benchmark.png", device)


def _plot(rows, path, device) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plot")
        return
    sizes = sorted({row["size"] for row in rows})
    figure, axes = plt.subplots(1, len(sizes), figsize=(6 * len(sizes), 4.5), squeeze=False)
    for axis, size in zip(axes[0], sizes, strict=True):
        for engine, style in (("gojax", "o-"), ("pgx", "s--")):
            points = [
                (r["batch"], r["steps_per_s"]) for r in rows if r["engine"] == engine and r["size"] == size
            ]
            if points:
                axis.plot(*zip(*points, strict=True), style, label=engine)
        for row in rows:
            if row["engine"] == "openspiel" and row["size"] == size:
                axis.axhline(
                    row["steps_per_s"],
                    color="gray",
                    linestyle=":",
                    label="OpenSpiel (C++ from Python, 1 thread)",
                )
        axis.set(
            xscale="log",
            yscale="log",
            xlabel="batch size (games)",
            ylabel="steps / s",
            title=f"{size}x{size} random legal play, {device.platform}",
        )
        axis.grid(True, which="both", alpha=0.3)
        axis.legend()
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    print(f"wrote {path}")


if __name__ == "__main__":
    main()
