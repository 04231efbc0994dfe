"""notebook_json writes a notebook exactly as nbformat.writes does, and leaves the notebook as it was."""

from __future__ import annotations

import copy
from pathlib import Path

import nbformat
import pytest
from nbformat.v4 import (
    new_code_cell,
    new_markdown_cell,
    new_notebook,
    new_output,
    new_raw_cell,
)

from twnb.replay.notebook_json import notebook_json


def _every_kind_of_cell():
    """Cells of each type, multi-line text where nbformat splits it (sources, streams, text and SVG
    MIME values, attachments) and where it does not (JSON MIME values, PNG), transient metadata."""
    nb = new_notebook(
        metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}, "signature": "sha256:x"}
    )
    markdown = new_markdown_cell("# Title\n\n![plot](attachment:plot.svg)\nend")
    markdown.attachments = {"plot.svg": {"image/svg+xml": "<svg>\n</svg>\n", "text/plain": "a\nb"}}
    code = new_code_cell("x = 1\nprint(x)\nx", metadata={"trusted": True, "tags": ["keep"]})
    code.outputs = [
        new_output("stream", name="stdout", text="1\n2\n"),
        new_output(
            "execute_result",
            data={
                "text/plain": "1\n2",
                "text/html": "<p>\n1</p>",
                "application/json": {"rows": ["a\nb", 2]},
                "image/png": "iVBORw0KGgo=\n",
            },
            execution_count=3,
        ),
        new_output("display_data", data={"text/markdown": "*a*\n*b*"}, metadata={"isolated": True}),
        new_output("error", ename="ValueError", evalue="no\nway", traceback=["line 1\n", "line 2"]),
    ]
    nb.cells = [markdown, code, new_raw_cell("raw\ntext"), new_code_cell("")]
    nb.metadata["orig_nbformat"] = 4
    return nb


@pytest.mark.parametrize("split", ["str", "already split"])
def test_a_notebook_is_written_as_nbformat_writes_it(split):
    nb = _every_kind_of_cell()
    if split == "already split":  # a notebook read back keeps some text as lists of lines
        nb.cells[1].source = ["x = 1\n", "print(x)"]
        nb.cells[1].outputs[0].text = ["1\n", "2\n"]
    nbformat.validate(nb)
    assert notebook_json(nb) == nbformat.writes(nb)


def test_an_exported_notebook_is_written_as_nbformat_writes_it():
    nb = nbformat.read(Path(__file__).parent.parent / "data" / "exported" / "hostile.ipynb", as_version=4)
    assert notebook_json(nb) == nbformat.writes(nb)


def test_writing_leaves_the_notebook_as_it_was():
    nb = _every_kind_of_cell()
    before = copy.deepcopy(nb)
    notebook_json(nb)
    assert nb == before
    assert isinstance(nb.cells[1].source, str) and nb.metadata["signature"] == "sha256:x"
    assert nb.cells[1].metadata["trusted"] is True
