"""Writes the tables that README.md and docs/ show from the data files under docs/results/.

    python experiments/report.py           # rewrite every table between its markers
    python experiments/report.py --check   # exit 1 if a table disagrees with its data (what the tests run)

A table lives in a Markdown file between two markers::

    <!-- table: training_ab -->
    ...generated...
    <!-- /table -->

and is rendered from ``docs/results/<name>.csv`` (or the CSV that
:data:`SOURCES` names for it) by the function of that name in :data:`TABLES`.
Each CSV row carries its date, machine and command; the table shows them, so
a figure never appears without where it came from.

To add a table: write the CSV under ``docs/results/`` (columns ``date``,
``machine``, ``command``, then the figures), a renderer here that takes its
rows and returns the Markdown, an entry in :data:`TABLES`, and the two
markers where the table goes; then run this script.
"""

from __future__ import annotations

import argparse
import csv
import math
import re
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "docs" / "results"
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
MARKER = re.compile(r"(<!-- table: (?P<name>[a-z0-9_]+) -->\n)(?P<body>.*?)(<!-- /table -->)", re.S)


def _rows(name: str) -> list[dict[str, str]]:
    name = SOURCES.get(name, name)
    path = RESULTS / f"{name}.csv"
    if not path.exists():  # the whole-game benchmark and the training run write beside their plots
        path = ROOT / "docs" / f"{name}.csv"
    rows = []
    with open(path, newline="") as handle:
        reader = csv.DictReader(handle)
        for row in reader:
            if None in row or None in row.values():  # more cells than the header names, or fewer
                raise ValueError(
                    f"{path.relative_to(ROOT)}: line {reader.line_num} has not one cell per header column"
                )
            rows.append(row)
    return rows


def _elo_text(text: str) -> str:
    """An Elo difference as ``+60``; a score of 0 or 1 has none (``-inf``, ``+inf``): ``-∞``, ``+∞``."""
    value = float(text)
    if math.isinf(value):
        return "-∞" if value < 0 else "+∞"
    return f"{int(value):+d}"


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
        date = date.split()[0]  # the day; the CSV keeps the time, which tells runs of one day apart
        gnugo = "-"
        if a["gnugo_games"]:
            gnugo = f"level {a['gnugo_level']}: {a['gnugo_wins']}/{a['gnugo_games']}, "
            gnugo += f"{b['gnugo_wins']}/{b['gnugo_games']}"
        lines.append(
            f"| {date}, {a['machine']} | {a['minutes']} | `{a['flags']}` | `{b['flags']}` "
            f"| {int(a['positions']):,} / {int(b['positions']):,} "
            f"| {a['h2h_score_b']} [{a['h2h_low']}, {a['h2h_high']}] over {a['h2h_games']} games "
            f"| {_elo_text(a['h2h_elo_b'])} | {gnugo} |"
        )
    lines.append("")
    lines.append("Commands: " + "; ".join(f"`{command}`" for _, command in by_run))
    return "\n".join(lines) + "\n"


def _wilson(wins: float, games: int, z: float = 1.96) -> tuple[float, float]:
    p, n = wins / games, games
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


def _runs(row: dict[str, str]) -> list[tuple[str, int, int]]:
    """The row's runs as ``(seed, wins, games)``: ``"33:15/20 53:9/20"``; they must add up to the row.

    Raises:
      ValueError: runs whose wins or games do not add up to the row's.
    """
    runs = []
    for run in row.get("runs", "").split():
        seed, score = run.split(":")
        wins, games = score.split("/")
        runs.append((seed, int(wins), int(games)))
    if runs and (sum(r[1] for r in runs), sum(r[2] for r in runs)) != (int(row["wins"]), int(row["games"])):
        raise ValueError(
            f"runs {row['runs']!r} do not add up to {row['wins']} / {row['games']}: {row['player']}"
        )
    return runs


def _strength_table(rows: list[dict[str, str]]) -> str:
    lines = [
        "| player | GNU Go level | wins / games | 95% interval | runs (seed: wins / games) | date |",
        "|---|---|---|---|---|---|",
    ]
    for row in rows:
        wins, games = int(row["wins"]), int(row["games"])
        low, high = _wilson(wins, games)
        runs = ", ".join(f"{seed}: {w} / {g}" for seed, w, g in _runs(row)) or "one run"
        lines.append(
            f"| {row['player']} | {row['level']} | {wins} / {games} | {low:.2f}-{high:.2f} | {runs} "
            f"| {row['date']} |"
        )
    lines.append("")
    # One command per player: the level is the table's, the games and seed each run's.
    commands = dict.fromkeys(
        re.sub(r"(--levels |gnugo:)\d+", r"\1L", r["command"]) + (" --games G --seed S" if _runs(r) else "")
        for r in rows
    )
    lines.append("Commands (`L` the level, `G` and `S` each run's games and seed):")
    lines.append("")
    lines += [f"- `{c}`" for c in commands]
    return "\n".join(lines) + "\n"


