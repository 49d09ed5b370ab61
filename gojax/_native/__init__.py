"""Native CPU kernels of the rules and the feature planes: a compiled C library, called by XLA and from NumPy.

The rules' ``step`` and legal mask (``rules.c``) and the chain analysis,
move outcomes, ladder reads, Benson's analysis and AlphaGo Zero's planes of
:mod:`gojax.features` (``kernels.c``) are written twice: in XLA (the reference, and the path on
accelerators) and in C, built into ``gojax/_native/_kernels*.so`` when the
package is installed. On the CPU platform the jitted rules and features call
the C kernels as XLA FFI custom calls (``ffi.c``, the handlers :data:`TARGETS`;
``jax.ffi.ffi_call``): XLA runs them directly, one call per batch, the batch
split over XLA's CPU thread pool, with no Python on the way, and a compiled
function that holds them can be stored in JAX's compilation cache or
exported with ``jax.export``. The answers are the same as the XLA code's,
which the tests check position by position.

:func:`available` says whether the library was built and is enabled;
:func:`register` registers its handlers with XLA (the rules and the features
do it when they are first traced; call it yourself before running a deserialized
executable or ``jax.export`` artifact in a process that has traced none).
:func:`alphago_tables`, :func:`alphago_planes`, :func:`katago_tables`,
:func:`benson_tables` and :func:`ladder_reads` run the kernels on host
(NumPy) arrays through ``ctypes``. Set the environment variable
``GOJAX_NATIVE=0`` to use the XLA code on the CPU too, or trace a block
under :func:`disabled`. A library built from another version of
the C sources (an editable install not rebuilt) is not loaded: a warning
says so and the XLA code runs.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import importlib.machinery
import itertools
import os
import threading
import warnings
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

__all__ = [
    "ALPHAGO_TABLES",
    "BENSON_MARKS",
    "KATAGO_TABLES",
    "TARGETS",
    "alphago_planes",
    "alphago_tables",
    "available",
    "benson_tables",
    "disabled",
    "enabled",
    "katago_tables",
    "ladder_reads",
    "library_path",
    "register",
]

# The rows of alphago_tables' and katago_tables' results.
ALPHAGO_TABLES = (
    "liberties", "capture_size", "self_atari_size", "liberties_after", "ladder_capture", "ladder_escape",
    "mover_eyes",
)  # fmt: skip
KATAGO_TABLES = ("ladderable", "ladder_moves", "liberties", "not_suicide")
# The marks of benson_tables, per colour (as gojax.features._benson._Marks).
BENSON_MARKS = ("alive", "small", "safe_big", "unsafe_big")
MAX_SIZE = 25  # the kernels' largest board: gojax.GoConfig's too
ABI = 6  # kernels.h's GOJAX_KERNELS_ABI: the functions and FFI targets this package uses
# The XLA FFI handlers of ffi.c, registered under their function's name for the CPU platform.
TARGETS = (
    "gojax_ffi_alphago_planes",
    "gojax_ffi_katago_tables",
    "gojax_ffi_benson_tables",
    "gojax_ffi_history_planes",
    "gojax_ffi_ladder_reads",
    "gojax_ffi_step",
    "gojax_ffi_legal_mask",
    "gojax_ffi_playouts",
)

_U32 = np.ctypeslib.ndpointer(np.uint32, flags="C_CONTIGUOUS")
_I32 = np.ctypeslib.ndpointer(np.int32, flags="C_CONTIGUOUS")
_U8 = np.ctypeslib.ndpointer(np.uint8, flags="C_CONTIGUOUS")
_I16 = np.ctypeslib.ndpointer(np.int16, flags="C_CONTIGUOUS")


def library_path() -> Path | None:
    """The built library (``_kernels`` with this Python's extension suffix), or None."""
    here = Path(__file__).resolve().parent
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = here / f"_kernels{suffix}"
        if path.exists():
            return path
    return None


@functools.cache
def _library() -> ctypes.CDLL | None:
    path = library_path()
    if path is None:
        return None
    lib = ctypes.CDLL(str(path))
    built = lib.gojax_kernels_abi() if hasattr(lib, "gojax_kernels_abi") else None
    if built != ABI:
        warnings.warn(
            f"gojax's native kernels at {path} were built from another version of their C sources "
            f"(ABI {built}, this gojax needs {ABI}); rebuild them by reinstalling gojax "
            "(pip install -e . in a clone). The rules and feature planes run their XLA code meanwhile.",
            RuntimeWarning,
            stacklevel=2,
        )
        return None
    i64, i32 = ctypes.c_int64, ctypes.c_int32
    lib.gojax_alphago_tables.argtypes = [i64, i64, i32, i32, _U32, _I32, _I32, _I16]
    lib.gojax_alphago_tables.restype = None
    lib.gojax_alphago_planes.argtypes = [i64, i64, i32, i32, _U32, _I32, _I32, _U32, _U8, i32, _U8]
    lib.gojax_alphago_planes.restype = None
    lib.gojax_katago_tables.argtypes = [i64, i64, i32, i32, _U32, _I32, _I32, _I32, _I16]
    lib.gojax_katago_tables.restype = None
    lib.gojax_benson_tables.argtypes = [i64, i64, i32, i32, _U32, i32, _I16]
    lib.gojax_benson_tables.restype = None
    lib.gojax_ladder_reads.argtypes = [i64, i32, i32, _U32, _I32, _I32, _I32, _I32, _U8, _I32, _I32, _U8]
    lib.gojax_ladder_reads.restype = None
    lib.gojax_zobrist_tables.argtypes = [i32, _U32, _U32]
    lib.gojax_zobrist_tables.restype = None
    return lib


def enabled() -> bool:
    """Whether ``GOJAX_NATIVE`` (default ``1``) asks for the native kernels."""
    value = os.environ.get("GOJAX_NATIVE", "1")
    if value not in ("0", "1"):
        raise ValueError(f"GOJAX_NATIVE must be '0' or '1', got {value!r}")
    return value == "1"


_off = threading.local()


@contextlib.contextmanager
def disabled() -> Iterator[None]:
    """Inside the block (on this thread), :func:`available` is False: functions traced there
    run the XLA code on the CPU too. For a computation that must hold none of gojax's custom
    calls, such as one exported (``jax.export``) to run where gojax is not installed."""
    before = getattr(_off, "depth", 0)
    _off.depth = before + 1
    try:
        yield
    finally:
        _off.depth = before


_registering = threading.Lock()
_registered: list[bool] = []


def register() -> bool:
    """Registers the FFI handlers (:data:`TARGETS`) with XLA's CPU platform, once per process.

    Returns whether they are registered (False when the library is not built or not
    loaded). Independent of ``GOJAX_NATIVE`` and :func:`disabled`, which decide only what
    the features trace. Called by the features on their first trace of a native call, and by
    gojax's store of compiled executables before it loads one.
    """
    lib = _library()
    if lib is None:
        return False
    with _registering:
        if not _registered:
            import jax  # the first JAX work of this module: registering, never importing

            for name in TARGETS:
                jax.ffi.register_ffi_target(name, jax.ffi.pycapsule(getattr(lib, name)), platform="cpu")
            _registered.append(True)
    return True


def available() -> bool:
    """Whether the features run the native kernels on the CPU: built, enabled, and not
    :func:`disabled`."""
    return enabled() and not getattr(_off, "depth", 0) and _library() is not None


@functools.cache
def _pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=_threads(), thread_name_prefix="gojax-native")


