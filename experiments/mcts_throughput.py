"""AlphaZero self-play throughput: mctx search with gojax as the model, beside pgx's go_9x9 used the same way.

Both engines run the same loop in one jitted ``lax.scan``: for a batch of
games, one mctx search per move (``gumbel_muzero_policy`` or
``muzero_policy``, the same options), the chosen moves played, finished games
reset in place. The network is the same :class:`gojax.alphazero.PolicyValueNet`
(``--blocks`` x ``--channels`` residual tower, eval mode, random weights)
except for its first convolution's input channels: gojax feeds its 15
:func:`gojax.alphazero.basic_planes`, pgx its own 17 AlphaGo Zero planes
(``state.observation``).

* gojax: :func:`gojax.mcts.search` with :func:`gojax.alphazero.network_evaluator` - the
  :class:`gojax.GoState` is the embedding, illegal moves masked at every depth, terminal nodes valued 0.
* pgx: the recurrent function of pgx's AlphaZero example, written here from
  its description - ``env.step`` as the model, the pgx state as the
  embedding, ``state.legal_action_mask`` masking the prior logits, reward
  ``state.rewards`` of the player who moved, discount -1 (0 once terminated).

Moves/s = batch x moves per call / seconds per call, the median of
``--repeats`` timed calls after one untimed call (compilation excluded).

    python experiments/mcts_throughput.py --quick             # batch 32, 8 simulations
    python experiments/mcts_throughput.py                     # batch 256, 64 simulations

Prints a table, writes ``experiments/results/mcts_throughput.csv`` and a bar
plot ``experiments/results/mcts_throughput.png``.
"""

from __future__ import annotations

import argparse
import csv
import functools
import io
import os
import statistics
import time
from pathlib import Path

import jax
import jax.numpy as jnp
import mctx
import numpy as np
from flax import nnx

import gojax
from gojax import alphazero as az
from gojax import mcts
from gojax.sgf import atomic_write

RESULTS = Path(__file__).resolve().parent / "results"


def _search_options(args) -> dict:
    if args.algorithm == "gumbel":
        return dict(max_num_considered_actions=16, gumbel_scale=1.0)
    return dict(dirichlet_fraction=0.25, dirichlet_alpha=0.3, temperature=1.0)


def _network(args, size: int, in_channels: int):
    config = az.NetworkConfig(blocks=args.blocks, channels=args.channels)
    net = az.PolicyValueNet(config, size, in_channels, rngs=nnx.Rngs(0))
    return az.split(net)


def _parameter_count(variables) -> int:
    return int(sum(np.size(leaf) for leaf in jax.tree.leaves(variables["params"])))


def gojax_runner(args):
    """``(run, carry)``: ``run(carry, key)`` plays ``--moves`` self-play moves in every game."""
    config = gojax.GoConfig(size=args.size)
    graphdef, variables = _network(args, args.size, az.BASIC_NUM_CHANNELS)
    fresh = jax.vmap(lambda _: gojax.init(config))(jnp.arange(args.batch))
    step = jax.vmap(functools.partial(gojax.step, config))
    reset = jax.vmap(functools.partial(gojax.reset_if_done, config))
    settings = az.SearchSettings(
        num_simulations=args.simulations, algorithm=args.algorithm, **_search_options(args)
    )

    def one(states, key):
        out = mcts.search(config, az.network_evaluator(graphdef, variables), states, key, settings)
        return reset(step(states, out.action)), None

    @jax.jit
    def run(states, key):
        return jax.lax.scan(one, states, jax.random.split(key, args.moves))[0]

    return run, fresh, _parameter_count(variables)


def pgx_runner(args):
    import pgx

    env = pgx.make(f"go_{args.size}x{args.size}")
    init, step = jax.vmap(env.init), jax.vmap(env.step)
    in_channels = env.observation_shape[-1]
    graphdef, variables = _network(args, args.size, in_channels)
    batch = args.batch
    rows = jnp.arange(batch)

    def evaluate(variables, state):
        logits, value, _ = az.apply(graphdef, variables, state.observation.astype(jnp.float32))
        logits = logits - jnp.max(logits, axis=-1, keepdims=True)
        logits = jnp.where(state.legal_action_mask, logits, jnp.finfo(logits.dtype).min)
        return logits, value

    def recurrent_fn(variables, rng_key, action, state):
        del rng_key
        mover = state.current_player
        state = step(state, action)
        logits, value = evaluate(variables, state)
        reward = state.rewards[rows, mover]
        value = jnp.where(state.terminated, 0.0, value)
        discount = jnp.where(state.terminated, 0.0, -1.0 * jnp.ones_like(value))
        out = mctx.RecurrentFnOutput(reward=reward, discount=discount, prior_logits=logits, value=value)
        return out, state

    def one(state, key):
        search_key, reset_key = jax.random.split(key)
        logits, value = evaluate(variables, state)
        root = mctx.RootFnOutput(prior_logits=logits, value=value, embedding=state)
        common = dict(
            params=variables,
            rng_key=search_key,
            root=root,
            recurrent_fn=recurrent_fn,
            num_simulations=args.simulations,
            invalid_actions=~state.legal_action_mask,
        )
        if args.algorithm == "gumbel":
            out = mctx.gumbel_muzero_policy(**common, **_search_options(args))
        else:
            out = mctx.muzero_policy(**common, **_search_options(args))
        state = step(state, out.action)
        done = state.terminated | state.truncated
        fresh = init(jax.random.split(reset_key, batch))
        state = jax.tree.map(
            lambda s, f: jnp.where(done.reshape((-1,) + (1,) * (s.ndim - 1)), f, s), state, fresh
        )
        return state, None

    @jax.jit
    def run(state, key):
        return jax.lax.scan(one, state, jax.random.split(key, args.moves))[0]

    start = jax.jit(init)(jax.random.split(jax.random.PRNGKey(0), batch))
    return run, start, _parameter_count(variables)


