"""Command-line flags generated from the fields of :class:`TrainConfig` (one flag per field).

::

    parser = argparse.ArgumentParser()
    add_arguments(parser)                      # --size, --komi, ..., --progress/--no-progress
    config = from_arguments(parser.parse_args(argv))
    assert from_arguments(parser.parse_args(to_arguments(config))) == config

A field ``some_name`` is the flag ``--some-name``; its type, default, choices
and help text come from the field (its type annotation and its metadata,
see ``gojax/training/config.py``), so no field can lack a flag:

* ``int``, ``float``, ``str``: one value; ``X | None`` also takes ``none``;
* ``Literal[...]``: one of the choices;
* ``bool``: ``--name`` / ``--no-name``;
* ``tuple[str, ...]``: zero or more values (``--name`` alone is the empty tuple).

Flags not given on the command line are absent from the parsed namespace
(``argparse.SUPPRESS``): :func:`given_fields` tells which were given, and
:func:`from_arguments` starts from a base config (the defaults, or a resumed
run's saved settings).
"""

from __future__ import annotations

import argparse
import dataclasses
import functools
import types
import typing
from collections.abc import Callable
from typing import Any

from gojax.training.config import TrainConfig

__all__ = ["add_arguments", "flag_name", "from_arguments", "given_fields", "to_arguments"]


def flag_name(field_name: str) -> str:
    """``"some_name"`` -> ``"--some-name"``."""
    return "--" + field_name.replace("_", "-")


@functools.cache
def _types() -> dict[str, Any]:
    return typing.get_type_hints(TrainConfig)


def _optional(kind: Any) -> tuple[Any, bool]:
    """``(X, True)`` for ``X | None``, else ``(kind, False)``."""
    if typing.get_origin(kind) in (typing.Union, types.UnionType):
        rest = [a for a in typing.get_args(kind) if a is not type(None)]
        if len(rest) == 1 and len(typing.get_args(kind)) == 2:
            return rest[0], True
    return kind, False


def _scalar_parser(kind: Any, optional: bool, name: str) -> Callable[[str], Any]:
    def parse(text: str) -> Any:
        if optional and text.lower() == "none":
            return None
        try:
            return kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{flag_name(name)}: not a {kind.__name__}: {text!r}") from None

    parse.__name__ = kind.__name__  # argparse names the type in its messages
    return parse


def _default_text(value: Any) -> str:
    if isinstance(value, tuple):
        return " ".join(map(str, value)) or "(none)"
    return "none" if value is None else str(value)


def add_arguments(parser: argparse.ArgumentParser | argparse._ArgumentGroup) -> None:
    """Adds one flag per :class:`TrainConfig` field to ``parser`` (see the module docstring).

    Raises:
      TypeError: for a field whose type has no flag form (a programming error).
    """
    for field in dataclasses.fields(TrainConfig):
        kind, optional = _optional(_types()[field.name])
        meta = field.metadata
        names = [flag_name(field.name), *meta.get("aliases", ())]
        help_text = f"{meta['help']} (default: {_default_text(field.default)})"
        common: dict[str, Any] = dict(dest=field.name, default=argparse.SUPPRESS, help=help_text)
        origin = typing.get_origin(kind)
        if kind is bool:
            parser.add_argument(*names, action=argparse.BooleanOptionalAction, **common)
        elif origin is typing.Literal:
            choices = typing.get_args(kind)
            parser.add_argument(*names, choices=choices, type=type(choices[0]), **common)
        elif origin is tuple:
            element = typing.get_args(kind)[0]
            parser.add_argument(*names, nargs="*", type=element, choices=meta.get("choices"), **common)
        elif kind in (int, float, str):
            parser.add_argument(
                *names,
                type=_scalar_parser(kind, optional, field.name),
                metavar=kind.__name__.upper(),
                **common,
            )
        else:
            raise TypeError(f"TrainConfig.{field.name} has no flag form for its type {kind!r}")


def given_fields(namespace: argparse.Namespace) -> dict[str, Any]:
    """The :class:`TrainConfig` fields given on the command line, as field values."""
    names = {f.name for f in dataclasses.fields(TrainConfig)}
    given = {k: v for k, v in vars(namespace).items() if k in names}
    for name, value in given.items():
        if isinstance(value, list):
            given[name] = tuple(value)
    return given


def from_arguments(namespace: argparse.Namespace, base: TrainConfig | None = None) -> TrainConfig:
    """``base`` (default: ``TrainConfig()``) with the fields given on the command line replaced.

    Raises:
      TypeError, ValueError: as :class:`TrainConfig`, for a bad combination.
    """
    base = TrainConfig() if base is None else base
    return dataclasses.replace(base, **given_fields(namespace))


def to_arguments(config: TrainConfig, only_changed: bool = False) -> list[str]:
    """Command-line arguments that :func:`from_arguments` turns back into ``config``.

    Args:
      config: the settings.
      only_changed: leave out the fields equal to their default.
    """
    argv: list[str] = []
    for field in dataclasses.fields(TrainConfig):
        value = getattr(config, field.name)
        if only_changed and value == field.default:
            continue
        flag = flag_name(field.name)
        if isinstance(value, bool):
            argv.append(flag if value else "--no-" + flag[2:])
        elif isinstance(value, tuple):
            argv += [flag, *map(str, value)]
        else:
            argv += [
                flag,
                "none" if value is None else repr(value) if isinstance(value, float) else str(value),
            ]
    return argv
