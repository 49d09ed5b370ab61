"""The rules of the house, checked statically on the source (``ast``; nothing is imported).

* No import cycle among gojax modules (module-level and function-level imports;
  imports under ``if TYPE_CHECKING:`` do not run and are left out).
* The layers: the contracts of ``[tool.importlinter]`` in ``pyproject.toml``
  (a package imports only from the layers below it; ``lint-imports``), the
  one place where the order is written down. What import-linter cannot say
  is checked here: the root (``gojax/__init__.py``) imports only the packages
  of :data:`ROOT_MAY_IMPORT`, and no module imports the root.
* No private name across subpackages: ``gojax.X._y`` (a module) and ``_name``
  (a function, class or constant) belong to ``gojax.X``; ``_core`` and
  ``_host`` are packages whose modules are public to gojax. A subfolder is
  part of its folder (and of its layer): the private modules and names of
  ``gojax.X.sub`` belong to ``gojax.X`` too.
* No function body over :data:`MAX_FUNCTION_LINES` lines (its docstring left
  out); a module is one concept, however long. Every module that defines
  public names declares ``__all__``.
* ``import gojax`` loads none of the optional heavy dependencies, and
  ``gojax.__all__`` is :data:`PUBLIC_API`.

Each check is a function of a package folder that returns the violations as
strings (``module:line: rule``); the tests run it on small synthetic packages
(so every check is seen to fail) and on the real ``gojax/``.
"""

from __future__ import annotations

import ast
import dataclasses
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "gojax"

ROOT_MAY_IMPORT = {"_core", "_version", "_host", "features", "symmetry", "env", "sgf", "svg"}
"""What ``gojax/__init__.py`` may import."""

ROOT_MODULES = {"__init__"}
"""Top-level modules that form the root package rather than a layer."""

PUBLIC_PACKAGES = {"_core", "_host", "_native", "_version"}
"""Packages (and the one module ``_version``) with a leading underscore whose modules are public to
the rest of gojax."""

MAX_FUNCTION_LINES = 80
"""The longest function body, in lines from its first statement after the docstring to its last."""

LONG_FUNCTIONS_TO_SPLIT: set[str] = set()
"""Functions over :data:`MAX_FUNCTION_LINES` that are not split yet. The check fails for an entry
that is gone or fits, so the set only shrinks."""

HEAVY = ["flax", "mctx", "optax", "orbax", "matplotlib", "pgx", "pyspiel"]
"""Optional dependencies that ``import gojax`` must not load."""

PUBLIC_API = [
    "BLACK",
    "COLUMNS",
    "EMPTY",
    "MOVE_CAP_PER_POINT",
    "WHITE",
    "EnvState",
    "GameRecord",
    "GoConfig",
    "GoEnv",
    "GoState",
    "InvariantError",
    "KoRule",
    "SGFError",
    "SvgBoard",
    "area",
    "auto_reset",
    "board",
    "board_svg",
    "check_invariants",
    "env",
    "features",
    "from_ascii",
    "from_board",
    "from_gtp",
    "init",
    "legal_action_mask",
    "make",
    "parse_board",
    "read_sgf",
    "render",
    "reset_if_done",
    "resign",
    "rewards",
    "score",
    "sgf",
    "step",
    "step_with_mask",
    "svg",
    "symmetry",
    "to_gtp",
    "to_play",
    "winner",
    "write_sgf",
]
"""``gojax.__all__``: adding or removing a public name is a decision, made here too."""


# --------------------------------------------------------------------------- reading the source


@dataclasses.dataclass(frozen=True)
class Import:
    """One imported gojax module (``target``) and, for ``from M import a, b``, the names taken."""

    line: int
    target: str  # the deepest gojax module the statement names
    names: tuple[str, ...]  # names taken from ``target`` (not submodules); () for ``import M``
    in_function: bool
    type_checking: bool


