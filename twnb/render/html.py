"""`text/html`: a finished Round as the widget showed it, readable with no widget and no extension.

Self-contained: no script, no style block, no external CSS. What a saved, untrusted notebook keeps is
what this uses: plain elements (`details` per post, lists), Pygments classes for code (the frontend's
theme colours them), inline styles with plain values only (JupyterLab strips `var(--jp-...)`
declarations from untrusted output), and colours chosen to read on light and dark backgrounds (badges
with white text, grey borders at half opacity); text itself inherits the theme's colour. Previews
are bounded data-URI thumbnails; file links are relative paths to visible files.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any

from twnb.render.code_html import code_html, preformatted_html
from twnb.render.decisions import decision_line, refused_edit, without_decision_words
from twnb.render.labels import (
    PLANNER_NOTES,
    attachment_label,
    autosave_note,
    has_code,
    incomplete_reason,
    is_shown,
    payload_state,
    post_title,
    sections_kept_open,
    summary_line,
)
from twnb.render.links import artifact_label, artifact_url
from twnb.render.markdown_html import LINK_STYLE, inline_html, markdown_html
from twnb.render.text import clean_text, clip_middle, shorten
from twnb.render.timeline import timeline_html

RESULT_LIMIT = 8000  # characters of one execution result shown; the JSON keeps everything
STATE_COLOURS = {
    "created": "#1f6feb",
    "running": "#1f6feb",
    "finished": "#1a7f37",
    "failed": "#cf222e",
    "interrupted": "#9a6700",
}
STEP_MARKS = {"todo": "☐", "in_progress": "▶", "done": "☑", "abandoned": "✗"}  # the plan model's states
_GREY = "rgba(128,128,128,0.45)"  # a border that shows on white and on near-black alike
_BOX = f"border:1px solid {_GREY};border-radius:6px;padding:6px 10px;margin:2px 0"
_POST = f"border-left:3px solid {_GREY};padding:0 0 0 8px;margin:6px 0"
_MUTED = "opacity:0.75"


def round_html(payload: Mapping[str, Any]) -> str:
    """The Round in `payload` (the MIME JSON) as one self-contained HTML fragment."""
    twnb = payload.get("twnb") or {}
    previews = {str(p.get("path")): p for p in twnb.get("previews") or []}
    keep_open = sections_kept_open(payload)
    parts = [_header(payload), plan_html(twnb.get("plan"))]
    shown_notes: dict[str, str] = {}  # the plan texts already shown in this Round
    linked: set[str] = set()
    for post in payload.get("post_list") or []:
        shown = without_decision_words(post)  # its decision line says it once
        parts.append(_post(shown, str(post.get("id")) in keep_open, previews, shown_notes, linked))
    failure = (payload.get("extra") or {}).get("failure_reason")
    if payload.get("state") == "failed":
        parts.append(failure_html(payload_state(payload), failure or "the Round failed"))
    unsaved = autosave_note(payload)
    if unsaved:  # the Round went on: said once, where the Round is, not only in a log
        parts.append(note_html("Not autosaved", unsaved))
    rest = [p for path, p in previews.items() if path not in linked]
    if rest:
        parts.append("<div>" + "".join(_artifact(str(p.get("path")), p) for p in rest) + "</div>")
    parts.append(timeline_html(twnb.get("ledger")))  # where the time and the tokens went
    return f'<div class="twnb-round" style="{_BOX}">' + "".join(parts) + "</div>"


def _header(payload: Mapping[str, Any]) -> str:
    state = payload_state(payload)
    summary = summary_line(payload)
    query = clean_text(payload.get("user_query", ""))
    request = "<br>".join(inline_html(line, links=False) for line in query.splitlines())
    return (
        f"<div><b>twnb</b> {state_badge(state)}"
        + (f' <small style="{_MUTED}">{html.escape(summary)}</small>' if summary else "")
        + f'</div><div style="margin:4px 0;font-weight:600">{request}</div>'
    )


def state_badge(state: str) -> str:
    colour = STATE_COLOURS.get(state, "#57606a")
    return (
        f'<span style="background:{colour};color:#fff;border-radius:8px;padding:0 6px">'
        f"{html.escape(state)}</span>"
    )


def plan_html(plan: Mapping[str, Any] | None) -> str:
    """The plan as a checklist: each step's mark, its full text (inline Markdown) and its state."""
    if not plan or not plan.get("subtasks"):
        return ""
    items = []
    for step in plan["subtasks"]:
        state = str(step.get("state", "todo"))
        mark = STEP_MARKS.get(state, "☐")
        text = inline_html(" ".join(clean_text(step.get("name", "")).split()), links=False)
        label = f'<small style="{_MUTED}">({html.escape(state)})</small>'
        items.append(f'<li style="margin:2px 0">{mark} {text} {label}</li>')
    return (
        '<div style="margin:4px 0"><b>Plan</b>'
        '<ul style="list-style:none;padding-left:4px;margin:2px 0">' + "".join(items) + "</ul></div>"
    )


