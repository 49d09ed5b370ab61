"""Atomic file writes: a reader sees the old file or the new one, never half of one.

The data goes to a temporary file in the destination's directory (same file
system), is flushed and ``fsync``-ed, then renamed over the destination with
``os.replace``; on any error the temporary file is removed. The file gets the
mode a plain ``open(path, "w")`` would give it (``0o666`` less the process's
umask), not the private ``0o600`` of a temporary file. Used for SGF game
records, pictures and pages, dataset caches and training-run files.
"""

from __future__ import annotations

import os
import tempfile
import threading
from pathlib import Path

__all__ = ["atomic_write", "atomic_write_bytes", "plain_file_mode"]

_UMASK_LOCK = threading.Lock()


def plain_file_mode() -> int:
    """The mode ``open(path, "w")`` gives a new file: ``0o666`` less the current umask."""
    with _UMASK_LOCK:  # reading the umask means setting it: no other thread of ours in between
        umask = os.umask(0o022)
        os.umask(umask)
    return 0o666 & ~umask


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Writes ``data`` to ``path`` atomically (its folder is created if missing)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = tempfile.NamedTemporaryFile(
        dir=path.parent, prefix=f".{path.name}.", suffix=".tmp", delete=False
    )
    try:
        with handle:
            os.fchmod(handle.fileno(), plain_file_mode())
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(handle.name, path)
    except BaseException:
        Path(handle.name).unlink(missing_ok=True)
        raise
    return path


def atomic_write(path: str | os.PathLike, text: str) -> Path:
    """Writes ``text`` as UTF-8 to ``path`` atomically; line ends are kept as they are."""
    return atomic_write_bytes(path, text.encode("utf-8"))