def strength_9x9(rows: list[dict[str, str]]) -> str:
    """The headline rows of :func:`strength_gnugo_9x9` (``headline`` is ``yes``), for the README."""
    return _strength_table([r for r in rows if r["headline"] == "yes"])


def strength_gnugo_9x9(rows: list[dict[str, str]]) -> str:
    """Wins against GNU Go 3.8 on 9x9 (komi 7.5, colours alternated), by player and level, with
    Wilson 95% intervals and the runs (seed, wins, games) that make up each row."""
    return _strength_table(rows)


def strength_19x19(rows: list[dict[str, str]]) -> str:
    """Wins against GNU Go 3.8 on 19x19, as :func:`strength_gnugo_9x9` on 9x9."""
    return _strength_table(rows)


def classic_players_9x9(rows: list[dict[str, str]]) -> str:
    """The classic players against each other: one line per matchup of ``experiments/classic_players.py``."""
    lines = [
        "| A | B | games | A wins / losses / draws | A score [95% CI] | Elo A-B [95% CI] "
        "| A's wins as black / white | moves/game | adjudicated | wall s |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['player_a']} | {r['player_b']} | {r['games']} "
            f"| {r['wins']} / {r['losses']} / {r['draws']} "
            f"| {r['score']} [{r['score_lo']}, {r['score_hi']}] "
            f"| {int(r['elo']):+d} [{int(r['elo_lo']):+d}, {int(r['elo_hi']):+d}] "
            f"| {r['wins_as_black']} / {r['wins_as_white']} | {r['mean_moves']} | {r['adjudicated']} "
            f"| {int(r['seconds']):,} |"
        )
    return _with_sources(lines, rows)


def _elo(score: float) -> float:
    """The Elo difference a score in ``(0, 1)`` stands for (clipped at +-800 for 0 and 1)."""
    score = min(max(score, 0.01), 0.99)
    return -400.0 * math.log10(1.0 / score - 1.0)


def guided_search_9x9(rows: list[dict[str, str]]) -> str:
    """The tree search guided by a network against the tree search alone (``alone``: its settings),
    head to head at equal time a move (``gojax-match``, colours alternated): one line per match, the
    guided player's score."""
    return _head_to_head(rows, ("guided", "alone"), ("guided player", "guided"))


def az_search_9x9(rows: list[dict[str, str]]) -> str:
    """The AlphaZero agent's own search in two settings, head to head at equal time a move
    (``gojax-match``, colours alternated): one line per match, the first player's score."""
    return _head_to_head(rows, ("player", "opponent"), ("player", "player"))