@dataclasses.dataclass(frozen=True)
class Module:
    name: str  # dotted, e.g. "gojax.sgf._replay"
    path: Path
    is_package: bool
    tree: ast.Module
    lines: int

    @property
    def package(self) -> str:
        """The package a relative import starts from."""
        return self.name if self.is_package else self.name.rpartition(".")[0]


def load_modules(package_dir: Path) -> dict[str, Module]:
    """Every ``.py`` file below ``package_dir``, by dotted module name (the folder's name first)."""
    modules = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        text = path.read_text(encoding="utf-8")
        name = ".".join(parts)
        modules[name] = Module(name, path, is_package, ast.parse(text, str(path)), len(text.splitlines()))
    return modules


def _type_checking_test(node: ast.AST) -> bool:
    test = node.test if isinstance(node, ast.If) else None
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports_of(module: Module, modules: dict[str, Module]) -> list[Import]:
    """The gojax imports of a module, wherever they stand (module level, functions, classes)."""
    top = module.name.split(".")[0]
    found: list[Import] = []

    def add(line: int, dotted: str, names: tuple[str, ...], in_function: bool, type_checking: bool) -> None:
        if dotted.split(".")[0] != top:
            return
        taken, submodules = [], []
        for name in names:
            (submodules if f"{dotted}.{name}" in modules else taken).append(name)
        if taken or not submodules:
            found.append(Import(line, dotted, tuple(taken), in_function, type_checking))
        for name in submodules:
            found.append(Import(line, f"{dotted}.{name}", (), in_function, type_checking))

    def visit(node: ast.AST, in_function: bool, type_checking: bool) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(node.lineno, alias.name, (), in_function, type_checking)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.package.split(".")
                base = base[: len(base) - node.level + 1]
                dotted = ".".join(base + ([node.module] if node.module else []))
            else:
                dotted = node.module or ""
            add(node.lineno, dotted, tuple(alias.name for alias in node.names), in_function, type_checking)
        inner = in_function or isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        for child in ast.iter_child_nodes(node):
            visit(child, inner, type_checking or _type_checking_test(node))

    visit(module.tree, False, False)
    return found


def _unit(name: str) -> str:
    """The subpackage (or top-level module) a module belongs to: ``gojax.sgf._replay`` -> ``sgf``;
    the root (``gojax``) -> ``""``."""
    parts = name.split(".")
    if len(parts) == 1 or parts[1] in ROOT_MODULES:
        return ""
    return parts[1]


def _inside(name: str, package: str) -> bool:
    return name == package or name.startswith(package + ".")


# --------------------------------------------------------------------------- the checks


def find_cycles(package_dir: Path) -> list[list[str]]:
    """Import cycles, each as the list of modules around it (first module repeated at the end)."""
    modules = load_modules(package_dir)
    graph = {
        name: sorted(
            {i.target for i in imports_of(module, modules) if not i.type_checking and i.target in modules}
            - {name}
        )
        for name, module in modules.items()
    }
    # Tarjan's strongly connected components; one shortest cycle through each non-trivial one.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    components: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                components.append(sorted(component))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10 * len(graph) + 100))
    for v in sorted(graph):
        if v not in index:
            connect(v)

    cycles: list[list[str]] = []
    for component in sorted(components):
        for start in component:  # a shortest cycle through every module not yet on a reported one
            if not any(start in cycle for cycle in cycles):
                cycles.append(_shortest_cycle(graph, set(component), start))
    return cycles


def _shortest_cycle(graph: dict[str, list[str]], members: set[str], start: str) -> list[str]:
    """A shortest cycle from ``start`` back to it inside one strongly connected component."""
    previous: dict[str, str] = {start: start}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in graph[v]:
                if w == start:
                    path = [v]
                    while path[-1] != start:
                        path.append(previous[path[-1]])
                    return [*reversed(path), start]
                if w in members and w not in previous:
                    previous[w] = v
                    nxt.append(w)
        frontier = nxt
    raise AssertionError(f"{start} is on no cycle of its component")


