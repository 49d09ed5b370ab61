"""SGF (FF[4]) syntax, host side: bytes to game trees of raw property values.

This module knows the grammar of the Smart Game Format and nothing about Go::

    Collection = GameTree { GameTree }
    GameTree   = "(" Sequence { GameTree } ")"
    Sequence   = Node { Node }
    Node       = ";" { Property }
    Property   = PropIdent PropValue { PropValue }
    PropValue  = "[" value "]"          (inside a value "\\" escapes the next byte)

Whitespace may separate any two tokens; bytes before the first ``(`` are
ignored (mail headers, a byte-order mark), as the specification allows.
Identifiers are upper-case letters; lower-case letters (FF[3] long names such
as ``AddBlack``) are dropped, as FF[4] readers are asked to. A property
repeated within one node has its values merged and a warning recorded.

Parsing is iterative (no recursion, so deep variation trees cannot overflow
the stack) and every syntax error raises :class:`SGFError` naming the source,
the line, column and byte offset, and what was expected.
"""

from __future__ import annotations

import re

__all__ = [
    "MAX_SGF_BYTES",
    "Node",
    "SGFError",
    "SGFWarning",
    "decode_text",
    "line_and_column",
    "parse_collection",
]

MAX_SGF_BYTES = 8 * 1024 * 1024  # the largest input read by default (8 MiB)

# One token after optional whitespace: "(", ")", ";", an identifier or the start of a value.
_TOKEN = re.compile(rb"[ \t\r\n\v\f]*(?:([();])|([A-Za-z]+)|(\[))")
_WHITESPACE = re.compile(rb"[ \t\r\n\v\f]*")
# The rest of a value after its "[": anything but "]" and "\", or "\" and any byte, then "]".
_VALUE = re.compile(rb"([^\\\]]*(?:\\.[^\\\]]*)*)\]", re.DOTALL)
_AFTER_OPEN, _IN_NODE, _AFTER_CLOSE = range(3)  # parser states: after "(", in a node, after ")"
_SOFT_BREAK = re.compile(r"\\(?:\r\n|\n\r|\r|\n)")
_ESCAPE = re.compile(r"\\(.)", re.DOTALL)


class SGFError(ValueError):
    """A game record that cannot be read, written or replayed.

    The message names the file (when known), where the problem is (line and
    column, or the move number) and what is wrong.
    """


class SGFWarning(UserWarning):
    """A property left out of a record read leniently (``strict=False``).

    The message names the file, the line, the property and its value, and
    what was kept instead. With ``strict=True`` the same problem raises
    :class:`SGFError`.
    """


class Node:
    """One SGF node: its properties and the nodes that follow it.

    Attributes:
      properties: identifier -> list of raw values (``bytes``, escapes kept),
        in file order.
      children: the nodes that follow; ``children[0]`` continues the main line,
        the others start variations.
      offset: byte offset of the node's ``;`` in the source.
    """

    __slots__ = ("children", "offset", "properties")

    def __init__(self, offset: int):
        self.properties: dict[str, list[bytes]] = {}
        self.children: list[Node] = []
        self.offset = offset

    def __repr__(self) -> str:
        return f"Node({list(self.properties)}, children={len(self.children)}, offset={self.offset})"


def line_and_column(data: bytes, offset: int) -> tuple[int, int]:
    """1-based line and column of byte ``offset`` in ``data``."""
    offset = max(0, min(offset, len(data)))
    line = data.count(b"\n", 0, offset) + 1
    column = offset - (data.rfind(b"\n", 0, offset) + 1) + 1
    return line, column


def _skip_space(data: bytes, pos: int) -> int:
    match = _WHITESPACE.match(data, pos)
    return match.end() if match else pos


def _where(name: str | None, data: bytes, offset: int) -> str:
    line, column = line_and_column(data, offset)
    return f"{name or '<sgf>'}: line {line}, column {column} (byte {offset})"


def _excerpt(data: bytes, offset: int) -> str:
    return repr(data[offset : offset + 12].decode("latin-1"))


def parse_collection(
    data: bytes,
    *,
    name: str | None = None,
    max_bytes: int | None = MAX_SGF_BYTES,
    warnings: list[str] | None = None,
) -> list[Node]:
    """The root node of every game tree in ``data``.

    Args:
      data: the file's bytes.
      name: the file name, for error messages.
      max_bytes: refuse larger input (``None``: no limit).
      warnings: if given, receives a line for each oddity that was accepted
        (a repeated property, text after the last game tree).

    Returns:
      One root :class:`Node` per game tree, in file order (at least one).

    Raises:
      SGFError: for input over ``max_bytes``, no game tree, a node or property
        out of place, an unterminated value, unbalanced parentheses.
    """
    data = _checked_input(data, name, max_bytes)
    roots: list[Node] = []
    open_trees: list[Node | None] = []  # for each open "(": the node its sequence continues
    current: Node | None = None  # the last node read (None before a game's root)
    state = _AFTER_CLOSE  # what the previous token allows next
    pos = data.find(b"(")
    while True:
        match = _TOKEN.match(data, pos)
        if match is None:
            _check_end(data, pos, name, len(open_trees))
            break
        token, ident, _ = match.groups()
        here = match.start(match.lastindex or 0)
        pos = match.end()
        _check_order(state, token, ident, name, data, here)
        if token == b"(":
            open_trees.append(current)
            state = _AFTER_OPEN
        elif token == b";":
            node = Node(here)
            if current is None:
                roots.append(node)
            else:
                current.children.append(node)
            current = node
            state = _IN_NODE
        elif token == b")":
            if not open_trees:
                raise SGFError(f"{_where(name, data, here)}: ')' without a matching '('")
            current = open_trees.pop()
            state = _AFTER_CLOSE
            if not open_trees and _after_last_tree(data, pos, name, warnings):
                break
        elif ident is not None:
            assert current is not None  # state _IN_NODE: a node is open
            pos = _read_property(data, pos, here, ident, current, name, warnings)
        else:  # a "[" with no property name before it
            raise SGFError(f"{_where(name, data, here)}: value '[' without a property name")
    return roots


