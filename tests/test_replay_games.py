"""Replays 250 real game records (``shared/data/sgf``) through gojax.

Each game's main line is read with sgfmill and replayed twice:

* on ``sgfmill.boards.Board``, the independent reference: it gives the board,
  the stones removed by each colour and the simple-ko point after every move,
  and (by remembering every position) the moves that recreate an earlier
  whole-board position;
* through gojax, all games of one board size at once: ``jax.vmap`` over the
  games and ``jax.lax.scan`` over their moves (padded), with
  ``legal_action_mask(state)[action]`` taken before every ``step``.

Under the default rules (positional superko) every move must be legal and every
board, capture count and ko point must agree with the reference after every
move, except in the two games whose manifest note says that a move recreates an
earlier position: there exactly that move must be refused (and stepping it must
forfeit the game), while under ``ko_rule="simple"`` the whole game must replay.
The capture counts in the manifest notes (which the data's README says were
checked against GNU Go 3.8) are checked against both replays, and the final
states go through ``gojax.check_invariants`` (with the stones each side placed).
"""

from __future__ import annotations

import dataclasses
import functools
import json
import re

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from conftest import SGF_DATA, sgfmill_grid

import gojax

sgf = pytest.importorskip("sgfmill.sgf")
sgf_boards = pytest.importorskip("sgfmill.boards")

DATA = SGF_DATA

pytestmark = pytest.mark.skipif(
    not (DATA / "manifest.json").is_file(), reason=f"game records not found at {DATA}"
)

SIZES = (9, 13, 19)
# The two games the data's README names as repeating an earlier whole-board position.
REPEATING_GAMES = {"tactic_gnugo_pending_ko6.sgf", "tactic_gnugo_gifu2006_gnugo-gorimu.sgf"}
_CAPTURES_NOTE = re.compile(r"captures: (\d+) black / (\d+) white stones")
_REPEAT_NOTE = re.compile(r"WARNING: move (\d+) recreates an earlier whole-board position")
_STONE = {None: gojax.EMPTY, "b": gojax.BLACK, "w": gojax.WHITE}


@dataclasses.dataclass
class Game:
    """One game record and its reference replay on ``sgfmill.boards.Board``."""

    file: str
    size: int
    setup: np.ndarray  # int8[N, N] handicap stones, row 0 at the top
    has_setup: bool
    first: int  # stone value of the first mover
    actions: np.ndarray  # int32[T] gojax actions
    colours: np.ndarray  # int8[T] stone value of each mover
    boards: np.ndarray  # int8[T, N, N] board after each move
    captures: np.ndarray  # int32[T, 2] stones removed by black, by white, after each move
    ko_points: np.ndarray  # int32[T] simple-ko point after each move (gojax index) or -1
    placed: np.ndarray  # int64[2] stones black / white put on the board (setup included)
    repeats: list[int]  # 0-based indices of stone moves that recreate an earlier position
    note_captured: tuple[int, int] | None  # manifest: stones OF black, OF white captured
    note_repeat: int | None  # manifest: 1-based move number that recreates a position


