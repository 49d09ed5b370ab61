"""Batched random self-play on the CPU (or any JAX device), with nothing but JAX installed.

Plays thousands of games of uniformly random *legal* moves (full default rules:
positional superko in the legal mask) in one jitted ``lax.scan`` with
auto-reset, prints games/s and moves/s, and shows a finished game's board.

    python experiments/selfplay.py                 # 9x9, 1024 games at once
    python experiments/selfplay.py --size 19 --games 2000
"""

from __future__ import annotations

import argparse
import functools
import time

import jax
import jax.numpy as jnp

import gojax
from gojax.players import sample_uniform


def make_runner(config: gojax.GoConfig, batch: int, chunk: int):
    """A jitted function playing ``chunk`` random legal moves in ``batch`` games."""
    step = jax.vmap(functools.partial(gojax.step, config))
    legal = jax.vmap(functools.partial(gojax.legal_action_mask, config))
    fresh = jax.vmap(lambda _: gojax.init(config))(jnp.arange(batch))
    winner = jax.vmap(functools.partial(gojax.winner, config))
    reset = jax.vmap(functools.partial(gojax.reset_if_done, config))

    def one_move(carry, key):
        state, finished, black_wins, shown = carry
        state = step(state, sample_uniform(key, legal(state)))  # a uniformly random legal move
        done = state.done
        finished = finished + jnp.sum(done)
        # Score only finished games: the others are scored on an empty board,
        # whose flood fill stops at once.
        scored = state.replace(stones=jnp.where(done[:, None, None], state.stones, jnp.uint32(0)))
        black_wins = black_wins + jnp.sum(done & (winner(scored) == gojax.BLACK))
        shown = jax.tree.map(lambda s, new: jnp.where(done[0], new[0], s), shown, state)
        return (reset(state), finished, black_wins, shown), None

    @jax.jit
    def run(state, key, shown):
        keys = jax.random.split(key, chunk)
        carry = (state, jnp.int32(0), jnp.int32(0), shown)
        (state, finished, black_wins, shown), _ = jax.lax.scan(one_move, carry, keys)
        return state, finished, black_wins, shown

    return run, fresh


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--batch", type=int, default=1024, help="games played at once")
    parser.add_argument("--games", type=int, default=5000, help="stop after this many finished games")
    parser.add_argument("--chunk", type=int, default=64, help="moves per jitted call")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    config = gojax.GoConfig(size=args.size)
    run, state = make_runner(config, args.batch, args.chunk)
    shown = gojax.init(config)
    key = jax.random.PRNGKey(args.seed)

    print(
        f"gojax random self-play: {args.size}x{args.size}, {args.batch} games at once, "
        f"komi {config.komi}, {config.ko_rule} superko, JAX on {jax.devices()[0].platform}"
    )
    start = time.perf_counter()
    key, sub = jax.random.split(key)
    state, finished, black_wins, shown = jax.block_until_ready(run(state, sub, shown))
    compile_and_first = time.perf_counter() - start
    total_games, total_black = int(finished), int(black_wins)
    timed_games, moves = 0, 0
    start = time.perf_counter()
    while total_games < args.games:
        key, sub = jax.random.split(key)
        state, finished, black_wins, shown = run(state, sub, shown)
        total_games += int(finished)
        timed_games += int(finished)
        total_black += int(black_wins)
        moves += args.chunk * args.batch
    elapsed = time.perf_counter() - start
    print(f"first call (compile + {args.chunk} moves): {compile_and_first:.1f} s")
    if elapsed > 0:
        print(
            f"{total_games} games finished; after compile: {moves / elapsed:,.0f} moves/s, "
            f"{timed_games / elapsed:,.1f} games/s (mean length {moves / max(timed_games, 1):.0f} moves)"
        )
    print(f"black won {100 * total_black / max(total_games, 1):.1f}% (komi {config.komi})")
    print("\na finished game:")
    print(gojax.render(config, shown))
    print(
        f"Tromp-Taylor score (black - white - komi): {float(gojax.score(config, shown)):+.1f}, "
        f"{int(shown.move_number)} moves, captures B {int(shown.captures[0])} W {int(shown.captures[1])}"
    )


if __name__ == "__main__":
    main()
