"""Classic players against each other on 9x9: pure Monte-Carlo, UCT, heuristic playouts.

Three matchups, each a batch of games with colours alternated (half the games
A is black), full default rules (komi 7.5, positional superko), fixed seed:

1. ``uct``: UCT with ``--uct-strong`` simulations vs UCT with ``--uct-weak``
   (random playouts, C = sqrt(2));
2. ``heuristic``: UCT with heuristic playouts vs UCT with random playouts,
   both with ``--heuristic-sims`` simulations;
3. ``mc``: pure Monte-Carlo (``--mc-playouts`` random playouts per candidate
   move) vs the uniformly random player.

Prints a table (wins/losses/draws of A, score with its 95% Wilson interval,
Elo difference with its interval, wall time) and writes
``experiments/results/classic_players.csv`` (one row per matchup, appended as
each finishes).

    python experiments/classic_players.py                 # 9x9, 200 games per matchup (about 70 min)
    python experiments/classic_players.py --quick         # 5x5 smoke run, 20 games, seconds
    python experiments/classic_players.py --only uct      # one matchup
"""

from __future__ import annotations

import argparse
import platform
import time
from pathlib import Path

import jax
from provenance import append_rows, cpu_model

import gojax
from gojax import players as P

RESULTS = Path(__file__).resolve().parent / "results"
MATCHUP_IDS = {"uct": 0, "heuristic": 1, "mc": 2}  # each matchup's key: fold_in(PRNGKey(seed), id)
FIELDS = [
    "matchup",
    "player_a",
    "player_b",
    "games",
    "wins",
    "losses",
    "draws",
    "score",
    "score_lo",
    "score_hi",
    "elo",
    "elo_lo",
    "elo_hi",
    "wins_as_black",
    "wins_as_white",
    "adjudicated",
    "mean_moves",
    "seconds",
    "size",
    "komi",
    "ko_rule",
    "seed",
    "jax",
    "device",
]


def matchups(args):
    heuristic = P.heuristic_playout_policy
    return {
        "mc": (
            f"pure MC {args.mc_playouts} playouts/move",
            P.pure_monte_carlo(args.mc_playouts),
            "random",
            P.random_player,
        ),
        "uct": (
            f"UCT {args.uct_strong} sims",
            P.uct_player(args.uct_strong),
            f"UCT {args.uct_weak} sims",
            P.uct_player(args.uct_weak),
        ),
        "heuristic": (
            f"UCT {args.heuristic_sims} sims, heuristic playouts",
            P.uct_player(args.heuristic_sims, rollout_policy=heuristic),
            f"UCT {args.heuristic_sims} sims, random playouts",
            P.uct_player(args.heuristic_sims),
        ),
    }


def _fmt_elo(x: float) -> str:
    return f"{x:+.0f}" if abs(x) != float("inf") else ("+inf" if x > 0 else "-inf")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=7.5)
    parser.add_argument("--games", type=int, default=200, help="games per matchup (even)")
    parser.add_argument("--batch", type=int, default=None, help="games per compiled call (default: all)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mc-playouts", type=int, default=2)
    parser.add_argument("--uct-strong", type=int, default=128)
    parser.add_argument("--uct-weak", type=int, default=16)
    parser.add_argument("--heuristic-sims", type=int, default=16)
    parser.add_argument("--only", default="uct,heuristic,mc", help="comma-separated: uct, heuristic, mc")
    parser.add_argument("--quick", action="store_true", help="5x5, 20 games, 2 playouts, 16/4/8 sims")
    parser.add_argument("--out", type=Path, default=RESULTS / "classic_players.csv")
    args = parser.parse_args(argv)
    if args.quick:
        args.size, args.komi, args.games = 5, 0.5, 20
        args.mc_playouts, args.uct_strong, args.uct_weak, args.heuristic_sims = 2, 16, 4, 8
    config = gojax.GoConfig(size=args.size, komi=args.komi)
    device = f"{jax.devices()[0].platform} ({cpu_model() or platform.machine()})"
    print(
        f"{args.size}x{args.size}, komi {config.komi}, {config.ko_rule} superko, {args.games} games per "
        f"matchup, seed {args.seed}, JAX {jax.__version__} on {device}",
        flush=True,
    )
    rows = []
    table = matchups(args)
    for name in args.only.split(","):
        if name not in table:
            raise SystemExit(f"unknown matchup {name!r}; choose from {sorted(table)}")
        a_name, a, b_name, b = table[name]
        start = time.perf_counter()
        key = jax.random.fold_in(jax.random.PRNGKey(args.seed), MATCHUP_IDS[name])
        result = P.play_match(config, a, b, args.games, key, batch_size=args.batch)
        seconds = time.perf_counter() - start
        print(f"{a_name} vs {b_name}: {result} ({seconds:.0f} s)", flush=True)
        lo, hi = result.score_interval
        elo_lo, elo_hi = result.elo_interval
        row = dict(
            matchup=name,
            player_a=a_name,
            player_b=b_name,
            games=result.num_games,
            wins=result.wins,
            losses=result.losses,
            draws=result.draws,
            score=f"{result.score:.4f}",
            score_lo=f"{lo:.4f}",
            score_hi=f"{hi:.4f}",
            elo=_fmt_elo(result.elo),
            elo_lo=_fmt_elo(elo_lo),
            elo_hi=_fmt_elo(elo_hi),
            wins_as_black=result.wins_as_black,
            wins_as_white=result.wins_as_white,
            adjudicated=result.adjudicated,
            mean_moves=f"{result.mean_length:.1f}",
            seconds=f"{seconds:.0f}",
            size=args.size,
            komi=config.komi,
            ko_rule=config.ko_rule,
            seed=args.seed,
            jax=jax.__version__,
            device=device,
        )
        rows.append(row)
        append_rows(args.out, [row], FIELDS)  # each matchup as it finishes
    print()
    print("| A | B | games | A wins/losses/draws | A score [95% CI] | Elo A-B [95% CI] | moves/game | s |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['player_a']} | {r['player_b']} | {r['games']} "
            f"| {r['wins']} / {r['losses']} / {r['draws']} "
            f"| {r['score']} [{r['score_lo']}, {r['score_hi']}] | {r['elo']} [{r['elo_lo']}, {r['elo_hi']}] "
            f"| {r['mean_moves']} | {r['seconds']} |"
        )
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
