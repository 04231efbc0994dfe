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

import os
from dataclasses import dataclass
from typing import Any

from twnb.base import clip
from twnb.memory import AttachmentType, Post, Round


@dataclass(frozen=True)
class CondensePolicy:
    """How much of the past a prompt carries, and in what steps it is condensed.

    A provider's prompt cache reuses only the exact start of the previous request, so the history
    changes in steps, each tier at its own pace, and between steps a call only appends:
    - the newest earlier Rounds, `block_rounds` at most, are rendered in full (their results cut to
      `recent_output_chars`); every `block_rounds` Rounds they fold into digests. With 0, a Round is
      digested as soon as the next one starts (unless the caller keeps the previous one in full):
      the fold then rewrites only the end of the history, where the new request goes anyway;
    - before them, `condensed_rounds` to `condensed_rounds + condensed_step - 1` Rounds as a digest
      (answers cut to `answer_chars`), moved to one line `condensed_step` Rounds at a time;
    - before those, `oneline_rounds` to `oneline_rounds + oneline_step - 1` Rounds as one line
      (`oneline_chars` per text), dropped `oneline_step` at a time; older ones are only counted (their
      variables are still in the namespace summary). None: keep every one-line Round.
    So a prompt stops growing after about `block_rounds + condensed_rounds + condensed_step +
    oneline_rounds + oneline_step` Rounds.
    """

    block_rounds: int = 1
    condensed_rounds: int = 3
    condensed_step: int = 4
    oneline_rounds: int | None = 1
    oneline_step: int = 2
    answer_chars: int = 600
    oneline_chars: int = 160
    recent_output_chars: int = 800
    task_chars: int = 300


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
            parts[0] += f" ({clip(str(error), 80, one_line=True)})"
    made = variables_made(post)
    if made:
        parts.append("made " + ", ".join(made))
    files = artifact_list(post)
    if files:
        # by name, as the post's own message says them: a folder would make the prompt differ
        # between two copies of the same analysis (and a cassette recorded in one replay as drifted)
        parts.append("files " + ", ".join(os.path.basename(f) for f in files))
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


def undone_note(round: Round) -> str:
    """What the model is told, from then on, of a Round the user undid ("" for one not undone)."""
    record = round.extra.get("undone")
    if not record:
        return ""
    line = str(record.get("line") or "").removeprefix("Undone by the user: ")
    return (
        "(The user undid this round afterwards: the kernel is back as it was before it, for what its "
        f"code did ({line.rstrip('.')}). Do not rely on its results.)"
    )


def planner_digest(round: Round, policy: CondensePolicy, *, one_line: bool) -> str:
    """A Round as the Planner needs it later: what was asked, what ran, what was answered."""
    text = _planner_digest(round, policy, one_line=one_line)
    if round.undone:
        return f"{text}\n  {undone_note(round)}" if not one_line else f"{text} (undone by the user)"
    return text


def _planner_digest(round: Round, policy: CondensePolicy, *, one_line: bool) -> str:
    query = clip(round.user_query, policy.oneline_chars if one_line else policy.task_chars, one_line=True)
    steps = [step_line(p, with_error=not one_line) for p in code_posts(round)]
    if round.state == "failed":
        made = [m for p in code_posts(round) for m in variables_made(p)]
        tail = f"; its code did run and made {', '.join(made)}" if made else ""
        return f'- "{query}" -> round failed ({clip(failure_reason(round), 120, one_line=True)}){tail}'
    if one_line:
        made = [m for p in code_posts(round) for m in variables_made(p)]
        ran = f"made {', '.join(made)}; " if made else ""
        return f'- "{query}" -> {ran}answer: {clip(final_answer(round), policy.oneline_chars, one_line=True)}'
    lines = [f'- "{query}"']
    lines += [f"  step {i}: {step}" for i, step in enumerate(steps, 1)]
    lines.append(f"  answer: {clip(final_answer(round), policy.answer_chars, one_line=True)}")
    return "\n".join(lines)


def code_digest(round: Round, policy: CondensePolicy, *, one_line: bool) -> str:
    """A Round as the CodeInterpreter needs it later: each task and what its code left behind."""
    text = _code_digest(round, policy, one_line=one_line)
    if round.undone:
        return f"{text}\n  {undone_note(round)}" if not one_line else f"{text} (undone by the user)"
    return text


def _code_digest(round: Round, policy: CondensePolicy, *, one_line: bool) -> str:
    limit = policy.oneline_chars if one_line else policy.task_chars
    tasks = [p for p in round.post_list if p.send_from == "Planner" and p.send_to == "CodeInterpreter"]
    failed = " (round failed)" if round.state == "failed" else ""
    if not tasks:
        return f'- "{clip(round.user_query, limit, one_line=True)}"{failed}: no code task'
    lines = []
    for task in tasks:
        answer = _answer_to(round, task)
        outcome = step_line(answer, with_error=not one_line) if answer is not None else "no reply"
        lines.append(f'- "{clip(task.message, limit, one_line=True)}"{failed} -> {outcome}')
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


@dataclass(frozen=True)
class HistoryLayout:
    """Which earlier Rounds a prompt shows in which form."""

    one_line: list[Round]
    condensed: list[Round]
    full: list[Round]  # the newest earlier Rounds, then the current one
    omitted: int
    # Changes when the one-line and omitted tiers change (every `condensed_step` Rounds at most).
    snapshot_key: tuple[str, int]


def _step_down(value: int, minimum: int, step: int) -> int:
    """The largest multiple of `step` at most `value - minimum` (0 at least): a tier's start that
    moves only every `step` Rounds."""
    return max(((value - minimum) // max(step, 1)) * max(step, 1), 0)


def history_layout(
    rounds: list[Round], policy: CondensePolicy, *, keep_previous: bool = False
) -> HistoryLayout:
    """The tiers of `rounds` (the last being the current one), each tier's start a step function of
    the number of Rounds, so the tiers change only at their steps. `keep_previous`: show the previous
    Round in full even when `policy.block_rounds` is 0."""
    if not rounds:
        return HistoryLayout([], [], [], 0, ("", 0))
    earlier = rounds[:-1]
    if policy.block_rounds > 0:
        block = policy.block_rounds
        full_start = ((len(earlier) - 1) // block) * block if earlier else 0
    else:
        full_start = max(len(earlier) - 1, 0) if keep_previous else len(earlier)
    condensed_start = _step_down(full_start, policy.condensed_rounds, policy.condensed_step)
    if policy.oneline_rounds is None:
        oneline_start = 0
    else:
        oneline_start = _step_down(condensed_start, policy.oneline_rounds, policy.oneline_step)
    return HistoryLayout(
        one_line=earlier[oneline_start:condensed_start],
        condensed=earlier[condensed_start:full_start],
        full=[*earlier[full_start:], rounds[-1]],
        omitted=oneline_start,
        snapshot_key=(rounds[0].id, condensed_start),
    )