def _reference(entry: dict) -> Game:
    data = (DATA / entry["file"]).read_bytes()
    game = sgf.Sgf_game.from_bytes(data)
    size = game.get_size()
    root = game.get_root()
    black, white, empty = root.get_setup_stones()
    assert not white and not empty, f"{entry['file']}: setup other than AB"
    moves = [node.get_move() for node in game.get_main_sequence()[1:]]
    moves = [(colour, point) for colour, point in moves if colour is not None]
    assert root.get_move() == (None, None)
    assert moves, entry["file"]

    reference = sgf_boards.Board(size)
    assert reference.apply_setup(black, white, empty), f"{entry['file']}: setup stones without liberty"
    setup = sgfmill_grid(reference)
    seen = {setup.tobytes()}
    placed = np.array([len(black), 0], np.int64)
    on_board = np.array([len(black), 0], np.int64)
    removed_by = np.zeros(2, np.int64)
    actions, colours, boards, captures, ko_points, repeats = [], [], [], [], [], []
    for index, (colour, point) in enumerate(moves):
        mover = _STONE[colour]
        ko = -1
        if point is None:
            actions.append(size * size)
        else:
            row, col = point
            actions.append((size - 1 - row) * size + col)
            ko_point = reference.play(row, col, colour)
            if ko_point is not None:
                ko = (size - 1 - ko_point[0]) * size + ko_point[1]
            placed[mover - 1] += 1
        grid = sgfmill_grid(reference) if point is not None else boards[-1] if boards else setup
        if point is not None:
            now = np.array([(grid == gojax.BLACK).sum(), (grid == gojax.WHITE).sum()], np.int64)
            expected = on_board.copy()
            expected[mover - 1] += 1
            lost = expected - now  # stones of each colour that left the board
            assert lost[mover - 1] == 0, f"{entry['file']}: move {index + 1} is a suicide"
            removed_by[mover - 1] += lost[2 - mover]
            on_board = now
            key = grid.tobytes()
            if key in seen:
                repeats.append(index)
            seen.add(key)
        colours.append(mover)
        boards.append(grid)
        captures.append(removed_by.copy())
        ko_points.append(ko)

    note = entry["note"]
    captured = _CAPTURES_NOTE.search(note)
    repeat = _REPEAT_NOTE.search(note)
    return Game(
        file=entry["file"],
        size=size,
        setup=setup,
        has_setup=bool(black),
        first=colours[0],
        actions=np.array(actions, np.int32),
        colours=np.array(colours, np.int8),
        boards=np.stack(boards),
        captures=np.stack(captures).astype(np.int32),
        ko_points=np.array(ko_points, np.int32),
        placed=placed,
        repeats=repeats,
        note_captured=(int(captured[1]), int(captured[2])) if captured else None,
        note_repeat=int(repeat[1]) if repeat else None,
    )


@functools.cache
def _manifest() -> list[dict]:
    return json.loads((DATA / "manifest.json").read_text())


@functools.cache
def _games() -> tuple[Game, ...]:
    return tuple(_reference(entry) for entry in _manifest())


def _games_of_size(size: int) -> list[Game]:
    return [game for game in _games() if game.size == size]


# ---------------------------------------------------------------------------
# gojax replay: vmap over games, scan over moves; compiled once per config.


@dataclasses.dataclass
class Replay:
    """gojax's view of a batch of games after each (padded) move."""

    legal: np.ndarray  # bool[B, T]: legal_action_mask(state)[action] before the move
    to_play: np.ndarray  # int8[B, T]: gojax.to_play before the move
    boards: np.ndarray  # int8[B, T, N, N] after the move
    captures: np.ndarray  # int16[B, T, 2] after the move
    ko_points: np.ndarray  # int16[B, T] after the move
    illegal: np.ndarray  # bool[B, T]: illegal_move after the move
    final: gojax.GoState  # batched final states


@functools.cache
def _replayer(config: gojax.GoConfig):
    def one_game(state, actions, valid):
        def body(state, inputs):
            action, ok = inputs
            legal = gojax.legal_action_mask(config, state)[action]
            played = gojax.step(config, state, action)
            played = jax.tree.map(lambda new, old: jnp.where(ok, new, old), played, state)
            seen = (
                legal,
                gojax.to_play(config, state),
                gojax.board(config, played),
                played.captures,
                played.ko_point,
                played.illegal_move,
            )
            return played, seen

        return jax.lax.scan(body, state, (actions, valid))

    return jax.jit(jax.vmap(one_game))


def _start(config: gojax.GoConfig, game: Game) -> gojax.GoState:
    if game.has_setup:
        return gojax.from_board(config, game.setup, to_play=game.first)
    assert game.first == gojax.BLACK, f"{game.file}: white moves first without setup stones"
    return gojax.init(config)


def _replay(config: gojax.GoConfig, games: list[Game]) -> Replay:
    length = max(len(game.actions) for game in games)
    actions = np.full((len(games), length), config.pass_action, np.int32)
    valid = np.zeros((len(games), length), bool)
    for i, game in enumerate(games):
        actions[i, : len(game.actions)] = game.actions
        valid[i, : len(game.actions)] = True
    starts = [_start(config, game) for game in games]
    start = jax.tree.map(lambda *leaves: jnp.stack(leaves), *starts)
    final, seen = _replayer(config)(start, jnp.asarray(actions), jnp.asarray(valid))
    seen = [np.asarray(x) for x in seen]
    return Replay(*seen, final=jax.tree.map(np.asarray, final))


