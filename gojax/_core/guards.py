"""Checks of the arguments of the rule functions, made while they are traced.

A state built for another board size, ko rule or move cap, or a batch of
states passed without ``jax.vmap``, would otherwise fail deep inside a rule
function with a broadcasting error (or, for :func:`gojax.board`, return a
wrong board); a float action would be truncated to an integer. These checks
raise a clear ``ValueError`` / ``TypeError`` instead.

Shapes and dtypes are static, so the checks are plain Python on them: they
run while a function is traced (once per compilation under ``jax.jit``; on
the per-game shapes under ``jax.vmap``) and add nothing to the computation.

Two states that differ in nothing but values cannot be told apart: a 7x7
state has the shapes of a 6x6 or 8x8 state under the simple ko rule (with a
history, the default move cap ``2 * P`` tells them apart), and a positional
state has the shapes of a situational one.
"""

from __future__ import annotations

import functools
from typing import Any

import jax.numpy as jnp
import numpy as np

from gojax._core import bitboard as bb
from gojax._core import history as _history
from gojax._core.types import MAX_SIZE, MIN_SIZE, GoConfig, GoState

__all__ = ["check_action", "check_board", "check_state", "state_shapes"]

_Shape = tuple[int, ...]
_BOARD_FIELDS = ("stones", "atari", "atari_liberty")
_HISTORY_FIELDS = ("history", "history_head", "history_prev")
_FIX = "build the state with gojax.init(config)"


def state_shapes(config: GoConfig) -> dict[str, _Shape]:
    """The shape of every :class:`GoState` field for one game of ``config`` (see :func:`_state_shapes`)."""
    return _state_shapes(config.static)


@functools.cache
def _state_shapes(config: GoConfig) -> dict[str, _Shape]:
    """The shape of every :class:`GoState` field for one game of ``config``.

    ``stones``/``atari`` ``[2, W]``, ``atari_liberty`` ``[L, W]``,
    ``hash``/``captures`` ``[2]``, ``history`` ``[H, 2]``, ``history_head``
    ``[M]``, ``history_prev`` ``[H]``, every other field ``[]`` - the shapes
    of :func:`gojax.init`.
    """
    words = bb.num_words(config.size)
    length = config.history_length
    shapes: dict[str, _Shape] = {name: () for name in GoState.__dataclass_fields__}
    shapes.update(
        stones=(2, words),
        atari=(2, words),
        atari_liberty=(config.liberty_label_planes, words),
        hash=(2,),
        captures=(2,),
        history=(length, 2),
        history_head=(_history.num_buckets(config),),
        history_prev=(length,),
    )
    return shapes


def _describe(leaf: Any, shape: _Shape) -> str:
    """``uint32[2, 12]``: a leaf's dtype and shape."""
    dtype = getattr(leaf, "dtype", None)
    name = np.dtype(dtype).name if dtype is not None else type(leaf).__name__
    return f"{name}[{', '.join(map(str, shape))}]"


def _default_cap(size: int) -> int:
    """The default move cap of an ``size x size`` board (``max_moves=None``)."""
    return GoConfig(size=size).move_cap


def _sizes_with(shapes: dict[str, _Shape]) -> list[int]:
    """The board sizes whose states have these board (and, if telling, history) shapes."""
    sizes = [
        size
        for size in range(MIN_SIZE, MAX_SIZE + 1)
        if all(state_shapes(GoConfig(size=size))[name] == shapes[name] for name in _BOARD_FIELDS)
    ]
    # A history of 2 * P + 1 positions is the one of the default move cap.
    by_history = [size for size in sizes if shapes["history"][:1] == (_default_cap(size) + 1,)]
    return by_history or sizes


def _boards(sizes: list[int]) -> str:
    names = [f"{size}x{size}" for size in sizes]
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} or {names[-1]}"
    return f"a {listed} board"


def _history_message(config: GoConfig, shapes: dict[str, _Shape], caller: str) -> str:
    have, need = shapes["history"][0] if shapes["history"] else 0, config.history_length
    if not have and need:
        return (
            f"{caller}: state is for the simple ko rule (no position history) but the config's ko_rule "
            f"is {config.ko_rule!r} (a history of {need} positions); {_FIX}"
        )
    if have and not need:
        return (
            f"{caller}: state is for a superko rule (a history of {have} positions) but the config's "
            f"ko_rule is 'simple' (no history); {_FIX}"
        )
    # The default move cap of another board with the same bitboard shapes.
    others = [size for size in _sizes_with(shapes) if size != config.size and have == _default_cap(size) + 1]
    default = f", the default of {_boards(others)}" if others else ""
    return (
        f"{caller}: state keeps a history of {have} positions (move cap {have - 1}{default}) but the "
        f"config is {config.size}x{config.size} with move cap {config.move_cap} ({need} positions); {_FIX}"
    )


