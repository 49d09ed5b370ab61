"""The compilation cache of ``gojax-gtp``: where it goes, that it fills, that it is used, that it can be off.

* :func:`gojax.gtp._cache.resolve`: the flag, then ``GOJAX_COMPILE_CACHE``,
  then ``$XDG_CACHE_HOME/gojax/jax`` (``~/.cache/gojax/jax``); ``off``.
* ``python -m gojax.gtp --compile-cache DIR`` on 5x5 with the heuristic player:
  after a ``genmove`` the directory holds JAX's cache entries and the
  compiled player; a second process loads the player from it (its log says
  so) and answers the same move; ``--no-compile-cache`` (with the
  environment variable pointing elsewhere) writes nothing anywhere.
* Importing gojax turns no cache on.
* The tree search stored at one komi is loaded, not compiled, at another.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gojax.gtp._cache import default_directory, resolve

REPO = Path(__file__).resolve().parents[1]
COMMANDS = "boardsize 5\nclear_board\ngenmove b\nquit\n"


def _run(args: list[str], folder: Path, cache_env: str | None) -> tuple[str, str]:
    """(stdout, stderr) of ``python -m gojax.gtp --size 5 --player heuristic ARGS`` on :data:`COMMANDS`."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    env.pop("GOJAX_COMPILE_CACHE", None)
    env["XDG_CACHE_HOME"] = str(folder / "xdg")  # the default directory, if anything falls back to it
    if cache_env is not None:
        env["GOJAX_COMPILE_CACHE"] = cache_env
    done = subprocess.run(
        [sys.executable, "-m", "gojax.gtp", "--size", "5", "--player", "heuristic", "--seed", "3", *args],
        input=COMMANDS,
        capture_output=True,
        text=True,
        cwd=folder,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout, done.stderr


def _files(folder: Path) -> list[Path]:
    return [p for p in folder.rglob("*") if p.is_file()] if folder.exists() else []


def test_resolve_order():
    home = {"HOME": "/home/u"}
    assert resolve(environ=home) == Path("/home/u/.cache/gojax/jax") == default_directory(home)
    assert resolve(environ={**home, "XDG_CACHE_HOME": "/x"}) == Path("/x/gojax/jax")
    assert resolve(environ={**home, "XDG_CACHE_HOME": "/x", "GOJAX_COMPILE_CACHE": "/e"}) == Path("/e")
    assert resolve("/flag", environ={"GOJAX_COMPILE_CACHE": "/e"}) == Path("/flag")
    for off in ("off", "0", "", "None", " FALSE "):
        assert resolve(environ={**home, "GOJAX_COMPILE_CACHE": off}) is None
    assert resolve(disabled=True, environ={"GOJAX_COMPILE_CACHE": "/e"}) is None
    with pytest.raises(ValueError, match="contradict"):
        resolve("/flag", disabled=True)


def test_importing_gojax_turns_no_cache_on():
    # A fresh interpreter: other tests of this process may run the engine's main(), which turns it on.
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")])}
    env.pop("JAX_COMPILATION_CACHE_DIR", None)  # the test session's own cache (tests/conftest.py)
    code = "import gojax, gojax.gtp, jax; print(repr(jax.config.jax_compilation_cache_dir))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() in ("None", "''")


def test_the_cache_fills_is_used_and_can_be_off(tmp_path):
    cache = tmp_path / "cache"
    first, log = _run(["--compile-cache", str(cache)], tmp_path, cache_env=None)
    stored = _files(cache / "executables")
    assert len(stored) >= 2, stored  # the player's levels and the rules the game runs
    assert "loaded a compiled function" not in log
    again, log = _run([], tmp_path, cache_env=str(cache))  # the same directory, through the variable
    assert log.count("loaded a compiled function") >= 2, log
    assert "cannot load" not in log and "fallback" not in log, log
    assert again == first  # the same seed, the same move
    elsewhere = tmp_path / "elsewhere"
    third, log = _run(["--no-compile-cache"], tmp_path, cache_env=str(elsewhere))
    assert third == first
    assert not elsewhere.exists() and not (tmp_path / "xdg").exists()
    assert "compilation cache:" not in log


def test_the_stored_tree_search_serves_every_komi(tmp_path):
    # The executables the tree search stores are keyed by the rules without the komi: a later start
    # (the in-process caches emptied) at another komi loads them all and compiles nothing.
    from conftest import compilations

    import gojax
    from gojax._host import compiled, executables
    from gojax.gtp import PlayerSpec
    from gojax.gtp._mcts import TreeSearcher
    from gojax.search import TreeSearchSettings

    settings = TreeSearchSettings(leaves_per_batch=4, playouts_per_leaf=2, playout_policy="light")
    spec = PlayerSpec("mcts", search=settings, seconds_per_move=None, simulations=8)
    store = tmp_path / "executables"

    def fresh_start():
        compiled._cached_stored.cache_clear()
        executables._loaded.clear()

    executables.use_directory(store)
    try:
        fresh_start()
        config = gojax.GoConfig(size=3, komi=7.5)
        TreeSearcher(spec).search(config, gojax.init(config))
        stored = sorted(_files(store))
        assert stored
        fresh_start()
        with compilations() as lowered:
            other = gojax.GoConfig(size=3, komi=0.5)
            stats = TreeSearcher(spec).search(other, gojax.init(other))
        assert lowered == [] and sorted(_files(store)) == stored
        assert stats.playouts >= 8
    finally:
        executables.use_directory(None)
        fresh_start()
