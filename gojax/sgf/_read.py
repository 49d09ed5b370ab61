"""Reading SGF game records, host side: files, text or bytes to :class:`~gojax.sgf.GameRecord` s.

See :mod:`gojax.sgf` for what is read and how; :mod:`gojax.sgf._parse` for
the syntax. A problem that stops the moves from being replayed raises
:class:`SGFError` naming the file, the line or move number, and what is wrong.
A problem with a property the moves do not need (an unreadable ``KM`` or
``PL``, setup stones in a node with a move) is, by default, warned about with
:class:`SGFWarning` and the property left out; ``strict=True`` raises instead.
"""

from __future__ import annotations

import bisect
import codecs
import dataclasses
import math
import re
import typing
from collections import Counter
from pathlib import Path
from warnings import warn

import numpy as np

from gojax._core.types import BLACK, EMPTY, MOVE_CAP_PER_POINT, WHITE, GoConfig, KoRule
from gojax.sgf._parse import MAX_SGF_BYTES, Node, SGFError, SGFWarning, decode_text, parse_collection
from gojax.sgf._points import board_size, move_action, setup_points
from gojax.sgf._record import GameRecord
from gojax.sgf._write import parse_rules_string

__all__ = ["check_encoding", "fox_komi", "game_fields", "parse_sgf", "parse_sgf_collection", "read_sgf"]

_COLOUR = {"B": BLACK, "W": WHITE}
_SETUP = ("AB", "AW", "AE")
# Root properties the reader turns into fields (not metadata).
_STRUCTURAL = frozenset({"GM", "FF", "CA", "SZ", "KM", "AB", "AW", "AE", "B", "W", "PL"})


def fox_komi(km: float, rules: str | None) -> float:
    """Komi in points from a Fox (foxwq) ``KM``: x100, and in stones under Chinese rules.

    ``fox_komi(650, "Japanese") == 6.5``; ``fox_komi(375, "Chinese") == 7.5``
    (3.75 stones of Chinese counting). ``KM[0]`` means Fox did not store the
    komi and stays 0.
    """
    points = km / 100.0
    if rules is not None and "chinese" in rules.lower():
        points *= 2.0
    return points


def _text_encoding(name: str) -> str | None:
    """The codec name for a character set that decodes bytes to text, else ``None``."""
    try:
        codec = codecs.lookup(name)
        b"SGF".decode(codec.name, errors="replace")
    except (LookupError, ValueError, TypeError):
        return None
    return codec.name


def check_encoding(encoding: str, name: str | None) -> str:
    """The codec name of ``encoding``, or :class:`SGFError` if it is not a text encoding."""
    codec = _text_encoding(encoding)
    if codec is None:
        raise SGFError(f"{name or '<sgf>'}: unknown character set {encoding!r}")
    return codec


@dataclasses.dataclass
class _Source:
    """Where a game's properties are read from: the name, the lines and the text encoding of its
    source, and what to do with a property the moves do not need that cannot be read."""

    where: str  # the file name for messages
    newlines: list[int]  # byte offsets of every ``\n`` in the source
    encoding: str
    strict: bool
    warnings: list[str]  # extended with every property left out

    def line(self, node: Node) -> int:
        """The line of the source where ``node`` starts."""
        return bisect.bisect_left(self.newlines, node.offset) + 1

    def text(self, raw: bytes) -> str:
        """A property value as text."""
        return decode_text(raw, self.encoding)

    def single(self, props: dict[str, list[bytes]], ident: str) -> str | None:
        """The first value of ``ident`` as stripped text, ``None`` without it."""
        return self.text(props[ident][0]).strip() if ident in props else None

    def leave_out(self, message: str, instead: str) -> None:
        """Raise ``message`` if strict, else warn that ``instead`` was done."""
        if self.strict:
            raise SGFError(f"{message} (strict=True; the default reading warns and goes on)")
        message = f"{message}: {instead}"
        self.warnings.append(message)
        warn(message + "; strict=True refuses the record", SGFWarning, stacklevel=2)


