"""The `ChatClient` protocol: what the roles and the session rely on from a chat model.

`OpenAIChatClient` (HTTP) and `ReplayClient` (a cassette) are clients; `RedactingClient`,
`ResponseFormatFallback` and `RecordingClient` wrap one and are clients themselves.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Protocol

from twnb.llm.usage import Usage


class ReplyStream(Protocol):
    """One streamed reply: iterate for content deltas (str). Filled as it runs: `raw_text`,
    `reasoning`, `finish_reason` (None until the server sends one: a stream that ends without it
    dropped); `usage` once the stream has ended, whether it ended well or not."""

    def __iter__(self) -> Iterator[str]: ...

    def __next__(self) -> str: ...

    @property
    def raw_text(self) -> str: ...

    @property
    def reasoning(self) -> str: ...

    @property
    def finish_reason(self) -> str | None: ...

    @property
    def usage(self) -> Usage | None: ...

    def close(self) -> None:
        """Stop early and release the connection (what was read stays in the attributes)."""
        ...


class ChatClient(Protocol):
    """Streams one chat completion for `role` (the role's name: recording and replay go by it)."""

    def stream(
        self,
        messages: list[dict[str, Any]],
        *,
        model: str,
        role: str = "",
        response_format: dict[str, Any] | None = None,
    ) -> ReplyStream: ...
