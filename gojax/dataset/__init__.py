"""Supervised-learning datasets from SGF game records (host side, NumPy arrays).

::

    from gojax import dataset
    data = dataset.build_dataset("../shared/data/sgf", board_size=19)   # one sample per move
    print(data)            # games, samples, channels, skipped games and why
    train, held_out = data.split(held_out=0.1, seed=0)                  # by game, never by position
    for batch in dataset.batches(train, 256, seed=0, augment=True):     # shuffled, random symmetry
        batch.planes, batch.actions, batch.values, batch.legal          # [B,N,N,C] [B] [B] [B,A]

A sample is the position **before** a move of a real game and what happened:

* ``features`` ``[M, N, N, C]``: the observation of that position, named in
  the registry of :mod:`gojax.features` (``observation="basic"`` by default:
  the 15 planes :mod:`gojax.alphazero` reads, the same whatever is installed;
  the dataset records the name in ``observe_name``), planes from the mover's
  view, stored as ``uint8`` when every value is a small whole number (binary
  planes, 4x less memory than ``float32``), else ``float32``;
* ``actions`` ``int32[M]``: the move played, in ``[0, A)`` (``P`` is pass);
* ``values`` ``float32[M]``: the game's result for the player to move, +1 win,
  -1 loss, 0 for a draw or an unknown result (no ``RE``, ``"Void"``, ...);
* ``legal`` ``bool[M, A]``: gojax's legal moves there (for masking logits and
  the "uniform legal move" baseline);
* ``game_ids`` ``int32[M]`` (an index into ``names``) and ``move_numbers``
  ``int32[M]`` (0 for the first move);
* ``globals`` ``float32[M, G]``: for an observation that gives
  ``(planes, globals)`` (``observation="katago"``), its global features
  (``None`` otherwise); batches carry them as ``batch.globals``.

Games are replayed in a batch of ``games_per_call`` games at a time with one
jit-compiled ``lax.scan`` over chunks of 64 moves (compiled once per board
size and observation), the games sorted by length so a batch stops soon after
its longest game. Like :meth:`gojax.sgf.GameRecord.replay`, this host-side
tool is a place where gojax calls ``jax.jit`` for you.

Skipped (and listed in ``dataset.skipped`` with the reason): files that do not
parse, games on another board size, games without moves, and games whose
replay gojax refuses (a colour playing twice, a superko repeat under the
dataset's ``ko_rule``, ...: the reason names the move, as ``replay`` does).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from gojax import symmetry
from gojax._core import checks
from gojax._core.types import GoConfig
from gojax.dataset._build import build_dataset, load_records
from gojax.dataset._store import MoveDataset

__all__ = [
    "Batch",
    "MoveDataset",
    "augment_batch",
    "batches",
    "build_dataset",
    "load_records",
]


class Batch(NamedTuple):
    """One training batch (JAX arrays).

    Attributes:
      planes: ``float32[B, N, N, C]``.
      actions: ``int32[B]`` the move played (moved by the symmetry).
      values: ``float32[B]`` the result for the player to move.
      legal: ``bool[B, A]`` legal moves (moved by the symmetry).
      symmetries: ``int32[B]`` the symmetry applied to each sample (0 = none).
      indices: ``int32[B]`` the samples' positions in the dataset.
      globals: ``float32[B, G]`` the global features of an observation that
        has them (the KataGo preset; a symmetry leaves them as they are), else
        ``None``.
    """

    planes: jax.Array
    actions: jax.Array
    values: jax.Array
    legal: jax.Array
    symmetries: jax.Array
    indices: jax.Array
    globals: jax.Array | None = None


def augment_batch(config: GoConfig, symmetries, planes, actions, legal):
    """Applies one symmetry per sample with :mod:`gojax.symmetry` (pure; jit it if you like).

    Args:
      config: the rules (``size``).
      symmetries: ``int[B]`` in ``[0, 8)``.
      planes: ``[B, N, N, C]``.
      actions: ``int[B]`` in ``[0, A)`` (pass stays pass).
      legal: ``bool[B, A]``.

    Returns:
      ``(planes, actions, legal)`` moved: ``actions[b]`` is legal in
      ``legal[b]`` exactly when it was before.
    """
    ks = jnp.asarray(symmetries, jnp.int32)
    planes = jax.vmap(symmetry.transform_board)(ks, jnp.asarray(planes))
    actions = symmetry.transform_action(config, ks, jnp.asarray(actions, jnp.int32))
    legal = jax.vmap(symmetry.transform_policy)(ks, jnp.asarray(legal))
    return planes, actions, legal


def batches(
    dataset: MoveDataset,
    batch_size: int,
    *,
    seed: int = 0,
    shuffle: bool = True,
    augment: bool = True,
    epochs: int | None = 1,
    drop_remainder: bool = False,
) -> Iterator[Batch]:
    """Yields :class:`Batch` es of ``dataset``: shuffled every epoch and randomly symmetrised, seeded.

    Args:
      dataset: a :class:`MoveDataset`.
      batch_size: samples per batch.
      seed: seeds the shuffle and the symmetries (same seed, same batches).
      shuffle: a new random order every epoch (else dataset order).
      augment: one uniformly random symmetry of the 8 per sample (planes,
        action and legal mask together; a pass stays a pass).
      epochs: passes over the data; ``None`` for an endless stream.
      drop_remainder: skip the last, smaller batch of an epoch.

    Raises:
      TypeError: for a ``batch_size`` or ``epochs`` that is not an int.
      ValueError: for a non-positive ``batch_size`` or ``epochs``, or an empty dataset.
    """
    batch_size = checks.integer(batch_size, "batch_size", least=1)
    if epochs is not None:
        epochs = checks.integer(epochs, "epochs", least=1)
    count = len(dataset)
    if count == 0:
        raise ValueError("the dataset is empty")
    if drop_remainder and count < batch_size:
        raise ValueError(f"drop_remainder with batch_size {batch_size} > {count} samples yields nothing")
    config = GoConfig(size=dataset.board_size)
    rng = np.random.default_rng(seed)
    epoch = 0
    while epochs is None or epoch < epochs:
        order = rng.permutation(count) if shuffle else np.arange(count)
        stop = count - count % batch_size if drop_remainder else count
        for begin in range(0, stop, batch_size):
            index = (
                np.sort(order[begin : begin + batch_size]) if shuffle else order[begin : begin + batch_size]
            )
            planes = dataset.features[index]
            actions, legal = dataset.actions[index], dataset.legal[index]
            ks = (
                rng.integers(0, symmetry.NUM_SYMMETRIES, index.size) if augment else np.zeros(index.size, int)
            )
            ks = ks.astype(np.int32)
            if augment:
                planes, actions, legal = augment_batch(config, ks, planes, actions, legal)
            yield Batch(
                planes=jnp.asarray(planes, jnp.float32),
                actions=jnp.asarray(actions, jnp.int32),
                values=jnp.asarray(dataset.values[index]),
                legal=jnp.asarray(legal),
                symmetries=jnp.asarray(ks),
                indices=jnp.asarray(index, jnp.int32),
                globals=None if dataset.globals is None else jnp.asarray(dataset.globals[index]),
            )
        epoch += 1
