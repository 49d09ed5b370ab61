"""experiments/tour.ipynb: stored with its outputs, and executed here headless (nbclient).

The notebook is committed **with** its outputs, so its boards show on a code
host. The stored outputs must hold no error and no path of the machine that
ran it; every code cell must have run, in order. The notebook reads nothing
outside the repository: its game records are the ones that ship with gojax
(``gojax.sgf.example_games()``), so a clone, a pip install and Colab produce
what is stored. The suite executes the notebook again (a python3 kernel on
this interpreter; its first cell installs gojax only where it is missing) and
checks the fresh outputs: the same kinds of output, cell by cell, as the
stored ones, and the same text where a cell reads the game records (the game,
the dataset).

To refresh the stored outputs after changing the notebook::

    python tests/test_notebook.py
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

import gojax

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOK = Path(__file__).resolve().parents[1] / "experiments" / "tour.ipynb"


def execute(nb):
    """Runs every cell of ``nb`` in place, from the notebook's folder (a python3 kernel on this python)."""
    # jupyter_client starts the "python3" kernel with sys.executable (this venv's python); a last cell checks.
    nb.cells.append(nbformat.v4.new_code_cell("import sys; print('KERNEL', sys.executable)"))
    client = nbclient.NotebookClient(
        nb, kernel_name="python3", timeout=300, resources={"metadata": {"path": str(NOTEBOOK.parent)}}
    )
    client.execute()
    assert nb.cells[-1].outputs[0]["text"].strip() == f"KERNEL {sys.executable}"
    nb.cells.pop()
    return nb


def _code(nb):
    return [cell for cell in nb.cells if cell.cell_type == "code"]


def _kinds(cell) -> list[str]:
    return [output.output_type + ":" + ",".join(sorted(output.get("data", {}))) for output in cell.outputs]


def test_notebook_is_stored_with_its_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    code = _code(nb)
    assert code[0].source.lstrip().startswith("# Installs gojax where it is missing")
    assert "%pip install" in code[0].source and "find_spec" in code[0].source
    assert [cell.execution_count for cell in code] == list(range(1, len(code) + 1)), "run it top to bottom"
    assert all(cell.outputs for cell in code), "a cell without its output: run the notebook before committing"
    outputs = [output for cell in code for output in cell.outputs]
    assert not [o for o in outputs if o.output_type == "error" or o.get("name") == "stderr"]
    stored = nbformat.writes(nb)
    assert "/work/" not in stored and str(Path.home()) not in stored, "a local path in the stored outputs"
    assert sum("image/svg+xml" in o.get("data", {}) for o in outputs) >= 3


def test_notebook_reads_nothing_outside_the_repository():
    """No cell names a folder beside the checkout (``../shared``, a parent of the working directory)."""
    nb = nbformat.read(NOTEBOOK, as_version=4)
    for cell in nb.cells:
        assert "shared" not in cell.source, cell.source[:200]
        assert not re.search(
            r"\.\./|\.parents?\b|Path\.(cwd|home)|expanduser|/work/|/home/|/tmp/", cell.source
        ), cell.source[:200]
    assert any("gojax.sgf.example_games()" in cell.source for cell in _code(nb))


@pytest.fixture(scope="module")
def executed():
    return execute(nbformat.read(NOTEBOOK, as_version=4))


def test_every_cell_runs_and_shows_something(executed):
    code = _code(executed)
    errors = [output for cell in code for output in cell.outputs if output.output_type == "error"]
    assert not errors, "\n".join(f"{e.ename}: {e.evalue}" for e in errors)
    assert all(cell.outputs for cell in code), "a cell printed or displayed nothing"
    assert "gojax is installed" in code[0].outputs[0]["text"]  # the install cell did not install
    rich = [
        output.data
        for cell in code
        for output in cell.outputs
        if output.output_type in ("execute_result", "display_data")
    ]
    svgs = [data["image/svg+xml"] for data in rich if "image/svg+xml" in data]
    htmls = [data["text/html"] for data in rich if "text/html" in data]
    assert len(svgs) >= 3 and all(text.lstrip().startswith("<svg") for text in svgs)
    assert any('class="gojax-game"' in text and "gv-slider" in text for text in htmls), "no game view"
    assert any(text.count("<svg") == 8 for text in htmls), "no row of the 8 symmetries"
    text = "".join(output.get("text", "") for cell in code for output in cell.outputs)
    assert "MoveDataset(9x9" in text and " plays " in text
    assert "observation (256, 5, 5, 17) bool" in text and "games finished" in text


def _text(cell) -> str:
    return "".join(output.get("text", "") for output in cell.outputs if output.output_type == "stream")


def test_stored_outputs_are_those_of_the_current_cells(executed):
    stored = _code(nbformat.read(NOTEBOOK, as_version=4))
    fresh = _code(executed)
    assert [_kinds(cell) for cell in stored] == [_kinds(cell) for cell in fresh]
    # The cells that read the shipped game records print the same text as stored: what a clone prints.
    records = [
        i for i, cell in enumerate(stored) if "GameRecord(" in _text(cell) or "MoveDataset(" in _text(cell)
    ]
    assert len(records) == 2, "the game and the dataset cells"
    for i in records:
        assert _text(fresh[i]) == _text(stored[i]), stored[i].source[:200]
    games = len(gojax.sgf.example_games())
    assert f"MoveDataset(9x9, games={games}, " in _text(stored[records[1]]), "not every shipped game read"


if __name__ == "__main__":
    notebook = execute(nbformat.read(NOTEBOOK, as_version=4))
    nbformat.write(notebook, NOTEBOOK)
    print(f"{NOTEBOOK}: executed and stored with its outputs")
