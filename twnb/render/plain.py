"""`text/plain`: a Round for terminal IPython and anything that shows no Markdown or HTML."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from twnb.render.decisions import decision_line, refused_edit, without_decision_words
from twnb.render.labels import (
    CODE_TYPES,
    RESULT_TYPES,
    autosave_note,
    incomplete_reason,
    is_shown,
    payload_state,
    post_title,
    summary_line,
)
from twnb.render.text import clip_middle, plain_text

TEXT_LIMIT = 4000  # characters of one result shown in text/plain and text/markdown; the JSON keeps all


def round_text(payload: Mapping[str, Any]) -> str:
    """Readable plain text for terminal IPython and anything that shows no Markdown."""
    twnb = payload.get("twnb") or {}
    lines = [f"twnb Round {payload.get('id', '')} [{payload_state(payload)}]"]
    lines.append(f"request: {plain_text(payload.get('user_query', ''))}")
    plan = twnb.get("plan")
    if plan and plan.get("subtasks"):
        lines.append("plan:")
        for step in plan["subtasks"]:
            lines.append(f"  [{plain_text(step.get('state', ''))}] {plain_text(step.get('name', ''))}")
    for post in payload.get("post_list") or []:
        post = without_decision_words(post)  # the decision line below says it once
        lines.append(f"--- {plain_text(post_title(post, arrow='->'))}")
        decision = decision_line(post)
        if decision is not None:
            lines.append(f"({decision}.)")
        refused = refused_edit(post)
        if refused is not None:  # what the user typed, which never ran, and why
            code, refusal = refused
            lines.append("[your edit (not run)]")
            lines += ["  " + line for line in plain_text(code).splitlines()]
            lines += ["  " + line for line in plain_text(refusal).splitlines()]
        cut_off = incomplete_reason(post)
        if cut_off is not None:
            lines.append(plain_text(cut_off))
        message = plain_text(post.get("message") or "").strip()
        if message:
            lines.append(message)
        for attachment in post.get("attachment_list") or []:
            kind = str(attachment.get("type"))
            content = attachment.get("content")
            if not is_shown(kind, content):
                continue
            text = plain_text(content)
            if kind in CODE_TYPES or kind in RESULT_TYPES or "\n" in text.strip():
                lines.append(f"[{kind}]")
                lines += ["  " + line for line in clip_middle(text, TEXT_LIMIT).splitlines()]
            else:
                lines.append(f"[{kind}] {text}")
    failure = (payload.get("extra") or {}).get("failure_reason")
    if failure:
        lines.append(f"Round {payload_state(payload)}: {plain_text(failure)}")
    unsaved = autosave_note(payload)
    if unsaved:
        lines.append(f"Not autosaved: {plain_text(unsaved)}")
    held = (payload.get("extra") or {}).get("held_back_cells")
    if held:  # step mode: why the cells queued below did not run
        lines.append(f"Cells below not run: {plain_text(held)}")
    summary = summary_line(payload)
    if summary:
        lines.append(summary)
    return "\n".join(lines)
