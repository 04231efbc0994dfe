"""The user's own cells that ran before a Round (`extra.user_cells`), folded in each view of the Round.

A Round's code builds on what the user's cells made, so the Round says which they were: one folded
line ("Your cells before this Round: [3] sales = pd.read_csv(...)") that opens to the cells' code,
whether each raised and the variables it made. `user_cells_view` is the view's `user_cells` fact
(view.py); the functions below draw it. The cells are the user's text, shown escaped like everything
else.
"""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any, TypedDict

from twnb.render.highlighted_code import code_html
from twnb.render.text import clean_text, plain_text, shorten

TITLE = "Your cells before this Round"
_FIRST_LINE_CHARS = 60
_LISTED = 3  # cells named in the folded line; the rest are counted
_MUTED = "opacity:0.75"


class UserCellView(TypedDict):
    label: str  # "[3] sales = pd.read_csv(...)": the execution count and the first line of code
    code: str
    facts: list[str]  # "raised NameError: ...", "made sales, pd", "too long: ..."


class UserCellsView(TypedDict):
    title: str  # the folded line
    cells: list[UserCellView]
    omitted: int  # older cells not recorded (the record is bounded)


def user_cells_view(payload: Mapping[str, Any]) -> UserCellsView | None:
    """The user cells a Round recorded, as the views show them (None when it recorded none)."""
    extra = payload.get("extra")
    extra = extra if isinstance(extra, Mapping) else {}
    recorded = extra.get("user_cells")
    cells = [
        _cell(cell)
        for cell in (recorded if isinstance(recorded, list) else [])
        if isinstance(cell, Mapping) and isinstance(cell.get("source"), str)
    ]
    if not cells:
        return None
    omitted = extra.get("user_cells_omitted")
    omitted = omitted if isinstance(omitted, int) else 0
    named = ", ".join(cell["label"] for cell in cells[:_LISTED])
    more = len(cells) - _LISTED + omitted
    title = f"{TITLE}: {named}" + (f" and {more} more" if more > 0 else "")
    return {"title": title, "cells": cells, "omitted": omitted}


def _cell(cell: Mapping[str, Any]) -> UserCellView:
    count = cell.get("execution_count")
    code = clean_text(cell.get("source", ""))
    lines = [line.strip() for line in code.splitlines()]
    first = next((line for line in lines if line and not line.startswith("#")), "")
    facts = []
    if cell.get("error"):
        facts.append(f"raised {clean_text(cell['error'])}")
    made = [
        str(v.get("name"))
        for v in cell.get("variables") or []
        if isinstance(v, Mapping) and v.get("kind") != "deleted"
    ]
    if made:
        facts.append("made " + ", ".join(made))
    if cell.get("clipped"):
        facts.append("too long: kept clipped, not run again by a replay")
    number = f"[{count}] " if isinstance(count, int) else ""
    return {"label": number + shorten(first, _FIRST_LINE_CHARS), "code": code, "facts": facts}


def user_cells_html(view: Mapping[str, Any] | None) -> str:
    if not view:
        return ""
    parts = []
    for cell in view["cells"]:
        facts = "; ".join(cell["facts"])
        note = f'<div><small style="{_MUTED}">{html.escape(facts)}</small></div>' if facts else ""
        parts.append(code_html(cell["code"]) + note)
    if view["omitted"]:
        parts.append(
            f'<div><small style="{_MUTED}">{view["omitted"]} earlier cells were not recorded.</small></div>'
        )
    title = html.escape(view["title"])
    summary = f'<summary style="cursor:pointer"><small style="{_MUTED}">{title}</small></summary>'
    return f"<details>{summary}" + "".join(parts) + "</details>"


def user_cells_text(view: Mapping[str, Any] | None) -> list[str]:
    return [plain_text(view["title"])] if view else []
