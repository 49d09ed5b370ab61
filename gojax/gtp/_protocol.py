"""GTP v2 framing (host side): clean a line, split it into id / command / arguments, format replies, errors.

The Go Text Protocol (Gunnar Farnebaeck, version 2, draft 2) asks an engine to:

* remove every control character except horizontal tab and line feed (so a
  ``\\r`` of a CRLF controller disappears), turn tabs into spaces, drop
  everything from ``#`` to the end of the line, and ignore lines that are
  then empty (no reply at all);
* read an optional numeric command id first and echo it in the reply:
  ``=id response`` on success, ``?id message`` on failure;
* end every reply with one empty line (a multi-line response never contains
  an empty line itself).

Colours are ``b``/``black``/``w``/``white`` and vertices ``D4``/``pass``, in
any letter case; columns skip the letter ``I``.
"""

from __future__ import annotations

import dataclasses
import math

from gojax._core.types import BLACK, WHITE, GoConfig
from gojax._host.vertices import from_gtp

__all__ = [
    "Command",
    "CommandError",
    "GTPError",
    "check_arity",
    "clean_line",
    "format_error",
    "format_success",
    "parse_colour",
    "parse_command",
    "parse_number",
    "parse_vertex",
]

_CONTROL = {code: None for code in [*range(0, 9), *range(11, 32), 127]}
_COLOURS = {"b": BLACK, "black": BLACK, "w": WHITE, "white": WHITE}


class CommandError(Exception):
    """A command failed; ``str(error)`` is the GTP error message (``illegal move``, ``syntax error``, ...)."""


class GTPError(RuntimeError):
    """A ``?`` reply to ``send(command) -> reply`` (or a dead engine).

    :meth:`gojax.gtp.GTPEngine.send` raises it, and so does the client of
    another engine (:class:`gojax.arena.GTPClient`): a referee drives both the
    same way.

    Attributes:
      command: the command sent.
      message: the error message received.
    """

    def __init__(self, command: str, message: str):
        super().__init__(f"{command!r} failed: {message}")
        self.command = command
        self.message = message


@dataclasses.dataclass(frozen=True)
class Command:
    """One parsed command line.

    Attributes:
      id: the numeric id to echo, as written (``None`` if the line had none).
      name: the command name (lower-cased; GTP names are lower case).
      args: the arguments as words.
    """

    id: str | None
    name: str
    args: tuple[str, ...]


def clean_line(line: str) -> str:
    """The line as GTP preprocessing leaves it: no control characters, tabs as spaces, no comment."""
    text = line.replace("\t", " ").translate(_CONTROL).replace("\n", "")
    hash_at = text.find("#")
    if hash_at >= 0:
        text = text[:hash_at]
    return text.strip()


def parse_command(line: str) -> Command | None:
    """The :class:`Command` of a raw input line, or ``None`` for a line to ignore (empty or comment)."""
    words = clean_line(line).split()
    if not words:
        return None
    ident = None
    if words[0].isascii() and words[0].isdigit():
        ident, words = words[0], words[1:]
    if not words:
        return Command(ident, "", ())
    return Command(ident, words[0].lower(), tuple(words[1:]))


def _prefix(mark: str, ident: str | None) -> str:
    return mark + (ident or "")


def format_success(ident: str | None, response: str = "") -> str:
    """``=id response`` plus the terminating empty line.

    A response that starts with a newline (a board diagram) starts on the
    line after ``=id``, as GNU Go prints ``showboard``; empty lines inside a
    response become ``.`` (an empty line would end the reply early).
    """
    text = str(response)
    own_line = text.startswith("\n")
    lines = [line.rstrip() or "." for line in text.strip("\n").splitlines()]
    head = _prefix("=", ident)
    if not lines:
        return head + "\n\n"
    if own_line:
        return head + "\n" + "\n".join(lines) + "\n\n"
    return f"{head} " + "\n".join(lines) + "\n\n"


def format_error(ident: str | None, message: str) -> str:
    """``?id message`` plus the terminating empty line (the message is kept on one line)."""
    text = " ".join(str(message).split()) or "error"
    return f"{_prefix('?', ident)} {text}\n\n"


def parse_number(word: str, what: str, integer: bool = False) -> float:
    """A finite number (an ``int`` if ``integer``) from an argument.

    Raises:
      CommandError: ``syntax error`` naming ``what`` and the word.
    """
    try:
        value = int(word) if integer else float(word)
    except ValueError:
        raise CommandError(
            f"syntax error: {what} must be {'an integer' if integer else 'a number'}, got {word!r}"
        ) from None
    if not math.isfinite(value):
        raise CommandError(f"syntax error: {what} must be finite, got {word!r}")
    return value


def check_arity(args: tuple[str, ...], low: int, high: int | None = None, usage: str = "") -> None:
    """Raises ``syntax error: usage: ...`` unless ``low <= len(args) <= high`` (``high`` default ``low``)."""
    high = low if high is None else high
    if not low <= len(args) <= high:
        raise CommandError(f"syntax error: usage: {usage}")


def parse_colour(word: str) -> int:
    """1 (black) or 2 (white) from ``b``, ``black``, ``w``, ``white`` (any case).

    Raises:
      CommandError: ``syntax error`` naming the word.
    """
    colour = _COLOURS.get(word.lower())
    if colour is None:
        raise CommandError(f"syntax error: invalid colour {word!r}")
    return colour


def parse_vertex(config: GoConfig, word: str) -> int | str:
    """The action of a vertex (``D4``, ``d4``, ``pass``), or the string ``"resign"``.

    Raises:
      CommandError: ``syntax error`` naming the vertex, when it is not a vertex
        of this board.
    """
    lowered = word.lower()
    if lowered == "resign":
        return "resign"
    if lowered == "pass":
        return config.pass_action
    try:
        return from_gtp(config, word)
    except ValueError:
        raise CommandError(
            f"syntax error: invalid vertex {word!r} for a {config.size}x{config.size} board"
        ) from None
