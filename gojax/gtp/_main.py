"""The ``gojax-gtp`` console script: a :class:`GTPEngine` on stdin/stdout.

::

    gojax-gtp --size 9                                           # the tree search, 1 s a move
    gojax-gtp --size 9 --seconds-per-move 5 --resign-threshold 0.05
    gojax-gtp --size 9 --player uct --simulations 128           # Sabaki, GoGui, gogui-twogtp
    python -m gojax.gtp --player az --checkpoint runs/9x9/ckpt   # an AlphaZero network
    gojax-gtp --player policy --checkpoint runs/9x9/network      # its raw policy, no search
    gojax-gtp --checkpoint runs/9x9/network                      # the tree search guided by a network
    gojax-gtp --size 9 --host-devices 2 --playouts-per-leaf 16   # the search on two CPU cores

Replies go to stdout (flushed after each); logs, JAX's messages and any stray
``print`` go to stderr, so the protocol stream stays clean. Input is read in
a thread, so a streaming analysis (``lz-analyze``, ``kata-analyze``) stops as
soon as the next command arrives. A player whose optional dependency (mctx,
Flax, ...) is missing is refused at start-up with exit status 2. The
compilation cache (:mod:`gojax.gtp._cache`; ``--compile-cache DIR``,
``--no-compile-cache``) is on by default: the second start of an engine loads
its player in a second instead of compiling it for tens of seconds.
"""

from __future__ import annotations

import argparse
import logging
import os
import queue
import sys
import threading
from typing import Any

from gojax._core.types import MAX_SIZE, MIN_SIZE, GoConfig
from gojax._host.cpu_devices import split_host_cpu
from gojax.gtp._analysis import STREAMING
from gojax.gtp._cache import ENV_VAR, enable, resolve
from gojax.gtp._engine import GTPEngine
from gojax.gtp._protocol import parse_command
from gojax.gtp._spec import AZ_ALGORITHM, PLAYERS, ROLLOUTS, EngineOptions, PlayerSpec, missing_modules
from gojax.search import TreeSearchSettings

__all__ = ["build_parser", "engine_arguments", "main"]

_CACHE_HELP = f"compilation cache directory (default: ${ENV_VAR}, else $XDG_CACHE_HOME/gojax/jax)"


def _size(text: str) -> int:
    value = int(text)
    if not MIN_SIZE <= value <= MAX_SIZE:
        raise argparse.ArgumentTypeError(f"size must be in [{MIN_SIZE}, {MAX_SIZE}], got {value}")
    return value


def build_parser() -> argparse.ArgumentParser:
    """The command-line flags of ``gojax-gtp``."""
    parser = argparse.ArgumentParser(
        prog="gojax-gtp",
        description="A GTP v2 Go engine on gojax (Tromp-Taylor area scoring, superko).",
    )
    _add_rules(parser.add_argument_group("rules"))
    player = parser.add_argument_group("player")
    _add_player(player)
    _add_tree_search(player)
    _add_network(player)
    _add_decisions(player)
    _add_engine(parser.add_argument_group("engine"))
    return parser


def _add_rules(rules: argparse._ArgumentGroup) -> None:
    rules.add_argument("--size", type=_size, default=19, help="board size at start, 2..25 (default 19)")
    rules.add_argument("--komi", type=float, default=7.5, help="komi at start (default 7.5)")
    rules.add_argument("--ko-rule", choices=("positional", "situational", "simple"), default="positional")
    rules.add_argument("--suicide", action="store_true", help="allow suicide (Tromp-Taylor, New Zealand)")
    rules.add_argument("--max-moves", type=int, default=None, help="move cap of a game (default 2*N*N)")


def _add_player(player: argparse._ArgumentGroup) -> None:
    """The player kind and the size of its search."""
    player.add_argument(
        "--player",
        choices=PLAYERS,
        default="mcts",
        help="the genmove player (default mcts: the tree search, the strongest without a network)",
    )
    player.add_argument(
        "--seconds-per-move",
        type=float,
        default=1.0,
        help="mcts, az: seconds a move without a controller's time limit "
        "(default 1; 0: --simulations a move)",
    )
    player.add_argument(
        "--simulations",
        type=int,
        default=128,
        help="UCT / AlphaZero simulations per move (az: the least of its time ladder; "
        "mcts, az: a move's fixed budget with --seconds-per-move 0)",
    )
    player.add_argument("--playouts", type=int, default=8, help="pure Monte-Carlo playouts per candidate")
    player.add_argument(
        "--rollout",
        choices=ROLLOUTS,
        default="random",
        help="UCT / Monte-Carlo playout policy",
    )


