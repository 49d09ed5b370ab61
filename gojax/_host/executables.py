"""Compiled executables kept on disk across processes (host side; off unless a host tool turns it on).

Tracing a search in Python and compiling it takes seconds to tens of seconds
on a CPU. JAX's own persistent cache saves the compile but not the tracing;
this store saves both: :func:`compile_ahead` serializes the executable of
``jax.jit(function).lower(*args).compile()`` with
:mod:`jax.experimental.serialize_executable` after its first compile, and the
next process loads it instead of tracing.

A file is keyed by the versions of JAX and jaxlib, the backend, a digest of
gojax's source files, whether the native CPU kernels are in use (an
executable traced on them calls their XLA FFI handlers, which
:func:`gojax._native.register` registers before a file is loaded), the
rules, a description of the function and the argument shapes. A function
whose description is not the same in every process (it names a ``lambda``
or a local function: a closure over data the description does not show) is
compiled but not stored. A file that cannot be read is ignored and replaced.

The store serves one-device processes only (:func:`directory`). Only host
tools turn the store on (:func:`use_directory`, called by
``gojax-gtp``'s compilation cache); while it is off, :func:`compile_ahead`
compiles in memory. Loading an executable runs code: the directory must not
be writable by other users.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import pickle
import re
import secrets
import time
from collections.abc import Callable
from pathlib import Path

import jax
import jaxlib
import numpy as np

from gojax import _native
from gojax._core.types import GoConfig
from gojax._host.atomic import atomic_write_bytes

__all__ = ["Stored", "compile_ahead", "directory", "use_directory"]

log = logging.getLogger("gojax.executables")

_ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")
_UNSTABLE = ("<lambda>", "<locals>")
_state: dict[str, Path | None] = {"directory": None}
_loaded: dict[str, Callable] = {}


def use_directory(path: Path | None) -> None:
    """Stores executables in ``path`` (created if missing) from now on; ``None`` turns the store off."""
    if path is not None:
        path.mkdir(parents=True, exist_ok=True)
    _state["directory"] = path


def directory() -> Path | None:
    """Where executables are stored, or ``None`` while the store is off.

    The store is off in a process with several local devices (a CPU split by
    ``XLA_FLAGS``): an executable loaded there expects its arguments on every
    device. JAX's own compilation cache still serves it.
    """
    root = _state["directory"]
    if root is not None and len(jax.local_devices()) > 1:
        return None
    return root


@functools.cache
def _source_digest() -> str:
    """SHA-256 of gojax's Python sources (paths and contents): a new version means new keys."""
    root = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _describe(what: object) -> str | None:
    """A description of ``what`` that is the same in every process, or ``None`` if there is none."""
    text = _ADDRESS.sub("", repr(what))
    return None if any(mark in text for mark in _UNSTABLE) else text


def _key(config: GoConfig | None, what: object, args: tuple) -> str | None:
    described = _describe(what)
    if described is None:
        return None
    tree, shapes = _signature(args)
    device = jax.devices()[0]
    parts = (
        jax.__version__,
        jaxlib.__version__,
        device.platform,
        device.device_kind,
        _source_digest(),
        f"native {_native.available()} abi {_native.ABI}",
        repr(config),
        described,
        str(tree),
        repr(list(shapes)),
    )
    return hashlib.sha256("\n".join(parts).encode()).hexdigest()[:40]


def _load(path: Path, args: tuple) -> Callable | None:
    """The executable stored in ``path``, run once on ``args`` to prove it loads whole; ``None`` if not."""
    from jax.experimental import serialize_executable

    _native.register()  # an executable traced on the CPU kernels calls their FFI handlers
    try:
        blob, in_tree, out_tree = pickle.loads(path.read_bytes())
        loaded = serialize_executable.deserialize_and_load(blob, in_tree, out_tree)
        jax.block_until_ready(loaded(*args))
        return loaded
    except Exception as error:  # an old, damaged or incomplete file: compile again
        log.warning("cannot load the compiled function %s (%s); compiling it again", path.name, error)
        return None


