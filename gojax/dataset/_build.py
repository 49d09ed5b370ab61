"""Building a :class:`~gojax.dataset.MoveDataset` from SGF records: reading, checks, batched jitted replay.

See :mod:`gojax.dataset` for the whole story. Games are replayed
``games_per_call`` at a time (sorted by length) with one compiled
``jit(vmap(lax.scan))`` over chunks of 64 moves per board size and
observation; the feature planes and legal masks of the position before each
move come out of the scan (with the board history beside the game when the
observation reads it).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import os
from collections import Counter
from collections.abc import Sequence
from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from gojax._core import checks
from gojax._core.rules import init, legal_action_mask, step
from gojax._core.types import BLACK, EMPTY, MOVE_CAP_PER_POINT, WHITE, GoConfig, KoRule
from gojax._host.diagram import from_board
from gojax._host.grid import board_of
from gojax._host.illegal import why_illegal
from gojax._host.vertices import vertex
from gojax.dataset._store import FORMAT, MoveDataset, load_with_key
from gojax.features import ObservationSpec, history_init, history_push
from gojax.features import observation as find_observation
from gojax.sgf import GameRecord, SGFError, read_sgf, sgf_point

__all__ = ["build_dataset", "load_records"]

_CHUNK = 64
_NAME = {BLACK: "B", WHITE: "W"}


def load_records(source, **kwargs) -> tuple[list, list[tuple[str, str]]]:
    """Reads game records from a folder, a file or a list of paths / :class:`~gojax.sgf.GameRecord` s.

    A folder is searched recursively for ``*.sgf`` files (sorted by path).

    Args:
      source: a folder, an ``.sgf`` path, or a sequence of paths and records.
      **kwargs: passed to :func:`gojax.sgf.read_sgf` (``fox_komi``, ``ko_rule``, ...).

    Returns:
      ``(records, skipped)``: the records read, and ``(name, reason)`` of each
      file that could not be read.

    Raises:
      ValueError: for a path that does not exist or a folder without SGF files.
    """
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        if path.is_dir():
            items = sorted(path.rglob("*.sgf"))
            if not items:
                raise ValueError(f"{path}: the folder holds no .sgf files")
        elif path.is_file():
            items = [path]
        else:
            raise ValueError(f"{path}: no such file or folder")
    elif isinstance(source, Sequence):
        items = list(source)
        if not items:
            raise ValueError("no games: the list of SGF files / records is empty")
    else:
        raise ValueError(f"source must be a folder, a file or a list of them, got {type(source).__name__}")
    records, skipped = [], []
    for item in items:
        if isinstance(item, GameRecord):
            records.append(item)
            continue
        if not isinstance(item, (str, os.PathLike)):
            raise ValueError(f"expected a path or a GameRecord, got {type(item).__name__}")
        try:
            records.append(read_sgf(item, **kwargs))
        except SGFError as error:
            skipped.append((str(item), f"unreadable: {error}"))
    return records, skipped


def _check_moves(record, config: GoConfig) -> tuple[int, str | None]:
    """``(moves that count, reason to refuse or None)``: the checks done before any JAX work."""
    size, colour, passes = config.size, record.first_player, 0
    played = len(record.moves)
    for index, (mover, action) in enumerate(record.moves):
        where = f"move {index + 1}"
        if mover != colour:
            return 0, f"{where}: {_NAME.get(mover, mover)} plays twice in a row (gojax alternates colours)"
        if not 0 <= action <= size * size:
            return 0, f"{where}: action {action} is not in [0, {size * size}]"
        if passes >= 2:
            if action != size * size:
                return 0, f"{where}: a stone is played after two passes ended the game"
            played = min(played, index)
        passes = passes + 1 if action == size * size else 0
        colour = BLACK + WHITE - colour
    if played == 0:
        return 0, "no moves"
    if played > config.move_cap:
        return 0, f"{played} moves is over the move cap of {config.move_cap}"
    return played, None


@functools.cache
def _runner(config: GoConfig, spec: ObservationSpec):
    """``jit(vmap(run))``: ``run((state, hist), actions[C], valid[C])`` is
    ``(carry, (planes[C], globals[C], legal[C]))``.

    ``hist`` is a :class:`~gojax.features.BoardHistory` when ``spec`` reads
    one, else ``None``. Binary planes leave the device as ``uint8``, others as
    ``float32``; ``globals`` (``float32``) is ``None`` unless the observation
    gives ``(planes, globals)``, as the KataGo preset does.
    """
    dtype = jnp.uint8 if spec.binary else jnp.float32

    def run(carry, actions, valid):
        def body(carry, inputs):
            state, hist = carry
            action, ok = inputs
            planes, extra = _split(spec(config, state, hist))
            planes = jnp.asarray(planes, dtype)
            extra = None if extra is None else jnp.asarray(extra, jnp.float32)
            legal = legal_action_mask(config, state)
            played = step(config, state, action)
            state = jax.tree.map(lambda new, old: jnp.where(ok, new, old), played, state)
            if hist is not None:
                pushed = history_push(config, hist, state)
                hist = jax.tree.map(lambda new, old: jnp.where(ok, new, old), pushed, hist)
            return (state, hist), (planes, extra, legal)

        return jax.lax.scan(body, carry, (actions, valid))

    return jax.jit(jax.vmap(run))


def _split(observed) -> tuple:
    """``(planes, globals)`` of an observation (``globals`` ``None`` for planes alone)."""
    if isinstance(observed, tuple):
        if len(observed) != 2:
            raise ValueError(f"an observation gives planes or (planes, globals), got {len(observed)} arrays")
        return observed
    return observed, None


def _compact(planes: np.ndarray) -> np.ndarray:
    """``uint8`` when that loses nothing, else ``float32``."""
    if planes.size and np.all((planes >= 0) & (planes <= 255) & (planes == np.round(planes))):
        return planes.astype(np.uint8)
    return planes.astype(np.float32)


def _cache_key(records, board_size, observe_name, ko_rule, komi) -> str:
    """Names the dataset: format, size, observation name, rules and every game's moves."""
    digest = hashlib.sha256(f"{FORMAT}|{board_size}|{observe_name}|{ko_rule}|{komi}".encode())
    for record in records:
        digest.update(f"|{record.name}|{record.first_player}|{record.result}".encode())
        digest.update(np.asarray(record.setup, np.int8).tobytes())
        digest.update(np.asarray(record.moves, np.int32).tobytes())
    return digest.hexdigest()


