"""gojax players against GNU Go: a strength table, every game refereed by gojax and saved as SGF.

::

    python experiments/gnugo_match.py --players gojax:mcts --levels 1 --games 10 --seconds-per-move 1
    python experiments/gnugo_match.py --players gojax:mcts gojax:uct:simulations=256 gojax:random \\
        --levels 1 5 10 --games 40 --size 9        # the full table (hours on two cores)

Each cell is one match of :func:`gojax.arena.play_match` (the ``gojax-match``
console script runs one): a gojax engine (``python -m gojax.gtp --player
...``, compiled with ``gojax-warmup`` before the first game) against GNU Go
3.8 (``gnugo --mode gtp --level L --chinese-rules --komi 7.5
--positional-superko --capture-all-dead``), colours alternating, games scored
by gojax's Tromp-Taylor area count. Writes the games as SGF, ``summary.json``
and the gojax engine's log (``engine.log``) per cell under ``--out``, and
``table.md`` / ``table.csv`` with the counts, the score's 95% Wilson interval and the mean seconds per move
of each side.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import re
import shlex
import sys
import time
from pathlib import Path

from provenance import command

from gojax import arena
from gojax._core.types import GoConfig
from gojax.sgf import atomic_write

HEADER = ["player", "opponent", "games", "wins", "losses", "draws", "score", "wilson_95"]
HEADER += ["s/move", "opp s/move"]


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", nargs="+", default=["gojax:mcts"], help="engines (gojax-match syntax)")
    parser.add_argument("--levels", type=int, nargs="+", default=[1], help="GNU Go levels")
    parser.add_argument("--games", type=int, default=2, help="games per cell (colours alternate)")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=7.5)
    parser.add_argument("--seconds-per-move", type=float, default=1.0, help="for gojax engines")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", default="experiments/results/gnugo", help="output folder")
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.games < 1:
        raise SystemExit("--games must be >= 1")
    config = GoConfig(size=args.size, komi=args.komi)  # gojax's default move cap, 2 * N * N
    out = Path(args.out)
    rows = []
    for player in args.players:
        argv_ = arena.engine_argv(
            player, size=args.size, komi=args.komi, seconds_per_move=args.seconds_per_move, seed=args.seed
        )
        for level in args.levels:
            opponent = f"gnugo:{level}"
            gnugo = arena.engine_argv(opponent, size=args.size, komi=args.komi, seed=args.seed)
            slug = re.sub(r"[^A-Za-z0-9.-]+", "_", player).strip("_")  # one folder, also for paths in flags
            cell = out / f"{args.size}x{args.size}_{slug}_vs_gnugo{level}"
            print(f"{player}: {shlex.join(argv_)}\n{opponent}: {shlex.join(gnugo)}", flush=True)
            start = time.perf_counter()
            cell.mkdir(parents=True, exist_ok=True)
            with (
                arena.GTPClient(argv_, timeout=1800, name=player, stderr=str(cell / "engine.log")) as ours,
                arena.GTPClient(gnugo, timeout=600, name=opponent) as theirs,
            ):
                names = (player, opponent)
                result = arena.play_match(
                    config, (ours, theirs), names, args.games, cell, log=lambda s: print(s, flush=True)
                )
            summary = result.summary()
            summary.update(commands=[shlex.join(argv_), shlex.join(gnugo)])
            summary.update(wall_seconds=time.perf_counter() - start)
            atomic_write(cell / "summary.json", json.dumps(summary, indent=1) + "\n")
            print(result.line(), flush=True)
            if result.games:
                stats = result.result()
                low, high = stats.score_interval
                counts = [stats.wins, stats.losses, stats.draws]
                seconds = [f"{result.seconds_per_move(side):.2f}" for side in (0, 1)]
                score = [f"{stats.score:.3f}", f"[{low:.3f}, {high:.3f}]"]
                rows.append([player, opponent, stats.num_games, *counts, *score, *seconds])
    table = io.StringIO()
    csv.writer(table).writerows([HEADER, *rows])
    atomic_write(out / "table.csv", table.getvalue())
    lines = ["| " + " | ".join(HEADER) + " |", "|" + "---|" * len(HEADER)]
    lines += ["| " + " | ".join(str(v) for v in row) + " |" for row in rows]
    ran = command("gnugo_match.py", argv)
    text = "\n".join(lines) + f"\n\n{args.size}x{args.size}, komi {args.komi:g}; command: `{ran}`\n"
    atomic_write(out / "table.md", text)
    print(text)
    return 0 if rows else 1


if __name__ == "__main__":
    sys.exit(main())
