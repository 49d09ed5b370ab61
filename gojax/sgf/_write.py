"""Writing SGF (FF[4]), host side: one game, a record, or a batch of self-play games.

Files are what Sabaki, KaTrain, GoGui and KataGo open::

    (;GM[1]FF[4]CA[UTF-8]AP[gojax:0.1.0]SZ[9]KM[7.5]RU[koPOSITIONALscoreAREAtaxNONEsui0]RE[B+3.5]
    ;B[ee];W[cc];B[];W[])

Passes are written ``[]`` (never ``[tt]``); ``]`` and ``\\`` in text are
escaped. Files are written atomically: to a temporary file in the same
directory, then ``os.replace``, so a reader never sees half a game.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from gojax._core.types import BLACK, EMPTY, WHITE, GoConfig
from gojax._host.atomic import atomic_write
from gojax._host.vertices import check_action
from gojax._version import __version__

if TYPE_CHECKING:
    from gojax.sgf._record import GameRecord

__all__ = [
    "games_to_sgf",
    "parse_rules_string",
    "rules_string",
    "sgf_point",
    "to_sgf",
    "write_sgf",
]

_LETTERS = "abcdefghijklmnopqrstuvwxy"
_NAME = {BLACK: "B", WHITE: "W"}
# Root properties the writer sets itself; metadata cannot override them.
_RESERVED = frozenset({"GM", "FF", "CA", "SZ", "KM", "AB", "AW", "AE", "B", "W", "PL"})
_IDENT = re.compile(r"[A-Z]+")
_MOVES_PER_LINE = 12
_KATAGO_KO = re.compile(r"ko(SIMPLE|POSITIONAL|SITUATIONAL)", re.IGNORECASE)
_KATAGO_SUICIDE = re.compile(r"sui([01])", re.IGNORECASE)


def sgf_point(size: int, action: int) -> str:
    """The SGF coordinate of an action: ``"dp"`` (column, then row from the top), ``""`` for pass."""
    if action == size * size:
        return ""
    return _LETTERS[action % size] + _LETTERS[action // size]


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


def _number(value: float) -> str:
    text = repr(float(value))
    return text[:-2] if text.endswith(".0") else text


def rules_string(config: GoConfig) -> str:
    """The config's rules as a KataGo ``RU`` string (read back by :func:`gojax.sgf.parse_sgf`).

    Scoring is always Tromp-Taylor area scoring without a territory tax:
    ``koPOSITIONALscoreAREAtaxNONEsui0`` for the default config.
    """
    return f"ko{config.ko_rule.upper()}scoreAREAtaxNONEsui{int(config.suicide)}"


def parse_rules_string(rules: str | None) -> tuple[str | None, bool | None]:
    """``(ko_rule, suicide)`` from a KataGo rules string such as ``koSIMPLEscoreAREAtaxNONEsui1``.

    Either is ``None`` when the text does not say (any text not starting with
    ``ko``, such as ``Japanese``, says nothing).
    """
    if rules is None or not rules.strip().lower().startswith("ko"):
        return None, None
    ko = _KATAGO_KO.search(rules)
    suicide = _KATAGO_SUICIDE.search(rules)
    return (ko[1].lower() if ko else None), ((suicide[1] == "1") if suicide else None)


def _moves_with_colours(config: GoConfig, moves, first_player: int) -> list[tuple[int, int]]:
    """``[(colour, action)]`` from actions (colours alternate from ``first_player``) or pairs."""
    pairs = []
    colour = first_player
    for index, move in enumerate(moves):
        if isinstance(move, tuple | list):
            if len(move) != 2:
                raise ValueError(f"move {index + 1}: expected (colour, action), got {move!r}")
            colour, action = move
            if colour not in (BLACK, WHITE):
                raise ValueError(f"move {index + 1}: colour must be 1 (black) or 2 (white), got {colour!r}")
        else:
            action = move
        try:
            action = check_action(config, action)
        except ValueError as error:
            raise ValueError(f"move {index + 1}: {error}") from None
        pairs.append((int(colour), action))
        colour = BLACK + WHITE - int(colour)
    return pairs


def to_sgf(
    config: GoConfig,
    moves: Iterable,
    *,
    setup=None,
    first_player: int = BLACK,
    result: str | None = None,
    metadata: Mapping[str, str] | None = None,
) -> str:
    """One game as SGF text.

    Args:
      config: the rules (``SZ``, ``KM``, and ``RU`` as :func:`rules_string`
        unless ``metadata`` has ``RU``).
      moves: actions in ``[0, P]`` (colours alternate from ``first_player``),
        or ``(colour, action)`` pairs (colour 1 black, 2 white).
      setup: optional ``int8[N, N]`` stones placed before the first move.
      first_player: 1 or 2, who moves first (``PL`` is written if white).
      result: ``RE`` (e.g. from :func:`gojax.sgf.result_string`).
      metadata: more root properties, name -> text (``PB``, ``PW``, ``DT``,
        ``EV``, ``C``, ...). Names are upper-case letters; ``GM``, ``FF``,
        ``CA``, ``SZ``, ``KM``, setup and move properties are the writer's.

    Raises:
      ValueError: naming the bad move, colour, metadata name or setup.
    """
    size = config.size
    if first_player not in (BLACK, WHITE):
        raise ValueError(f"first_player must be 1 (black) or 2 (white), got {first_player!r}")
    pairs = _moves_with_colours(config, moves, first_player)
    root = {"GM": "1", "FF": "4", "CA": "UTF-8"}
    extra = dict(metadata or {})
    for key in extra:
        if not isinstance(key, str) or not _IDENT.fullmatch(key):
            raise ValueError(f"metadata name {key!r} is not an SGF property name (upper-case letters)")
    root["AP"] = extra.pop("AP", f"gojax:{__version__}")
    root["SZ"] = str(size)
    root["KM"] = _number(config.komi)
    rules = extra.pop("RU", None)
    ko_rule, suicide = parse_rules_string(rules)
    if rules is None or (ko_rule or config.ko_rule, config.suicide if suicide is None else suicide) != (
        config.ko_rule,
        config.suicide,
    ):
        rules = rules_string(config)  # none given, or a KataGo string that contradicts the config
    root["RU"] = rules
    if result is not None:
        extra["RE"] = result
    for key, value in extra.items():
        if key in _RESERVED:
            continue
        root[key] = str(value)
    head = "".join(f"{key}[{_escape(value)}]" for key, value in root.items())
    if setup is not None:
        grid = np.asarray(setup)
        if grid.shape != (size, size) or not np.isin(grid, (EMPTY, BLACK, WHITE)).all():
            raise ValueError(
                f"setup must be an int8[{size}, {size}] board of 0, 1, 2; got shape {grid.shape}"
            )
        for colour, ident in ((BLACK, "AB"), (WHITE, "AW")):
            points = np.flatnonzero(grid.reshape(-1) == colour)
            if points.size:
                head += ident + "".join(f"[{sgf_point(size, int(p))}]" for p in points)
    if first_player == WHITE and (not pairs or pairs[0][0] == WHITE):
        head += "PL[W]"
    lines = [f"(;{head}"]
    for start in range(0, len(pairs), _MOVES_PER_LINE):
        chunk = pairs[start : start + _MOVES_PER_LINE]
        lines.append("".join(f";{_NAME[c]}[{sgf_point(size, a)}]" for c, a in chunk))
    return "\n".join(lines) + ")\n"


def write_sgf(record: GameRecord, path: str | os.PathLike | None = None) -> str:
    """A :class:`~gojax.sgf.GameRecord` as SGF text, written atomically to ``path`` if given.

    The root gets the record's metadata (``RE``, ``PB``, ``RU``, ...) and its
    config's size and komi; the setup and every move of the main line follow.
    """
    text = to_sgf(
        record.config,
        record.moves,
        setup=record.setup if np.any(record.setup) else None,
        first_player=record.first_player,
        metadata=record.metadata,
    )
    if path is not None:
        atomic_write(path, text)
    return text


def games_to_sgf(
    config: GoConfig,
    actions,
    directory: str | os.PathLike,
    *,
    lengths=None,
    pad_value: int = -1,
    results: Sequence[str | None] | None = None,
    metadata: Mapping[str, str] | None = None,
    prefix: str = "game",
    start: int = 0,
) -> list[Path]:
    """Writes a batch of finished self-play games, one SGF file each (atomically).

    A game's moves are ``actions[b, :lengths[b]]``; without ``lengths``, they
    stop at the first ``pad_value``. A game also stops after two passes in a
    row (gojax ends it there; later entries are padding).

    Args:
      config: the rules of every game.
      actions: ``int[B, T]`` actions in ``[0, P]``, black first, padded.
      directory: where to write (created if missing).
      lengths: optional ``int[B]`` moves of each game.
      pad_value: the padding value when ``lengths`` is not given.
      results: optional ``RE`` of each game (``None`` for none), e.g.
        ``[gojax.sgf.result_string(config, s) for s in unbatched final states]``.
      metadata: root properties shared by every file (``PB``, ``PW``, ...).
      prefix: files are ``{prefix}_{start + b:06d}.sgf``.
      start: number of the first file.

    Returns:
      The paths written, one per game.

    Raises:
      ValueError: for a batch of the wrong shape, an action out of range, or
        ``lengths``/``results`` of the wrong length.
    """
    batch = np.asarray(actions)
    if batch.ndim != 2:
        raise ValueError(f"actions must be int[B, T]; got shape {batch.shape}")
    if not np.issubdtype(batch.dtype, np.integer):
        raise ValueError(f"actions must be integers; got dtype {batch.dtype}")
    games = batch.shape[0]
    if lengths is not None:
        lengths = np.asarray(lengths).reshape(-1)
        if lengths.shape != (games,) or np.any(lengths < 0) or np.any(lengths > batch.shape[1]):
            raise ValueError(f"lengths must be int[{games}] in [0, {batch.shape[1]}]; got {lengths!r}")
    if results is not None and len(results) != games:
        raise ValueError(f"results has {len(results)} entries for {games} games")
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for index in range(games):
        row = batch[index]
        if lengths is not None:
            row = row[: int(lengths[index])]
        else:
            padding = np.flatnonzero(row == pad_value)
            row = row[: padding[0]] if padding.size else row
        passes = row == config.pass_action
        both = np.flatnonzero(passes[1:] & passes[:-1])
        if both.size:
            row = row[: both[0] + 2]
        try:
            text = to_sgf(
                config,
                [int(a) for a in row],
                result=None if results is None else results[index],
                metadata=metadata,
            )
        except ValueError as error:
            raise ValueError(f"game {index}: {error}") from None
        paths.append(atomic_write(folder / f"{prefix}_{start + index:06d}.sgf", text))
    return paths