@dataclasses.dataclass
class _MainLine:
    """What the nodes of a game's main line hold: setup stones, moves and the player to move."""

    setup: np.ndarray  # int8[N, N]
    moves: list[tuple[int, int]] = dataclasses.field(default_factory=list)
    move_lines: list[int] = dataclasses.field(default_factory=list)
    first_player: int | None = None  # from PL before the first move
    variations: int = 0  # nodes beside the main line's


def game_fields(
    root: Node,
    newlines: list[int],
    name: str | None,
    encoding: str | None,
    ko_rule: KoRule | None,
    use_fox_komi: bool,
    warnings: list[str],
    strict: bool = False,
) -> dict:
    """The fields of a ``GameRecord`` for the game tree at ``root`` (its main line).

    Args:
      root: the game's root node.
      newlines: byte offsets of every ``\\n`` in the source, for line numbers.
      name: the file name for messages.
      encoding: the text encoding (``None``: ``CA``, else UTF-8).
      ko_rule: overrides the rules' ko rule.
      use_fox_komi: convert ``KM`` with :func:`fox_komi`.
      warnings: the list of accepted oddities (extended).
      strict: raise :class:`SGFError` for a property the moves do not need
        that cannot be read; by default it is left out with an
        :class:`SGFWarning` (and noted in ``warnings``).
    """
    where = name or "<sgf>"
    props = root.properties
    if encoding is None:
        encoding = _declared_encoding(props, where, warnings)
    source = _Source(where, newlines, encoding, strict, warnings)
    game = source.single(props, "GM")
    if game is not None and game != "1":
        raise SGFError(f"{where}: line {source.line(root)}: GM[{game}] is not a game of Go (GM[1])")
    size = board_size(source.single(props, "SZ"), where, source.line(root))
    komi_recorded = _recorded_komi(source, root)
    metadata, ignored = _metadata(source, props)
    komi = 0.0 if komi_recorded is None else komi_recorded
    if use_fox_komi and komi_recorded is not None:
        komi = fox_komi(komi_recorded, metadata.get("RU"))
    if "HA" in metadata and _int_or_none(metadata["HA"]) is None:
        warnings.append(f"{where}: HA[{metadata['HA']}] is not a number")
    rules_ko, suicide = parse_rules_string(metadata.get("RU"))
    main = _main_line(source, root, size, ignored)
    moves = main.moves
    config = GoConfig(
        size=size,
        komi=komi,
        ko_rule=typing.cast(KoRule, ko_rule or rules_ko or "positional"),
        suicide=suicide if suicide is not None else False,
        max_moves=min(len(moves), 32767) if len(moves) > MOVE_CAP_PER_POINT * size * size else None,
    )
    return dict(
        config=config,
        setup=main.setup,
        moves=moves,
        first_player=(moves[0][0] if moves else main.first_player) or BLACK,
        metadata=metadata,
        komi_recorded=komi_recorded,
        name=name,
        variations=main.variations,
        ignored=dict(ignored),
        warnings=warnings,
        move_lines=main.move_lines,
    )


def _declared_encoding(props: dict[str, list[bytes]], where: str, warnings: list[str]) -> str:
    """The text encoding a root's ``CA`` names, UTF-8 without one or for one that is unknown (noted)."""
    if "CA" not in props:
        return "utf-8"
    charset = props["CA"][0].decode("ascii", errors="replace").strip()
    encoding = _text_encoding(charset)
    if encoding is None:
        warnings.append(f"{where}: unknown character set CA[{charset}], read as UTF-8")
    return encoding or "utf-8"


def _recorded_komi(source: _Source, root: Node) -> float | None:
    """The root's ``KM`` as a number, ``None`` without one or for one that is left out."""
    km = source.single(root.properties, "KM")
    if km is None or km == "":
        return None
    where = f"{source.where}: line {source.line(root)}: KM[{km}]"
    try:
        komi = float(km.replace(",", "."))
    except ValueError:
        source.leave_out(f"{where} is not a number", "left out (komi 0, as without KM)")
        return None
    if not math.isfinite(komi):
        source.leave_out(f"{where} is not a finite number", "left out (komi 0, as without KM)")
        return None
    return komi


