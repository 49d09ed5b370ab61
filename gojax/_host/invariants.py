"""A host-side invariant checker for states, batched or not.

It recomputes from scratch, in NumPy, what the engine maintains
incrementally, and raises :class:`InvariantError` listing every game that
breaks a rule of a well-formed state:

* bits beyond the board are clear and no point holds two stones;
* every chain has a liberty, ``atari`` holds exactly the stones of the
  chains with one liberty, and ``atari_liberty`` their liberties;
* the incremental hash equals the hash from scratch, and the history entry
  for the current move equals it (entries after it are zero), and the
  stone-count bucket lists link every position exactly once;
* counters are in range: turn, passes, ko point (empty or -1), captures,
  loser, move number;
* optionally, stones on the board plus stones lost equal stones placed.
"""

from __future__ import annotations

import numpy as np

from gojax._core import bitboard as bb
from gojax._core import history as _history
from gojax._core import zobrist as _zobrist
from gojax._core.guards import check_state
from gojax._core.types import GoConfig, GoState
from gojax._host.chains import chain_labels
from gojax._host.grid import decode

__all__ = ["InvariantError", "check_invariants", "liberty_planes"]


class InvariantError(AssertionError):
    """A state breaks an invariant; the message lists each game and problem."""


def liberty_planes(config: GoConfig, atari: np.ndarray, liberty: np.ndarray) -> np.ndarray:
    """:attr:`GoState.atari_liberty` from scratch: ``uint32[..., L, W]``.

    Args:
      config: the rules.
      atari: ``int[..., N, N]`` colour (1, 2) of the stones in atari, else 0.
      liberty: ``int[..., N, N]`` point index of the liberty of each stone's
        chain (read only where ``atari`` is set).
    """
    atari, liberty = np.asarray(atari), np.asarray(liberty)
    levels = np.arange(config.liberty_label_planes)[:, None, None]
    bits = (np.maximum(liberty, 0)[..., None, :, :] >> levels) & 1  # [..., L, N, N]
    planes = bits * (atari > 0)[..., None, :, :]
    return bb.from_grid_np(planes, config.size)  # [..., L, W]


