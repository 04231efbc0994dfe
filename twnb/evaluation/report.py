"""The report people read: `report.md` and `report.html` in the output folder.

The comparison table first (every case against every model, repeats as a mean and a spread, totals per
model), then per run its scoring points with each verdict and the evaluator's or the code's reason,
its score, tokens, cost and time, links to its notebook and conversation, and what went wrong; then
the runs that were skipped, with why.

Reasons, messages and case texts are untrusted: in `report.md` they are escaped to render as the text
they are; `report.html` is the same Markdown, unescaped, through twnb's own renderer, which escapes
every character and adds only its own tags (no script, no raw HTML, safe links only).
"""

from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from twnb._version import __version__
from twnb.base import now_iso
from twnb.evaluation.case_result import CaseResult
from twnb.evaluation.notebook_text import verdict_table
from twnb.evaluation.score_table import ScoreTable, format_cost, format_seconds, format_tokens
from twnb.render import escape_markdown_inline, markdown_html

__all__ = ["RunEntry", "report_html", "report_markdown"]


@dataclass(frozen=True)
class RunEntry:
    result: CaseResult
    folder: str  # the run's folder, relative to the report (forward slashes)


def _md_text(text: str) -> str:
    return escape_markdown_inline(" ".join(text.split())).replace("|", "&#124;")


def _html_text(text: str) -> str:
    # markdown_html escapes every character itself; only a cell's pipe would split the table.
    return " ".join(text.split()).replace("|", "\u2223")


def report_markdown(entries: Sequence[RunEntry], *, out_dir: Path) -> str:
    return _report(entries, out_dir, _md_text)


def report_html(entries: Sequence[RunEntry], *, out_dir: Path) -> str:
    body = markdown_html(_report(entries, out_dir, _html_text))
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>twnb eval report: {html.escape(out_dir.name)}</title></head>\n"
        '<body style="font-family:system-ui,sans-serif;max-width:72rem;margin:2rem auto;padding:0 1rem">\n'
        f"{body}\n</body></html>\n"
    )


def _report(entries: Sequence[RunEntry], out_dir: Path, text: Callable[[str], str]) -> str:
    results = [entry.result for entry in entries]
    table = ScoreTable.of(results)
    runs = f"{len(results)} run{'s' if len(results) != 1 else ''}"
    written = now_iso()[:19].replace("T", " ")
    lines = [
        "# twnb eval report",
        "",
        f"{runs} in `{text(str(out_dir))}`, written {written} UTC by twnb {__version__}. Scores are "
        "normalized: the weights of the points hit over all weights.",
        "",
        "## Scores",
        "",
    ]
    rows = table.rows()
    lines.append("| " + " | ".join(text(cell) for cell in rows[0]) + " |")
    lines.append("|" + "---|" * len(rows[0]))
    lines += ["| " + " | ".join(text(cell) for cell in row) + " |" for row in rows[1:]]
    judges = sorted({(r.model, r.user_model, r.evaluator_model) for r in results})
    if any(user != model or judge != model for model, user, judge in judges):
        lines += ["", "Virtual user and evaluator per model:", ""]
        lines += [f"- `{m}`: virtual user `{u}`, evaluator `{e}`" for m, u, e in judges]
    ran = [entry for entry in entries if entry.result.status not in ("skipped", "invalid")]
    if ran:
        lines += ["", "## Runs", ""]
        for entry in sorted(ran, key=lambda e: (e.result.case, e.result.model, e.result.run)):
            lines += _run_section(entry, text)
    skipped = [entry.result for entry in entries if entry.result.status == "skipped"]
    if skipped:
        lines += ["", "## Skipped", "", "| case | model | why |", "|---|---|---|"]
        for result in sorted(skipped, key=lambda r: (r.case, r.model, r.run)):
            lines.append(
                f"| {text(result.case)} | {text(result.model)} | {text('; '.join(result.skip_reasons))} |"
            )
    invalid = [entry.result for entry in entries if entry.result.status == "invalid"]
    if invalid:
        lines += ["", "## Invalid case files", "", "| case | file | why |", "|---|---|---|"]
        for result in sorted(invalid, key=lambda r: (r.case, r.model)):
            why = text("; ".join(result.failures)).replace(text(result.case_path) + ": ", "")
            lines.append(f"| {text(result.case)} | {text(result.case_path)} | {why} |")
    return "\n".join(lines) + "\n"


def _run_section(entry: RunEntry, text: Callable[[str], str]) -> list[str]:
    result = entry.result
    run = f", run {result.run}" if result.run > 1 else ""
    score = (
        f"{result.score:g} of {result.max_score:g} ({result.normalized_score:.2f})"
        if result.score is not None and result.normalized_score is not None
        else result.status
    )
    spend = result.spend
    files = []
    if result.notebook:
        files.append(f"[notebook]({entry.folder}/{result.notebook})")
    if result.conversation:
        files.append(f"[conversation]({entry.folder}/{result.conversation})")
    files.append(f"[result]({entry.folder}/result.yaml)")
    lines = [
        f"### {text(result.case)}: `{result.model}`{run}: {score}",
        "",
        f"{result.rounds} Rounds; tokens {text(format_tokens(spend.input_tokens, spend))} in, "
        f"{text(format_tokens(spend.output_tokens, spend))} out; cost "
        f"{format_cost(spend)}; {format_seconds(result.seconds)}. " + ", ".join(files) + ".",
    ]
    if result.verdicts:
        lines += ["", *verdict_table(result.verdicts, text)]
    if result.failures:
        lines += ["", "What went wrong:", ""] + [f"- {text(failure)}" for failure in result.failures]
    if result.notes:
        lines += ["", "Notes:", ""] + [f"- {text(note)}" for note in result.notes]
    lines.append("")
    return lines
