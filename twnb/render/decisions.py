"""The decision a person made on a post in step mode, as one short line every view shows.

Step mode marks the posts it paused on in their `extra`: `approved_by`, `edited_by` or `skipped_by`
is "User". A Round the user stopped needs no line here: its failure note already says so.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from twnb.render.labels import has_code

PLAN_DECISIONS = {"edited_by": "You changed this plan", "approved_by": "You approved this plan"}
CODE_DECISIONS = {
    "skipped_by": "You skipped this code",
    "edited_by": "You edited this code before it ran",
    "approved_by": "You ran this code",
}


def decision_line(post: Mapping[str, Any]) -> str | None:
    """`You approved this plan`, `You ran this code`, ... for a post the user decided on, else None."""
    extra = post.get("extra") or {}
    decisions = CODE_DECISIONS if has_code(post) else PLAN_DECISIONS
    # In the order above: a skip or an edit is the decision even if a key beside it says more.
    return next((line for key, line in decisions.items() if extra.get(key) == "User"), None)