def _threads() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


def _split(n: int) -> list[tuple[int, int]]:
    parts = min(_threads(), max(1, n // 8))
    bounds = np.linspace(0, n, parts + 1).astype(np.int64)
    return [(int(a), int(b)) for a, b in itertools.pairwise(bounds) if b > a]


def _run(calls) -> None:
    """Runs the thunks on the pool (ctypes releases the GIL) and waits for all."""
    if len(calls) == 1:
        calls[0]()
        return
    for future in [_pool().submit(call) for call in calls]:
        future.result()


def _library_or_raise() -> ctypes.CDLL:
    lib = _library()
    if lib is None:
        raise RuntimeError("gojax's native kernels are not built (reinstall gojax with a C compiler)")
    return lib


def _check_size(size: int) -> None:
    if not 2 <= size <= MAX_SIZE:
        raise ValueError(f"board size must be within 2..{MAX_SIZE} for the native kernels, got {size}")


def _tables(kernel: str, rows: int, size: int, stones, turn, ko_point, *extra) -> np.ndarray:
    _check_size(size)
    lib = _library_or_raise()
    stones = np.ascontiguousarray(stones, np.uint32)
    turn = np.ascontiguousarray(turn, np.int32)
    ko_point = np.ascontiguousarray(ko_point, np.int32)
    extra = tuple(np.ascontiguousarray(x, np.int32) for x in extra)
    games, words = stones.shape[0], stones.shape[-1]
    out = np.empty((games, rows, size * size), np.int16)
    function = getattr(lib, kernel)
    _run(
        [
            functools.partial(function, a, b, size, words, stones, turn, ko_point, *extra, out)
            for a, b in _split(games)
        ]
    )
    return out


def alphago_tables(size: int, stones, turn, ko_point) -> np.ndarray:
    """``int16[B, 7, P]``: the rows of :data:`ALPHAGO_TABLES` for ``B`` boards.

    ``stones``: ``uint32[B, 2, W]``; ``turn``, ``ko_point``: ``int32[B]``
    (the colour index to move, the point it may not play or -1). Per point:
    the liberties of its stone's chain; for a mover's stone at an empty
    point, the stones it captures, its chain's size if that is left in
    atari, its liberties; whether it captures an opponent chain by ladder,
    whether it saves a mover's chain in atari from one (not masked by
    legality); whether it is the mover's eye (:func:`gojax.features.mover_eyes`).
    """
    return _tables("gojax_alphago_tables", len(ALPHAGO_TABLES), size, stones, turn, ko_point)


def alphago_planes(size: int, stones, turn, ko_point, standing, legal, channels: int) -> np.ndarray:
    """``bool[B, P, channels]``: AlphaGo's planes of ``B`` boards, channels last in
    ``gojax.features.ALPHAGO_CHANNELS``' order (``channels`` 48, or 49 with the colour to move).

    ``stones``, ``turn``, ``ko_point`` as :func:`alphago_tables`; ``standing``:
    ``uint32[B, 8, W]``, entry ``k`` the stones that stood in their colour on
    each of the last ``k + 1`` boards (the turns-since planes); ``legal``:
    ``bool[B, P]``, the legal moves, which mask the move planes.
    """
    _check_size(size)
    if channels not in (48, 49):
        raise ValueError(f"channels must be 48 or 49, got {channels}")
    lib = _library_or_raise()
    stones = np.ascontiguousarray(stones, np.uint32)
    turn = np.ascontiguousarray(turn, np.int32)
    ko_point = np.ascontiguousarray(ko_point, np.int32)
    standing = np.ascontiguousarray(standing, np.uint32)
    legal = np.ascontiguousarray(legal, np.uint8)
    games, words = stones.shape[0], stones.shape[-1]
    if standing.shape != (games, 8, words) or legal.shape != (games, size * size):
        raise ValueError(
            f"standing must have shape {(games, 8, words)} and legal {(games, size * size)}, "
            f"got {standing.shape} and {legal.shape}"
        )
    out = np.empty((games, size * size, channels), np.uint8)
    inputs = (stones, turn, ko_point, standing, legal, channels, out)
    _run([functools.partial(lib.gojax_alphago_planes, a, b, size, words, *inputs) for a, b in _split(games)])
    return out.view(np.bool_)


def katago_tables(size: int, stones, turn, ko_point, ladder_moves=None) -> np.ndarray:
    """``int16[B, 4, P]``: the rows of :data:`KATAGO_TABLES` for ``B`` boards (arguments as
    :func:`alphago_tables`). Per point: its stone's chain is ladderable (KataGo's
    ``iterLadders``); the mover's atari there starts a working ladder (not masked by
    legality); the liberties of its stone's chain; a mover's stone there would have a
    liberty after its captures.

    ``ladder_moves``: ``bool[B]`` (default all True), whether a board's ladder moves
    are wanted; where not, that row is 0 and fewer ladders are read (a history
    board's planes need only its ladderable stones).
    """
    stones = np.asarray(stones)
    wanted = np.ones(stones.shape[0], np.int32) if ladder_moves is None else np.asarray(ladder_moves)
    if wanted.shape != (stones.shape[0],):
        raise ValueError(f"ladder_moves must have shape ({stones.shape[0]},), got {wanted.shape}")
    return _tables("gojax_katago_tables", len(KATAGO_TABLES), size, stones, turn, ko_point, wanted)


def benson_tables(size: int, stones, suicide: bool) -> np.ndarray:
    """``int16[B, 2, 4, P]``: Benson's marks (:data:`BENSON_MARKS`, 0 or 1) of black, then
    white, for ``B`` boards of ``stones`` ``uint32[B, 2, W]``; ``suicide`` is the rule
    (which points a vital region must touch), as :mod:`gojax.features._benson`."""
    _check_size(size)
    lib = _library_or_raise()
    stones = np.ascontiguousarray(stones, np.uint32)
    games, words = stones.shape[0], stones.shape[-1]
    out = np.empty((games, 2, len(BENSON_MARKS), size * size), np.int16)
    rule = int(bool(suicide))
    _run(
        [
            functools.partial(lib.gojax_benson_tables, a, b, size, words, stones, rule, out)
            for a, b in _split(games)
        ]
    )
    return out


def ladder_reads(size: int, stones, turn, ko_point, games, modes, mover_attacks, moves, prey) -> np.ndarray:
    """``bool[R]``: whether each of ``R`` ladder reads captures its runner.

    ``stones``: ``uint32[G, 2, W]``; ``turn``, ``ko_point``: ``int32[G]``;
    per read (``[R]`` each): ``games`` its game, ``modes`` its kind (0
    capture, 1 extend, 2 defend, as ``gojax.features.ladders._read.MODES``),
    ``mover_attacks`` whether the side to move attacks, ``moves`` the
    attacker's first atari (capture reads), ``prey`` a stone of the runner.
    """
    _check_size(size)
    lib = _library_or_raise()
    stones = np.ascontiguousarray(stones, np.uint32)
    turn = np.ascontiguousarray(turn, np.int32)
    ko_point = np.ascontiguousarray(ko_point, np.int32)
    columns = [np.ascontiguousarray(x, np.int32) for x in (games, modes)]
    attacks = np.ascontiguousarray(mover_attacks, np.uint8)
    moves, prey = (np.ascontiguousarray(x, np.int32) for x in (moves, prey))
    words = stones.shape[-1]
    out = np.zeros(prey.shape[0], np.uint8)

    def call(a, b):
        lib.gojax_ladder_reads(
            b - a, size, words, stones, turn, ko_point, *(x[a:b] for x in columns),
            attacks[a:b], moves[a:b], prey[a:b], out[a:b],
        )  # fmt: skip

    _run([functools.partial(call, a, b) for a, b in _split(prey.shape[0])])
    return out.astype(bool)
