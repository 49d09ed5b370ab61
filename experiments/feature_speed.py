"""Rich feature planes against ``gojax.step``: boards/s and compile time, side by side in one run.

Whole-game positions (``benchmark.py``'s steady state: random games restarted at
random plies, so the batch spreads over whole games), then ``jit(vmap(...))`` of
``step``, the AlphaGo 48 planes and the KataGo preset on that batch. Each rate
is the median of ``--repeats`` timings; the ratio is to ``step`` in the same
repeat (a timing calls a function as many times as take ``--min-seconds``). The
legal mask is timed beside ``step``. Compile time is ``lower().compile()``.

    PYTHONPATH=. python experiments/feature_speed.py --size 19 --batch 1024
    PYTHONPATH=. python experiments/feature_speed.py --size 9 --batch 1024 --presets alphago
    PYTHONPATH=. python experiments/feature_speed.py --size 19 --batch 256 --parts --presets alphago
    PYTHONPATH=. python experiments/feature_speed.py --size 19 --batch 256 --against HEAD~1
    PYTHONPATH=. python experiments/feature_speed.py --size 19 --batch 256 --presets katago --env
    PYTHONPATH=. python experiments/feature_speed.py --size 19 --batch 256 --devices 2

``--env`` also times ``GoEnv.step`` with each preset as the environment's
observation (from the same positions, one random legal move each), the
observation of the new position included.

``--devices D`` splits the CPU into ``D`` JAX devices
(``--xla_force_host_platform_device_count``) and also times ``step`` and each
preset with the batch sharded over them (``jax.shard_map``): XLA runs one
computation on one core, so this is how a batch uses several.

The page faults of a call (the process's minor faults while it runs) count
the fresh memory XLA touched: on a CPU it allocates a computation's
temporaries at every call, and a Linux kernel maps them in 4 KiB pages on
first touch. ``GLIBC_TUNABLES=glibc.malloc.hugetlb=1`` (glibc 2.35 or later,
transparent huge pages set to ``madvise`` or ``always``) maps them in 2 MiB
pages instead; see ``docs/performance.md``.

``--against REV`` also times the presets (and with ``--env`` the environment)
of another git revision of this repository in the same repeats (the package
exported with ``git archive`` and imported as ``gojax_base``), so a change is
measured side by side with what it changes, as the ``x step`` ratios of the
same run.
"""

from __future__ import annotations

import argparse
import atexit
import functools
import importlib
import math
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import jax
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchmark import _timed, goenv_engine, steady_state
from provenance import append_rows, provenance

import gojax
from gojax import features
from gojax._host.cpu_devices import split_host_cpu
from gojax.env import GoEnv
from gojax.players import sample_uniform

PRESETS = {
    "alphago": lambda config, dtype: lambda g, h: features.alphago_planes(config, g, h, dtype=dtype),
    "katago": lambda config, dtype: lambda g, h: features.katago_planes(config, g, h, dtype=dtype),
}

# The pieces of the AlphaGo planes, each from the state alone (its own chain analysis).
PARTS = {
    "analysis": lambda config, g, h: (features.chains(config, g), features.move_outcomes(config, g)),
    "ladder capture": lambda config, g, h: features.ladder_capture_plane(config, g),
    "ladder escape": lambda config, g, h: features.ladder_escape_plane(config, g),
}


