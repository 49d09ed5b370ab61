"""Optional dependencies: one line that names the extra to install when one is missing.

gojax needs only JAX and NumPy. The players, the AlphaZero network and
training, PNG pictures and the API reference need more; each such feature
calls :func:`require` (before it imports anything) or :func:`import_optional`
(where it imports the module), and a missing package gives::

    ImportError: gojax.alphazero needs flax: pip install 'gojax[alphazero]'

The check looks the package up (``importlib.util.find_spec``) without
importing it, so it costs nothing when the package is there.
"""

from __future__ import annotations

import importlib
import importlib.util
from types import ModuleType

__all__ = ["DISTRIBUTIONS", "import_optional", "missing", "require"]

DISTRIBUTIONS = {
    "orbax.checkpoint": "orbax-checkpoint",
    "orbax": "orbax-checkpoint",
    "cairosvg": "cairosvg",
    "tensorboardX": "tensorboardX",
}
"""Module name -> the name to ``pip install`` where the two differ (else the module's top name)."""


def missing(module: str) -> bool:
    """Whether ``module`` (a dotted name) cannot be found, without importing it."""
    try:
        return importlib.util.find_spec(module) is None
    except (ImportError, ValueError):  # a parent package is missing, or a broken ``__spec__``
        return True


def _message(module: str, feature: str, extra: str) -> str:
    package = DISTRIBUTIONS.get(module, module.split(".")[0])
    return f"{feature} needs {package}: pip install 'gojax[{extra}]'"


def require(*modules: str, feature: str, extra: str) -> None:
    """Raises ``ImportError`` naming the first of ``modules`` that is missing, and the extra.

    Args:
      modules: dotted module names, e.g. ``"flax"``, ``"orbax.checkpoint"``.
      feature: what needs them, as the user knows it (``"gojax.alphazero"``).
      extra: the gojax extra that installs them (``"alphazero"``).
    """
    for module in modules:
        if missing(module):
            raise ImportError(_message(module, feature, extra), name=module)


def import_optional(module: str, *, feature: str, extra: str) -> ModuleType:
    """``importlib.import_module(module)``, or ``ImportError`` naming the extra if it is not installed.

    Only the absence of ``module`` itself (or of a package it belongs to) is
    turned into the one-line message; an error raised while importing an
    installed package is left as it is.
    """
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        parts = module.split(".")
        if error.name not in {".".join(parts[: i + 1]) for i in range(len(parts))}:
            raise
        raise ImportError(_message(module, feature, extra), name=module) from None
