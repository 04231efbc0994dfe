"""The virtual user's and the evaluator's calls to their models, with what each call spent.

Both talk through a twnb ChatClient (live with redaction and the response-format fallback, recorded
to a cassette, or replayed from one), so an evaluation runs offline exactly as a notebook session
does. Tokens and cost are counted per call; cost from the `prices` setting, as a Round's ledger does.
"""

from __future__ import annotations

import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from twnb.llm import ChatClient, collect_reply
from twnb.memory import call_cost

__all__ = ["ModelCaller", "Spend"]

_THINKING = re.compile(r"<think>.*?</think>", re.DOTALL | re.IGNORECASE)


@dataclass
class Spend:
    """Tokens, cost and time of a set of calls. `cost` is None when any call had no price (a partial
    sum would read as the whole cost); `unpriced` counts those calls."""

    calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cost: float | None = 0.0
    unpriced: int = 0
    seconds: float = 0.0
    estimated: bool = False

    def add(self, other: Spend) -> Spend:
        """The sum of both (neither is changed)."""
        return Spend(
            calls=self.calls + other.calls,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
            cost=None if self.cost is None or other.cost is None else round(self.cost + other.cost, 8),
            unpriced=self.unpriced + other.unpriced,
            seconds=round(self.seconds + other.seconds, 3),
            estimated=self.estimated or other.estimated,
        )

    @classmethod
    def total(cls, spends: Iterable[Spend]) -> Spend:
        result = cls()
        for spend in spends:
            result = result.add(spend)
        return result

    def to_dict(self) -> dict[str, Any]:
        return {
            "calls": self.calls,
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cached_tokens": self.cached_tokens,
            "cost": self.cost,
            "unpriced": self.unpriced,
            "seconds": round(self.seconds, 3),
            "estimated": self.estimated,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any] | None) -> Spend:
        data = data or {}
        cost = data.get("cost")
        return cls(
            calls=int(data.get("calls") or 0),
            input_tokens=int(data.get("input_tokens") or 0),
            output_tokens=int(data.get("output_tokens") or 0),
            cached_tokens=int(data.get("cached_tokens") or 0),
            cost=None if cost is None else float(cost),
            unpriced=int(data.get("unpriced") or 0),
            seconds=float(data.get("seconds") or 0.0),
            estimated=bool(data.get("estimated", False)),
        )

    @classmethod
    def from_ledger_totals(cls, totals: Mapping[str, Any]) -> Spend:
        """A Round's ledger totals (`Ledger.totals()`) as a Spend."""
        cost = totals.get("cost")
        calls = int(totals.get("llm_calls") or 0)
        return cls(
            calls=calls,
            input_tokens=int(totals.get("input_tokens") or 0),
            output_tokens=int(totals.get("output_tokens") or 0),
            cached_tokens=int(totals.get("cached_tokens") or 0),
            cost=None if cost is None and calls else float(cost or 0.0),
            unpriced=int(totals.get("unpriced_calls") or 0),
            seconds=float(totals.get("llm_s") or 0.0),
            estimated=bool(totals.get("estimated", False)),
        )


@dataclass
class ModelCaller:
    """Asks `model` through `client` as `role` (the name cassettes and the fake server go by), and
    keeps what the calls spent."""

    client: ChatClient
    model: str
    role: str
    prices: Mapping[str, Mapping[str, float]] | None = None
    spend: Spend = field(default_factory=Spend)

    def ask(self, messages: list[dict[str, Any]], *, response_format: dict[str, Any] | None = None) -> str:
        """The model's whole reply to `messages`, without any `<think>` block; raises LLMError."""
        started = time.perf_counter()
        stream = self.client.stream(
            messages, model=self.model, role=self.role, response_format=response_format
        )
        reply = collect_reply(stream)
        usage = reply.usage
        cost = call_cost(
            self.prices,
            (usage.model, self.model),
            input_tokens=usage.prompt_tokens,
            output_tokens=usage.completion_tokens,
            cached_tokens=usage.cached_tokens,
            estimated=usage.estimated,
        )
        self.spend = self.spend.add(
            Spend(
                calls=1,
                input_tokens=usage.prompt_tokens,
                output_tokens=usage.completion_tokens,
                cached_tokens=usage.cached_tokens,
                cost=cost,
                unpriced=0 if cost is not None else 1,
                seconds=time.perf_counter() - started,
                estimated=usage.estimated,
            )
        )
        return _THINKING.sub("", reply.text).strip()
