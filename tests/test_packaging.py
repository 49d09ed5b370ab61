"""Packaging: the wheel a pip user gets, its console scripts, optional extras, the API reference.

* The wheel is built from a copy of the sources (``pip wheel --no-deps
  --no-build-isolation``) and installed with ``--no-deps`` into a fresh
  virtual environment that sees the test environment's packages (JAX, Flax,
  ...) only through a path entry after its own, never the checkout: its
  metadata (license, Python floor, dependency floors, extras), its files
  (``py.typed``, the license, no tests) and its console scripts are checked
  from there.
* A base install (no extra) is simulated by hiding the optional packages
  (``sys.modules[name] = None``): the core still runs, and every feature that
  needs an extra fails with one line naming it.
* ``docs/api.py`` builds the API reference with pdoc and fails on pdoc's
  warnings or a missing page.
"""

from __future__ import annotations

import email
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pytest
from conftest import needs

ROOT = Path(__file__).resolve().parents[1]
OPTIONAL = [
    "flax",
    "optax",
    "orbax",
    "mctx",
    "chex",
    "matplotlib",
    "tqdm",
    "cairosvg",
    "tensorboardX",
    "pdoc",
]
SCRIPTS = ["gojax-gtp", "gojax-match", "gojax-train", "gojax-selfplay"]
RUN_HELP = [
    "gojax-gtp",
    "gojax-match",
    "gojax-selfplay",
]  # gojax-train imports Flax and orbax (slow): listed only


