"""A Round replayed from a cassette says so (`extra.replay`): when the cassette started over for a new
conversation, and which calls drifted from the recording (their recorded replies were served anyway)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def replay_record(payload: Mapping[str, Any]) -> Mapping[str, Any]:
    extra = payload.get("extra")
    record = extra.get("replay") if isinstance(extra, Mapping) else None
    return record if isinstance(record, Mapping) else {}


def drift_lines(payload: Mapping[str, Any]) -> list[str]:
    drift = replay_record(payload).get("drift")
    return [str(line) for line in drift] if isinstance(drift, list) else []


def replay_summary(payload: Mapping[str, Any]) -> str | None:
    """One line: "replayed q.cassette.yaml again from its first reply, as a new conversation; 2 calls
    drifted from its recording (their recorded replies were served)"; None when there is nothing to say
    (not replayed, or replayed exactly as recorded)."""
    record = replay_record(payload)
    cassette = str(record.get("cassette") or "the cassette")
    parts = []
    if record.get("rewound"):
        parts.append(f"replayed {cassette} again from its first reply, as a new conversation")
    drift = drift_lines(payload)
    if drift:
        calls = f"{len(drift)} call{'s' if len(drift) != 1 else ''}"
        parts.append(f"{calls} drifted from the recording in {cassette} (the recorded replies were served)")
    return "; ".join(parts) or None