def _liberties(boards: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Liberty count and one liberty of each stone's chain, whole boards at once.

    Args:
      boards: ``int8[G, N, N]``.
      labels: their :func:`chain_labels`, ``int64[G, N, N]`` (-1 on empty points).

    Returns:
      ``(counts, liberty)``, each ``int64[G, N, N]``: the number of distinct
      liberties of the chain through each stone (0 on empty points), and the
      point index of one of them (-1 where there is none).
    """
    games, size = boards.shape[0], boards.shape[-1]
    points = size * size
    padded = np.pad(labels, ((0, 0), (1, 1), (1, 1)), constant_values=-1)
    # the chain labels beside each point: up, down, left, right  [G, N, N, 4]
    beside = np.stack(
        [padded[:, :-2, 1:-1], padded[:, 2:, 1:-1], padded[:, 1:-1, :-2], padded[:, 1:-1, 2:]], axis=-1
    )
    # an empty point is a liberty of each distinct chain beside it, counted once
    liberty_of = (boards == 0)[..., None] & (beside >= 0)
    for later in range(1, 4):
        for earlier in range(later):
            liberty_of[..., later] &= beside[..., later] != beside[..., earlier]
    game = np.broadcast_to(np.arange(games)[:, None, None, None], beside.shape)
    point = np.broadcast_to(np.arange(points).reshape(1, size, size, 1), beside.shape)
    chain = (game * points + beside)[liberty_of]
    counts = np.bincount(chain, minlength=games * points)
    liberty = np.full(games * points, -1, np.int64)
    liberty[chain] = point[liberty_of]
    where = np.arange(games)[:, None, None] * points + np.maximum(labels, 0)
    stones = labels >= 0
    return np.where(stones, counts[where], 0), np.where(stones, liberty[where], -1)


def _bucket_problem(config, history, heads, links, move, count, white) -> str | None:
    """What is wrong with one game's bucket lists, or None.

    A move number out of range is reported by its own check; the walk reads
    the history up to the last entry it holds.
    """
    move = int(np.clip(move, 0, len(history) - 1))
    seen: set[int] = set()
    for head in heads:
        entry = int(head)
        while entry >= 0:
            if entry in seen or entry > move:
                return f"bucket lists are corrupt at entry {entry}"
            seen.add(entry)
            entry = int(links[entry])
    linked = {tuple(history[j]) for j in seen}
    for entry in range(int(move) + 1):
        if entry not in seen and tuple(history[entry]) not in linked:
            return f"history entry {entry} is neither linked nor a repeat of a linked one"
    bucket = int(_history.bucket_of(config, np.int64(count), np.int64(white)))
    entry = int(heads[bucket])
    while entry >= 0:
        if np.array_equal(history[entry], history[move]):
            return None
        entry = int(links[entry])
    return "the current position is not in the bucket of its stone counts"


def _bucket_problems(config, history, heads, links, move, counts, whites) -> list[str]:
    """What is wrong with the bucket lists of each game, whole batches at once.

    Args:
      config: the rules.
      history: ``uint32[G, H, 2]``; heads: ``int64[G, M]``; links: ``int64[G, H]``.
      move, counts, whites: ``int64[G]`` move numbers and stone counts.

    Lists whose every pointer leads to an older entry, no later than the
    current move, and that share no entry cannot loop or be corrupt: they are
    walked in lock-step. Any other game is walked alone by
    :func:`_bucket_problem`, which names the first corrupt entry.
    """
    games, length = links.shape
    move = np.clip(move, 0, length - 1)
    entry = np.arange(length)
    held = entry[None] <= move[:, None]  # [G, H] entries up to the current move
    tidy = np.all((heads < 0) | (heads <= move[:, None]), axis=1)
    tidy &= np.all(~held | (links < entry[None]), axis=1)
    targets = np.concatenate([heads, np.where(held, links, -1)], axis=1)  # [G, M + H]
    targets = np.where(tidy[:, None], targets, -1)
    owner = np.broadcast_to(np.arange(games)[:, None], targets.shape)
    aimed = np.bincount((owner * length + targets)[targets >= 0], minlength=games * length)
    tidy &= np.all(aimed.reshape(games, length) <= 1, axis=1)

    # walk every tidy list at once, labelling each entry with its bucket
    bucket_of = np.full((games, length), -1, np.int64)
    owner, bucket = np.nonzero(tidy[:, None] & (heads >= 0))
    at = heads[owner, bucket]
    while at.size:
        bucket_of[owner, at] = bucket
        at = links[owner, at]
        owner, bucket, at = owner[at >= 0], bucket[at >= 0], at[at >= 0]
    linked = bucket_of >= 0

    key = (history[..., 0].astype(np.uint64) << np.uint64(32)) | history[..., 1].astype(np.uint64)  # [G, H]
    found: dict[int, str] = {}
    lone_game, lone_entry = np.nonzero(tidy[:, None] & held & ~linked)
    repeats = linked[lone_game] & (key[lone_game] == key[lone_game, lone_entry][:, None])
    unrepeated = ~np.any(repeats, axis=1)
    for game, lone in zip(lone_game[unrepeated], lone_entry[unrepeated], strict=True):  # the first per game
        found.setdefault(int(game), f"history entry {lone} is neither linked nor a repeat of a linked one")
    current = key[np.arange(games), move]
    target = _history.bucket_of(config, counts, whites)
    listed = np.any((bucket_of == target[:, None]) & (key == current[:, None]), axis=1)
    for game in np.flatnonzero(tidy & ~listed):
        found.setdefault(int(game), "the current position is not in the bucket of its stone counts")
    for game in np.flatnonzero(~tidy):
        problem = _bucket_problem(
            config, history[game], heads[game], links[game], move[game], counts[game], whites[game]
        )
        if problem:
            found[int(game)] = problem
    return [f"game {game}: {found[game]}" for game in sorted(found)]


def check_invariants(config: GoConfig, state: GoState, placed=None) -> None:
    """Raises :class:`InvariantError` if any game in ``state`` is malformed.

    Args:
      config: the rules.
      state: one game or a batch (any number of leading axes).
      placed: optional ``int[..., 2]`` number of stones each colour has put
        on the board (setup stones included); if given, checks
        ``on_board[c] + captures[other] == placed[c]``.

    Raises:
      InvariantError: naming the first games found malformed.
      ValueError: for a state built for another board size, ko rule or move
        cap (the error of the rule functions, e.g. :func:`gojax.step`).
    """
    caller = "gojax.check_invariants"
    size = config.size
    fields = {name: np.asarray(getattr(state, name)) for name in state.__dataclass_fields__}
    lead = fields["stones"].shape[:-2]
    games = int(np.prod(lead, dtype=np.int64))
    if games:  # a state for other rules: the rule functions' error, read off the first game
        check_state(config, state.replace(**{n: v[(0,) * len(lead)] for n, v in fields.items()}), caller)
    flat = {name: value.reshape((games, *value.shape[len(lead) :])) for name, value in fields.items()}
    stones = flat["stones"].astype(np.uint32)
    problems = _reported(np.any(stones & ~bb.board_mask(size), axis=(1, 2)), "bits set beyond the board")
    problems += _reported(np.any(stones[:, 0] & stones[:, 1], axis=1), "a point holds two stones")
    boards = decode(stones, size)
    problems += _chain_problems(config, boards, flat)
    flat_boards = boards.reshape(games, config.num_points)
    keys = _zobrist.tables(size).points
    stone_keys = np.concatenate(
        [np.where((flat_boards == c + 1)[..., None], keys[c], np.uint32(0)) for c in range(2)], axis=1
    )
    scratch = np.bitwise_xor.reduce(stone_keys, axis=1).astype(np.uint32)
    problems += _reported(
        np.any(scratch != flat["hash"], axis=1), "incremental hash differs from the hash from scratch"
    )
    problems += _counter_problems(config, flat, flat_boards)
    if config.history_length:
        problems += _history_problems(config, flat, flat_boards, scratch)
    if placed is not None:
        placed = np.asarray(placed).reshape(-1, 2)
        on_board = np.stack([(flat_boards == 1).sum(1), (flat_boards == 2).sum(1)], axis=1)
        lost = flat["captures"][:, ::-1].astype(np.int64)
        problems += _reported(
            np.any(on_board + lost != placed, axis=1), "stones on board + stones lost != stones placed"
        )
    if problems:
        raise InvariantError("\n".join(problems))


def _reported(mask: np.ndarray, message: str) -> list[str]:
    """``message`` for each of the first 5 games where ``bool[G]`` ``mask`` is set."""
    return [f"game {game}: {message}" for game in np.flatnonzero(mask)[:5]]


def _chain_problems(config: GoConfig, boards: np.ndarray, flat: dict[str, np.ndarray]) -> list[str]:
    """Chains without a liberty; atari bitboards and atari liberties that differ from the chains'.

    Args:
      config: the rules.
      boards: ``int8[G, N, N]``.
      flat: the state's fields, one game per row.
    """
    problems = []
    labels = chain_labels(boards)
    atari_boards = decode(flat["atari"].astype(np.uint32), config.size)
    liberties, liberty_point = _liberties(boards, labels)
    on_board = boards > 0
    breathless = (on_board & (liberties == 0)).reshape(len(boards), -1)
    for game in np.flatnonzero(breathless.any(axis=1)):
        point = int(np.argmax(breathless[game]))
        problems.append(f"game {game}: chain at point {point} has no liberty")
    expected = np.where(on_board & (liberties == 1), boards, 0)
    for game in np.flatnonzero(np.any(expected != atari_boards, axis=(1, 2))):
        problems.append(f"game {game}: atari bitboards differ from the chains with one liberty")
    planes = liberty_planes(config, expected, liberty_point)
    for game in np.flatnonzero(np.any(planes != flat["atari_liberty"], axis=tuple(range(1, planes.ndim)))):
        problems.append(f"game {game}: atari_liberty differs from the liberties of the chains in atari")
    return problems


def _counter_problems(config: GoConfig, flat: dict[str, np.ndarray], flat_boards: np.ndarray) -> list[str]:
    """Turn, move number, passes, captures, loser, end flags and ko point out of their ranges.

    Args:
      config: the rules.
      flat: the state's fields, one game per row.
      flat_boards: ``int8[G, P]``.
    """
    num_points = config.num_points
    move = flat["move_number"].astype(np.int64)
    turn = flat["turn"].astype(np.int64)
    problems = _reported((turn < 0) | (turn > 1), "turn is not 0 or 1")
    problems += _reported(move < 0, "negative move number")
    problems += _reported(move > config.move_cap, "move number beyond the move cap")
    problems += _reported((flat["passes"] < 0) | (flat["passes"] > 2), "passes out of range")
    problems += _reported(np.any(flat["captures"] < 0, axis=1), "negative captures")
    problems += _reported(~np.isin(flat["loser"], (0, 1, 2)), "loser is not 0, 1 or 2")
    problems += _reported(flat["truncated"] & flat["terminated"], "both terminated and truncated")
    ko = flat["ko_point"].astype(np.int64)
    ko_bad = (ko < -1) | (ko >= num_points)
    ko_safe = np.clip(ko, 0, num_points - 1)
    ko_bad |= (ko >= 0) & (flat_boards[np.arange(len(ko)), ko_safe] != 0)
    return problems + _reported(ko_bad, "ko point is not -1 or an empty point")


def _history_problems(
    config: GoConfig, flat: dict[str, np.ndarray], flat_boards: np.ndarray, scratch: np.ndarray
) -> list[str]:
    """The superko history: the current move's entry against the hash, entries after it, the bucket lists.

    Args:
      config: the rules (``history_length > 0``).
      flat: the state's fields, one game per row.
      flat_boards: ``int8[G, P]``.
      scratch: ``uint32[G, 2]``, the position hashes computed from the boards.
    """
    history = flat["history"]
    move = flat["move_number"].astype(np.int64)
    turn = flat["turn"].astype(np.int64)
    index = np.clip(move, 0, config.history_length - 1)
    current = history[np.arange(len(move)), index]
    expected = scratch
    if config.ko_rule == "situational":
        expected = scratch ^ _zobrist.tables(config.size).side[np.clip(turn, 0, 1)]
    problems = _reported(
        np.any(current != expected, axis=1), "history entry for the current move differs from the hash"
    )
    later = np.arange(config.history_length)[None, :] > move[:, None]
    problems += _reported(
        np.any(later[..., None] & (history != 0), axis=(1, 2)), "history entries after the current move"
    )
    heads, links = flat["history_head"].astype(np.int64), flat["history_prev"].astype(np.int64)
    counts = (flat_boards > 0).sum(axis=1)
    whites = (flat_boards == 2).sum(axis=1)
    return problems + _bucket_problems(config, history, heads, links, move, counts, whites)
