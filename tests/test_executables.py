"""The store of compiled executables (:mod:`gojax._host.executables`) across processes.

Each step runs in a fresh interpreter, as the host tools do: a stored
executable must load whole in the next process, even when JAX's own
persistent cache held the same code when it was compiled (on XLA:CPU an
executable that JAX loaded from its cache serializes without its code).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

DRIVER = """
import logging, sys
from pathlib import Path
import jax, numpy as np
import gojax
from gojax._host import compiled
from gojax.gtp._cache import enable

logging.basicConfig(level=logging.INFO, stream=sys.stdout)
enable(sys.argv[1])
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)  # JAX's cache keeps everything
config = gojax.GoConfig(size=5)
state = jax.device_get(gojax.step(config, gojax.init(config), 6))
legal = compiled.jitted(gojax.legal_action_mask, config)
print("legal", np.flatnonzero(np.asarray(legal(state))).tolist())
print("files", len(list(Path(sys.argv[1], "executables").glob("*.pkl"))))
print("gojax from", Path(gojax.__file__).parent)
"""


def _driver(cache: Path, source: Path = REPO) -> tuple[str, list[str]]:
    """(log, the legal-move line) of :data:`DRIVER` run in a fresh interpreter on ``cache``, importing
    the ``gojax`` package under ``source``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(source), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, str(cache)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        cwd=source,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout + done.stderr
    return out, [line for line in out.splitlines() if line.startswith("legal")]


def test_stored_executables_load_whole_even_when_jax_cache_held_their_code(tmp_path):
    cache = tmp_path / "cache"
    first, legal = _driver(cache)
    assert "files 1" in first and "loaded a compiled function" not in first, first
    assert legal and legal[0] != "legal []"
    second, again = _driver(cache)
    assert "loaded a compiled function" in second and "cannot load" not in second, second
    assert again == legal
    # A damaged file is compiled again - while JAX's own cache holds the code, whose executable
    # would serialize without it - and the next process loads the new file whole.
    (stored,) = (cache / "executables").glob("*.pkl")
    stored.write_bytes(b"not an executable")
    third, again = _driver(cache)
    assert "cannot load the compiled function" in third and again == legal, third
    fourth, again = _driver(cache)
    assert "loaded a compiled function" in fourth and "cannot load" not in fourth, fourth
    assert again == legal


def test_an_edited_source_file_makes_the_store_compile_again(tmp_path):
    # A copy of the package: the store keeps what it compiled from it, until one of its files
    # is edited (same names, other contents): then the next process compiles again, as after
    # an upgrade, instead of running the executable of the old code.
    source = tmp_path / "source"
    shutil.copytree(REPO / "gojax", source / "gojax", ignore=shutil.ignore_patterns("__pycache__"))
    cache = tmp_path / "cache"
    first, legal = _driver(cache, source)
    assert f"gojax from {source / 'gojax'}" in first, first
    assert "files 1" in first and "loaded a compiled function" not in first, first
    second, again = _driver(cache, source)
    assert "loaded a compiled function" in second and again == legal, second
    edited = source / "gojax" / "_core" / "zobrist.py"
    edited.write_text(edited.read_text() + "\n# an edit that changes no name\n")
    third, again = _driver(cache, source)
    assert "loaded a compiled function" not in third and "files 2" in third, third
    assert again == legal