def _metadata(source: _Source, props: dict[str, list[bytes]]) -> tuple[dict[str, str], Counter[str]]:
    """The root's single-valued properties that are not fields, as text; the others, counted."""
    metadata: dict[str, str] = {}
    ignored: Counter[str] = Counter()
    for ident, values in props.items():
        if ident in _STRUCTURAL:
            continue
        if len(values) == 1:
            metadata[ident] = source.text(values[0])
        else:
            ignored[ident] += 1
    return metadata, ignored


def _main_line(source: _Source, root: Node, size: int, ignored: Counter[str]) -> _MainLine:
    """The setup stones, moves and first player of the main line from ``root``; the properties
    of its other nodes that are not read are counted in ``ignored``."""
    main = _MainLine(setup=np.zeros((size, size), dtype=np.int8))
    node: Node | None = root
    while node is not None:
        props = node.properties
        if node is not root:
            for ident in props:
                if ident not in _COLOUR and ident not in _SETUP and ident != "PL":
                    ignored[ident] += 1
        colours: list[str] = [ident for ident in ("B", "W") if ident in props]
        if len(colours) == 2:
            raise SGFError(
                f"{source.where}: move {len(main.moves) + 1} (line {source.line(node)}): B and W in one node"
            )
        _read_setup(source, node, size, main, colours)
        if colours:
            _read_move(source, node, size, main, colours[0])
        main.variations += max(len(node.children) - 1, 0)
        node = node.children[0] if node.children else None
    return main


def _read_setup(source: _Source, node: Node, size: int, main: _MainLine, colours: list[str]) -> None:
    """The setup stones (``AB``, ``AW``, ``AE``) and player to move (``PL``) of a node, into ``main``."""
    props, where = node.properties, source.where
    mixed = [ident for ident in _SETUP if ident in props]
    if colours and mixed and not main.moves:
        source.leave_out(
            f"{where}: line {source.line(node)}: setup {'/'.join(mixed)} and move {colours[0]} in one node "
            "(FF[4] keeps them apart)",
            "read as the setup stones, then the move",
        )
    for ident in mixed:
        if main.moves:
            raise SGFError(
                f"{where}: line {source.line(node)}: setup property {ident} after move {len(main.moves)} "
                "(gojax replays setup stones only before the first move)"
            )
        value = EMPTY if ident == "AE" else _COLOUR[ident[1]]
        for raw in props[ident]:
            for point in setup_points(raw, size, where, source.line(node), ident):
                main.setup.flat[point] = value
    if "PL" in props and not main.moves:
        player = source.text(props["PL"][0]).strip().upper()
        if player in _COLOUR:
            main.first_player = _COLOUR[player]
        else:
            source.leave_out(
                f"{where}: line {source.line(node)}: PL[{player}] is not B or W",
                "left out (the first move decides)",
            )


def _read_move(source: _Source, node: Node, size: int, main: _MainLine, ident: str) -> None:
    """The move ``ident`` (``B`` or ``W``) of a node, appended to ``main``."""
    values = node.properties[ident]
    number, line = len(main.moves) + 1, source.line(node)
    if len(values) != 1:
        raise SGFError(f"{source.where}: move {number} (line {line}): {ident} has {len(values)} values")
    action = move_action(values[0], size, source.where, f"move {number} (line {line}): {ident}")
    main.moves.append((_COLOUR[ident], action))
    main.move_lines.append(line)


def _int_or_none(text: str) -> int | None:
    try:
        return int(text.strip())
    except ValueError:
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
    strict: bool = False,
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
      strict: refuse a record with a property gojax does not need to replay
        the moves but cannot read (``KM[3又3/4]``, ``PL[X]``), or with setup
        stones and a move in one node (FF[4] forbids it). By default such a
        property is left out with an :class:`SGFWarning` naming it and its
        value (also kept in ``record.warnings``), and the moves are read.

    Raises:
      SGFError: naming the file, the line or move, and the problem.

    Warns:
      SGFWarning: for every property left out when ``strict`` is false.
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
            **game_fields(
                root,
                newlines,
                name,
                encoding,
                ko_rule,
                fox_komi,
                list(warnings) if i == 0 else [],
                strict=strict,
            )
        )
        for i, root in enumerate(roots)
    ]