def _add_tree_search(player: argparse._ArgumentGroup) -> None:
    """The settings of the tree search (``mcts``) that replace ``TreeSearchSettings``' defaults."""
    player.add_argument(
        "--playout-policy",
        default=None,
        metavar="POLICY",
        help="mcts: the tree search's playout policy, light, heavy, random or heuristic "
        "(default: gojax.search.TreeSearchSettings' default)",
    )
    player.add_argument(
        "--playouts-per-leaf",
        type=int,
        default=None,
        metavar="M",
        help="mcts: playouts run from each new leaf (default: gojax.search.TreeSearchSettings' default)",
    )
    player.add_argument(
        "--leaves-per-batch",
        type=int,
        default=None,
        metavar="K",
        help="mcts: leaves expanded by one batch step (default: gojax.search.TreeSearchSettings' default)",
    )
    player.add_argument(
        "--prior-visits",
        type=float,
        default=None,
        metavar="V",
        help="mcts: the prior's weight as equivalent visits of every legal move (default: 10, "
        "or 50 with --checkpoint)",
    )
    player.add_argument(
        "--opening-prior",
        type=int,
        choices=(0, 1),
        default=None,
        help="mcts: 1 adds the prior's open-area and last-move rules on boards of 13x13 and more "
        "(gojax.search.TreeSearchSettings.opening_prior; they steer with --prior-visits in the hundreds)",
    )
    player.add_argument(
        "--dynamic-komi",
        type=float,
        default=None,
        metavar="F",
        help="mcts: when ahead, play as if the komi asked for F (0..1) of the lead too, fading out by "
        "move P/2 (gojax.search.TreeSearchSettings.dynamic_komi; default 0: off)",
    )
    player.add_argument(
        "--policy-weight",
        type=float,
        default=None,
        help="mcts with --checkpoint: the network policy's weight in the prior, 0..1 (default 0.5)",
    )
    player.add_argument(
        "--value-weight",
        type=float,
        default=None,
        help="mcts with --checkpoint: the network value's weight against the playouts, 0..1 (default 0)",
    )


def _add_network(player: argparse._ArgumentGroup) -> None:
    """The network of ``az`` (or the tree search's guide), its search, and the seed."""
    player.add_argument(
        "--checkpoint",
        default=None,
        help="AlphaZero checkpoint: the network of --player az or policy, or the tree search's guide "
        "(--player mcts)",
    )
    player.add_argument(
        "--algorithm",
        choices=("puct", "gumbel"),
        default=AZ_ALGORITHM,
        help=f"az: the AlphaZero search (default {AZ_ALGORITHM}; gumbel: the search training uses)",
    )
    player.add_argument(
        "--gumbel-scale",
        type=float,
        default=None,
        metavar="G",
        help="az, gumbel: scale of the root's Gumbel noise (0: a deterministic search; default 1)",
    )
    player.add_argument(
        "--considered-actions",
        type=int,
        default=None,
        metavar="K",
        help="az, gumbel: the root moves the search considers (default 16)",
    )
    player.add_argument(
        "--playout-weight",
        type=float,
        default=0.0,
        metavar="W",
        help="az: value each leaf by (1 - W) times the network's value plus W times one heavy "
        "playout's result (AlphaGo's mixed evaluation; default 0: the network alone)",
    )
    player.add_argument(
        "--symmetries",
        type=int,
        choices=(1, 8),
        default=None,
        help="with --checkpoint: the network evaluates a position as the mean over the board's 8 "
        "symmetries (8) or as it is (1); default 8 for --player policy, 1 for the searches",
    )
    player.add_argument("--seed", type=int, default=0, help="PRNG seed of the searches")


