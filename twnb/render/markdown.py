"""`text/markdown`: a concise Round for viewers that render Markdown (GitHub, nbviewer, VS Code).

LLM text is untrusted: it is escaped (no raw HTML, no images, only safe links), and every text drops
TaskWeaver's prompt delimiters. Artifact files are linked, not embedded.
"""

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
from twnb.render.links import artifact_label, artifact_url
from twnb.render.markdown_escape import escape_markdown, escape_markdown_inline, fence
from twnb.render.plain import TEXT_LIMIT
from twnb.render.text import clean_text, clip_middle


def round_markdown(payload: Mapping[str, Any]) -> str:
    twnb = payload.get("twnb") or {}
    inline = escape_markdown_inline
    lines = [f"**twnb Round** `{payload.get('id', '')}` · {payload_state(payload)}", ""]
    request = clean_text(payload.get("user_query", "")).splitlines()
    lines += ["> " + inline(line) for line in request]
    lines.append("")
    plan = twnb.get("plan")
    if plan and plan.get("subtasks"):
        lines.append("**Plan**")
        lines.append("")
        for step in plan["subtasks"]:
            mark = "x" if step.get("state") == "done" else " "
            state = step.get("state", "")
            lines.append(f"- [{mark}] {inline(_one_line(step.get('name', '')))} *({inline(state)})*")
        lines.append("")
    for post in payload.get("post_list") or []:
        post = without_decision_words(post)  # the decision line below says it once
        lines.append(f"**{inline(post_title(post))}**")
        lines.append("")
        decision = decision_line(post)
        if decision is not None:
            lines += [f"*{decision}.*", ""]
        refused = refused_edit(post)
        if refused is not None:  # what the user typed, which never ran, and why
            code, refusal = refused
            lines += ["*your edit (not run):*", "", *fence(clean_text(code), "python"), ""]
            if refusal:
                lines += [*fence(clean_text(refusal), "text"), ""]
        cut_off = incomplete_reason(post)
        if cut_off is not None:
            lines += [f"*{inline(cut_off)}*", ""]
        message = clean_text(post.get("message") or "")
        if message.strip():
            lines.append(escape_markdown(message, links=True))
            lines.append("")
        for attachment in post.get("attachment_list") or []:
            lines += _attachment_markdown(attachment)
    failure = (payload.get("extra") or {}).get("failure_reason")
    if failure:
        lines += [f"**Round {payload_state(payload)}:** {inline(clean_text(failure))}", ""]
    unsaved = autosave_note(payload)
    if unsaved:
        lines += [f"**Not autosaved:** {inline(clean_text(unsaved))}", ""]
    held = (payload.get("extra") or {}).get("held_back_cells")
    if held:  # step mode: why the cells queued below did not run
        lines += [f"**Cells below not run:** {inline(clean_text(held))}", ""]
    for preview in twnb.get("previews") or []:
        # A link, not the image bytes: they are in the previews and, for displayed figures, in the cell.
        path = str(preview.get("path", ""))
        url = artifact_url(path)
        label = inline(artifact_label(path))
        if preview.get("omitted"):
            lines += [f"*artifact {label}: {inline(str(preview['omitted']))}*", ""]
        elif url is not None:
            lines += [f"![{label}]({url})", ""]
    summary = summary_line(payload)
    if summary:
        lines.append(f"*{summary}*")
    return "\n".join(lines).rstrip() + "\n"


def _one_line(text: Any) -> str:
    return " ".join(clean_text(text).split())


def _attachment_markdown(attachment: Mapping[str, Any]) -> list[str]:
    kind = str(attachment.get("type"))
    content = attachment.get("content")
    if not is_shown(kind, content):
        return []
    if kind == "artifact_paths":
        paths = [content] if isinstance(content, str) else [str(p) for p in content or []]
        return [f"*artifacts:* {', '.join(_artifact_link(p) for p in paths)}", ""]
    text = clean_text(content)
    if kind in CODE_TYPES:
        return [*fence(text, "python"), ""]
    label = kind.replace("_", " ")
    if kind in RESULT_TYPES or "\n" in text.strip():
        return [f"*{label}:*", "", *fence(clip_middle(text, TEXT_LIMIT), "text"), ""]
    return [f"*{label}:* {escape_markdown(text)}", ""]


def _artifact_link(path: str) -> str:
    url = artifact_url(path)
    label = escape_markdown_inline("`" + artifact_label(path) + "`")
    return f"[{label}]({url})" if url is not None else label
