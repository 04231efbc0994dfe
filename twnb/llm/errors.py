"""What can go wrong talking to an LLM server, each with a message that says what to do.

The openai SDK's exceptions are translated here (see `llm_error_from`) so no caller handles SDK types,
and so a server that echoes the API key in its error text (some do) never gets it into a message, a log,
a notebook traceback or a saved file: the translated error is raised `from None`, and every server text
is passed through the redaction given, plus a literal scrub of the key itself.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from twnb.config import MIN_KEY_LENGTH, REDACTED
from twnb.llm.context_error import ContextOverflow, context_hint, read_context_error
from twnb.llm.deadlines import LLMDeadlines


class LLMError(Exception):
    """Any failure of an LLM call. `url`, `model` and `status_code` say where, when known."""

    def __init__(
        self, message: str, *, url: str = "", model: str = "", status_code: int | None = None
    ) -> None:
        super().__init__(message)
        self.url = url
        self.model = model
        self.status_code = status_code

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"


class LLMAuthError(LLMError):
    """HTTP 401/403: the key (or the server it was sent to) is wrong."""


class LLMNotFoundError(LLMError):
    """HTTP 404: usually a wrong model (deployment) name or a base URL missing its /v1."""


class LLMConnectionError(LLMError):
    """The server could not be reached (refused, DNS, TLS...)."""


class LLMTimeoutError(LLMConnectionError):
    """A deadline passed (docs: twnb/llm/deadlines.py): `setting` names the row of the settings table
    that sets it (``llm_timeout_connect``, ``..._first_byte``, ``..._idle``, ``..._total``)."""

    def __init__(self, message: str, *, setting: str = "", **where: Any) -> None:
        super().__init__(message, **where)
        self.setting = setting


class LLMStalled(LLMTimeoutError):
    """A reply missed its first-byte, idle or total deadline; never sent again (the server may still be
    working on it). `partial_text` holds what had arrived."""

    def __init__(self, message: str, *, partial_text: str = "", **where: Any) -> None:
        super().__init__(message, **where)
        self.partial_text = partial_text


class LLMRateLimitError(LLMError):
    """HTTP 429 still after the retries (request_retries.py)."""


class LLMServerError(LLMError):
    """HTTP 5xx still after the retries (request_retries.py)."""


class LLMBadRequestError(LLMError):
    """HTTP 400/422: the server refused a parameter; `param` names it when the server says."""

    def __init__(self, message: str, *, param: str | None = None, **where: Any) -> None:
        super().__init__(message, **where)
        self.param = param


class LLMContextExceeded(LLMBadRequestError):
    """The prompt does not fit the model's context, as the server said (or as twnb knew before sending).
    `context_tokens` and `prompt_tokens` are the numbers, when known."""

    def __init__(
        self,
        message: str,
        *,
        context_tokens: int | None = None,
        prompt_tokens: int | None = None,
        **where: Any,
    ) -> None:
        super().__init__(message, **where)
        self.context_tokens = context_tokens
        self.prompt_tokens = prompt_tokens

    @classmethod
    def said(cls, call: str, overflow: ContextOverflow, how: str, **where: Any) -> LLMContextExceeded:
        """The error for `call` (`ErrorContext.call`) whose server reported `overflow` (`how`: its words)."""
        return cls(
            f"{capitalized(call)} does not fit the model's context: {overflow.describe()} ({how}). "
            f"{context_hint()}",
            context_tokens=overflow.context_tokens,
            prompt_tokens=overflow.prompt_tokens,
            **where,
        )


class LLMReplyTruncated(LLMError):
    """The reply stopped at a token limit (`finish_reason: length`): the context, or the output cap.
    Sending it again would stop at the same place, so it is not retried."""


class LLMEmptyReply(LLMError):
    """HTTP 200 and then no event at all (llama-cpp-python's answer to a prompt over its context)."""


class LLMStreamDropped(LLMError):
    """A stream ended (or broke) before its finish reason: a transport failure, never a complete reply.

    `partial_text` and `partial_reasoning` hold what had arrived; the caller may retry the call.
    """

    def __init__(self, message: str, *, partial_text: str = "", partial_reasoning: str = "", **where: Any):
        super().__init__(message, **where)
        self.partial_text = partial_text
        self.partial_reasoning = partial_reasoning


class LLMMalformedStreamError(LLMStreamDropped):
    """The server sent an event that is not valid JSON: the stream cannot be trusted past it."""


class LLMStreamErrorEvent(LLMStreamDropped):
    """The server sent an error event in the middle of the stream (llama-server's "output does not
    match the expected format", a provider's overload): retried as a dropped stream; `server_message`
    holds the server's words."""

    def __init__(self, message: str, *, server_message: str = "", **where: Any) -> None:
        super().__init__(message, **where)
        self.server_message = server_message


@dataclass(frozen=True)
class ErrorContext:
    """What a translated error may name (URL, model, role, limits) and what it must hide (the key)."""

    url: str
    model: str
    role: str = ""
    deadlines: LLMDeadlines | None = None
    max_retries: int = 0
    context_tokens: int | None = None  # the model's context, when known (for messages about limits)
    max_tokens: int | None = None  # the reply cap sent, if any
    api_key: str | None = field(default=None, repr=False)
    redact: Callable[[str], str] | None = field(default=None, repr=False)

    def scrub(self, text: str) -> str:
        if self.redact is not None:
            text = self.redact(text)
        key = self.api_key
        if key and key in text:
            # A key too short to replace safely (it would blank ordinary words) drops the text instead.
            if len(key) >= MIN_KEY_LENGTH:
                text = text.replace(key, REDACTED)
            else:
                text = "(withheld: it contained the key)"
        return text

    @property
    def call(self) -> str:
        who = f"the {self.role} call" if self.role else "the call"
        return f"{who} to model {self.model!r}"


def safe_url(url: object) -> str:
    """The URL without any user:password part (never put credentials in a message)."""
    text = str(url)
    parts = urlsplit(text)
    if parts.username is None and parts.password is None:
        return text
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    return urlunsplit((parts.scheme, host, parts.path, parts.query, parts.fragment))


def _server_message(exc: BaseException) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        message = inner.get("message") if isinstance(inner, dict) else None
        if isinstance(message, str):
            return message
        return json.dumps(body)[:500]
    if isinstance(body, str) and body:
        return body[:500]
    return str(getattr(exc, "message", "") or "")


def _server_param(exc: BaseException) -> str | None:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        param = inner.get("param") if isinstance(inner, dict) else None
        if isinstance(param, str):
            return param
    return None


def _request_url(exc: BaseException, fallback: str) -> str:
    request = getattr(exc, "request", None)
    url = getattr(request, "url", None)
    return safe_url(url) if url is not None else safe_url(fallback)


def _connecting(exc: BaseException) -> bool:
    """True when a timeout struck before the request reached the server (connecting, or waiting for a
    pooled connection): sending it again cannot queue a second request behind the first."""
    cause = exc.__cause__
    return type(cause).__name__ in ("ConnectTimeout", "PoolTimeout")


def capitalized(text: str) -> str:
    """`text` as the start of a sentence (only its first letter changed)."""
    return text[:1].upper() + text[1:]


def _root_cause(exc: BaseException) -> str:
    cause: BaseException = exc
    while cause.__cause__ is not None:
        cause = cause.__cause__
    return f"{type(cause).__name__}: {cause}" if str(cause) else type(cause).__name__


def llm_error_from(exc: BaseException, ctx: ErrorContext) -> LLMError | None:
    """The LLMError for an openai SDK exception; None when `exc` is not one (a bug: let it raise)."""
    import openai  # lazy: openai (~380 ms, 700 modules) loads with the first request, not at import

    if not isinstance(exc, openai.OpenAIError):
        return None
    url = _request_url(exc, ctx.url)
    where: dict[str, Any] = {"url": url, "model": ctx.model, "status_code": getattr(exc, "status_code", None)}
    said = ctx.scrub(_server_message(exc))
    tries = ""
    if ctx.max_retries:
        tries = f" (after {ctx.max_retries} {'retry' if ctx.max_retries == 1 else 'retries'})"

    if isinstance(exc, (openai.AuthenticationError, openai.PermissionDeniedError)):
        return LLMAuthError(
            f"The server at {url} refused the API key (HTTP {exc.status_code}: {said}). "
            "Check the API key (OPENAI_API_KEY, or the variable twnb is told to read) and the base URL: "
            "a key for one provider does not work at another's URL.",
            **where,
        )
    if isinstance(exc, openai.NotFoundError):
        return LLMNotFoundError(
            f"Model {ctx.model!r} was not found at {url} (HTTP 404: {said}). Check the model name "
            "(TWNB_MODEL; on Azure, the deployment name) and the base URL (OpenAI-compatible servers "
            "usually want it to end in /v1).",
            **where,
        )
    if isinstance(exc, openai.RateLimitError):
        return LLMRateLimitError(
            f"Rate limited by {url} for model {ctx.model!r}{tries} (HTTP 429: {said}). "
            "Wait a little and run it again, or raise the account's limits.",
            **where,
        )
    status = getattr(exc, "status_code", None)
    if isinstance(exc, openai.APIStatusError) and status in (400, 413, 422):
        overflow = read_context_error(said)
        if overflow is not None:
            return LLMContextExceeded.said(ctx.call, overflow, f"HTTP {status} from {url}: {said}", **where)
    if isinstance(exc, openai.BadRequestError) or status == 422:
        param = _server_param(exc)
        named = f" (parameter {param!r})" if param else ""
        return LLMBadRequestError(
            f"The server at {url} refused {ctx.call}{named}: HTTP {status}: {said}",
            param=param,
            **where,
        )
    if isinstance(exc, openai.APIStatusError) and exc.status_code >= 500:
        return LLMServerError(
            f"The server at {url} failed on {ctx.call}{tries} (HTTP {exc.status_code}: {said}). "
            "It is the server's fault; try again later.",
            **where,
        )
    if isinstance(exc, openai.APIStatusError):
        return LLMError(f"HTTP {exc.status_code} from {url} for {ctx.call}: {said}", **where)
    if isinstance(exc, openai.APITimeoutError):
        deadlines = ctx.deadlines or LLMDeadlines()
        if _connecting(exc):
            return LLMTimeoutError(
                f"Could not connect to {url} within {deadlines.describe('connect')}{tries} for "
                f"{ctx.call}. Check that the server is up, or raise llm_timeout_connect.",
                setting="llm_timeout_connect",
                **where,
            )
        waited = deadlines.read_timeout_s
        name = (
            "first_byte"
            if waited == deadlines.first_byte
            else "idle"
            if waited == deadlines.idle
            else "total"
        )
        return LLMStalled(
            f"{capitalized(ctx.call)} got no answer from {url} within {deadlines.describe(name)}. A "
            "slow server (a long prompt on a CPU) needs more: raise it. It is not sent again, so as not to "
            "queue a second request behind the first.",
            setting=f"llm_timeout_{name}",
            **where,
        )
    if isinstance(exc, openai.APIConnectionError):
        return LLMConnectionError(
            f"Could not connect to {url}{tries}: {ctx.scrub(_root_cause(exc))}. "
            "Check the base URL and that the server is running.",
            **where,
        )
    return LLMError(f"{ctx.call} to {url} failed: {ctx.scrub(str(exc))}", **where)
