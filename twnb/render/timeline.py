"""A Round's ledger drawn as a small waterfall: one bar per LLM call and code run on the Round's time
line under a line saying what it was, and the totals (time, tokens, cost) beneath.

Pure: a ledger (`Round.extra["ledger"]`) in, self-contained HTML out
(inline styles only: no script, no `<style>` block). A bar says its kind (`data-kind`); its place is
its style's `margin-left` and `width`, its figures are in its line (said once: no `title` repeating
them) and in the ledger the Round carries, so the bar holds no copy of them.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any, TypedDict

from twnb.memory import Ledger, LedgerEntry, format_cost
from twnb.render.labels import tokens_label

__all__ = ["LedgerRowView", "bar_geometry", "ledger_rows", "timeline_html", "totals_text"]

_COLOURS = {"llm": "#0969da", "code": "#1a7f37"}
_FAILED = "#cf222e"
_OK_STATUSES = {"stop", "length", "success", ""}
_KIND_LABEL = {"llm": "LLM", "code": "code", "wait": "decision"}
# Step mode's waits for the user's decision: a pale bar, labelled as waiting, never code time.
_WAIT, _PALE = "wait", "#d0d7de"
# Code the user skipped in step mode ran nothing and failed nothing: a grey bar that says "not run"
# (the post's decision line is where a view says the user skipped it).
_SKIPPED, _NOT_RUN, _GREY = "skipped", "not run", "#8c959f"
_MUTED = "opacity:0.75"


class LedgerRowView(TypedDict):
    label: str  # "Planner LLM"
    figures: str  # "1.20 s, 1,200 in / 300 out"
    kind: str  # llm | code
    tone: str  # llm | code | failed | skipped | wait
    start_s: float
    duration_s: float
    left: float  # percent of the Round's time line
    width: float


def bar_geometry(entry: LedgerEntry, duration_s: float) -> tuple[float, float]:
    """(left, width) of an entry's bar in percent of the Round's duration; a bar is never thinner than
    a hairline, so a 5 ms call still shows."""
    span = duration_s if duration_s > 0 else max(entry.end_s, 1e-9)
    left = min(max(entry.start_s / span * 100, 0.0), 100.0)
    width = min(max((entry.duration_s or 0.0) / span * 100, 0.3), 100.0 - left)
    return round(left, 2), round(width, 2)


def _figures(entry: LedgerEntry) -> str:
    parts = [f"{entry.duration_s or 0.0:.2f} s"]
    if entry.kind == "llm":
        parts.append(
            tokens_label(
                entry.input_tokens, entry.output_tokens, entry.cached_tokens, estimated=entry.estimated
            )
        )
        if entry.time_to_first_token_s is not None:
            parts.append(f"first token {entry.time_to_first_token_s:.2f} s")
        if entry.cost is not None:
            parts.append(f"cost {format_cost(entry.cost)}")
    if entry.status not in _OK_STATUSES:
        parts.append(_NOT_RUN if entry.status == _SKIPPED else entry.status)
    return ", ".join(parts)


def totals_text(ledger: Ledger) -> str:
    """`time 4.2 s · LLM 3 calls 2.9 s · code 1 run 0.4 s · 1,200 in (50% cached) / 300 out tokens ·
    cost 0.0012`."""
    t = ledger.totals()
    parts = [f"time {t['duration_s']:.1f} s"]
    parts.append(f"LLM {t['llm_calls']} call{'s' if t['llm_calls'] != 1 else ''} {t['llm_s']:.1f} s")
    if t["code_runs"]:
        parts.append(f"code {t['code_runs']} run{'s' if t['code_runs'] != 1 else ''} {t['code_s']:.1f} s")
    waits = ledger.of_kind("wait")
    if waits:
        parts.append(f"waiting for you {sum(wait.duration_s or 0.0 for wait in waits):.1f} s")
    tokens = tokens_label(t["input_tokens"], t["output_tokens"], t["cached_tokens"], estimated=t["estimated"])
    parts.append(tokens + " tokens")
    if t["cost"] is not None:
        parts.append(f"cost {format_cost(t['cost'])}")
    elif t["unpriced_calls"] and t["llm_calls"]:
        parts.append("no cost (no price for every call)")
    return " · ".join(parts)


def ledger_rows(ledger: Ledger) -> list[LedgerRowView]:
    """One row per entry, as every view draws it: label, figures, tone and the bar's place in percent."""
    rows: list[LedgerRowView] = []
    for entry in ledger.entries:
        left, width = bar_geometry(entry, ledger.duration_s)
        ok = entry.status in _OK_STATUSES
        tone = entry.kind if ok else "skipped" if entry.status == _SKIPPED else "failed"
        label = f"{entry.role} {_KIND_LABEL.get(entry.kind, entry.kind)}"
        rows.append(
            LedgerRowView(
                label="waiting for your decision" if entry.kind == _WAIT else label,
                figures=_figures(entry),
                kind=entry.kind,
                tone=tone,
                start_s=entry.start_s,
                duration_s=entry.duration_s or 0.0,
                left=left,
                width=width,
            )
        )
    return rows


_TONES = {**_COLOURS, "failed": _FAILED, "skipped": _GREY, _WAIT: _PALE}


def timeline_html(ledger: Ledger | Mapping[str, Any] | None) -> str:
    """The waterfall, or "" for a Round with nothing in its ledger (a Ledger, its dict, or the view's
    `ledger`: `{"rows": [...], "totals": "..."}`)."""
    if isinstance(ledger, Mapping) and "rows" in ledger:
        rows, totals_line = list(ledger.get("rows") or []), str(ledger.get("totals") or "")
    else:
        parsed = ledger if isinstance(ledger, Ledger) else Ledger.from_dict(ledger)
        rows, totals_line = ledger_rows(parsed), totals_text(parsed) if parsed.entries else ""
    if not rows:
        return ""
    drawn = []
    for row in rows:
        label, figures = str(row.get("label", "")), str(row.get("figures", ""))
        colour = _TONES.get(str(row.get("tone")), "#57606a")
        left, width = float(row.get("left") or 0.0), float(row.get("width") or 0.0)
        # Block elements with margin and width in percent: what a saved, untrusted notebook keeps
        # (no flex, no absolute positioning, no CSS variables).
        drawn.append(
            '<div style="margin:2px 0">'
            f'<div style="font-size:80%;{_MUTED}">{html.escape(label)} · {html.escape(figures)}</div>'
            f'<div class="twnb-bar" data-kind="{html.escape(str(row.get("kind", "")))}" '
            f'style="margin-left:{left}%;width:{width}%;height:6px;border-radius:2px;background:{colour}">'
            "</div></div>"
        )
    return (
        '<div class="twnb-timeline" style="margin:4px 0">'
        + "".join(drawn)
        + f'<div class="twnb-totals" style="font-size:85%;{_MUTED}">{html.escape(totals_line)}</div></div>'
    )
