""":func:`make`: ``pgx.make``'s one line for Go, with gojax's rules (see :mod:`gojax.env`)."""

from __future__ import annotations

import re
from typing import Any

from gojax._core.types import GoConfig
from gojax.env._env import GoEnv

__all__ = ["make"]

_ID = re.compile(r"go_(\d+)x(\d+)")


def make(
    env_id: str,
    *,
    komi: float = 7.5,
    ko_rule: str = "positional",
    suicide: bool = False,
    max_moves: int | None = None,
    observation: Any = "pgx",
    observation_dtype: Any = None,
    mask_repeats: bool = True,
) -> GoEnv:
    """A Go environment with pgx's ``Env`` interface: ``gojax.make("go_19x19")`` for ``pgx.make("go_19x19")``.

    Args:
      env_id: ``"go_NxN"`` for a board side ``N`` in 2..25 (pgx has
        ``"go_9x9"`` and ``"go_19x19"``).
      komi: added to white's area (pgx: 7.5).
      ko_rule: ``"positional"`` (default; pgx's superko too), ``"situational"``
        or ``"simple"``.
      suicide: whether a suicide is legal (pgx: no).
      max_moves: the move cap, ``None`` for ``2 * N * N`` (pgx's); a game
        reaching it is scored and terminated, as in pgx.
      observation: a registered observation name (default ``"pgx"``: pgx's
        17 planes, identical to its observation), a spec, a function, or
        ``None``; see :class:`GoEnv`.
      observation_dtype: see :class:`GoEnv` (default ``bool``, as pgx).
      mask_repeats: ``True`` (default) leaves a superko repeat out of the
        legal mask; ``False`` lists it and makes it lose when played, as
        pgx does (see :class:`GoEnv`).

    Returns:
      :class:`GoEnv`.

    Raises:
      ValueError: for an id that is not ``"go_NxN"`` with one side in 2..25,
        or a bad rule setting (from :class:`gojax.GoConfig`).
    """
    match = _ID.fullmatch(env_id) if isinstance(env_id, str) else None
    if match is None or match.group(1) != match.group(2):
        raise ValueError(
            f"unknown environment id {env_id!r}; gojax makes Go on a square board: "
            f"'go_NxN' with N in 2..25, e.g. 'go_9x9' or 'go_19x19'"
        )
    size = int(match.group(1))
    config = GoConfig(size=size, komi=komi, ko_rule=ko_rule, suicide=suicide, max_moves=max_moves)  # type: ignore[arg-type]
    return GoEnv(
        config, observation=observation, observation_dtype=observation_dtype, mask_repeats=mask_repeats
    )
