"""Benson's algorithm: pass-alive chains and the area they own, as KataGo's ``calculateAreaForPla``.

Pure functions of ONE game (``jax.vmap`` for a batch). Everything here is
about a colour ``pla`` (black, then white) and its opponent ``opp``:

* A **region** of ``pla`` is a maximal connected set of points that are not
  ``pla``'s stones (empty points and ``opp`` stones), 4-connected.
* A region is **vital** to a ``pla`` chain when every *empty* point of the
  region is a liberty of that chain (Benson's "small, enclosed region"; under
  ``config.suicide`` every point of the region, ``opp`` stones included, must
  touch the chain - KataGo's ``isMultiStoneSuicideLegal`` case). A region with
  no empty point is vital to no chain (such a region has no liberty, so it
  cannot occur on a board that came from legal moves).
* **Benson's iteration**: a region is *healthy* while it borders no removed
  chain. Every round, a chain with fewer than two healthy vital regions is
  removed (and the regions it borders stop being healthy); rounds repeat until
  no chain is removed (a ``lax.while_loop``, at most ``P`` rounds since each
  round removes a chain). The chains left are **pass-alive** (unconditionally
  alive: the opponent cannot capture them even if ``pla`` always passes).
* **Pass-alive territory** of ``pla``: every point (empty, or an ``opp``
  stone) of a healthy region - one that borders only pass-alive ``pla``
  chains - with at most one point not adjacent to any ``pla`` stone. This is
  KataGo's rule (``numInternalSpacesMax2 <= 1``), a little wider than "vital":
  the region need not be vital to any single chain, and ``opp`` stones in it
  count for ``pla``. Nothing is marked when ``pla`` has no stone at all.

:func:`pass_alive` returns pass-alive stones and territory per colour;
:func:`settled` tells a finished board (every point a pass-alive stone or in
pass-alive territory, no stone inside a territory); :func:`pass_alive_area`
merges both colours into one ``int8[N, N]`` map as KataGo's
``Board::calculateArea`` does, with its three options (``False`` each by
default, which gives the pure pass-alive area):

* ``safe_big_territories``: also mark regions with no ``opp`` stone that
  border only pass-alive ``pla`` chains, however large.
* ``unsafe_big_territories``: also mark regions with no ``opp`` stone (empty
  regions bordered by ``pla`` only) whatever the chains around them, but only
  on points no pass-alive mark of either colour has claimed.
* ``non_pass_alive_stones``: every point still unmarked takes the colour of
  its stone.

Order, exactly as KataGo: black's marks, then white's pass-alive stones and
territory (overwriting), then white's unsafe territories on unmarked points,
then the stones. KataGo v7's input planes for area scoring (our rules) use all
three options; see :mod:`gojax.features._katago`.

Method: one labelling pass (:func:`gojax.features.chain_labels`' hook-and-jump
loop) labels ``pla`` chains and regions together; each region's candidate
vital chains are the (at most 4) ``pla`` chains next to its first empty point;
vitality, health and the counts are ``segment_min`` / ``segment_max`` /
``segment_sum`` over labels, so nothing is ``O(P^2)``. What is read at a
point's four neighbours is ``[4, P]`` (slices of the padded grid, the
directions first, as in :mod:`gojax.features._chains`).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp

from gojax._core import bitboard as bb
from gojax._core import loops
from gojax._core.types import GoConfig, GoState
from gojax.features import _native_calls
from gojax.features._chains import (
    _SIDES,
    _beside,
    _extend,
    _first_occurrence,
    _flat_labels,
    _over_sides,
    _views,
)

__all__ = ["PassAlive", "pass_alive", "pass_alive_area", "settled"]


class PassAlive(NamedTuple):
    """Pass-alive stones and territory of each colour (``bool[2, N, N]`` each, black then white).

    Attributes:
      stones: ``stones[c]`` the stones of colour index ``c`` (0 black, 1 white)
        in pass-alive chains.
      territory: ``territory[c]`` the points (empty, or the other colour's
        stones) of colour ``c``'s pass-alive territory (module docstring).
    """

    stones: jax.Array
    territory: jax.Array


class _Marks(NamedTuple):
    """What KataGo's ``calculateAreaForPla`` can mark for one colour (``bool[P]`` each)."""

    alive: jax.Array  # pass-alive stones
    small: jax.Array  # pass-alive territory (always marked)
    safe_big: jax.Array  # regions without opp stones bordered by pass-alive chains only
    unsafe_big: jax.Array  # regions without opp stones


