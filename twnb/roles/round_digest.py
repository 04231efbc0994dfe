"""Condensing older Rounds by rule, so a prompt stays about the same size however long the analysis.

TaskWeaver resends every earlier Round's full code and full result to both roles (74k input tokens
after 30 Rounds; docs/architecture.md, "Prompt size"). twnb keeps the newest Rounds in full and older ones as
a digest: the request, one line per code step (its status and the variables it made) and the final
answer; the oldest shrink to one line. Bulky results are never resent: the variables they made are
still in the notebook, and the namespace summary in the last message lists them. A failed Round stays
as one line, because its code did run and its variables exist.

No LLM is called: the digest is built from the posts' attachments and twnb's `extra` data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from twnb.memory import AttachmentType, Post, Round


@dataclass(frozen=True)
class CondensePolicy:
    """How much of the past a prompt carries.

    `recent_rounds` earlier Rounds are rendered in full besides the current one (their results cut
    to `recent_output_chars`); the `condensed_rounds` before them as a digest (answers cut to
    `answer_chars`); the `oneline_rounds` before those as one line (`oneline_chars` per text); older
    ones are only counted (their variables are still in the namespace summary).
    """

    recent_rounds: int = 1
    condensed_rounds: int = 6
    answer_chars: int = 600
    oneline_chars: int = 160
    recent_output_chars: int = 800
    task_chars: int = 300
    # One-line Rounds kept; older ones are only counted, so a prompt stops growing after
    # recent_rounds + condensed_rounds + oneline_rounds Rounds (None: keep every one).
    oneline_rounds: int | None = 6


def clip(text: str, limit: int) -> str:
    """`text` on one line, at most `limit` characters (an ellipsis marks a cut)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: max(limit - 1, 0)].rstrip() + "…"


def cap_output(text: str, cap: int | None) -> str:
    """A code output cut to `cap` characters (None: whole), the cut said with how much is left out."""
    if cap is None or len(text) <= cap:
        return text
    return text[:cap].rstrip() + f"\n… ({len(text) - cap} more characters)"


def first_text(post: Post, type: AttachmentType) -> str | None:
    for attachment in post.attachment_list:
        if attachment.type is type:
            return attachment.content if isinstance(attachment.content, str) else str(attachment.content)
    return None


def attachment_extra(post: Post, type: AttachmentType) -> dict[str, Any]:
    for attachment in post.attachment_list:
        if attachment.type is type and isinstance(attachment.extra, dict):
            return attachment.extra
    return {}


def artifact_list(post: Post) -> list[str]:
    for attachment in post.attachment_list:
        if attachment.type is AttachmentType.artifact_paths:
            content = attachment.content
            if isinstance(content, list):
                return [str(p) for p in content]
            return [str(content)] if content else []
    return []


def describe_variable(variable: dict[str, Any]) -> str:
    shape = variable.get("shape")
    size = "x".join(str(n) for n in shape) if isinstance(shape, list) and shape else ""
    kind = str(variable.get("type") or "?")
    return f"{variable.get('name')} ({kind}{', ' + size if size else ''})"


def variables_made(post: Post) -> list[str]:
    """Names (with type and shape) the post's code created, rebound or changed."""
    variables = attachment_extra(post, AttachmentType.execution_result).get("variables") or []
    return [
        describe_variable(v)
        for v in variables
        if isinstance(v, dict) and v.get("kind") in ("created", "rebound", "changed")
    ]


def step_line(post: Post, *, with_error: bool = True) -> str:
    """One code step (a CodeInterpreter post) as a short clause: status, variables, files."""
    reply_type = first_text(post, AttachmentType.reply_type)
    if reply_type != "python":
        return "text reply"
    verification = first_text(post, AttachmentType.verification)
    status = first_text(post, AttachmentType.execution_status) or "NONE"
    if verification == "INCORRECT":
        return "code refused by verification"
    parts = [f"code {status}"]
    if status == "FAILURE" and with_error:
        error = attachment_extra(post, AttachmentType.execution_result).get("error") or ""
        if error:
            parts[0] += f" ({clip(str(error), 80)})"
    made = variables_made(post)
    if made:
        parts.append("made " + ", ".join(made))
    files = artifact_list(post)
    if files:
        parts.append("files " + ", ".join(files))
    return "; ".join(parts)


