"""A Round as text for terminal IPython (which shows only text, and saves nothing), drawn from the
payload's view (view.py) as every other view is: the request, the plan and the decision made on
it, each code block with what became of it, the artifacts, the answer, the notes; then the
conversation, each post with only what the main view did not say (conversation.py), and the summary
line last. A saved notebook's `text/plain` is the Round's summary instead (summary.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from twnb.render.conversation import ConversationPost, conversation
from twnb.render.labels import OUTCOME_LABELS, RESULT_TYPES, code_section_title
from twnb.render.text import clip_middle, plain_text
from twnb.render.user_cells import user_cells_text
from twnb.render.view import CodeBlockView, view_of

TEXT_LIMIT = 4000  # characters of one result shown in the terminal text; the JSON keeps all


def round_text(payload: Mapping[str, Any]) -> str:
    """Readable plain text for terminal IPython and anything that shows no Markdown."""
    view = view_of(payload)
    lines = [f"twnb Round {plain_text(payload.get('id', ''))} [{view['state']}]"]
    if view.get("undone"):
        lines.append(plain_text(view["undone"]))
    lines.append(f"request: {plain_text(view['request'])}")
    lines += user_cells_text(view.get("user_cells"))
    if view["plan"]:
        lines.append("plan:")
        lines += [f"  [{plain_text(step['state'])}] {plain_text(step['text'])}" for step in view["plan"]]
    if view["plan_decision"]:  # under the plan's steps; alone when the payload carries no plan
        lines.append(("  " if view["plan"] else "") + f"({view['plan_decision']}.)")
    if view["code"]:
        lines.append(code_section_title(view["code"]).lower() + ":")
        for index, block in enumerate(view["code"], 1):
            lines += _code_block(index, block)
    if view["artifacts"]:
        lines.append("artifacts:")
        for artifact in view["artifacts"]:
            omitted = f" ({plain_text(artifact['omitted'])})" if artifact["omitted"] else ""
            lines.append(f"  {plain_text(artifact['path'])}{omitted}")
    if view["answer"]:
        lines.append("answer:")
        lines += _indented(view["answer"], "  ")
    lines += [f"{note['label']}: {plain_text(note['text'])}" for note in view["notes"]]
    posts = conversation(payload, view)
    if posts:
        lines.append(f"conversation ({len(posts)} post{'s' if len(posts) != 1 else ''}):")
        for post in posts:
            lines += _post(post)
    if view["summary"]:
        lines.append(view["summary"])
    return "\n".join(lines)


def _indented(text: object, prefix: str) -> list[str]:
    return [prefix + line for line in plain_text(text).splitlines()]


def _code_block(index: int, block: CodeBlockView) -> list[str]:
    head = f"  {index}. {OUTCOME_LABELS.get(block['outcome'], block['outcome'])}"
    lines = [head + (f" ({block['decision_line']}.)" if block["decision_line"] else "")]
    refused = block["refused_edit"]
    if refused is not None:  # what the user typed, which never ran, and why
        lines.append("    [your edit (not run)]")
        lines += _indented(refused["code"], "      ")
        lines += _indented(refused["refusal"], "      ")
    lines.append("    [code]")
    lines += _indented(block["code"], "      ")
    for label, text in (("result", block["result"]), ("error", block["error"])):
        if text:
            lines.append(f"    [{label}]")
            lines += _indented(text, "      ")
    return lines


def _post(post: ConversationPost) -> list[str]:
    lines = [f"--- {plain_text(post.title).replace('→', '->')}"]
    if post.decision is not None:
        lines.append(f"({post.decision}.)")
    if post.cut_off is not None:
        lines.append(plain_text(post.cut_off))
    if post.said_above:
        lines.append(f"({post.said_above}, above)")
    elif post.message:
        lines.append(plain_text(post.message).strip())
    for kind, content in post.attachments:
        text = plain_text(content)
        if kind in RESULT_TYPES or "\n" in text.strip():
            lines.append(f"[{kind}]")
            lines += _indented(clip_middle(text, TEXT_LIMIT), "  ")
        else:
            lines.append(f"[{kind}] {text}")
    return lines
