"""Train an AlphaZero Go agent by self-play: a first Go AI in 30 minutes on a CPU.

    python experiments/train.py                          # 9x9, 30 minutes, run dir runs/alphazero
    python experiments/train.py --minutes 5 --run-dir runs/quick
    python experiments/train.py --run-dir runs/quick --resume      # continue after a kill
    python experiments/train.py --host-devices 4 --batch-per-device 32   # 4 virtual CPU devices

Every device of the machine is used, data-parallel (``--devices`` to use
fewer); ``--distributed`` calls ``jax.distributed.initialize`` first for a
multi-host run. With ``--resume`` the run's saved ``config.json`` is used;
only the budget (``--minutes``, ``--max-iterations``) and the evaluation and
file settings given on the command line change. See
``gojax/alphazero/_trainer.py`` for what is written under ``--run-dir``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

# Settings that may change when a run is resumed (the others fix shapes or the computation).
_RESUMABLE = (
    "minutes",
    "max_iterations",
    "eval_every",
    "eval_games",
    "final_eval_games",
    "final_eval_opponents",
    "eval_opponents",
    "gnugo_games",
    "gnugo_level",
    "checkpoint_every",
    "sgf_games",
    "progress",
    "devices",
)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    add = p.add_argument
    add("--size", type=int, help="board side (default 9)")
    add("--komi", type=float, help="komi (default 7.5; 9 on 7x7, the fair value under area scoring)")
    add("--ko-rule", choices=("simple", "positional", "situational"))
    add(
        "--max-moves",
        type=int,
        help="move cap of a game (default 2 * N * N); capped games are scored by area",
    )
    add("--blocks", type=int, help="residual blocks (default 3)")
    add("--channels", type=int, help="channels (default 32)")
    add("--simulations", type=int, help="search simulations per move, self-play and evaluation (default 16)")
    add("--algorithm", choices=("gumbel", "puct"))
    add("--explore-moves", type=int, help="moves sampled from the search policy at the start of each game")
    add("--batch", type=int, help="self-play games at once, over all devices (default 128)")
    add("--batch-per-device", type=int, help="self-play games per device (overrides --batch)")
    add("--moves-per-iteration", type=int, help="self-play moves per game between training phases")
    add("--train-batch", type=int, help="training batch, over all devices (default 256)")
    add("--train-batch-per-device", type=int)
    add("--reuse", type=float, help="mean times each position is drawn for training (default 4)")
    add("--train-steps", type=int, help="training steps per iteration (overrides --reuse)")
    add("--replay-capacity", type=int)
    add("--min-replay", type=int, help="finished positions needed before training starts")
    add("--optimizer", choices=("adamw", "sgd"))
    add("--learning-rate", "--lr", type=float, dest="learning_rate")
    add("--weight-decay", type=float)
    add("--warmup-steps", type=int)
    add("--value-weight", type=float)
    add("--no-augment", dest="augment", action="store_const", const=False)
    add("--minutes", type=float, help="budget of self-play + training time (default 30)")
    add("--max-iterations", type=int, help="stop after this many iterations")
    add("--seed", type=int)
    add("--devices", type=int, help="local devices to use (default all)")
    add("--eval-every", type=float, help="minutes between evaluations (0: none during training)")
    add("--eval-games", type=int, help="games per opponent at each evaluation")
    add("--final-eval-games", type=int, help="games per opponent in the final evaluation (0: none)")
    add("--eval-opponents", nargs="+", choices=("random", "pure_mc", "uct"))
    add("--final-eval-opponents", nargs="+", choices=("random", "pure_mc", "uct"))
    add("--gnugo-games", type=int, help="games against GNU Go at the end (needs gojax.gtp and gnugo)")
    add("--gnugo-level", type=int, help="GNU Go level (default 1)")
    add("--mc-playouts", type=int, help="playouts per move of the pure Monte-Carlo opponent")
    add("--eval-gumbel-scale", type=float, help="root Gumbel noise of the agent in evaluation games")
    add("--run-dir")
    add("--checkpoint-every", type=float, help="minutes between checkpoints (0: every iteration)")
    add("--sgf-games", type=int, help="self-play games saved as SGF at each evaluation")
    add("--no-progress", dest="progress", action="store_const", const=False)
    add("--resume", action="store_true", help="continue the run in --run-dir from its latest checkpoint")
    add("--host-devices", type=int, help="split the CPU into this many JAX devices (XLA_FLAGS)")
    add("--distributed", action="store_true", help="jax.distributed.initialize() first (multi-host)")
    add("--coordinator", help="multi-host: coordinator host:port")
    add("--num-processes", type=int)
    add("--process-id", type=int)
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.host_devices:
        flags = os.environ.get("XLA_FLAGS", "")
        os.environ["XLA_FLAGS"] = (
            f"{flags} --xla_force_host_platform_device_count={args.host_devices}".strip()
        )
    if args.distributed:
        from gojax.alphazero._sharding import initialize_distributed

        initialize_distributed(args.coordinator, args.num_processes, args.process_id)
    from gojax.alphazero._train_config import TrainConfig
    from gojax.alphazero._trainer import train

    given = {
        k: v
        for k, v in vars(args).items()
        if v is not None and k in {f for f in TrainConfig.__dataclass_fields__}
    }
    for name in ("eval_opponents", "final_eval_opponents"):
        if getattr(args, name):
            given[name] = tuple(getattr(args, name))
    if given.get("size") == 7 and "komi" not in given:
        given["komi"] = 9.0  # the fair 7x7 komi under area scoring
    run_dir = given.get("run_dir", TrainConfig.run_dir)
    saved_path = os.path.join(run_dir, "config.json")
    if args.resume and os.path.exists(saved_path):
        with open(saved_path, encoding="utf-8") as handle:
            saved = json.load(handle)
        changed = sorted(
            k for k, v in given.items() if k not in _RESUMABLE and k != "run_dir" and saved.get(k) != v
        )
        if changed:
            print(f"--resume: ignoring {changed}: the run's config.json fixes them", file=sys.stderr)
        saved.update({k: v for k, v in given.items() if k in _RESUMABLE})
        config = TrainConfig.from_dict(saved)
    else:
        config = TrainConfig(**given)
    train(config, resume=args.resume)
    return 0


if __name__ == "__main__":
    sys.exit(main())
