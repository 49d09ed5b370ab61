"""Console scripts of packages that need an optional extra: a missing extra is one line naming it.

``gojax-train`` runs :func:`train`, which imports :mod:`gojax.training`
(Flax, optax, orbax, mctx: the ``alphazero`` extra) only when it runs. Were
the script's target :func:`gojax.training.main` itself, the import would
fail before any code of gojax could turn its message into one line.
"""

from __future__ import annotations

import sys

__all__ = ["train"]


def train(argv: list[str] | None = None) -> int:
    """``gojax-train``: :func:`gojax.training.main`, or exit status 2 with one line if an extra is missing."""
    try:
        from gojax.training import main
    except ImportError as error:
        if "pip install 'gojax[" not in str(error):
            raise  # not a missing extra: a broken install shows its whole traceback
        print(f"gojax-train: {error}", file=sys.stderr)
        return 2
    return main(argv)
