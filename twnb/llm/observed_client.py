"""A ChatClient wrapper that reports each call to an observer: when it starts and when its stream ends.

The session's ledger and tracing learn of LLM calls through it (`LLMCallStarted`, `LLMCallEnded`), so
neither roles nor prompt builders have to remember to. It wraps the client that talks to the server
(or the cassette replay), below redaction: the messages it reports are the redacted ones actually
sent, and each response-format fallback or retried attempt is a call of its own.

A call ends with its stream: read to the end (after the usage chunk), broken (the error's class is
reported), or closed early. Reporting costs one `try` per chunk.
"""

from __future__ import annotations

import itertools
from typing import Any
from urllib.parse import urlparse

from twnb.llm.chat_client import ChatClient, ReplyStream
from twnb.llm.stream_proxy import StreamProxy
from twnb.memory import LLMCallEnded, LLMCallStarted, Observer

__all__ = ["CLOSED_EARLY", "ObservedClient", "provider_name"]

CLOSED_EARLY = "closed_early"
"""The error type of a call whose stream the caller closed before its end (a reply over the limit)."""

# Well-known provider names of the GenAI conventions, by the host of the OpenAI-compatible endpoint.
_PROVIDERS_BY_HOST = (
    ("openai.azure.com", "azure.ai.openai"),
    ("api.openai.com", "openai"),
    ("deepseek.com", "deepseek"),
    ("groq.com", "groq"),
    ("mistral.ai", "mistral_ai"),
    ("api.x.ai", "x_ai"),
    ("perplexity.ai", "perplexity"),
    ("generativelanguage.googleapis.com", "gcp.gemini"),
    ("aiplatform.googleapis.com", "gcp.vertex_ai"),
    ("anthropic.com", "anthropic"),
    ("moonshot", "moonshot_ai"),
)


def provider_name(url: str | None, *, azure: bool = False) -> str:
    """The provider a base URL names. Servers that speak OpenAI's API from anywhere else (Ollama,
    vLLM, a proxy) are `openai`: the API flavour; `server.address` says which server it was."""
    if azure:
        return "azure.ai.openai"
    host = (urlparse(url).hostname or "") if url else "api.openai.com"
    for fragment, name in _PROVIDERS_BY_HOST:
        if fragment in host:
            return name
    return "openai"


def server_of(url: str | None) -> tuple[str | None, int | None]:
    """(address, port) of a base URL, the port filled in from the scheme when the URL has none."""
    if not url:
        return "api.openai.com", 443
    parsed = urlparse(url)
    try:
        port = parsed.port
    except ValueError:
        port = None
    if port is None and parsed.scheme in ("http", "https"):
        port = 443 if parsed.scheme == "https" else 80
    return parsed.hostname, port


def _output_type(response_format: dict[str, Any] | None) -> str:
    kind = (response_format or {}).get("type")
    return "json" if kind in ("json_object", "json_schema") else "text"


class ObservedClient:
    """Passes each call to `inner` and reports it to `observer` (an EventRelay, usually)."""

    def __init__(
        self,
        inner: ChatClient,
        observer: Observer,
        *,
        base_url: str | None = None,
        azure: bool = False,
    ) -> None:
        self.inner = inner
        self.observer = observer
        self.provider = provider_name(base_url, azure=azure)
        self.server_address, self.server_port = server_of(base_url)
        self._ids = itertools.count(1)

    def stream(
        self,
        messages: list[dict[str, Any]],
        *,
        model: str,
        role: str = "",
        response_format: dict[str, Any] | None = None,
    ) -> ReplyStream:
        call_id = str(next(self._ids))
        self.observer.on_event(
            LLMCallStarted(
                call_id,
                role,
                model,
                self.provider,
                self.server_address,
                self.server_port,
                _output_type(response_format),
                tuple(messages),
            )
        )
        try:
            stream = self.inner.stream(messages, model=model, role=role, response_format=response_format)
        except BaseException as error:
            self.observer.on_event(
                LLMCallEnded(call_id, role, error_type=type(error).__name__, error=str(error))
            )
            raise
        return _ObservedStream(stream, self.observer, call_id, role)


class _ObservedStream(StreamProxy):
    def __init__(self, stream: ReplyStream, observer: Observer, call_id: str, role: str) -> None:
        self._current = stream
        self._observer = observer
        self._call_id = call_id
        self._role = role
        self._ended = False

    def __next__(self) -> str:
        try:
            piece: str = next(self._current)
        except StopIteration:
            self._end(None)
            raise
        except BaseException as error:
            self._end(error)
            raise
        return piece

    def close(self) -> None:
        super().close()
        self._end(None, closed=True)

    def _end(self, error: BaseException | None, *, closed: bool = False) -> None:
        if self._ended:
            return
        self._ended = True
        stream = self._current
        usage = getattr(stream, "usage", None)
        finish = getattr(stream, "finish_reason", None)
        error_type = type(error).__name__ if error is not None else None
        if error_type is None and closed and finish is None:
            error_type = CLOSED_EARLY
        self._observer.on_event(
            LLMCallEnded(
                self._call_id,
                self._role,
                response_model=str(getattr(stream, "model", "") or ""),
                finish_reason=finish,
                usage=_usage_dict(usage),
                error_type=error_type,
                error=str(error) if error is not None else None,
                response_id=getattr(stream, "response_id", None),
                output_text=str(getattr(stream, "raw_text", "") or ""),
            )
        )


def _usage_dict(usage: Any) -> dict[str, Any] | None:
    """A stream's `Usage` (or a plain dict of it) as a dict; None while the stream has none."""
    if usage is None:
        return None
    return dict(usage.to_dict()) if hasattr(usage, "to_dict") else dict(usage)
