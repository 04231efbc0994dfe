"""A Round's record of the user's rules (`Round.extra["rules"]`), with their text once per conversation.

Each Round records the rules its prompts carried, so a replay sends the same prompts whatever the rule
files hold on the replaying machine (recorded_context.py). The text is the same Round after Round while
the files stay unchanged (about 1.2 KB a Round), so a Round whose rules are those of the latest earlier
Round with rules records the paths and token counts only and names the Round that holds the text:
`text_in: <round id>`. That Round is always one that holds it (a chain is never followed). Read back,
`with_texts` finds it in the same conversation; a Round named but not there (a conversation put
together from part of a notebook) gives no text, and a replay then reads today's files, as for a
record kept without texts, and says how it drifted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from twnb.memory import Round
from twnb.session.project_rules import RulesInForce

TEXT_IN = "text_in"  # the id of the earlier Round whose record holds the texts


def rules_record(in_force: RulesInForce, earlier: Sequence[Round]) -> dict[str, Any]:
    """The record of `in_force` for a Round that comes after `earlier` (its conversation's Rounds before
    it, in order): without the texts when the latest of them with rules carried these very ones."""
    whole = in_force.record()
    if not in_force.files:
        return whole
    latest = next((r for r in reversed(earlier) if isinstance(r.extra.get("rules"), Mapping)), None)
    if latest is None:
        return whole
    data: Mapping[str, Any] = latest.extra["rules"]
    holder = data.get(TEXT_IN, latest.id)
    if with_texts(data, earlier) != whole:
        return whole
    return in_force.record(text_in=str(holder))


def with_texts(data: Mapping[str, Any], rounds: Sequence[Round]) -> Mapping[str, Any] | None:
    """`data` (a Round's `extra["rules"]`) as a record holding its texts: itself, or the record of the
    Round it names among `rounds`; None when that Round is not there or holds none."""
    named = data.get(TEXT_IN)
    if named is None:
        return data
    holder = next((r for r in rounds if r.id == named), None)
    held = holder.extra.get("rules") if holder is not None else None
    if not isinstance(held, Mapping) or TEXT_IN in held:
        return None
    return held


__all__ = ["TEXT_IN", "rules_record", "with_texts"]
