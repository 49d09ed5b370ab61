"""The compilation cache of the host tools (``gojax-gtp``): fast second starts (host side).

Compiling a search player (UCT, Monte-Carlo) takes tens of seconds on a CPU:
tracing the search in Python is most of it, XLA's compile the rest. The cache
keeps both across processes, in one directory:

* **JAX's persistent compilation cache** (``jax_compilation_cache_dir``):
  every jitted function of the process (the rules, the dead-stone playouts,
  the players) is stored after its compile and loaded instead of compiled the
  next time. Set with a low threshold (:data:`MIN_COMPILE_SECONDS`) so that the
  engine's small functions are kept too.
* **Compiled executables** (``executables/`` inside it): the executable of
  each player level and of the tree search's playouts, serialized with
  :mod:`jax.experimental.serialize_executable` after its first compile and
  loaded by the next process, which then skips the tracing as well
  (:mod:`gojax._host.executables`). A file is keyed by the versions of JAX and jaxlib, the
  backend, a digest of gojax's source files, the rules and the player, and the
  argument shapes; players that close over data their description does not
  show (a network's parameters: a ``lambda`` or a local function) are not
  stored. A file that cannot be read is ignored (and replaced).

Which directory (:func:`resolve`): ``--compile-cache DIR``, else the
``GOJAX_COMPILE_CACHE`` environment variable, else ``$XDG_CACHE_HOME/gojax/jax``
(``~/.cache/gojax/jax``); ``--no-compile-cache``, or the variable set to
``off``, ``none``, ``0`` or the empty string, turns it off. Only the host tools
call :func:`enable`; importing gojax changes no JAX setting.

Like JAX's own cache, the directory is trusted: loading an executable from it
runs code, so it must not be writable by other users.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Callable, Mapping
from pathlib import Path

import jax

from gojax._core.types import GoConfig
from gojax._host import executables

__all__ = [
    "ENV_VAR",
    "MIN_COMPILE_SECONDS",
    "compile_player",
    "default_directory",
    "enable",
    "enabled_directory",
    "resolve",
]

log = logging.getLogger("gojax.gtp")

ENV_VAR = "GOJAX_COMPILE_CACHE"
MIN_COMPILE_SECONDS = 0.1  # jitted functions compiling faster than this are not written to JAX's cache
_OFF = frozenset({"", "0", "off", "none", "no", "false"})
_state: dict[str, Path | None] = {"directory": None}


def default_directory(environ: Mapping[str, str] | None = None) -> Path:
    """``$XDG_CACHE_HOME/gojax/jax``, or ``~/.cache/gojax/jax`` when that variable is unset or empty."""
    environ = os.environ if environ is None else environ
    home = environ.get("HOME") or os.path.expanduser("~")
    base = environ.get("XDG_CACHE_HOME") or os.path.join(home, ".cache")
    return Path(base) / "gojax" / "jax"


def resolve(
    directory: str | os.PathLike | None = None,
    disabled: bool = False,
    environ: Mapping[str, str] | None = None,
) -> Path | None:
    """The cache directory to use, or ``None`` for no cache (see the module docstring for the order).

    Args:
      directory: the ``--compile-cache`` flag (``None``: not given).
      disabled: the ``--no-compile-cache`` flag (wins over everything).
      environ: the environment (default ``os.environ``).

    Raises:
      ValueError: if both ``directory`` and ``disabled`` are given.
    """
    environ = os.environ if environ is None else environ
    if disabled:
        if directory is not None:
            raise ValueError(f"--compile-cache {directory} and --no-compile-cache contradict each other")
        return None
    if directory is not None:
        return Path(directory).expanduser()
    if ENV_VAR in environ:
        value = environ[ENV_VAR].strip()
        return None if value.lower() in _OFF else Path(value).expanduser()
    return default_directory(environ)


def enable(directory: str | os.PathLike | None) -> Path | None:
    """Turns the cache on in ``directory`` for this process (``None``: leaves it off); returns it.

    Sets ``jax_compilation_cache_dir``, ``jax_persistent_cache_min_compile_time_secs``
    (:data:`MIN_COMPILE_SECONDS`) and ``jax_persistent_cache_min_entry_size_bytes``
    (0: any size), and stores compiled executables in ``directory/executables``. Call it
    before the first compile. A directory that cannot be created leaves the
    cache off (with a warning in the log).
    """
    if directory is None:
        _state["directory"] = None
        executables.use_directory(None)
        return None
    path = Path(directory).expanduser().resolve()
    try:
        executables.use_directory(path / "executables")
    except OSError as error:
        log.warning("compilation cache off: cannot create %s: %s", path, error)
        _state["directory"] = None
        executables.use_directory(None)
        return None
    jax.config.update("jax_compilation_cache_dir", str(path))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", MIN_COMPILE_SECONDS)
    jax.config.update("jax_persistent_cache_min_entry_size_bytes", 0)
    _state["directory"] = path
    log.info("compilation cache: %s", path)
    return path


def enabled_directory() -> Path | None:
    """The directory :func:`enable` turned on in this process, or ``None``."""
    return _state["directory"]


def compile_player(config: GoConfig, player: object, function: Callable, args: tuple) -> Callable:
    """``jax.jit(function).lower(*args).compile()``, loaded from the cache when it holds it.

    Args:
      config: the rules ``function`` plays.
      player: the gojax player behind ``function`` (its ``repr`` is part of the key).
      function: ``function(*args)``, to compile ahead of time.
      args: example arguments (their shapes and dtypes are part of the key).

    Returns:
      The compiled function (a :class:`jax.stages.Compiled`).
    """
    return executables.compile_ahead(config, player, function, args)
