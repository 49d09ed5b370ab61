"""How long ``jax.jit`` takes to compile the environment's ``init`` and ``step``: gojax against pgx.

::

    python experiments/compile_times.py
    python experiments/compile_times.py --sizes 9 --repeats 9

A pgx user's first call of ``jax.jit(env.step)`` waits for XLA to compile
it. For each board size this times ``jax.jit(f).lower(...).compile()`` of
``env.init`` and ``env.step`` of ``gojax.make("go_NxN")`` and of
``pgx.make("go_NxN")``, one game (``jax.vmap`` adds no work to the
compiler), ``--repeats`` times in turns with JAX's in-memory caches cleared
before each and its persistent cache off, and records the median and the
fastest. Results go to ``docs/results/compile_times.csv`` (rewritten),
rendered by ``experiments/report.py`` in ``docs/performance.md``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from provenance import append_rows, provenance

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"


def _functions(size: int) -> dict:
    """``{(engine, function): (callable, arguments)}`` for one board size."""
    import jax
    import jax.numpy as jnp
    import pgx

    import gojax

    key = jax.random.PRNGKey(0)
    out = {}
    for engine, env in (("gojax", gojax.make(f"go_{size}x{size}")), ("pgx", pgx.make(f"go_{size}x{size}"))):
        state = env.init(key)
        out[(engine, "init")] = (env.init, (key,))
        out[(engine, "step")] = (env.step, (state, jnp.int32(0)))
    return out


def _compile_s(function, arguments) -> float:
    """Seconds of ``jax.jit(function).lower(*arguments).compile()`` with JAX's caches cleared first."""
    import jax

    jax.clear_caches()
    lowered = jax.jit(function).lower(*arguments)
    start = time.perf_counter()
    lowered.compile()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=int, nargs="+", default=[9, 19])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--csv", type=Path, default=RESULTS / "compile_times.csv")
    args = parser.parse_args()
    import jax

    jax.config.update("jax_enable_compilation_cache", False)  # every compile is a compile
    common = provenance("compile_times.py", packages=("pgx",))
    rows = []
    for size in args.sizes:
        functions = _functions(size)
        times: dict = {name: [] for name in functions}
        for _ in range(args.repeats):  # in turns: a change of the machine's load meets every function
            for name, (function, arguments) in functions.items():
                times[name].append(_compile_s(function, arguments))
        for (engine, function), seconds in times.items():
            rows.append(
                {
                    **common,
                    "size": size,
                    "engine": engine,
                    "function": function,
                    "repeats": args.repeats,
                    "median_s": round(statistics.median(seconds), 3),
                    "min_s": round(min(seconds), 3),
                }
            )
            print(rows[-1], flush=True)
    if args.csv.exists():
        args.csv.unlink()
    append_rows(args.csv, rows, list(rows[0]))
    print(f"-> {args.csv}")


if __name__ == "__main__":
    main()
