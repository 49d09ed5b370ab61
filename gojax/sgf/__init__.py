"""SGF game records (FF[4]), host side: read, replay through gojax, write.

Reading::

    record = gojax.sgf.read_sgf("game.sgf")       # or parse_sgf(text_or_bytes, name=...)
    record.config                                  # GoConfig(size=SZ, komi=KM, ko_rule="positional")
    record.setup                                   # int8[N, N] AB/AW stones, row 0 at the top
    record.moves                                   # [(colour, action), ...], colour 1 black / 2 white
    final = record.replay()                        # the GoState after the last move
    states = record.states_along()                 # GoState batched [T + 1]: start, then after each move

Writing::

    text = gojax.sgf.to_sgf(config, actions, result="B+3.5")
    gojax.sgf.write_sgf(record, "copy.sgf")        # atomic: temporary file, then os.replace
    gojax.sgf.games_to_sgf(config, actions_BT, "games/", lengths=lengths, results=results)

What is read (of the **main line**: the first child at every branch;
variations are skipped and counted in ``record.variations``):

* ``GM`` must be 1 (Go); ``SZ`` (default 19) square and at most 25;
  ``KM`` komi as recorded (default 0, and ``record.komi_recorded`` is
  ``None``). Fox (foxwq) files store komi x100 (``KM[650]`` is 6.5) and, under
  Chinese rules, in stones (``KM[375]`` is 3.75 stones = 7.5 points):
  ``parse_sgf(..., fox_komi=True)`` converts (see :func:`fox_komi`); it is
  never done silently.
* ``AB``/``AW``/``AE`` setup stones (point lists and ``aa:cc`` rectangles) in
  the root or in any node before the first move; ``PL`` the first player.
* ``B``/``W`` moves; a pass is ``[]``, or ``[tt]`` on boards up to 19x19.
* ``RU``: a KataGo rules string (``koPOSITIONALscoreAREAtaxNONEsui0``, as
  written here) sets ``ko_rule`` and ``suicide``; any other text (Japanese,
  Chinese, ...) leaves the defaults (positional superko, no suicide); the
  ``ko_rule`` argument overrides both.
* Every other single-valued root property (``PB``, ``PW``, ``RE``, ``RU``,
  ``HA``, ``DT``, ``EV``, ...) lands in ``record.metadata`` as text (``CA``
  gives the character set, UTF-8 by default; undecodable bytes become U+FFFD).
  Everything else (comments, markup, timing, unknown properties) is ignored
  and counted in ``record.ignored``.

Errors: malformed input (syntax, bad coordinates, ``GM`` not 1, ``SZ`` over
25 or not square, a file over ``max_bytes``) raises :class:`SGFError` (a
``ValueError``) naming the file, the line/column or move number and the
problem; so do replay errors (a move on an occupied point, suicide, a ko or
superko repeat, a colour playing twice, play after two passes).
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import numpy as np

from gojax._core.types import BLACK, EMPTY, WHITE, GoConfig, KoRule
from gojax.sgf._parse import MAX_SGF_BYTES, SGFError, parse_collection
from gojax.sgf._read import check_encoding, fox_komi, game_fields
from gojax.sgf._write import (
    atomic_write,
    games_to_sgf,
    parse_rules_string,
    result_string,
    rules_string,
    sgf_point,
    to_sgf,
    write_sgf,
)

__all__ = [
    "MAX_SGF_BYTES",
    "GameRecord",
    "SGFError",
    "atomic_write",
    "fox_komi",
    "games_to_sgf",
    "parse_rules_string",
    "parse_sgf",
    "parse_sgf_collection",
    "read_sgf",
    "result_string",
    "rules_string",
    "sgf_point",
    "to_sgf",
    "winner_of_result",
    "write_sgf",
]


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
        character set, an unreadable ``HA``, ...).
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

    def replay(self, config: GoConfig | None = None, **overrides):
        """The ``GoState`` after the last move.

        Args:
          config: the rules to replay under (default ``self.config``).
          **overrides: config fields to change, e.g. ``ko_rule="simple"``.

        Raises:
          SGFError: naming the file, the move number and the problem (an
            occupied point, suicide, a ko or superko repeat, a colour playing
            twice, a stone after two passes, more moves than the move cap).
        """
        from gojax.sgf._replay import replay

        return replay(self, config, **overrides)

    def states_along(self, config: GoConfig | None = None, **overrides):
        """``GoState`` batched ``[T + 1]``: the start, then the state after each move.

        Arguments and errors as :meth:`replay`.
        """
        from gojax.sgf._replay import states_along

        return states_along(self, config, **overrides)

    def to_sgf(self) -> str:
        """This record as SGF text (see :func:`write_sgf`)."""
        return write_sgf(self)


def winner_of_result(result: str | None) -> int | None:
    """1 for ``"B+..."``, 2 for ``"W+..."``, 0 for a draw (``"0"``, ``"Draw"``, ``"Jigo"``), else ``None``."""
    if result is None:
        return None
    text = result.strip().upper()
    if text.startswith("B+"):
        return BLACK
    if text.startswith("W+"):
        return WHITE
    if text in ("0", "DRAW", "JIGO", "D"):
        return EMPTY
    return None


def read_sgf(path, **kwargs) -> GameRecord:
    """The first game of the SGF file at ``path`` (keyword arguments: :func:`parse_sgf`).

    Raises:
      SGFError: naming the file, for a file that cannot be read or parsed.
    """
    path = Path(path)
    max_bytes = kwargs.get("max_bytes", MAX_SGF_BYTES)
    try:
        if max_bytes is not None and path.stat().st_size > max_bytes:
            raise SGFError(
                f"{path}: {path.stat().st_size:,} bytes is over the size limit of {max_bytes:,} bytes "
                "(pass max_bytes=None to read it anyway)"
            )
        data = path.read_bytes()
    except OSError as error:
        raise SGFError(f"{path}: cannot read the file: {error.strerror or error}") from error
    kwargs.setdefault("name", str(path))
    return parse_sgf(data, **kwargs)


def parse_sgf(data: str | bytes, **kwargs) -> GameRecord:
    """The first game of SGF text or bytes (a collection may hold several games).

    Args:
      data: SGF as ``bytes`` (decoded by ``CA``, default UTF-8) or ``str``.
      **kwargs: see :func:`parse_sgf_collection`.
    """
    return parse_sgf_collection(data, games=1, **kwargs)[0]


def parse_sgf_collection(
    data: str | bytes,
    *,
    name: str | None = None,
    encoding: str | None = None,
    ko_rule: KoRule | None = None,
    fox_komi: bool = False,
    max_bytes: int | None = MAX_SGF_BYTES,
    games: int | None = None,
) -> list[GameRecord]:
    """Every game of an SGF collection, as :class:`GameRecord` s.

    Args:
      data: SGF as ``bytes`` or ``str``.
      name: the file name for error messages.
      encoding: the character set of text values; default: ``CA``, else UTF-8.
      ko_rule: the ko rule of every ``config`` (default: from a KataGo ``RU``
        string, else ``"positional"``).
      fox_komi: convert Fox's ``KM`` (x100, stones under Chinese rules) to
        points with :func:`fox_komi`; ``record.komi_recorded`` keeps the raw value.
      max_bytes: refuse larger input (``None``: no limit).
      games: read only the first ``games`` game trees.

    Raises:
      SGFError: naming the file, the line or move, and the problem.
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
        encoding = encoding or "utf-8"
    if encoding is not None:
        check_encoding(encoding, name)
    warnings: list[str] = []
    roots = parse_collection(data, name=name, max_bytes=max_bytes, warnings=warnings)
    if games is not None:
        roots = roots[:games]
    newlines = [match.start() for match in re.finditer(b"\n", data)]
    return [
        GameRecord(
            **game_fields(root, newlines, name, encoding, ko_rule, fox_komi, list(warnings) if i == 0 else [])
        )
        for i, root in enumerate(roots)
    ]
