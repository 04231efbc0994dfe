"""The facts of a Round's view that a reader takes from the record as it is, so the payload's
`twnb.view` leaves them out (view 3): the plan's steps (`twnb.plan`'s subtasks, name and state), each
post's title (`send_from → send_to`), a code block's files (its post's `artifact_paths`), an artifact's
label and link (its path's last part, and the path itself), and a ledger row's label, kind, tone,
start and duration (the ledger's entry at the same place); and the values a reader assumes when a key
is absent (null, "", []). A saved notebook keeps each fact once.

Each fact is left out only when it equals what the record gives by the plain rule written here, which
the extension's view.ts repeats: a view that says otherwise (a title cut off, a step cleaned of
delimiters) keeps its own. `leave_to_record` writes the stored form, `put_back` reads it whole again.
The texts (request, answer, code, result) are view.py's `stored_view`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from twnb.render.links import artifact_url

# A key a reader of view 3 assumes holds this when it is absent.
_DEFAULTS: dict[str, object] = {"plan_decision": None, "notes": []}
_BLOCK_DEFAULTS: dict[str, object] = {
    "decision": None,
    "decision_line": None,
    "error": "",
    "refused_edit": None,
}
_POST_DEFAULTS: dict[str, object] = {"decision": None, "cut_off": None}
_ARTIFACT_DEFAULTS: dict[str, object] = {"preview": None, "omitted": None}
# ledger.py's statuses of an entry that did what it should; view.ts and timeline.py name the same.
_OK_STATUSES = {"stop", "length", "success", ""}
_KIND_LABEL = {"llm": "LLM", "code": "code", "wait": "decision"}


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _number(value: object) -> float:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0.0


def _mappings(value: object) -> list[Mapping[str, Any]]:
    return [item for item in value if isinstance(item, Mapping)] if isinstance(value, list) else []


def _posts(payload: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return _mappings(payload.get("post_list"))


def recorded_plan(payload: Mapping[str, Any]) -> list[dict[str, str]]:
    """The plan's steps as `twnb.plan` records them: each subtask's name and state (todo if none)."""
    plan = (payload.get("twnb") or {}).get("plan")
    subtasks = plan.get("subtasks") if isinstance(plan, Mapping) else None
    return [
        {"text": _text(step.get("name")), "state": _text(step.get("state")) or "todo"}
        for step in _mappings(subtasks)
    ]


def recorded_title(post: Mapping[str, Any]) -> str:
    return f"{_text(post.get('send_from'))} → {_text(post.get('send_to'))}"


def recorded_paths(payload: Mapping[str, Any], post_id: str) -> list[str]:
    """The files a post's `artifact_paths` name: each non-blank string once, in order."""
    found: list[str] = []
    for post in _posts(payload):
        if _text(post.get("id")) != post_id:
            continue
        for attachment in _mappings(post.get("attachment_list")):
            if attachment.get("type") != "artifact_paths":
                continue
            content = attachment.get("content")
            paths = [content] if isinstance(content, str) else content if isinstance(content, list) else []
            found += [p for p in paths if isinstance(p, str) and p.strip() and p not in found]
        break
    return found


def recorded_entries(payload: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The ledger's entries: the record's `extra.ledger`, else `twnb.ledger` (as view.ledger_of)."""
    for ledger in ((payload.get("extra") or {}).get("ledger"), (payload.get("twnb") or {}).get("ledger")):
        if isinstance(ledger, Mapping) and ledger.get("entries"):
            return _mappings(ledger.get("entries"))
    return []


def recorded_row(entry: Mapping[str, Any]) -> dict[str, object]:
    """What a ledger row says that its entry records as it is."""
    kind, status = _text(entry.get("kind")), _text(entry.get("status"))
    return {
        "label": "waiting for your decision"
        if kind == "wait"
        else f"{_text(entry.get('role'))} {_KIND_LABEL.get(kind, kind)}",
        "kind": kind,
        "tone": kind if status in _OK_STATUSES else "skipped" if status == "skipped" else "failed",
        "start_s": _number(entry.get("start_s")),
        "duration_s": _number(entry.get("duration_s")),
    }


def _without(item: Mapping[str, Any], given: Mapping[str, object]) -> dict[str, Any]:
    return {key: value for key, value in item.items() if key not in given or given[key] != value}


def _with(item: Mapping[str, Any], given: Mapping[str, object]) -> dict[str, Any]:
    return {**given, **item}


def _block_given(payload: Mapping[str, Any], block: Mapping[str, Any]) -> dict[str, object]:
    return {**_BLOCK_DEFAULTS, "artifacts": recorded_paths(payload, _text(block.get("post_id")))}


def _artifact_given(item: Mapping[str, Any]) -> dict[str, object]:
    path = _text(item.get("path"))
    return {**_ARTIFACT_DEFAULTS, "label": path.split("/")[-1], "url": path}


def _rows(payload: Mapping[str, Any], view: Mapping[str, Any], edit: Callable[..., dict[str, Any]]) -> object:
    ledger = view.get("ledger")
    if not isinstance(ledger, Mapping):
        return ledger
    rows, entries = _mappings(ledger.get("rows")), recorded_entries(payload)
    if len(rows) == len(entries):
        rows = [edit(row, recorded_row(entry)) for row, entry in zip(rows, entries, strict=True)]
    return {**ledger, "rows": rows}


def leave_to_record(view: dict[str, Any], payload: Mapping[str, Any]) -> None:
    """Take out of `view` (stored form, being built) each fact the record gives as it is."""
    for key, default in _DEFAULTS.items():
        if key in view and view[key] == default:
            del view[key]
    if view.get("plan") == recorded_plan(payload):
        del view["plan"]
    posts = _posts(payload)
    stored_posts = [
        _without(post, {**_POST_DEFAULTS, "title": recorded_title(record)})
        for post, record in zip(_mappings(view.get("posts")), posts, strict=False)
    ]
    if len(stored_posts) == len(posts) == len(view.get("posts") or []):
        if any(stored_posts):
            view["posts"] = stored_posts
        else:
            del view["posts"]
    view["code"] = [_without(block, _block_given(payload, block)) for block in _mappings(view.get("code"))]
    view["artifacts"] = [_without(item, _artifact_given(item)) for item in _mappings(view.get("artifacts"))]
    view["ledger"] = _rows(payload, view, _without)


def put_back(stored: Mapping[str, Any], payload: Mapping[str, Any]) -> dict[str, Any]:
    """A stored view with each fact it left to the record read from there."""
    whole = {"plan_decision": None, "notes": [], **stored}  # _DEFAULTS, each list a new one
    if "plan" not in whole:
        whole["plan"] = recorded_plan(payload)
    posts = _posts(payload)
    stored_posts = _mappings(whole["posts"]) if "posts" in whole else [{} for _ in posts]
    whole["posts"] = [
        _with(post, {**_POST_DEFAULTS, "title": recorded_title(posts[index] if index < len(posts) else {})})
        for index, post in enumerate(stored_posts)
    ]
    whole["code"] = [_with(block, _block_given(payload, block)) for block in _mappings(whole.get("code"))]
    whole["artifacts"] = [
        # The link as links.py makes it: the same as the path for every view that left it out, and no
        # link at all for a hostile payload's path that is not a safe relative one.
        _with(item, {**_artifact_given(item), "url": artifact_url(_text(item.get("path")))})
        for item in _mappings(whole.get("artifacts"))
    ]
    whole["ledger"] = _rows(payload, whole, _with)
    return whole