def root_violations(package_dir: Path) -> list[str]:
    """The root importing a package it may not, or a module importing the root package."""
    modules = load_modules(package_dir)
    top = package_dir.name
    out = []
    for name, module in modules.items():
        unit = _unit(name)
        for imp in imports_of(module, modules):
            target = _unit(imp.target)
            where = f"{name}:{imp.line}: imports {imp.target}"
            if imp.target == top or (not target and unit):
                out.append(f"{where}: only the root's own modules may import the root package")
            elif not unit and target and target not in ROOT_MAY_IMPORT:
                out.append(f"{where}: the root may import only {sorted(ROOT_MAY_IMPORT)}")
    return out


def private_violations(package_dir: Path) -> list[str]:
    """Private modules (``gojax.X._y``, ``gojax.X.sub._y``) or names (``_name``) imported from
    outside their subpackage ``gojax.X``."""
    modules = load_modules(package_dir)
    top = package_dir.name
    out = []
    for name, module in modules.items():
        for imp in imports_of(module, modules):
            parts = imp.target.split(".")
            for k, part in enumerate(parts[1:], start=1):  # the first private component of the path
                if part.startswith("_") and not (k == 1 and part in PUBLIC_PACKAGES):
                    owner = ".".join(parts[: min(k, 2)])  # gojax, or the subpackage gojax.X
                    allowed = not _unit(name) if k == 1 else _inside(name, owner)
                    if not allowed:
                        out.append(f"{name}:{imp.line}: imports private module {imp.target} of {owner}")
                    break
            private = [
                n for n in imp.names if n.startswith("_") and not (n.startswith("__") and n.endswith("__"))
            ]
            unit = _unit(imp.target)
            if private and unit != _unit(name):
                owner = f"{top}.{unit}" if unit else top
                out.append(
                    f"{name}:{imp.line}: imports private {', '.join(private)} from {imp.target}"
                    f" (private to {owner})"
                )
    return out


def _body_lines(function: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    """Lines from the first statement of a function's body after its docstring to the end of the last."""
    body = function.body
    if ast.get_docstring(function, clean=False) is not None:
        body = body[1:]
    if not body:
        return 0
    return (body[-1].end_lineno or body[-1].lineno) - body[0].lineno + 1


def _functions(tree: ast.AST, prefix: str = "") -> list[tuple[str, ast.FunctionDef | ast.AsyncFunctionDef]]:
    """Every function and method below ``tree``, nested ones included, by qualified name."""
    found = []
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.append((prefix + node.name, node))
            found += _functions(node, f"{prefix}{node.name}.")
        elif isinstance(node, ast.ClassDef):
            found += _functions(node, f"{prefix}{node.name}.")
        else:
            found += _functions(node, prefix)
    return found


def function_length_violations(
    package_dir: Path, max_lines: int = MAX_FUNCTION_LINES, to_split: frozenset[str] = frozenset()
) -> list[str]:
    """Functions whose body (docstring left out) runs over ``max_lines`` lines, but those of
    ``to_split`` (``module:function``); and entries of ``to_split`` that are gone or fit."""
    out, long = [], set()
    for name, module in load_modules(package_dir).items():
        for qualified, function in _functions(module.tree):
            lines = _body_lines(function)
            if lines > max_lines:
                long.add(f"{name}:{qualified}")
                if f"{name}:{qualified}" not in to_split:
                    out.append(
                        f"{name}:{function.lineno}: {qualified} has {lines} lines (at most {max_lines})"
                    )
    out += [f"{entry}: listed to split but not over {max_lines} lines" for entry in sorted(to_split - long)]
    return out


def _public_definitions(module: Module) -> list[str]:
    names = []
    for node in module.tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.append(node.name)
        elif isinstance(node, ast.Assign):
            names += [t.id for t in node.targets if isinstance(t, ast.Name)]
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.append(node.target.id)
        elif isinstance(node, ast.ImportFrom) and module.is_package and node.module != "__future__":
            names += [alias.asname or alias.name for alias in node.names]  # re-exports of a package
    return [n for n in names if not n.startswith("_")]


def all_violations(package_dir: Path) -> list[str]:
    """Modules that define (or, for a package, re-export) public names but no ``__all__``."""
    out = []
    for name, module in load_modules(package_dir).items():
        public = _public_definitions(module)
        declared = any(
            isinstance(target, ast.Name) and target.id == "__all__"
            for node in module.tree.body
            if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign)
            for target in (node.targets if isinstance(node, ast.Assign) else [node.target])
        )
        if public and not declared:
            out.append(
                f"{name}:1: defines {', '.join(public[:4])}{', ...' if len(public) > 4 else ''}"
                " but no __all__"
            )
    return out


