"""The conversation beneath a Round's main view, as the static views list it (HTML, Markdown, text).

The main view (view.py) already shows the request, the plan and the decision made on it, each code
block with its outcome, result, error and decision, every artifact and the answer. The extension folds
the whole record beneath it; the static views (the HTML folded, Markdown and text unfolded) list each
post with only what the main view did not say: its title, why it was cut off, its message (or a
pointer to the request or the answer above), the Planner's reasoning and plans (each plan text once,
again only when changed; not its current step and stop word) and the attachments no code block shows
(thoughts, verification). Nothing then reads twice,
and a saved notebook keeps each text once per view.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from twnb.render.decisions import decision_line, without_decision_words
from twnb.render.labels import has_code, is_shown
from twnb.render.text import clean_text
from twnb.render.view import RoundView

# What a code post's block in the main view shows (the code, its outcome, result and error, and the
# error again as the CodeInterpreter was told it): the post does not repeat it. Artifacts are all listed
# in the main view, whichever post made them.
IN_CODE_BLOCK = frozenset(
    {"reply_content", "execution_status", "execution_result", "code_error", "revise_message"}
)
IN_ARTIFACTS = "artifact_paths"
_ONCE_PER_ROUND = ("init_plan", "plan")  # the Planner restates its plan in every post
# What the Planner states in every post with nothing for a reader: the step it is on (a line of the
# plan shown above) and whether it has stopped (the Round's state, its message). The record keeps them.
NOT_LISTED = frozenset({"current_plan_step", "stop"})


@dataclass(frozen=True)
class ConversationPost:
    title: str
    decision: str | None  # only a decision the main view does not show (beside the plan or a code block)
    cut_off: str | None  # why the reply was cut off
    message: str  # "" when there is none, or when the main view shows it (see `said_above`)
    said_above: str | None  # "the request" or "the answer": the message is that text, shown above
    attachments: list[tuple[str, Any]]  # (type, content) left to show, in the post's order


def conversation(payload: Mapping[str, Any], view: RoundView) -> list[ConversationPost]:
    """Every post of the Round in `payload`, with what `view` (its main view) leaves to say."""
    posts = [p for p in payload.get("post_list") or [] if isinstance(p, Mapping)]
    decided_above = {block["post_id"] for block in view["code"]}
    plan_post = next(
        (str(p.get("id")) for p in posts if p.get("send_from") == "Planner" and decision_line(p)), None
    )
    if view["plan_decision"] and plan_post is not None:
        decided_above.add(plan_post)
    answers = [p for p in posts if p.get("send_from") == "Planner" and p.get("send_to") == "User"]
    answer_id = str(answers[-1].get("id")) if answers and view["answer"] else None
    shown_plans: dict[str, str] = {}
    listed = []
    for post, facts in zip(posts, view["posts"], strict=False):
        shown = without_decision_words(post)  # the decision line says it once
        message = clean_text(shown.get("message") or "").strip()
        said_above = None
        if str(post.get("id")) == answer_id:
            said_above = "the answer"
        elif post.get("send_from") == "User" and message == view["request"].strip():
            said_above = "the request"
        listed.append(
            ConversationPost(
                title=facts["title"],
                decision=None if str(post.get("id")) in decided_above else facts["decision"],
                cut_off=facts["cut_off"],
                message="" if said_above else message,
                said_above=said_above if message else None,
                attachments=_left_to_show(shown, shown_plans),
            )
        )
    return listed


def _left_to_show(post: Mapping[str, Any], shown_plans: dict[str, str]) -> list[tuple[str, Any]]:
    left = []
    code = has_code(post)
    for attachment in post.get("attachment_list") or []:
        kind, content = str(attachment.get("type")), attachment.get("content")
        if not is_shown(kind, content) or kind == IN_ARTIFACTS or kind in NOT_LISTED:
            continue
        if code and kind in IN_CODE_BLOCK:
            continue
        if kind in _ONCE_PER_ROUND:
            text = clean_text(content).strip()
            if shown_plans.get(kind) == text:
                continue
            shown_plans[kind] = text
        left.append((kind, content))
    return left