def _serialized(compiled, args: tuple, last: bool) -> bytes | None:
    """The bytes to store for ``compiled``, or ``None`` if they do not load and run ``args`` whole.

    On XLA:CPU an executable that JAX loaded from its own persistent cache
    serializes without its code ("Function ... not found" when loaded):
    :func:`compile_ahead` compiles under a name of its own, new to JAX's
    cache, and again under a fresh name when this check fails.
    """
    from jax.experimental import serialize_executable

    try:
        parts = serialize_executable.serialize(compiled)
        jax.block_until_ready(serialize_executable.deserialize_and_load(*parts)(*args))
        return pickle.dumps(parts)
    except Exception as error:  # not serializable, or incomplete
        # the first try's failure is expected when JAX's cache held the code; the last one's is news
        (log.info if last else log.debug)(
            "compiled function %s: %s: %s",
            "not stored" if last else "compiled again",
            type(error).__name__,
            error,
        )
        return None


def _write(path: Path, blob: bytes) -> None:
    try:
        atomic_write_bytes(path, blob)
    except OSError as error:
        log.info("compiled function not stored: %s", error)


def compile_ahead(config: GoConfig | None, what: object, function: Callable, args: tuple) -> Callable:
    """``jax.jit(function).lower(*args).compile()``, loaded from the store when it holds it.

    Args:
      config: the rules ``function`` plays (``None``: ``what`` names them).
      what: describes ``function`` (its ``repr``, addresses removed, is part
        of the key: it must name everything ``function`` closes over).
      function: ``function(*args)``, to compile ahead of time.
      args: example arguments (their shapes and dtypes are part of the key).

    Returns:
      The compiled function (a :class:`jax.stages.Compiled`: it takes
      arguments of exactly the example's shapes and dtypes). Loaded once per
      process and key.
    """
    root = directory()
    key = None if root is None else _key(config, what, args)
    if key is not None and key in _loaded:
        return _loaded[key]
    path = None if key is None or root is None else root / f"{key}.pkl"
    if path is not None and path.exists():
        start = time.perf_counter()
        loaded = _load(path, args)
        if loaded is not None:
            log.info("loaded a compiled function from %s in %.2f s", root, time.perf_counter() - start)
            _loaded[str(key)] = loaded
            return loaded
    if path is None:
        return jax.jit(function).lower(*args).compile()
    names = (f"gojax_{key}", f"gojax_{key}_{secrets.token_hex(4)}")
    for name in names:
        compiled = jax.jit(_named(function, name)).lower(*args).compile()
        blob = _serialized(compiled, args, last=name == names[-1])
        if blob is not None:
            _write(path, blob)
            break
    _loaded[str(key)] = compiled
    return compiled


def _named(function: Callable, name: str) -> Callable:
    """``function`` under another name: the name of the module XLA compiles, part of JAX's cache key."""

    def named(*args):
        return function(*args)

    named.__name__ = named.__qualname__ = name
    return named


def _signature(args: tuple) -> tuple:
    """``(treedef, ((shape, dtype), ...))`` of ``args``: what a compiled function is specialised to."""
    leaves, tree = jax.tree.flatten(args)
    return tree, tuple((np.shape(x), str(getattr(x, "dtype", None) or np.asarray(x).dtype)) for x in leaves)


class Stored:
    """``function`` compiled ahead of time once per argument shapes, through :func:`compile_ahead`.

    Called like ``jax.jit(function)``. Each new combination of argument shapes
    and dtypes is loaded from the store (or compiled and stored); the host
    tools use it where a process would otherwise trace the same functions on
    every start.
    """

    def __init__(self, config: GoConfig | None, what: object, function: Callable):
        self.config, self.what, self.function = config, what, function
        self._compiled: dict[tuple, Callable] = {}

    def __call__(self, *args):
        signature = _signature(args)
        compiled = self._compiled.get(signature)
        if compiled is None:
            compiled = compile_ahead(self.config, self.what, self.function, args)
            self._compiled[signature] = compiled
        return compiled(*args)
