"""The host-side game of GTP: a stack of ``GoState`` s with undo, colours in any order, jitted rules.

GTP lets a controller do what gojax's alternating game does not:

* **the same colour twice** (``play b D4`` then ``play b Q16``, as when
  placing handicap stones): :class:`Game` inserts a pass for the other colour
  first, so the game stays a valid gojax game (positional superko history,
  SGF export) - a pass changes no position;
* **moves after two passes** (a controller that disagrees about the end):
  a game terminated by two passes is *reopened* (``terminated`` cleared, the
  position and its history kept) before the next move;
* **undo**: every move pushes the new state; undo pops it.

The rules functions (``step``, ``legal_action_mask``, ``area``) are jitted
once per rules config without komi (``step`` and the mask do not read it) and
cached for the process, so a ``komi`` command compiles nothing. Komi enters
only the score, computed on the host from the area.

The engine keeps its game in a :class:`Game`, and so does the referee of
games between engines (:func:`gojax.arena.referee_game`).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core.types import BLACK, EMPTY, WHITE, GoConfig, GoState
from gojax._host import compiled
from gojax._host.diagram import from_board
from gojax._host.grid import board_of
from gojax._host.illegal import why_illegal
from gojax._host.results import result_string
from gojax._host.vertices import to_gtp

__all__ = ["Game", "GameOver", "IllegalMove"]

_NAME = {BLACK: "black", WHITE: "white"}


class IllegalMove(ValueError):
    """A move the rules refuse; ``reason`` says why (occupied, suicide, ko, superko)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


class GameOver(ValueError):
    """A move asked for in a game that cannot go on (a resignation, a forfeit, the move cap)."""


