"""What the user put into one Round beside the request: the @-mentions' descriptions and the
experiences retrieved for it (both in `Round.extra`, written by the session). They go at the end of the
Round's prompts, never into the system message, so a provider's cached prefix stays as it was.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from twnb.memory import Round


def mentions_text(mentions: Sequence[dict[str, str]]) -> str:
    """What the request's @-mentions point at (`Round.extra["mentions"]`)."""
    if not mentions:
        return ""
    body = "\n\n".join(f"{m['mention']} ({m['kind']}): {m['text']}" for m in mentions)
    return "What the request's @-mentions point at:\n" + body


def experiences_text(experiences: Sequence[dict[str, Any]]) -> str:
    """The experiences retrieved for the request (`Round.extra["experiences"]`), TaskWeaver's wording."""
    if not experiences:
        return ""
    body = "\n".join(f"Experience {i}:\n{e['text']}" for i, e in enumerate(experiences, 1))
    return (
        "Below are experiences from earlier conversations with this user; follow them where they apply:\n"
        + body
    )


def round_context(round: Round, *, mentions: bool) -> str:
    """The Round's experiences (both roles) and, with `mentions`, its mentions (the CodeInterpreter's)."""
    parts = [experiences_text(round.extra.get("experiences") or [])]
    if mentions:
        parts.append(mentions_text(round.extra.get("mentions") or []))
    return "\n\n".join(p for p in parts if p)


__all__ = ["experiences_text", "mentions_text", "round_context"]
