"""Builds gojax's API reference from its docstrings with pdoc, and fails on any pdoc warning.

    pip install -e ".[docs,alphazero]"
    python docs/api.py                 # writes build/api/ (open build/api/index.html)
    python docs/api.py OUT_DIR

Every public module is documented: every ``gojax/**.py`` whose dotted name has
no part starting with ``_`` (``gojax.players.match``, ``gojax.dataset.selfplay``,
...). pdoc imports them, so the packages of the ``alphazero`` extra must be
installed. The test suite runs this script (``tests/test_packaging.py``), so
the reference cannot fall behind the code.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def public_modules(root: Path = ROOT) -> list[str]:
    """The dotted names of gojax's public modules, from the source tree (nothing imported)."""
    names = []
    for path in sorted((root / "gojax").rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        if not any(part.startswith("_") for part in parts):
            names.append(".".join(parts))
    return names


def build(out: Path) -> list[str]:
    """Writes the reference into ``out``; returns pdoc's warnings (empty when all is well)."""
    import pdoc
    import pdoc.render

    modules = public_modules()
    pdoc.render.configure(docformat="google", search=True, show_source=True)
    pdoc_dir = str(Path(pdoc.__file__).parent)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        pdoc.pdoc(*modules, output_directory=out)
    problems = [
        f"{w.category.__name__}: {w.message}"
        for w in caught
        if w.filename.startswith(pdoc_dir) and "has already been added" not in str(w.message)
    ]  # (a package's page already lists the submodules in its __all__: naming them again is harmless)
    for name in modules:
        if not (out / (name.replace(".", "/") + ".html")).is_file():
            problems.append(f"no page for {name}")
    return problems


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    out = Path(args[0] if args else ROOT / "build" / "api")
    sys.path.insert(0, str(ROOT))  # document this checkout
    problems = build(out)
    for problem in problems:
        print(f"docs/api.py: {problem}", file=sys.stderr)
    if problems:
        return 1
    print(f"API reference of {len(public_modules())} modules -> {out}/index.html")
    return 0


if __name__ == "__main__":
    sys.exit(main())