def import_revision(revision: str):
    """The ``gojax`` package of git ``revision``, imported as ``gojax_base`` from a temporary export."""
    root = Path(__file__).resolve().parent.parent
    folder = Path(tempfile.mkdtemp(prefix="gojax_base_"))
    atexit.register(shutil.rmtree, folder, True)
    archive = subprocess.run(
        ["git", "-C", str(root), "archive", revision, "gojax"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    package = folder / "gojax_base"
    (folder / "gojax").rename(package)
    for path in package.rglob("*.py"):
        text = path.read_text()
        text = re.sub(r"\bgojax\.", "gojax_base.", text)
        text = re.sub(r"\bfrom gojax import\b", "from gojax_base import", text)
        text = re.sub(r"^(\s*)import gojax$", r"\1import gojax_base as gojax", text, flags=re.M)
        path.write_text(text)
    # Its FFI targets under names of their own: XLA keeps one handler per name.
    for path in [*package.rglob("*.py"), *package.rglob("*.c"), *package.rglob("*.h")]:
        path.write_text(path.read_text().replace("gojax_ffi_", "gojax_base_ffi_"))
    _build_kernels(package)
    sys.path.insert(0, str(folder))
    return importlib.import_module("gojax_base")


def _build_kernels(package: Path) -> None:
    """Compiles the revision's native kernels (if it has any) as an install would, so both
    revisions run like for like; without a C compiler the revision runs its XLA code. Its FFI
    handlers (``ffi.c``, where it has them) are built against jaxlib's headers, with every C file of
    its ``_native`` (the rules' ``rules.c`` too), as setup.py does."""
    source = package / "_native" / "kernels.c"
    compiler = shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")
    if not source.exists() or compiler is None:
        return
    import sysconfig

    import jaxlib

    sources = [str(path) for path in sorted((package / "_native").glob("*.c"))]
    include = Path(jaxlib.__file__).resolve().parent / "include"
    target = source.with_name("_kernels" + sysconfig.get_config_var("EXT_SUFFIX"))
    flags = ["-O3", "-std=c11", "-pthread", "-shared", "-fPIC", f"-I{include}"]
    command = [compiler, *flags, *sources, "-o", str(target)]
    subprocess.run(command, check=True, capture_output=True)


def as_revision(value):
    """``value`` (a gojax pytree of dataclasses or named tuples) rebuilt with ``gojax_base``'s classes."""
    if isinstance(value, jax.Array) or value is None:
        return value
    if type(value) is tuple:
        return tuple(as_revision(v) for v in value)
    cls = getattr(
        importlib.import_module(type(value).__module__.replace("gojax", "gojax_base", 1)),
        type(value).__name__,
    )
    if hasattr(value, "__dataclass_fields__"):
        return cls(**{name: as_revision(getattr(value, name)) for name in value.__dataclass_fields__})
    return cls(*[as_revision(v) for v in value])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=19)
    parser.add_argument("--batch", type=int, default=1024)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--min-seconds",
        type=float,
        default=0.2,
        help="least duration of one timing: a fast function is called several times (default 0.2)",
    )
    parser.add_argument("--games", type=int, default=64, help="distinct whole games tiled into the batch")
    parser.add_argument("--presets", nargs="*", default=list(PRESETS), choices=list(PRESETS))
    parser.add_argument(
        "--dtype", default="float32", choices=["float32", "bool"], help="of the planes (default float32)"
    )
    parser.add_argument(
        "--parts", action="store_true", help="also time the chain analysis and each ladder plane on its own"
    )
    parser.add_argument("--against", metavar="REV", help="also time the presets of this git revision")
    parser.add_argument(
        "--env", action="store_true", help="also time GoEnv.step with each preset as its observation"
    )
    parser.add_argument(
        "--csv", type=Path, help="append the rows to this CSV (docs/results/feature_speed.csv)"
    )
    parser.add_argument(
        "--devices", type=int, default=1, help="also time step and the presets sharded over D CPU devices"
    )
    args = parser.parse_args(argv)
    if args.devices > 1:
        if args.batch % args.devices:
            parser.error(f"--batch {args.batch} is not a multiple of --devices {args.devices}")
        split_host_cpu(args.devices)  # before any JAX work
    config = gojax.GoConfig(size=args.size)
    engine = goenv_engine(args.size, observation=None)
    games = steady_state(engine, args.games, 2 * args.size * args.size, jax.random.PRNGKey(7))
    tile = jax.tree.map(lambda x: x[jax.numpy.arange(args.batch) % x.shape[0]], games)
    game, history = tile._game, tile._history
    actions = sample_uniform(jax.random.PRNGKey(3), tile.legal_action_mask)
    candidates = {
        "step": lambda g, h: jax.vmap(functools.partial(gojax.step, config))(g, actions),
        "legal_action_mask": lambda g, h: jax.vmap(functools.partial(gojax.legal_action_mask, config))(g),
    }
    if args.parts:
        for name, part in PARTS.items():
            candidates[name] = jax.vmap(functools.partial(part, config))
    for name in args.presets:
        candidates[name] = jax.vmap(PRESETS[name](config, args.dtype))
    inputs = {name: (game, history) for name in candidates}
    if args.env:
        for name in args.presets:
            env = GoEnv(config, observation=name)
            observed = tile.replace(observation=jax.jit(jax.vmap(env.observe))(tile))
            candidates[f"{name}: GoEnv.step"] = jax.vmap(env.step)
            inputs[f"{name}: GoEnv.step"] = (observed, actions)
    if args.devices > 1:
        mesh = Mesh(np.array(jax.devices()[: args.devices]), ("games",))
        games = PartitionSpec("games")
        split = NamedSharding(mesh, games)
        per_device = {"step": (jax.vmap(functools.partial(gojax.step, config)), (game, actions))}
        per_device.update({name: (candidates[name], inputs[name]) for name in args.presets})
        for name, (function, arguments) in per_device.items():
            what = f"{name}, {args.devices} devices"
            candidates[what] = jax.shard_map(function, mesh=mesh, in_specs=games, out_specs=games)
            inputs[what] = jax.device_put(arguments, split)
    if args.against:
        base = import_revision(args.against)
        base_config = base.GoConfig(size=args.size)
        base_inputs = (as_revision(game), as_revision(history))
        for name in args.presets:
            preset = {"alphago": base.features.alphago_planes, "katago": base.features.katago_planes}[name]
            planes = functools.partial(preset, base_config, dtype=args.dtype)
            candidates[f"{name} @ {args.against}"] = jax.vmap(planes)
            inputs[f"{name} @ {args.against}"] = base_inputs
            if args.env:
                env = base.env.GoEnv(base_config, observation=name)
                base_tile = as_revision(tile)
                observed = base_tile.replace(observation=jax.jit(jax.vmap(env.observe))(base_tile))
                candidates[f"{name}: GoEnv.step @ {args.against}"] = jax.vmap(env.step)
                inputs[f"{name}: GoEnv.step @ {args.against}"] = (observed, actions)
    runs = {}
    for name, function in candidates.items():
        begin = time.perf_counter()
        compiled = jax.jit(function).lower(*inputs[name]).compile()
        compile_s = time.perf_counter() - begin
        jax.block_until_ready(compiled(*inputs[name]))
        runs[name] = (compiled, compile_s, [])
        print(f"  {name}: compiled in {compile_s:.1f} s", flush=True)
    faults = {name: [] for name in runs}
    calls = {}  # per function: the calls of one timing
    for name, (compiled, _, _) in runs.items():
        calls[name] = max(1, math.ceil(args.min_seconds / _timed(compiled, *inputs[name])))
    for _ in range(args.repeats):
        for name, (compiled, _, seconds) in runs.items():
            before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            begin = time.perf_counter()
            for _call in range(calls[name]):
                jax.block_until_ready(compiled(*inputs[name]))
            seconds.append((time.perf_counter() - begin) / calls[name])
            faults[name].append((resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / calls[name])
    tunables = os.environ.get("GLIBC_TUNABLES")
    print(f"\n{args.size}x{args.size}, batch {args.batch}, whole-game positions, {jax.default_backend()}")
    if tunables:
        print(f"GLIBC_TUNABLES={tunables}")
    print("| what | boards/s | x step | compile s | page faults a call |\n|---|---:|---:|---:|---:|")
    rows = []
    for name, (_, compile_s, seconds) in runs.items():
        rate = args.batch / statistics.median(seconds)
        ratio = statistics.median(s / w for s, w in zip(runs["step"][2], seconds, strict=True))
        touched = statistics.median(faults[name])
        print(f"| {name} | {rate:,.0f} | {ratio:.4f} | {compile_s:.1f} | {touched:,.0f} |")
        rows.append(
            {
                "what": name,
                "boards_per_s": f"{rate:.0f}",
                "x_step": f"{ratio:.4f}",
                "compile_s": f"{compile_s:.1f}",
            }
        )
    if args.csv:
        _append_csv(args, rows, argv)


def _append_csv(args, rows, argv=None) -> None:
    """The run's rows, each with its date, machine, command, board, batch and dtype, added to ``args.csv``."""
    common = {
        **provenance("feature_speed.py", argv),
        "size": str(args.size),
        "batch": str(args.batch),
        "dtype": args.dtype,
        "native": "no" if os.environ.get("GOJAX_NATIVE") == "0" else "yes",
    }
    fields = [*common, "what", "boards_per_s", "x_step", "compile_s"]
    append_rows(args.csv, [{**common, **row} for row in rows], fields)


if __name__ == "__main__":
    main()
