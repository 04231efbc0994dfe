"""The Markdown cells a case's notebook opens and closes with: what the case is, and how it scored.

Task descriptions, reasons and messages are untrusted text (a case file, a model's words): they are
escaped so they render as the text they are, never as HTML, links or images.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from twnb.render import escape_markdown, escape_markdown_inline

if TYPE_CHECKING:
    from twnb.evaluation.case_result import CaseResult
    from twnb.evaluation.evaluator import Verdict
    from twnb.evaluation.run_spec import CaseRun

__all__ = ["intro_markdown", "verdict_label", "verdict_table", "verdicts_markdown"]


def _quote(text: str) -> str:
    return "\n".join(f"> {line}" if line else ">" for line in escape_markdown(text).split("\n"))


def _cell(text: str) -> str:
    """Text for one Markdown table cell: one line, no pipes that would split it."""
    return escape_markdown_inline(" ".join(text.split())).replace("|", "&#124;")


def intro_markdown(
    spec: CaseRun, settings: Mapping[str, Any], notes: list[str], redact: Callable[[str], str]
) -> str:
    case = spec.case
    lines = [
        f"# Evaluation case `{case.name}`: model `{spec.model}`"
        + (f", run {spec.run}" if spec.run > 1 else ""),
        "",
        f"Written by `twnb eval` from `{case.path.name}`. The requests in the `%%taskweaver` cells come "
        f"from a **virtual user** (model `{spec.user_model}`) playing the user from this task description, "
        "which the agent never sees:",
        "",
        _quote(redact(case.task_description)),
        "",
        f"Scoring points, judged after the conversation by code or by the evaluator (model "
        f"`{spec.evaluator_model}`):",
        "",
    ]
    for number, point in enumerate(case.scoring_points, start=1):
        how = "code" if point.eval_code else "evaluator"
        lines.append(f"{number}. {_cell(redact(point.score_point))} (weight {point.weight:g}, {how})")
    if settings:
        lines += [
            "",
            "The case's settings: " + ", ".join(f"`{k} = {v!r}`" for k, v in settings.items()) + ".",
        ]
    if notes:
        lines += ["", "Notes:", ""] + [f"- {_cell(note)}" for note in notes]
    return "\n".join(lines)


def verdict_label(hit: bool | None) -> str:
    return {True: "hit", False: "missed", None: "not judged"}[hit]


def verdict_table(verdicts: Sequence[Verdict], text: Callable[[str], str]) -> list[str]:
    """The scoring points as a Markdown table: verdict, who judged, and the reason (or why it could
    not be judged); `text` makes untrusted text fit for a cell."""
    lines = ["| # | scoring point | weight | verdict | by | reason |", "|---|---|---|---|---|---|"]
    for number, verdict in enumerate(verdicts, start=1):
        reason = verdict.reason if verdict.hit is not None else (verdict.error or "")
        lines.append(
            f"| {number} | {text(verdict.point.score_point)} | {verdict.point.weight:g} | "
            f"{verdict_label(verdict.hit)} | {verdict.judged_by} | {text(reason)} |"
        )
    return lines


def verdicts_markdown(result: CaseResult, redact: Callable[[str], str]) -> str:
    score = result.score
    headline = (
        f"## Score: {score:g} of {result.max_score:g}"
        if score is not None
        else f"## Not scored ({result.status})"
    )
    lines = [headline, "", *verdict_table(result.verdicts, lambda text: _cell(redact(text)))]
    if result.failures:
        lines += ["", "What went wrong:", ""] + [f"- {_cell(redact(f))}" for f in result.failures]
    return "\n".join(lines)
