"""A fixed-capacity replay buffer of training examples, as a pytree and pure functions.

An **example** is one position of a self-play game: its feature planes
``[N, N, C]``, the search policy ``f32[A]`` (the policy target) with its
weight (0 for a position searched only cheaply, whose policy does not train:
playout cap randomization), and what the game's end tells about it from the
view of the player to move there: the outcome ``z`` (the value target, +1
win, -1 loss, 0 draw), the final owner of every point (+1 the mover's, -1
the opponent's, 0 no one's), the final score (area minus komi, for the
mover) and the opponent's answer: the move played after the mover's (``-1``
where the game ended before it).

The buffer is a ring of ``capacity`` rows kept in device arrays
(:class:`ReplayBuffer`); every function returns a new buffer (jit them, with
``donate_argnums`` for in-place updates). Self-play writes a position as soon
as it is searched, before the game's outcome is known, in two steps:

1. :func:`replay_write` stores the planes and the policy of a batch of
   positions in the next rows and returns the row numbers; the rows are not
   **ready** yet (never sampled);
2. :func:`replay_finish` sets ``z`` (and the ownership and score) of those
   rows when their game ends and marks them ready.

:func:`replay_add` does both at once for complete examples.
:func:`replay_sample` draws uniformly among the ready rows. The write
position and the counters are part of the pytree, so a checkpoint of the
buffer is a checkpoint of its position too.

A row is overwritten once ``capacity`` newer rows have been written; a caller
that finishes rows later (self-play) must keep ``capacity`` at least the
number of rows written while a game is running (:func:`check_capacity`).

**One ring per game slot.** ``replay_init(..., slots=S)`` makes ``S`` rings
of ``R / S`` rows each: every field gets a leading ``[S]`` axis (the write
position and counters too). :func:`gojax.alphazero.selfplay` writes the
positions of its game ``b`` into ring ``b`` only, and :func:`replay_sample`
draws each example of a batch from a fixed group of rings (below). Split the
leading axis over devices as the games are (``PartitionSpec("data")``): each
device (each process of a multi-host run) then holds the rows of its own
games, self-play writes them with no communication, and each device draws
its part of a training batch from its own rings. The layout does not depend
on the device count, so a run computes the same on 1 or ``D`` devices and a
checkpoint restores on any number of them.

**Sampling groups** of a ringed buffer: a batch of ``M`` examples is drawn
in ``g = gcd(S, M)`` groups; group ``j`` draws its ``M / g`` examples
uniformly among the ready rows of rings ``[j S / g, (j + 1) S / g)``. A
device count that divides both ``S`` and ``M`` divides ``g``, so a group's
rings and examples are always on the same device.

Shapes: ``R`` = capacity, ``B`` a batch of positions, ``N`` board side,
``C`` channels, ``P = N * N`` points, ``A = P + 1`` actions, ``S`` rings.
"""

from __future__ import annotations

import dataclasses
import math
from typing import NamedTuple

import jax
import jax.numpy as jnp

from gojax._core import checks

