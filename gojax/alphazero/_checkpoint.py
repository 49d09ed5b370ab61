"""Saving and loading a :class:`PolicyValueNet` with orbax-checkpoint: arrays plus a JSON description.

A checkpoint is one directory written by orbax's ``CompositeCheckpointHandler``::

    path/
      arrays/   the network's params and BatchNorm statistics (orbax StandardSave)
      meta/     JSON: format tag, NetworkConfig, board size, input channels,
                observation name and the caller's metadata

**Atomic.** orbax writes everything into a temporary directory beside
``path`` (``<path>.orbax-checkpoint-tmp-...``) and renames it to ``path``
only when every part is written, so a crash leaves either the previous
checkpoint or none - never a half-written ``path``. :func:`load_checkpoint`
also refuses orbax's temporary directories and a directory without both
parts (``ValueError``).
"""

from __future__ import annotations

import json
import os
from typing import Any

from gojax.alphazero._network import NetworkConfig, PolicyValueNet, merge, split

__all__ = ["CHECKPOINT_FORMAT", "load_checkpoint", "save_checkpoint"]

CHECKPOINT_FORMAT = "gojax.alphazero.checkpoint/1"
"""The ``format`` tag written in every checkpoint's metadata."""

_RESERVED = ("format", "network_config", "board_size", "in_channels", "observe_name")


def _checkpointer():
    import orbax.checkpoint as ocp

    return ocp, ocp.Checkpointer(ocp.CompositeCheckpointHandler())


def save_checkpoint(
    path: str | os.PathLike,
    net: PolicyValueNet,
    network_config: NetworkConfig,
    *,
    board_size: int,
    observe_name: str = "basic",
    metadata: dict[str, Any] | None = None,
) -> None:
    """Writes ``net`` to the directory ``path`` (replacing one that exists), atomically.

    Args:
      path: the checkpoint directory (its parent must exist).
      net: the network (its current arrays are saved).
      network_config: its sizes (must be ``net.config``).
      board_size: ``N`` (must be ``net.board_size``).
      observe_name: name of the observation function the network reads
        (``"basic"`` for :func:`basic_planes`).
      metadata: more JSON-serialisable data (training step, rules, ...);
        returned by :func:`load_checkpoint` beside the reserved keys
        ``format``, ``network_config``, ``board_size``, ``in_channels``, ``observe_name``.

    Raises:
      ValueError: on a mismatch between ``net`` and the arguments, a reserved
        or non-JSON metadata entry, or a missing parent directory.
    """
    if network_config != net.config:
        raise ValueError(f"network_config {network_config} is not the network's {net.config}")
    if board_size != net.board_size:
        raise ValueError(f"board_size {board_size!r} is not the network's {net.board_size}")
    if not isinstance(observe_name, str) or not observe_name:
        raise ValueError(f"observe_name must be a non-empty string, got {observe_name!r}")
    metadata = dict(metadata or {})
    clash = sorted(set(metadata) & set(_RESERVED))
    if clash:
        raise ValueError(f"metadata keys {clash} are reserved")
    meta = {
        "format": CHECKPOINT_FORMAT,
        "network_config": network_config.to_dict(),
        "board_size": board_size,
        "in_channels": net.in_channels,
        "observe_name": observe_name,
        **metadata,
    }
    try:
        json.dumps(meta)
    except (TypeError, ValueError) as error:
        raise ValueError(f"metadata is not JSON-serialisable: {error}") from None
    path = os.path.abspath(os.fspath(path))
    if not os.path.isdir(os.path.dirname(path)):
        raise ValueError(f"the parent directory of checkpoint {path!r} does not exist")
    from flax import nnx

    _, variables = split(net)
    arrays = {name: nnx.to_pure_dict(state) for name, state in variables.items()}
    ocp, checkpointer = _checkpointer()
    args = ocp.args.Composite(arrays=ocp.args.StandardSave(arrays), meta=ocp.args.JsonSave(meta))
    checkpointer.save(path, args, force=True)
    checkpointer.close()


def load_checkpoint(path: str | os.PathLike) -> tuple[PolicyValueNet, NetworkConfig, dict[str, Any]]:
    """Reads a checkpoint of :func:`save_checkpoint`.

    Returns:
      ``(net, network_config, metadata)``: the network in eval mode, its
      :class:`NetworkConfig`, and the metadata dict (the caller's entries plus
      ``format``, ``network_config``, ``board_size``, ``in_channels``, ``observe_name``).

    Raises:
      FileNotFoundError: if ``path`` does not exist.
      ValueError: if ``path`` is not a complete gojax checkpoint (an orbax
        temporary directory, a part missing, a bad format tag or unreadable arrays).
    """
    import jax
    from flax import nnx

    path = os.path.abspath(os.fspath(path))
    if not os.path.exists(path):
        raise FileNotFoundError(f"no checkpoint at {path!r}")
    ocp, checkpointer = _checkpointer()
    from etils import epath

    if not os.path.isdir(path) or ocp.path.step.is_tmp_checkpoint(epath.Path(path)):
        raise ValueError(f"{path!r} is not a finished checkpoint directory")
    for part in ("arrays", "meta"):
        if not os.path.isdir(os.path.join(path, part)):
            raise ValueError(f"checkpoint {path!r} is incomplete or corrupt: no {part!r} part")
    try:
        meta = checkpointer.restore(path, ocp.args.Composite(meta=ocp.args.JsonRestore()))["meta"]
    except Exception as error:  # orbax raises many types for unreadable data
        raise ValueError(f"checkpoint {path!r} has unreadable metadata: {error}") from error
    if not isinstance(meta, dict) or meta.get("format") != CHECKPOINT_FORMAT:
        raise ValueError(f"checkpoint {path!r} is not a {CHECKPOINT_FORMAT} checkpoint")
    try:
        config = NetworkConfig.from_dict(meta["network_config"])
        board_size, in_channels = int(meta["board_size"]), int(meta["in_channels"])
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"checkpoint {path!r} has a bad network description: {error}") from None
    abstract = nnx.eval_shape(lambda: PolicyValueNet(config, board_size, in_channels, rngs=nnx.Rngs(0)))
    graphdef, variables = split(abstract)
    # Onto this process's first device, whatever devices wrote it (in a run of several processes,
    # the devices the checkpoint names may belong to another process).
    here = jax.sharding.SingleDeviceSharding(jax.local_devices()[0])
    target = jax.tree.map(
        lambda leaf: jax.ShapeDtypeStruct(leaf.shape, leaf.dtype, sharding=here),
        {name: nnx.to_pure_dict(state) for name, state in variables.items()},
    )
    try:
        restored = checkpointer.restore(path, ocp.args.Composite(arrays=ocp.args.StandardRestore(target)))
        arrays = restored["arrays"]
        for name, state in variables.items():
            nnx.replace_by_pure_dict(state, arrays[name])
    except Exception as error:
        raise ValueError(f"checkpoint {path!r} has unreadable or mismatched arrays: {error}") from error
    finally:
        checkpointer.close()
    net = merge(graphdef, variables)
    net.eval()
    return net, config, meta