@functools.cache
def _positional_replay(size: int) -> tuple[list[Game], Replay]:
    games = _games_of_size(size)
    return games, _replay(gojax.GoConfig(size=size), games)


def _compare(game: Game, replay: Replay, i: int, upto: int) -> list[str]:
    """Mismatches between gojax (row ``i`` of ``replay``) and the reference over moves ``[0, upto)``."""
    problems = []

    def first_bad(bad: np.ndarray) -> int | None:
        where = np.flatnonzero(bad[:upto])
        return int(where[0]) if where.size else None

    def vertex(action: int) -> str:
        return "pass" if action == game.size**2 else gojax.to_gtp(gojax.GoConfig(size=game.size), action)

    moves = len(game.actions)
    to_play, legal, illegal = replay.to_play[i, :moves], replay.legal[i, :moves], replay.illegal[i, :moves]
    boards, captures, ko_points = (
        replay.boards[i, :moves],
        replay.captures[i, :moves],
        replay.ko_points[i, :moves],
    )
    checks = [
        ("gojax.to_play differs from the SGF colour", to_play != game.colours),
        ("legal_action_mask refuses the move", ~legal),
        ("step flags the move illegal", illegal),
        ("board differs", np.any(boards != game.boards, axis=(1, 2))),
        ("captures differ", np.any(captures != game.captures, axis=1)),
        ("ko point differs", ko_points != game.ko_points),
    ]
    for what, bad in checks:
        move = first_bad(bad)
        if move is None:
            continue
        detail = ""
        if what == "board differs":
            points = [vertex(r * game.size + c) for r, c in np.argwhere(boards[move] != game.boards[move])]
            detail = f" at {points[:6]}"
        elif what == "captures differ":
            detail = f": gojax {captures[move].tolist()}, reference {game.captures[move].tolist()}"
        elif what == "ko point differs":
            detail = f": gojax {ko_points[move]}, reference {game.ko_points[move]}"
        problems.append(f"{game.file}: {what} at move {move + 1} ({vertex(int(game.actions[move]))}){detail}")
    return problems


def _played(game: Game) -> int:
    """Moves gojax plays: all of them, or up to the first two passes in a row (which end the game)."""
    passes = game.actions == game.size**2
    both = np.flatnonzero(passes[1:] & passes[:-1])
    return int(both[0]) + 2 if both.size else len(game.actions)


def _note_captures(game: Game) -> np.ndarray:
    """The manifest's counts as gojax's ``captures``: stones removed BY black, BY white.

    The note says "captures: X black / Y white stones": X stones OF black were
    captured (by white), Y stones of white (by black).
    """
    of_black, of_white = game.note_captured
    return np.array([of_white, of_black])


# ---------------------------------------------------------------------------
# The data and the reference replay.


def test_records_match_manifest():
    """The reference replay agrees with the manifest, so the expectations below are sound."""
    manifest = _manifest()
    games = _games()
    assert len(games) == 250
    assert sum(len(game.actions) for game in games) == sum(entry["moves"] for entry in manifest)
    for entry, game in zip(manifest, games, strict=True):
        assert game.size == entry["size"] in SIZES, game.file
        assert len(game.actions) == entry["moves"], game.file
        assert np.all(game.colours[1:] != game.colours[:-1]), f"{game.file}: a colour plays twice"
        # The capture counts the manifest gives match sgfmill's replay (stones OF black, OF white).
        assert game.note_captured is not None, game.file
        np.testing.assert_array_equal(game.captures[-1], _note_captures(game), err_msg=game.file)
        # A stone move follows two passes in no game (gojax ends the game there).
        assert np.all(game.actions[_played(game) :] == game.size**2), f"{game.file}: play resumes"
    repeating = {game.file: game for game in games if game.repeats}
    assert set(repeating) == REPEATING_GAMES
    assert {game.file for game in games if game.note_repeat is not None} == REPEATING_GAMES
    for game in repeating.values():
        # The first repetition is the move the manifest names (1-based).
        assert game.repeats[0] + 1 == game.note_repeat, game.file
    assert sum(game.has_setup for game in games) == 11