def build_dataset(
    source,
    board_size: int | None = None,
    *,
    observation: str | ObservationSpec = "basic",
    ko_rule: KoRule = "positional",
    komi: float = 7.5,
    games_per_call: int = 16,
    cache=None,
    verbose: bool = False,
    **read_kwargs,
) -> MoveDataset:
    """Replays SGF games and returns one sample per move (see the module docstring).

    Args:
      source: a folder (searched recursively for ``*.sgf``), a file, or a
        list of paths / :class:`~gojax.sgf.GameRecord` s.
      board_size: keep the games of this size (others are skipped); default:
        the most common size among the games read.
      observation: the features of each position: a name in
        ``gojax.features.OBSERVATIONS`` (default ``"basic"``, the 15 planes
        AlphaZero reads; ``"alphago_zero"`` and the other presets that read
        the board history work too) or an
        :class:`~gojax.features.ObservationSpec`. The dataset records its
        name (``observe_name``).
      ko_rule: the rules games are replayed under (a game that repeats a
        position is refused under ``"positional"``; ``"simple"`` keeps it).
      komi: komi of the replay config (only features that read it care).
      games_per_call: games replayed together in one compiled call.
      cache: an ``.npz`` path: loaded if it holds this very dataset (same
        games, size, observation name, rules), else built and written there
        atomically.
      verbose: print what is skipped and a summary.
      **read_kwargs: passed to :func:`gojax.sgf.read_sgf`.

    Returns:
      A :class:`MoveDataset`.

    Raises:
      TypeError: for a ``board_size`` or ``games_per_call`` that is not an int.
      ValueError: for an empty or missing source, a ``board_size`` outside
        2..25 or with no games, a bad ``games_per_call``, an unknown
        observation, or features that are not ``[N, N, C]``.
    """
    if board_size is not None:
        board_size = checks.integer(board_size, "board_size", least=2, most=25)
    games_per_call = checks.integer(games_per_call, "games_per_call", least=1)
    spec = find_observation(observation)
    records, skipped = load_records(source, **read_kwargs)
    if not records:
        raise ValueError(f"no readable games in {source!s:.200}: {len(skipped)} file(s) failed to parse")
    sizes = Counter(record.config.size for record in records)
    if board_size is None:
        board_size = sizes.most_common(1)[0][0]
    if board_size not in sizes:
        found = ", ".join(f"{n}x{n}: {c}" for n, c in sorted(sizes.items()))
        raise ValueError(f"no {board_size}x{board_size} games in {source!s:.200} (found {found})")
    kept = []
    for record in records:
        if record.config.size != board_size:
            skipped.append(
                (
                    record.name or "<sgf>",
                    f"board {record.config.size}x{record.config.size}, not {board_size}x{board_size}",
                )
            )
        else:
            kept.append(record)
    longest = max(len(record.moves) for record in kept)
    default_cap = MOVE_CAP_PER_POINT * board_size * board_size
    config = GoConfig(
        size=board_size, komi=komi, ko_rule=ko_rule, max_moves=None if longest <= default_cap else longest
    )
    observe_name = spec.name
    key = ""
    if cache is not None:
        key = _cache_key(kept, board_size, observe_name, ko_rule, komi)
        cache = Path(cache)
        if cache.is_file():
            try:
                dataset, stored = load_with_key(cache)
                if stored == key:
                    if verbose:
                        print(f"loaded {dataset} from {cache}")
                    return dataset
            except ValueError:
                pass
    dataset = _replay_all(kept, config, spec, games_per_call, skipped, verbose)
    if cache is not None:
        dataset.save(cache, key=key)
    if verbose:
        print(dataset)
    return dataset