__all__ = [
    "ReplayBuffer",
    "ReplaySample",
    "check_capacity",
    "replay_add",
    "replay_finish",
    "replay_gather",
    "replay_init",
    "replay_ready_groups",
    "replay_sample",
    "replay_write",
]


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class ReplayBuffer:
    """Ring buffer of training examples (``R`` rows; with ``S`` rings, a leading ``[S]`` axis on every field).

    Attributes:
      planes: ``[R, N, N, C]`` feature planes, stored in the buffer's dtype
        (``bfloat16`` by default: exact for 0/1 planes and small integers).
      policy: ``f32[R, A]`` policy targets (each row sums to 1 once written).
      policy_weight: ``f32[R]`` weight of the row's policy target in the loss
        (1 for a full search, 0 for a cheap one).
      value: ``f32[R]`` outcome ``z`` for the player to move (0 until finished).
      ownership: ``int8[R, P]`` final owner of each point for the player to
        move: +1 theirs, -1 the opponent's, 0 no one's (0 until finished).
      score: ``f32[R]`` final area score minus komi for the player to move
        (0 until finished).
      opponent_move: ``int16[R]`` the opponent's answer to the move played
        in the row's position (an action in ``[0, A)``), ``-1`` when unknown
        (the game ended first, or the row is not finished).
      ready: ``bool[R]`` rows whose ``z`` is known (the only rows sampled).
      position: ``int32[]`` next row to write, in ``[0, R)``.
      written: ``int32[]`` rows written since the start (wraps after 2**31).
    """

    planes: jax.Array
    policy: jax.Array
    policy_weight: jax.Array
    value: jax.Array
    ownership: jax.Array
    score: jax.Array
    opponent_move: jax.Array
    ready: jax.Array
    position: jax.Array
    written: jax.Array

    @property
    def capacity(self) -> int:
        """``R``, the number of rows of a ring (static; of the whole buffer when it has one ring)."""
        return self.value.shape[-1]

    @property
    def slots(self) -> int | None:
        """``S``, the number of rings of a buffer made with ``slots=S``, else ``None`` (static)."""
        return self.value.shape[0] if self.value.ndim == 2 else None

    def replace(self, **changes) -> ReplayBuffer:
        """A copy with the given fields replaced."""
        return dataclasses.replace(self, **changes)


def replay_init(
    capacity: int,
    board_size: int,
    num_channels: int,
    dtype: jnp.dtype = jnp.bfloat16,
    slots: int | None = None,
) -> ReplayBuffer:
    """An empty buffer: one ring of ``R`` rows, or ``S = slots`` rings of ``R // S`` rows.

    Args:
      capacity: ``R`` rows (> 0), in all.
      board_size: ``N``.
      num_channels: ``C`` feature planes per position.
      dtype: storage dtype of the planes (``bfloat16``, ``float16``,
        ``float32``, ``uint8``, ...); planes are cast on write and read back
        as ``float32`` by :func:`replay_sample`.
      slots: ``S``, one ring per self-play game slot (module docstring);
        every field gets a leading ``[S]`` axis. ``None``: one ring.

    Raises:
      TypeError: for a capacity, size, channel or slot count that is not an int.
      ValueError: for a non-positive capacity, size or channel count, or more
        slots than rows.
    """
    capacity = checks.integer(capacity, "capacity", least=1)
    board_size = checks.integer(board_size, "board_size", least=1)
    num_channels = checks.integer(num_channels, "num_channels", least=1)
    lead: tuple[int, ...] = ()
    if slots is not None:
        slots = checks.integer(slots, "slots", least=1, most=capacity)
        lead, capacity = (slots,), capacity // slots
    actions = board_size * board_size + 1
    return ReplayBuffer(
        planes=jnp.zeros((*lead, capacity, board_size, board_size, num_channels), dtype),
        policy=jnp.zeros((*lead, capacity, actions), jnp.float32),
        policy_weight=jnp.zeros((*lead, capacity), jnp.float32),
        value=jnp.zeros((*lead, capacity), jnp.float32),
        ownership=jnp.zeros((*lead, capacity, actions - 1), jnp.int8),
        score=jnp.zeros((*lead, capacity), jnp.float32),
        opponent_move=jnp.full((*lead, capacity), -1, jnp.int16),
        ready=jnp.zeros((*lead, capacity), bool),
        position=jnp.zeros(lead, jnp.int32),
        written=jnp.zeros(lead, jnp.int32),
    )


