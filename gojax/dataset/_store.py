"""The :class:`MoveDataset` container of :mod:`gojax.dataset`: arrays, split by game, ``.npz`` files."""

from __future__ import annotations

import dataclasses
import io
import zipfile
from pathlib import Path

import numpy as np

from gojax._host.atomic import atomic_write_bytes

__all__ = ["FORMAT", "MoveDataset", "load_with_key"]

FORMAT = 1  # bumped when the stored arrays change meaning


@dataclasses.dataclass(frozen=True, eq=False)
class MoveDataset:
    """Positions of real games with the move played and the result (one board size).

    Attributes:
      features: ``uint8`` or ``float32[M, N, N, C]`` planes of each position.
      actions: ``int32[M]`` the move played, in ``[0, A)``.
      values: ``float32[M]`` the result for the player to move: +1, -1, 0 (draw/unknown).
      legal: ``bool[M, A]`` the legal moves of each position.
      game_ids: ``int32[M]`` index into ``names``.
      move_numbers: ``int32[M]`` the move's index in its game (0 first).
      names: the game of each id (file name or record name).
      board_size: ``N``.
      observe_name: the observation's name in ``gojax.features.OBSERVATIONS``.
      skipped: ``(name, reason)`` of every game left out.
      globals: ``float32[M, G]`` the global features of each position, for an
        observation that gives ``(planes, globals)`` (the KataGo preset);
        ``None`` for planes alone.
    """

    features: np.ndarray
    actions: np.ndarray
    values: np.ndarray
    legal: np.ndarray
    game_ids: np.ndarray
    move_numbers: np.ndarray
    names: tuple[str, ...]
    board_size: int
    observe_name: str
    skipped: tuple[tuple[str, str], ...] = ()
    globals: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.actions.shape[0])

    @property
    def num_games(self) -> int:
        """Games with at least one sample here."""
        return int(np.unique(self.game_ids).size)

    @property
    def num_channels(self) -> int:
        return int(self.features.shape[-1])

    def __repr__(self) -> str:
        other = sum(reason.startswith("board ") for _, reason in self.skipped)
        extra = "" if self.globals is None else f"globals={self.globals.shape[-1]}, "
        skipped = f"{other} other size, {len(self.skipped) - other} refused or unreadable"
        return (
            f"MoveDataset({self.board_size}x{self.board_size}, games={self.num_games}, samples={len(self)}, "
            f"channels={self.num_channels} ({self.features.dtype}), "
            f"{extra}observe={self.observe_name}, "
            f"skipped={len(self.skipped)}: {skipped})"
        )

    def select_games(self, game_ids) -> MoveDataset:
        """The samples of the given game ids (a new dataset; ``names`` and ``skipped`` are kept)."""
        keep = np.isin(self.game_ids, np.asarray(game_ids, np.int32))
        return dataclasses.replace(
            self,
            features=self.features[keep],
            actions=self.actions[keep],
            values=self.values[keep],
            legal=self.legal[keep],
            game_ids=self.game_ids[keep],
            move_numbers=self.move_numbers[keep],
            globals=None if self.globals is None else self.globals[keep],
        )

    def split(self, held_out: float = 0.1, seed: int = 0) -> tuple[MoveDataset, MoveDataset]:
        """``(train, held_out)``: a seeded split **by game** (no game has samples on both sides).

        Args:
          held_out: fraction of the games to hold out, in ``(0, 1)``; at least
            one game goes to each side.
          seed: the shuffle seed.

        Raises:
          ValueError: for a fraction outside ``(0, 1)`` or fewer than 2 games.
        """
        if not 0.0 < held_out < 1.0:
            raise ValueError(f"held_out must be a fraction in (0, 1), got {held_out!r}")
        games = np.unique(self.game_ids)
        if games.size < 2:
            raise ValueError(f"cannot split {games.size} game(s) into train and held-out games")
        order = np.random.default_rng(seed).permutation(games)
        count = min(games.size - 1, max(1, round(held_out * games.size)))
        return self.select_games(np.sort(order[count:])), self.select_games(np.sort(order[:count]))

    def save(self, path, key: str = "") -> Path:
        """Writes the dataset to an ``.npz`` file atomically (temporary file, then ``os.replace``)."""
        path = Path(path)
        buffer = io.BytesIO()
        arrays = {
            "features": self.features,
            "actions": self.actions,
            "values": self.values,
            "legal": self.legal,
            "game_ids": self.game_ids,
            "move_numbers": self.move_numbers,
            "names": np.array(self.names, dtype=str),
            "skipped": np.array(self.skipped, dtype=str).reshape(-1, 2),
            "meta": np.array([str(FORMAT), str(self.board_size), self.observe_name, key]),
        }
        if self.globals is not None:
            arrays["globals"] = self.globals
        np.savez(buffer, allow_pickle=False, **arrays)
        return atomic_write_bytes(path, buffer.getvalue())

    @classmethod
    def load(cls, path) -> MoveDataset:
        """Reads a dataset written by :meth:`save`.

        Raises:
          ValueError: if the file is not such a dataset (or of an older format).
        """
        return load_with_key(Path(path))[0]


def load_with_key(path: Path) -> tuple[MoveDataset, str]:
    try:
        with np.load(path, allow_pickle=False) as data:
            meta = [str(v) for v in data["meta"]]
            if meta[0] != str(FORMAT):
                raise ValueError(f"{path}: dataset format {meta[0]}, this gojax reads format {FORMAT}")
            dataset = MoveDataset(
                features=data["features"],
                actions=data["actions"],
                values=data["values"],
                legal=data["legal"],
                game_ids=data["game_ids"],
                move_numbers=data["move_numbers"],
                names=tuple(str(n) for n in data["names"]),
                board_size=int(meta[1]),
                observe_name=meta[2],
                skipped=tuple((str(a), str(b)) for a, b in data["skipped"]),
                globals=data["globals"] if "globals" in data.files else None,
            )
    except (OSError, KeyError, IndexError, EOFError, ValueError, zipfile.BadZipFile) as error:
        raise ValueError(f"{path}: not a gojax dataset file ({error})") from None
    return dataset, meta[3]