# ---------------------------------------------------------------------------
# gojax against the reference.


@pytest.mark.parametrize("size", SIZES)
def test_replay_positional_superko(size):
    """Every move of every game (but the two repeating ones) is legal and replays exactly."""
    games, replay = _positional_replay(size)
    config = gojax.GoConfig(size=size)
    problems = []
    checked = []
    for i, game in enumerate(games):
        if game.file in REPEATING_GAMES:
            continue
        checked.append(i)
        problems += _compare(game, replay, i, len(game.actions))
        final = jax.tree.map(lambda x, i=i: x[i], replay.final)
        board = np.asarray(gojax.board(config, final))
        if not np.array_equal(board, game.boards[-1]):
            problems.append(f"{game.file}: final gojax.board differs from the reference")
        if not np.array_equal(final.captures, _note_captures(game)):
            problems.append(
                f"{game.file}: final captures {final.captures.tolist()} != manifest "
                f"{_note_captures(game).tolist()}"
            )
        # Two passes end the game; a further pass in the record (one game has one) is a no-op.
        played = _played(game)
        if int(final.move_number) != played:
            problems.append(f"{game.file}: move_number {int(final.move_number)} != {played}")
        ends_with_two_passes = played >= 2 and np.all(game.actions[played - 2 : played] == size * size)
        if bool(final.terminated) != bool(ends_with_two_passes) or bool(final.illegal_move):
            problems.append(
                f"{game.file}: terminated={bool(final.terminated)} illegal_move={bool(final.illegal_move)}"
            )
    assert checked, f"no {size}x{size} games"
    assert not problems, "\n".join(problems[:40])
    final = jax.tree.map(lambda x: x[np.array(checked)], replay.final)
    placed = np.stack([games[i].placed for i in checked])
    gojax.check_invariants(config, final, placed=placed)


def test_repeating_games_refused_under_positional_superko():
    """The move that recreates an earlier position is the one move gojax refuses."""
    games, replay = _positional_replay(19)
    config = gojax.GoConfig(size=19)
    found = set()
    for i, game in enumerate(games):
        if game.file not in REPEATING_GAMES:
            continue
        found.add(game.file)
        bad = game.note_repeat - 1  # 0-based index of the repeating move
        assert game.repeats[0] == bad
        # Everything before the repeating move replays exactly ...
        assert not _compare(game, replay, i, bad), _compare(game, replay, i, bad)
        # ... the repeating move is not in the mask, and stepping it forfeits the game.
        assert not replay.legal[i, bad], f"{game.file}: move {bad + 1} is in the legal mask"
        final = jax.tree.map(lambda x, i=i: x[i], replay.final)
        assert bool(final.illegal_move) and bool(final.terminated), game.file
        assert int(final.loser) == game.colours[bad], game.file
        assert int(final.move_number) == bad, game.file
        before = game.boards[bad - 1] if bad else game.setup
        np.testing.assert_array_equal(np.asarray(gojax.board(config, final)), before, err_msg=game.file)
        gojax.check_invariants(config, final)
    assert found == REPEATING_GAMES


def test_repeating_games_replay_under_simple_ko():
    """Under the simple ko rule the two repeating games replay to the end, every move legal."""
    games = [game for game in _games() if game.file in REPEATING_GAMES]
    assert {game.file for game in games} == REPEATING_GAMES
    (size,) = {game.size for game in games}
    config = gojax.GoConfig(size=size, ko_rule="simple")
    replay = _replay(config, games)
    problems = []
    for i, game in enumerate(games):
        problems += _compare(game, replay, i, len(game.actions))
        final = jax.tree.map(lambda x, i=i: x[i], replay.final)
        if not np.array_equal(np.asarray(gojax.board(config, final)), game.boards[-1]):
            problems.append(f"{game.file}: final board differs")
        if not np.array_equal(final.captures, _note_captures(game)):
            problems.append(f"{game.file}: final captures {final.captures.tolist()} != manifest")
        if bool(final.illegal_move) or int(final.move_number) != len(game.actions):
            problems.append(f"{game.file}: replay stopped at move {int(final.move_number)}")
    assert not problems, "\n".join(problems)
    placed = np.stack([game.placed for game in games])
    gojax.check_invariants(config, replay.final, placed=placed)
