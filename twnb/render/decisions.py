"""The decision a person made on a post in step mode, as one short line every view shows.

Step mode marks the posts it paused on in their `extra`: `approved_by`, `edited_by` or `skipped_by`
is "User". A Round the user stopped needs no line here: its failure note already says so, unless
the user stopped after verification refused their edit (`refused_edit`): then the line says so, and
the views show that edit, which never ran, under it.

The record says a skip or an edit in words of its own too (the post's message, a skipped post's
result: what the LLM was told). The line is the one place a view says it, so `without_decision_words`
drops those words from the post a view shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from twnb.memory import EDITED_BY_USER, SKIPPED_BY_USER
from twnb.render.labels import has_code

PLAN_DECISIONS = {"edited_by": "You changed this plan", "approved_by": "You approved this plan"}
CODE_DECISIONS = {
    "undone_by": "You undid this code after it ran",
    "skipped_by": "You skipped this code",
    "edited_by": "You edited this code before it ran",
    "approved_by": "You ran this code",
}


# A skip or a stop after verification refused the user's edit: the edit is shown under the line.
SKIPPED_AFTER_REFUSAL = "You skipped this code after verification refused your edit"
STOPPED_AFTER_REFUSAL = "You stopped here after verification refused your edit"


def refused_edit(post: Mapping[str, Any]) -> tuple[str, str] | None:
    """(the code, the refusal) of the user's last edit verification refused, kept on a code post they
    then skipped or stopped at; None for any other post."""
    kept = (post.get("extra") or {}).get("refused_edit")
    if not isinstance(kept, Mapping) or not has_code(post) or not isinstance(kept.get("code"), str):
        return None
    return kept["code"], str(kept.get("refusal") or "")


def decision_line(post: Mapping[str, Any]) -> str | None:
    """`You approved this plan`, `You ran this code`, ... for a post the user decided on, else None.
    In risky step mode a code post says why it paused (`You ran this code; it paused because it
    overwrites sales.csv, ...`) or that it ran without asking."""
    extra = post.get("extra") or {}
    if refused_edit(post) is not None:
        line: str | None = (
            SKIPPED_AFTER_REFUSAL if extra.get("skipped_by") == "User" else STOPPED_AFTER_REFUSAL
        )
    else:
        decisions = CODE_DECISIONS if has_code(post) else PLAN_DECISIONS
        # In the order above: a skip or an edit is the decision even if a key beside it says more.
        line = next((text for key, text in decisions.items() if extra.get(key) == "User"), None)
    return _with_risk(line, extra.get("risk"), post)


RAN_WITHOUT_ASKING = "Ran without asking: verification found nothing risky"


def _with_risk(line: str | None, risk: Any, post: Mapping[str, Any]) -> str | None:
    if not isinstance(risk, Mapping) or not has_code(post):
        return line
    reasons = [str(reason) for reason in risk.get("paused_for") or [] if str(reason).strip()]
    if not reasons:
        return line or (RAN_WITHOUT_ASKING if _ran(post) else None)
    why = f"it paused because {'; '.join(reasons)}"
    return f"{line}; {why}" if line else why[0].upper() + why[1:]


def _ran(post: Mapping[str, Any]) -> bool:
    status = next(
        (
            str(a.get("content"))
            for a in post.get("attachment_list") or []
            if a.get("type") == "execution_status"
        ),
        "",
    )
    return status.strip().upper() not in ("", "NONE")


def unpredicted_lines(post: Mapping[str, Any]) -> list[str]:
    """What the runtime guard saw a code post's code do that verification had not predicted (risky
    step mode), one line each."""
    risk = (post.get("extra") or {}).get("risk")
    if not isinstance(risk, Mapping):
        return []
    return [str(line) for line in risk.get("unpredicted") or [] if str(line).strip()]


# The words each code decision leaves at the start of the post's message and result.
_RECORDED_WORDS = {"skipped_by": SKIPPED_BY_USER, "edited_by": EDITED_BY_USER}


def recorded_words(post: Mapping[str, Any]) -> str | None:
    """The words that record a code post's decision at the start of its message and execution result
    (the decision line says it instead), or None."""
    extra = post.get("extra") or {}
    words = next((w for key, w in _RECORDED_WORDS.items() if extra.get(key) == "User"), None)
    return words if words is not None and has_code(post) else None


def without_decision_words(post: Mapping[str, Any]) -> Mapping[str, Any]:
    """`post` as a view shows it under its decision line: its message and execution result without the
    words that record the same decision (a text left empty is then not shown). Others as they are."""
    words = recorded_words(post)
    if words is None:
        return post

    def strip(text: Any) -> Any:
        if not isinstance(text, str) or not text.lstrip().startswith(words):
            return text
        return text.lstrip()[len(words) :].lstrip()

    attachments = [
        {**a, "content": strip(a.get("content"))} if a.get("type") == "execution_result" else a
        for a in post.get("attachment_list") or []
    ]
    return {**post, "message": strip(post.get("message")), "attachment_list": attachments}
