"""The ``gojax-gtp`` console script: a :class:`GTPEngine` on stdin/stdout.

::

    gojax-gtp --size 9 --player uct --simulations 128           # Sabaki, GoGui, gogui-twogtp
    python -m gojax.gtp --player az --checkpoint runs/9x9/ckpt   # an AlphaZero network

Replies go to stdout (flushed after each); logs, JAX's messages and any stray
``print`` go to stderr, so the protocol stream stays clean. The compilation
cache (:mod:`gojax.gtp._cache`; ``--compile-cache DIR``, ``--no-compile-cache``)
is on by default: the second start of an engine loads its player in a second
instead of compiling it for tens of seconds.
"""

from __future__ import annotations

import argparse
import logging
import sys

from gojax._core.types import MAX_SIZE, MIN_SIZE, GoConfig
from gojax.gtp._cache import ENV_VAR, enable, resolve
from gojax.gtp._engine import GTPEngine
from gojax.gtp._spec import PLAYERS, ROLLOUTS, EngineOptions, PlayerSpec

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
    rules = parser.add_argument_group("rules")
    rules.add_argument("--size", type=_size, default=19, help="board size at start, 2..25 (default 19)")
    rules.add_argument("--komi", type=float, default=7.5, help="komi at start (default 7.5)")
    rules.add_argument("--ko-rule", choices=("positional", "situational", "simple"), default="positional")
    rules.add_argument("--suicide", action="store_true", help="allow suicide (Tromp-Taylor, New Zealand)")
    rules.add_argument("--max-moves", type=int, default=None, help="move cap of a game (default 4*N*N)")
    player = parser.add_argument_group("player")
    player.add_argument("--player", choices=PLAYERS, default="uct", help="the genmove player (default uct)")
    player.add_argument("--simulations", type=int, default=128, help="UCT / AlphaZero simulations per move")
    player.add_argument("--playouts", type=int, default=8, help="pure Monte-Carlo playouts per candidate")
    player.add_argument(
        "--rollout",
        choices=ROLLOUTS,
        default="random",
        help="UCT / Monte-Carlo playout policy",
    )
    player.add_argument("--checkpoint", default=None, help="AlphaZero checkpoint (--player az)")
    player.add_argument("--algorithm", choices=("gumbel", "puct"), default="gumbel", help="AlphaZero search")
    player.add_argument("--seed", type=int, default=0, help="PRNG seed of the searches")
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
    engine = parser.add_argument_group("engine")
    engine.add_argument("--name", default="gojax", help="the answer to 'name'")
    engine.add_argument(
        "--no-warmup", action="store_true", help="do not compile and time the player on time_settings"
    )
    cache = engine.add_mutually_exclusive_group()
    cache.add_argument("--compile-cache", "--cache-dir", metavar="DIR", default=None, help=_CACHE_HELP)
    cache.add_argument("--no-compile-cache", action="store_true", help="compile everything afresh")
    engine.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    return parser


def engine_arguments(args: argparse.Namespace) -> tuple[GoConfig, PlayerSpec, EngineOptions]:
    """The rules, player and options of a :class:`GTPEngine` from parsed ``gojax-gtp`` flags.

    Raises:
      TypeError, ValueError: naming a bad flag value.
      ImportError: for ``--player az`` without flax, mctx and orbax.
    """
    rules = GoConfig(
        size=args.size, komi=args.komi, ko_rule=args.ko_rule, suicide=args.suicide, max_moves=args.max_moves
    )
    search = None
    if args.player == "az":
        from gojax import alphazero  # needs flax and mctx: only for an AlphaZero player

        search = alphazero.SearchSettings(algorithm=args.algorithm).for_play()
    player = PlayerSpec(
        kind=args.player,
        simulations=args.simulations,
        playouts=args.playouts,
        rollout=args.rollout,
        checkpoint=args.checkpoint,
        search=search,
        seed=args.seed,
    )
    options = EngineOptions(
        name=args.name,
        warm_up=not args.no_warmup,
        pass_when_ahead=not args.no_pass_when_ahead,
        allow_early_pass=args.allow_early_pass,
    )
    return rules, player, options


class _StderrHandler(logging.StreamHandler):
    """The engine's own stderr log handler (added once however often logging is configured)."""


def _configure_logging(level: str) -> None:
    logger = logging.getLogger("gojax.gtp")
    logger.setLevel(level)
    if not any(isinstance(h, _StderrHandler) for h in logger.handlers):
        handler = _StderrHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(asctime)s gojax-gtp %(levelname)s %(message)s"))
        logger.addHandler(handler)
        logger.propagate = False


def main(argv: list[str] | None = None) -> int:
    """Runs the engine until ``quit`` or the end of stdin; returns the exit status."""
    args = build_parser().parse_args(argv)
    _configure_logging(args.log_level)
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
        stdin = sys.stdin.buffer
        while True:
            raw = stdin.readline()
            if not raw:
                break
            reply = engine.handle_line(raw.decode("utf-8", errors="replace"))
            if reply:
                protocol.write(reply)
                protocol.flush()
            if engine.quit_requested:
                break
        return 0
    finally:
        sys.stdout = protocol
