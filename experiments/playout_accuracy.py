"""Life and death in the playouts, checked against GNU Go on professional 19x19 positions.

A playout policy is only as good as the game ends it reaches: a dead group
that its playouts let live, or a living one they kill, misleads every search
above them. This script measures that against a judge no one here wrote.

* **Positions**: the position before move 100, 150 and 200 (``--moves``) of
  each professional 19x19 record without handicap stones
  (``../shared/data/sgf/pro19*.sgf`` by default, ``--records``), the player to
  move as in the game.
* **The judge**: GNU Go 3.8 (``dragon_status``, then ``dragon_stones`` of each
  dragon; ``--level``, 10 by default) names every dragon alive, dead,
  critical or unknown. The stones of alive and dead dragons are scored; the
  others are left out. GNU Go's answers are kept in ``--cache`` (JSON), so a
  second run asks it nothing.
* **The playouts**: each policy of ``--policies`` plays ``--playouts``
  playouts from every position (:func:`gojax.playouts.run_playouts`, the
  search's playouts: simple ko, no suicide, scored by area). A stone is
  *kept* in a playout when its colour owns its point at the end.

Figures, per policy: **kept**, the mean over alive stones of the share of
playouts that keep them; **taken**, the mean over dead stones of the share
that do not; **balanced**, their mean (each status counts half, though alive
stones are ten times as many). What a policy's judgement costs in time is
measured by ``experiments/playout_rate.py``.

From the repository root (GNU Go on ``PATH``, or in ``/usr/games``)::

    PYTHONPATH=. python experiments/playout_accuracy.py
    PYTHONPATH=. python experiments/playout_accuracy.py --policies light heavy \
        --csv docs/results/playout_accuracy.csv

Prints a Markdown table; ``--csv PATH`` appends one row per policy
(``date``, ``machine``, ``command``, then the columns of :data:`COLUMNS`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Iterable, Sequence
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from provenance import append_rows, provenance

import gojax
from gojax import GoConfig, GoState, from_gtp, sgf
from gojax.arena import GTPClient, gnugo_command
from gojax.playouts import run_playouts

ROOT = Path(__file__).resolve().parents[1]
RECORDS = ROOT.parent / "shared" / "data" / "sgf"
COLUMNS = (
    "policy",
    "positions",
    "playouts",
    "alive_stones",
    "kept",
    "dead_stones",
    "taken",
    "balanced",
    "judge",
)
STATUSES = ("alive", "dead")
"""The dragon statuses scored (GNU Go's ``critical`` and ``unknown`` are left out)."""


def parse_dragons(config: GoConfig, status_reply: str) -> dict[str, str]:
    """``{vertex of a dragon: status}`` from GNU Go's ``dragon_status`` reply (one dragon a line).

    A line reads ``F18: dead`` or ``B17: critical B16 B16`` (the attack and
    defence points follow a critical status; only the status is kept).
    """
    dragons = {}
    for line in status_reply.splitlines():
        if ":" not in line:
            continue
        head, rest = line.split(":", 1)
        words = rest.split()
        if words:
            from_gtp(config, head.strip())  # an unreadable vertex raises here
            dragons[head.strip()] = words[0]
    return dragons


def judge(client: GTPClient, config: GoConfig, record: Path, move: int) -> dict[str, list[int]]:
    """GNU Go's alive and dead stones (points) before move ``move`` (0-based) of ``record``."""
    client.send(f"loadsgf {record} {move + 1}")
    stones: dict[str, list[int]] = {status: [] for status in STATUSES}
    for head, status in parse_dragons(config, client.send("dragon_status")).items():
        if status in stones:
            stones[status] += [from_gtp(config, v) for v in client.send(f"dragon_stones {head}").split()]
    return stones


def agreement(
    colour: np.ndarray, owned_by_black: np.ndarray, stones: dict[str, list[int]]
) -> dict[str, list[float]]:
    """Per alive stone the share of playouts that keep it, per dead stone the share that take it.

    Args:
      colour: ``int[P]`` the position's stones (1 black, 2 white, 0 empty).
      owned_by_black: ``float[P]`` the share of playouts whose final owner of
        the point is black (Tromp-Taylor area), ``(1 + mean ownership) / 2``.
      stones: the judge's points by status (:data:`STATUSES`).

    Raises:
      ValueError: if the judge names an empty point.
    """
    shares: dict[str, list[float]] = {status: [] for status in STATUSES}
    for status in STATUSES:
        for point in stones.get(status, []):
            if colour[point] not in (1, 2):
                raise ValueError(f"the judge calls point {point} {status}, but it holds no stone")
            kept = owned_by_black[point] if colour[point] == 1 else 1.0 - owned_by_black[point]
            shares[status].append(float(kept if status == "alive" else 1.0 - kept))
    return shares


def _positions(records: Iterable[Path], moves: Sequence[int]) -> list[tuple[Path, int, GoState]]:
    """``(record, move, state before it)``: each record without handicap stones, each move it reaches."""
    found = []
    for path in records:
        record = sgf.read_sgf(path)
        if record.config.size != 19 or np.any(record.setup) or len(record.moves) <= min(moves):
            continue
        along = record.states_along()
        for move in moves:
            if move < len(record.moves):
                found.append((path, move, jax.tree.map(lambda x, m=move: x[m], along)))
    return found


def _judged(
    positions: list[tuple[Path, int, GoState]], config: GoConfig, cache_path: Path, level: int
) -> list[dict[str, list[int]]]:
    """The judge's stones of every position, from the cache or from GNU Go (then cached)."""
    cache = json.loads(cache_path.read_text()) if cache_path.exists() else {}
    key = lambda path, move: f"{path.name}:{move}:level{level}"  # noqa: E731
    missing = [(path, move) for path, move, _ in positions if key(path, move) not in cache]
    if missing:
        print(f"asking GNU Go about {len(missing)} positions ...", flush=True)
        with GTPClient(gnugo_command(level=level), timeout=300) as client:
            for path, move in missing:
                cache[key(path, move)] = judge(client, config, path, move)
        cache_path.parent.mkdir(parents=True, exist_ok=True)
        cache_path.write_text(json.dumps(cache))
    return [cache[key(path, move)] for path, move, _ in positions]


def measure(config: GoConfig, policy: str, starts: GoState, playouts: int, seed: int) -> np.ndarray:
    """``float[K, P]``: the share of ``playouts`` playouts from each start whose final owner of each
    point is black."""
    points = config.num_points
    ownership = run_playouts(config, policy, 3 * points, playouts, starts, jax.random.key(seed)).ownership
    return (1.0 + np.asarray(ownership) / playouts) / 2.0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--records", default=str(RECORDS), help="folder of SGF records (pro19*.sgf are read)")
    parser.add_argument("--moves", type=int, nargs="+", default=[100, 150, 200])
    parser.add_argument("--policies", nargs="+", default=["light", "heavy"])
    parser.add_argument("--playouts", type=int, default=64, help="playouts from each position")
    parser.add_argument("--level", type=int, default=10, help="GNU Go's level")
    parser.add_argument("--limit", type=int, default=None, help="read at most this many records")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cache", default="experiments/results/gnugo_dragons.json")
    parser.add_argument("--csv", default=None, help="append one row per policy to this CSV")
    args = parser.parse_args(argv)
    records = sorted(Path(args.records).glob("pro19*.sgf"))[: args.limit]
    if not records:
        parser.error(f"no pro19*.sgf records in {args.records}")
    config = GoConfig(size=19, komi=7.5)
    positions = _positions(records, args.moves)
    stones = _judged(positions, config, Path(args.cache), args.level)
    starts = jax.tree.map(lambda *x: jnp.stack(x), *(state for _, _, state in positions))
    colours = [np.asarray(gojax.board(config, state)).reshape(-1) for _, _, state in positions]
    common = provenance("playout_accuracy.py", argv)
    rows = []
    for policy in args.policies:
        owned = measure(config, policy, starts, args.playouts, args.seed)
        shares: dict[str, list[float]] = {status: [] for status in STATUSES}
        for k, judged in enumerate(stones):
            for status, values in agreement(colours[k], owned[k], judged).items():
                shares[status] += values
        kept, taken = float(np.mean(shares["alive"])), float(np.mean(shares["dead"]))
        rows.append(
            {
                "policy": policy,
                "positions": len(positions),
                "playouts": args.playouts,
                "alive_stones": len(shares["alive"]),
                "kept": f"{kept:.3f}",
                "dead_stones": len(shares["dead"]),
                "taken": f"{taken:.3f}",
                "balanced": f"{(kept + taken) / 2:.3f}",
                "judge": f"GNU Go 3.8 level {args.level}, dragon_status",
            }
        )
    print("| policy | positions | alive stones kept | dead stones taken | balanced |")
    print("|---|---:|---:|---:|---:|")
    for r in rows:
        print(
            f"| {r['policy']} | {r['positions']} | {r['kept']} ({r['alive_stones']}) "
            f"| {r['taken']} ({r['dead_stones']}) | {r['balanced']} |"
        )
    if args.csv:
        append_rows(args.csv, [{**common, **r} for r in rows], [*common, *COLUMNS])
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PATH", "")
    if "/usr/games" not in os.environ["PATH"].split(os.pathsep):
        os.environ["PATH"] += os.pathsep + "/usr/games"
    sys.exit(main())
