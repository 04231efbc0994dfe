"""nbformat v4 cells and outputs built as plain nodes.

nbformat's `new_code_cell` and `new_output` validate every node they make against the schema, which
costs more than the rest of an export together (measured by bench/bench_export.py); the exporter
validates the whole notebook once before writing it instead.
"""

from __future__ import annotations

from typing import Any

from nbformat import from_dict
from nbformat.v4.nbbase import random_cell_id


def code_cell(source: str, outputs: list[Any], metadata: dict[str, Any]) -> Any:
    return from_dict(
        {
            "id": random_cell_id(),
            "cell_type": "code",
            "metadata": metadata,
            "execution_count": None,
            "source": source,
            "outputs": outputs,
        }
    )


def markdown_cell(source: str, metadata: dict[str, Any]) -> Any:
    return from_dict(
        {"id": random_cell_id(), "cell_type": "markdown", "metadata": metadata, "source": source}
    )


def stream(name: str, text: str) -> Any:
    return from_dict({"output_type": "stream", "name": name, "text": text})


def data_output(kind: str, data: dict[str, Any], metadata: dict[str, Any]) -> Any:
    """A `display_data` or `execute_result` (never numbered: recorded outputs belong to no run here)."""
    output: dict[str, Any] = {"output_type": kind, "data": data, "metadata": metadata}
    if kind == "execute_result":
        output["execution_count"] = None
    return from_dict(output)


def error_output(ename: str, evalue: str, traceback: list[str]) -> Any:
    return from_dict({"output_type": "error", "ename": ename, "evalue": evalue, "traceback": traceback})