def _start_state(record, config: GoConfig):
    if np.any(record.setup != EMPTY) or record.first_player != BLACK:
        return from_board(config, record.setup, to_play=record.first_player)
    return None


def _replay_all(records, config, spec, games_per_call, skipped, verbose) -> MoveDataset:
    """One sample per move of every game that replays, ``games_per_call`` games per compiled call
    (sorted by length); each game skipped or refused is appended to ``skipped`` with the reason."""
    size = config.size
    playable = _playable(records, config, skipped, verbose)
    if not playable:
        raise ValueError(f"none of the {len(records)} {size}x{size} games can be replayed: {skipped[-1][1]}")
    playable.sort(key=lambda item: item[1])
    samples = _Samples()
    for begin in range(0, len(playable), games_per_call):
        group = playable[begin : begin + games_per_call]
        actions, state, (planes, extra, legal) = _replay_group(group, config, spec, games_per_call)
        refused = np.asarray(state.illegal_move)
        for row, (record, played, _) in enumerate(group):
            name = record.name or f"game {begin + row}"
            if refused[row]:
                reason = _refusal(
                    config, record, jax.tree.map(lambda leaf, r=row: np.asarray(leaf)[r], state)
                )
                skipped.append((name, reason))
                if verbose:
                    print(f"skipped {name}: {reason}")
                continue
            row_extra = None if extra is None else extra[row]
            samples.add(name, record, played, planes[row], row_extra, legal[row], actions[row])
    if not samples.names:
        raise ValueError(f"every {size}x{size} game was refused at replay: {skipped[-1][1]}")
    return samples.dataset(size, spec.name, skipped)


def _playable(records, config: GoConfig, skipped, verbose) -> list[tuple[GameRecord, int, object]]:
    """``(record, moves to replay, start state or None)`` of each game whose moves and setup
    pass the checks; the others are appended to ``skipped`` with the reason."""
    playable = []
    for record in records:
        played, reason = _check_moves(record, config)
        if reason is None:
            try:
                start = _start_state(record, config)
            except ValueError as error:
                reason = f"setup stones: {error}"
        if reason is not None:
            skipped.append((record.name or "<sgf>", reason))
            if verbose:
                print(f"skipped {record.name}: {reason}")
            continue
        playable.append((record, played, start))
    return playable


