"""The checkpoints of a training run: the whole run state to resume it, and the network to play it.

:class:`RunCheckpoints` owns both files of a run directory::

    run_dir/checkpoints/<iteration>/   the run: every array of the training state plus JSON
    run_dir/network/                   the network (gojax.alphazero.save_checkpoint), what
                                       players and ``gojax-gtp --player az --checkpoint`` load

**Run checkpoints** are an orbax ``CheckpointManager`` over
``checkpoints/<step>/``: every array of the training state (any pytree:
network variables, optimizer state, replay buffer and its position, running
self-play games, PRNG key) plus a JSON part (the run's settings, counters and
the metrics so far). orbax writes a checkpoint into a temporary directory and
renames it when complete, so a run killed while saving leaves the previous
checkpoints intact; temporary leftovers are removed at the next start. The
arrays are stored as a flat dict keyed by their position and path in the
pytree, so the state's Python types (dataclasses, optax's named tuples,
``nnx.State``) are rebuilt from a freshly initialised state of the same
shape, on the same device mesh.

**The network checkpoint** is written from the run state's variables by
:meth:`RunCheckpoints.save_network`, in the format of
:func:`gojax.alphazero.save_checkpoint` (atomic as well).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from typing import Any

import jax
import numpy as np

from gojax.alphazero import NetworkConfig, merge, save_checkpoint

__all__ = ["RunCheckpoints"]


def _leaf_names(tree: Any) -> list[str]:
    """One unique, file-system-safe name per leaf: its index and its key path."""
    paths = jax.tree_util.tree_flatten_with_path(tree)[0]
    names = []
    for index, (path, _) in enumerate(paths):
        text = re.sub(r"[^A-Za-z0-9]+", "_", jax.tree_util.keystr(path)).strip("_")
        names.append(f"{index:04d}_{text[:80]}")
    return names


class RunCheckpoints:
    """The run checkpoints and the network checkpoint of one run directory (see the module docstring).

    Args:
      run_dir: the run directory (``checkpoints/`` is created in it).
      max_to_keep: how many recent run checkpoints to keep.
    """

    def __init__(self, run_dir: str | os.PathLike, max_to_keep: int = 2):
        import orbax.checkpoint as ocp

        self._ocp = ocp
        self.run_dir = os.path.abspath(os.fspath(run_dir))
        self.directory = os.path.join(self.run_dir, "checkpoints")
        self.network_dir = os.path.join(self.run_dir, "network")
        options = ocp.CheckpointManagerOptions(
            max_to_keep=max_to_keep,
            create=True,
            cleanup_tmp_directories=True,
            enable_async_checkpointing=False,
        )
        self._manager = ocp.CheckpointManager(self.directory, options=options, item_names=("arrays", "meta"))

    def latest_step(self) -> int | None:
        """The newest complete run checkpoint's step, or ``None``."""
        return self._manager.latest_step()

    def save(self, step: int, state: Any, meta: Mapping[str, Any]) -> None:
        """Writes run checkpoint ``step`` (blocking; replaces nothing: steps must grow).

        Args:
          step: the checkpoint's number (the iteration).
          state: the training state, any pytree of arrays.
          meta: JSON-ready data stored beside it.
        """
        ocp = self._ocp
        # orbax refuses empty arrays (e.g. the superko history under the simple ko rule): they are
        # not stored and come back from ``like`` at restore.
        arrays = {n: x for n, x in zip(_leaf_names(state), jax.tree.leaves(state), strict=True) if np.size(x)}
        args = ocp.args.Composite(arrays=ocp.args.StandardSave(arrays), meta=ocp.args.JsonSave(dict(meta)))
        self._manager.save(step, args=args, force=True)
        self._manager.wait_until_finished()

    def restore(self, like: Any, step: int | None = None) -> tuple[Any, dict[str, Any], int]:
        """Reads run checkpoint ``step`` (default: the latest) into the structure and shardings of ``like``.

        Args:
          like: a state of the same structure (e.g. freshly initialised); its
            arrays' shapes, dtypes and shardings are the targets.
          step: which checkpoint.

        Returns:
          ``(state, meta, step)``.

        Raises:
          FileNotFoundError: if there is no checkpoint.
          ValueError: if the stored arrays do not match ``like``.
        """
        ocp = self._ocp
        step = self.latest_step() if step is None else step
        if step is None:
            raise FileNotFoundError(f"no checkpoint in {self.directory}")
        leaves, treedef = jax.tree.flatten(like)
        names = _leaf_names(like)
        target = {
            name: jax.ShapeDtypeStruct(np.shape(leaf), leaf.dtype, sharding=getattr(leaf, "sharding", None))
            for name, leaf in zip(names, leaves, strict=True)
            if np.size(leaf)
        }
        try:
            restored = self._manager.restore(
                step,
                args=ocp.args.Composite(arrays=ocp.args.StandardRestore(target), meta=ocp.args.JsonRestore()),
            )
        except Exception as error:  # orbax raises many types for a tree that differs from the target
            raise ValueError(
                f"checkpoint {step} in {self.directory} does not hold this training state (written by "
                f"another version of gojax, or by a run whose settings change the state's arrays); start "
                f"a new run directory: {type(error).__name__}: {error}"
            ) from error
        arrays = dict(restored["arrays"])
        arrays.update({n: leaf for n, leaf in zip(names, leaves, strict=True) if not np.size(leaf)})
        if set(arrays) != set(names):
            raise ValueError(
                f"checkpoint {step} in {self.directory} does not match the training state's structure"
            )
        for name, leaf in zip(names, leaves, strict=True):
            if tuple(arrays[name].shape) != tuple(np.shape(leaf)) or arrays[name].dtype != leaf.dtype:
                raise ValueError(
                    f"checkpoint {step}: array {name} is {arrays[name].dtype}{list(arrays[name].shape)}, "
                    f"expected {leaf.dtype}{list(np.shape(leaf))}"
                )
        state = jax.tree.unflatten(treedef, [arrays[name] for name in names])
        return state, dict(restored["meta"]), step

    def save_network(
        self,
        graphdef: Any,
        variables: Any,
        network_config: NetworkConfig,
        *,
        board_size: int,
        observe_name: str = "basic",
        metadata: Mapping[str, Any] | None = None,
    ) -> str:
        """Writes the network with ``variables`` to ``run_dir/network`` (replacing it); returns the path.

        The format is :func:`gojax.alphazero.save_checkpoint` (load it with
        :func:`gojax.alphazero.load_checkpoint`, ``gojax-gtp --player az``).
        """
        net = merge(graphdef, jax.device_get(variables))
        save_checkpoint(
            self.network_dir,
            net,
            network_config,
            board_size=board_size,
            observe_name=observe_name,
            metadata=dict(metadata or {}),
        )
        return self.network_dir

    def close(self) -> None:
        """Releases orbax's resources."""
        self._manager.close()