def _python(
    code: str, *, cwd: Path, python: str = sys.executable, hide: tuple[str, ...] = ()
) -> subprocess.CompletedProcess:
    """Runs ``code`` in a new interpreter that imports gojax from wherever ``python`` finds it."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONSTARTUP")}
    env["JAX_PLATFORMS"] = "cpu"
    if python == sys.executable:
        env["PYTHONPATH"] = str(ROOT)  # this checkout
    prelude = "import sys\n" + "".join(f"sys.modules[{name!r}] = None\n" for name in hide)
    return subprocess.run(
        [python, "-c", prelude + code], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


# ---------------------------------------------------------------------------
# The wheel in a fresh environment.


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """``(wheel path, python of a fresh venv with the wheel installed)``."""
    needs("setuptools")
    tmp = tmp_path_factory.mktemp("wheel")
    source = tmp / "src"
    shutil.copytree(ROOT / "gojax", source / "gojax", ignore=shutil.ignore_patterns("__pycache__"))
    for name in ("pyproject.toml", "setup.py", "README.md", "LICENSE"):
        shutil.copy(ROOT / name, source / name)
    build = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            str(source),
            "-w",
            str(tmp),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    (wheel,) = tmp.glob("gojax-*.whl")
    env_dir = tmp / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # The test environment's packages (JAX, ...), after the venv's own: a plain path, so its .pth
    # files (the editable install of this checkout among them) are not run.
    Path(purelib, "zz_test_environment.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    # --force-reinstall: the checkout's own gojax is visible through that path, and pip must not
    # take it for this wheel already installed.
    install = subprocess.run(
        [
            *(sys.executable, "-m", "pip", "--python", str(python), "install"),
            *("--no-deps", "--force-reinstall", str(wheel)),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert install.returncode == 0, install.stderr[-3000:]
    assert Path(purelib, "gojax", "__init__.py").is_file(), install.stdout[-3000:]
    return wheel, python


def test_wheel_metadata_and_files(installed):
    wheel, _ = installed
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        info = next(n for n in names if n.endswith(".dist-info/METADATA"))
        metadata = email.message_from_bytes(archive.read(info))
        entry_points = archive.read(info.replace("METADATA", "entry_points.txt")).decode()
    assert "gojax/py.typed" in names and any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert not [n for n in names if n.startswith(("tests/", "experiments/", "docs/"))]
    assert {"gojax/_core/rules.py", "gojax/dataset/selfplay.py", "gojax/svg/_png.py"} <= set(names)
    # gojax.sgf.example_games(): the records ship as package data (the folder's README does not).
    shipped = sorted(n for n in names if n.startswith("gojax/sgf/data/"))
    assert shipped == [f"gojax/sgf/data/game_{i:03d}.sgf" for i in range(5)]
    # The feature planes' native CPU kernels, compiled by the build (a C compiler is here).
    assert [n for n in names if re.fullmatch(r"gojax/_native/_kernels[^/]*\.so", n)], "no native kernels"
    assert metadata["License-Expression"] == "Apache-2.0"
    assert metadata["Requires-Python"] == ">=3.11"
    requires = metadata.get_all("Requires-Dist")
    assert "jax<0.11,>=0.10.2" in requires and "numpy>=2.4" in requires
    assert not [r for r in requires if "extra ==" not in r and not r.startswith(("jax", "numpy"))]
    assert {"players", "alphazero", "png", "docs", "test"} <= set(metadata.get_all("Provides-Extra"))
    assert 'cairosvg>=2.9; extra == "png"' in requires and 'pdoc>=16; extra == "docs"' in requires
    for script in SCRIPTS:
        assert re.search(rf"^{script} = gojax\.", entry_points, re.M), script


def test_console_scripts_run_from_the_fresh_environment(installed, tmp_path):
    _, python = installed
    where = _python("import gojax; print(gojax.__file__)", cwd=tmp_path, python=str(python))
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(python.parent.parent), (
        "gojax not imported from the wheel"
    )
    games = _python(
        "import gojax; paths = gojax.sgf.example_games(); print(paths[0].parent);"
        " print(sum(len(gojax.read_sgf(p).moves) for p in paths))",
        cwd=tmp_path,
        python=str(python),
    )
    assert games.returncode == 0, games.stderr
    folder, moves = games.stdout.split()
    assert Path(folder).is_relative_to(python.parent.parent) and moves == "435", games.stdout
    for script in RUN_HELP:
        run = subprocess.run(
            [python.parent / script, "--help"], cwd=tmp_path, capture_output=True, text=True, timeout=300
        )
        assert run.returncode == 0, (script, run.stderr[-2000:])
        assert run.stdout.startswith("usage: "), (script, run.stdout[:200])
    assert all((python.parent / script).is_file() for script in SCRIPTS)


# ---------------------------------------------------------------------------
# A base install: the core runs, every optional feature names its extra in one line.

BASE_PROGRAM = r"""
import gojax, gojax.players, gojax.sgf, gojax.dataset.selfplay
config = gojax.GoConfig(size=5)
state = gojax.from_ascii(config, ". . . . .\n. . . . .\n. . X . .\n. . . . .\n. . . . .", to_play=2)
assert int(gojax.board(config, state)[2, 2]) == gojax.BLACK
assert gojax.sgf.parse_sgf("(;SZ[5];B[cc])").moves == [(1, 12)]
gojax.SvgBoard.from_state(config, state).save("board.svg")
loaded = [name for name in {hidden} if name in sys.modules and sys.modules[name] is not None]
assert not loaded, loaded
print("base ok")
"""


def test_a_base_install_runs_the_core(tmp_path):
    run = _python(BASE_PROGRAM.format(hidden=OPTIONAL), cwd=tmp_path, hide=tuple(OPTIONAL))
    assert run.returncode == 0 and run.stdout.strip() == "base ok", run.stderr[-3000:]


@pytest.mark.parametrize(
    ("code", "hidden", "message"),
    [
        ("import gojax.alphazero", ("flax",), "gojax.alphazero needs flax: pip install 'gojax[alphazero]'"),
        (
            "import gojax.training",
            ("orbax",),
            "gojax.training needs orbax-checkpoint: pip install 'gojax[alphazero]'",
        ),
    ],
)
def test_a_missing_extra_is_one_line_naming_it(tmp_path, code, hidden, message):
    run = _python(code, cwd=tmp_path, hide=hidden)
    assert run.returncode == 1
    assert run.stderr.strip().splitlines()[-1] == f"ImportError: {message}", run.stderr[-2000:]
    # The chained traceback of the absent package is not shown: one error, one message.
    assert len(re.findall(r"^\w+Error: ", run.stderr, re.M)) == 1 and "During handling" not in run.stderr


@pytest.mark.parametrize(
    ("code", "hidden", "message"),
    [
        (
            "from gojax.scripts import train; sys.exit(train(['--minutes', '0.1']))",
            ("flax",),
            "gojax-train: gojax.training needs flax: pip install 'gojax[alphazero]'",
        ),
        (
            "from gojax.dataset.selfplay import main; sys.exit(main(['--player', 'uct', '--games', '2']))",
            ("mctx",),
            "gojax-selfplay: gojax.players.uct_player needs mctx: pip install 'gojax[players]'",
        ),
    ],
)
def test_a_console_script_without_its_extra_says_so_in_one_line(tmp_path, code, hidden, message):
    run = _python(code, cwd=tmp_path, hide=hidden)
    assert run.returncode == 2 and run.stderr.strip() == message, run.stderr[-2000:]
    assert not list(tmp_path.iterdir())  # nothing written


@pytest.mark.parametrize(
    ("hidden", "action", "message"),
    [
        ("mctx", "uct", "gojax.players.uct_player needs mctx: pip install 'gojax[players]'"),
        ("tqdm", "tqdm", "the progress bar of gojax-train needs tqdm: pip install 'gojax[alphazero]'"),
        ("cairosvg", "png", "saving a picture as PNG needs cairosvg: pip install 'gojax[png]'"),
    ],
)
def test_optional_features_name_their_extra(monkeypatch, tmp_path, hidden, action, message):
    import gojax
    from gojax._host.optional import import_optional
    from gojax.players import uct_player

    monkeypatch.setitem(sys.modules, hidden, None)
    with pytest.raises(ImportError, match=f"^{re.escape(message)}$"):
        if action == "uct":
            uct_player(8)
        elif action == "tqdm":
            import_optional("tqdm.auto", feature="the progress bar of gojax-train", extra="alphazero")
        else:
            config = gojax.GoConfig(size=5)
            gojax.SvgBoard.from_state(config, gojax.init(config)).save(tmp_path / "b.png")


def test_import_optional_keeps_errors_of_installed_packages(tmp_path, monkeypatch):
    from gojax._host.optional import import_optional

    (tmp_path / "broken_optional_package.py").write_text("import a_module_that_is_not_there\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ModuleNotFoundError, match="a_module_that_is_not_there"):
        import_optional("broken_optional_package", feature="x", extra="y")


# ---------------------------------------------------------------------------
# The API reference.


def test_api_reference_builds_without_warnings(tmp_path):
    needs("pdoc")
    needs("flax")
    out = tmp_path / "api"
    run = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "api.py"), str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "JAX_PLATFORMS": "cpu"},
    )
    assert run.returncode == 0, run.stderr[-3000:]
    page = (out / "gojax.html").read_text()
    assert "legal_action_mask" in page and "GoConfig" in page
    assert "parse_sgf" in (out / "gojax" / "sgf.html").read_text()
    assert (out / "gojax" / "dataset" / "selfplay.html").is_file()