def _replay_group(group, config: GoConfig, spec: ObservationSpec, games_per_call: int) -> tuple:
    """Replays a group of games side by side, :data:`_CHUNK` moves per compiled call.

    Returns:
      ``(actions, state, (planes, globals, legal))``: the actions ``int32[G, T]``
      (``G = games_per_call`` rows, padded with passes that are not played),
      the final states, and the planes, globals (``None`` without) and legal
      masks of the position before each move, ``[G, T, ...]``.
    """
    size = config.size
    length = -(-max(played for _, played, _ in group) // _CHUNK) * _CHUNK
    actions = np.full((games_per_call, length), config.num_points, np.int32)
    valid = np.zeros((games_per_call, length), bool)
    empty = init(config)
    starts = []
    for row, (record, played, start) in enumerate(group):
        actions[row, :played] = [action for _, action in record.moves[:played]]
        valid[row, :played] = True
        starts.append(empty if start is None else start)
    starts += [empty] * (games_per_call - len(group))
    state = jax.tree.map(lambda *leaves: jnp.stack(leaves), *starts)
    hist = jax.vmap(functools.partial(history_init, config))(state) if spec.needs_history else None
    run = _runner(config, spec)
    planes_chunks, globals_chunks, legal_chunks = [], [], []
    for offset in range(0, length, _CHUNK):
        window = slice(offset, offset + _CHUNK)
        (state, hist), (planes, extra, legal) = run((state, hist), actions[:, window], valid[:, window])
        if planes.ndim != 5 or planes.shape[2:4] != (size, size):
            raise ValueError(
                f"observation {spec.name!r} must return [N, N, C] = [{size}, {size}, C] planes; "
                f"got {planes.shape[2:]}"
            )
        planes_chunks.append(_compact(np.asarray(planes)))
        if extra is not None:
            globals_chunks.append(np.asarray(extra))
        legal_chunks.append(np.asarray(legal))
    all_globals = np.concatenate(globals_chunks, axis=1) if globals_chunks else None
    tables = (_concat_planes(planes_chunks, axis=1), all_globals, np.concatenate(legal_chunks, axis=1))
    return actions, state, tables


@dataclasses.dataclass
class _Samples:
    """The samples of the games kept, game by game (a game's id is its index in ``names``)."""

    names: list[str] = dataclasses.field(default_factory=list)
    parts: dict[str, list[np.ndarray]] = dataclasses.field(
        default_factory=lambda: {
            k: [] for k in ("features", "globals", "actions", "values", "legal", "ids", "moves")
        }
    )

    def add(self, name: str, record, played: int, planes, extra, legal, actions) -> None:
        """The first ``played`` moves of a game, from its rows of the replay's tables."""
        winner = record.winner or EMPTY  # no result: a draw
        colours = np.array([colour for colour, _ in record.moves[:played]], np.int8)
        values = np.where(colours == winner, 1.0, -1.0).astype(np.float32)
        if winner == EMPTY:
            values[:] = 0.0
        parts = self.parts
        parts["features"].append(planes[:played])
        if extra is not None:
            parts["globals"].append(extra[:played])
        parts["legal"].append(legal[:played])
        parts["actions"].append(actions[:played])
        parts["values"].append(values)
        parts["ids"].append(np.full(played, len(self.names), np.int32))
        self.names.append(name)
        parts["moves"].append(np.arange(played, dtype=np.int32))

    def dataset(self, board_size: int, observe_name: str, skipped) -> MoveDataset:
        """The samples as one :class:`MoveDataset`."""
        parts = self.parts
        return MoveDataset(
            features=_concat_planes(parts["features"], axis=0),
            actions=np.concatenate(parts["actions"]),
            values=np.concatenate(parts["values"]),
            legal=np.concatenate(parts["legal"]),
            game_ids=np.concatenate(parts["ids"]),
            move_numbers=np.concatenate(parts["moves"]),
            names=tuple(self.names),
            board_size=board_size,
            observe_name=observe_name,
            skipped=tuple(skipped),
            globals=np.concatenate(parts["globals"]) if parts["globals"] else None,
        )


def _refusal(config: GoConfig, record, final) -> str:
    """Why ``step`` refused a move: ``final`` is the game's state, left as it was before that move."""
    index = int(final.move_number)
    colour, action = record.moves[index]
    why = why_illegal(config, board_of(config, final), int(final.ko_point), colour, action)
    point = f"{_NAME[colour]}[{sgf_point(config.size, action)}] = {vertex(config.size, action)}"
    return f"move {index + 1} ({point}): illegal: {why}"


def _concat_planes(chunks: list[np.ndarray], axis: int) -> np.ndarray:
    dtype = np.uint8 if all(chunk.dtype == np.uint8 for chunk in chunks) else np.float32
    return np.concatenate([chunk.astype(dtype, copy=False) for chunk in chunks], axis=axis)