def _checked_input(data: bytes, name: str | None, max_bytes: int | None) -> bytes:
    """``data`` as ``bytes``; :class:`SGFError` if it is not bytes, is too long or holds no ``(``."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise SGFError(f"{name or '<sgf>'}: expected bytes, got {type(data).__name__}")
    data = bytes(data)
    if max_bytes is not None and len(data) > max_bytes:
        raise SGFError(
            f"{name or '<sgf>'}: {len(data):,} bytes is over the size limit of {max_bytes:,} bytes "
            "(pass max_bytes=None to read it anyway)"
        )
    if data.find(b"(") < 0:
        raise SGFError(f"{name or '<sgf>'}: no game tree (no '(' in {len(data):,} bytes)")
    return data


def _check_end(data: bytes, pos: int, name: str | None, open_trees: int) -> None:
    """:class:`SGFError` unless only whitespace is left at ``pos`` and every game tree is closed."""
    pos = _skip_space(data, pos)
    if pos < len(data):
        raise SGFError(
            f"{_where(name, data, pos)}: unexpected {_excerpt(data, pos)} "
            "(expected '(', ')', ';', a property name or '[')"
        )
    if open_trees:
        raise SGFError(
            f"{_where(name, data, len(data))}: unexpected end of file, "
            f"{open_trees} game tree(s) not closed with ')'"
        )


def _check_order(
    state: int, token: bytes | None, ident: bytes | None, name: str | None, data: bytes, here: int
) -> None:
    """:class:`SGFError` for a token (at ``here``) that the previous one does not allow (``state``)."""
    if state == _AFTER_OPEN and token != b";":
        raise SGFError(f"{_where(name, data, here)}: expected ';' after '(' (a game tree starts with a node)")
    if state == _AFTER_CLOSE and token not in (b"(", b")"):
        what = "a node ';'" if token == b";" else "a property" if ident else "a value '['"
        raise SGFError(
            f"{_where(name, data, here)}: {what} after ')' (only '(' or ')' may follow a variation)"
        )


def _after_last_tree(data: bytes, pos: int, name: str | None, warnings: list[str] | None) -> bool:
    """Whether the collection ends after the game tree closed at ``pos``: nothing follows, or
    something other than another tree (noted in ``warnings``)."""
    tail = _skip_space(data, pos)
    if tail >= len(data):
        return True
    if data[tail : tail + 1] == b"(":
        return False
    if warnings is not None:
        warnings.append(
            f"{_where(name, data, tail)}: ignored {len(data) - tail:,} byte(s) after the last tree"
        )
    return True


def _read_property(
    data: bytes,
    pos: int,
    here: int,
    ident: bytes,
    node: Node,
    name: str | None,
    warnings: list[str] | None,
) -> int:
    """Read the values of property ``ident`` (at ``here``) from ``pos`` into ``node``; the position
    after its last value."""
    key = re.sub(rb"[a-z]", b"", ident).decode("ascii")
    if not key:
        raise SGFError(
            f"{_where(name, data, here)}: property name {ident.decode('ascii')!r} has no upper-case letter"
        )
    values: list[bytes] = []
    while True:
        opening = _TOKEN.match(data, pos)
        if opening is None or opening.group(3) is None:
            break
        value = _VALUE.match(data, opening.end())
        if value is None:
            raise SGFError(
                f"{_where(name, data, opening.start(3))}: unterminated value of property {key} "
                "(no closing ']')"
            )
        values.append(value.group(1))
        pos = value.end()
    if not values:
        raise SGFError(f"{_where(name, data, here)}: property {key} has no value '[...]'")
    if key in node.properties:
        node.properties[key].extend(values)
        if warnings is not None:
            warnings.append(f"{_where(name, data, here)}: property {key} repeated in one node")
    else:
        node.properties[key] = values
    return pos


def decode_text(raw: bytes, encoding: str, *, simple: bool = False) -> str:
    """A Text (or SimpleText) value: soft line breaks removed, escapes resolved.

    Args:
      raw: the value as stored between ``[`` and ``]``.
      encoding: the file's character set (undecodable bytes become U+FFFD).
      simple: SimpleText: every line break and other whitespace becomes a space.
    """
    text = raw.decode(encoding, errors="replace")
    text = _SOFT_BREAK.sub("", text)
    text = _ESCAPE.sub(r"\1", text)
    if simple:
        text = re.sub(r"[\t\r\n\v\f]", " ", text)
    return text
