"""`application/vnd.twnb.round+json`: the Round as data, so the notebook, replay and exports share it.

The JSON keeps the Round's `to_dict()` keys at the top level (what TaskWeaver tools read) and puts
twnb's own view data in one `twnb` object: schema version, session, plan, timing, usage, ledger,
artifact previews and `view`, what every view of the Round shows, computed once (view.py; see
docs/architecture.md).

The record (`post_list`, `extra`) is the Round whole, which import reads; the `twnb` object says what
the record does not, once: its `plan` is the plan's state and each step's name and state (the full
plan, when the Round kept one, is `extra.plan`; a payload saved before keeps it whole in `twnb`). Its
`ledger` is the whole ledger, as in `extra.ledger`: the ledger's contract is that both keep it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twnb.memory import round_plan
from twnb.render.cell_images import leave_images_in_cell, previews_in_cell
from twnb.render.links import display_path
from twnb.render.view import round_view, stored_view

if TYPE_CHECKING:
    from twnb.memory import Plan, Round

MIME_TYPE = "application/vnd.twnb.round+json"
SCHEMA_VERSION = 1


def round_payload(
    round: Round,
    *,
    session_id: str,
    plan: Plan | None = None,
    previews: Sequence[Mapping[str, Any]] | None = None,
    base_dir: str | Path | None = None,
    conversation_id: str | None = None,
    in_cell: bool = False,
) -> dict[str, Any]:
    """`round.to_dict()` plus the `twnb` object (with `conversation_id` when given: a notebook read
    back from its Round outputs keeps its conversation's id).

    `in_cell`: the payload is shown in the cell the Round's code ran in, whose own outputs hold the
    images the code displayed; the payload refers to them instead of carrying them (cell_images.py).

    The session keeps artifact paths absolute in memory (and makes them relative when it saves); here
    they are made relative to `base_dir` when inside it, as saved YAML does, so a saved notebook
    carries no machine paths and its links work from the notebook's folder. A Round that ended
    failed (or interrupted) shows the plan step it was on as `abandoned`.
    """
    data: dict[str, Any] = plain_data(round.to_dict())
    for post in data.get("post_list") or []:
        for attachment in post.get("attachment_list") or []:
            if attachment.get("type") == "artifact_paths":
                content = attachment.get("content")
                paths = [content] if isinstance(content, str) else list(content or [])
                attachment["content"] = [display_path(str(p), base_dir) for p in paths]
    if in_cell:
        leave_images_in_cell(data.get("post_list") or [])
        previews = previews_in_cell(previews or [])
    data.setdefault("extra", {})
    extra = data.get("extra") or {}
    data["twnb"] = {
        "schema_version": SCHEMA_VERSION,
        "session_id": session_id,
        "plan": plan_summary(settled_plan(plan_to_dict(plan), str(data.get("state", "")))),
        "timing": plain_data(extra.get("timing") or {}),
        "usage": plain_data(extra.get("usage") or {}),
        "ledger": plain_data(extra.get("ledger") or {}),
        "previews": [dict(p) for p in previews or []],
    }
    if conversation_id:
        data["twnb"]["conversation_id"] = conversation_id
    data["twnb"]["view"] = plain_data(stored_view(round_view(data), data))
    return data


def plan_from_round(round: Round) -> Plan | None:
    """The plan as the Round's Planner posts left it (for Rounds shown again, e.g. after a load)."""
    return round_plan(round)


def plan_to_dict(plan: Plan | None) -> dict[str, Any] | None:
    """A `twnb.memory.Plan` as plain data: `{"subtasks": [{"name", "state", ...}, ...], ...}`."""
    return None if plan is None else plain_data(plan.to_dict())


def settled_plan(plan: dict[str, Any] | None, round_state: str) -> dict[str, Any] | None:
    """The plan as a Round that ended `round_state` leaves it: when the Round failed or was
    interrupted, the step in progress was abandoned (and so was the plan, unless it was done)."""
    if plan is None or round_state != "failed":
        return plan
    settled = dict(plan)
    settled["subtasks"] = [
        {**step, "state": "abandoned"} if step.get("state") == "in_progress" else step
        for step in plan.get("subtasks") or []
    ]
    if settled.get("state") in ("todo", "in_progress"):
        settled["state"] = "abandoned"
    return settled


def plan_summary(plan: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The plan as contract 6 names it: its id and state, and each step's name and state (what every
    view draws); the whole plan is the Round's `extra.plan` when the Round kept it."""
    if plan is None:
        return None
    steps = [step for step in plan.get("subtasks") or [] if isinstance(step, Mapping)]
    summary = {key: plan[key] for key in ("id", "state") if key in plan}
    summary["subtasks"] = [{"name": step.get("name"), "state": step.get("state")} for step in steps]
    return summary


def plain_data(value: Any) -> Any:
    """JSON-safe plain data (a display bundle goes over the wire as JSON)."""
    return json.loads(json.dumps(value, default=_json_default))


def _json_default(value: Any) -> Any:
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if hasattr(value, "value"):
        return value.value
    return str(value)
