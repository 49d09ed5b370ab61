"""pgx's AlphaZero example on pgx's Go and on gojax, side by side: the printed logs, compared exactly.

pgx ships an AlphaZero example (``examples/alphazero/train.py`` and
``network.py`` in the pgx repository; it needs dm-haiku, omegaconf and
pydantic). This script runs it three times, each in its own process, from
copies in a temporary folder: as it is, and with its environment line
changed as a pgx user changes it, with gojax's default rules and with
pgx's handling of superko repeats (listed in the legal mask, lost when
played)::

    env = pgx.make(config.env_id)                                           # pgx
    import gojax; env = gojax.make(config.env_id)                           # gojax
    import gojax; env = gojax.make(config.env_id, mask_repeats=False)       # gojax, pgx's repeats

Both copies get the same two changes, for a machine with no network and
JAX 0.10, neither because of gojax: the baseline model (which
``pgx.make_baseline_model`` downloads) becomes a uniform policy, and
``jax.device_put_replicated`` (gone from JAX) is defined in a
``sitecustomize.py`` as stacking one copy per device. Where wandb is not
installed, a stand-in module that drops the logs takes its place: the logs
compared are those the example prints.

Every printed log entry but the wall time (``hours``) is compared as the
text Python prints for it, so equal means bit for bit. One row per
iteration and entry goes to ``--csv`` (appended) with the date, the
machine and the command; ``python experiments/report.py`` renders them in
docs/env.md. Exit status 1 when an entry differs.

    git clone https://github.com/sotetsuk/pgx
    pip install dm-haiku omegaconf pydantic
    python experiments/pgx_example.py --example pgx/examples/alphazero --csv docs/results/pgx_example.csv
"""

from __future__ import annotations

import argparse
import ast
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

from provenance import append_rows, provenance

ENV_LINE = "env = pgx.make(config.env_id)"
ARMS = {
    "gojax": "import gojax; env = gojax.make(config.env_id)",
    "gojax, mask_repeats=False": "import gojax; env = gojax.make(config.env_id, mask_repeats=False)",
}
"""Each gojax arm and its environment line."""
BASELINE_LINE = 'baseline = pgx.make_baseline_model(config.env_id + "_v0")'
UNIFORM_BASELINE = (
    "baseline = lambda obs: (jnp.zeros((obs.shape[0], env.num_actions)), jnp.zeros(obs.shape[0]))"
)

SITECUSTOMIZE = '''\
import jax
import jax.numpy as jnp

if not hasattr(jax, "device_put_replicated"):
    def device_put_replicated(tree, devices):
        """One copy of ``tree`` per device, stacked on a new leading axis."""
        return jax.tree_util.tree_map(lambda x: jnp.stack([jnp.asarray(x)] * len(devices)), tree)

    jax.device_put_replicated = device_put_replicated
'''

WANDB_STAND_IN = '''\
"""A stand-in for wandb: the example's logs are read from what it prints."""


def init(*args, **kwargs):
    return None


def log(*args, **kwargs):
    return None
'''

# The example's own settings, made small enough for a CPU in a few minutes.
DEFAULT_SETTINGS = (
    "env_id=go_9x9 selfplay_batch_size=8 num_simulations=32 max_num_steps=192 training_batch_size=32 "
    "num_channels=8 num_layers=1 max_num_iters=3 eval_interval=1"
)

# Entries that are not results: the wall time differs between any two runs.
NOT_COMPARED = ("hours",)

EXAMPLE_AS_RECORDED = "pgx/examples/alphazero"
"""How the recorded command writes ``--example`` (a local path; the ``example`` column holds its commit)."""


def prepared_copy(example: Path, folder: Path, environment: str) -> Path:
    """A copy of the example in ``folder`` for ``environment`` (``"pgx"`` or a key of :data:`ARMS`)."""
    for name in ("train.py", "network.py"):
        if not (example / name).is_file():
            raise SystemExit(
                f"{example} holds no {name}: give --example the folder of pgx's examples/alphazero"
            )
    folder.mkdir(parents=True)
    source = (example / "train.py").read_text()
    for line in (ENV_LINE, BASELINE_LINE):
        if source.count(line) != 1:
            raise SystemExit(f"{example / 'train.py'} does not hold the line {line!r} once: another version?")
    source = source.replace(BASELINE_LINE, UNIFORM_BASELINE)
    if environment in ARMS:
        source = source.replace(ENV_LINE, ARMS[environment])
    (folder / "train.py").write_text(source)
    shutil.copy(example / "network.py", folder / "network.py")
    (folder / "sitecustomize.py").write_text(SITECUSTOMIZE)
    try:
        import wandb  # noqa: F401
    except ImportError:
        (folder / "wandb.py").write_text(WANDB_STAND_IN)
    return folder


