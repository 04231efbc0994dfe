"""An exported notebook run top to bottom in a fresh kernel (nbclient, as Run All or `jupyter nbconvert
--execute` would) keeps its Round views: each `%taskweaver show` cell shows its Round as the notebook
recorded it; and its commented command runs as it is once uncommented."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from support.replay_rounds import code_round, conversation, stdout

from twnb.kernel import AsyncUnixSocketKernelManager
from twnb.render import MIME_TYPE
from twnb.replay import export_notebook

pytestmark = pytest.mark.slow


def _exported(folder: Path) -> tuple[Path, list[str]]:
    rounds = [
        code_round("Add", "x = 1 + 1\nprint(x)", [stdout("2\n")]),
        code_round("Double", "y = x * 2", []),
    ]
    result = export_notebook(conversation(*rounds), folder / "conv.ipynb", source_dir=folder)
    return result.path, [r.id for r in rounds]


def _run(path: Path) -> nbformat.NotebookNode:
    nb = nbformat.read(path, as_version=4)
    NotebookClient(
        nb,
        kernel_name="python3",
        kernel_manager_class=AsyncUnixSocketKernelManager,
        timeout=60,
        resources={"metadata": {"path": str(path.parent)}},
    ).execute()
    return nb


def _text(cell: nbformat.NotebookNode) -> str:
    return "".join(o.get("text", "") for o in cell.outputs)


def test_each_show_cell_shows_its_round_in_a_fresh_kernel(tmp_path: Path) -> None:
    path, round_ids = _exported(tmp_path)
    nb = _run(path)
    shows = [c for c in nb.cells if c.get("metadata", {}).get("twnb", {}).get("cell") == "show"]
    assert [c.outputs[0].data[MIME_TYPE]["id"] for c in shows] == round_ids
    assert all(len(c.outputs) == 1 and "No Rounds" not in _text(c) for c in shows)


def test_the_setup_cells_commented_load_runs_as_it_is_once_uncommented(tmp_path: Path) -> None:
    path, _ = _exported(tmp_path)
    nb = nbformat.read(path, as_version=4)
    setup = nb.cells[1]
    commands = [line for line in setup.source.splitlines() if line.startswith("# %")]
    assert commands == ["# %taskweaver load conv.ipynb"]
    setup.source = setup.source.replace("# %taskweaver", "%taskweaver")
    nb.cells = nb.cells[:2]
    nbformat.write(nb, tmp_path / "uncommented.ipynb")
    ran = _run(tmp_path / "uncommented.ipynb")
    assert _text(ran.cells[1]).startswith("Loaded 2 Rounds from conv.ipynb")
