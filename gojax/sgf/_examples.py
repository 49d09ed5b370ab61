"""The example game records that ship with gojax (package data: ``gojax/sgf/data``)."""

from __future__ import annotations

from importlib import resources
from pathlib import Path

__all__ = ["example_games"]


def example_games() -> list[Path]:
    """The paths of the 9x9 game records that ship with gojax, sorted by name.

    Five games of gojax's AlphaZero player against GNU Go (level 1, komi
    7.5, Chinese area scoring, positional superko), written by
    ``gojax-match``; ``gojax/sgf/data/README.md`` in the repository says how
    they were played. Small (about 4.5 KB) and always there: the tour
    notebook and the examples read them::

        record = gojax.read_sgf(gojax.sgf.example_games()[0])
        data = gojax.dataset.build_dataset(gojax.sgf.example_games(), 9)  # from gojax import dataset
    """
    folder = Path(str(resources.files("gojax.sgf").joinpath("data")))
    return sorted(folder.glob("*.sgf"))
