"""A refereed match between a gojax player and GNU Go over GTP.

::

    python experiments/gnugo_match.py --games 10 --size 9 --player uct --simulations 128
    python experiments/gnugo_match.py --games 2 --size 5 --player heuristic --in-process

gojax's engine runs as a subprocess, ``python -m gojax.gtp ...`` (the real
console path: flags, stdin/stdout framing, flushing) - or in this process
with ``--in-process``. GNU Go runs as ``gnugo --mode gtp --level L
--chinese-rules --positional-superko --capture-all-dead``. Colours alternate
(gojax is black in the even-numbered games). The referee
(:func:`gojax.gtp.referee_game`) keeps the authoritative game with gojax's
rules, ends it at two passes, a resignation, a forfeit or the move cap, scores
it with gojax's Tromp-Taylor score and asks both engines for ``final_score``;
disagreements are printed and kept in the summary.

Writes every game as SGF (atomically) and ``summary.json`` into ``--out``
(default ``experiments/results/gnugo/<size>x<size>_<player>``) and prints
gojax's wins, losses and draws with a 95% Wilson interval.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import gojax
from gojax import gtp
from gojax.players.match import wilson_interval
from gojax.sgf import atomic_write

BLACK, WHITE = 1, 2


def parse_args(argv=None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=2, help="number of games (colours alternate)")
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=7.5)
    parser.add_argument("--max-moves", type=int, default=None, help="move cap of a game (default 3*N*N)")
    parser.add_argument("--player", choices=gtp.PLAYERS, default="uct")
    parser.add_argument("--simulations", type=int, default=128)
    parser.add_argument("--playouts", type=int, default=8)
    parser.add_argument("--rollout", choices=("random", "heuristic"), default="random")
    parser.add_argument("--checkpoint", default=None, help="AlphaZero checkpoint (--player az)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--in-process", action="store_true", help="run the gojax engine in this process")
    parser.add_argument("--gnugo", default=None, help="GNU Go binary (default: gnugo on PATH or /usr/games)")
    parser.add_argument("--gnugo-level", type=int, default=1)
    parser.add_argument(
        "--time-settings",
        type=float,
        nargs=3,
        default=None,
        metavar=("MAIN", "BYO_TIME", "BYO_STONES"),
        help="GTP time_settings sent to both",
    )
    parser.add_argument("--cache-dir", default=None, help="JAX compilation cache for the engine")
    parser.add_argument("--engine-log", default=None, help="file for the gojax engine's stderr")
    parser.add_argument("--out", default=None, help="output directory for SGF files and summary.json")
    return parser.parse_args(argv)


def engine_argv(args) -> list[str]:
    argv = [
        sys.executable,
        "-m",
        "gojax.gtp",
        "--size",
        str(args.size),
        "--komi",
        str(args.komi),
        "--player",
        args.player,
        "--simulations",
        str(args.simulations),
        "--playouts",
        str(args.playouts),
        "--rollout",
        args.rollout,
        "--seed",
        str(args.seed),
        "--name",
        f"gojax-{args.player}",
    ]
    if args.checkpoint:
        argv += ["--checkpoint", args.checkpoint]
    if args.cache_dir:
        argv += ["--cache-dir", args.cache_dir]
    return argv


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.games < 1:
        raise SystemExit("--games must be >= 1")
    out = Path(args.out or f"experiments/results/gnugo/{args.size}x{args.size}_{args.player}")
    out.mkdir(parents=True, exist_ok=True)
    cap = args.max_moves or 3 * args.size * args.size
    config = gojax.GoConfig(size=args.size, komi=args.komi, max_moves=cap)
    label = {
        "uct": f"UCT {args.simulations} sims ({args.rollout} playouts)",
        "mc": f"pure MC {args.playouts} playouts",
        "az": f"AlphaZero {args.simulations} sims",
    }
    ours_name = f"gojax {label.get(args.player, args.player)}"
    theirs_name = f"GNU Go level {args.gnugo_level}"
    gnugo_argv = gtp.gnugo_command(args.gnugo_level, binary=args.gnugo, seed=args.seed + 1)
    print(f"gojax: {'in-process' if args.in_process else ' '.join(engine_argv(args))}")
    print(f"GNU Go: {' '.join(gnugo_argv)}")
    start = time.perf_counter()
    if args.in_process:
        ours = gtp.GTPEngine(
            gojax.GoConfig(size=args.size, komi=args.komi),
            gtp.PlayerSpec(
                args.player, args.simulations, args.playouts, args.rollout, args.checkpoint, seed=args.seed
            ),
            gtp.EngineOptions(name=ours_name),
        )
    else:
        ours = gtp.GTPClient(engine_argv(args), timeout=1800, stderr=args.engine_log, name="gojax")
    games = []
    try:
        with gtp.GTPClient(gnugo_argv, timeout=600, name="gnugo") as gnugo:
            for index in range(args.games):
                ours_black = index % 2 == 0
                black, white = (ours, gnugo) if ours_black else (gnugo, ours)
                names = (ours_name, theirs_name) if ours_black else (theirs_name, ours_name)
                began = time.perf_counter()
                try:
                    game = gtp.referee_game(
                        config,
                        black,
                        white,
                        names=names,
                        time_settings=tuple(args.time_settings) if args.time_settings else None,
                    )
                except gtp.GTPError as error:  # an engine failed a command: the game is void
                    print(f"game {index + 1}/{args.games}: void: {error}", flush=True)
                    if isinstance(error, gtp.GTPTimeout) or "exited" in error.message:
                        break
                    continue
                seconds = time.perf_counter() - began
                ours_colour = BLACK if ours_black else WHITE
                outcome = "draw" if game.winner == 0 else "win" if game.winner == ours_colour else "loss"
                path = out / f"game_{index:03d}.sgf"
                atomic_write(path, game.sgf({"EV": f"gojax vs GNU Go, game {index + 1}"}))
                ours_seconds = game.seconds[0 if ours_black else 1]
                ours_moves = sum(1 for colour, _ in game.moves if colour == ours_colour)
                record = {
                    "game": index,
                    "gojax_colour": "black" if ours_black else "white",
                    "result": game.result,
                    "gojax": outcome,
                    "reason": game.reason,
                    "moves": len(game.moves),
                    "gojax_seconds_per_move": ours_seconds / max(1, ours_moves),
                    "wall_seconds": seconds,
                    "engine_scores": game.engine_scores,
                    "disagreements": game.disagreements,
                    "sgf": path.name,
                }
                games.append(record)
                print(
                    f"game {index + 1}/{args.games}: gojax {record['gojax_colour']}: {game.result} "
                    f"({game.reason}, {len(game.moves)} moves, "
                    f"gojax {record['gojax_seconds_per_move']:.2f} s/move, {seconds:.0f} s) "
                    f"-> gojax {outcome}"
                    + (f"; score disagreements: {game.disagreements}" if game.disagreements else ""),
                    flush=True,
                )
    finally:
        if isinstance(ours, gtp.GTPClient):
            ours.close()
    if not games:
        print("no game finished")
        return 1
    wins = sum(g["gojax"] == "win" for g in games)
    losses = sum(g["gojax"] == "loss" for g in games)
    draws = len(games) - wins - losses
    score = (wins + 0.5 * draws) / len(games)
    low, high = wilson_interval(wins + 0.5 * draws, len(games))
    disagreements = sum(bool(g["disagreements"]) for g in games)
    summary = {
        "gojax": ours_name,
        "opponent": theirs_name,
        "size": args.size,
        "komi": args.komi,
        "move_cap": cap,
        "games": len(games),
        "wins": wins,
        "losses": losses,
        "draws": draws,
        "score": score,
        "score_wilson_95": [low, high],
        "games_with_score_disagreements": disagreements,
        "wall_seconds": time.perf_counter() - start,
        "engine": "in-process" if args.in_process else " ".join(engine_argv(args)[1:]),
        "gnugo": " ".join(gnugo_argv),
        "per_game": games,
    }
    atomic_write(out / "summary.json", json.dumps(summary, indent=1) + "\n")
    print(
        f"{ours_name} vs {theirs_name}, {args.size}x{args.size}, komi {args.komi:g}: "
        f"{wins} wins, {losses} losses, {draws} draws; score {score:.3f} "
        f"[95% Wilson {low:.3f}, {high:.3f}]; {disagreements} games with final_score disagreements; "
        f"{summary['wall_seconds']:.0f} s; SGF in {out}{os.sep}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
