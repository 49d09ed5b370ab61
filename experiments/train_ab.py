"""A/B of two training recipes at equal wall time on one machine: both trained side by side, then matched.

    python experiments/train_ab.py --minutes 20 --b "--ownership-weight 1.5 --score-weight 0.5"
    python experiments/train_ab.py --minutes 1 --games 20 --gnugo-games 0 --run-dir /tmp/ab   # smoke run

1. **Training**: ``gojax-train`` runs twice at once, recipe A (``--a``,
   the defaults unless given) and recipe B (``--b``), each pinned to its
   own core (``taskset``) on one JAX device, for ``--minutes`` each, with
   the same seed and no evaluation during training. Same machine, same
   minutes, same moment: what differs is the recipe.
2. **Head to head**: the two final networks play ``--games`` games
   (:func:`gojax.players.play_match`, colours alternated, batched), each
   with the same search (``--eval-simulations`` Gumbel simulations, no
   root noise), so the networks are compared, not the search budgets.
3. **Against GNU Go** (optional, ``--gnugo-games``): each agent with the
   same search against GNU Go 3.8 at ``--level``
   (:func:`gojax.training.play_gnugo`), games saved as SGF.

One row per arm is appended to ``--csv`` (default
``docs/results/training_ab.csv``): date, machine, command, the arm's
flags, its self-play positions and games, final loss, the head-to-head
score of B against A with its Wilson 95% interval and Elo, and the GNU Go
results.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import shlex
import subprocess
import sys

import jax
import numpy as np
from provenance import append_rows, provenance

import gojax
from gojax import alphazero as az
from gojax import players

FIELDS = [
    "date",
    "machine",
    "command",
    "arm",
    "flags",
    "minutes",
    "positions",
    "games",
    "final_loss",
    "h2h_games",
    "h2h_score_b",
    "h2h_low",
    "h2h_high",
    "h2h_elo_b",
    "gnugo_level",
    "gnugo_wins",
    "gnugo_games",
]


def _train(run_dir: str, flags: str, core: int, args: argparse.Namespace) -> subprocess.Popen:
    command = [
        sys.executable,
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "train.py"),
        "--run-dir",
        run_dir,
        "--minutes",
        str(args.minutes),
        "--seed",
        str(args.seed),
        "--host-devices",
        "1",
        "--eval-every",
        "0",
        "--final-eval-games",
        "0",
        "--sgf-games",
        "0",
        "--no-progress",
        *shlex.split(flags),
    ]
    if args.pin:
        command = ["taskset", "-c", str(core), *command]
    with open(run_dir + ".flags", "w") as f:
        f.write(flags)
    log = open(run_dir + ".log", "w")  # the child writes it; closed when this process exits
    return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT)


_RECIPE = (
    "simulations",
    "full_search_fraction",
    "ownership_weight",
    "score_weight",
    "global_pooling",
    "root_value_weight",
    "fill_own_eyes",
    "learning_rate",
    "blocks",
    "channels",
)
_ALIASES = {"learning_rate": ("--lr",)}


def _recipe(flags: str, config: dict) -> str:
    """The arm's flags, with the recipe's main fields as the run had them (defaults change)."""
    shown = " ".join(
        f"--{name.replace('_', '-')} {config[name]}"
        if not isinstance(config[name], bool)
        else f"--{'' if config[name] else 'no-'}{name.replace('_', '-')}"
        for name in _RECIPE
        if not {f"--{name.replace('_', '-')}", f"--no-{name.replace('_', '-')}", *_ALIASES.get(name, ())}
        & {flag.split("=")[0] for flag in shlex.split(flags)}
    )
    return " ".join(part for part in (flags, shown) if part)


def _counters(run_dir: str) -> dict:
    with open(os.path.join(run_dir, "summary.json")) as f:
        return json.load(f)


def _player(run_dir: str, simulations: int) -> az.AlphaZeroPlayer:
    net, _, meta = az.load_checkpoint(os.path.join(run_dir, "network"))
    graphdef, variables = az.split(net)
    search = az.SearchSettings(num_simulations=simulations).for_play()
    observe = gojax.features.observation(meta.get("observe_name", "basic")).observe
    return az.AlphaZeroPlayer(graphdef, variables, search, observe=observe)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--a",
        default="",
        help="gojax-train flags of recipe A (default: the defaults; one flag alone: --a=--flag)",
    )
    parser.add_argument("--b", default="", help="gojax-train flags of recipe B (one flag alone: --b=--flag)")
    parser.add_argument("--minutes", type=float, default=20.0, help="training minutes of each arm")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--run-dir", default="runs/ab", help="the two runs go to RUN_DIR/a and RUN_DIR/b")
    parser.add_argument("--games", type=int, default=200, help="head-to-head games (even)")
    parser.add_argument("--eval-simulations", type=int, default=16, help="both agents' search in matches")
    parser.add_argument("--gnugo-games", type=int, default=10, help="games of each agent against GNU Go")
    parser.add_argument("--level", type=int, default=1, help="GNU Go's level")
    parser.add_argument("--no-pin", dest="pin", action="store_false", help="do not pin each arm to a core")
    parser.add_argument("--skip-training", action="store_true", help="match the runs already in --run-dir")
    parser.add_argument("--csv", default="docs/results/training_ab.csv")
    args = parser.parse_args()

    runs = {arm: os.path.join(args.run_dir, arm) for arm in ("a", "b")}
    flags = {"a": args.a, "b": args.b}
    if not args.skip_training:
        os.makedirs(args.run_dir, exist_ok=True)
        procs = {arm: _train(runs[arm], flags[arm], i, args) for i, arm in enumerate(("a", "b"))}
        failed = [arm for arm, proc in procs.items() if proc.wait() != 0]
        if failed:
            print(f"training failed for {failed}: see {args.run_dir}/<arm>.log", file=sys.stderr)
            return 1

    counters = {arm: _counters(runs[arm]) for arm in runs}
    for arm in runs:
        with open(runs[arm] + ".flags") as f:
            flags[arm] = f.read()
    config = gojax.GoConfig(size=counters["a"]["config"]["size"], komi=counters["a"]["config"]["komi"])
    a, b = (_player(runs[arm], args.eval_simulations) for arm in ("a", "b"))
    h2h = players.play_match(config, b, a, num_games=args.games, key=jax.random.PRNGKey(args.seed))
    print(f"B against A: {h2h}")
    low, high = h2h.score_interval
    gnugo = {}
    if args.gnugo_games:
        from gojax.training import play_gnugo

        search = az.SearchSettings(num_simulations=args.eval_simulations).for_play()
        for arm in ("a", "b"):
            result = play_gnugo(
                config,
                os.path.join(runs[arm], "network"),
                args.gnugo_games,
                settings=search,
                level=args.level,
                seed=args.seed,
                sgf_dir=os.path.join(runs[arm], "gnugo_sgf"),
            )
            gnugo[arm] = result.wins
            print(f"{arm} against GNU Go level {args.level}: {result}")

    # The date with the time: it tells apart the runs of one day (experiments/report.py keeps the day).
    common = {
        **provenance("train_ab.py"),
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
    }
    rows = []
    for arm in ("a", "b"):
        c = counters[arm]
        rows.append(
            {
                **common,
                "arm": arm,
                "flags": _recipe(flags[arm], c["config"]),
                "minutes": c["config"]["minutes"],
                "positions": c["positions"],
                "games": c["games"],
                "final_loss": "" if c.get("final_loss") is None else f"{c['final_loss']:.3f}",
                "h2h_games": h2h.num_games,
                "h2h_score_b": f"{h2h.score:.3f}",
                "h2h_low": f"{low:.3f}",
                "h2h_high": f"{high:.3f}",
                "h2h_elo_b": f"{h2h.elo:.0f}" if np.isfinite(h2h.elo) else str(h2h.elo),
                "gnugo_level": args.level if gnugo else "",
                "gnugo_wins": gnugo.get(arm, ""),
                "gnugo_games": args.gnugo_games if gnugo else "",
            }
        )
    append_rows(args.csv, rows, FIELDS)
    print(f"wrote {args.csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
