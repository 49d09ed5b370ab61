"""Atomic file writes: a reader sees the old file or the new one, never half of one.

The data goes to a temporary file in the destination's directory (same file
system), is flushed and ``fsync``-ed, then renamed over the destination with
``os.replace``; on any error the temporary file is removed. Used for SGF game
records, pictures and pages, dataset caches and training-run files.

**Permissions.** The result has the mode a plain ``open(path, "w")`` would
give it: a new file ``0o666`` less the process's umask (the temporary file
is created with that mode, so the system applies the umask and any default
ACL of the folder), a file that is replaced keeps its permission bits.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path

__all__ = ["atomic_write", "atomic_write_bytes"]

_NEW_FILE_MODE = 0o666  # what open() asks for; the system takes the umask off
_ATTEMPTS = 100


def _temporary(path: Path) -> tuple[int, Path]:
    """``(descriptor, name)`` of a new, empty file beside ``path``, created as ``open()`` creates one."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(_ATTEMPTS):
        name = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
        try:
            return os.open(name, flags, _NEW_FILE_MODE), name
        except FileExistsError:
            continue
    raise FileExistsError(f"no unused temporary file name beside {str(path)!r}")


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Writes ``data`` to ``path`` atomically (its folder is created if missing).

    The file gets the mode ``open(path, "wb")`` would give it (module docstring).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    descriptor, name = _temporary(path)
    try:
        with os.fdopen(descriptor, "wb") as handle:
            try:
                old = os.stat(path)
            except FileNotFoundError:
                old = None
            if old is not None and stat.S_ISREG(old.st_mode) and hasattr(os, "fchmod"):
                # open() keeps the mode of a file it overwrites
                os.fchmod(handle.fileno(), stat.S_IMODE(old.st_mode) & 0o777)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(name, path)
    except BaseException:
        name.unlink(missing_ok=True)
        raise
    return path


def atomic_write(path: str | os.PathLike, text: str) -> Path:
    """Writes ``text`` as UTF-8 to ``path`` atomically; line ends are kept as they are."""
    return atomic_write_bytes(path, text.encode("utf-8"))
