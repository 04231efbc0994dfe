"""How far one chat call may go: its deadlines, its retries, the reply's and the context's size."""

from __future__ import annotations

from dataclasses import dataclass

from twnb.llm.deadlines import LLMDeadlines


@dataclass(frozen=True)
class ClientLimits:
    """The limits an OpenAIChatClient holds every call to.

    `deadlines` are the call's four deadlines (deadlines.py); `timeout` is a shorthand that sets the
    connect, first-byte and idle deadlines to that many seconds (when `deadlines` is not given).
    `max_retries`: requests sent again (request_retries.py); `stream_retries`: a dropped stream sent
    again by `complete`. `max_tokens` caps each reply; `context_size` is the model's context, when the
    settings say it (else the server is asked, or it is learned)."""

    deadlines: LLMDeadlines | None = None
    timeout: float | None = None
    max_retries: int = 2
    stream_retries: int = 2
    max_tokens: int | None = None
    context_size: int | None = None

    def call_deadlines(self) -> LLMDeadlines:
        """The deadlines: as given, else the defaults with `timeout` for the first three, if given."""
        if self.deadlines is not None:
            return self.deadlines
        defaults = LLMDeadlines()
        if self.timeout is None:
            return defaults
        return LLMDeadlines(self.timeout, self.timeout, self.timeout, max(defaults.total, self.timeout))


DEFAULT_LIMITS = ClientLimits()