def check_state(config: GoConfig, state: GoState, caller: str) -> None:
    """Raises if ``state`` is not one game built for ``config``.

    Args:
      config: the rules.
      state: one game, as the rule function ``caller`` receives it (inside
        ``jax.vmap``: without the batch axis).
      caller: the function's public name for the message, e.g. ``"gojax.step"``.

    Raises:
      TypeError: ``state`` is not a :class:`GoState`.
      ValueError: a field's shape is not the one ``gojax.init(config)`` gives
        it; the message names the board size, ko rule or move cap the state
        was built for, or the batch axes of a state passed without
        ``jax.vmap``.
    """
    if not isinstance(state, GoState):
        got = type(state).__name__
        raise TypeError(f"{caller}: state must be a gojax.GoState (see gojax.init), got {got}")
    expected = state_shapes(config)
    leaves = {name: getattr(state, name) for name in expected}
    shapes = {name: tuple(np.shape(leaf)) for name, leaf in leaves.items()}
    if shapes == expected:
        return
    lead = [shapes[name][: max(len(shapes[name]) - len(want), 0)] for name, want in expected.items()]
    if lead[0] and all(
        axes == lead[0] and shapes[name][len(axes) :] == want
        for axes, (name, want) in zip(lead, expected.items(), strict=True)
    ):
        raise ValueError(
            f"{caller}: state is a batch of games (leading axes {list(lead[0])}, stones "
            f"{_describe(leaves['stones'], shapes['stones'])}) but the rule functions work on one game; "
            f"batch them with jax.vmap, e.g. jax.vmap(functools.partial({caller}, config))"
        )
    size = config.size
    if any(shapes[name] != expected[name] for name in _BOARD_FIELDS):
        stones = _describe(leaves["stones"], shapes["stones"])
        wanted = _describe(np.zeros((), np.uint32), expected["stones"])
        sizes = _sizes_with(shapes)
        built = f"is for {_boards(sizes)}" if sizes else "fits no board size"
        raise ValueError(
            f"{caller}: state {built} (stones {stones}) but the config is {size}x{size} ({wanted}); {_FIX}"
        )
    if any(shapes[name] != expected[name] for name in _HISTORY_FIELDS):
        raise ValueError(_history_message(config, shapes, caller))
    name = next(name for name in expected if shapes[name] != expected[name])
    raise ValueError(
        f"{caller}: state.{name} is {_describe(leaves[name], shapes[name])} but a state of the config has "
        f"shape {list(expected[name])}; {_FIX}"
    )


def check_board(config: GoConfig, state: GoState, caller: str) -> None:
    """:func:`check_state` for a function that reads only the board (a picture, a diagram).

    A state of the config's board size built under another ko rule or move
    cap passes; any other mismatch raises :func:`check_state`'s error. A
    history whose length is the default move cap's of another board with
    the same bitboards (a 7x7 state given an 8x8 config) names that board.

    Raises:
      TypeError, ValueError: as :func:`check_state`.
    """
    try:
        check_state(config, state, caller)
    except ValueError:
        expected = state_shapes(config)
        shapes = {name: tuple(np.shape(getattr(state, name))) for name in expected}
        if any(shapes[name] != want for name, want in expected.items() if name not in _HISTORY_FIELDS):
            raise
        have = shapes["history"][0] if shapes["history"] else 0
        if any(have == 2 * size * size + 1 for size in _sizes_with(shapes) if size != config.size):
            raise


def check_action(action: Any, caller: str) -> None:
    """Raises ``TypeError`` unless ``action`` has an integer dtype.

    Python ints, NumPy integers and integer arrays (``int8`` .. ``int64``,
    ``uint8`` .. ``uint64``, traced or not) pass; a float such as ``3.7``
    (which would be truncated to 3), a bool or anything else raises.
    """
    try:
        dtype = getattr(action, "dtype", None)
        if dtype is None and action is not None and not isinstance(action, str):
            dtype = jnp.result_type(action)  # a Python scalar, or a list
    except TypeError:
        dtype = None
    if dtype is None or not jnp.issubdtype(dtype, jnp.integer):
        got = type(action).__name__ if dtype is None else np.dtype(dtype).name
        raise TypeError(f"{caller}: action must be an integer array or int, got {got}")


def check_mask(config: GoConfig, mask: Any, caller: str) -> None:
    """Raises ``ValueError`` unless ``mask`` is one game's ``bool[A]`` legal mask (shape and dtype only)."""
    shape, dtype = getattr(mask, "shape", None), getattr(mask, "dtype", None)
    expected = (config.num_actions,)
    if shape is None or tuple(shape) != expected or dtype is None or np.dtype(dtype) != np.bool_:
        got = type(mask).__name__ if shape is None else f"{np.dtype(dtype).name}{list(shape)}"
        raise ValueError(
            f"{caller}: mask must be the game's legal mask, bool[{config.num_actions}] "
            f"(legal_action_mask(config, state)), got {got}"
        )