def _add_decisions(player: argparse._ArgumentGroup) -> None:
    """When the engine resigns and passes."""
    player.add_argument(
        "--resign-threshold",
        type=float,
        default=0.1,
        help="mcts: resign when the win rates of the position and its best move are below this (default 0.1)",
    )
    player.add_argument(
        "--resign-playouts",
        type=int,
        default=500,
        help="mcts: the playouts the tree must hold before it may resign (default 500)",
    )
    player.add_argument("--no-resign", action="store_true", help="never resign")
    player.add_argument(
        "--no-pass-when-ahead",
        action="store_true",
        help="do not pass after an opponent's pass when passing wins on the area score",
    )
    player.add_argument(
        "--allow-early-pass",
        action="store_true",
        help="play the search's pass even while the opponent has not passed and safe moves are left",
    )


def _add_engine(engine: argparse._ArgumentGroup) -> None:
    """The engine's name, devices, warm-up, compilation cache and log."""
    engine.add_argument("--name", default="gojax", help="the answer to 'name'")
    engine.add_argument(
        "--host-devices",
        type=int,
        default=None,
        metavar="D",
        help="split the CPU into D JAX devices (XLA_FLAGS); the mcts player shares each batch's "
        "leaves among them (default: JAX's devices, one on a CPU)",
    )
    engine.add_argument(
        "--no-warmup", action="store_true", help="do not compile and time the player on time_settings"
    )
    cache = engine.add_mutually_exclusive_group()
    cache.add_argument("--compile-cache", "--cache-dir", metavar="DIR", default=None, help=_CACHE_HELP)
    cache.add_argument("--no-compile-cache", action="store_true", help="compile everything afresh")
    engine.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))


def _az_search(args: argparse.Namespace) -> Any:
    """The :class:`gojax.alphazero.SearchSettings` of ``--player az`` (for play)."""
    from gojax import alphazero  # needs flax and mctx: only for an AlphaZero player

    gumbel = {
        flag: (name, value)
        for flag, name, value in (
            ("--gumbel-scale", "gumbel_scale", args.gumbel_scale),
            ("--considered-actions", "max_num_considered_actions", args.considered_actions),
        )
        if value is not None
    }
    if gumbel and args.algorithm != "gumbel":
        raise ValueError(f"{', '.join(gumbel)}: for --algorithm gumbel, not {args.algorithm!r}")
    return alphazero.SearchSettings(algorithm=args.algorithm, **dict(gumbel.values())).for_play()


def engine_arguments(args: argparse.Namespace) -> tuple[GoConfig, PlayerSpec, EngineOptions]:
    """The rules, player and options of a :class:`GTPEngine` from parsed ``gojax-gtp`` flags.

    Raises:
      TypeError, ValueError: naming a bad flag value.
      ImportError: when a module the player needs is missing (``REQUIRES``).
    """
    missing = missing_modules(args.player, args.checkpoint)
    if missing:
        guided = " with --checkpoint" if args.player == "mcts" else ""
        raise ImportError(
            f"--player {args.player}{guided} needs {', '.join(missing)}, which cannot be imported "
            f"(pip install 'gojax[{'players' if args.player == 'uct' else 'alphazero'}]'); "
            "the other players need only JAX and NumPy"
        )
    rules = GoConfig(
        size=args.size, komi=args.komi, ko_rule=args.ko_rule, suicide=args.suicide, max_moves=args.max_moves
    )
    search: Any = None  # the player's settings: alphazero.SearchSettings or TreeSearchSettings
    if args.player == "az":
        search = _az_search(args)
    elif args.gumbel_scale is not None or args.considered_actions is not None:
        raise ValueError(f"--gumbel-scale, --considered-actions: for --player az, not {args.player!r}")
    tree_flags: dict[str, Any] = {
        name: value
        for name, value in (
            ("playout_policy", args.playout_policy),
            ("playouts_per_leaf", args.playouts_per_leaf),
            ("leaves_per_batch", args.leaves_per_batch),
            ("prior_visits", args.prior_visits),
            ("opening_prior", None if args.opening_prior is None else bool(args.opening_prior)),
            ("dynamic_komi", args.dynamic_komi),
            ("policy_weight", args.policy_weight),
            ("value_weight", args.value_weight),
        )
        if value is not None
    }
    if tree_flags:
        if args.player != "mcts":
            flags = ", ".join("--" + name.replace("_", "-") for name in tree_flags)
            raise ValueError(f"{flags}: for --player mcts, not {args.player!r}")
        unguided = [name for name in ("policy_weight", "value_weight") if name in tree_flags]
        if unguided and not args.checkpoint:
            flags = ", ".join("--" + name.replace("_", "-") for name in unguided)
            raise ValueError(f"{flags}: weigh the network of --checkpoint, and none is given")
        search = TreeSearchSettings(**tree_flags)
    player = PlayerSpec(
        kind=args.player,
        simulations=args.simulations,
        playouts=args.playouts,
        rollout=args.rollout,
        checkpoint=args.checkpoint,
        search=search,
        seed=args.seed,
        seconds_per_move=args.seconds_per_move or None,
        playout_weight=args.playout_weight,
        symmetries=args.symmetries,
    )
    options = EngineOptions(
        name=args.name,
        warm_up=not args.no_warmup,
        pass_when_ahead=not args.no_pass_when_ahead,
        allow_early_pass=args.allow_early_pass,
        resign_threshold=None if args.no_resign or not args.resign_threshold else args.resign_threshold,
        resign_playouts=args.resign_playouts,
    )
    return rules, player, options