def _post(
    post: Mapping[str, Any],
    open_: bool,
    previews: Mapping[str, Mapping[str, Any]],
    shown_notes: dict[str, str],
    linked: set[str],
) -> str:
    message = clean_text(post.get("message") or "")
    first_line = next((line.strip() for line in message.splitlines() if line.strip()), "")
    hint = (
        ""
        if open_ or not first_line
        else f' <small style="{_MUTED}">{html.escape(shorten(first_line, 90))}</small>'
    )
    decision = decision_line(post)  # in the summary: seen with the post folded
    decided = f' <small style="{_MUTED}"><i>{html.escape(decision)}.</i></small>' if decision else ""
    body = []
    cut_off = incomplete_reason(post)
    if cut_off:
        body.append(_note_box("#9a6700", f"<b>⚠ {html.escape(cut_off)}</b>"))
    refused = refused_edit(post)
    if refused is not None:  # what the user typed, which never ran, and why
        code, refusal = refused
        body.append(
            f'<div><small style="{_MUTED}">your edit (not run)</small>{code_html(clean_text(code))}'
            + (_note_box("#cf222e", preformatted_html(clean_text(refusal))) if refusal else "")
            + "</div>"
        )
    if message.strip():
        body.append(markdown_html(message))
    body.append(_attachments(post, previews, shown_notes, linked))
    return (
        f'<details{" open" if open_ else ""} style="{_POST}"><summary style="cursor:pointer">'
        f"<b>{html.escape(post_title(post))}</b>{decided}{hint}</summary>" + "".join(body) + "</details>"
    )


