"""`text/html`: a finished Round, readable with no widget and no extension, laid out as the extension
lays it out: both draw the payload's view (view.py), so a notebook reads the same with and without it.

Self-contained: no script, no style block, no external CSS. What a saved, untrusted notebook keeps is
what this uses: plain elements (`details`, lists), Pygments classes for code (the frontend's
theme colours them), inline styles with plain values only (JupyterLab strips `var(--jp-...)`
declarations from untrusted output), and colours chosen to read on light and dark backgrounds (badges
with white text, grey borders at half opacity); text itself inherits the theme's colour. Previews
are bounded data-URI thumbnails; file links are relative paths to visible files.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from twnb.render.conversation import ConversationPost, conversation
from twnb.render.highlighted_code import MONOSPACE, code_html, preformatted_html
from twnb.render.labels import (
    OUTCOME_LABELS,
    PLANNER_NOTES,
    RESULT_TYPES,
    attachment_label,
    code_section_title,
    failure_text,
)
from twnb.render.links import artifact_label, artifact_url
from twnb.render.markdown_to_html import LINK_STYLE, inline_html, markdown_html
from twnb.render.text import clean_text, clip_middle, shorten
from twnb.render.timeline import timeline_html
from twnb.render.user_cells import user_cells_html
from twnb.render.view import PlanStepView, RoundView, plan_steps, view_of

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
_UNDONE_BODY = "opacity:0.5"
_ANSWER = "border-left:3px solid #2f81f7;padding:2px 10px;margin:6px 0"
OPEN_SECTION_LIMIT = 20  # the code section starts open up to this many blocks (a 500-post Round folds)
# A code block's outcome badge (labels.OUTCOME_LABELS words it): a colour that reads on light and dark.
OUTCOME_COLOURS = {"ran": "#1a7f37", "failed": "#cf222e", "refused": "#cf222e"}


def round_html(payload: Mapping[str, Any]) -> str:
    """The Round in `payload` (the MIME JSON) as one self-contained HTML fragment, laid out as the
    JupyterLab extension lays it out (both draw the payload's view, view.py): the request, the plan,
    each code block with what became of it, the artifacts, the answer, the notes, the ledger, and the
    conversation folded beneath, each post with only what the main view did not say (conversation.py)."""
    view = view_of(payload)
    twnb = payload.get("twnb") or {}
    previews = [p for p in twnb.get("previews") or [] if isinstance(p, Mapping)]
    parts = [_header(view), _undone(view.get("undone")), user_cells_html(view.get("user_cells"))]
    parts += [plan_html(view["plan"], view["plan_decision"]), _code_section(view["code"])]
    parts.append(_artifacts(view["artifacts"], previews))
    if view["answer"]:
        parts.append(f'<div class="twnb-answer" style="{_ANSWER}">{markdown_html(view["answer"])}</div>')
    parts += [note_html(note["label"], note["text"]) for note in view["notes"]]
    parts.append(timeline_html(view["ledger"]))  # where the time and the tokens went
    parts.append(_conversation(payload, view))
    if view.get("undone"):  # greyed under its header and its one line: taken back, kept for the record
        body = f'<div style="{_UNDONE_BODY}">' + "".join(parts[2:]) + "</div>"
        return f'<div class="twnb-round twnb-undone" style="{_BOX}">' + "".join(parts[:2]) + body + "</div>"
    return f'<div class="twnb-round" style="{_BOX}">' + "".join(parts) + "</div>"


def _undone(line: str | None) -> str:
    if not line:
        return ""
    return _note_box(_GREY, f'<span style="{_MUTED}">{html.escape(line)}</span>')


def _header(view: Mapping[str, Any]) -> str:
    summary = view["summary"]
    request = "<br>".join(inline_html(line, links=False) for line in view["request"].splitlines())
    return (
        f"<div><b>twnb</b> {state_badge(view['state'])}"
        + (f' <small style="{_MUTED}">{html.escape(summary)}</small>' if summary else "")
        + f'</div><div style="margin:4px 0;font-weight:600">{request}</div>'
    )


def _code_section(blocks: Sequence[Mapping[str, Any]]) -> str:
    """Every piece of code the Round wrote, each with its outcome and the decision made on it."""
    if not blocks:
        return ""
    title = code_section_title(blocks)
    body = "".join(_code_block(index, block) for index, block in enumerate(blocks, 1))
    return _section(title, body, open_=len(blocks) <= OPEN_SECTION_LIMIT)


def _code_block(index: int, block: Mapping[str, Any]) -> str:
    outcome = str(block["outcome"])
    label, colour = OUTCOME_LABELS.get(outcome, outcome), OUTCOME_COLOURS.get(outcome, "#57606a")
    parts = [
        f'<div style="margin:6px 0 0 0"><small style="{_MUTED}">{index}.</small> {_badge(label, colour)}'
    ]
    if block.get("decision_line"):
        parts.append(f' <small style="{_MUTED}"><i>{html.escape(block["decision_line"])}.</i></small>')
    parts.append("</div>")
    refused = block.get("refused_edit")
    if refused:  # what the user typed, which never ran, and why
        parts.append(
            f'<div><small style="{_MUTED}">your edit (not run)</small>{code_html(refused["code"])}'
            + (_note_box("#cf222e", preformatted_html(refused["refusal"])) if refused["refusal"] else "")
            + "</div>"
        )
    parts.append(code_html(block["code"]))
    if block.get("result"):  # the real outputs are in the cell; this is the text the LLM was given
        parts.append(_folded("result as the LLM was told", preformatted_html(block["result"])))
    if block.get("error"):
        parts.append(_note_box("#cf222e", preformatted_html(block["error"])))
    return "".join(parts)


def _artifacts(artifacts: Sequence[Mapping[str, Any]], previews: Sequence[Mapping[str, Any]]) -> str:
    if not artifacts:
        return ""
    items = []
    for artifact in artifacts:
        index = artifact.get("preview")
        preview = previews[index] if isinstance(index, int) and 0 <= index < len(previews) else None
        items.append(_artifact(str(artifact["path"]), preview, omitted=artifact.get("omitted")))
    return '<div class="twnb-artifacts" style="margin:4px 0">' + "".join(items) + "</div>"


def _conversation(payload: Mapping[str, Any], view: RoundView) -> str:
    """Every post, folded, with only what the main view above did not say (conversation.py): a code
    post points at its block, the request's and the answer's posts at the texts above."""
    posts = conversation(payload, view)
    blocks = {block["post_id"]: index for index, block in enumerate(view["code"], 1)}
    ids = [str(p.get("id")) for p in payload.get("post_list") or [] if isinstance(p, Mapping)]
    body = "".join(
        _post(post, facts, blocks.get(post_id))
        for post, facts, post_id in zip(posts, view["posts"], ids, strict=False)
    )
    return _section(f"Conversation ({len(posts)} post{'s' if len(posts) != 1 else ''})", body, open_=False)


def _section(title: str, body: str, *, open_: bool) -> str:
    return (
        f'<details{" open" if open_ else ""} style="margin:4px 0"><summary style="cursor:pointer">'
        f"<b>{html.escape(title)}</b></summary>{body}</details>"
    )


def state_badge(state: str) -> str:
    colour = STATE_COLOURS.get(state, "#57606a")
    return (
        f'<span style="background:{colour};color:#fff;border-radius:8px;padding:0 6px">'
        f"{html.escape(state)}</span>"
    )


def plan_html(plan: list[PlanStepView] | Mapping[str, Any] | None, decision: str | None = None) -> str:
    """The plan as a checklist: each step's mark, its full text (inline Markdown) and its state. Takes
    the view's steps, or a plan's dict (`{"subtasks": [...]}`, the live widget's)."""
    steps = plan if isinstance(plan, list) else plan_steps(plan)
    decided = (
        f'<div><small style="{_MUTED}"><i>{html.escape(decision)}.</i></small></div>' if decision else ""
    )
    if not steps:  # a payload without a plan still says what the user decided on it
        return decided
    items = []
    for step in steps:
        state = str(step.get("state", "todo"))
        mark = STEP_MARKS.get(state, "☐")
        text = inline_html(str(step.get("text", "")), links=False)
        label = f'<small style="{_MUTED}">({html.escape(state)})</small>'
        items.append(f'<li style="margin:2px 0">{mark} {text} {label}</li>')
    return (
        '<div style="margin:4px 0"><b>Plan</b>'
        '<ul style="list-style:none;padding-left:4px;margin:2px 0">'
        + "".join(items)
        + "</ul>"
        + decided
        + "</div>"
    )


def _post(post: ConversationPost, facts: Mapping[str, Any], block: int | None) -> str:
    first_line = next((line.strip() for line in post.message.splitlines() if line.strip()), "")
    hint = shorten(first_line, 90) if first_line else f"({post.said_above}, above)" if post.said_above else ""
    hint_html = f' <small style="{_MUTED}">{html.escape(hint)}</small>' if hint else ""
    decision = facts.get("decision")  # in the summary: seen with the post folded
    decided = f' <small style="{_MUTED}"><i>{html.escape(decision)}.</i></small>' if decision else ""
    body = []
    if post.cut_off:
        body.append(_note_box("#9a6700", f"<b>⚠ {html.escape(post.cut_off)}</b>"))
    if post.message:
        body.append(markdown_html(post.message))
    if block is not None:
        body.append(f'<div><small style="{_MUTED}">its code: block {block} above</small></div>')
    body.append(_attachments(post.attachments))
    return (
        f'<details style="{_POST}"><summary style="cursor:pointer">'
        f"<b>{html.escape(str(facts.get('title', '')))}</b>{decided}{hint_html}</summary>"
        + "".join(body)
        + "</details>"
    )


def _attachments(attachments: Sequence[tuple[str, Any]]) -> str:
    """What a post carries beyond the main view: the Planner's notes (folded), thoughts, a verdict."""
    parts, notes = [], []
    for kind, content in attachments:
        text = clean_text(content)
        if kind == "verification" and text.strip() in ("CORRECT", "NONE"):
            if text.strip() == "CORRECT":
                parts.append(f"<div>{_badge('verified', '#1a7f37')}</div>")
        elif kind in PLANNER_NOTES:
            notes.append(_note_text(kind, text))
        elif kind == "reply_content":  # a text reply (a code reply is a block of the main view)
            parts.append(markdown_html(text))
        elif kind in RESULT_TYPES:
            parts.append(
                f'<div><small style="{_MUTED}">{html.escape(attachment_label(kind))}</small>'
                + _note_box("#cf222e", preformatted_html(clip_middle(text, RESULT_LIMIT)))
                + "</div>"
            )
        elif kind == "verification":  # INCORRECT, with the reasons
            parts.append(_labelled_text(kind, text, accent="#cf222e"))
        else:
            parts.append(
                f'<div><small style="{_MUTED}">{html.escape(attachment_label(kind))}:</small> '
                f"<i>{inline_html(' '.join(text.split()), links=False)}</i></div>"
            )
    if notes:  # prose, not code: its line breaks kept by one style on the box, in the text's own font
        parts.append(_folded("planner notes", f'<div style="white-space:pre-wrap">{"".join(notes)}</div>'))
    return "".join(parts)


def _note_text(kind: str, text: str) -> str:
    label = f'<small style="{_MUTED}">{html.escape(attachment_label(kind))}</small>'
    return f"<div>{label}<br>{html.escape(clip_middle(text, RESULT_LIMIT), quote=False)}</div>"


def _labelled_text(kind: str, text: str, *, accent: str | None = None) -> str:
    body = preformatted_html(clip_middle(text, RESULT_LIMIT))
    return (
        f'<div><small style="{_MUTED}">{html.escape(attachment_label(kind))}</small>'
        + (_note_box(accent, body) if accent else body)
        + "</div>"
    )


def _artifact(path: str, preview: Mapping[str, Any] | None, *, omitted: Any = None) -> str:
    """A link to the artifact, labelled by its file name, and its thumbnail when there is one."""
    label = html.escape(artifact_label(path))
    url = artifact_url(path)
    link = (
        f'<a href="{html.escape(url)}" target="_blank" style="{LINK_STYLE}">{label}</a>'
        if url is not None
        else f'<code style="{MONOSPACE}">{label}</code>'
    )
    image = ""
    if preview is not None and preview.get("data"):
        mime = html.escape(str(preview.get("mime") or "image/png"))
        image = (
            f'<br><img src="data:{mime};base64,{html.escape(str(preview["data"]))}" alt="{label}" '
            'style="max-width:320px;max-height:320px">'
        )
    elif omitted:
        image = f' <small style="{_MUTED}">({html.escape(str(omitted))})</small>'
    return f'<div style="margin:2px 0">{link}{image}</div>'


def failure_html(state: str, reason: object) -> str:
    return note_html(f"Round {state}", failure_text(state, reason))


def note_html(label: str, text: object) -> str:
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
