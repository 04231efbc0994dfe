"""A saved Round's `text/plain` and `text/markdown`: a short summary, not a second copy of the Round.

Every viewer that draws a notebook's outputs picks the Round's `text/html` (or, with the extension,
its MIME JSON), which shows the Round whole; these two are for what reads text: a terminal tool, a
diff, a model reading the notebook, a Markdown-only viewer. Each names the Round and its outcome in a
few lines drawn from the payload's view (view.py): the state, the request, the user's cells it
followed (one line), how many plan steps and code blocks and how each ended with the decisions a
person made on them, the artifacts, the answer (clipped), every note whole (a failure's reason among
them) and the summary line; the first line says it is a summary and where the whole Round is.
Terminal IPython, which shows only text, prints the whole Round instead (plain.round_text).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from twnb.render.labels import OUTCOME_LABELS
from twnb.render.markdown_escape import escape_markdown, escape_markdown_inline
from twnb.render.text import plain_text, shorten
from twnb.render.user_cells import user_cells_text
from twnb.render.view import ArtifactView, RoundView, view_of

ANSWER_LIMIT = 400  # characters of the answer a summary keeps; the record and the HTML keep all
WHOLE_ROUND = "a summary: the HTML view shows the whole Round"


def round_summary_text(payload: Mapping[str, Any]) -> str:
    """The Round in a few plain lines (no terminal control characters)."""
    view = view_of(payload)
    lines = [f"twnb Round {plain_text(payload.get('id', ''))} [{view['state']}] ({WHOLE_ROUND})"]
    if view.get("undone"):
        lines.append(plain_text(view["undone"]))
    lines.append(f"request: {plain_text(shorten(' '.join(view['request'].split()), ANSWER_LIMIT))}")
    lines += user_cells_text(view.get("user_cells"))
    lines += [plain_text(line) for line in _counts(view)]
    if view["artifacts"]:
        lines.append("artifacts: " + ", ".join(plain_text(a["path"]) for a in view["artifacts"]))
    if view["answer"]:
        lines.append(f"answer: {plain_text(shorten(view['answer'].strip(), ANSWER_LIMIT))}")
    lines += [f"{note['label']}: {plain_text(note['text'])}" for note in view["notes"]]
    if view["summary"]:
        lines.append(view["summary"])
    return "\n".join(lines)


def round_summary_markdown(payload: Mapping[str, Any]) -> str:
    """The Round in a few Markdown lines: LLM text escaped, artifacts linked, never embedded."""
    view = view_of(payload)
    inline = escape_markdown_inline
    lines = [f"**twnb Round** `{payload.get('id', '')}` · {view['state']} *({WHOLE_ROUND})*", ""]
    if view.get("undone"):
        lines += [f"*{inline(view['undone'])}*", ""]
    lines += ["> " + inline(shorten(" ".join(view["request"].split()), ANSWER_LIMIT)), ""]
    lines += [f"*{inline(line)}*\n" for line in user_cells_text(view.get("user_cells"))]
    counts = _counts(view)
    if counts:
        lines += [inline(" · ".join(counts)), ""]
    if view["artifacts"]:
        lines += ["Artifacts: " + ", ".join(_artifact_link(a) for a in view["artifacts"]), ""]
    if view["answer"]:
        answer = escape_markdown(shorten(view["answer"].strip(), ANSWER_LIMIT), links=True)
        lines += [f"**Answer:** {answer}", ""]
    lines += [f"**{inline(note['label'])}:** {inline(note['text'])}" for note in view["notes"]]
    lines += [""] if view["notes"] else []
    if view["summary"]:
        lines.append(f"*{view['summary']}*")
    return "\n".join(lines).rstrip() + "\n"


def _counts(view: RoundView) -> list[str]:
    """`plan: 3 steps (3 done)` and `code: 2 blocks (1 ran, 1 not run). You skipped this code.`, each
    only when the Round has some, with the decisions a person made on the plan and the code."""
    lines = []
    if view["plan"]:
        states = Counter(step["state"] for step in view["plan"])
        lines.append(f"plan: {_many(len(view['plan']), 'step')} ({_each(states)})")
    if view["plan_decision"]:
        lines.append(f"{view['plan_decision']}.")
    if view["code"]:
        outcomes = Counter(OUTCOME_LABELS.get(block["outcome"], block["outcome"]) for block in view["code"])
        decided = dict.fromkeys(b["decision_line"] for b in view["code"] if b["decision_line"])
        said = "".join(f" {line}." for line in decided)  # what a person decided on the code, once each
        lines.append(f"code: {_many(len(view['code']), 'block')} ({_each(outcomes)}).{said}")
    return lines


def _many(count: int, noun: str) -> str:
    return f"{count} {noun}{'s' if count != 1 else ''}"


def _each(counts: Counter[str]) -> str:
    return ", ".join(f"{n} {what}" for what, n in counts.items())


def _artifact_link(artifact: ArtifactView) -> str:
    label = escape_markdown_inline("`" + artifact["label"] + "`")
    return label if artifact["url"] is None else f"[{label}]({artifact['url']})"
