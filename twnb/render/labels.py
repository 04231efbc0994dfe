"""What a Round's pieces are called in every view: post titles, the state users see, the summary line,
and which attachments are shown at all."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from twnb.memory import AUTOSAVE_FAILED, format_cost
from twnb.render.text import clean_text

# Attachment types never shown (the reply type is implied by how the reply is shown).
HIDDEN_TYPES = frozenset({"shared_memory_entry", "reply_type", "invalid_response"})
CODE_TYPES = frozenset({"reply_content"})
RESULT_TYPES = frozenset({"execution_result", "code_error", "revise_message"})
# The Planner's bookkeeping: the plan is the checklist, so these fold into the Planner's notes.
PLANNER_NOTES = ("plan_reasoning", "init_plan", "plan", "current_plan_step", "stop")
NO_ERROR = "No error is found."
# A code block's outcome (view.py's `outcome`) as every view words it.
OUTCOME_LABELS = {
    "ran": "ran",
    "failed": "raised",
    "refused": "refused by verification",
    "skipped": "not run",  # its decision line says who skipped it
    "not_run": "not run",
}
LABELS = {
    "init_plan": "initial plan",
    "plan": "plan",
    "current_plan_step": "current step",
    "plan_reasoning": "reasoning",
    "stop": "stop",
    "thought": "thought",
    "reply_type": "reply type",
    "execution_status": "status",
    "execution_result": "result",
    "code_error": "error",
    "revise_message": "revise",
    "verification": "verification",
    "artifact_paths": "artifacts",
}


def code_section_title(blocks: Sequence[Mapping[str, Any]]) -> str:
    """`Code (3 blocks, 2 ran)`: how many pieces of code the Round wrote and how many ran."""
    ran = sum(block.get("outcome") == "ran" for block in blocks)
    return f"Code ({len(blocks)} block{'s' if len(blocks) != 1 else ''}, {ran} ran)"


def attachment_label(kind: str) -> str:
    return LABELS.get(kind, kind.replace("_", " "))


def autosave_note(payload: Mapping[str, Any]) -> str:
    """The note a Round keeps when its autosave failed, else ''."""
    return str((payload.get("extra") or {}).get(AUTOSAVE_FAILED) or "")


def incomplete_reason(post: Mapping[str, Any]) -> str | None:
    """`reply cut off: <why>` for a post the session kept after a failure mid-reply, else None."""
    reason = (post.get("extra") or {}).get("incomplete")
    if not reason:
        return None
    return f"reply cut off: {clean_text(reason)}"


def post_title(post: Mapping[str, Any], *, arrow: str = "→") -> str:
    """`Planner → User`; a post whose recipient is not known (still streaming, waiting for the user's
    approval of its plan, or cut off before it named one) shows only its sender."""
    send_from, send_to = str(post.get("send_from") or "?"), str(post.get("send_to") or "?")
    head = send_from if send_to == "Unknown" else f"{send_from} {arrow} {send_to}"
    if (post.get("extra") or {}).get("incomplete"):
        return f"{head} (reply cut off)"
    return head


def tokens_label(tokens_in: int, tokens_out: int, cached: int = 0, *, estimated: bool = False) -> str:
    """`1,200 in / 340 out`, with the share of the input the server served from its prompt cache when
    it said so: `1,200 in (83% cached) / 340 out`. Counts twnb estimated (the server sent none) are
    marked: `~1,200 in / ~340 out`."""
    mark = "~" if estimated else ""
    share = f" ({min(cached / tokens_in, 1.0):.0%} cached)" if cached > 0 and tokens_in > 0 else ""
    return f"{mark}{tokens_in:,} in{share} / {mark}{tokens_out:,} out"


@dataclass(frozen=True)
class SpentTokens:
    tokens_in: int
    tokens_out: int
    cached: int
    estimated: bool

    def label(self) -> str:
        return tokens_label(self.tokens_in, self.tokens_out, self.cached, estimated=self.estimated)


def spent_tokens(
    usage: Mapping[str, Any] | None, ledger: Mapping[str, Any] | None = None
) -> SpentTokens | None:
    """What a Round spent: the usage summed over its posts, or its ledger's totals when those count more
    (every call is in the ledger, also those of a Round whose replies could not be used); `estimated`
    when any count was twnb's estimate. None when nothing was counted."""
    usage = usage or {}
    totals = (ledger or {}).get("totals") or {}
    spent = SpentTokens(
        int(usage.get("prompt_tokens") or 0),
        int(usage.get("completion_tokens") or 0),
        int(usage.get("cached_tokens") or 0),
        bool(usage.get("estimated")),
    )
    in_ledger = int(totals.get("input_tokens") or 0) + int(totals.get("output_tokens") or 0)
    if in_ledger > spent.tokens_in + spent.tokens_out:
        spent = SpentTokens(
            int(totals.get("input_tokens") or 0),
            int(totals.get("output_tokens") or 0),
            int(totals.get("cached_tokens") or 0),
            bool(totals.get("estimated")) or spent.estimated,
        )
    if not (spent.tokens_in or spent.tokens_out):
        return None
    return spent


