"""Checks of host-side arguments: an int or a number in a range, the fields of a ``from_dict``.

::

    size = checks.integer(size, "GoConfig.size", least=2, most=25)
    komi = checks.number(komi, "GoConfig.komi")
    checks.known_fields(NetworkConfig, data)

:func:`integer` and :func:`number` accept Python and NumPy scalars
(``numpy.integer``, ``numpy.floating``) but never a ``bool``, and return a
plain Python ``int`` / ``float``, so a frozen config that stores the result
stays hashable and equal to one built from Python values. A wrong type raises
``TypeError`` and a wrong value ``ValueError``; either message names the
argument, the value (its ``repr``) and what was expected, e.g.
``GoConfig.size must be an int from 2 to 25, got 26``.

These run on Python values in host code: a traced array is refused as a wrong
type.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

__all__ = ["integer", "known_fields", "number"]


def _show(bound: float) -> str:
    return str(bound) if isinstance(bound, int) else f"{bound:g}"


def _range(least: float | None, most: float | None, above: bool = False) -> str:
    """`` from 2 to 25``, `` >= 1``, `` > 0 and <= 1``, ... (empty without bounds)."""
    low = ">" if above else ">="
    if least is not None and most is not None:
        if above:
            return f" > {_show(least)} and <= {_show(most)}"
        return f" from {_show(least)} to {_show(most)}"
    if least is not None:
        return f" {low} {_show(least)}"
    if most is not None:
        return f" <= {_show(most)}"
    return ""


def integer(
    value: object,
    name: str,
    *,
    least: int | None = None,
    most: int | None = None,
    even: bool = False,
) -> int:
    """``value`` as a Python ``int``, checked to lie in ``[least, most]`` (and be even).

    Args:
      value: a Python or NumPy integer (not a ``bool``).
      name: how the messages call the argument, e.g. ``"GoConfig.size"``.
      least, most: inclusive bounds (``None``: no bound).
      even: whether the value must be even.

    Returns:
      ``int(value)``.

    Raises:
      TypeError: for a ``bool`` or a value that is not an integer (``9.0``,
        ``"9"``, an array).
      ValueError: for a value out of range or odd when ``even``.
    """
    expected = f"an {'even ' if even else ''}int{_range(least, most)}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be {expected}, got {value!r}")
    result = int(value)
    outside = (least is not None and result < least) or (most is not None and result > most)
    if outside or (even and result % 2):
        raise ValueError(f"{name} must be {expected}, got {value!r}")
    return result


def number(
    value: object,
    name: str,
    *,
    least: float | None = None,
    most: float | None = None,
    positive: bool = False,
) -> float:
    """``value`` as a finite Python ``float``, checked to lie in ``[least, most]`` (or above 0).

    Args:
      value: a Python or NumPy integer or float (not a ``bool``).
      name: how the messages call the argument, e.g. ``"GoConfig.komi"``.
      least, most: inclusive bounds (``None``: no bound).
      positive: whether the value must be ``> 0`` (replaces ``least``).

    Returns:
      ``float(value)``.

    Raises:
      TypeError: for a ``bool`` or a value that is not a number (``"7.5"``,
        an array).
      ValueError: for ``nan``, an infinity or a value out of range.
    """
    low = 0.0 if positive else least
    expected = f"a finite number{_range(low, most, above=positive)}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be {expected}, got {value!r}")
    result = float(value)
    below = low is not None and (result <= low if positive else result < low)
    if not math.isfinite(result) or below or (most is not None and result > most):
        raise ValueError(f"{name} must be {expected}, got {value!r}")
    return result


def known_fields(cls: type[Any], data: Mapping[str, Any]) -> None:
    """Checks that every key of ``data`` is a field of the dataclass ``cls`` (for ``from_dict``).

    Raises:
      TypeError: if ``data`` is not a mapping.
      ValueError: listing the unknown fields and the known ones.
    """
    if not isinstance(data, Mapping):
        raise TypeError(f"{cls.__name__}.from_dict takes a dict, got {data!r}")
    known = [field.name for field in dataclasses.fields(cls)]
    unknown = sorted(set(data) - set(known))
    if unknown:
        raise ValueError(f"unknown {cls.__name__} fields {unknown}; known: {', '.join(known)}")
