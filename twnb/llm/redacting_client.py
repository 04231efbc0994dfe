"""A ChatClient that redacts every message before it leaves the process.

See docs/architecture.md, "Secrets live in the same process".

Prompts carry what generated code printed (``print(os.environ)``, a config file it read); wrapping the
client here means no prompt builder has to remember the redaction pass.
"""

from __future__ import annotations

from typing import Any

from twnb.config import Redactor
from twnb.llm.chat_client import ChatClient, ReplyStream

__all__ = ["RedactingClient"]


class RedactingClient:
    """Passes each call to ``inner`` with its messages (and response_format) redacted."""

    def __init__(self, inner: ChatClient, redactor: Redactor) -> None:
        self.inner = inner
        self.redactor = redactor

    def stream(
        self,
        messages: list[dict[str, Any]],
        *,
        model: str,
        role: str = "",
        response_format: dict[str, Any] | None = None,
    ) -> ReplyStream:
        return self.inner.stream(
            self.redactor.redact_data(messages),
            model=model,
            role=role,
            response_format=response_format,
        )