# --------------------------------------------------------------------------- synthetic packages


def _write(root: Path, files: dict[str, str]) -> Path:
    """A package ``root/gojax`` of the given ``{relative path: source}`` (``__init__.py`` files added)."""
    package = root / "gojax"
    for relative, source in {"__init__.py": "", **files}.items():
        path = package / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        for parent in path.relative_to(package).parents:
            (package / parent / "__init__.py").touch()
        path.write_text(textwrap.dedent(source), encoding="utf-8")
    return package


def test_cycle_checker_reports_module_and_function_level_cycles(tmp_path):
    package = _write(
        tmp_path,
        {
            "sgf/a.py": "from gojax.sgf import b\n",
            "sgf/b.py": "def late():\n    import gojax.sgf.c\n",
            "sgf/c.py": "from . import a\n",
            "svg/d.py": "from gojax.sgf import a\nfrom gojax.svg import e\n",  # into the cycle, not in it
            # e -> d only under TYPE_CHECKING (which does not run): no cycle d -> e -> d
            "svg/e.py": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from gojax.svg import d\n",
        },
    )
    assert find_cycles(package) == [["gojax.sgf.a", "gojax.sgf.b", "gojax.sgf.c", "gojax.sgf.a"]]
    (package / "sgf" / "b.py").write_text("X = 1\n")
    assert find_cycles(package) == []


def test_cycle_checker_sees_a_cycle_through_the_root(tmp_path):
    package = _write(
        tmp_path, {"__init__.py": "from gojax.sgf import read\n", "sgf/read.py": "import gojax\n"}
    )
    assert find_cycles(package) == [["gojax", "gojax.sgf.read", "gojax"]]


def test_root_checker(tmp_path):
    package = _write(
        tmp_path,
        {
            "__init__.py": "from gojax import sgf\nfrom gojax.players import play\n"
            "from gojax._version import v\n",
            "_version.py": "",
            "sgf/__init__.py": "from gojax.features import f\n",
            "svg/s.py": "import gojax\n",
            "players/play.py": "",
            "features/f.py": "def g():\n    import gojax\n",
        },
    )
    assert root_violations(package) == [
        "gojax:2: imports gojax.players.play: the root may import only "
        "['_core', '_host', '_version', 'env', 'features', 'sgf', 'svg', 'symmetry']",
        "gojax.features.f:2: imports gojax: only the root's own modules may import the root package",
        "gojax.svg.s:1: imports gojax: only the root's own modules may import the root package",
    ]


def _lint_imports(cwd: Path, *args: str, path: str = "") -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([path, os.environ.get("PYTHONPATH", "")])}
    command = [str(Path(sys.executable).with_name("lint-imports")), "--no-cache", *args]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


@pytest.mark.integration  # starts processes
def test_the_layer_contracts_hold():
    """``lint-imports`` with the contracts of pyproject.toml: the layers of docs/architecture.md."""
    run = _lint_imports(ROOT, path=str(ROOT))
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
    assert "0 broken" in run.stdout


