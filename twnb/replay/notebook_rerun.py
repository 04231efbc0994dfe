"""A notebook re-run as it is (`twnb export NOTEBOOK.ipynb --execute`): one exported from a conversation,
or one in which Rounds ran, someone sent you, checked without converting it first.

Every code cell runs as it stands (edits included), except twnb's own: the `%taskweaver show` and setup
cells of an exported notebook, and `%%taskweaver` cells and twnb's line magics in a notebook Rounds ran
in. A `%%taskweaver` cell is not asked again (that would call a model): the code its Round ran follows
it as new cells, marked as the Round's, and runs in its place. What each cell is compared with:

- the Round's code: the outputs the cell shows (what nbviewer and JupyterLab draw, not the metadata's
  copy: an output edited by hand is what a reader believes); where the export cut a large output, the
  conversation's full output, if cutting it again gives exactly what the cell shows;
- the user's own cells: the outputs the cell holds; a cell exported with none (a user cell recorded
  before a Round, whose outputs are not kept) reproduces when it raises exactly as it did.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from twnb.kernel import is_twnb_command
from twnb.render import MIME_TYPE
from twnb.replay.large_outputs import cut_large_outputs
from twnb.replay.nodes import code_cell
from twnb.replay.notebook_cells import SHOW_COMMAND, CodePiece, clean_output, code_piece

if TYPE_CHECKING:
    from nbformat import NotebookNode

    from twnb.memory import Conversation, Round

_NOT_RUN = {"show", "setup", "title", "text", "outside_names"}


@dataclass
class RerunPlan:
    notebook: NotebookNode
    pieces: dict[int, CodePiece] = field(default_factory=dict)
    inserted: int = 0  # cells of Round code added after `%%taskweaver` cells


def plan_rerun(nb: NotebookNode, conversation: Conversation) -> RerunPlan:
    """The notebook to run (a copy of `nb`, Round code added where Rounds ran) and the cells to run."""
    rounds = {round.id: round for round in conversation.rounds}
    posts = {post.id: (round, post) for round in conversation.rounds for post in round.post_list}
    exported = {
        str((cell.metadata.get("twnb") or {}).get("round_id"))
        for cell in nb.cells
        if (cell.metadata.get("twnb") or {}).get("cell") == "code"
    }
    upcoming = _next_round_ids(nb)
    plan = RerunPlan(notebook=copy.deepcopy(nb))
    plan.notebook.cells = []
    for position, cell in enumerate(nb.cells):
        cell = copy.deepcopy(cell)
        index = len(plan.notebook.cells)
        plan.notebook.cells.append(cell)
        if cell.cell_type != "code":
            continue
        meta = cell.metadata.get("twnb") or {}
        kind = meta.get("cell")
        if kind in _NOT_RUN or cell.source.lstrip().startswith(SHOW_COMMAND):
            continue
        if kind == "code":
            plan.pieces[index] = _recorded_piece(cell, meta, posts)
        elif is_twnb_command(cell.source):
            for round_id in _payload_ids(cell):
                if round_id in rounds and round_id not in exported:
                    exported.add(round_id)  # a Round shown again (`%taskweaver show`) runs once
                    plan.inserted += _insert_round_code(plan, rounds[round_id])
        else:
            plan.pieces[index] = _users_piece(cell, meta, upcoming.get(position, ""))
    return plan


def _recorded_piece(cell: NotebookNode, meta: Mapping[str, Any], posts: Mapping[str, Any]) -> CodePiece:
    """An exported cell of a Round's code: compared with what its execution recorded."""
    found = posts.get(str(meta.get("post_id")))
    recorded = code_piece(found[0].id, found[1]) if found is not None else None
    outputs = [o for o in (clean_output(dict(output)) for output in cell.outputs) if o is not None]
    if recorded is not None:  # its code is the cell's: read_notebook refused the notebook otherwise
        recorded.code = cell.source
        recorded.outputs = _shown_or_uncut(outputs, recorded.outputs, meta.get("cut_outputs"))
        recorded.shown_result = None  # the metadata's result text is not what this notebook shows
        return recorded
    kind = "text" if meta.get("recorded") == "text" else "outputs"
    return CodePiece(
        str(meta.get("round_id", "")),
        str(meta.get("post_id", "")),
        cell.source,
        outputs,
        kind,
        bool(meta.get("failed")),
    )


def _shown_or_uncut(shown: list[Any], recorded: list[Any], cuts: Any) -> list[Any]:
    """What the re-run must reproduce: the outputs the cell shows (what a reader sees), or, when the
    export cut large ones, the recorded full outputs, if cutting them again gives exactly what is shown."""
    if not isinstance(cuts, list) or not cuts:
        return shown
    files = iter([str(cut.get("file", "")) for cut in cuts if isinstance(cut, Mapping)])
    again = copy.deepcopy(recorded)
    cut_large_outputs(again, keep=lambda _text, _suffix: next(files, ""))
    return recorded if again == shown else shown


def _users_piece(cell: NotebookNode, meta: Mapping[str, Any], round_id: str) -> CodePiece:
    """One of the user's own cells: its saved outputs are the record, else whether it raised."""
    outputs = [o for o in (clean_output(dict(output)) for output in cell.outputs) if o is not None]
    error = meta.get("error") if isinstance(meta.get("error"), str) else None
    if outputs or cell.get("execution_count") is not None:
        failed = any(o.get("output_type") == "error" for o in outputs)
        return CodePiece(
            str(meta.get("round_id") or round_id), "", cell.source, outputs, "outputs", failed, user=True
        )
    return CodePiece(
        str(meta.get("round_id") or round_id),
        "",
        cell.source,
        [],
        "raised",
        bool(error),
        user=True,
        error=error,
    )


def _insert_round_code(plan: RerunPlan, round: Round) -> int:
    """The code `round` ran, as cells after its `%%taskweaver` cell; how many were added."""
    added = 0
    for post in round.post_list:
        piece = code_piece(round.id, post)
        if piece is None:
            continue
        meta: dict[str, Any] = {"cell": "code", "round_id": round.id, "post_id": post.id, "inserted": True}
        metadata: dict[str, Any] = {"twnb": meta}
        if piece.failed:  # the attempt raised when recorded: nbclient carries on past it
            meta["failed"] = True
            metadata["tags"] = ["raises-exception"]
        plan.pieces[len(plan.notebook.cells)] = piece
        plan.notebook.cells.append(code_cell(piece.code, copy.deepcopy(piece.outputs), metadata))
        added += 1
    return added


def _payload_ids(cell: NotebookNode) -> list[str]:
    ids = []
    for output in cell.get("outputs") or []:
        payload = (output.get("data") or {}).get(MIME_TYPE)
        if isinstance(payload, Mapping) and isinstance(payload.get("id"), str):
            ids.append(payload["id"])
    return ids


def _next_round_ids(nb: NotebookNode) -> dict[int, str]:
    """Cell position -> the id of the first Round shown at or after it ("" after the last Round): a
    user's cell is labelled by the Round it ran before."""
    found: dict[int, str] = {}
    upcoming = ""
    for position in range(len(nb.cells) - 1, -1, -1):
        cell = nb.cells[position]
        meta = cell.metadata.get("twnb") or {}
        ids = (
            [meta["round_id"]] if meta.get("cell") == "show" and meta.get("round_id") else _payload_ids(cell)
        )
        if ids:
            upcoming = str(ids[0])
        found[position] = upcoming
    return found