def measure(engine: str, args) -> dict:
    run, carry, params = {"gojax": gojax_runner, "pgx": pgx_runner}[engine](args)
    key = jax.random.PRNGKey(1)
    started = time.perf_counter()
    carry = jax.block_until_ready(run(carry, key))  # compiles, and moves the games off the empty board
    first = time.perf_counter() - started
    times = []
    for i in range(args.repeats):
        started = time.perf_counter()
        carry = jax.block_until_ready(run(carry, jax.random.fold_in(key, i + 1)))
        times.append(time.perf_counter() - started)
    seconds = statistics.median(times)
    return {
        "engine": engine,
        "size": args.size,
        "batch": args.batch,
        "simulations": args.simulations,
        "algorithm": args.algorithm,
        "blocks": args.blocks,
        "channels": args.channels,
        "parameters": params,
        "moves_per_call": args.moves,
        "seconds_per_call": round(seconds, 4),
        "moves_per_s": round(args.batch * args.moves / seconds, 2),
        "simulations_per_s": round(args.batch * args.moves * args.simulations / seconds, 1),
        "first_call_s": round(first, 2),
        "device": jax.devices()[0].device_kind,
    }


def _write_csv(rows, path: Path) -> None:
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=list(rows[0]))
    writer.writeheader()
    writer.writerows(rows)
    atomic_write(path, text.getvalue())  # the mode open() gives


def _plot(rows, path: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib not installed: no plot")
        return
    figure, axis = plt.subplots(figsize=(5, 3.5))
    names = [r["engine"] for r in rows]
    values = [r["moves_per_s"] for r in rows]
    bars = axis.bar(names, values, color=["tab:blue", "tab:orange"][: len(rows)])
    axis.bar_label(bars, fmt="%.0f")
    r = rows[0]
    axis.set_ylabel("self-play moves / s")
    axis.set_title(
        f"{r['size']}x{r['size']}, batch {r['batch']}, {r['simulations']} sims ({r['algorithm']}),\n"
        f"{r['blocks']}x{r['channels']} net, {r['device']}",
        fontsize=9,
    )
    figure.tight_layout()
    temp = path.with_name(f".{path.name}.{os.getpid()}.tmp.png")  # savefig opens it as open() does
    figure.savefig(temp, dpi=120)
    os.replace(temp, path)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", type=int, default=9)
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--simulations", type=int, default=64)
    parser.add_argument("--algorithm", choices=["gumbel", "puct"], default="gumbel")
    parser.add_argument("--blocks", type=int, default=4)
    parser.add_argument("--channels", type=int, default=32)
    parser.add_argument("--moves", type=int, default=2, help="self-play moves per jitted call")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--engines", nargs="+", default=["gojax", "pgx"], choices=["gojax", "pgx"])
    parser.add_argument("--quick", action="store_true", help="batch 32, 8 simulations, 1 move, 2 repeats")
    parser.add_argument("--out", type=Path, default=RESULTS)
    args = parser.parse_args()
    if args.quick:
        args.batch, args.simulations, args.moves, args.repeats = 32, 8, 1, 2
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for engine in args.engines:
        row = measure(engine, args)
        rows.append(row)
        print(
            f"{engine:6s} {row['moves_per_s']:10.1f} moves/s  {row['simulations_per_s']:12.0f} sims/s  "
            f"first call {row['first_call_s']:.1f} s",
            flush=True,
        )
    print()
    print("| engine | board | batch | simulations | algorithm | network | moves/s | simulations/s |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['engine']} | {r['size']}x{r['size']} | {r['batch']} | {r['simulations']} "
            f"| {r['algorithm']} | {r['blocks']}x{r['channels']} ({r['parameters']:,} params) "
            f"| {r['moves_per_s']:,.1f} | {r['simulations_per_s']:,.0f} |"
        )
    _write_csv(rows, args.out / "mcts_throughput.csv")
    _plot(rows, args.out / "mcts_throughput.png")
    print(f"wrote {args.out / 'mcts_throughput.csv'} and {args.out / 'mcts_throughput.png'}")


if __name__ == "__main__":
    main()
