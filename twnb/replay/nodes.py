"""nbformat v4 cells and outputs built as plain nodes.

nbformat's `new_code_cell` and `new_output` validate every node they make against the schema, which
costs more than the rest of an export together (measured by bench/bench_export.py); the exporter
validates the whole notebook once before writing it instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from nbformat import NotebookNode, from_dict
from nbformat.corpus.words import generate_corpus_id as random_cell_id


def code_cell(source: str, outputs: Sequence[Mapping[str, Any]], metadata: dict[str, Any]) -> NotebookNode:
    """A code cell holding `outputs`: those made here (already nodes) as they are, not converted again
    (a `show` cell's output is a Round's whole bundle), others converted."""
    return NotebookNode(
        {
            "id": random_cell_id(),
            "cell_type": "code",
            "metadata": _node(metadata),
            "execution_count": None,
            "source": source,
            "outputs": [output if isinstance(output, NotebookNode) else _node(output) for output in outputs],
        }
    )


def markdown_cell(source: str, metadata: dict[str, Any]) -> NotebookNode:
    return _node({"id": random_cell_id(), "cell_type": "markdown", "metadata": metadata, "source": source})


def stream(name: str, text: str) -> NotebookNode:
    return _node({"output_type": "stream", "name": name, "text": text})


def data_output(kind: str, data: dict[str, Any], metadata: dict[str, Any]) -> NotebookNode:
    """A `display_data` or `execute_result` (never numbered: recorded outputs belong to no run here).
    The MIME bundle is a node, its values are kept as they are: a JSON value is data for whoever shows
    it (a `show` cell's is a Round's whole record, which converting to nodes cost as much again)."""
    output = NotebookNode({"output_type": kind, "data": NotebookNode(data), "metadata": _node(metadata)})
    if kind == "execute_result":
        output["execution_count"] = None
    return output


def error_output(ename: str, evalue: str, traceback: list[str]) -> NotebookNode:
    return _node({"output_type": "error", "ename": ename, "evalue": evalue, "traceback": traceback})


def _node(data: Mapping[str, Any]) -> NotebookNode:
    node: NotebookNode = from_dict(data)  # nbformat's from_dict is not annotated
    return node
