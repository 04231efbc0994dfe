"""`text/markdown`: a Round for viewers that render Markdown (GitHub, nbviewer, VS Code), drawn from
the payload's view (view.py) as the static HTML and the extension draw it: the request, the plan and
the decision made on it, each code block with what became of it, the artifacts, the answer, the notes;
then the conversation, each post with only what the main view did not say (conversation.py: Markdown
cannot fold it), and the summary line.

LLM text is untrusted: it is escaped (no raw HTML, no images, only safe links), and every text drops
TaskWeaver's prompt delimiters. Artifact files are linked, not embedded.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from twnb.render.conversation import ConversationPost, conversation
from twnb.render.labels import OUTCOME_LABELS, RESULT_TYPES, code_section_title
from twnb.render.markdown_escape import escape_markdown, escape_markdown_inline, fence
from twnb.render.plain import TEXT_LIMIT
from twnb.render.text import clean_text, clip_middle
from twnb.render.user_cells import user_cells_markdown
from twnb.render.view import ArtifactView, CodeBlockView, RoundView, view_of


def round_markdown(payload: Mapping[str, Any]) -> str:
    view = view_of(payload)
    inline = escape_markdown_inline
    lines = [f"**twnb Round** `{payload.get('id', '')}` · {view['state']}", ""]
    if view.get("undone"):
        lines += [f"*{inline(view['undone'])}*", ""]
    lines += ["> " + inline(line) for line in view["request"].splitlines()]
    lines.append("")
    lines += user_cells_markdown(view.get("user_cells"))
    if view["plan"]:
        lines += ["**Plan**", ""]
        for step in view["plan"]:
            mark = "x" if step["state"] == "done" else " "
            lines.append(f"- [{mark}] {inline(step['text'])} *({inline(step['state'])})*")
        lines.append("")
    if view["plan_decision"]:  # under the checklist; alone when the payload carries no plan
        lines += [f"*{view['plan_decision']}.*", ""]
    if view["code"]:
        lines += [f"**{code_section_title(view['code'])}**", ""]
        for index, block in enumerate(view["code"], 1):
            lines += _code_block(index, block)
    if view["artifacts"]:
        lines += ["**Artifacts**", ""]
        for artifact in view["artifacts"]:
            lines += [_artifact(artifact), ""]
    if view["answer"]:
        lines += ["**Answer**", "", escape_markdown(view["answer"], links=True), ""]
    for note in view["notes"]:
        lines += [f"**{inline(note['label'])}:** {inline(note['text'])}", ""]
    lines += _conversation(payload, view)
    if view["summary"]:
        lines.append(f"*{view['summary']}*")
    return "\n".join(lines).rstrip() + "\n"


def _code_block(index: int, block: CodeBlockView) -> list[str]:
    head = f"**{index}.** *{OUTCOME_LABELS.get(block['outcome'], block['outcome'])}*"
    if block["decision_line"]:
        head += f" · *{block['decision_line']}.*"
    lines = [head, ""]
    refused = block["refused_edit"]
    if refused is not None:  # what the user typed, which never ran, and why
        lines += ["*your edit (not run):*", "", *fence(refused["code"], "python"), ""]
        if refused["refusal"]:
            lines += [*fence(refused["refusal"], "text"), ""]
    lines += [*fence(block["code"], "python"), ""]
    if block["result"]:
        lines += ["*result:*", "", *fence(block["result"], "text"), ""]
    if block["error"]:
        lines += ["*error:*", "", *fence(block["error"], "text"), ""]
    return lines


def _artifact(artifact: ArtifactView) -> str:
    """An image with a preview as an image link (its bytes are in the previews, and for a displayed
    figure in the cell), any other file as a link, a file that cannot be linked by its name."""
    label = escape_markdown_inline(artifact["label"])
    url = artifact["url"]
    omitted = f" *({escape_markdown_inline(artifact['omitted'])})*" if artifact["omitted"] else ""
    if url is None:
        return escape_markdown_inline("`" + artifact["label"] + "`") + omitted
    if artifact["kind"] == "image" and artifact["preview"] is not None:
        return f"![{label}]({url})"
    return f"[{escape_markdown_inline('`' + artifact['label'] + '`')}]({url}){omitted}"


def _conversation(payload: Mapping[str, Any], view: RoundView) -> list[str]:
    posts = conversation(payload, view)
    if not posts:
        return []
    lines = [f"**Conversation** ({len(posts)} post{'s' if len(posts) != 1 else ''})", ""]
    for post in posts:
        lines += _post(post)
    return lines


def _post(post: ConversationPost) -> list[str]:
    inline = escape_markdown_inline
    lines = [f"**{inline(post.title)}**", ""]
    if post.decision is not None:
        lines += [f"*{post.decision}.*", ""]
    if post.cut_off is not None:
        lines += [f"*{inline(post.cut_off)}*", ""]
    if post.said_above:
        lines += [f"*({post.said_above}, above)*", ""]
    elif post.message:
        lines += [escape_markdown(post.message, links=True), ""]
    for kind, content in post.attachments:
        lines += _attachment(kind, content)
    return lines


def _attachment(kind: str, content: object) -> list[str]:
    text = clean_text(content)
    if kind == "reply_content":  # a text reply (a code reply is a block of the main view)
        return [escape_markdown(text), ""]
    label = kind.replace("_", " ")
    if kind in RESULT_TYPES or "\n" in text.strip():
        return [f"*{label}:*", "", *fence(clip_middle(text, TEXT_LIMIT), "text"), ""]
    return [f"*{label}:* {escape_markdown(text)}", ""]
