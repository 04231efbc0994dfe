"""Notebook -> conversation (contract 8): from an exported notebook's metadata, ids kept, or from the
Round outputs any notebook in which Rounds ran holds.

Every Round's final cell output carries its whole `to_dict()` in `application/vnd.twnb.round+json`,
so a user's own saved notebook resumes too. Shown twice (`%taskweaver show`), a Round counts once, at
its first place, with the content it had last.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from twnb.memory import Conversation
from twnb.render import MIME_TYPE, with_images_from_cell
from twnb.replay.errors import ReplayError
from twnb.replay.shown_code import refuse_code_not_shown
from twnb.session import absolute_artifact_paths, checked_conversation, checked_session_id

MAX_NOTEBOOK_BYTES = 512 * 1024 * 1024  # refuse before reading what could not be a notebook


@dataclass
class ImportedNotebook:
    conversation: Conversation
    session_id: str | None
    source: str  # "metadata" or "outputs"


def read_notebook(path: str | os.PathLike[str]) -> ImportedNotebook:
    """The conversation in the notebook at `path`. Relative artifact paths are resolved against the
    notebook's folder (in memory they are absolute, as the kernel reports them). A missing file is
    FileNotFoundError; anything else wrong is a ReplayError (a ValueError) in one line."""
    path = Path(path)
    nb = _load_json(path)
    twnb = (nb.get("metadata") or {}).get("twnb") if isinstance(nb.get("metadata"), Mapping) else None
    if isinstance(twnb, Mapping) and "conversation" in twnb:
        conversation = Conversation.from_dict(twnb["conversation"], keep_ids=True, source=str(path))
        session_id = twnb.get("session_id") if isinstance(twnb.get("session_id"), str) else None
        source = "metadata"
        refuse_code_not_shown(nb, conversation, path)  # what runs is what the cells show
    else:
        payloads = list(_round_payloads(nb))
        if not payloads:
            raise ReplayError(
                f"{path}: holds no twnb conversation (no metadata.twnb and no Round outputs): export one "
                "with `twnb export CONV.yaml -o NOTEBOOK.ipynb`, or load the conversation YAML instead"
            )
        rounds: dict[str, dict[str, Any]] = {}
        for payload in payloads:
            rounds[str(payload.get("id"))] = {k: v for k, v in payload.items() if k != "twnb"}
        sections = [p["twnb"] for p in payloads if isinstance(p.get("twnb"), Mapping)]
        kept = _latest(section.get("conversation_id") for section in sections)
        conversation = Conversation.from_dict(
            {"rounds": list(rounds.values()), **({"id": kept} if kept else {})},
            keep_ids=True,
            source=str(path),
        )
        session_id = _latest(section.get("session_id") for section in sections)
        source = "outputs"
    absolute_artifact_paths(conversation, path.parent)
    session_id = checked_session_id(session_id, path)  # it names the folder later autosaves go to
    return ImportedNotebook(checked_conversation(conversation, path), session_id, source)


def _latest(values: Iterable[Any]) -> str | None:
    """The last non-empty text of `values` (the Round shown last speaks for the conversation)."""
    return next((v for v in reversed(list(values)) if isinstance(v, str) and v), None)


def _load_json(path: Path) -> dict[str, Any]:
    if not path.exists():
        raise FileNotFoundError(f"No such file: {path}")
    if path.is_dir():
        raise ReplayError(f"{path}: a folder, not a notebook (.ipynb)")
    if path.stat().st_size > MAX_NOTEBOOK_BYTES:
        raise ReplayError(f"{path}: larger than {MAX_NOTEBOOK_BYTES // 2**20} MB; not read as a notebook")
    try:
        nb = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as error:
        raise ReplayError(f"{path}: not a notebook: it is not UTF-8 text ({error.reason})") from error
    except json.JSONDecodeError as error:
        raise ReplayError(
            f"{path}: not a notebook: invalid JSON at line {error.lineno}, column {error.colno} "
            f"({error.msg}); it may not have been saved completely"
        ) from error
    if not isinstance(nb, dict) or not isinstance(nb.get("cells"), list):
        raise ReplayError(f"{path}: not a notebook: no list of cells at its top level")
    return nb


def _round_payloads(nb: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    for cell in nb["cells"]:
        if not isinstance(cell, Mapping) or cell.get("cell_type") != "code":
            continue
        for output in cell.get("outputs") or []:
            data = output.get("data") if isinstance(output, Mapping) else None
            payload = data.get(MIME_TYPE) if isinstance(data, Mapping) else None
            if isinstance(payload, str):  # some writers store JSON MIME data as text
                try:
                    payload = json.loads(payload)
                except json.JSONDecodeError:
                    continue
            if isinstance(payload, Mapping) and "post_list" in payload:
                # The images its code displayed are the cell's own outputs (render/cell_images.py).
                yield with_images_from_cell(payload, cell.get("outputs") or [])
