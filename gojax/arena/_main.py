"""The ``gojax-match`` console script: a refereed match between two GTP engines, with a Wilson interval.

::

    gojax-match gojax:mcts gnugo:1 --games 10 --size 9 --seconds-per-move 1 --out runs/match
    gojax-match gojax:uct:simulations=256 gojax:random --games 4 --size 9
    gojax-match "cmd:/usr/games/gnugo --mode gtp --level 5" gnugo:1 --games 2

The engines are written as :func:`~gojax.arena.engine_argv` reads them and
run in subprocesses (:class:`~gojax.arena.GTPClient`); the games
(:func:`~gojax.arena.play_match`) go to ``--out`` as SGF, and
``summary.json`` holds the counts, the first engine's score with its 95%
Wilson interval and the mean seconds per move of each side.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path

from gojax._core.types import GoConfig
from gojax.arena._client import GTPClient
from gojax.arena._match import engine_argv, play_match
from gojax.gtp import GTPError
from gojax.sgf import atomic_write

__all__ = ["build_parser", "match_main"]


def build_parser() -> argparse.ArgumentParser:
    """The flags of ``gojax-match``."""
    parser = argparse.ArgumentParser(
        prog="gojax-match", description="A refereed match between two GTP engines, with a Wilson interval."
    )
    parser.add_argument("first", nargs="?", default="gojax:mcts", help="engine (default gojax:mcts)")
    parser.add_argument("second", nargs="?", default="gnugo:1", help="engine (default gnugo:1)")
    parser.add_argument("--games", type=int, default=2, help="games (colours alternate; default 2)")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=7.5)
    parser.add_argument("--max-moves", type=int, default=None, help="move cap of a game (default 2*N*N)")
    parser.add_argument("--seconds-per-move", type=float, default=1.0, help="for gojax engines (default 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--time-settings", type=float, nargs=3, default=None, metavar=("MAIN", "BYO_TIME", "BYO_STONES")
    )
    parser.add_argument("--timeout", type=float, default=900.0, help="seconds to wait for one reply")
    parser.add_argument("--engine-logs", default=None, help="folder for the engines' stderr")
    parser.add_argument("--out", default="experiments/results/match", help="folder for SGF and summary.json")
    return parser


def match_main(argv: list[str] | None = None) -> int:
    """The ``gojax-match`` console script; returns the exit status (1 if no game finished)."""
    args = build_parser().parse_args(argv)
    if args.games < 1:
        print(f"gojax-match: --games must be >= 1, got {args.games}", file=sys.stderr)
        return 2
    config = GoConfig(size=args.size, komi=args.komi, max_moves=args.max_moves)
    try:
        argvs = [
            engine_argv(
                text,
                size=args.size,
                komi=args.komi,
                seconds_per_move=args.seconds_per_move,
                seed=args.seed,
                max_moves=args.max_moves,
            )
            for text in (args.first, args.second)
        ]
    except (ValueError, FileNotFoundError) as error:
        print(f"gojax-match: {error}", file=sys.stderr)
        return 2
    names = (args.first, args.second)
    if args.first == args.second:
        names = (f"{args.first} (1)", f"{args.first} (2)")
    out = Path(args.out)
    logs = Path(args.engine_logs) if args.engine_logs else None
    if logs is not None:
        logs.mkdir(parents=True, exist_ok=True)
    for name, argv_ in zip(names, argvs, strict=True):
        print(f"{name}: {shlex.join(argv_)}", flush=True)
    start = time.perf_counter()
    clients: list[GTPClient] = []
    try:
        for side, argv_ in enumerate(argvs):
            stderr = str(logs / f"engine_{side}.log") if logs is not None else None
            clients.append(GTPClient(argv_, timeout=args.timeout, stderr=stderr, name=names[side]))
        result = play_match(
            config,
            (clients[0], clients[1]),
            names,
            args.games,
            out,
            time_settings=tuple(args.time_settings) if args.time_settings else None,  # type: ignore[arg-type]
            log=lambda line: print(line, flush=True),
        )
    except GTPError as error:
        print(f"gojax-match: {error}", file=sys.stderr)
        return 1
    finally:
        for client in clients:
            client.close()
    if not result.games:
        print("gojax-match: no game finished", file=sys.stderr)
        return 1
    summary = result.summary()
    summary.update(
        size=args.size,
        komi=args.komi,
        move_cap=config.move_cap,
        wall_seconds=time.perf_counter() - start,
        commands=[shlex.join(a) for a in argvs],
    )
    atomic_write(out / "summary.json", json.dumps(summary, indent=1) + "\n")
    print(result.line() + f"; {summary['wall_seconds']:.0f} s; SGF in {out}", flush=True)
    return 0
