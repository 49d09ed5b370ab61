"""``gojax-selfplay``: self-play games to a training file of positions, moves and outcomes, and SGF files.

::

    gojax-selfplay --size 9 --games 256 --out selfplay.npz                      # random legal moves
    gojax-selfplay --size 9 --games 64 --player uct --simulations 32 --sgf games/   # UCT (gojax[players])

Games are played in batches on the device by :func:`gojax.players.play_games`
(the player against itself, or against ``--opponent``, colours alternating),
then every position before a move becomes one sample of a
:class:`gojax.dataset.MoveDataset`, written to ``--out`` (``.npz``; read it
back with ``MoveDataset.load``, batch it with :func:`gojax.dataset.batches`):

* ``features`` ``[M, N, N, C]``: the observation of the position (``--observation``,
  default ``basic``, the 15 planes the AlphaZero network reads);
* ``actions`` ``int32[M]``: the move played there (``P`` is pass);
* ``values`` ``float32[M]``: the game's result for the player to move
  (+1 / -1, 0 for a draw), from the final Tromp-Taylor score, a resignation
  or a forfeit; games stopped by the move cap are scored by area;
* ``legal`` ``bool[M, A]``, ``game_ids`` ``int32[M]``, ``move_numbers`` ``int32[M]``.

``--sgf DIR`` also writes every game as an SGF file (``game_000000.sgf``, ...,
with its result in ``RE``). Like the other host tools, it compiles what it runs.
"""

from __future__ import annotations

import argparse
import functools
import sys
import time
from pathlib import Path

import jax
import numpy as np

from gojax._core.scoring import score
from gojax._core.types import BLACK, WHITE, GoConfig
from gojax._host.results import format_margin
from gojax.dataset._build import build_dataset
from gojax.dataset._store import MoveDataset
from gojax.features import OBSERVATIONS
from gojax.players import (
    Player,
    heuristic_playout_policy,
    play_games,
    pure_monte_carlo,
    random_player,
    uct_player,
)
from gojax.sgf import GameRecord, games_to_sgf

__all__ = ["PLAYERS", "build_parser", "game_records", "main", "make_player", "selfplay"]

PLAYERS = ("random", "heuristic", "mc", "uct")
"""The players ``--player`` and ``--opponent`` name."""

_LETTER = {BLACK: "B", WHITE: "W"}


def make_player(name: str, simulations: int = 32, playouts: int = 4) -> Player:
    """The player called ``name`` (one of :data:`PLAYERS`).

    Raises:
      ValueError: for an unknown name.
      ImportError: for ``"uct"`` without mctx (``pip install 'gojax[players]'``).
    """
    if name == "random":
        return random_player
    if name == "heuristic":
        return heuristic_playout_policy
    if name == "mc":
        return pure_monte_carlo(playouts)
    if name == "uct":
        return uct_player(simulations)
    raise ValueError(f"unknown player {name!r}; expected one of {', '.join(PLAYERS)}")


@functools.cache
def _runner(config: GoConfig, a: Player, b: Player, max_moves: int | None):
    def run(keys):
        games = play_games(config, a, b, keys, max_moves)
        final = games.final
        return games.moves, games.length, jax.vmap(functools.partial(score, config))(final), final

    return jax.jit(run)


def _results(final, scores: np.ndarray) -> list[str]:
    """``RE`` of every game: ``B+R``/``B+F`` for a resignation or forfeit, else the area score."""
    loser = np.asarray(final.loser)
    terminated = np.asarray(final.terminated)
    illegal = np.asarray(final.illegal_move)
    results = []
    for g, margin in enumerate(scores):
        if terminated[g] and loser[g] in (BLACK, WHITE):
            results.append(f"{_LETTER[BLACK + WHITE - int(loser[g])]}+{'F' if illegal[g] else 'R'}")
        else:
            results.append(format_margin(float(margin)))
    return results