class _StderrHandler(logging.StreamHandler):
    """The engine's own stderr log handler (added once however often logging is configured)."""


def _configure_logging(level: str) -> None:
    logger = logging.getLogger("gojax")  # the engine's own log and the compiled executables' store
    logger.setLevel(level)
    if not any(isinstance(h, _StderrHandler) for h in logger.handlers):
        handler = _StderrHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s gojax-gtp %(levelname)s %(message)s"))
        logger.addHandler(handler)
        logger.propagate = False


def _read_lines(stream) -> queue.Queue:
    """A queue filled with the raw lines of ``stream`` by a daemon thread (``None`` at the end).

    The thread reads the file descriptor itself (``os.read``), not the
    buffered stream: a daemon thread blocked inside a buffered read would hold
    its lock when the interpreter exits after ``quit`` and abort the process.
    """
    lines: queue.Queue = queue.Queue()
    try:
        descriptor = stream.fileno()
    except (AttributeError, OSError, ValueError):
        descriptor = None

    def chunks():
        if descriptor is None:
            yield from iter(stream.readline, b"")
            return
        while chunk := os.read(descriptor, 1 << 16):
            yield chunk

    def read() -> None:
        pending = b""
        try:
            for chunk in chunks():
                pending += chunk
                *complete, pending = pending.split(b"\n")
                for line in complete:
                    lines.put(line + b"\n")
            if pending:
                lines.put(pending)
        except (OSError, ValueError) as error:  # an unreadable stdin ends the session like its end
            logging.getLogger("gojax.gtp").error("cannot read stdin: %s", error)
        finally:
            lines.put(None)

    threading.Thread(target=read, daemon=True, name="gojax-gtp-stdin").start()
    return lines


def main(argv: list[str] | None = None) -> int:
    """Runs the engine until ``quit`` or the end of stdin; returns the exit status."""
    args = build_parser().parse_args(argv)
    _configure_logging(args.log_level)
    if args.host_devices is not None:  # read when JAX starts its backends: before any JAX work
        try:
            split_host_cpu(args.host_devices)
        except ValueError as error:
            print(f"gojax-gtp: --host-devices: {error}", file=sys.stderr)
            return 2
    protocol = sys.stdout
    sys.stdout = sys.stderr  # nothing but replies may reach the controller
    try:
        enable(resolve(args.compile_cache, args.no_compile_cache))
        try:
            engine = GTPEngine(*engine_arguments(args))
        except (ValueError, TypeError, OSError, ImportError) as error:
            print(f"gojax-gtp: {error}", file=sys.stderr)
            return 2
        logging.getLogger("gojax.gtp").info("ready: %s", engine.searcher.levels[0].label)
        lines = _read_lines(sys.stdin.buffer)

        def write(text: str) -> None:
            protocol.write(text)
            protocol.flush()

        while True:
            raw = lines.get()
            if raw is None:
                break
            line = raw.decode("utf-8", errors="replace")
            try:
                command = parse_command(line)
            except Exception:
                command = None  # handle_line answers it
            if command is not None and command.name in STREAMING:
                engine.analyze(command, write, should_stop=lambda: not lines.empty())
                continue
            reply = engine.handle_line(line)
            if reply:
                write(reply)
            if engine.quit_requested:
                break
        engine.close()  # a late search must not be inside XLA when the interpreter exits
        return 0
    finally:
        sys.stdout = protocol
