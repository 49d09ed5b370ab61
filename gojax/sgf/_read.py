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
import math
import re
import typing
from collections import Counter
from pathlib import Path
from warnings import warn

import numpy as np

from gojax._core.types import BLACK, EMPTY, WHITE, GoConfig, KoRule
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

    def leave_out(message: str, instead: str) -> None:
        """Raise ``message`` if strict, else warn that ``instead`` was done."""
        if strict:
            raise SGFError(f"{message} (strict=True; the default reading warns and goes on)")
        message = f"{message}: {instead}"
        warnings.append(message)
        warn(message + "; strict=True refuses the record", SGFWarning, stacklevel=2)

    def line(node: Node) -> int:
        return bisect.bisect_left(newlines, node.offset) + 1

    props = root.properties
    if encoding is None:
        encoding = "utf-8"
        if "CA" in props:
            charset = props["CA"][0].decode("ascii", errors="replace").strip()
            encoding = _text_encoding(charset) or "utf-8"
            if _text_encoding(charset) is None:
                warnings.append(f"{where}: unknown character set CA[{charset}], read as UTF-8")

    def text(raw: bytes) -> str:
        return decode_text(raw, encoding)

    def single(ident: str) -> str | None:
        return text(props[ident][0]).strip() if ident in props else None

    game = single("GM")
    if game is not None and game != "1":
        raise SGFError(f"{where}: line {line(root)}: GM[{game}] is not a game of Go (GM[1])")
    size = board_size(single("SZ"), where, line(root))

    km = single("KM")
    komi_recorded = None
    if km is not None and km != "":
        try:
            komi_recorded = float(km.replace(",", "."))
        except ValueError:
            leave_out(
                f"{where}: line {line(root)}: KM[{km}] is not a number", "left out (komi 0, as without KM)"
            )
        else:
            if not math.isfinite(komi_recorded):
                komi_recorded = None
                leave_out(
                    f"{where}: line {line(root)}: KM[{km}] is not a finite number",
                    "left out (komi 0, as without KM)",
                )
    metadata: dict[str, str] = {}
    ignored: Counter[str] = Counter()
    for ident, values in props.items():
        if ident in _STRUCTURAL:
            continue
        if len(values) == 1:
            metadata[ident] = text(values[0])
        else:
            ignored[ident] += 1
    komi = 0.0 if komi_recorded is None else komi_recorded
    if use_fox_komi and komi_recorded is not None:
        komi = fox_komi(komi_recorded, metadata.get("RU"))
    if "HA" in metadata and _int_or_none(metadata["HA"]) is None:
        warnings.append(f"{where}: HA[{metadata['HA']}] is not a number")
    rules_ko, suicide = parse_rules_string(metadata.get("RU"))

    setup = np.zeros((size, size), dtype=np.int8)
    moves: list[tuple[int, int]] = []
    move_lines: list[int] = []
    first_player = None
    variations = 0
    node: Node | None = root
    while node is not None:
        node_props = node.properties
        if node is not root:
            for ident in node_props:
                if ident not in _COLOUR and ident not in _SETUP and ident != "PL":
                    ignored[ident] += 1
        colours = [ident for ident in ("B", "W") if ident in node_props]
        number = len(moves) + 1
        if len(colours) == 2:
            raise SGFError(f"{where}: move {number} (line {line(node)}): B and W in one node")
        mixed = [ident for ident in _SETUP if ident in node_props]
        if colours and mixed and not moves:
            leave_out(
                f"{where}: line {line(node)}: setup {'/'.join(mixed)} and move {colours[0]} in one node "
                "(FF[4] keeps them apart)",
                "read as the setup stones, then the move",
            )
        for ident in _SETUP:
            if ident not in node_props:
                continue
            if moves:
                raise SGFError(
                    f"{where}: line {line(node)}: setup property {ident} after move {len(moves)} "
                    "(gojax replays setup stones only before the first move)"
                )
            value = EMPTY if ident == "AE" else _COLOUR[ident[1]]
            for raw in node_props[ident]:
                for point in setup_points(raw, size, where, line(node), ident):
                    setup.flat[point] = value
        if "PL" in node_props and not moves:
            player = text(node_props["PL"][0]).strip().upper()
            if player in _COLOUR:
                first_player = _COLOUR[player]
            else:
                leave_out(
                    f"{where}: line {line(node)}: PL[{player}] is not B or W",
                    "left out (the first move decides)",
                )
        if colours:
            (ident,) = colours
            values = node_props[ident]
            if len(values) != 1:
                raise SGFError(
                    f"{where}: move {number} (line {line(node)}): {ident} has {len(values)} values"
                )
            action = move_action(values[0], size, where, f"move {number} (line {line(node)}): {ident}")
            moves.append((_COLOUR[ident], action))
            move_lines.append(line(node))
        if len(node.children) > 1:
            variations += len(node.children) - 1
        node = node.children[0] if node.children else None

    if moves:
        first_player = moves[0][0]
    max_moves = None
    if len(moves) > 2 * size * size:
        max_moves = min(len(moves), 32767)
    config = GoConfig(
        size=size,
        komi=komi,
        ko_rule=typing.cast(KoRule, ko_rule or rules_ko or "positional"),
        suicide=suicide if suicide is not None else False,
        max_moves=max_moves,
    )
    return dict(
        config=config,
        setup=setup,
        moves=moves,
        first_player=first_player or BLACK,
        metadata=metadata,
        komi_recorded=komi_recorded,
        name=name,
        variations=variations,
        ignored=dict(ignored),
        warnings=warnings,
        move_lines=move_lines,
    )


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