def _attachments(
    post: Mapping[str, Any],
    previews: Mapping[str, Mapping[str, Any]],
    shown_notes: dict[str, str],
    linked: set[str],
) -> str:
    attachments = [(str(a.get("type")), a.get("content")) for a in post.get("attachment_list") or []]
    kinds = {kind: content for kind, content in attachments}
    verified = str(kinds.get("verification", "")).strip() == "CORRECT"
    succeeded = str(kinds.get("execution_status", "")).strip().upper() == "SUCCESS"
    parts, notes = [], []
    for kind, content in attachments:
        if not is_shown(kind, content):
            continue
        text = clean_text(content)
        if kind == "verification" and text.strip() in ("CORRECT", "NONE"):
            if verified and "execution_status" not in kinds:
                parts.append(f"<div>{_badge('verified', '#1a7f37')}</div>")
            continue
        if kind in PLANNER_NOTES:
            if kind in ("init_plan", "plan"):  # the plan texts once per Round, again only when changed
                if shown_notes.get(kind) == text.strip():
                    continue
                shown_notes[kind] = text.strip()
            notes.append(_labelled_text(kind, text))
        elif kind == "artifact_paths":
            paths = [content] if isinstance(content, str) else [str(p) for p in content or []]
            linked.update(paths)
            parts.append("<div>" + "".join(_artifact(p, previews.get(p)) for p in paths) + "</div>")
        elif kind == "reply_content" and has_code(post):
            parts.append(code_html(text))
        elif kind == "execution_status":
            colour = "#1a7f37" if text.strip().upper() == "SUCCESS" else "#cf222e"
            badge = " " + _badge("verified", "#1a7f37") if verified else ""
            parts.append(
                f'<div><small style="{_MUTED}">status</small> {_badge(text.strip(), colour)}{badge}</div>'
            )
        elif kind == "execution_result" and succeeded:
            # The real outputs are in the cell; this is the text the LLM was given.
            parts.append(
                _folded("result as the LLM was told", preformatted_html(clip_middle(text, RESULT_LIMIT)))
            )
        elif kind == "revise_message":  # what the CodeInterpreter was told: the error above, again
            parts.append(_folded("revise", preformatted_html(clip_middle(text, RESULT_LIMIT))))
        elif kind in ("execution_result", "code_error"):
            accent = "#cf222e"
            parts.append(
                f'<div><small style="{_MUTED}">{html.escape(attachment_label(kind))}</small>'
                + _note_box(accent, preformatted_html(clip_middle(text, RESULT_LIMIT)))
                + "</div>"
            )
        elif kind == "verification":  # INCORRECT, with the reasons
            parts.append(_labelled_text(kind, text, accent="#cf222e"))
        else:
            parts.append(
                f'<div><small style="{_MUTED}">{html.escape(attachment_label(kind))}:</small> '
                f"<i>{inline_html(' '.join(text.split()), links=False)}</i></div>"
            )
    if notes:
        parts.append(_folded("planner notes", "".join(notes)))
    return "".join(parts)


def _labelled_text(kind: str, text: str, *, accent: str | None = None) -> str:
    body = preformatted_html(clip_middle(text, RESULT_LIMIT))
    return (
        f'<div><small style="{_MUTED}">{html.escape(attachment_label(kind))}</small>'
        + (_note_box(accent, body) if accent else body)
        + "</div>"
    )


def _artifact(path: str, preview: Mapping[str, Any] | None) -> str:
    """A link to the artifact, labelled by its file name, and its thumbnail when there is one."""
    label = html.escape(artifact_label(path))
    url = artifact_url(path)
    link = (
        f'<a href="{html.escape(url)}" target="_blank" style="{LINK_STYLE}">{label}</a>'
        if url is not None
        else f"<code>{label}</code>"
    )
    image = ""
    if preview is not None and preview.get("data"):
        mime = html.escape(str(preview.get("mime") or "image/png"))
        image = (
            f'<br><img src="data:{mime};base64,{html.escape(str(preview["data"]))}" alt="{label}" '
            'style="max-width:320px;max-height:320px">'
        )
    elif preview is not None and preview.get("omitted"):
        image = f' <small style="{_MUTED}">({html.escape(str(preview["omitted"]))})</small>'
    return f'<div style="margin:2px 0">{link}{image}</div>'


def failure_html(state: str, reason: Any) -> str:
    return note_html(f"Round {state}", reason)


def note_html(label: str, text: Any) -> str:
    """A labelled note with a red rule (a failure, a failed autosave)."""
    return _note_box("#cf222e", f"<b>{html.escape(label)}:</b> {html.escape(clean_text(text))}")


def _note_box(accent: str, inner: str) -> str:
    return f'<div style="border-left:3px solid {accent};padding:2px 8px;margin:4px 0">{inner}</div>'


def _badge(text: str, colour: str) -> str:
    return (
        f'<small style="background:{colour};color:#fff;border-radius:8px;padding:0 5px">'
        f"{html.escape(text)}</small>"
    )


def _folded(summary: str, inner: str) -> str:
    return (
        f'<details><summary style="cursor:pointer"><small style="{_MUTED}">{html.escape(summary)}</small>'
        f"</summary>{inner}</details>"
    )
