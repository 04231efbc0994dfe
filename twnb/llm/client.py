"""The chat client roles talk to: streamed chat completions over the official openai SDK.

The SDK does the HTTP; this module adds what it leaves out: usage on every stream, a dropped stream
told apart from a finished one, the four deadlines of a call (deadlines.py) held to exactly, retries
that never queue a second request behind one the server is still working on (request_retries.py: the
SDK's own are off), the model's context asked of the server (context_probe.py), and errors that say
what to fix without ever showing the key.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from twnb.base import every_record_scrubbed, get_logger
from twnb.config import (
    DEFAULT_AZURE_API_VERSION,
    PLACEHOLDER_API_KEY,
    ResolvedSettings,
    redact_shapes,
)
from twnb.llm.client_limits import DEFAULT_LIMITS, ClientLimits
from twnb.llm.context_probe import probe_context_size
from twnb.llm.context_window import ContextWindows, KnownContext
from twnb.llm.deadlines import LLMDeadlines, StreamWatch, socket_closer
from twnb.llm.errors import ErrorContext, LLMAuthError, LLMStreamDropped, llm_error_from, safe_url
from twnb.llm.request_retries import RetryPolicy
from twnb.llm.stream import ChatReply, ChatStream
from twnb.llm.usage import messages_text

if TYPE_CHECKING:
    from twnb.config import Redactor

_log = get_logger(__name__)

OPENAI_BASE_URL = "https://api.openai.com/v1"
PROBE_TIMEOUT_S = 5.0  # each question about the model's context (a local server answers at once)


def _prepare_messages(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The one place messages become what the SDK sends (openai-format dicts, for now)."""
    prepared = []
    for i, message in enumerate(messages):
        if not isinstance(message, Mapping) or "role" not in message:
            raise ValueError(
                f"messages[{i}] must be an openai chat message, a dict with 'role' and 'content'; "
                f"got {type(message).__name__}"
            )
        prepared.append(dict(message))
    if not prepared:
        raise ValueError("a chat request needs at least one message")
    return prepared