def _head_to_head(rows: list[dict[str, str]], columns: tuple[str, str], names: tuple[str, str]) -> str:
    """One line per match of ``columns`` (the first player's and its opponent's), the first one's score."""
    first, second = columns
    lines = [
        f"| {names[0]} | against | network | seconds a move (used: {names[1]}, against) "
        f"| {names[1]} wins / games | score [95% CI] | Elo [95% CI] |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        wins, games = int(r["wins"]), int(r["games"])
        low, high = _wilson(wins, games)
        score = wins / games
        lines.append(
            f"| `{r[first]}` | `{r[second]}` | {r['network']} | {r['seconds_per_move']} "
            f"({float(r[first + '_seconds']):.2f}, {float(r[second + '_seconds']):.2f}) | {wins} / {games} "
            f"| {score:.3f} [{low:.3f}, {high:.3f}] "
            f"| {_elo(score):+.0f} [{_elo(low):+.0f}, {_elo(high):+.0f}] |"
        )
    return _with_sources(lines, rows)


def _with_sources(lines: list[str], rows: list[dict[str, str]]) -> str:
    """The table's ``lines``, a blank line and :func:`_sources` of ``rows``, as one Markdown block."""
    return "\n".join([*lines, "", _sources(rows)]) + "\n"


def _sources(rows: list[dict[str, str]]) -> str:
    """``Measured: date, machine, `command`; ...`` for the distinct runs of ``rows``."""
    runs = dict.fromkeys((r["date"], r["machine"], r["command"]) for r in rows)
    return "Measured: " + "; ".join(f"{date}, {machine}, `{command}`" for date, machine, command in runs)


def alphabeta(rows: list[dict[str, str]]) -> str:
    """Exhaustive alpha-beta on 2x2 and 3x3 (area scoring, no suicide, komi 0): a line per ``solve`` call."""
    lines = [
        "| board | superko | transposition key | result | nodes | time | call |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        nodes = f"{int(r['nodes']):,}" if r["nodes"].isdigit() else r["nodes"]
        seconds = float(r["seconds"])
        time = "< 0.01 s" if seconds < 0.01 else f"{seconds:g} s"
        if r["completed"] != "yes":
            time = f"stopped at {time}"
        lines.append(
            f"| {r['board']} | {r['superko']} | {r['key']} | {r['result']} | {nodes} | {time} "
            f"| `{r['command']}` |"
        )
    lines.append("")
    machines = dict.fromkeys((r["date"], r["machine"]) for r in rows)
    lines.append(
        "Measured: "
        + "; ".join(f"{d}, {m}" for d, m in machines)
        + "; each call is `gojax.players.alphabeta.solve`."
    )
    return "\n".join(lines) + "\n"


def playout_rate(rows: list[dict[str, str]]) -> str:
    """The tree search's playouts per second from the empty board, one column per run of
    ``experiments/playout_rate.py`` (K leaves a batch, M playouts a leaf, D devices)."""
    runs = list(dict.fromkeys((r["date"], r["command"], r["host_devices"]) for r in rows))
    keys = list(dict.fromkeys((r["row"], r["K"], r["M"], r["D"]) for r in rows))
    value = {(r["date"], r["command"], r["row"], r["K"], r["M"], r["D"]): r for r in rows}
    head = [
        f"run {i + 1}: {d}, CPU as {h} device{'s' if h != '1' else ''}" for i, (d, _, h) in enumerate(runs)
    ]
    lines = ["| row | K | M | D | " + " | ".join(head) + " |", "|---|---|---|---|" + "---:|" * len(runs)]
    for key in keys:
        cells = []
        for date, command, _ in runs:
            r = value.get((date, command, *key))
            cells.append(f"{int(float(r['rate'])):,} {r['unit']}" if r else "")
        lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {key[3]} | " + " | ".join(cells) + " |")
    machine = {(r["date"], r["command"], r["host_devices"]): r["machine"] for r in rows}
    lines.append("")
    lines.append(
        "Commands (medians of the repeats): "
        + "; ".join(f"run {i + 1}: `{run[1]}` ({machine[run]})" for i, run in enumerate(runs))
        + "."
    )
    return "\n".join(lines) + "\n"


def mcts_throughput_9x9(rows: list[dict[str, str]]) -> str:
    """Self-play moves per second of the same network and mctx search, gojax's rules against pgx's env."""
    rate = {(r["engine"], r["batch"], r["simulations"]): float(r["moves_per_s"]) for r in rows}
    lines = ["| batch x simulations | gojax moves/s | pgx moves/s | gojax / pgx |", "|---|---:|---:|---:|"]
    for batch, sims in dict.fromkeys((r["batch"], r["simulations"]) for r in rows):
        gojax, pgx = rate[("gojax", batch, sims)], rate[("pgx", batch, sims)]
        lines.append(f"| {batch} x {sims} | {gojax:,.4g} | {pgx:,.4g} | {gojax / pgx:.2f} |")
    return _with_sources(lines, rows)


OPPONENTS = {
    "random": "random",
    "pure_mc": "pure Monte-Carlo, 1 playout a move",
    "uct": "UCT, as many simulations as the agent, random playouts",
    "gnugo_level1": "GNU Go 3.8 level 1",
}
"""The evaluation opponents of ``metrics.csv`` by name."""


def train_9x9_cpu(rows: list[dict[str, str]]) -> str:
    """The evaluations of a training run (its ``metrics.csv``, rows of kind ``eval``): the agent with its
    own search against each opponent, colours alternated."""
    lines = [
        "| minutes | opponent | games | wins / losses / draws | score [95% CI] | moves/game |",
        "|---|---|---|---|---|---|",
    ]
    for r in rows:
        if r["kind"] != "eval":
            continue
        moves = f"{float(r['mean_length']):.1f}" if r["mean_length"] else "-"
        lines.append(
            f"| {float(r['minutes']):.0f} | {OPPONENTS.get(r['opponent'], r['opponent'])} "
            f"| {r['games_played']} "
            f"| {r['wins']} / {r['losses']} / {r['draws']} "
            f"| {float(r['score']):.3f} [{float(r['score_lo']):.3f}, {float(r['score_hi']):.3f}] | {moves} |"
        )
    return "\n".join(lines) + "\n"


def training_runs(rows: list[dict[str, str]]) -> str:
    """What a training run reaches in its minutes: one line per run of ``experiments/train.py`` (or
    ``gojax-train``), numbered, its command under the table; ``-`` where the run's figure is not recorded."""

    def number(value: str) -> str:
        return f"{int(value):,}" if value else "-"

    lines = [
        "| run | date | recipe | minutes | devices | iterations | training steps | self-play games "
        "| positions | positions/s in self-play | final loss |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for i, r in enumerate(rows, 1):
        lines.append(
            f"| {i} | {r['date']} | {r['recipe']} | {r['minutes']} | {r['devices'] or '-'} "
            f"| {number(r['iterations'])} | {number(r['training_steps'])} | {number(r['games'])} "
            f"| {number(r['positions'])} | {number(r['positions_per_s'])} | {r['final_loss'] or '-'} |"
        )
    lines.append("")
    lines.append(f"Commands ({'; '.join(dict.fromkeys(r['machine'] for r in rows))}):")
    lines.append("")
    lines += [f"{i}. `{r['command']}`" for i, r in enumerate(rows, 1)]
    return "\n".join(lines) + "\n"


def goenv_ratio(rows: list[dict[str, str]]) -> str:
    """``GoEnv.step`` against the rules alone, by the rules' code and the observation: the per-repeat
    ratio's median, each run."""
    lines = [
        "| board | rules | observation | `GoEnv` / rules alone, runs in order | median | runs | command "
        "| date |",
        "|---|---|---|---|---|---|---|---|",
    ]
    keys = dict.fromkeys((r["rules"], r["observation"], r["board"], r["command"]) for r in rows)
    for rules, observation, board, command in sorted(keys, key=lambda k: (k[0] != "C kernels", int(k[2]))):
        mine = [
            r
            for r in rows
            if (r["rules"], r["observation"], r["board"], r["command"])
            == (rules, observation, board, command)
        ]
        ratios = [float(r["goenv_over_rules"]) for r in mine]
        lines.append(
            f"| {board}x{board} | {rules} | {observation} | {', '.join(f'{x:.3f}' for x in ratios)} "
            f"| {_median(ratios):.3f} | {len(ratios)} | `{command}` | {mine[0]['date']} |"
        )
    lines.append("")
    lines.append("Machines: " + "; ".join(dict.fromkeys(r["machine"] for r in rows)))
    return "\n".join(lines) + "\n"


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    half = len(ordered) // 2
    return ordered[half] if len(ordered) % 2 else (ordered[half - 1] + ordered[half]) / 2


def benchmark_cpu(rows: list[dict[str, str]]) -> str:
    """Whole random games, moves/s: the gojax rules, GoEnv with its 17 planes, pgx, OpenSpiel (one game)."""
    engines = [r for r in rows if r["section"] == "engines"]
    rate = {(r["engine"], r["size"], r["batch"]): float(r["rate"]) for r in engines}
    # The ratio of the same repeats (the CSV's median ratio), not the ratio of the medians.
    ratio = {(r["engine"], r["size"], r["batch"]): r["ratio"] for r in engines}
    lines = [
        "| board | batch | gojax rules | gojax rules, XLA code | GoEnv (17 planes) | pgx | rules / pgx "
        "| OpenSpiel C++ (one game) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for size, batch in sorted(
        {(k[1], k[2]) for k in rate if k[0] == "gojax"}, key=lambda k: (int(k[0]), int(k[1]))
    ):
        gojax, env, pgx = (rate[(e, size, batch)] for e in ("gojax", "goenv", "pgx"))
        xla = rate.get(("gojax-xla", size, batch))
        spiel = rate.get(("openspiel", size, "1"))
        lines.append(
            f"| {size}x{size} | {batch} | {gojax:,.0f} | {f'{xla:,.0f}' if xla else ''} | {env:,.0f} "
            f"| {pgx:,.0f} | {float(ratio[('gojax', size, batch)]):.1f} "
            f"| {f'{spiel:,.0f}' if spiel and batch == '1' else ''} |"
        )
    return _with_sources(lines, rows)


def benchmark_cpu_detail(rows: list[dict[str, str]]) -> str:
    """:func:`benchmark_cpu` with every ratio (each the median of the same repeats' ratios), then each
    engine's bytes per state and compile time."""
    engines = [r for r in rows if r["section"] == "engines"]
    by = {(r["engine"], r["size"], r["batch"]): r for r in engines}
    lines = [
        "| board | batch | gojax rules moves/s | XLA code moves/s | GoEnv (17 planes) moves/s | pgx moves/s "
        "| rules / pgx | XLA code / pgx | GoEnv / pgx | GoEnv / rules |",
        "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for size, batch in sorted(
        {(k[1], k[2]) for k in by if k[0] == "gojax"}, key=lambda k: (int(k[0]), int(k[1]))
    ):
        gojax, env, pgx = (by[(e, size, batch)] for e in ("gojax", "goenv", "pgx"))
        xla = by.get(("gojax-xla", size, batch))
        xla_rate = f"{float(xla['rate']):,.0f}" if xla else ""
        xla_ratio = f"{float(xla['ratio']):.1f}" if xla else ""
        lines.append(
            f"| {size}x{size} | {batch} | {float(gojax['rate']):,.0f} | {xla_rate} "
            f"| {float(env['rate']):,.0f} | {float(pgx['rate']):,.0f} | {float(gojax['ratio']):.1f} "
            f"| {xla_ratio} | {float(env['ratio']):.1f} | {float(env['ratio_rules']):.2f} |"
        )
    lines += [
        "",
        "| engine | bytes per state, 9x9 / 19x19 | compile s (the jitted 64-move loop) |",
        "|---|---|---|",
    ]
    names = {
        "gojax": "gojax rules (`GoState`)",
        "gojax-xla": "gojax rules, XLA code",
        "goenv": "`GoEnv` (`EnvState`)",
        "pgx": "pgx (`State`)",
    }
    for engine, name in names.items():
        mine = [r for r in engines if r["engine"] == engine]
        if not mine:
            continue
        size = {r["size"]: int(r["bytes_per_state"]) for r in mine}
        compile_s = [float(r["compile_s"]) for r in mine]
        lines.append(
            f"| {name} | {size['9']:,} / {size['19']:,} | {min(compile_s):.1f}-{max(compile_s):.1f} |"
        )
    spiel = {r["size"]: float(r["rate"]) for r in engines if r["engine"] == "openspiel"}
    lines += [
        "",
        f"OpenSpiel's C++ Go, one game driven from Python: {spiel['9']:,.0f} moves/s on 9x9, "
        f"{spiel['19']:,.0f} on 19x19.",
        "",
        _sources(rows),
    ]
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


def distributed_cpu(rows: list[dict[str, str]]) -> str:
    """``gojax-train``'s self-play and training step per layout of processes x CPU devices, and the bytes
    between the processes (``experiments/distributed_benchmark.py``)."""
    lines = [
        "| processes x devices | cores | self-play positions/s, median (range) | s per training step "
        "| bytes per self-play call, compiled / loopback | bytes per training step, compiled / loopback "
        "| load average |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        shape = f"{r['processes']}x{r['devices_per_process']}"
        cores = "a core per device" if r["pinned"] == "True" else "any core"
        rate = (
            f"{float(r['positions_per_s']):,.0f} ({float(r['positions_per_s_low']):,.0f}"
            f"-{float(r['positions_per_s_high']):,.0f})"
        )
        lines.append(
            f"| {shape} | {cores} | {rate} | {float(r['train_step_s']):.2f} "
            f"| {int(r['compiled_selfplay_bytes']):,} / {float(r['loopback_selfplay_bytes']):,.0f} "
            f"| {int(r['compiled_train_step_bytes']):,} / {float(r['loopback_train_step_bytes']):,.0f} "
            f"| {float(r['load_before']):.1f}-{float(r['load_after']):.1f} |"
        )
    first = rows[0]
    lines.append("")
    lines.append(
        f"The default 9x9 recipe, {first['batch']} self-play games in all, {first['iterations']} timed "
        f"iterations, the median of {first['repeats']} runs of each layout taken in turns (the range: the "
        "slowest and the fastest run); a core per device: every process pinned to as many cores as it has "
        "devices; loopback: the bytes received on the loopback interface per self-play iteration "
        "and per training step. " + _sources(rows)
    )
    return "\n".join(lines) + "\n"


def distributed_loss(rows: list[dict[str, str]]) -> str:
    """The training loss of the same run in one process and in two, at five of its iterations, and the
    largest difference over all of them (``experiments/distributed_loss.py``)."""
    lines = [
        "| iteration | self-play positions | loss, 1 process x 2 devices | loss, 2 processes x 1 device "
        "| difference |",
        "|---:|---:|---:|---:|---:|",
    ]
    last = len(rows) - 1
    shown = sorted({round(last * k / 4) for k in range(5)})
    for i in shown:
        r = rows[i]
        one, two = float(r["loss_one_process"]), float(r["loss_two_processes"])
        lines.append(
            f"| {r['iteration']} | {int(r['positions']):,} | {one:.4f} | {two:.4f} | {two - one:+.4f} |"
        )
    gaps = [abs(float(r["loss_two_processes"]) - float(r["loss_one_process"])) for r in rows]
    worst = max(range(len(rows)), key=gaps.__getitem__)
    relative = gaps[worst] / float(rows[worst]["loss_one_process"])
    if gaps[worst] == 0:
        largest = "the losses are the same number at every one of them"
    else:
        largest = (
            f"the largest difference of the losses: {gaps[worst]:.4g} ({relative:.2%} of the loss), at "
            f"iteration {rows[worst]['iteration']}"
        )
    lines.append("")
    lines.append(
        f"The default 9x9 recipe, both runs from seed 0, {len(rows)} iterations that trained; {largest}. "
        + _sources(rows)
    )
    return "\n".join(lines) + "\n"


def scaling_model(rows: list[dict[str, str]]) -> str:
    """The modelled cost of a ``gojax-train`` iteration on many GPUs (``experiments/scaling_model.py``)."""
    lines = [
        "| board | network | parameters | forward FLOPs a position | an iteration: self-play / training / "
        "all-reduce | self-play positions/s, all GPUs | all-reduce share | scaling efficiency |",
        "|---|---|---:|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        seconds = " / ".join(f"{float(r[k]):.3f} s" for k in ("selfplay_s", "train_compute_s", "allreduce_s"))
        lines.append(
            f"| {r['size']}x{r['size']} | {r['blocks']} x {r['channels']} | {int(r['parameters']):,} "
            f"| {float(r['forward_flops']) / 1e6:,.0f}M | {seconds} | {float(r['positions_per_s']):,.0f} "
            f"| {float(r['allreduce_share']):.0%} | {float(r['scaling_efficiency']):.0%} |"
        )
    first = rows[0]
    lines.append("")
    lines.append(
        f"{first['gpus']} GPUs, one process each; per GPU {first['batch_per_gpu']} self-play games, "
        f"{first['train_batch_per_gpu']} training rows a step, {first['steps']} steps and "
        f"{float(first['evaluations']):g} network evaluations a move (the default recipe). Assumed: "
        f"{float(first['tflops']):g} effective TFLOP/s a GPU, {float(first['launch_us']):g} us a kernel "
        f"launch, a ring all-reduce at {float(first['bandwidth_gbs']):g} GB/s and "
        f"{float(first['latency_us']):g} us a hop; the rules' time from the cost model of "
        "docs/performance.md. Scaling "
        "efficiency: positions/s on all GPUs over the GPUs times one GPU's alone. "
        + _sources(rows).replace("Measured: ", "Computed (a model, no GPU run): ", 1)
    )
    return "\n".join(lines) + "\n"


def compile_times(rows: list[dict[str, str]]) -> str:
    """XLA's compile time of the environment's ``init`` and ``step``, gojax against pgx
    (``experiments/compile_times.py``)."""
    seconds = {(r["size"], r["function"], r["engine"]): float(r["median_s"]) for r in rows}
    lines = ["| board | function | gojax s | pgx s | gojax / pgx |", "|---|---|---:|---:|---:|"]
    for size, function in dict.fromkeys((r["size"], r["function"]) for r in rows):
        mine, theirs = seconds[(size, function, "gojax")], seconds[(size, function, "pgx")]
        lines.append(
            f"| {size}x{size} | `env.{function}` | {mine:.2f} | {theirs:.2f} | {mine / theirs:.2f} |"
        )
    lines.append("")
    lines.append(
        f"`jax.jit(f).lower(...).compile()` of one game's function, the median of {rows[0]['repeats']} "
        "compiles taken in turns, JAX's caches cleared before each. " + _sources(rows)
    )
    return "\n".join(lines) + "\n"


def cost_model(rows: list[dict[str, str]]) -> str:
    """What a ply of whole random games costs the rules, counted, and the accelerator model's moves/s
    (``experiments/cost_model.py``)."""
    lines = [
        "| board | loops a ply | trips a ply: a game, median / p99 | the batch's, median / p99 "
        "| kernels: once / a loop trip (mean) | bytes a game and ply "
        "| predicted moves/s at 16k / 32k / 64k games | bound at 64k |",
        "|---|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        rates = " / ".join(
            f"{float(r[k]) / 1e6:.1f}M" for k in ("predicted_16k", "predicted_32k", "predicted_64k")
        )
        lines.append(
            f"| {r['size']}x{r['size']} | {r['loops_per_ply']} "
            f"| {float(r['game_trips_median']):.0f} / {float(r['game_trips_p99']):.0f} "
            f"| {float(r['batch_trips_median']):.0f} / {float(r['batch_trips_p99']):.0f} "
            f"| {r['kernels_once']} / {float(r['kernels_per_trip']):.1f} | {int(r['bytes_per_game']):,} "
            f"| {rates} | {r['bound_64k']} |"
        )
    first = rows[0]
    lines.append("")
    lines.append(
        f"Counted over {first['plies']} plies of {first['batch']} whole random games; the model's "
        f"constants: {first['launch_us']} us a kernel, {first['trip_sync_us']} us a loop trip's "
        f"predicate copy, {float(first['bandwidth_gbs']):,.0f} GB/s at {float(first['efficiency']):.0%}. "
        + _sources(rows)
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


def gtp_startup(rows: list[dict[str, str]]) -> str:
    """Time to the first ``genmove`` reply from the start of ``gojax-gtp``: one line per run of
    ``experiments/gtp_startup.py`` (its cold start, warm starts and their median, the start without a
    cache)."""
    runs: dict[tuple[str, str], list[dict[str, str]]] = {}
    for row in rows:
        runs.setdefault((row["date"], row["command"]), []).append(row)
    lines = [
        "| board | player | cold (empty cache) | warm runs | warm median | no cache | load average |",
        "|---|---|---:|---|---:|---:|---|",
    ]
    for group in runs.values():
        by_run: dict[str, list[float]] = {}
        for row in group:
            by_run.setdefault(row["run"], []).append(float(row["genmove_s"]))
        warm = by_run.get("warm", [])
        cells = [
            f"{group[0]['size']}x{group[0]['size']}",
            f"`{group[0]['player']}`",
            " ".join(f"{v:.1f} s" for v in by_run.get("cold", [])) or "-",
            ", ".join(f"{v:.1f}" for v in warm) + " s" if warm else "-",
            f"{_median(warm):.1f} s" if warm else "-",
            " ".join(f"{v:.1f} s" for v in by_run.get("no cache", [])) or "-",
            f"{group[0]['load_before']}-{group[-1]['load_after']}",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return _with_sources(lines, [group[0] for group in runs.values()])


def test_tiers(rows: list[dict[str, str]]) -> str:
    """The test suite's wall time, whole and by tier, as CI runs it, with an empty JAX cache and with a
    warm one: the median of each tier's runs on the latest run's date and machine with its number of
    tests."""
    tiers = ("unit", "reference", "integration", "all")
    runs: dict[tuple[str, str], list[dict[str, str]]] = {}
    for r in rows:
        runs.setdefault((r["tier"], r["cache"]), []).append(r)
    order = [(t, c) for t in tiers for c in ("empty", "warm") if (t, c) in runs]
    lines = [
        "| tier | tests | wall time (median) | runs | JAX cache | load average |",
        "|---|---:|---:|---:|---|---|",
    ]
    sources = []
    for tier, cache in order:
        last = runs[tier, cache][-1]
        key = ("date", "machine", "tests")
        same = [r for r in runs[tier, cache] if all(r[k] == last[k] for k in key)]
        seconds = round(statistics.median(int(r["seconds"]) for r in same))
        failed = max(int(r["failed"]) for r in same)
        loads = [float(r[k]) for r in same for k in ("load_before", "load_after")]
        name = "whole suite" if tier == "all" else f"`-m {tier}`"
        lines.append(
            f"| {name} | {last['tests']}{f' ({failed} failed)' if failed else ''} "
            f"| {seconds // 60} min {seconds % 60:02d} s | {len(same)} | {cache} "
            f"| {min(loads):.1f}-{max(loads):.1f} |"
        )
        sources.append(last)
    return _with_sources(lines, sources)


def supervised(rows: list[dict[str, str]]) -> str:
    """Supervised training on game records (``experiments/supervised.py --csv``): a line per run, the
    held-out games' top-1 move accuracy beside its two baselines."""
    lines = [
        "| board | network (params) | training | steps (epochs) | train / held-out games (positions) "
        "| held-out top-1 | uniform legal move | most common point | value MSE |",
        "|---|---|---:|---:|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        size = r["board_size"]
        games = (
            f"{r['train_games']} ({int(r['train_positions']):,}) / "
            f"{r['held_out_games']} ({int(r['held_out_positions']):,})"
        )
        lines.append(
            f"| {size}x{size} | {r['network']} ({int(r['params']):,}) | {float(r['minutes']):g} min "
            f"| {int(r['steps']):,} ({float(r['epochs']):.2f}) | {games} | **{_percent(r['top1'])}** "
            f"| {_percent(r['uniform_top1'])} | {_percent(r['common_top1'])} | {float(r['value_mse']):.2f} |"
        )
    return _with_sources(lines, rows)


def playout_accuracy(rows: list[dict[str, str]]) -> str:
    """Life and death in the playouts against GNU Go's dragons (``experiments/playout_accuracy.py``):
    a line per policy of each run."""
    lines = [
        "| policy | positions | playouts each | alive stones kept | dead stones taken | balanced |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lines.append(
            f"| {r['policy']} | {r['positions']} | {r['playouts']} "
            f"| {r['kept']} (of {int(r['alive_stones']):,}) | {r['taken']} (of {int(r['dead_stones']):,}) "
            f"| **{r['balanced']}** |"
        )
    judges = sorted({r["judge"] for r in rows})
    lines += ["", f"Judge: {'; '.join(judges)}."]
    return _with_sources(lines, rows)


def _percent(text: str) -> str:
    """A fraction as a percentage with the digits it was written with (``0.119`` -> ``11.9%``)."""
    digits = max(len(text.partition(".")[2]) - 2, 0)
    return f"{100 * float(text):.{digits}f}%"


def _latest_by_size(rows: list[dict[str, str]]) -> dict[str, list[dict[str, str]]]:
    """Board size -> the rows of the latest run of ``feature_speed.py`` on it (a run's rows follow
    one another, its ``step`` row first; a rerun of the same command is a new run)."""
    latest: dict[str, list[dict[str, str]]] = {}
    for r in rows:
        runs = latest.setdefault(r["size"], [])
        other_run = runs and (runs[0]["command"], runs[0]["date"]) != (r["command"], r["date"])
        if runs and (r["what"] == "step" or other_run):
            runs.clear()
        runs.append(r)
    return latest


def feature_speed(rows: list[dict[str, str]]) -> str:
    """Feature planes against ``gojax.step`` (``experiments/feature_speed.py --csv``): the latest run of
    each board, its rows side by side (median of its repeats; ratio to ``step`` in the same repeats)."""
    latest = _latest_by_size(rows)
    lines = [
        "| board | batch | planes | kernels | boards/s | x `step` | compile s |",
        "|---|---:|---|---|---:|---:|---:|",
    ]
    for size, runs in sorted(latest.items(), key=lambda item: -int(item[0])):
        for r in runs:
            what = f"`{r['what']}` (`{r['dtype']}`)"
            if r["what"] in ("step", "legal_action_mask"):
                what = f"`{r['what']}` (the rules alone)"
            lines.append(
                f"| {size}x{size} | {r['batch']} | {what} "
                f"| {'native' if r['native'] == 'yes' else 'XLA'} | {int(r['boards_per_s']):,} "
                f"| {r['x_step']} | {r['compile_s']} |"
            )
    return _with_sources(lines, [runs[0] for runs in latest.values()])


def native_vs_xla(rows: list[dict[str, str]]) -> str:
    """The native kernels against another revision's XLA code (``feature_speed.py --against REV --env
    --csv``): per board, each candidate beside the same candidate at ``REV`` (``name @ REV``), latest run."""
    latest = _latest_by_size(rows)
    lines = [
        "| board | batch | what | native boards/s | XLA boards/s (revision) | native / XLA |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for size, runs in sorted(latest.items(), key=lambda item: -int(item[0])):
        rates = {r["what"]: float(r["boards_per_s"]) for r in runs}
        for name, rate in rates.items():
            if " @ " in name:
                continue
            pairs = [
                (o.split(" @ ")[1], b) for o, b in rates.items() if o.split(" @ ")[0] == name and " @ " in o
            ]
            if ": GoEnv.step" in name:
                label = f"`GoEnv.step`, `{name.split(':')[0]}` observation"
            else:
                label = "`step` (the rules alone)" if name == "step" else f"`{name}` planes"
            xla, ratio = (
                ("-", "-")
                if not pairs
                else (f"{pairs[0][1]:,.0f} (`{pairs[0][0]}`)", f"{rate / pairs[0][1]:.1f}")
            )
            lines.append(f"| {size}x{size} | {runs[0]['batch']} | {label} | {rate:,.0f} | {xla} | {ratio} |")
    return _with_sources(lines, [runs[0] for runs in latest.values()])


def pgx_example(rows: list[dict[str, str]]) -> str:
    """pgx's AlphaZero example on pgx's Go and on gojax (``experiments/pgx_example.py``), latest run: per
    gojax arm and iteration, how many printed entries are the same, and the training losses side by side."""
    latest = [r for r in rows if (r["date"], r["command"]) == (rows[-1]["date"], rows[-1]["command"])]
    lines = [
        "| gojax | iteration | entries the same | policy loss, pgx | policy loss, gojax "
        "| value loss, pgx | value loss, gojax |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    for arm, iteration in dict.fromkeys((r["arm"], r["iteration"]) for r in latest):
        these = [r for r in latest if (r["arm"], r["iteration"]) == (arm, iteration)]
        entry = {r["entry"]: r for r in these}
        losses = [
            entry[name][side] if name in entry else "-"
            for name in ("train/policy_loss", "train/value_loss")
            for side in ("pgx", "gojax")
        ]
        same = sum(r["equal"] == "yes" for r in these)
        lines.append(f"| `{arm}` | {iteration} | {same} of {len(these)} | " + " | ".join(losses) + " |")
    lines.append("")
    lines.append(f"pgx's example at commit `{latest[-1]['example']}`. " + _sources(latest[-1:]))
    return "\n".join(lines) + "\n"


def mutation(rows: list[dict[str, str]]) -> str:
    """Mutation scores of ``mutation/run.sh`` (``mutation/record.py``): the latest run of each group."""
    latest = {r["group"]: r for r in rows}
    lines = [
        "| group | modules | tests | mutants | skipped | killed | survived | score |",
        "|---|---|---|---:|---:|---:|---:|---:|",
    ]
    for group, r in latest.items():
        killed, survived = int(r["killed"]), int(r["survived"])
        tests = ", ".join(f"`{t}`" for t in r["tests"].split())
        lines.append(
            f"| `{group}` | `{r['modules']}` | {tests} | {r['mutants']} | {r['skipped']} "
            f"| {killed} | {survived} | {killed / max(killed + survived, 1):.1%} |"
        )
    return _with_sources(lines, list(latest.values()))


TABLES: dict[str, Callable[[list[dict[str, str]]], str]] = {
    "alphabeta": alphabeta,
    "benchmark_cpu": benchmark_cpu,
    "benchmark_cpu_detail": benchmark_cpu_detail,
    "classic_players_9x9": classic_players_9x9,
    "compile_times": compile_times,
    "distributed_cpu": distributed_cpu,
    "distributed_loss": distributed_loss,
    "cost_model": cost_model,
    "feature_speed": feature_speed,
    "ffi_speed": ffi_speed,
    "goenv_ratio": goenv_ratio,
    "gtp_start": gtp_start,
    "gtp_startup": gtp_startup,
    "guided_search_9x9": guided_search_9x9,
    "az_search_9x9": az_search_9x9,
    "mcts_throughput_9x9": mcts_throughput_9x9,
    "mutation": mutation,
    "native_vs_xla": native_vs_xla,
    "pgx_example": pgx_example,
    "playout_accuracy": playout_accuracy,
    "playout_rate_9x9": playout_rate,
    "playout_rate_19x19": playout_rate,
    "scaling_model": scaling_model,
    "strength_19x19": strength_19x19,
    "strength_9x9": strength_9x9,
    "strength_gnugo_9x9": strength_gnugo_9x9,
    "supervised": supervised,
    "test_tiers": test_tiers,
    "train_9x9_cpu": train_9x9_cpu,
    "training_ab": training_ab,
    "training_runs": training_runs,
}
"""Table name -> its renderer; a table reads ``docs/results/<name>.csv`` unless :data:`SOURCES` says."""

SOURCES: dict[str, str] = {
    "benchmark_cpu_detail": "benchmark_cpu",
    "strength_gnugo_9x9": "strength_9x9",
}
"""Tables that read another table's CSV: table name -> CSV name."""


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
