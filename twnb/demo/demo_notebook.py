"""What a demo notebook is made of: the notebook, the files it reads, its cassette of scripted replies
and the names of what it writes. `twnb demo --notebook NAME` runs any of `DEMO_NOTEBOOKS`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell

ASSETS = Path(__file__).parent
DEMO_MODEL = "twnb-scripted-demo"


@dataclass(frozen=True)
class DemoNotebook:
    name: str  # as `--notebook` takes it
    notebook_file: str
    build: Callable[[], nbformat.NotebookNode]
    cassette: Path  # bundled with twnb, beside this file
    scripted_replies: Path  # what the cassette is recorded from (tests/demo/record_quickstart_cassette.py)
    conversation_file: str  # the notebook's `%taskweaver save` target
    assets: tuple[Path, ...] = ()  # copied into the demo's folder before it runs
    requires: tuple[str, ...] = ()  # modules beyond twnb's own, and how to install them
    install_hint: str = ""

    @property
    def cassette_copy(self) -> str:
        """The name the cassette gets beside the conversation in the demo's folder (`x.cassette.yaml`,
        where `%taskweaver save` puts a recording's), so the notebook replays there (TWNB_REPLAY)."""
        return f"{Path(self.conversation_file).stem}.cassette.yaml"


def round_notebook(
    opening: list[nbformat.NotebookNode],
    requests: tuple[str, ...],
    outro: str,
    conversation_file: str,
    closing: tuple[str, ...] = (),
) -> nbformat.NotebookNode:
    """A demo notebook: the opening cells, one `%%taskweaver` cell per request, then the conversation
    saved to `conversation_file`, the Rounds listed, and any closing code cells."""
    cells = [*opening, *(new_code_cell(f"%%taskweaver\n{request}") for request in requests)]
    cells += [new_markdown_cell(outro), new_code_cell(f"%taskweaver save {conversation_file}")]
    cells += [new_code_cell("%taskweaver history")]
    cells += [new_code_cell(code) for code in closing]
    nb: nbformat.NotebookNode = nbformat.v4.new_notebook(cells=cells)
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    return nb
