"""gojax-gtp's dead stones against GNU Go's, on the last position of real game records.

::

    python experiments/gtp_status_vs_gnugo.py --sgf ../shared/data/sgf --size 9
    python experiments/gtp_status_vs_gnugo.py --sgf ../shared/data/sgf --size 13 --playouts 64

For every SGF file of the chosen board size in ``--sgf`` (all its moves
legal under gojax's rules), both engines load the game (``loadsgf``) and answer
``final_status_list dead``; gojax's engine runs in this process with
``--playouts`` playouts per colour, GNU Go as ``gnugo --mode gtp``. Prints one
row per game (stones on the board, dead by gojax, dead by GNU Go, agreed
points) and the totals; writes the rows as CSV to ``--out``.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
import time
from pathlib import Path

import gojax
from gojax import arena, gtp
from gojax.gtp import _status


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sgf", type=Path, required=True, help="folder of SGF files")
    parser.add_argument("--size", type=int, default=9, help="board size of the games to take (default 9)")
    parser.add_argument("--playouts", type=int, default=_status.PLAYOUTS, help="playouts per colour")
    parser.add_argument("--limit", type=int, default=None, help="at most this many games")
    parser.add_argument("--out", type=Path, default=Path("experiments/results/gtp_status_vs_gnugo.csv"))
    return parser.parse_args(argv)


def main(argv=None) -> int:
    args = parse_args(argv)
    binary = arena.find_gnugo()
    if binary is None:
        print("GNU Go is not installed", file=sys.stderr)
        return 2
    pattern = re.compile(rf"SZ\[{args.size}\]")
    files = sorted(p for p in args.sgf.glob("*.sgf") if pattern.search(p.read_text("latin-1")))
    rows = []
    with arena.GTPClient(arena.gnugo_command(level=10, seed=1), timeout=120) as gnugo:
        for path in files[: args.limit]:
            engine = gtp.GTPEngine(gojax.GoConfig(size=args.size), gtp.PlayerSpec("random", seed=0))
            engine.status_playouts = args.playouts
            try:
                engine.send(f"loadsgf {path}")
                gnugo.send(f"loadsgf {path}")
            except gtp.GTPError as error:
                print(f"skip {path.name}: {error}", file=sys.stderr)
                continue
            start = time.perf_counter()
            ours = set(engine.send("final_status_list dead").split())
            seconds = time.perf_counter() - start
            theirs = {v.upper() for v in gnugo.send("final_status_list dead").split()}
            stones = sum(len(engine.send(f"list_stones {colour}").split()) for colour in ("black", "white"))
            rows.append(
                {
                    "game": path.name,
                    "stones": stones,
                    "dead_gojax": len(ours),
                    "dead_gnugo": len(theirs),
                    "both": len(ours & theirs),
                    "only_gojax": " ".join(sorted(ours - theirs)),
                    "only_gnugo": " ".join(sorted(theirs - ours)),
                    "agree_points": stones - len(ours ^ theirs),
                    "seconds": round(seconds, 2),
                }
            )
            row = rows[-1]
            print(
                f"{row['game'][:48]:48s} stones {stones:3d} dead gojax {len(ours):3d} gnugo {len(theirs):3d} "
                f"both {row['both']:3d} same status {row['agree_points']}/{stones}  ({seconds:.1f} s)",
                flush=True,
            )
    if not rows:
        print("no game of that size", file=sys.stderr)
        return 1
    stones = sum(r["stones"] for r in rows)
    agree = sum(r["agree_points"] for r in rows)
    exact = sum(r["only_gojax"] == r["only_gnugo"] == "" for r in rows)
    print(f"\n{len(rows)} games: same dead list in {exact}; same status for {agree}/{stones} stones")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
