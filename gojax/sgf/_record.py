"""The game record of one SGF game: its rules, setup stones, moves and root properties."""

from __future__ import annotations

import dataclasses

import numpy as np

from gojax._core.types import BLACK, GoConfig, GoState
from gojax._host.results import winner_of_result
from gojax.sgf._replay import replay, states_along
from gojax.sgf._write import write_sgf

__all__ = ["GameRecord"]


@dataclasses.dataclass(eq=False)
class GameRecord:
    """One game read from (or to be written to) SGF.

    Attributes:
      config: the rules: ``size`` from ``SZ``, ``komi`` from ``KM``,
        ``ko_rule``/``suicide`` from a KataGo ``RU`` string or the defaults.
        ``max_moves`` is raised above the default cap only for a longer game.
      setup: ``int8[N, N]`` stones placed before the first move (0 empty,
        1 black, 2 white; row 0 at the top).
      moves: ``[(colour, action), ...]``: colour 1 black / 2 white, action in
        ``[0, P]`` (``row * N + col``, ``P`` is pass).
      first_player: 1 or 2, who moves first: the first move's colour, else
        ``PL``, else black.
      metadata: single-valued root properties as text (``PB``, ``PW``,
        ``RE``, ``RU``, ``HA``, ``DT``, ...).
      komi_recorded: ``KM`` as written in the file (``None`` if absent).
      name: the file name, used in error messages.
      variations: how many variations the main line skipped.
      ignored: property name -> how many times it was ignored on the main line.
      warnings: oddities that were accepted (a repeated property, an unknown
        character set, an unreadable ``HA``, ...) and properties left out by
        a lenient read (each also warned with :class:`SGFWarning`).
      move_lines: the line in the file of each move (for error messages).
    """

    config: GoConfig
    setup: np.ndarray
    moves: list[tuple[int, int]]
    first_player: int = BLACK
    metadata: dict[str, str] = dataclasses.field(default_factory=dict)
    komi_recorded: float | None = None
    name: str | None = None
    variations: int = 0
    ignored: dict[str, int] = dataclasses.field(default_factory=dict)
    warnings: list[str] = dataclasses.field(default_factory=list)
    move_lines: list[int] | None = dataclasses.field(default=None, repr=False)

    def __repr__(self) -> str:
        config = self.config
        return (
            f"GameRecord(name={self.name!r}, size={config.size}, komi={config.komi:g}, "
            f"ko_rule={config.ko_rule!r}, moves={len(self.moves)}, "
            f"setup_stones={int(np.count_nonzero(self.setup))}, "
            f"result={self.result!r}, variations={self.variations})"
        )

    @property
    def actions(self) -> np.ndarray:
        """``int32[T]``: the action of every move."""
        return np.array([action for _, action in self.moves], dtype=np.int32)

    @property
    def colours(self) -> np.ndarray:
        """``int8[T]``: the stone value (1 black, 2 white) of every mover."""
        return np.array([colour for colour, _ in self.moves], dtype=np.int8)

    @property
    def result(self) -> str | None:
        """``RE`` as recorded (``"B+3.5"``, ``"W+R"``, ``"0"``, ...), or ``None``."""
        return self.metadata.get("RE")

    @property
    def winner(self) -> int | None:
        """1 black, 2 white, 0 draw, from ``RE``; ``None`` if unknown (see :func:`winner_of_result`)."""
        return winner_of_result(self.result)

    @property
    def handicap(self) -> int | None:
        """``HA`` as a number, or ``None`` if absent or unreadable."""
        try:
            return int(self.metadata["HA"].strip())
        except (KeyError, ValueError):
            return None

    def replay(self, config: GoConfig | None = None, **overrides) -> GoState:
        """The ``GoState`` after the last move.

        Args:
          config: the rules to replay under (default ``self.config``).
          **overrides: config fields to change, e.g. ``ko_rule="simple"``.

        Raises:
          SGFError: naming the file, the move number and the problem (an
            occupied point, suicide, a ko or superko repeat, a colour playing
            twice, a stone after two passes, more moves than the move cap).
        """
        return replay(self, config, **overrides)

    def states_along(self, config: GoConfig | None = None, **overrides) -> GoState:
        """``GoState`` batched ``[T + 1]``: the start, then the state after each move.

        Arguments and errors as :meth:`replay`.
        """
        return states_along(self, config, **overrides)

    def to_sgf(self) -> str:
        """This record as SGF text (see :func:`write_sgf`)."""
        return write_sgf(self)
