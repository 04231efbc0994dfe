"""A Round's ledger: what it spent its time and tokens on.

One entry per LLM call (a retried or fallen-back call is an entry of its own: it was paid for) and per
code run, each with when it started (seconds after the Round began), how long it took, its tokens
(input, output, cached) and, when prices are set for the model, its cost. The Round keeps it as
`Round.extra["ledger"]` (`Ledger.to_dict()`), which the Round's MIME bundle carries in its record, so
any frontend can draw the Round's timeline (and again, whole, as `twnb.ledger`).

Costs are never guessed: a call gets a cost only when its model has a price for every kind of token it
used and the server reported the counts (estimated counts get none). The Round's total cost is given
only when every call has one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, fields
from typing import Any, Literal

__all__ = ["PER_TOKENS", "Ledger", "LedgerEntry", "call_cost", "format_cost"]

LEDGER_SCHEMA = 1
PER_TOKENS = 1_000_000
"""Prices are per this many tokens (per million, as providers list them)."""

EntryKind = Literal["llm", "code", "wait"]


@dataclass
class LedgerEntry:
    """One LLM call, code run, or wait for the user's decision (`wait`: step mode, role "User": the
    time a piece of code waited for Run, Edit, Skip or Stop, or after running for Continue or Undo;
    never counted as code time). `status` is the call's finish reason (`stop`, `length`) or, when it
    failed, its error type; for code, the executor's status (`success`, `error`, `timeout`, ...)."""

    kind: EntryKind
    role: str
    start_s: float
    duration_s: float | None = None
    status: str = ""
    model: str = ""
    post_id: str | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    estimated: bool = False
    time_to_first_token_s: float | None = None
    cost: float | None = None
    error_type: str | None = None

    @property
    def end_s(self) -> float:
        return self.start_s + (self.duration_s or 0.0)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> LedgerEntry:
        """Unknown keys are ignored, so a ledger written by a later version still reads."""
        known = {f.name for f in fields(cls)}
        return cls(**{k: v for k, v in data.items() if k in known})


@dataclass
class Ledger:
    """The Round's entries in the order they started, and the Round's own duration."""

    duration_s: float = 0.0
    entries: list[LedgerEntry] = field(default_factory=list)

    def of_kind(self, kind: EntryKind) -> list[LedgerEntry]:
        return [entry for entry in self.entries if entry.kind == kind]

    def totals(self) -> dict[str, Any]:
        """Sums over the entries: time in LLM calls and in code, tokens, and the cost when every LLM
        call has one (None otherwise: a partial sum would read as the Round's cost)."""
        calls, runs = self.of_kind("llm"), self.of_kind("code")
        costs = [call.cost for call in calls]
        return {
            "duration_s": round(self.duration_s, 3),
            "llm_calls": len(calls),
            "llm_s": round(sum(call.duration_s or 0.0 for call in calls), 3),
            "code_runs": len(runs),
            "code_s": round(sum(run.duration_s or 0.0 for run in runs), 3),
            "input_tokens": sum(call.input_tokens for call in calls),
            "output_tokens": sum(call.output_tokens for call in calls),
            "cached_tokens": sum(call.cached_tokens for call in calls),
            "estimated": any(call.estimated for call in calls),
            "cost": round(sum(c for c in costs if c is not None), 6)
            if calls and all(c is not None for c in costs)
            else None,
            "unpriced_calls": sum(1 for c in costs if c is None),
        }

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema_version": LEDGER_SCHEMA,
            "duration_s": round(self.duration_s, 3),
            "entries": [entry.to_dict() for entry in self.entries],
            "totals": self.totals(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Ledger:
        """A ledger read back from `Round.extra["ledger"]` (None or empty: an empty ledger)."""
        if not data:
            return cls()
        entries = [LedgerEntry.from_dict(e) for e in data.get("entries") or () if isinstance(e, Mapping)]
        return cls(duration_s=float(data.get("duration_s") or 0.0), entries=entries)


def call_cost(
    prices: Mapping[str, Mapping[str, float]] | None,
    models: tuple[str, ...],
    *,
    input_tokens: int,
    output_tokens: int,
    cached_tokens: int,
    estimated: bool,
) -> float | None:
    """The cost of one call, from `prices` (model -> `input`/`output`/`cached` per million tokens), for
    the first of `models` that has a price (the model that answered, then the one asked for); exact
    names only: `gpt-4o` is not `gpt-4o-mini`.

    None when no model has a price, when the counts are estimated, or when the call used cached tokens
    and the price names no `cached` rate: no cost rather than a wrong one."""
    if not prices or estimated:
        return None
    price = next((prices[m] for m in models if m and m in prices), None)
    if price is None or "input" not in price or "output" not in price:
        return None
    cached = min(max(cached_tokens, 0), input_tokens)
    if cached and "cached" not in price:
        return None
    total = (input_tokens - cached) * float(price["input"]) + output_tokens * float(price["output"])
    if cached:
        total += cached * float(price["cached"])
    return round(total / PER_TOKENS, 8)


def format_cost(cost: float) -> str:
    """A cost in the prices' own unit, with enough digits to tell small Rounds apart."""
    return f"{cost:.4f}" if cost < 1 else f"{cost:,.2f}"