def _marks_for(size: int, pla: jax.Array, opp: jax.Array, suicide: bool) -> _Marks:
    """Benson's algorithm for colour ``pla`` (``bool[P]`` stones; ``opp`` the other colour's)."""
    points = size * size
    segments = points + 1  # labels 0..P-1, and P for "no region"
    index = jnp.arange(points, dtype=jnp.int32)
    non_pla = ~pla
    # Chains of pla and regions (connected non-pla points) in one labelling.
    labels = _flat_labels(size, jnp.where(pla, 1, 2).astype(jnp.int32))
    chain_at = jnp.where(pla, labels, points)  # [P]: each point's pla chain, P elsewhere
    chains_beside = _beside(chain_at, points, size)  # [4, P]: adjacent pla chains, P for none
    region = jnp.where(non_pla, labels, points)  # [P]: each point's region, P at pla stones
    checked = non_pla if suicide else non_pla & ~opp

    # Candidate vital chains of each region: the pla chains next to its first checked point.
    head = jax.ops.segment_min(jnp.where(checked, index, points), region, num_segments=segments)
    is_head = checked & (head[region] == index)
    fresh = _first_occurrence(chains_beside, points) & is_head[None]
    # [4, P + 1] by region: scattered from the head (the only point of its region that writes).
    candidates = jax.ops.segment_max(jnp.where(fresh, chains_beside, -1).T, region, num_segments=segments).T
    candidates = jnp.where(candidates < 0, points, candidates)
    # Vital: every checked point of the region touches the candidate.
    wanted = candidates[:, region]  # [4, P]
    fails = []
    for c in range(4):
        touches = _over_sides(jnp.logical_or, chains_beside == wanted[c][None])
        fails.append(checked & ~touches)
    failed = jax.ops.segment_max(jnp.stack(fails, axis=1).astype(jnp.int32), region, num_segments=segments)
    vital = failed.T == 0
    vital = vital & (candidates != points)  # [4, P + 1]

    # A healthy vital region's vote for a chain goes from its head point to the chain's stone
    # next to it: the votes are moved one point along each direction and summed by chain.
    heads = [(fresh[k] & vital[k][region]) for k in range(4)]  # [4][P], fixed over the rounds
    back = [(-dr, -dc) for dr, dc in _SIDES]

    def health(alive):
        """``bool[P + 1]``: regions bordering no removed chain."""
        dead_at = pla & ~alive[labels]
        dead_beside = _over_sides(jnp.logical_or, _beside(dead_at, False, size))
        bad = jax.ops.segment_max(dead_beside.astype(jnp.int32), region, num_segments=segments)
        return bad <= 0

    def body(carry):
        alive, _, rounds = carry
        healthy = health(alive)[region]
        arriving = [
            _views((heads[k] & healthy).astype(jnp.int32), 0, size, [back[k]])[0].reshape(points)
            for k in range(4)
        ]
        votes = jnp.where(pla, functools.reduce(jnp.add, arriving), 0)
        count = jax.ops.segment_sum(votes, jnp.where(pla, labels, points), num_segments=segments)
        survivors = alive & (count >= 2)
        return survivors, jnp.any(survivors != alive), rounds + 1

    start = _extend(pla & (labels == index), False)  # [P + 1]: one entry per pla chain, by label
    alive = loops.while_loop(
        lambda carry: carry[1] & (carry[2] < points), body, (start, jnp.bool_(True), jnp.int32(0))
    )[0]

    healthy = health(alive)
    internal = non_pla & ~_over_sides(jnp.logical_or, _beside(pla, False, size))
    num_internal = jax.ops.segment_sum(internal.astype(jnp.int32), region, num_segments=segments)
    has_opp = jax.ops.segment_max(opp.astype(jnp.int32), region, num_segments=segments) > 0
    any_pla = jnp.any(pla)

    def at_points(flags):
        return non_pla & flags[region]

    return _Marks(
        alive=pla & alive[labels],
        small=at_points(any_pla & healthy & (num_internal <= 1)),
        safe_big=at_points(any_pla & healthy & ~has_opp),
        unsafe_big=at_points(any_pla & ~has_opp),
    )