def run_example(folder: Path, settings: list[str]) -> list[dict]:
    """The logs ``train.py`` prints (one dict per iteration), run in ``folder`` with ``settings``."""
    environ = dict(os.environ, WANDB_MODE="disabled")
    repository = str(Path(__file__).resolve().parent.parent)
    environ["PYTHONPATH"] = os.pathsep.join(
        [str(folder), repository, *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    done = subprocess.run(
        [sys.executable, "train.py", *settings], cwd=folder, env=environ, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"train.py failed in {folder}:\n{done.stderr[-4000:]}")
    logs = []
    for line in done.stdout.splitlines():
        if line.startswith("{"):
            logs.append(ast.literal_eval(line))
    if not logs:
        raise SystemExit(f"train.py printed no log in {folder}:\n{done.stdout[-2000:]}")
    return logs


def compared(arm: str, pgx_logs: list[dict], gojax_logs: list[dict]) -> list[dict[str, str]]:
    """One row per iteration and entry: both values as printed, and whether they are the same."""
    if len(pgx_logs) != len(gojax_logs):
        raise SystemExit(f"pgx printed {len(pgx_logs)} logs, gojax {len(gojax_logs)}")
    rows = []
    for theirs, ours in zip(pgx_logs, gojax_logs, strict=True):
        for name in sorted(set(theirs) | set(ours)):
            if name in NOT_COMPARED or name == "iteration":
                continue
            left, right = repr(theirs.get(name)), repr(ours.get(name))
            rows.append(
                {
                    "arm": arm,
                    "iteration": str(theirs["iteration"]),
                    "entry": name,
                    "pgx": left,
                    "gojax": right,
                    "equal": "yes" if left == right else "no",
                }
            )
    return rows


def recorded_argv(argv: Sequence[str]) -> list[str]:
    """``argv`` with the value of ``--example`` (a local path) written as :data:`EXAMPLE_AS_RECORDED`."""
    recorded, example_next = [], False
    for argument in argv:
        name, equals, _ = argument.partition("=")
        is_example = len(name) > 2 and "--example".startswith(name)  # argparse takes --ex for --example
        if example_next:
            argument = EXAMPLE_AS_RECORDED
        elif is_example and equals:
            argument = f"{name}={EXAMPLE_AS_RECORDED}"
        example_next = is_example and not equals and not example_next
        recorded.append(argument)
    return recorded


def write_csv(path: Path, rows: list[dict[str, str]], argv: Sequence[str], example_version: str) -> None:
    """Appends ``rows`` to ``path`` with the date, the machine, the command and the example's version."""
    common = {
        **provenance("pgx_example.py", recorded_argv(argv), packages=("pgx",)),
        "example": example_version,
    }
    fields = [*common, "arm", "iteration", "entry", "pgx", "gojax", "equal"]
    append_rows(path, [{**common, **row} for row in rows], fields)


def _example_version(example: Path) -> str:
    """The pgx commit the example comes from (``git rev-parse``), or ``unknown``."""
    found = subprocess.run(
        ["git", "-C", str(example), "rev-parse", "--short=8", "HEAD"], capture_output=True, text=True
    )
    return found.stdout.strip() if found.returncode == 0 else "unknown"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--example", type=Path, required=True, help="pgx's examples/alphazero folder")
    parser.add_argument(
        "--settings", default=DEFAULT_SETTINGS, help=f"the example's settings (default: {DEFAULT_SETTINGS})"
    )
    parser.add_argument("--csv", type=Path, help="append the rows here (docs/results/pgx_example.csv)")
    args = parser.parse_args(argv)
    settings = args.settings.split()
    with tempfile.TemporaryDirectory() as scratch:
        logs = {
            environment: run_example(
                prepared_copy(args.example, Path(scratch) / f"run{number}", environment), settings
            )
            for number, environment in enumerate(("pgx", *ARMS))
        }
    rows = [row for arm in ARMS for row in compared(arm, logs["pgx"], logs[arm])]
    for row in rows:
        mark = "" if row["equal"] == "yes" else "   <- differs"
        where = f"{row['arm']}, iteration {row['iteration']} {row['entry']}"
        print(f"{where}: pgx {row['pgx']}, gojax {row['gojax']}{mark}")
    if args.csv:
        write_csv(args.csv, rows, sys.argv[1:] if argv is None else argv, _example_version(args.example))
    differing = [row for row in rows if row["equal"] != "yes"]
    print(f"{len(rows) - len(differing)} of {len(rows)} entries equal")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
