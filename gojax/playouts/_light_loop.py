"""The playout loop of the light kernel: ``B`` playouts in one ``lax.while_loop``, the tail compacted.

:func:`light_playouts` plays a batch of playouts on the kernel of
:mod:`gojax.playouts._light`, the move choice an argument (uniform,
:func:`gojax.playouts._light.light_move`, or the heavy policy of
:mod:`gojax.playouts._heavy`). They stop at two passes or at their move limit,
then are scored by Tromp-Taylor area with the config's komi.

**Bounded work per turn.** Each turn of the loop, a game either starts a
move (picks it, reads its captures and grows the chains next to it
``rounds`` dilations) or goes on growing the chains of the move under way;
the move is played once they are decided. A game whose move touches a long
chain takes a few more turns instead of every game waiting for it. Each
phase is a ``lax.cond`` on whether any game needs it (which also keeps XLA
from recomputing it inside every consumer).

**Tail compaction.** Every turn costs the same for the whole batch, however
few games are still playing, and playouts differ in length (from the empty
9x9 board, heavy playouts average about 107 moves while the longest of 256
takes about 190 turns). So the loop runs in stages of shrinking width
``B, B / f, B / f**2, ...`` (``f`` = ``shrink``, the widths static, at least
``narrowest``): a stage stops once no more games are unfinished than the
next width holds, and the next stage gathers the unfinished games (and any
finished ones needed to fill it, which stay as they are), plays on, and
scatters them back. A game's moves depend only on its own state and random
draws, so the playouts are the same for any stages (a test checks it).

Shapes: ``B`` playouts, ``N`` board side, ``P = N * N`` points, ``W`` words.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from gojax._core import loops
from gojax._core.bitboard import WordTuples as w
from gojax._core.types import GoConfig
from gojax.playouts._light import (
    Chooser,
    LightState,
    _captures,
    _decided,
    _dilate,
    _finish,
    _prepare,
    _read,
    light_move,
    light_owner,
)

__all__ = ["light_playouts", "playout_draws", "stage_widths"]


def playout_draws(keys: jax.Array, max_moves: int) -> jax.Array:
    """``uint32[B, max_moves]``: the random draw of each move of each playout, from its key ``keys[b]``."""
    return jax.vmap(lambda key: jax.random.bits(key, (max_moves,), jnp.uint32))(keys)


def stage_widths(batch: int, shrink: int, narrowest: int) -> tuple[int, ...]:
    """The static widths of the loop's stages: ``batch``, then divided by ``shrink`` while >= ``narrowest``.

    ``shrink`` 1 (or ``narrowest`` above ``batch / shrink``) keeps one stage.
    """
    widths = [batch]
    while shrink > 1 and widths[-1] // shrink >= max(narrowest, 1):
        widths.append(widths[-1] // shrink)
    return tuple(widths)


def _stage(size: int, rounds: int, choose: Chooser, draws: jax.Array, limits: jax.Array, carry, until: int):
    """Turns of the loop over the games of ``carry`` (``[b]`` each) until at most ``until`` are unfinished."""
    max_moves = draws.shape[1]
    batch = jnp.arange(draws.shape[0])

    def phase(needed: jax.Array, fn, *args):
        """``jax.vmap(fn)(*args)`` when ``needed``, else zeros of its shape."""
        batched = jax.vmap(fn)
        blank = jax.tree.map(lambda a: jnp.zeros(a.shape, a.dtype), jax.eval_shape(batched, *args))
        return jax.lax.cond(needed, batched, lambda *_: loops.varying(blank), *args)

    def select(flags: jax.Array, new, old):
        return jax.tree.map(
            lambda n, o: jnp.where(flags.reshape(flags.shape + (1,) * (n.ndim - 1)), n, o), new, old
        )

    def playing(games: LightState) -> jax.Array:
        return (games.passes < 2) & (games.moves < limits)

    def running(carry) -> jax.Array:
        games, _, _, pending = carry
        return jnp.sum((pending | playing(games)).astype(jnp.int32)) > until

    def turn(carry):
        games, first, work, pending = carry
        fresh = ~pending & playing(games)
        start = jnp.any(fresh)
        draw = draws[batch, jnp.minimum(games.moves, max_moves - 1)]
        point = phase(start, lambda g, d: choose(size, g, d), games, draw)
        taken = phase(start, lambda g, q: _captures(size, g, q), games, point)
        work = select(fresh, phase(start, lambda g, t: _prepare(size, g, t[0], t), games, taken), work)
        active = fresh | pending
        for _ in range(rounds):
            work = work._replace(regions=phase(jnp.any(active), lambda job: _dilate(size, job), work))
        decided = active & jax.vmap(lambda job: _decided(size, job))(work)
        any_decided = jnp.any(decided)
        read = phase(any_decided, lambda job: _read(size, job), work)
        played = phase(any_decided, lambda g, job, r: _finish(size, g, job, r), games, work, read)
        seen = w.op(lambda f: f[:, 0] | f[:, 1], first)
        mover = jnp.arange(2)[None, :] == games.turn[:, None]
        fresh_bits = w.op(lambda p, s: (p & ~s)[:, None], work.placed, seen)
        first = w.op(lambda f, b: jnp.where(decided[:, None] & mover, f | b, f), first, fresh_bits)
        return select(decided, played, games), first, work, active & ~decided

    return loops.while_loop(running, turn, carry)


def light_playouts(
    config: GoConfig,
    limits: jax.Array,
    max_moves: int,
    lights: LightState,
    keys: jax.Array,
    rounds: int = 2,
    choose: Chooser = light_move,
    shrink: int = 4,
    narrowest: int = 64,
) -> tuple[jax.Array, jax.Array, jax.Array, LightState]:
    """``B`` playouts, one from each of ``lights``, in one loop (see the module docstring).

    Args:
      config: the rules (board size and komi are read).
      limits: ``int32[B]`` most moves of each playout (0 scores the start).
      max_moves: a static bound on ``limits`` (one random ``uint32`` per move
        is drawn up front).
      lights: :class:`~gojax.playouts._light.LightState` ``[B]``, the starts.
      keys: ``[B]`` PRNG keys.
      rounds: dilations per turn (speed only: the playouts are the same for any value).
      choose: the policy, ``choose(N, game, uint32[] draw) -> int32[]`` point, a legal one
        (:func:`~gojax.playouts._light.light_moves`) or ``P``; default uniform over the playable points.
      shrink, narrowest: the stages' widths, :func:`stage_widths` (speed only, as ``rounds``).

    Returns:
      ``(black_win, first, owner, final)``: ``float32[B]`` 1 if black wins by
      area with komi, 1/2 for a draw, else 0; ``uint32[B, 2, W]`` the points
      black, white played before the other colour did; ``int32[B, P]`` the
      final owner of each point (+1 black, -1 white); the final states.
    """
    size, points = config.size, config.num_points
    draws = playout_draws(keys, max_moves)
    count = draws.shape[0]
    blank = jax.vmap(lambda g: _prepare(size, g, jnp.int32(points)))(lights)
    first = tuple(jnp.zeros((count, 2), jnp.uint32) for _ in lights.stones)
    carry = (lights, first, blank, jnp.zeros(count, jnp.bool_))
    widths = stage_widths(count, shrink, narrowest)
    for stage, width in enumerate(widths):
        until = widths[stage + 1] if stage + 1 < len(widths) else 0
        if stage == 0:
            carry = _stage(size, rounds, choose, draws, limits, carry, until)
            continue
        games, _, _, pending = carry
        unfinished = pending | ((games.passes < 2) & (games.moves < limits))
        rows = jnp.argsort(~unfinished, stable=True)[:width]  # the unfinished games first
        part = jax.tree.map(lambda x, rows=rows: x[rows], carry)
        part = _stage(size, rounds, choose, draws[rows], limits[rows], part, until)
        carry = jax.tree.map(lambda x, y, rows=rows: x.at[rows].set(y), carry, part)
    finals, first, _, _ = carry
    owner = jax.vmap(lambda stones: light_owner(size, stones))(w.stacked(finals.stones))
    margin = jnp.sum(owner, axis=-1).astype(jnp.float32) - jnp.float32(config.komi)
    black_win = jnp.where(margin > 0, 1.0, jnp.where(margin < 0, 0.0, 0.5)).astype(jnp.float32)
    return black_win, w.stacked(first), owner, finals
