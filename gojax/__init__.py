"""gojax: the game of Go in JAX - pure, jittable, vmappable rules.

Every rule function works on one game and takes the static
:class:`GoConfig` first; batch it yourself::

    import functools, jax, gojax
    config = gojax.GoConfig(size=9)
    step = jax.jit(jax.vmap(functools.partial(gojax.step, config)))

Importing gojax does no JAX work.
"""

from gojax._core.rules import (
    board,
    init,
    legal_action_mask,
    reset_if_done,
    resign,
    step,
    step_with_mask,
    to_play,
)
from gojax._core.scoring import area, rewards, score, winner
from gojax._core.types import BLACK, EMPTY, MOVE_CAP_PER_POINT, WHITE, GoConfig, GoState, KoRule
from gojax._host.diagram import from_ascii, from_board, parse_board, render
from gojax._host.invariants import InvariantError, check_invariants
from gojax._host.vertices import COLUMNS, from_gtp, to_gtp
from gojax._version import __version__ as __version__

# Submodules and their main names.
# isort: split
from gojax import env, features, sgf, svg, symmetry
from gojax.env import EnvState, GoEnv, auto_reset, make
from gojax.sgf import GameRecord, SGFError, read_sgf, write_sgf
from gojax.svg import SvgBoard, board_svg

__all__ = [
    "BLACK",
    "COLUMNS",
    "EMPTY",
    "MOVE_CAP_PER_POINT",
    "WHITE",
    "EnvState",
    "GameRecord",
    "GoConfig",
    "GoEnv",
    "GoState",
    "InvariantError",
    "KoRule",
    "SGFError",
    "SvgBoard",
    "area",
    "auto_reset",
    "board",
    "board_svg",
    "check_invariants",
    "env",
    "features",
    "from_ascii",
    "from_board",
    "from_gtp",
    "init",
    "legal_action_mask",
    "make",
    "parse_board",
    "read_sgf",
    "render",
    "reset_if_done",
    "resign",
    "rewards",
    "score",
    "sgf",
    "step",
    "step_with_mask",
    "svg",
    "symmetry",
    "to_gtp",
    "to_play",
    "winner",
    "write_sgf",
]