def code_posts(round: Round) -> list[Post]:
    return [p for p in round.post_list if p.send_from == "CodeInterpreter" and p.attachment_list]


def final_answer(round: Round) -> str:
    for post in reversed(round.post_list):
        if post.send_to == "User" and post.send_from != "User":
            return post.message
    return ""


def failure_reason(round: Round) -> str:
    return str(round.extra.get("failure_reason") or "no reason recorded")


def planner_digest(round: Round, policy: CondensePolicy, *, one_line: bool) -> str:
    """A Round as the Planner needs it later: what was asked, what ran, what was answered."""
    query = clip(round.user_query, policy.oneline_chars if one_line else policy.task_chars)
    steps = [step_line(p, with_error=not one_line) for p in code_posts(round)]
    if round.state == "failed":
        made = [m for p in code_posts(round) for m in variables_made(p)]
        tail = f"; its code did run and made {', '.join(made)}" if made else ""
        return f'- "{query}" -> round failed ({clip(failure_reason(round), 120)}){tail}'
    if one_line:
        made = [m for p in code_posts(round) for m in variables_made(p)]
        ran = f"made {', '.join(made)}; " if made else ""
        return f'- "{query}" -> {ran}answer: {clip(final_answer(round), policy.oneline_chars)}'
    lines = [f'- "{query}"']
    lines += [f"  step {i}: {step}" for i, step in enumerate(steps, 1)]
    lines.append(f"  answer: {clip(final_answer(round), policy.answer_chars)}")
    return "\n".join(lines)


def code_digest(round: Round, policy: CondensePolicy, *, one_line: bool) -> str:
    """A Round as the CodeInterpreter needs it later: each task and what its code left behind."""
    limit = policy.oneline_chars if one_line else policy.task_chars
    tasks = [p for p in round.post_list if p.send_from == "Planner" and p.send_to == "CodeInterpreter"]
    failed = " (round failed)" if round.state == "failed" else ""
    if not tasks:
        return f'- "{clip(round.user_query, limit)}"{failed}: no code task'
    lines = []
    for task in tasks:
        answer = _answer_to(round, task)
        outcome = step_line(answer, with_error=not one_line) if answer is not None else "no reply"
        lines.append(f'- "{clip(task.message, limit)}"{failed} -> {outcome}')
    return "\n".join(lines[-1:] if one_line else lines)


def _answer_to(round: Round, task: Post) -> Post | None:
    """The CodeInterpreter's final post for `task`: the last one before the next Planner task."""
    seen, last = False, None
    for post in round.post_list:
        if post is task:
            seen = True
            continue
        if not seen:
            continue
        if post.send_from == "Planner" and post.send_to == "CodeInterpreter":
            break
        if post.send_from == "CodeInterpreter":
            last = post
    return last


def split_history(
    rounds: list[Round], policy: CondensePolicy
) -> tuple[list[Round], list[Round], list[Round]]:
    """(one-line rounds, condensed rounds, full rounds) of `rounds`, the last being the current one.

    Failed earlier Rounds never take a full slot. Rounds older than the one-line ones are in none of
    the three lists: `len(rounds)` minus the three lengths says how many."""
    if not rounds:
        return [], [], []
    current, earlier = rounds[-1], rounds[:-1]
    full: list[Round] = []
    rest = list(earlier)
    while rest and len(full) < policy.recent_rounds and rest[-1].state != "failed":
        full.insert(0, rest.pop())
    condensed_start = max(len(rest) - policy.condensed_rounds, 0)
    one_line = rest[:condensed_start]
    if policy.oneline_rounds is not None:
        one_line = one_line[-policy.oneline_rounds :] if policy.oneline_rounds > 0 else []
    return one_line, rest[condensed_start:], [*full, current]

