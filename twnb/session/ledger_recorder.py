"""Builds a Round's ledger (twnb/memory/ledger.py) from the events the Round reports.

An observer like any other: the chat client wrapper reports each LLM call (`LLMCallStarted`,
`LLMCallEnded`), the session each code run (`CodeRunStarted`, `CodeRunEnded`); this one notes when
each arrived on one monotonic clock, so every entry is placed on the same time line as the Round.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import Any

from twnb.memory import (
    CodeRunEnded,
    CodeRunStarted,
    Event,
    Ledger,
    LedgerEntry,
    LLMCallEnded,
    LLMCallStarted,
    call_cost,
)

__all__ = ["LedgerRecorder"]

UNFINISHED = "unfinished"
"""The status of an entry still open when the Round ended (a call abandoned mid-stream)."""


class LedgerRecorder:
    """Receives a Round's events; `ledger(duration_s)` gives the entries so far."""

    def __init__(
        self,
        prices: Mapping[str, Mapping[str, float]] | None = None,
        *,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.prices = prices
        self._clock = clock
        self._started = clock()
        self._entries: list[LedgerEntry] = []
        self._calls: dict[str, LedgerEntry] = {}
        self._runs: dict[str, LedgerEntry] = {}
        self._handlers: dict[type, Callable[[Any], None]] = {
            LLMCallStarted: self._call_started,
            LLMCallEnded: self._call_ended,
            CodeRunStarted: self._run_started,
            CodeRunEnded: self._run_ended,
        }

    def on_event(self, event: Event) -> None:
        handler = self._handlers.get(type(event))  # message deltas, the hot path, fall through here
        if handler is not None:
            handler(event)

    def _now(self) -> float:
        return self._clock() - self._started

    def _call_started(self, event: LLMCallStarted) -> None:
        entry = LedgerEntry("llm", event.role, round(self._now(), 3), model=event.model)
        self._calls[event.call_id] = entry
        self._entries.append(entry)

    def _call_ended(self, event: LLMCallEnded) -> None:
        entry = self._calls.pop(event.call_id, None)
        if entry is None:
            return
        entry.duration_s = round(max(self._now() - entry.start_s, 0.0), 3)
        entry.status = event.error_type or event.finish_reason or ""
        entry.error_type = event.error_type
        requested = entry.model
        entry.model = event.response_model or requested
        usage = event.usage or {}
        entry.input_tokens = int(usage.get("prompt_tokens") or 0)
        entry.output_tokens = int(usage.get("completion_tokens") or 0)
        entry.cached_tokens = int(usage.get("cached_tokens") or 0)
        entry.estimated = bool(usage.get("estimated"))
        first = usage.get("time_to_first_token_s")
        entry.time_to_first_token_s = round(float(first), 3) if first is not None else None
        entry.cost = call_cost(
            self.prices,
            (entry.model, requested),
            input_tokens=entry.input_tokens,
            output_tokens=entry.output_tokens,
            cached_tokens=entry.cached_tokens,
            estimated=entry.estimated or not usage,
        )

    def _run_started(self, event: CodeRunStarted) -> None:
        entry = LedgerEntry("code", "CodeInterpreter", round(self._now(), 3), post_id=event.post_id)
        self._runs[event.post_id] = entry
        self._entries.append(entry)

    def _run_ended(self, event: CodeRunEnded) -> None:
        entry = self._runs.pop(event.post_id, None)
        if entry is None:
            return
        now = self._now()
        entry.status = event.status
        entry.error_type = event.error_type
        if not (event.waited_s or event.waited_after_s):
            entry.duration_s = round(max(now - entry.start_s, 0.0), 3)
            return
        # Step mode: the wait for the user's decision comes first, then the run (the executor's own
        # time; nothing when the code never ran), then the wait for Continue or Undo.
        waited = min(event.waited_s, max(now - entry.start_s, 0.0))
        if waited:
            self._entries.insert(self._entries.index(entry), self._wait(entry.start_s, waited, event.post_id))
            entry.start_s = round(entry.start_s + waited, 3)
        entry.duration_s = round(min(event.duration_s or 0.0, max(now - entry.start_s, 0.0)), 3)
        if event.waited_after_s:
            start = max(now - event.waited_after_s, entry.end_s)
            self._entries.append(self._wait(start, now - start, event.post_id))

    @staticmethod
    def _wait(start_s: float, duration_s: float, post_id: str) -> LedgerEntry:
        return LedgerEntry("wait", "User", round(start_s, 3), round(duration_s, 3), post_id=post_id)

    def ledger(self, duration_s: float) -> Ledger:
        """The ledger as it stands; entries still open end now, marked unfinished."""
        for entry in (*self._calls.values(), *self._runs.values()):
            entry.duration_s = round(max(self._now() - entry.start_s, 0.0), 3)
            entry.status = UNFINISHED
        self._calls.clear()
        self._runs.clear()
        return Ledger(duration_s=duration_s, entries=list(self._entries))
