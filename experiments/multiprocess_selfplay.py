"""Self-play games over several processes into one dataset, for users who bring their own learner.

::

    python experiments/multiprocess_selfplay.py --local-processes 2 --games 256 --out selfplay.npz
    python experiments/multiprocess_selfplay.py --local-processes 2 --player policy \\
        --checkpoint runs/alphazero/network --simulations 16 --games 64 --out policy.npz
    srun python experiments/multiprocess_selfplay.py --distributed --games 65536 --out /shared/selfplay.npz

The processes run on JAX's multi-controller runtime
(:func:`gojax.alphazero.initialize_distributed`: ``--coordinator HOST:PORT
--num-processes N --process-id I``, or ``--distributed`` where JAX detects
them, or ``--local-processes N`` to start ``N`` on this machine). The
``--games`` games are split over one global mesh of every process's devices
(:func:`gojax.alphazero.process_devices`); each device plays its own games
with :func:`gojax.players.play_games` inside a :func:`jax.shard_map` (no
communication while playing), each game from its own key. The games' moves,
lengths, scores and losers (after a resignation or an illegal move) are then
all-gathered (one collective across the processes) and process 0 replays
them into a :class:`gojax.dataset.MoveDataset` (one sample per position:
planes, move, outcome, legal moves), written to ``--out``. The result does
not depend on how many processes or devices played: the same ``--seed``
gives the same dataset.

Players (``--player``): ``random``, ``heuristic``, ``mc``, ``uct`` (those of
``gojax-selfplay``), or ``policy``: the AlphaZero network of ``--checkpoint``
(a ``run_dir/network`` of ``gojax-train``) with a Gumbel search of
``--simulations`` simulations per move.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import traceback
from pathlib import Path


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--komi", type=float, default=7.5)
    parser.add_argument("--ko-rule", choices=("simple", "positional", "situational"), default="positional")
    parser.add_argument("--games", type=int, default=256, help="games in all (a multiple of 2 x devices)")
    parser.add_argument("--player", choices=("random", "heuristic", "mc", "uct", "policy"), default="random")
    parser.add_argument("--checkpoint", type=Path, help="--player policy: the network checkpoint")
    parser.add_argument("--simulations", type=int, default=16, help="uct / policy: simulations per move")
    parser.add_argument("--max-moves", type=int, default=None, help="stop games here and score by area")
    parser.add_argument("--observation", default="basic", help="the feature planes of each sample")
    parser.add_argument("--out", type=Path, default=Path("selfplay.npz"))
    parser.add_argument("--seed", type=int, default=0)
    processes = parser.add_argument_group("several processes")
    processes.add_argument("--local-processes", type=int, help="start this many processes on this machine")
    processes.add_argument("--distributed", action="store_true", help="process flags from the cluster")
    processes.add_argument("--coordinator")
    processes.add_argument("--num-processes", type=int)
    processes.add_argument("--process-id", type=int)
    processes.add_argument("--host-devices", type=int, help="CPU devices of this process")
    return parser


def make_player(args: argparse.Namespace):
    """The player of ``--player`` (one game: ``(config, state, key) -> action``)."""
    from gojax.dataset.selfplay import make_player as classic

    if args.player != "policy":
        return classic(args.player, args.simulations)
    from gojax import alphazero as az
    from gojax.features import observation

    if args.checkpoint is None:
        raise ValueError("--player policy needs --checkpoint")
    import jax

    net, _, meta = az.load_checkpoint(args.checkpoint)
    if meta["board_size"] != args.size:
        raise ValueError(
            f"{args.checkpoint} is a network for {meta['board_size']}x{meta['board_size']}, "
            f"not --size {args.size}"
        )
    graphdef, variables = az.split(net)
    variables = jax.device_get(variables)  # host arrays: constants of the program on every device
    settings = az.SearchSettings(num_simulations=args.simulations)
    return az.AlphaZeroPlayer(graphdef, variables, settings, observation(meta["observe_name"]).observe)


def play(args: argparse.Namespace, config):
    """Plays the games, each process its share on its devices; returns every game (in every process).

    Returns:
      ``(moves, lengths, margins, losers, illegal, seconds)``: numpy arrays
      over all the games, and the seconds the games took (compilation left out).
    """
    import functools

    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.experimental import multihost_utils
    from jax.sharding import PartitionSpec

    import gojax
    from gojax import alphazero as az
    from gojax.players import play_games

    mesh = az.make_mesh(devices=az.process_devices())
    devices = mesh.devices.size
    if args.games % (2 * devices):
        raise ValueError(
            f"--games {args.games} is not a multiple of 2 x {devices} devices (colours alternate)"
        )
    player = make_player(args)

    def local(keys):  # one device's games, from their own keys
        games = play_games(config, player, player, keys, args.max_moves)
        final = games.final
        margins = jax.vmap(functools.partial(gojax.score, config))(final)
        # A game that ended on a resignation or an illegal move has a loser (else 0).
        loser = jnp.where(final.terminated, final.loser, 0).astype(jnp.int8)
        return games.moves, games.length, margins, loser, final.illegal_move

    split = PartitionSpec(az.DATA_AXIS)
    run = jax.shard_map(local, mesh=mesh, in_specs=split, out_specs=(split,) * 5, check_vma=False)
    keys = jax.jit(
        lambda: jax.random.split(jax.random.PRNGKey(args.seed), args.games),
        out_shardings=az.batch_sharding(mesh),
    )()
    compiled = jax.jit(run).lower(keys).compile()  # compiled outside the timing
    start = time.perf_counter()
    out = jax.block_until_ready(compiled(keys))
    seconds = time.perf_counter() - start
    if jax.process_count() > 1:
        # Global arrays split over the processes: every process gets all the games, in order.
        out = multihost_utils.process_allgather(out, tiled=True)
    return (*(np.asarray(x) for x in out), seconds)


def _result(margin: float, loser: int, illegal: bool) -> str:
    """A game's ``RE``: ``B+R``, ``W+F``, ... after a resignation or an illegal move, else its area score."""
    from gojax import BLACK, WHITE

    if loser in (BLACK, WHITE):
        return f"{'W' if loser == BLACK else 'B'}+{'F' if illegal else 'R'}"
    return "0" if margin == 0 else f"{'B' if margin > 0 else 'W'}+{abs(margin):g}"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = build_parser().parse_args(argv)
    if args.local_processes:
        from gojax.training import run_local_processes

        return run_local_processes(
            argv,
            args.local_processes,
            args.host_devices or 1,
            command=[sys.executable, __file__],
            name="multiprocess_selfplay.py",
        )
    if args.host_devices:
        from gojax._host.cpu_devices import split_host_cpu

        split_host_cpu(args.host_devices)
    several = args.distributed or args.coordinator is not None
    if several:
        from gojax import alphazero as az

        az.initialize_distributed(args.coordinator, args.num_processes, args.process_id)
    import jax
    import numpy as np

    from gojax import GoConfig
    from gojax.dataset import build_dataset
    from gojax.dataset.selfplay import game_records

    config = GoConfig(size=args.size, komi=args.komi, ko_rule=args.ko_rule)
    if jax.process_count() == 1:
        moves, lengths, margins, losers, illegal, seconds = play(args, config)
    else:
        from gojax.training import report_failure, watch_processes

        watch_processes()  # a process of this machine that dies stops the others, naming it
        try:
            moves, lengths, margins, losers, illegal, seconds = play(args, config)
        except Exception as error:
            traceback.print_exc()
            report_failure(error)
            # Not the interpreter's exit: JAX's shutdown would wait for the other processes.
            sys.stdout.flush()
            os._exit(1)
    if jax.process_index() != 0:
        return 0
    results = [_result(float(m), int(x), bool(i)) for m, x, i in zip(margins, losers, illegal, strict=True)]
    records = game_records(config, moves, lengths, results)
    data = build_dataset(
        records, args.size, observation=args.observation, ko_rule=args.ko_rule, komi=args.komi
    )
    if data.skipped:  # every game was played by gojax's rules: a refusal here is a bug
        raise RuntimeError(f"games refused by the replay: {data.skipped[:3]}")
    data.save(args.out)
    positions = int(np.sum(lengths))
    print(
        f"{args.games} {args.player} games on {args.size}x{args.size} by {jax.process_count()} process(es), "
        f"{jax.device_count()} device(s) in {seconds:.3g} s ({positions / seconds:.0f} positions/s); "
        f"{len(data)} samples -> {args.out}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
