"""Atomic file writes: a reader sees the old file or the new one, never half of one.

The data goes to a temporary file in the destination's directory (same file
system), is flushed and ``fsync``-ed, then renamed over the destination with
``os.replace``; on any error the temporary file is removed. Used for SGF game
records, pictures and pages, dataset caches and training-run files.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

__all__ = ["atomic_write", "atomic_write_bytes"]


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Writes ``data`` to ``path`` atomically (its folder is created if missing)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    handle = tempfile.NamedTemporaryFile(
        dir=path.parent, prefix=f".{path.name}.", suffix=".tmp", delete=False
    )
    try:
        with handle:
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
