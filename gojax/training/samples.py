"""Self-play games of a training run as SGF files (``run_dir/sgf/selfplay_*.sgf``).

:func:`write_sgf_samples` writes the last finished game of the first slots of
the running self-play (:class:`gojax.alphazero.SelfPlayState` keeps each
slot's last game and its Tromp-Taylor score).
"""

from __future__ import annotations

from collections.abc import Mapping

import jax
import numpy as np

from gojax._core.types import GoConfig
from gojax._host.results import format_margin
from gojax.alphazero import SelfPlayState
from gojax.sgf import games_to_sgf

__all__ = ["write_sgf_samples"]


def write_sgf_samples(
    config: GoConfig,
    actor: SelfPlayState,
    directory: str,
    count: int,
    start: int,
    metadata: Mapping[str, str] | None = None,
) -> list[str]:
    """Writes the last finished game of the first ``count`` self-play slots as SGF files.

    Args:
      config: the rules.
      actor: :class:`gojax.alphazero.SelfPlayState` (host or device).
      directory: where to write (created).
      count: how many slots.
      start: number of the first file (``selfplay_{start:06d}.sgf``).
      metadata: extra root properties.

    Returns:
      The paths written (slots that have not finished a game yet are skipped).
    """
    moves = np.asarray(jax.device_get(actor.last_moves))[:count]
    scores = np.asarray(jax.device_get(actor.last_score))[:count]
    keep = moves[:, 0] >= 0
    if not np.any(keep):
        return []
    props = {"PB": "gojax alphazero", "PW": "gojax alphazero", **(metadata or {})}
    paths = games_to_sgf(
        config,
        moves[keep].astype(np.int32),
        directory,
        pad_value=-1,
        results=[format_margin(float(s)) for s in scores[keep]],
        metadata=props,
        prefix="selfplay",
        start=start,
    )
    return [str(path) for path in paths]
