"""A v4 notebook as nbformat writes it, byte for byte, without the two costs nbformat adds.

`nbformat.writes` validates again (only logging what is wrong) and deep-copies the whole notebook so that
splitting text into lines leaves the caller's notebook as it was. An exported notebook is validated once
before it is written, and its copy is most of the write's time (measured by bench/bench_export.py: a
Round's bundle is a large tree). Only the containers nbformat's `split_lines` and `strip_transient`
replace items of are copied here; everything below them is shared, and only read.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import nbformat
from nbformat import NotebookNode
from nbformat.v4.nbjson import BytesEncoder
from nbformat.v4.rwbase import split_lines, strip_transient


def notebook_json(nb: NotebookNode) -> str:
    """What `nbformat.writes(nb)` returns for a v4 notebook (other versions are written by nbformat)."""
    if nb.get("nbformat") != 4:
        return str(nbformat.writes(nb))
    # The options nbformat's v4 JSONWriter.writes uses.
    return json.dumps(
        strip_transient(split_lines(_spine(nb))),
        cls=BytesEncoder,
        indent=1,
        sort_keys=True,
        separators=(",", ": "),
        ensure_ascii=False,
    )


def _spine(nb: NotebookNode) -> NotebookNode:
    """A copy of `nb` down to what `split_lines` and `strip_transient` change: the notebook and its
    metadata, each cell, its metadata, its attachments and each attachment's bundle, its outputs and
    each output with its data."""
    copy = _node(nb, "metadata")
    if "cells" in nb:
        copy["cells"] = [_cell(cell) for cell in nb["cells"]]
    return copy


def _cell(cell: Any) -> NotebookNode:
    copy = _node(cell, "metadata")
    attachments = cell.get("attachments")
    if isinstance(attachments, Mapping):
        copy["attachments"] = {name: dict(bundle) for name, bundle in attachments.items()}
    if "outputs" in cell:
        copy["outputs"] = [_node(output, "data") for output in cell["outputs"]]
    return copy


def _node(node: Any, inner: str) -> NotebookNode:
    """`node` copied, and the mapping under `inner` with it."""
    copy = NotebookNode(node)
    if isinstance(node.get(inner), Mapping):
        copy[inner] = NotebookNode(node[inner])
    return copy
