"""Runs experiments/tour.ipynb headless (nbclient, a python3 kernel on this interpreter), checks its outputs.

The notebook is committed without outputs; executing it here fills them in
memory only (nothing is written).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")
pytest.importorskip("ipykernel")

NOTEBOOK = Path(__file__).resolve().parents[1] / "experiments" / "tour.ipynb"


def test_notebook_is_committed_without_outputs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(nb)
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    assert code, "the tour has no code cells"
    for cell in code:
        assert cell.outputs == [] and cell.execution_count is None, "clear the outputs before committing"


@pytest.fixture(scope="module")
def executed():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    # jupyter_client starts the "python3" kernel with sys.executable (this venv's python); a last cell checks.
    nb.cells.append(nbformat.v4.new_code_cell("import sys; print('KERNEL', sys.executable)"))
    client = nbclient.NotebookClient(
        nb, kernel_name="python3", timeout=300, resources={"metadata": {"path": str(NOTEBOOK.parent)}}
    )
    client.execute()
    assert nb.cells[-1].outputs[0]["text"].strip() == f"KERNEL {sys.executable}"
    nb.cells.pop()
    return nb


def test_every_cell_runs_and_shows_something(executed):
    code = [cell for cell in executed.cells if cell.cell_type == "code"]
    errors = [output for cell in code for output in cell.outputs if output.output_type == "error"]
    assert not errors, "\n".join(f"{e.ename}: {e.evalue}" for e in errors)
    assert all(cell.outputs for cell in code[1:]), "a cell printed or displayed nothing"
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