class OpenAIChatClient:
    """Streams chat completions from OpenAI, Azure OpenAI or any OpenAI-compatible server.

    `redact`, when given, cleans every server text that goes into an error message (the key itself is
    always scrubbed as well). `limits`: the calls' deadlines, retries, reply tokens (sent as
    ``max_completion_tokens`` to OpenAI and Azure, ``max_tokens`` elsewhere) and context size
    (client_limits.py). `context` holds what is known of each model's context; by default the client's
    own, which the limits' ``context_size`` sets or the server is asked for. Build one from the user's
    settings with :func:`make_client`.
    """

    def __init__(
        self,
        api_key: str | None,
        base_url: str | None = None,
        *,
        azure_endpoint: str | None = None,
        api_version: str | None = None,
        limits: ClientLimits = DEFAULT_LIMITS,
        redact: Callable[[str], str] | None = None,
        context: ContextWindows | None = None,
    ) -> None:
        import openai  # lazy: openai (~380 ms, 700 modules) loads with the first request, not at import

        deadlines = limits.call_deadlines()
        max_tokens = limits.max_tokens

        if not api_key:
            if azure_endpoint or not base_url:
                where = "AZURE_OPENAI_API_KEY" if azure_endpoint else "OPENAI_API_KEY"
                raise LLMAuthError(
                    f"No API key. Set {where} in the environment or in a .env file beside the notebook "
                    "(a local server needs none: set OPENAI_BASE_URL to it instead)."
                )
            # Local servers (Ollama, vLLM, llama.cpp) ignore the key, but the SDK insists on one.
            api_key = PLACEHOLDER_API_KEY
        self.deadlines = deadlines
        self.max_retries = limits.max_retries
        self.retries = RetryPolicy(limits.max_retries)
        self.stream_retries = limits.stream_retries
        self.max_tokens = max_tokens
        self.azure_endpoint = azure_endpoint
        self._api_key = api_key
        self._redact = redact
        # Before the headers arrive only the read timeout can act: the longest silence allowed.
        http_timeout = openai.Timeout(
            connect=deadlines.connect,
            read=deadlines.read_timeout_s,
            write=deadlines.read_timeout_s,
            pool=deadlines.connect,
        )
        if azure_endpoint:
            self.base_url = f"{azure_endpoint.rstrip('/')}/openai"
            self._sdk: Any = openai.AzureOpenAI(
                azure_endpoint=azure_endpoint,
                api_version=api_version or DEFAULT_AZURE_API_VERSION,
                api_key=api_key,
                timeout=http_timeout,
                max_retries=0,  # request_retries.py decides
            )
        else:
            # Always explicit: the SDK would otherwise read OPENAI_BASE_URL behind the settings' back.
            self.base_url = base_url or OPENAI_BASE_URL
            self._sdk = openai.OpenAI(
                api_key=api_key, base_url=self.base_url, timeout=http_timeout, max_retries=0
            )
        # OpenAI's own models take `max_completion_tokens` (its reasoning models refuse `max_tokens`).
        self._openai_itself = bool(azure_endpoint) or self.base_url.rstrip("/") == OPENAI_BASE_URL
        if context is None:
            context = ContextWindows(context_size=limits.context_size, max_tokens=max_tokens)
        if context.probe is None and not self._openai_itself:
            context.probe = self.probe_context_size
        self.context = context

    def __repr__(self) -> str:
        if self.azure_endpoint:
            where = f"azure_endpoint={safe_url(self.azure_endpoint)!r}"
        else:
            where = f"base_url={safe_url(self.base_url)!r}"
        return f"OpenAIChatClient({where}, deadlines={self.deadlines}, max_retries={self.max_retries})"

    def probe_context_size(self, model: str) -> KnownContext | None:
        """The model's context as the server says it (context_probe.py), asked with a short timeout."""
        sdk = self._sdk.with_options(
            timeout=min(PROBE_TIMEOUT_S, self.deadlines.read_timeout_s), max_retries=0
        )

        def get_json(url: str) -> Any:
            return sdk.get(url, cast_to=object)

        # Logged by the SDK and httpx as a chat request is: scrubbed the same way.
        with every_record_scrubbed(self._log_scrub(self._context(model, ""))):
            return probe_context_size(get_json, self.base_url, model)

    def embed(self, model: str, texts: list[str]) -> list[list[float]]:
        """The embeddings of `texts` from the same server's embeddings API (`model`), in order; each
        text is redacted first. Raises what the SDK raises (a server without embeddings answers 404)."""
        if self._redact is not None:
            texts = [self._redact(text) for text in texts]
        sdk = self._sdk.with_options(max_retries=0)
        with every_record_scrubbed(self._log_scrub(self._context(model, ""))):
            reply = sdk.embeddings.create(model=model, input=texts)
        return [list(item.embedding) for item in sorted(reply.data, key=lambda item: item.index)]

    def _context(self, model: str, role: str) -> ErrorContext:
        if self.azure_endpoint:
            url = f"{self.base_url}/deployments/{model}/chat/completions"
        else:
            url = f"{self.base_url.rstrip('/')}/chat/completions"
        return ErrorContext(
            url=safe_url(url),
            model=model,
            role=role,
            deadlines=self.deadlines,
            max_retries=self.max_retries,
            api_key=self._api_key,
            redact=self._redact,
            context_tokens=self._known_context(model),
            max_tokens=self.max_tokens,
        )

    def _log_scrub(self, ctx: ErrorContext) -> Callable[[str], str]:
        if self._redact is not None:
            return ctx.scrub  # the session's redactor, and the key
        return lambda text: ctx.scrub(redact_shapes(text))  # URL passwords by shape, and the key

    def _known_context(self, model: str) -> int | None:
        """The model's context if it is known already (never asks the server from an error path)."""
        known = self.context.peek(model)
        return known.tokens if known is not None else None

    def stream(
        self,
        messages: list[dict[str, Any]],
        *,
        model: str,
        role: str = "",
        response_format: dict[str, Any] | None = None,
    ) -> ChatStream:
        """Send the request (HTTP errors raise here, after the retries request_retries.py allows) and return
        the stream, held to the deadlines."""
        if not model:
            raise ValueError("no model given: set TWNB_MODEL (on Azure, the deployment name)")
        prepared = _prepare_messages(messages)
        request: dict[str, Any] = {
            "model": model,
            "messages": prepared,
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if response_format is not None:
            request["response_format"] = response_format
        if self.max_tokens:
            request["max_completion_tokens" if self._openai_itself else "max_tokens"] = self.max_tokens
        ctx = self._context(model, role)
        started = time.perf_counter()
        retries = 0
        while True:
            try:
                # The retry count the SDK would have sent, so a server's logs read the same.
                headers = {"x-stainless-retry-count": str(retries)}
                # The SDK and httpx log the request (its URL's user info included) to whatever handlers
                # the user set up: every record made during the call is scrubbed as it is made.
                with every_record_scrubbed(self._log_scrub(ctx)):
                    chunks = self._sdk.chat.completions.create(**request, extra_headers=headers)
            except Exception as exc:
                if self.retries.should_retry(exc, retries):
                    delay = self.retries.delay_s(exc, retries)
                    _log.info("%s: sending again in %.1f s (%s)", ctx.call, delay, type(exc).__name__)
                    time.sleep(delay)
                    retries += 1
                    continue
                error = llm_error_from(exc, ctx)
                if error is None:
                    raise
                break
            watch = StreamWatch(self.deadlines, started)
            response = getattr(chunks, "response", None)
            if response is not None:
                watch.start(socket_closer(response))
            return ChatStream(chunks, ctx, prompt_text=messages_text(prepared), started=started, watch=watch)
        # Raised outside the handler so the SDK's exception is not even the hidden __context__: its text
        # may quote the key (servers echo it), and debuggers and loggers walk the chain.
        raise error

    def complete(
        self,
        messages: list[dict[str, Any]],
        *,
        model: str,
        role: str = "",
        response_format: dict[str, Any] | None = None,
    ) -> ChatReply:
        """The whole reply; a dropped stream is sent again, up to `stream_retries` more times."""
        dropped: list[str] = []
        attempts = self.stream_retries + 1
        for attempt in range(1, attempts + 1):
            try:
                stream = self.stream(messages, model=model, role=role, response_format=response_format)
                reply = stream.collect()
            except LLMStreamDropped as err:
                dropped.append(err.partial_text)
                if attempt == attempts:
                    raise type(err)(
                        f"{err} Gave up after {attempt} attempts.",
                        partial_text=err.partial_text,
                        partial_reasoning=err.partial_reasoning,
                        url=err.url,
                        model=err.model,
                    ) from None
                _log.warning("stream dropped (attempt %d of %d), retrying: %s", attempt, attempts, err)
                continue
            reply.attempts = attempt
            reply.dropped_texts = dropped
            return reply
        raise AssertionError("unreachable")  # the loop returns or raises


def make_client(
    resolved: ResolvedSettings,
    *,
    redactor: Redactor | None = None,
    context: ContextWindows | None = None,
    **limits: Any,
) -> OpenAIChatClient:
    """The streaming OpenAI (or Azure, or OpenAI-compatible) client these settings describe.

    With a ``redactor``, server texts quoted in error messages pass through
    it (the key itself is always scrubbed by the client). ``limits`` are :class:`ClientLimits`'
    fields (``deadlines`` or ``timeout``, ``max_retries``, ``stream_retries``); they are HTTP
    settings, unrelated to the settings' code-execution ``timeout`` and revise ``max_retries``. The
    deadlines, ``max_tokens`` and ``context_size`` come from the settings unless given; ``context``
    goes to :class:`OpenAIChatClient`. Raises ``SettingsError`` when no key is configured (a local
    server gets the placeholder key).
    """
    plain = resolved.settings
    api_key = resolved.require_api_key()
    if "timeout" not in limits:
        limits.setdefault("deadlines", LLMDeadlines.from_settings(plain))
    limits.setdefault("max_tokens", plain.max_tokens)
    limits.setdefault("context_size", plain.context_size)
    return OpenAIChatClient(
        api_key,
        plain.base_url,
        azure_endpoint=plain.azure_endpoint,
        api_version=plain.api_version,
        limits=ClientLimits(**limits),
        redact=redactor.redact if redactor is not None else None,
        context=context,
    )