@pytest.mark.integration  # starts processes
def test_a_layer_contract_catches_an_import_upwards(tmp_path):
    """The same contract type on a toy package whose lower layer imports the upper one."""
    for name, text in {
        "toy/__init__.py": "",
        "toy/high/__init__.py": "",
        "toy/low/__init__.py": "",
        "toy/low/reads.py": "def f():\n    from toy.high import anything\n",
    }.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    (tmp_path / "contracts.ini").write_text(
        "[importlinter]\nroot_package = toy\n\n[importlinter:contract:layers]\nname = toy layers\n"
        "type = layers\ncontainers = toy\nlayers =\n    high\n    low\n"
    )
    run = _lint_imports(tmp_path, "--config", "contracts.ini", path=str(tmp_path))
    assert run.returncode != 0, run.stdout[-3000:]
    assert "BROKEN" in run.stdout and "toy.low.reads -> toy.high" in run.stdout, run.stdout[-3000:]


def test_private_checker(tmp_path):
    package = _write(
        tmp_path,
        {
            "__init__.py": "from gojax._core.rules import step, _helper\nfrom gojax._version import v\n",
            "_version.py": "v = 1\n",
            "_secret.py": "s = 1\n",
            "_core/rules.py": "from gojax._core._bits import _fill\n",
            "_core/_bits.py": "",
            "players/_common.py": "",
            "players/uct.py": "from gojax.players._common import sample\nfrom gojax.players import _common\n",
            # A subfolder is part of its folder: its private modules and names are the folder's.
            "features/ladders/__init__.py": "from gojax.features.ladders._read import read\n",
            "features/ladders/_read.py": "",
            "features/planes.py": "from gojax.features.ladders import _read\n"
            "from gojax.features.ladders._read import _chase\n",
            "sgf/board.py": "from gojax.features.ladders import _read\n"
            "from gojax.features.ladders import read, _chase\n",
            "alphazero/search.py": (
                "from gojax.players._common import sample\n"
                "from gojax.players import _common, uct\n"
                "import gojax.players._common\n"
                "from gojax._core.rules import step, _helper\n"
                "from gojax._core import rules\n"
                "def f():\n    from gojax.players.uct import _select\n"
                "from gojax._version import v\n"
                "from gojax.players import __version__\n"
                "from gojax._secret import s\n"
            ),
        },
    )
    assert private_violations(package) == [
        "gojax:1: imports private _helper from gojax._core.rules (private to gojax._core)",
        "gojax.alphazero.search:1: imports private module gojax.players._common of gojax.players",
        "gojax.alphazero.search:2: imports private module gojax.players._common of gojax.players",
        "gojax.alphazero.search:3: imports private module gojax.players._common of gojax.players",
        "gojax.alphazero.search:4: imports private _helper from gojax._core.rules (private to gojax._core)",
        "gojax.alphazero.search:7: imports private _select from gojax.players.uct (private to gojax.players)",
        "gojax.alphazero.search:10: imports private module gojax._secret of gojax",
        "gojax.sgf.board:1: imports private module gojax.features.ladders._read of gojax.features",
        "gojax.sgf.board:2: imports private _chase from gojax.features.ladders (private to gojax.features)",
    ]


def test_function_length_checker(tmp_path):
    def function(name: str, lines: int, docstring: str = "") -> str:
        return f"def {name}():\n{docstring}" + "    x = 1\n" * lines

    long_docstring = '    """A docstring\n' + "    of many lines\n" * 30 + '    """\n'
    package = _write(
        tmp_path,
        {
            "sgf/read.py": function("fits", 80)
            + function("long", 81)
            + function("documented", 80, long_docstring),  # 80 lines after its docstring
            "svg/draw.py": (
                "class Board:\n"
                + "".join("    " + line + "\n" for line in function("draw", 81).splitlines())
                + function("outer", 2)
                + "".join("    " + line + "\n" for line in function("inner", 81).splitlines())
            ),
            "gtp/main.py": function("parser", 90) + function("short", 3),
        },
    )
    assert function_length_violations(package) == [
        "gojax.gtp.main:1: parser has 90 lines (at most 80)",
        "gojax.sgf.read:82: long has 81 lines (at most 80)",
        "gojax.svg.draw:2: Board.draw has 81 lines (at most 80)",
        "gojax.svg.draw:84: outer has 84 lines (at most 80)",
        "gojax.svg.draw:87: outer.inner has 81 lines (at most 80)",
    ]
    # A function listed to split is let through; an entry that fits or is gone is reported.
    to_split = frozenset({"gojax.gtp.main:parser", "gojax.gtp.main:short", "gojax.gtp.main:gone"})
    assert function_length_violations(package, to_split=to_split) == [
        "gojax.sgf.read:82: long has 81 lines (at most 80)",
        "gojax.svg.draw:2: Board.draw has 81 lines (at most 80)",
        "gojax.svg.draw:84: outer has 84 lines (at most 80)",
        "gojax.svg.draw:87: outer.inner has 81 lines (at most 80)",
        "gojax.gtp.main:gone: listed to split but not over 80 lines",
        "gojax.gtp.main:short: listed to split but not over 80 lines",
    ]


