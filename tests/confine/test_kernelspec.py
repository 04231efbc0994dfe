"""`twnb kernel install --confined` writes the kernelspec twnb-confined, and what picks kernels by name
(nbclient, as papermill `-k twnb-confined` does) runs a notebook in it, confined."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from support.confined_kernel import needs_landlock

from twnb.cli import main


def test_install_writes_the_confined_kernelspec_under_a_prefix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["kernel", "install", "--confined", "--prefix", str(tmp_path)]) == 0
    spec = json.loads(
        (tmp_path / "share" / "jupyter" / "kernels" / "twnb-confined" / "kernel.json").read_text()
    )
    assert spec["display_name"] == "Python 3 (twnb, confined)"
    assert spec["argv"][1:] == ["-m", "twnb.confine", "-f", "{connection_file}"]
    assert "twnb-confined" in capsys.readouterr().out


@needs_landlock
@pytest.mark.slow
@pytest.mark.timeout(300)
def test_nbclient_runs_a_notebook_in_the_confined_kernel_by_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    main(["kernel", "install", "--confined", "--prefix", str(tmp_path / "prefix")])
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "prefix" / "share" / "jupyter"))
    folder = tmp_path / "notebook"
    folder.mkdir()
    marker = folder / "shell-ran.txt"
    notebook = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell("print(6 * 7)"),
            nbformat.v4.new_code_cell(f"import os; print(os.system('touch {marker}') != 0)"),
        ]
    )
    NotebookClient(
        notebook, kernel_name="twnb-confined", timeout=120, resources={"metadata": {"path": str(folder)}}
    ).execute()
    outputs = [cell.outputs[0]["text"].strip() for cell in notebook.cells]
    assert outputs == ["42", "True"] and not marker.exists()
