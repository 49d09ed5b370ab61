"""The GTP client (host side): drive another engine - GNU Go, KataGo, gojax's own - over a pipe.

::

    with GTPClient(gnugo_command(level=1)) as gnugo:
        gnugo.send("boardsize 9")
        move = gnugo.send("genmove b")        # 'E5', 'PASS', 'resign'
        gnugo.send("play w Z99")               # raises GTPError('play w Z99', 'invalid coordinate')

Commands go out with a numeric id and the reply with the same id is read back
(a reply ends at an empty line). A reply starting ``?`` raises
:class:`GTPError`; a reply that does not come within ``timeout`` seconds
raises :class:`GTPTimeout`; an engine that exits raises :class:`GTPError`
with its exit status. :class:`GTPError` is :class:`gojax.gtp.GTPError`, the
error an in-process :class:`gojax.gtp.GTPEngine` raises from the same
``send(command) -> reply``. The engine's stderr goes to ``stderr`` (default: thrown
away).
"""

from __future__ import annotations

import os
import queue
import shutil
import subprocess
import threading
import time
from collections.abc import Sequence

from gojax.gtp import GTPError

__all__ = ["GNUGO", "GTPClient", "GTPTimeout", "find_gnugo", "gnugo_command"]

GNUGO = "/usr/games/gnugo"
"""Where Debian's ``gnugo`` package installs GNU Go (not on ``PATH`` by default)."""


class GTPTimeout(GTPError, TimeoutError):
    """No reply within the timeout."""


def find_gnugo() -> str | None:
    """The GNU Go binary (``gnugo`` on ``PATH``, else :data:`GNUGO`), or ``None``."""
    found = shutil.which("gnugo")
    if found:
        return found
    return GNUGO if os.access(GNUGO, os.X_OK) else None


def gnugo_command(
    level: int = 1, *, binary: str | None = None, seed: int | None = None, extra: Sequence[str] = ()
) -> list[str]:
    """The argv of GNU Go in GTP mode under gojax's rules.

    Chinese (area) rules, positional superko and ``--capture-all-dead`` (GNU
    Go removes dead stones before it passes, so its final position scores the
    same under Tromp-Taylor).

    Raises:
      FileNotFoundError: if GNU Go is not installed and ``binary`` is not given.
    """
    binary = binary or find_gnugo()
    if binary is None:
        raise FileNotFoundError("GNU Go not found (apt-get install gnugo; Debian puts it in /usr/games)")
    argv = [
        binary,
        "--mode",
        "gtp",
        "--level",
        str(int(level)),
        "--chinese-rules",
        "--positional-superko",
        "--capture-all-dead",
    ]
    if seed is not None:
        argv += ["--seed", str(int(seed))]
    return argv + list(extra)


class GTPClient:
    """A GTP engine in a subprocess.

    Args:
      argv: the engine's command line.
      timeout: default seconds to wait for a reply (``None``: forever).
      stderr: where the engine's stderr goes: ``None`` (discarded), a path, or
        an open file.
      name: a name for messages (default: the program's file name).
      env: the engine's environment (default: this process's).
    """

    def __init__(
        self,
        argv: Sequence[str],
        *,
        timeout: float | None = 60.0,
        stderr=None,
        name: str | None = None,
        env: dict[str, str] | None = None,
    ):
        self.argv = [str(a) for a in argv]
        self.timeout = timeout
        self.name = name or os.path.basename(self.argv[0])
        self._log_file = None
        if stderr is None:
            stderr = subprocess.DEVNULL
        elif isinstance(stderr, str | os.PathLike):
            self._log_file = stderr = open(stderr, "ab")
        self.process = subprocess.Popen(
            self.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=env,
            bufsize=0,
        )
        self._lines: queue.Queue = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True, name=f"gtp-{self.name}")
        self._reader.start()
        self._next_id = 1

    def _read(self) -> None:
        """Queues the engine's lines, then ``None`` at the end of its output (or once the stream is
        closed under the reader: :meth:`close` after a reader that did not see the end in time)."""
        stream = self.process.stdout
        assert stream is not None  # Popen(stdout=PIPE)
        try:
            for raw in iter(stream.readline, b""):
                self._lines.put(raw.decode("utf-8", errors="replace"))
        except (OSError, ValueError):  # closed by close(): EBADF, or a read of a closed file
            pass
        self._lines.put(None)

    def _line(self, command: str, deadline: float | None) -> str:
        wait = None if deadline is None else max(0.0, deadline - time.monotonic())
        try:
            line = self._lines.get(timeout=wait)
        except queue.Empty:
            raise GTPTimeout(command, f"{self.name} did not answer within {self.timeout} s") from None
        if line is None:
            self._lines.put(None)
            code = self.process.poll()
            raise GTPError(command, f"{self.name} exited (status {code})")
        return line.rstrip("\r\n")

    def send(self, command: str, timeout: float | None = -1) -> str:
        """Sends one command and returns its response (without ``=`` and id).

        Args:
          command: the command line (no id; one is added).
          timeout: seconds to wait; ``-1`` (default) uses the client's timeout.

        Raises:
          GTPError: a ``?`` reply or a dead engine; GTPTimeout: no reply in time.
        """
        command = " ".join(command.split())
        if not command:
            raise ValueError("empty GTP command")
        timeout = self.timeout if timeout == -1 else timeout
        deadline = None if timeout is None else time.monotonic() + timeout
        ident = str(self._next_id)
        self._next_id += 1
        stdin = self.process.stdin
        assert stdin is not None  # Popen(stdin=PIPE)
        try:
            stdin.write(f"{ident} {command}\n".encode())
            stdin.flush()
        except (BrokenPipeError, OSError):
            raise GTPError(command, f"{self.name} is not running (status {self.process.poll()})") from None
        while True:  # skip anything before our reply (a late reply to a timed-out command)
            head = self._line(command, deadline)
            if head and head[0] in "=?" and head[1:].split(" ", 1)[0] == ident:
                break
        lines = [head[1 + len(ident) :].strip()]
        while True:
            line = self._line(command, deadline)
            if not line.strip():
                break
            lines.append(line)
        text = "\n".join(lines).strip()
        if head[0] == "?":
            raise GTPError(command, text)
        return text

    def close(self, timeout: float = 5.0) -> int | None:
        """Sends ``quit`` if it runs, waits ``timeout`` s, then kills; returns the exit status."""
        if self.process.poll() is None:
            try:
                self.send("quit", timeout=timeout)
            except GTPError:
                pass
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        # The engine has exited: its reader meets the end of the output; let it, before the pipe closes.
        if self._reader is not threading.current_thread():
            self._reader.join(timeout)
        for stream in (self.process.stdin, self.process.stdout):
            if stream is None:
                continue
            try:
                stream.close()
            except OSError:
                pass
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        return self.process.returncode

    def __enter__(self) -> GTPClient:
        return self

    def __exit__(self, *exc) -> None:
        self.close()