def test_all_checker(tmp_path):
    package = _write(
        tmp_path,
        {
            "sgf/__init__.py": "from gojax.sgf.read import read\n",
            "sgf/read.py": "__all__ = ['read']\ndef read():\n    pass\n",
            "sgf/_private.py": "def _helper():\n    pass\n",
            "svg/draw.py": "from __future__ import annotations\nimport os\n"
            "class Board:\n    pass\nSIZE: int = 3\n",
        },
    )
    assert all_violations(package) == [
        "gojax.sgf:1: defines read but no __all__",
        "gojax.svg.draw:1: defines Board, SIZE but no __all__",
    ]


# --------------------------------------------------------------------------- the real package


REAL_PACKAGE_CHECKS = [
    pytest.param(
        lambda root: [" -> ".join(cycle) for cycle in find_cycles(root)],
        id="no_import_cycles",
    ),
    pytest.param(root_violations, id="root_imports"),
    pytest.param(
        private_violations,
        id="no_private_imports_across_subpackages",
    ),
    pytest.param(
        lambda root: function_length_violations(root, to_split=frozenset(LONG_FUNCTIONS_TO_SPLIT)),
        id="no_function_over_80_lines",
    ),
    pytest.param(all_violations, id="every_module_with_public_names_has_all"),
]


@pytest.mark.parametrize("check", REAL_PACKAGE_CHECKS)
def test_real_package(check):
    violations = check(PACKAGE)
    assert not violations, "\n".join(violations)