class Game:
    """One game on the host: ``config``, the current ``state``, and the moves that led there.

    Attributes:
      config: the rules (komi included; changing it does not touch the states).
      states: ``[start, after move 1, ...]``, the last is the current state.
      setup: ``int8[N, N]`` stones of a given start position (``None`` for the empty board).
      first_player: 1 or 2, who moved first.
      handicap: the number of handicap stones in ``setup`` (0: none; SGF ``HA``).
      moves: ``[(colour, action), ...]`` for every state after the first
        (colour 1 black, 2 white; ``P`` is a pass), inserted passes included;
        a resignation or forfeit is ``(colour, None)``.
    """

    def __init__(self, config: GoConfig, start: GoState | None = None):
        self.config = config
        self.states: list[GoState] = [compiled.rules(config).init() if start is None else start]
        self.setup = None if start is None else board_of(config, start)
        self.first_player = 1 if start is None else int(start.turn) + 1
        self.handicap = 0
        self.moves: list[tuple[int, int | None]] = []
        self._marks: list[int] = [1]  # len(states) after each GTP move, for undo

    @classmethod
    def from_record(cls, record, config: GoConfig, limit: int | None = None) -> Game:
        """The game of an SGF :class:`~gojax.sgf.GameRecord` under ``config``, up to move ``limit``.

        The setup stones and first player come first, then the moves ``1 ..
        limit - 1`` (GTP's ``loadsgf``: up to, not including, move ``limit``;
        ``None``: all), played one by one, so every one can be undone.

        Raises:
          ValueError: bad setup stones, or an illegal move (naming its number).
        """
        start = None
        if np.any(record.setup != EMPTY) or record.first_player != BLACK:
            try:
                start = from_board(config, record.setup, to_play=record.first_player)
            except ValueError as error:
                raise ValueError(f"setup stones: {error}") from None
        game = cls(config, start)
        game.handicap = record.handicap or 0
        moves = record.moves if limit is None else record.moves[: max(0, limit - 1)]
        for number, (colour, action) in enumerate(moves, start=1):
            try:
                game.play(colour, action)
            except (IllegalMove, GameOver) as error:
                raise ValueError(f"move {number} is illegal: {error}") from None
        return game

    # -- reading -----------------------------------------------------------------------------------

    @property
    def state(self) -> GoState:
        """The current :class:`GoState`."""
        return self.states[-1]

    @property
    def to_play(self) -> int:
        """1 (black) or 2 (white): the colour to move."""
        return int(self.state.turn) + 1

    def board(self) -> np.ndarray:
        """``int8[N, N]`` current board."""
        return board_of(self.config, self.state)

    def legal_mask(self, state: GoState | None = None) -> np.ndarray:
        """``bool[A]`` legal actions of the player to move in ``state`` (default: the current state)."""
        return np.asarray(compiled.rules(self.config).legal(self.state if state is None else state))

    def legal_for(self, colour: int) -> np.ndarray:
        """``bool[A]`` legal actions for ``colour`` now (as if it were its turn)."""
        return self.legal_mask(self._turn_for(self.state, colour))

    def area(self) -> tuple[int, int]:
        """Tromp-Taylor area of black and white (gojax's scoring)."""
        black, white = np.asarray(compiled.rules(self.config).area(self.state)).tolist()
        return int(black), int(white)

    def warm_up(self) -> None:
        """Compiles the rules functions for this config (``step``, the legal mask, the area) now."""
        rules = compiled.rules(self.config)
        state = self.state
        jax.block_until_ready(
            (rules.step(state, jnp.int32(self.config.pass_action)), rules.legal(state), rules.area(state))
        )

    def score(self) -> float:
        """Tromp-Taylor area score ``black - white - komi`` of the current board."""
        return compiled.score(self.config, self.state)

    def result(self) -> str:
        """``B+R``/``W+R`` (resignation), ``B+F``/``W+F`` (forfeit), else the area score (``B+3.5``)."""
        result = result_string(self.config, self.state, adjudicate=True)
        assert result is not None  # adjudicated
        return result

    @property
    def over(self) -> bool:
        """Whether the game is over (two passes, resignation, forfeit or the move cap)."""
        return bool(self.state.done)

    @property
    def number_of_moves(self) -> int:
        """GTP moves played (inserted passes not counted)."""
        return len(self._marks) - 1

    # -- changing ----------------------------------------------------------------------------------

    def with_config(self, config: GoConfig) -> None:
        """Changes the komi (the states do not depend on it); other fields need a new game."""
        if not compiled.same_rules(config, self.config):
            raise ValueError("only the komi can change during a game")
        self.config = config

    def _reopen(self, state: GoState) -> GoState:
        """A game ended by two passes made playable again (a controller may play on)."""
        if not bool(state.done):
            return state
        if bool(state.truncated):
            raise GameOver(f"the move cap of {self.config.move_cap} moves is reached")
        if int(state.loser):
            who = _NAME[int(state.loser)]
            how = "made an illegal move" if bool(state.illegal_move) else "resigned"
            raise GameOver(f"the game is over: {who} {how}")
        return state.replace(terminated=jnp.bool_(False))

    def _turn_for(self, state: GoState, colour: int) -> GoState:
        """``state`` with ``colour`` to move (a pass inserted for the other colour if needed)."""
        if int(state.turn) + 1 == colour:
            return state
        state = self._reopen(state)
        return compiled.rules(self.config).step(state, jnp.int32(self.config.pass_action))

    def play(self, colour: int, action: int) -> GoState:
        """Plays ``action`` for ``colour``; a pass for the other colour goes first if it is not its turn.

        Raises:
          IllegalMove: an occupied point, suicide, a ko or superko repeat.
          GameOver: after a resignation or forfeit, or at the move cap.
        """
        if colour not in (BLACK, WHITE):
            raise ValueError(f"colour must be 1 (black) or 2 (white), got {colour!r}")
        config = self.config
        if not 0 <= action <= config.pass_action:
            raise ValueError(f"action {action} is not in [0, {config.pass_action}]")
        rules = compiled.rules(config)
        added = []
        state = self._reopen(self.state)
        if int(state.turn) + 1 != colour:
            state = rules.step(state, jnp.int32(config.pass_action))
            added.append((state, (BLACK + WHITE - colour, config.pass_action)))
            state = self._reopen(state)
        after = rules.step(state, jnp.int32(action))
        if bool(after.illegal_move):
            grid = board_of(config, state)
            reason = why_illegal(config, grid, int(state.ko_point), colour, action)
            raise IllegalMove(f"{to_gtp(config, action)}: {reason}")
        added.append((after, (colour, action)))
        for new_state, move in added:
            self.states.append(new_state)
            self.moves.append(move)
        self._marks.append(len(self.states))
        return after

    def resign(self, colour: int) -> None:
        """``colour`` resigns (the game is then over with ``colour`` as loser)."""
        state = self._reopen(self.state)
        resigned = state.replace(terminated=jnp.bool_(True), loser=jnp.int8(colour))
        self.states.append(resigned)
        self.moves.append((colour, None))
        self._marks.append(len(self.states))

    def forfeit(self, colour: int) -> None:
        """``colour`` loses by an illegal move (as :func:`gojax.step` ends a game on one)."""
        state = self._reopen(self.state)
        lost = state.replace(terminated=jnp.bool_(True), loser=jnp.int8(colour), illegal_move=jnp.bool_(True))
        self.states.append(lost)
        self.moves.append((colour, None))
        self._marks.append(len(self.states))

    def undo(self) -> None:
        """Takes back the last GTP move (with a pass inserted before it).

        Raises:
          ValueError: if no move was played.
        """
        if len(self._marks) < 2:
            raise ValueError("no move to undo")
        self._marks.pop()
        keep = self._marks[-1]
        del self.states[keep:]
        del self.moves[keep - 1 :]

    def played(self) -> list[tuple[int, int]]:
        """``[(colour, action), ...]``: the moves on the board (no resignation or forfeit), for SGF."""
        return [(colour, action) for colour, action in self.moves if action is not None]

    def empty_points(self) -> np.ndarray:
        """``int[K]`` empty points of the current board."""
        return np.flatnonzero(self.board().reshape(-1) == EMPTY)
