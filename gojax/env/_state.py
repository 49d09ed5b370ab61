"""The environment's state: pgx's public fields, gojax's game behind underscores (see :mod:`gojax.env`)."""

from __future__ import annotations

import dataclasses
import html
import math
import os
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core.types import GoConfig, GoState
from gojax._host.atomic import atomic_write
from gojax.features import BoardHistory
from gojax.svg import board_svg

__all__ = ["EnvState"]


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class EnvState:
    """One game seen by an RL loop (add a leading ``B`` to every field under ``jax.vmap``).

    The public fields are exactly pgx's; everything else starts with an
    underscore.

    Attributes:
      current_player: ``int32[]`` the player (0 or 1) to move. Seats are drawn
        at :meth:`GoEnv.init`: player 0 is black in about half of the games.
      observation: the chosen observation for the player to move: ``bool[N,
        N, C]`` for a registered 0/1 preset (see
        :attr:`GoEnv.observation_dtype`), a ``(planes, globals)`` pair for a
        preset with global features (``"katago"``), or ``None`` when the
        environment was built with ``observation=None``.
      rewards: ``float32[2]`` reward of player 0 and player 1 from the last
        ``step``: +1/-1 on the step that ends the game, 0 each for a draw and
        on every other step.
      terminated: ``bool[]`` over: two passes, an illegal action, or the move
        cap (scored, as pgx does).
      truncated: ``bool[]`` always ``False`` (the move cap terminates the game).
      legal_action_mask: ``bool[A]`` legal actions of the player to move; all
        ``True`` once the game is over. ``GoEnv.step`` reads its ko and
        superko verdicts from it, so change it only together with the game.
      _step_count: ``int32[]`` actions taken in this game (a step on a
        finished game does not count).
      _black: ``int32[]`` the player (0 or 1) who plays black.
      _game: the :class:`gojax.GoState` (for search, scoring, rendering);
        ``_game.truncated`` tells a game that reached the move cap.
      _history: the :class:`~gojax.features.BoardHistory` of the last 8 boards.
    """

    current_player: jax.Array
    observation: Any
    rewards: jax.Array
    terminated: jax.Array
    truncated: jax.Array
    legal_action_mask: jax.Array
    _step_count: jax.Array
    _black: jax.Array
    _game: GoState
    _history: BoardHistory

    def cleared(self) -> EnvState:
        """A copy with ``terminated``, ``truncated`` and ``rewards`` zeroed (auto-reset's next step)."""
        return self.replace(
            terminated=jnp.zeros_like(self.terminated),
            truncated=jnp.zeros_like(self.truncated),
            rewards=jnp.zeros_like(self.rewards),
        )

    def replace(self, **changes) -> EnvState:
        """Returns a copy with the given fields replaced."""
        return dataclasses.replace(self, **changes)

    @property
    def _size(self) -> int:
        """``N``, read off the legal mask's length ``N * N + 1``."""
        return math.isqrt(int(np.shape(self.legal_action_mask)[-1]) - 1)

    @property
    def env_id(self) -> str:
        """``"go_NxN"``, as pgx names its Go environments (``"go_9x9"``, ``"go_19x19"``)."""
        return f"go_{self._size}x{self._size}"

    def to_svg(self, *, color_theme: str | None = None, scale: float | None = None) -> str:
        """An SVG picture of the board, or of a batch of boards laid out as a grid (as pgx does).

        Args:
          color_theme: ``None`` or ``"light"`` (accepted for pgx compatibility;
            only the light theme is drawn).
          scale: size factor (default 1.0).

        Returns:
          The SVG document as a string: one board per game of the batch (any
          leading batch axes are flattened), ``ceil(sqrt(B))`` boards a row.

        Raises:
          ValueError: for a theme other than light, or a scale that is not positive.
        """
        if color_theme not in (None, "light"):
            raise ValueError(f"color_theme must be None or 'light' (the one drawn), got {color_theme!r}")
        if scale is not None and not (isinstance(scale, (int, float)) and scale > 0):
            raise ValueError(f"scale must be a positive number, got {scale!r}")
        size = self._size
        config = GoConfig(size=size)
        stones = np.asarray(self._game.stones)
        stones = stones.reshape(-1, *stones.shape[-2:])
        count = stones.shape[0]
        if count == 1:
            return board_svg(config, self._one(0), cell=28.0 * (scale or 1.0))
        cell = 20.0 * (scale or 1.0)
        columns = math.ceil(math.sqrt(count))
        rows = math.ceil(count / columns)
        width = height = 0.0
        parts = []
        for index in range(count):
            one = board_svg(config, self._one(index), cell=cell, title=f"{index}")
            if index == 0:
                width, height = (float(v) for v in _outer_size(one))
            left, top = (index % columns) * width, (index // columns) * height
            parts.append(one.replace("<svg ", f'<svg x="{left:.1f}" y="{top:.1f}" ', 1))
        total_w, total_h = columns * width, rows * height
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{total_w:.0f}" height="{total_h:.0f}" '
            f'viewBox="0 0 {total_w:.1f} {total_h:.1f}"><title>{html.escape(self.env_id)}</title>'
        )
        return "\n".join([head, *parts, "</svg>"])

    def save_svg(
        self, filename: str | os.PathLike, *, color_theme: str | None = None, scale: float | None = None
    ) -> None:
        """Writes :meth:`to_svg` to ``filename`` (atomically); it must end with ``.svg``, as in pgx.

        Raises:
          ValueError: if ``filename`` does not end with ``.svg``.
        """
        if not str(filename).endswith(".svg"):
            raise ValueError(f"the file name must end with .svg, got {str(filename)!r}")
        atomic_write(Path(filename), self.to_svg(color_theme=color_theme, scale=scale))

    def _repr_html_(self) -> str:
        return self.to_svg()

    def _one(self, index: int) -> GoState:
        """Game ``index`` of the flattened batch, as NumPy arrays."""
        game = self._game
        lead = np.ndim(game.turn)
        count = int(np.prod(np.shape(game.turn)))
        return jax.tree.map(lambda x: np.asarray(x).reshape(count, *np.shape(x)[lead:])[index], game)


def _outer_size(document: str) -> tuple[str, str]:
    """``(width, height)`` attributes of an SVG document's root element."""
    head = document.split(">", 1)[0]
    values = {}
    for name in ("width", "height"):
        values[name] = head.split(f' {name}="', 1)[1].split('"', 1)[0]
    return values["width"], values["height"]
