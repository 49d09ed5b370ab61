"""Where a row of results comes from: the ``date``, ``machine`` and ``command`` columns.

Every CSV under ``docs/results/`` starts with these three columns, and
``experiments/report.py`` shows them beside every figure it renders. The
scripts under ``experiments/`` fill them from here, so that they are all
written alike::

    from provenance import append_rows, provenance

    common = provenance("pgx_example.py", packages=("pgx",))
    # {"date": "2026-12-06",
    #  "machine": "x86_64, 2 cores, AMD EPYC 7B13, Python 3.11.7, jax 0.10.2, pgx 2.6.0",
    #  "command": "python experiments/pgx_example.py --csv docs/results/pgx_example.csv"}
    append_rows(path, [{**common, **row} for row in rows], [*common, "arm", "entry", "equal"])

(A script run as ``python experiments/NAME.py`` finds this module beside
it; one imported from elsewhere puts ``experiments/`` on ``sys.path``
first.) Nothing here imports JAX: the versions come from the installed
distributions' metadata.
"""

from __future__ import annotations

import csv
import datetime
import os
import platform
import shlex
import sys
from collections.abc import Iterable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Literal

__all__ = ["append_rows", "command", "cpu_model", "machine", "provenance"]

ROOT = Path(__file__).resolve().parents[1]
"""The repository: the folder that holds ``experiments/``."""


def cpu_model() -> str:
    """The processor's model name, or ``""`` when it cannot be told.

    The ``model name`` line of ``/proc/cpuinfo`` (Linux), else
    :func:`platform.processor` unless that only repeats the machine type
    (``x86_64``) that :func:`machine` writes anyway.
    """
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    return " ".join(line.split(":", 1)[1].split())
    except OSError:
        pass
    processor = platform.processor().strip()
    return "" if processor == platform.machine() else processor


def _version(distribution: str) -> str | None:
    """The installed version of ``distribution``, or ``None`` when it is not installed."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return None


def machine(*packages: str) -> str:
    """The machine and the software of a run, as one line.

    For instance ``"x86_64, 2 cores, AMD EPYC 7B13, Python 3.11.7, jax 0.10.2"``:
    the machine type, the number of CPUs (:func:`os.cpu_count`), the
    processor's model (:func:`cpu_model`, left out when unknown), the Python
    version, then ``jax`` and each distribution named in ``packages`` as
    ``"name version"`` (``machine("pgx")`` ends with ``"pgx 2.6.0"``); a
    distribution that is not installed is left out.
    """
    parts = [platform.machine(), f"{os.cpu_count()} cores", cpu_model()]
    parts.append(f"Python {platform.python_version()}")
    for name in dict.fromkeys(("jax", *packages)):
        version = _version(name)
        if version is not None:
            parts.append(f"{name} {version}")
    return ", ".join(part for part in parts if part)


def _in_repository(argument: str) -> str:
    """``argument``, relative to the repository when it is an absolute path inside it."""
    if not os.path.isabs(argument):
        return argument
    for path in (Path(os.path.normpath(argument)), Path(argument).resolve()):
        try:
            return path.relative_to(ROOT).as_posix()
        except ValueError:
            continue
    return argument


def command(script: str, argv: Sequence[str] | None = None) -> str:
    """The command line that ran ``experiments/<script>``, as a shell would take it.

    ``shlex.join(["python", f"experiments/{script}", *argv])``, ``argv``
    being ``sys.argv[1:]`` unless given. An argument that is an absolute path
    inside the repository (alone or as the value of ``--name=PATH``) is
    written relative to the repository, so that the command reads the same
    on every checkout::

        command("x.py", ["--csv", f"{ROOT}/docs/results/x.csv"])
        # 'python experiments/x.py --csv docs/results/x.csv'
    """
    arguments = []
    for argument in sys.argv[1:] if argv is None else argv:
        name, equals, value = argument.partition("=")
        if equals and name.startswith("-"):
            arguments.append(f"{name}={_in_repository(value)}")
        else:
            arguments.append(_in_repository(argument))
    return shlex.join(["python", f"experiments/{script}", *arguments])


def provenance(
    script: str, argv: Sequence[str] | None = None, packages: Sequence[str] = ()
) -> dict[str, str]:
    """The three columns every row starts with: ``{"date": ..., "machine": ..., "command": ...}``.

    ``date`` is today's (ISO, ``2026-12-06``), ``machine`` is
    ``machine(*packages)`` and ``command`` is ``command(script, argv)``.
    """
    return {
        "date": datetime.date.today().isoformat(),
        "machine": machine(*packages),
        "command": command(script, argv),
    }


def append_rows(
    path: str | os.PathLike[str],
    rows: Iterable[Mapping[str, object]],
    fieldnames: Sequence[str],
    extrasaction: Literal["raise", "ignore"] = "raise",
) -> None:
    """Appends ``rows`` to the CSV at ``path``, its columns ``fieldnames`` in that order.

    Writes the header first when the file is new or empty (and makes its
    folder). A row's key that is not a column raises :class:`ValueError`
    unless ``extrasaction`` is ``"ignore"`` (:class:`csv.DictWriter`).
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fresh = not path.exists() or path.stat().st_size == 0
    with open(path, "a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(fieldnames), extrasaction=extrasaction)
        if fresh:
            writer.writeheader()
        writer.writerows(rows)
