"""Types shared across gojax: the static rules config and the game-state pytree.

Shape conventions used in every docstring of the package:

* ``N`` - board side (``config.size``), 2..25.
* ``P = N * N`` - number of points; point ``row * N + col`` with row 0 at the
  **top** (SGF order).
* ``A = P + 1`` - number of actions; action ``P`` is pass.
* ``W = ceil(P / 32)`` - ``uint32`` words of a bitboard (see ``GoState``).
* ``H = config.move_cap + 1`` - length of the position-hash history (0 under
  the simple ko rule, which needs no history).
* ``B`` - a batch dimension added by the user's ``jax.vmap``.

Colours: inside the state a colour is an *index* (0 black, 1 white); at the
public API a colour is a *stone value* (1 black, 2 white), as in
:func:`gojax.board`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import Any, Literal, TypeVar

import jax
import jax.numpy as jnp

from gojax._core import checks

__all__ = ["BLACK", "EMPTY", "MOVE_CAP_PER_POINT", "WHITE", "GoConfig", "GoState", "KoRule"]

KoRule = Literal["simple", "positional", "situational"]

EMPTY = 0
BLACK = 1
WHITE = 2

MIN_SIZE = 2
MAX_SIZE = 25  # GTP's range.
MOVE_CAP_PER_POINT = 2
"""The default move cap is ``MOVE_CAP_PER_POINT * N * N`` moves, passes included (pgx's ``2 * N * N``).

:attr:`GoConfig.move_cap` with ``max_moves=None``; every tool of gojax
(``gojax-gtp``, ``gojax-match``, the environment, training) uses it unless
told otherwise.
"""
_KO_RULES = ("simple", "positional", "situational")

_T = TypeVar("_T")


def _field(check: Callable[..., _T], value: object, name: str, **bounds: Any) -> _T:
    """``check(value, name, **bounds)``, a wrong type too raising ``ValueError`` (as every bad field)."""
    try:
        return check(value, name, **bounds)
    except TypeError as error:
        raise ValueError(str(error)) from None


@dataclasses.dataclass(frozen=True)
class GoConfig:
    """Static rules of a game: everything that fixes shapes and branches.

    A ``GoConfig`` is frozen and hashable, so it can be closed over with
    ``functools.partial`` or passed as a static argument to ``jax.jit``;
    ``step`` traces once per distinct config.

    **Komi as data.** Only scoring reads ``komi``. Inside a jitted function
    it may be a ``float32[]`` array - an argument of that function - so one
    compiled function serves every komi::

        @jax.jit
        def score(state, komi):
            return gojax.score(config.with_komi(komi), state)

    Such a config cannot be hashed (it is never a static argument).

    Attributes:
      size: board side ``N``, 2..25.
      komi: points given to white; a whole number allows draws. A JAX
        scalar inside a jitted function (see above).
      ko_rule: ``"simple"`` (only the immediate ko recapture is banned),
        ``"positional"`` (no move may recreate any earlier board position -
        the computer-Go standard) or ``"situational"`` (no move may recreate
        an earlier board position with the same player to move).
      suicide: whether a move that leaves its own chain without liberties is
        legal (it then removes that chain), as in Tromp-Taylor and New Zealand
        rules. Default ``False``.
      max_moves: the move cap: after this many moves (passes included) the game
        ends as *truncated*. ``None`` means the default cap ``2 * N * N``
        (:data:`MOVE_CAP_PER_POINT` moves a point).

    Python or NumPy ints and numbers are taken and stored as Python ``int`` /
    ``float``, so ``GoConfig(size=np.int64(9)) == GoConfig(size=9)``.

    Raises:
      ValueError: naming the field and the value, for a bad field (a value of
        the wrong type too, such as ``size=9.0`` or ``size=True``).
    """

    size: int = 19
    komi: float = 7.5
    ko_rule: KoRule = "positional"
    suicide: bool = False
    max_moves: int | None = None

    def __post_init__(self) -> None:
        size = _field(checks.integer, self.size, "GoConfig.size", least=MIN_SIZE, most=MAX_SIZE)
        object.__setattr__(self, "size", size)
        if isinstance(self.komi, jax.Array):  # komi as data (see the class docstring)
            if self.komi.shape != () or not jnp.issubdtype(self.komi.dtype, jnp.floating):
                raise ValueError(f"GoConfig.komi as an array must be a float scalar, got {self.komi!r}")
        else:
            object.__setattr__(self, "komi", _field(checks.number, self.komi, "GoConfig.komi"))
        if self.ko_rule not in _KO_RULES:
            raise ValueError(f"GoConfig.ko_rule must be one of {_KO_RULES}, got {self.ko_rule!r}")
        if not isinstance(self.suicide, bool):
            raise ValueError(f"GoConfig.suicide must be a bool, got {self.suicide!r}")
        if self.max_moves is not None:
            max_moves = _field(checks.integer, self.max_moves, "GoConfig.max_moves", least=1, most=32767)
            object.__setattr__(self, "max_moves", max_moves)

    def with_komi(self, komi: float | jax.Array) -> GoConfig:
        """This config with another komi: a number, or inside a jitted function a ``float32[]`` array."""
        return dataclasses.replace(self, komi=komi)  # type: ignore[arg-type]  # an array: komi as data

    @property
    def static(self) -> GoConfig:
        """This config with a komi that is data (an array) replaced by 0.0: hashable, for cache keys."""
        return dataclasses.replace(self, komi=0.0) if isinstance(self.komi, jax.Array) else self

    @property
    def num_points(self) -> int:
        """``P = N * N``."""
        return self.size * self.size

    @property
    def num_actions(self) -> int:
        """``A = P + 1`` (the last action is pass)."""
        return self.num_points + 1

    @property
    def pass_action(self) -> int:
        """The pass action, ``P``."""
        return self.num_points

    @property
    def move_cap(self) -> int:
        """The effective move cap: ``max_moves``, or ``MOVE_CAP_PER_POINT * P`` (``2 * P``) for ``None``."""
        return MOVE_CAP_PER_POINT * self.num_points if self.max_moves is None else self.max_moves

    @property
    def liberty_label_planes(self) -> int:
        """``L``: planes of :attr:`GoState.atari_liberty`: ``ceil(log2 P)``, the bits of any point index."""
        return max(1, (self.num_points - 1).bit_length())

    @property
    def history_length(self) -> int:
        """``H``: hashes stored for superko (0 under the simple ko rule)."""
        return 0 if self.ko_rule == "simple" else self.move_cap + 1


STATE_DTYPES = {
    "stones": jnp.uint32,
    "atari": jnp.uint32,
    "atari_liberty": jnp.uint32,
    "turn": jnp.int8,
    "hash": jnp.uint32,
    "history": jnp.uint32,
    "history_head": jnp.int16,
    "history_prev": jnp.int16,
    "move_number": jnp.int32,
    "passes": jnp.int8,
    "ko_point": jnp.int16,
    "captures": jnp.int16,
    "last_move": jnp.int16,
    "terminated": jnp.bool_,
    "truncated": jnp.bool_,
    "loser": jnp.int8,
    "illegal_move": jnp.bool_,
}
"""The dtype of each field of :class:`GoState`, in the order of its fields."""


@jax.tree_util.register_dataclass
@dataclasses.dataclass(frozen=True)
class GoState:
    """One game of Go (add a leading ``B`` to every field under ``jax.vmap``).

    The board is bit-packed: the ``P`` points of a colour are one bit string
    of ``W = ceil(P / 32)`` words, point ``p = row * N + col`` being bit
    ``p % 32`` of word ``p // 32``; ``stones[c]`` has the bits of the points
    holding a stone of colour index ``c`` (0 black, 1 white). Use
    :func:`gojax.board` for an ``int8[N, N]`` view.

    Attributes:
      stones: ``uint32[2, W]`` bitboards, black then white.
      atari: ``uint32[2, W]`` the stones of each colour whose chain has exactly
        one liberty, kept up to date incrementally by ``step`` (the legal mask
        reads suicides and captures off it).
      atari_liberty: ``uint32[L, W]`` the liberty of every chain in
        ``atari``, bit-sliced: plane ``b`` holds the stones (of either
        colour) in atari whose chain's single liberty has a point index with
        bit ``b`` set (``L = config.liberty_label_planes``; a stone's colour
        says whose chain it is). ``step`` and the legal mask read which chains
        a move captures off it.
      turn: ``int8[]`` colour index to move (0 black, 1 white).
      hash: ``uint32[2]`` 64-bit Zobrist hash of the stones (two 32-bit words).
      history: ``uint32[H, 2]`` hash of the position after each move
        (``history[0]`` is the start position); entries past ``move_number``
        are zero. Under the situational rule each entry also encodes the
        player to move.
      history_head: ``int16[M]`` newest history entry per bucket (stone count
        and white stones, see ``gojax._core.history``), -1 if none; ``M = 0``
        under simple ko.
      history_prev: ``int16[H]`` next older entry in the same bucket, or -1.
      move_number: ``int32[]`` moves played, passes included.
      passes: ``int8[]`` consecutive passes just played.
      ko_point: ``int16[]`` point the player to move may not take back under
        the simple ko rule, or -1.
      captures: ``int16[2]`` stones removed from the board by black, by white
        (the other side's stones they captured, plus stones the *other* side
        lost to its own suicide).
      last_move: ``int16[]`` last action played (``P`` for pass) or -1.
      terminated: ``bool[]`` game over by two passes, resignation or an
        illegal move.
      truncated: ``bool[]`` game stopped by the move cap.
      loser: ``int8[]`` stone value (1 black, 2 white) of a player who resigned
        or played an illegal move, else 0.
      illegal_move: ``bool[]`` the game ended because of an illegal action.
    """

    stones: jax.Array
    atari: jax.Array
    atari_liberty: jax.Array
    turn: jax.Array
    hash: jax.Array
    history: jax.Array
    history_head: jax.Array
    history_prev: jax.Array
    move_number: jax.Array
    passes: jax.Array
    ko_point: jax.Array
    captures: jax.Array
    last_move: jax.Array
    terminated: jax.Array
    truncated: jax.Array
    loser: jax.Array
    illegal_move: jax.Array

    def replace(self, **changes: Any) -> GoState:
        """Returns a copy with the given fields replaced."""
        return dataclasses.replace(self, **changes)

    def canonical(self) -> GoState:
        """This state with every field in its own dtype (:func:`gojax.init`'s): a field set to
        another (a Python int put into ``turn``) is cast. ``step`` and the legal mask read states
        through it."""
        return GoState(
            **{name: jnp.asarray(getattr(self, name), dtype) for name, dtype in STATE_DTYPES.items()}
        )

    @property
    def done(self) -> jax.Array:
        """``bool[]``: terminated or truncated."""
        return jnp.logical_or(self.terminated, self.truncated)