def selfplay(
    config: GoConfig,
    player: Player,
    num_games: int,
    key: jax.Array,
    *,
    opponent: Player | None = None,
    batch_size: int = 64,
    max_moves: int | None = None,
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Plays ``num_games`` games (``player`` against ``opponent``, default itself).

    Returns:
      ``(moves, lengths, results)``: ``int16[G, L]`` actions (``-1`` after the
      end), ``int32[G]`` moves per game, and each game's ``RE`` string.

    Raises:
      ValueError: for a ``num_games`` or ``batch_size`` that is not a positive even number.
    """
    for name, value in (("num_games", num_games), ("batch_size", batch_size)):
        if isinstance(value, bool) or not isinstance(value, int) or value < 2 or value % 2:
            raise ValueError(f"{name} must be an even number >= 2 (colours alternate), got {value!r}")
    run = _runner(config, player, player if opponent is None else opponent, max_moves)
    moves, lengths, results = [], [], []
    for _ in range(0, num_games, batch_size):  # whole batches: one compiled shape, the extra games dropped
        key, sub = jax.random.split(key)
        batch_moves, length, scores, final = run(jax.random.split(sub, batch_size))
        moves.append(np.asarray(batch_moves))
        lengths.append(np.asarray(length))
        results += _results(final, np.asarray(scores))
    width = max(m.shape[1] for m in moves)
    padded = [np.pad(m, ((0, 0), (0, width - m.shape[1])), constant_values=-1) for m in moves]
    return np.concatenate(padded)[:num_games], np.concatenate(lengths)[:num_games], results[:num_games]


def game_records(config: GoConfig, moves: np.ndarray, lengths: np.ndarray, results) -> list[GameRecord]:
    """One :class:`~gojax.sgf.GameRecord` per game (black first, colours alternating)."""
    records = []
    for g in range(moves.shape[0]):
        played = [int(a) for a in moves[g, : int(lengths[g])]]
        records.append(
            GameRecord(
                config=config,
                setup=np.zeros((config.size, config.size), np.int8),
                moves=[(BLACK if i % 2 == 0 else WHITE, a) for i, a in enumerate(played)],
                metadata={"RE": results[g]},
                name=f"game_{g:06d}",
            )
        )
    return records


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``gojax-selfplay``."""
    parser = argparse.ArgumentParser(
        prog="gojax-selfplay",
        description="Self-play games to an .npz of positions (feature planes), moves and outcomes, "
        "and optionally SGF files.",
    )
    parser.add_argument("--size", type=int, default=9, help="board side (default 9)")
    parser.add_argument("--komi", type=float, default=7.5)
    parser.add_argument("--ko-rule", choices=("simple", "positional", "situational"), default="positional")
    parser.add_argument("--games", type=int, default=64, help="games to play (even; default 64)")
    parser.add_argument("--player", choices=PLAYERS, default="random")
    parser.add_argument("--opponent", choices=PLAYERS, default=None, help="default: the player itself")
    parser.add_argument("--simulations", type=int, default=32, help="UCT simulations per move")
    parser.add_argument("--playouts", type=int, default=4, help="Monte-Carlo playouts per move")
    parser.add_argument("--max-moves", type=int, default=None, help="stop games here and score by area")
    parser.add_argument("--batch-size", type=int, default=64, help="games played at once (even)")
    parser.add_argument(
        "--observation", choices=sorted(OBSERVATIONS), default="basic", help="feature planes of each sample"
    )
    parser.add_argument("--out", type=Path, default=Path("selfplay.npz"), help="the .npz file to write")
    parser.add_argument("--sgf", type=Path, default=None, help="also write the games as SGF here")
    parser.add_argument("--seed", type=int, default=0)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Runs ``gojax-selfplay`` (see the module docstring); returns the exit status."""
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        config = GoConfig(size=args.size, komi=args.komi, ko_rule=args.ko_rule)
        player = make_player(args.player, args.simulations, args.playouts)
        opponent = None
        if args.opponent is not None:
            opponent = make_player(args.opponent, args.simulations, args.playouts)
        start = time.perf_counter()
        moves, lengths, results = selfplay(
            config,
            player,
            args.games,
            jax.random.PRNGKey(args.seed),
            opponent=opponent,
            batch_size=min(args.batch_size, args.games + args.games % 2),
            max_moves=args.max_moves,
        )
    except ImportError as error:  # the player's extra is missing: one line naming it
        print(f"gojax-selfplay: {error}", file=sys.stderr)
        return 2
    except ValueError as error:
        parser.error(str(error))
    played = time.perf_counter() - start
    names = {"PB": args.player, "PW": args.opponent or args.player}
    if args.sgf is not None:
        games_to_sgf(config, moves, args.sgf, lengths=lengths, results=results, metadata=names)
    records = game_records(config, moves, lengths, results)
    data: MoveDataset = build_dataset(
        records, args.size, observation=args.observation, ko_rule=args.ko_rule, komi=args.komi
    )
    if data.skipped:  # every game was played by gojax's rules: a refusal here is a bug
        raise RuntimeError(f"games refused by the replay: {data.skipped[:3]}")
    data.save(args.out)
    black = sum(r.startswith("B+") for r in results)
    print(
        f"{args.games} games of {args.player} vs {args.opponent or args.player} on {args.size}x{args.size} "
        f"in {played:.1f} s ({int(np.sum(lengths))} moves, black won {black}); "
        f"{len(data)} samples ({data.features.shape[-1]} {args.observation} planes) -> {args.out}"
        + (f"; SGF -> {args.sgf}/" if args.sgf is not None else "")
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