def summary_line(payload: Mapping[str, Any]) -> str:
    """`time 3.2 s · tokens 1,200 in (83% cached) / 340 out · 3 LLM calls · cost 0.0012` from the
    Round's timing, usage and ledger (the cost only when every call had a price; empty if none)."""
    twnb = payload.get("twnb") or {}
    parts = []
    duration = (twnb.get("timing") or {}).get("duration_s")
    if isinstance(duration, (int, float)):
        parts.append(f"time {duration:.1f} s")
    usage = twnb.get("usage") or {}
    spent = spent_tokens(usage, twnb.get("ledger"))
    if spent is not None:
        parts.append("tokens " + spent.label())
    elif usage.get("prompt_tokens") is not None or usage.get("completion_tokens") is not None:
        parts.append("tokens " + tokens_label(0, 0))
    if usage.get("calls"):
        parts.append(f"{usage['calls']} LLM calls")
    cost = ((twnb.get("ledger") or {}).get("totals") or {}).get("cost")
    if isinstance(cost, (int, float)) and not isinstance(cost, bool):
        parts.append(f"cost {format_cost(cost)}")
    return " · ".join(parts)


def state_label(state: str, failure_reason: object = None) -> str:
    """The state users see: a Round failed by an interrupt (its failure reason says so) is `interrupted`."""
    if state == "failed" and "interrupt" in str(failure_reason or "").lower():
        return "interrupted"
    return state


def failure_text(state: str, reason: object) -> str:
    """A failure's reason as it reads after its label "Round STATE": the reason's own leading
    "Interrupted" is the label's word again ("Round interrupted: Interrupted; every post ..." read it
    twice), so an interrupted Round's reason goes without it."""
    text = str(reason or "")
    if state == "interrupted":
        match = _LEADING_INTERRUPTED.match(text)
        if match and text[match.end() :].strip():
            return text[match.end() :]
    return text


_LEADING_INTERRUPTED = re.compile(r"\s*interrupted\b[\s;:,.\u2014-]*", re.IGNORECASE)


def payload_state(payload: Mapping[str, Any]) -> str:
    return state_label(str(payload.get("state", "")), (payload.get("extra") or {}).get("failure_reason"))


def is_no_error(kind: str, content: object) -> bool:
    """TaskWeaver writes a code_error attachment saying there is none; showing it (in red) misleads."""
    return kind == "code_error" and str(content).strip() == NO_ERROR


def is_shown(kind: str, content: object) -> bool:
    return kind not in HIDDEN_TYPES and content not in (None, "", []) and not is_no_error(kind, content)


def sections_kept_open(payload: Mapping[str, Any]) -> set[str]:
    """Post ids whose sections stay open once the Round has ended: the answer to the User (the last
    one), the CodeInterpreter's posts with code, posts cut off by a failure, and in a failed Round the
    post it stopped at. The rest (the request again, the Planner's instructions) fold; all expand."""
    posts = list(payload.get("post_list") or [])
    keep = {str(p.get("id")) for p in posts if (p.get("extra") or {}).get("incomplete") or has_code(p)}
    answers = [p for p in posts if p.get("send_from") == "Planner" and p.get("send_to") == "User"]
    if answers:
        keep.add(str(answers[-1].get("id")))
    if payload.get("state") == "failed" and posts:
        keep.add(str(posts[-1].get("id")))
    return keep


def has_code(post: Mapping[str, Any]) -> bool:
    """A post whose reply is Python code (a CodeInterpreter reply without `reply_type: text`)."""
    kinds = {str(a.get("type")): a.get("content") for a in post.get("attachment_list") or []}
    return "reply_content" in kinds and str(kinds.get("reply_type", "python")).strip() != "text"