def _both_colours(config: GoConfig, state: GoState) -> _Marks:
    """:class:`_Marks` of black and white, stacked (``bool[2, P]`` each); on the CPU from the
    native kernel (:mod:`gojax.features._native_calls`)."""

    def xla():
        grid = bb.to_grid(state.stones, config.size).reshape(2, config.num_points)
        return jax.vmap(lambda p, o: _marks_for(config.size, p, o, config.suicide))(grid, grid[::-1])

    def native():
        marks = _native_calls.benson_tables(config, state) != 0  # [2, 4, P]
        return _Marks(*(marks[:, k] for k in range(len(_Marks._fields))))

    return _native_calls.on_cpu(native, xla)


def pass_alive(config: GoConfig, state: GoState) -> PassAlive:
    """Pass-alive stones and pass-alive territory of each colour (see the module docstring).

    Args:
      config: the rules (``size``; ``suicide`` changes which points a vital
        region must have next to its chain).
      state: one game; only its stones are read.

    Returns:
      :class:`PassAlive` with ``bool[2, N, N]`` fields, index 0 black, 1 white.
    """
    size = config.size
    marks = _both_colours(config, state)
    return PassAlive(
        stones=marks.alive.reshape(2, size, size),
        territory=marks.small.reshape(2, size, size),
    )


def pass_alive_area(
    config: GoConfig,
    state: GoState,
    *,
    safe_big_territories: bool = False,
    unsafe_big_territories: bool = False,
    non_pass_alive_stones: bool = False,
) -> jax.Array:
    """KataGo's ``Board::calculateArea``: who owns each point, ``int8[N, N]`` (0 no one, 1 black, 2 white).

    With the defaults, a point is owned when it is a pass-alive stone or in
    pass-alive territory. The options (static bools) are KataGo's, applied in
    its order (module docstring); all three ``True`` is what KataGo v7 feeds
    its network under area scoring without a tax.

    Args:
      config: the rules.
      state: one game; only its stones are read.
      safe_big_territories: also mark stone-free regions bordered only by
        pass-alive chains.
      unsafe_big_territories: also mark stone-free regions bordered by one
        colour, on points not marked otherwise.
      non_pass_alive_stones: every point still unmarked takes its stone's colour.
    """
    for name, flag in (
        ("safe_big_territories", safe_big_territories),
        ("unsafe_big_territories", unsafe_big_territories),
        ("non_pass_alive_stones", non_pass_alive_stones),
    ):
        if not isinstance(flag, bool):
            raise ValueError(f"{name} must be a bool, got {flag!r}")
    size = config.size
    marks = _both_colours(config, state)
    should = marks.alive | marks.small
    if safe_big_territories:
        should = should | marks.safe_big
    unsafe = marks.unsafe_big if unsafe_big_territories else jnp.zeros_like(marks.unsafe_big)
    # Black marks first (its unsafe regions can hold no earlier mark), then white's
    # pass-alive marks overwrite, then white's unsafe regions fill what is still free.
    area = jnp.where(should[0] | unsafe[0], 1, 0)
    area = jnp.where(should[1], 2, area)
    area = jnp.where(unsafe[1] & (area == 0), 2, area)
    if non_pass_alive_stones:
        grid = bb.to_grid(state.stones, size).reshape(2, config.num_points)
        stones = jnp.where(grid[0], 1, jnp.where(grid[1], 2, 0))
        area = jnp.where(area == 0, stones, area)
    return area.astype(jnp.int8).reshape(size, size)


def settled(config: GoConfig, state: GoState) -> jax.Array:
    """``bool[]``: the board is settled - nothing left to play for.

    Every point is a pass-alive stone or a point of pass-alive territory
    (:func:`pass_alive`), and no territory holds a stone (a territory is then
    an empty region bordered by its owner alone). Both players passing there
    end the game with the Tromp-Taylor area score it already has, and play
    changes that score only while the other player lets it: a stone played
    in the other colour's territory cannot make a living group there (the
    owner takes it at will), one played in the mover's own territory fills
    it, and no pass-alive chain can be captured. So self-play may end a
    settled game at once, scored as it stands (``end_settled``). ``False``
    for a board with no stone.

    Args:
      config: the rules.
      state: one game; only its stones are read.
    """
    marks = _both_colours(config, state)
    grid = bb.to_grid(state.stones, config.size).reshape(2, config.num_points)
    owned = marks.alive | marks.small  # [2, P]
    covered = jnp.all(owned[0] | owned[1])
    stones_in_territory = jnp.any(marks.small & (grid[0] | grid[1])[None])
    return covered & ~stones_in_territory