def check_capacity(capacity: int, games: int, move_cap: int, slots: bool = False) -> None:
    """Raises ``ValueError`` unless ``capacity >= games * move_cap`` (``slots``: ``games * (move_cap + 1)``).

    Self-play writes one row per running game and move, and finishes a game's
    rows only when it ends, up to ``move_cap`` moves later; a smaller ring
    would overwrite rows that are still waiting for their ``z``. With one
    ring per game (``slots=True``, ``capacity // games`` rows each), a ring
    needs one row more, so that once its game has ended once it always holds
    a ready row to sample.
    """
    if slots:
        if capacity // games < move_cap + 1:
            raise ValueError(
                f"replay capacity {capacity} gives each of the {games} games a ring of {capacity // games} "
                f"rows; a ring needs at least the move cap + 1 = {move_cap + 1} rows (capacity "
                f"{games * (move_cap + 1)})"
            )
        return
    if capacity < games * move_cap:
        raise ValueError(
            f"replay capacity {capacity} is smaller than games * move cap = {games} * {move_cap} "
            f"= {games * move_cap}: unfinished games would be overwritten"
        )


def _rows_for(buffer: ReplayBuffer, mask: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Rows for the ``True`` entries of ``mask`` (consecutive from the position), ``R`` for the others.

    Returns:
      ``(rows int32[B], count int32[])``; a row of ``R`` is out of bounds and
      dropped by the scatters below.
    """
    capacity = buffer.capacity
    offset = jnp.cumsum(mask.astype(jnp.int32)) - 1
    rows = jnp.where(mask, (buffer.position + offset) % capacity, capacity).astype(jnp.int32)
    return rows, jnp.sum(mask.astype(jnp.int32))


def replay_write(
    buffer: ReplayBuffer,
    planes: jax.Array,
    policy: jax.Array,
    mask: jax.Array | None = None,
    policy_weight: jax.Array | None = None,
    root_value: jax.Array | None = None,
) -> tuple[ReplayBuffer, jax.Array]:
    """Stores positions whose outcome is not known yet; they are not ready until finished.

    Args:
      buffer: the buffer.
      planes: ``[B, N, N, C]`` feature planes.
      policy: ``f32[B, A]`` policy targets.
      mask: optional ``bool[B]``: store only these positions (default all).
        ``B`` must not exceed ``R``.
      policy_weight: optional ``f32[B]`` (or a scalar) weight of the policy
        targets in the loss (default 1).
      root_value: optional ``f32[B]``: the search's value of each position
        for the player to move (default 0). A row holds it as its value until
        it is finished; :func:`replay_finish` can blend it into the target.

    Returns:
      ``(buffer, rows)``: ``rows`` is ``int32[B]``, the row of each stored
      position (``R``, out of range, for a masked-out one), to pass to
      :func:`replay_finish`.
    """
    batch = planes.shape[0]
    if batch > buffer.capacity:
        raise ValueError(f"a batch of {batch} positions does not fit a buffer of {buffer.capacity} rows")
    if mask is None:
        mask = jnp.ones((batch,), bool)
    rows, count = _rows_for(buffer, mask)
    weight = jnp.broadcast_to(jnp.float32(1.0) if policy_weight is None else policy_weight, (batch,))
    searched = jnp.zeros((batch,), jnp.float32) if root_value is None else root_value.astype(jnp.float32)
    buffer = buffer.replace(
        planes=buffer.planes.at[rows].set(planes.astype(buffer.planes.dtype), mode="drop"),
        policy=buffer.policy.at[rows].set(policy.astype(jnp.float32), mode="drop"),
        policy_weight=buffer.policy_weight.at[rows].set(weight.astype(jnp.float32), mode="drop"),
        value=buffer.value.at[rows].set(searched, mode="drop"),
        ownership=buffer.ownership.at[rows].set(jnp.int8(0), mode="drop"),
        score=buffer.score.at[rows].set(0.0, mode="drop"),
        opponent_move=buffer.opponent_move.at[rows].set(jnp.int16(-1), mode="drop"),
        ready=buffer.ready.at[rows].set(False, mode="drop"),
        position=(buffer.position + count) % buffer.capacity,
        written=buffer.written + count,
    )
    return buffer, rows


def replay_finish(
    buffer: ReplayBuffer,
    rows: jax.Array,
    z: jax.Array,
    mask: jax.Array,
    ownership: jax.Array | None = None,
    score: jax.Array | None = None,
    root_weight: float = 0.0,
    opponent_move: jax.Array | None = None,
) -> ReplayBuffer:
    """Sets the outcome of rows written by :func:`replay_write` and marks them ready.

    Args:
      buffer: the buffer.
      rows: ``int[K]`` rows (any shape ``S``, flattened with ``z`` and ``mask``).
      z: ``f32[S]`` outcome for the player to move in each row's position.
      mask: ``bool[S]``: only these rows are finished (others untouched).
      ownership: optional ``[S, P]`` final owner of each point for the
        player to move (+1, -1, 0; default 0).
      score: optional ``f32[S]`` final score for the player to move (default 0).
      root_weight: the value target is ``(1 - root_weight) * z + root_weight
        * v``, ``v`` the root value :func:`replay_write` stored (a static
        float in ``[0, 1]``; 0: the outcome alone, exactly).
      opponent_move: optional ``int[S]`` the opponent's answer to the move
        played in each row's position, ``-1`` for none (default ``-1``).
    """
    rows = jnp.where(mask, rows, buffer.capacity).reshape(-1)
    target = z.reshape(-1).astype(jnp.float32)
    if root_weight:
        searched = jnp.take(buffer.value, rows, mode="clip")  # masked-out rows: clipped, then dropped
        target = (1.0 - root_weight) * target + root_weight * searched
    count, points = rows.shape[0], buffer.ownership.shape[-1]
    owner = jnp.zeros((count, points), jnp.int8) if ownership is None else ownership
    margin = jnp.zeros((count,), jnp.float32) if score is None else score
    answer = jnp.full((count,), -1, jnp.int16) if opponent_move is None else opponent_move
    return buffer.replace(
        value=buffer.value.at[rows].set(target, mode="drop"),
        ownership=buffer.ownership.at[rows].set(owner.reshape(count, points).astype(jnp.int8), mode="drop"),
        score=buffer.score.at[rows].set(margin.reshape(-1).astype(jnp.float32), mode="drop"),
        opponent_move=buffer.opponent_move.at[rows].set(answer.reshape(-1).astype(jnp.int16), mode="drop"),
        ready=buffer.ready.at[rows].set(True, mode="drop"),
    )


def replay_add(
    buffer: ReplayBuffer, planes: jax.Array, policy: jax.Array, z: jax.Array, mask: jax.Array | None = None
) -> ReplayBuffer:
    """Stores complete examples (ready at once): :func:`replay_write` then :func:`replay_finish`.

    Args:
      buffer: the buffer.
      planes: ``[B, N, N, C]``.
      policy: ``f32[B, A]``.
      z: ``f32[B]``.
      mask: optional ``bool[B]``: store only these (consecutively).
    """
    if mask is None:
        mask = jnp.ones((planes.shape[0],), bool)
    buffer, rows = replay_write(buffer, planes, policy, mask)
    return replay_finish(buffer, rows, z, mask)


class ReplaySample(NamedTuple):
    """A batch of examples drawn from the buffer by :func:`replay_sample`.

    Attributes:
      planes: ``f32[B, N, N, C]``.
      policy: ``f32[B, A]`` policy targets.
      value: ``f32[B]`` outcomes ``z``.
      rows: ``int32[B]`` the rows drawn.
      policy_weight: ``f32[B]`` the policy targets' weights.
      ownership: ``f32[B, P]`` final owners for the mover (+1, -1, 0).
      score: ``f32[B]`` final scores for the mover.
      opponent_move: ``int32[B]`` the opponent's answers, ``-1`` unknown.
    """

    planes: jax.Array
    policy: jax.Array
    value: jax.Array
    rows: jax.Array
    policy_weight: jax.Array
    ownership: jax.Array
    score: jax.Array
    opponent_move: jax.Array


def replay_sample(buffer: ReplayBuffer, key: jax.Array, batch_size: int) -> ReplaySample:
    """Draws ``batch_size`` ready rows uniformly, with replacement (in groups with ``S`` rings).

    Check ``jnp.any(buffer.ready)`` first (with rings,
    ``jnp.all(replay_ready_groups(buffer, batch_size) > 0)``): with no ready
    row (in a group) the draw returns arbitrary rows.

    Args:
      buffer: the buffer.
      key: a PRNG key.
      batch_size: ``B`` rows to draw (static).

    Returns:
      :class:`ReplaySample`; with rings, example ``i`` is drawn from group
      ``i // (B / g)`` (module docstring) and its ``rows`` entry is
      ``ring * R + row``.
    """
    if buffer.slots is not None:
        return _sample_groups(buffer, key, batch_size)
    ready = buffer.ready.astype(jnp.int32)
    cumulative = jnp.cumsum(ready)
    total = cumulative[-1]
    # The k-th ready row, k uniform in [0, total): the first row whose running count exceeds k.
    k = jax.random.randint(key, (batch_size,), 0, jnp.maximum(total, 1))
    rows = jnp.searchsorted(cumulative, k, side="right").astype(jnp.int32)
    rows = jnp.minimum(rows, buffer.capacity - 1)
    return replay_gather(buffer, rows)


def replay_gather(buffer: ReplayBuffer, rows: jax.Array) -> ReplaySample:
    """The examples in ``rows`` (``int[B]``), as :func:`replay_sample` returns them."""
    rows = jnp.asarray(rows, jnp.int32)
    return ReplaySample(
        planes=buffer.planes[rows].astype(jnp.float32),
        policy=buffer.policy[rows],
        value=buffer.value[rows],
        rows=rows,
        policy_weight=buffer.policy_weight[rows],
        ownership=buffer.ownership[rows].astype(jnp.float32),
        score=buffer.score[rows],
        opponent_move=buffer.opponent_move[rows].astype(jnp.int32),
    )


def _grouped(buffer: ReplayBuffer, batch_size: int) -> tuple[ReplayBuffer, int]:
    """The rings' rows as ``g`` groups (``[g, S / g * R, ...]``, no write position), and ``g``."""
    slots, ring = buffer.value.shape
    groups = math.gcd(slots, batch_size)
    rows = slots // groups * ring
    regroup = lambda x: x.reshape((groups, rows, *x.shape[2:]))  # noqa: E731
    fields = {
        f.name: regroup(getattr(buffer, f.name))
        for f in dataclasses.fields(buffer)
        if f.name not in ("position", "written")
    }
    none = jnp.zeros((groups,), jnp.int32)
    return ReplayBuffer(**fields, position=none, written=none), groups


def replay_ready_groups(buffer: ReplayBuffer, batch_size: int) -> jax.Array:
    """``int32[g]``: the ready rows of each sampling group of a ringed buffer for batches of ``batch_size``.

    Raises:
      ValueError: for a buffer with one ring.
    """
    if buffer.slots is None:
        raise ValueError("replay_ready_groups needs a buffer with rings (replay_init(..., slots=S))")
    grouped, _ = _grouped(buffer, batch_size)
    return jnp.sum(grouped.ready.astype(jnp.int32), axis=1)


def _sample_groups(buffer: ReplayBuffer, key: jax.Array, batch_size: int) -> ReplaySample:
    """:func:`replay_sample` of a ringed buffer: ``B / g`` examples from each group, one key per group."""
    grouped, groups = _grouped(buffer, batch_size)
    per_group, rows_per_group = batch_size // groups, grouped.value.shape[1]
    # Each group is a one-ring buffer; a flat row r of group j is row r of ring j * S / g + r // R.
    draw = jax.vmap(lambda b, k: replay_sample(b, k, per_group))
    sample = draw(grouped, jax.random.split(key, groups))
    offsets = jnp.arange(groups, dtype=jnp.int32)[:, None] * rows_per_group
    sample = sample._replace(rows=sample.rows + offsets)
    return jax.tree.map(lambda x: x.reshape((batch_size, *x.shape[2:])), sample)
