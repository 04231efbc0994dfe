"""Conversation -> notebook file (contract 8): cells, artifacts beside it, metadata, validated.

The conversation is redacted first (by the caller's redactor, the one its session uses), so nothing
in the notebook, its metadata or the Round bundles carries a secret the conversation held.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Importing nbformat imports its validator (jsonschema, rfc3987_syntax: ~1.3 s). This module writes
# notebooks, and an exported notebook is valid nbformat (contract 8: write_notebook validates it), so
# it needs it; reading a notebook back (notebook_import.py) must not import this module or nbformat
# (tests/replay/test_export_start.py).
import nbformat

from twnb.base import gc_paused
from twnb.memory import Conversation, conversation_dict, write_text_atomic
from twnb.replay.artifacts import DEFAULT_FOLDER, conversation_places, copy_artifacts, relink_messages
from twnb.replay.errors import ReplayError
from twnb.replay.large_outputs import output_keeper
from twnb.replay.name_sources import OutsideName, outside_names, recorded_code
from twnb.replay.notebook_cells import CodePiece, outside_names_cell, round_cells, setup_cell, title_cell
from twnb.replay.notebook_json import notebook_json

NOTEBOOK_SCHEMA_VERSION = 1
KERNELSPEC = {"name": "python3", "display_name": "Python 3 (ipykernel)", "language": "python"}


@dataclass
class ExportResult:
    path: Path
    notebook: nbformat.NotebookNode
    rounds: int
    pieces: dict[int, CodePiece] = field(default_factory=dict)  # cell index -> the code it ran
    outside: list[OutsideName] = field(default_factory=list)  # read by the code, made by none of it
    copied_artifacts: list[Path] = field(default_factory=list)
    missing_artifacts: list[str] = field(default_factory=list)
    refused_artifacts: list[str] = field(default_factory=list)  # outside the conversation's folders
    cut_outputs: list[str] = field(default_factory=list)


def build_notebook(
    conversation: Conversation,
    path: str | os.PathLike[str],
    *,
    source_dir: str | os.PathLike[str],
    session_id: str | None = None,
    include_failed: bool = True,
    redact: Callable[[Any], Any] | None = None,
    artifacts_folder: str = DEFAULT_FOLDER,
    artifact_folders: Iterable[str | os.PathLike[str] | None] = (),
) -> ExportResult:
    """The notebook for `conversation`, to be written at `path` (artifacts are copied and large outputs
    kept beside it now; the notebook itself is written by `write_notebook`). Relative artifact paths
    are read from `source_dir` (the conversation file's folder). Only artifacts in the conversation's
    folders are copied: `source_dir`'s notebook folder and its default session folder, and
    `artifact_folders` (the settings' session and artifacts folders); others are left out, named in
    `refused_artifacts`."""
    path = Path(path)
    out_dir = path.parent.resolve()
    data = conversation.to_dict()
    conversation = Conversation.from_dict(redact(data) if redact else data, keep_ids=True)
    session_id = session_id or conversation.id
    places = conversation_places(Path(source_dir), [Path(f) for f in artifact_folders if f is not None])
    copies = copy_artifacts(
        conversation, source_dir=Path(source_dir), out_dir=out_dir, folder=artifacts_folder, places=places
    )
    relink_messages(conversation, copies, source_dir=Path(source_dir), out_dir=out_dir)
    nb = nbformat.from_dict({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": []})
    nb.cells.append(title_cell(conversation, session_id))
    nb.cells.append(setup_cell(path.name))
    result = ExportResult(path=path, notebook=nb, rounds=len(conversation.rounds))
    result.outside = outside_names(recorded_code(conversation))
    if result.outside:
        nb.cells.append(outside_names_cell(result.outside))
    for number, round in enumerate(conversation.rounds, start=1):
        keep = output_keeper(out_dir, artifacts_folder, f"{path.stem}-round-{number}")
        cells = round_cells(
            round,
            number,
            session_id=session_id,
            conversation_id=conversation.id,
            out_dir=out_dir,
            include_failed=include_failed,
            keep=keep,
        )
        offset = len(nb.cells)
        result.pieces.update({offset + index: piece for index, piece in cells.pieces.items()})
        result.cut_outputs += cells.cut_files
        nb.cells.extend(cells.cells)
    nb.metadata["kernelspec"] = dict(KERNELSPEC)
    nb.metadata["language_info"] = {"name": "python"}
    nb.metadata["twnb"] = {
        "schema_version": NOTEBOOK_SCHEMA_VERSION,
        "session_id": session_id,
        "conversation": conversation_dict(conversation, relative_to=out_dir),
    }
    result.copied_artifacts = copies.copied
    result.missing_artifacts = copies.missing
    result.refused_artifacts = copies.refused
    return result


def write_notebook(nb: nbformat.NotebookNode, path: str | os.PathLike[str]) -> Path:
    """Validate, then write atomically (a failed write leaves an older file as it was), as nbformat
    writes it (notebook_json.py). Never signed: an exported notebook holds text from a model and is
    opened untrusted."""
    path = Path(path)
    nbformat.validate(nb)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, notebook_json(nb))
    except OSError as error:
        raise ReplayError(f"Could not write {path}: {error.strerror or error}") from error
    return path


def export_notebook(conversation: Conversation, path: str | os.PathLike[str], **options: Any) -> ExportResult:
    """`build_notebook` and `write_notebook` in one call (options as for `build_notebook`)."""
    # Tens of thousands of cycle-free nodes: a full collection meanwhile walks the growing heap and
    # makes a long conversation's export grow faster than its size (as loading it would).
    with gc_paused():
        result = build_notebook(conversation, path, **options)
        write_notebook(result.notebook, result.path)
    return result
