"""The chat client roles talk to: streamed chat completions over the official openai SDK.

The SDK does the HTTP, retries 429 and 5xx (`max_retries`, honouring the server's retry-after) and the
request timeout; this module adds what the SDK leaves out: usage on every stream, a dropped stream told
apart from a finished one, and errors that say what to fix without ever showing the key.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any

from twnb.config.secret_rules import redact_shapes
from twnb.config.settings import ResolvedSettings, Settings
from twnb.config.table import DEFAULT_AZURE_API_VERSION, PLACEHOLDER_API_KEY
from twnb.llm.errors import ErrorContext, LLMAuthError, LLMStreamDropped, llm_error_from, safe_url
from twnb.llm.stream import ChatReply, ChatStream
from twnb.llm.usage import messages_text
from twnb.memory.logs import every_record_scrubbed, get_logger

if TYPE_CHECKING:
    from twnb.config.redaction import Redactor

_log = get_logger(__name__)

OPENAI_BASE_URL = "https://api.openai.com/v1"


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
    always scrubbed as well). Build one from the user's settings with :func:`make_client`.
    """

    def __init__(
        self,
        api_key: str | None,
        base_url: str | None = None,
        *,
        azure_endpoint: str | None = None,
        api_version: str | None = None,
        timeout: float = 60.0,
        max_retries: int = 2,
        stream_retries: int = 2,
        redact: Callable[[str], str] | None = None,
    ) -> None:
        import openai  # lazy: importing twnb must stay cheap

        if not api_key:
            if azure_endpoint or not base_url:
                where = "AZURE_OPENAI_API_KEY" if azure_endpoint else "OPENAI_API_KEY"
                raise LLMAuthError(
                    f"No API key. Set {where} in the environment or in a .env file beside the notebook "
                    "(a local server needs none: set OPENAI_BASE_URL to it instead)."
                )
            # Local servers (Ollama, vLLM, llama.cpp) ignore the key, but the SDK insists on one.
            api_key = PLACEHOLDER_API_KEY
        self.timeout = timeout
        self.max_retries = max_retries
        self.stream_retries = stream_retries
        self.azure_endpoint = azure_endpoint
        self._api_key = api_key
        self._redact = redact
        if azure_endpoint:
            self.base_url = f"{azure_endpoint.rstrip('/')}/openai"
            self._sdk: Any = openai.AzureOpenAI(
                azure_endpoint=azure_endpoint,
                api_version=api_version or DEFAULT_AZURE_API_VERSION,
                api_key=api_key,
                timeout=timeout,
                max_retries=max_retries,
            )
        else:
            # Always explicit: the SDK would otherwise read OPENAI_BASE_URL behind the settings' back.
            self.base_url = base_url or OPENAI_BASE_URL
            self._sdk = openai.OpenAI(
                api_key=api_key, base_url=self.base_url, timeout=timeout, max_retries=max_retries
            )

    def __repr__(self) -> str:
        if self.azure_endpoint:
            where = f"azure_endpoint={safe_url(self.azure_endpoint)!r}"
        else:
            where = f"base_url={safe_url(self.base_url)!r}"
        return f"OpenAIChatClient({where}, timeout={self.timeout}, max_retries={self.max_retries})"

    def _context(self, model: str, role: str) -> ErrorContext:
        if self.azure_endpoint:
            url = f"{self.base_url}/deployments/{model}/chat/completions"
        else:
            url = f"{self.base_url.rstrip('/')}/chat/completions"
        return ErrorContext(
            url=safe_url(url),
            model=model,
            role=role,
            timeout=self.timeout,
            max_retries=self.max_retries,
            api_key=self._api_key,
            redact=self._redact,
        )

    def _log_scrub(self, ctx: ErrorContext) -> Callable[[str], str]:
        if self._redact is not None:
            return ctx.scrub  # the session's redactor, and the key
        return lambda text: ctx.scrub(redact_shapes(text))  # URL passwords by shape, and the key

    def stream(
        self,
        messages: list[dict[str, Any]],
        *,
        model: str,
        role: str = "",
        response_format: dict[str, Any] | None = None,
    ) -> ChatStream:
        """Send the request (HTTP errors raise here, after the SDK's retries) and return the stream."""
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
        ctx = self._context(model, role)
        started = time.perf_counter()
        try:
            # The SDK and httpx log the request (its URL's user info included) to whatever handlers the
            # user set up: every record made during the call is scrubbed as it is made.
            with every_record_scrubbed(self._log_scrub(ctx)):
                chunks = self._sdk.chat.completions.create(**request)
        except Exception as exc:
            error = llm_error_from(exc, ctx)
            if error is None:
                raise
        else:
            return ChatStream(chunks, ctx, prompt_text=messages_text(prepared), started=started)
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
    settings: Settings | ResolvedSettings,
    *,
    redactor: Redactor | None = None,
    **client_options: Any,
) -> OpenAIChatClient:
    """The streaming OpenAI (or Azure, or OpenAI-compatible) client these settings describe.

    With a ``redactor``, server texts quoted in error messages pass through
    it (the key itself is always scrubbed by the client). ``client_options`` go to
    :class:`OpenAIChatClient` (``timeout``, ``max_retries``, ``stream_retries``): HTTP settings,
    unrelated to the settings' code-execution ``timeout`` and revise ``max_retries``. Raises
    ``SettingsError`` when no key is configured (a local server gets the placeholder key).
    """
    workdir = settings.workdir if isinstance(settings, ResolvedSettings) else None
    plain = settings.settings if isinstance(settings, ResolvedSettings) else settings
    api_key = plain.require_api_key(workdir)
    if redactor is not None:
        client_options["redact"] = redactor.redact
    return OpenAIChatClient(
        api_key,
        plain.base_url,
        azure_endpoint=plain.azure_endpoint,
        api_version=plain.api_version,
        **client_options,
    )