@pytest.mark.integration  # starts processes
def test_import_gojax_loads_no_heavy_dependency_and_pins_the_public_api():
    code = (
        "import gojax, sys; "
        f"print(sorted(m for m in sys.modules if m.split('.')[0] in {set(HEAVY)!r})); "
        "print(list(gojax.__all__))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    loaded, api = done.stdout.strip().splitlines()[-2:]
    assert loaded == "[]", f"import gojax loads {loaded}"
    assert api == repr(PUBLIC_API), f"gojax.__all__ changed: {api}"


# --------------------------------------------------------------------------- CI: no silent skips


def _run_pytest(folder: Path, ci: bool) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    if ci:
        env["CI"] = "true"
    # Both test files in one run: the run goes on past the module that fails to collect.
    command = [sys.executable, "-m", "pytest", "-q", "-ra", "-p", "no:cacheprovider"]
    command += ["--continue-on-collection-errors", str(folder)]
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.integration  # starts processes
def test_ci_turns_unexpected_skips_into_failures(tmp_path):
    (tmp_path / "conftest.py").write_text((ROOT / "tests" / "conftest.py").read_text())
    (tmp_path / "test_skips.py").write_text(
        textwrap.dedent(
            """
            import pytest

            def test_program_missing():
                pytest.skip("GNU Go is not installed")

            @pytest.mark.skipif(True, reason="game records not found")
            def test_data_missing():
                pass

            def test_accelerator():
                pytest.skip("needs an accelerator")

            @pytest.mark.xfail(strict=True, reason="known")
            def test_known_failure():
                assert False

            def test_plain():
                pass
            """
        )
    )
    # A test module that skips as a whole (a missing package of the test extra).
    (tmp_path / "test_missing_extra.py").write_text(
        'import pytest\npytest.importorskip("no_such_module_anywhere", reason="in the test extra")\n'
        "def test_never():\n    pass\n"
    )
    local = _run_pytest(tmp_path, ci=False)
    assert local.returncode == 0, local.stdout[-3000:]
    assert "1 passed, 4 skipped, 1 xfailed" in local.stdout, local.stdout[-3000:]
    assert "GNU Go is not installed" in local.stdout  # listed at the end (-ra)
    ci = _run_pytest(tmp_path, ci=True)
    assert ci.returncode == 1, ci.stdout[-3000:]
    # A skip in a test body fails it; a skip at setup (skipif) is a setup error, and so is
    # a module that skips (it does not collect); the accelerator skip stays a skip.
    assert "1 failed, 1 passed, 1 skipped, 1 xfailed, 2 errors" in ci.stdout, ci.stdout[-3000:]
    assert "ERROR test_missing_extra.py" in ci.stdout, ci.stdout[-3000:]
    assert "skipped under CI=true" in ci.stdout and "GNU Go is not installed" in ci.stdout


if __name__ == "__main__":  # python tests/test_architecture.py: every violation in the real package
    for param in REAL_PACKAGE_CHECKS:
        check, name = param.values[0], param.id
        found = check(PACKAGE)
        print(f"{name}: {len(found)}", *(f"  {v}" for v in found), sep="\n")


def test_tiers_name_test_files_that_exist():
    """A renamed test file must not fall silently into the ``unit`` tier, nor out of the files run first."""
    from conftest import HEAVIEST_FILES, TIERS

    files = {path.name for path in (ROOT / "tests").glob("test_*.py")}
    named = {name for names in TIERS.values() for name in names}
    assert named and named <= files
    assert not set.intersection(*TIERS.values())
    assert HEAVIEST_FILES and set(HEAVIEST_FILES) <= files
    assert len(set(HEAVIEST_FILES)) == len(HEAVIEST_FILES)


def _collect(folder: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    command = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", *args]
    return subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True, timeout=300)


@pytest.mark.integration  # starts processes
def test_a_tests_own_tier_marker_wins_and_the_heaviest_files_come_first(tmp_path):
    from conftest import HEAVIEST_FILES, TIERS

    (tmp_path / "conftest.py").write_text((ROOT / "tests" / "conftest.py").read_text())
    heavy = HEAVIEST_FILES[-1]  # collected after test_aaa.py by name, first by weight
    tier = {name: tier for tier, names in TIERS.items() for name in names}.get(heavy, "unit")
    (tmp_path / heavy).write_text("def test_heavy():\n    pass\n")
    (tmp_path / "test_aaa.py").write_text(
        "import pytest\n\ndef test_plain():\n    pass\n\n"
        "@pytest.mark.integration\ndef test_marked():\n    pass\n"
    )
    everything = _collect(tmp_path)
    assert everything.returncode == 0, everything.stdout[-3000:]
    order = [line for line in everything.stdout.splitlines() if "::" in line]
    assert order == [f"{heavy}::test_heavy", "test_aaa.py::test_plain", "test_aaa.py::test_marked"], order
    unit = _collect(tmp_path, "-m", "unit")
    expected = ["test_aaa.py::test_plain"] + ([f"{heavy}::test_heavy"] if tier == "unit" else [])
    assert sorted(line for line in unit.stdout.splitlines() if "::" in line) == sorted(expected), unit.stdout
    integration = _collect(tmp_path, "-m", "integration")
    assert "test_aaa.py::test_marked" in integration.stdout and "test_plain" not in integration.stdout
    (tmp_path / "test_two.py").write_text(
        "import pytest\n\n@pytest.mark.unit\n@pytest.mark.reference\ndef test_both():\n    pass\n"
    )
    both = _collect(tmp_path, "test_two.py")
    assert both.returncode != 0 and "marked with two tiers: unit, reference" in both.stdout + both.stderr
