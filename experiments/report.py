"""Writes the tables that README.md and docs/ show from the data files under docs/results/.

    python experiments/report.py           # rewrite every table between its markers
    python experiments/report.py --check   # exit 1 if a table disagrees with its data (what the tests run)

A table lives in a Markdown file between two markers::

    <!-- table: training_ab -->
    ...generated...
    <!-- /table -->

and is rendered from ``docs/results/<name>.csv`` by the function of that name
in :data:`TABLES`. Each CSV row carries its date, machine and command; the
table shows them, so a figure never appears without where it came from.
"""

from __future__ import annotations

import argparse
import csv
import math
import re
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARKER = re.compile(r"(<!-- table: (?P<name>[a-z0-9_]+) -->\n)(?P<body>.*?)(<!-- /table -->)", re.S)


def _rows(name: str) -> list[dict[str, str]]:
    path = RESULTS / f"{name}.csv"
    if not path.exists():  # the whole-game benchmark writes beside its plot
        path = ROOT / "docs" / f"{name}.csv"
    with open(path, newline="") as handle:
        return list(csv.DictReader(handle))


def training_ab(rows: list[dict[str, str]]) -> str:
    """One line per A/B run of ``experiments/train_ab.py``: recipe B against recipe A."""
    lines = [
        "| date, machine | minutes each | A | B | positions A / B | B against A, score [95% CI] | Elo B-A "
        "| GNU Go (A, B) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    by_run: dict[tuple[str, str], dict[str, dict[str, str]]] = {}
    for row in rows:
        by_run.setdefault((row["date"], row["command"]), {})[row["arm"]] = row
    for (date, _), arms in by_run.items():
        a, b = arms["a"], arms["b"]
        gnugo = "-"
        if a["gnugo_games"]:
            gnugo = f"level {a['gnugo_level']}: {a['gnugo_wins']}/{a['gnugo_games']}, "
            gnugo += f"{b['gnugo_wins']}/{b['gnugo_games']}"
        lines.append(
            f"| {date}, {a['machine']} | {a['minutes']} | `{a['flags']}` | `{b['flags']}` "
            f"| {int(a['positions']):,} / {int(b['positions']):,} "
            f"| {a['h2h_score_b']} [{a['h2h_low']}, {a['h2h_high']}] over {a['h2h_games']} games "
            f"| {int(float(a['h2h_elo_b'])):+d} | {gnugo} |"
        )
    lines.append("")
    lines.append("Commands: " + "; ".join(f"`{command}`" for _, command in by_run))
    return "\n".join(lines) + "\n"


def _wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    p, n = wins / games, games
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def strength_9x9(rows: list[dict[str, str]]) -> str:
    """Wins against GNU Go 3.8 on 9x9 (komi 7.5, colours alternated), by player and level, with
    Wilson 95% intervals."""
    lines = ["| player | GNU Go level | wins / games | 95% interval | date |", "|---|---|---|---|---|"]
    for row in rows:
        wins, games = int(row["wins"]), int(row["games"])
        low, high = _wilson(wins, games)
        lines.append(
            f"| {row['player']} | {row['level']} | {wins} / {games} | {low:.2f}-{high:.2f} | {row['date']} |"
        )
    lines.append("")
    lines.append("Commands: " + "; ".join(f"`{c}`" for c in dict.fromkeys(r["command"] for r in rows)))
    return "\n".join(lines) + "\n"


def benchmark_cpu(rows: list[dict[str, str]]) -> str:
    """Whole random games, moves/s: the gojax rules, GoEnv with its 17 planes, pgx, OpenSpiel (one game)."""
    engines = [r for r in rows if r["section"] == "engines"]
    rate = {(r["engine"], r["size"], r["batch"]): float(r["rate"]) for r in engines}
    # The ratio of the same repeats (the CSV's median ratio), not the ratio of the medians.
    ratio = {(r["engine"], r["size"], r["batch"]): r["ratio"] for r in engines}
    lines = [
        "| board | batch | gojax rules | GoEnv (17 planes) | pgx | rules / pgx | OpenSpiel C++ (one game) |",
        "|---|---|---|---|---|---|---|",
    ]
    for size, batch in sorted(
        {(k[1], k[2]) for k in rate if k[0] == "gojax"}, key=lambda k: (int(k[0]), int(k[1]))
    ):
        gojax, env, pgx = (rate[(e, size, batch)] for e in ("gojax", "goenv", "pgx"))
        spiel = rate.get(("openspiel", size, "1"))
        lines.append(
            f"| {size}x{size} | {batch} | {gojax:,.0f} | {env:,.0f} | {pgx:,.0f} "
            f"| {float(ratio[('gojax', size, batch)]):.1f} "
            f"| {f'{spiel:,.0f}' if spiel and batch == '1' else ''} |"
        )
    return "\n".join(lines) + "\n"


def ffi_speed(rows: list[dict[str, str]]) -> str:
    """The native kernels as XLA FFI custom calls against the ``jax.pure_callback`` revision:
    microseconds a ``jit(vmap(...))`` call, boards/s, and the median per-round ratio."""
    revisions = list(dict.fromkeys(r["revision"] for r in rows))
    this, other = revisions[0], revisions[1]
    by_key = {(r["size"], r["batch"], r["preset"], r["revision"]): r for r in rows}
    lines = [
        f"| board | batch | features | `{other}` µs a call | `{this}` µs a call | `{this}` boards/s "
        f"| `{other}` / `{this}` |",
        "|---|---:|---|---:|---:|---:|---:|",
    ]
    for size, batch, preset in dict.fromkeys((r["size"], r["batch"], r["preset"]) for r in rows):
        mine, theirs = by_key[(size, batch, preset, this)], by_key[(size, batch, preset, other)]
        lines.append(
            f"| {size}x{size} | {batch} | {preset} | {float(theirs['us_per_call']):,.0f} "
            f"| {float(mine['us_per_call']):,.0f} | {float(mine['boards_per_s']):,.0f} "
            f"| {float(mine['ratio_against_over_this']):.2f} |"
        )
    first = rows[0]
    lines.append("")
    lines.append(
        f"{first['date']}, {first['machine']}, {first['repeats']} interleaved rounds, load average "
        f"{min(float(r['load_before']) for r in rows):.1f}-{max(float(r['load_after']) for r in rows):.1f}; "
        f"`{first['command']}`"
    )
    return "\n".join(lines) + "\n"


def gtp_start(rows: list[dict[str, str]]) -> str:
    """The GTP engine's start with a warm compilation cache, per revision."""
    lines = [
        "| revision | first `genmove` answered, s | then `final_status_list dead`, s |",
        "|---|---:|---:|",
    ]
    for row in rows:
        lines.append(f"| `{row['revision']}` | {row['first_genmove_s']} | {row['then_final_status_s']} |")
    first = rows[0]
    lines.append("")
    lines.append(
        f"{first['date']}, {first['machine']}, median of {first['repeats']} interleaved starts, load "
        f"average {first['load_before']}-{first['load_after']}; `{first['command']}`"
    )
    return "\n".join(lines) + "\n"


TABLES: dict[str, Callable[[list[dict[str, str]]], str]] = {
    "benchmark_cpu": benchmark_cpu,
    "ffi_speed": ffi_speed,
    "gtp_start": gtp_start,
    "strength_9x9": strength_9x9,
    "training_ab": training_ab,
}
"""Table name (= CSV name under docs/results/) -> its renderer."""


def render(text: str) -> str:
    """``text`` with every marked table rendered from its data.

    Raises:
      KeyError: for a marker naming a table that :data:`TABLES` does not know.
    """

    def one(match: re.Match) -> str:
        name = match["name"]
        if name not in TABLES:
            raise KeyError(f"no renderer for table {name!r}; known: {sorted(TABLES)}")
        return match.group(1) + TABLES[name](_rows(name)) + match.group(4)

    return MARKER.sub(one, text)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--check", action="store_true", help="only check; exit 1 on a stale table")
    args = parser.parse_args()
    stale = []
    for path in DOCUMENTS:
        text = path.read_text()
        new = render(text)
        if new != text:
            stale.append(path.relative_to(ROOT))
            if not args.check:
                path.write_text(new)
    if args.check and stale:
        print(f"tables that disagree with docs/results/: {[str(p) for p in stale]}", file=sys.stderr)
        return 1
    print(("stale: " if args.check else "rewritten: ") + (", ".join(map(str, stale)) or "none"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
