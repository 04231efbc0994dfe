"""A base for ChatClient wrappers' streams (recording, response_format fallback).

A wrapper's stream must behave exactly like the :class:`~twnb.llm.stream.ChatStream` it wraps
(iteration, ``collect()``, ``close()``, the attributes filled as it runs) while its own ``__next__``
sees every delta. Reading attributes through and reimplementing ``collect`` here keeps a caller's
``stream.collect()`` from bypassing the wrapper by landing on the inner stream's method.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from twnb.llm.chat_client import ReplyStream
from twnb.llm.stream import ChatReply, collect_reply

__all__ = ["StreamProxy"]


class StreamProxy:
    """Subclasses set ``self._current`` (the inner stream) and may override ``__next__``."""

    _current: ReplyStream

    def __iter__(self) -> Iterator[str]:
        return self

    def __next__(self) -> str:
        return next(self._current)

    def collect(self) -> ChatReply:
        """Read the rest through this proxy and return the whole reply."""
        return collect_reply(self)

    def close(self) -> None:
        close = getattr(self._current, "close", None)
        if close is not None:
            close()

    def __enter__(self) -> StreamProxy:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __getattr__(self, name: str) -> Any:
        # Only reached for names not set on the proxy: the inner stream's reasoning, usage, ...
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._current, name)
