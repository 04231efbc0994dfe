"""One redaction pass for everything twnb records or sends (DESIGN.md §4, "Generated code runs where the
API key lives").

Generated code runs in the process that holds the API key, so ``print(os.environ)`` would carry it into
the next prompt, the saved YAML, a cassette or a notebook. Every such text goes through one
:class:`Redactor`, which replaces with ``[redacted]``:

- the configured API key's value (and any other value it is told about, e.g. secrets from ``.env``);
- values of environment variables whose names contain KEY, TOKEN, SECRET or PASSWORD (only values of
  8 characters or more: shorter ones, like ``1`` or ``true``, would blank out ordinary text);
- strings shaped like keys: OpenAI ``sk-...``/``sk-proj-...``, Azure's 32 hex digits, ``Bearer ...``,
  GitHub ``ghp_...``/``github_pat_...``, AWS ``AKIA...``, Hugging Face ``hf_...``, Google ``AIza...``,
  Slack ``xox?-...``.

The Azure pattern also catches any free-standing 32-digit hex string (an MD5 digest, a UUID without
dashes): a price paid on purpose, as such strings rarely matter to the model.

The environment is read on every call (it is a live mapping: the user may set a token mid-session).
"""

from __future__ import annotations

import logging
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

__all__ = ["REDACTED", "RedactingFilter", "Redactor", "is_credential_field", "is_secret_name"]

REDACTED = "[redacted]"
MIN_SECRET_LENGTH = 8

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD", re.IGNORECASE)
# Field (and header) names whose whole value is a credential, whatever it looks like. Narrower than
# _SECRET_NAME on purpose: "sort_key" or "max_tokens" in saved data must survive.
_SECRET_FIELD = re.compile(
    r"^(?:proxy-)?authorization$|(?:^|[_\-])(?:api[_\-]?key|access[_\-]?key|token|secret|password|passwd)$",
    re.IGNORECASE,
)

_KEY_SHAPES = re.compile(
    "|".join(
        (
            r"\bsk-[A-Za-z0-9_\-]{16,}",  # OpenAI (sk-, sk-proj-, sk-svcacct-), Anthropic (sk-ant-)
            r"(?<![0-9A-Fa-f])[0-9a-f]{32}(?![0-9A-Fa-f])",  # Azure OpenAI / Cognitive Services
            r"(?<![0-9A-Fa-f])[0-9A-F]{32}(?![0-9A-Fa-f])",
            r"\bgh[pousr]_[A-Za-z0-9]{20,}",  # GitHub tokens
            r"\bgithub_pat_[A-Za-z0-9_]{20,}",
            r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",  # AWS access key ids
            r"\bhf_[A-Za-z0-9]{30,}",  # Hugging Face
            r"\bAIza[0-9A-Za-z_\-]{35}",  # Google API keys
            r"\bxox[abposr]-[A-Za-z0-9\-]{10,}",  # Slack
        )
    )
)
# Keep the word "Bearer" so the text still reads; drop what follows.
_BEARER = re.compile(r"\b(Bearer)\s+[A-Za-z0-9._~+/=\-]{8,}", re.IGNORECASE)


def is_secret_name(name: str) -> bool:
    """True for environment variable names whose values are treated as secrets."""
    return bool(_SECRET_NAME.search(name))


def is_credential_field(name: str) -> bool:
    """True for data or header field names whose whole value is a credential."""
    return bool(_SECRET_FIELD.search(name))


class Redactor:
    """Replaces secrets in text and in nested data with ``[redacted]``.

    ``secrets`` are values always redacted (the configured key, ``.env`` secrets); ``environ`` (default
    ``os.environ``, read live) supplies the values of secret-named variables.
    """

    def __init__(
        self,
        secrets: Iterable[str | None] = (),
        *,
        environ: Mapping[str, str] | None = None,
        key_shapes: bool = True,
    ) -> None:
        self._secrets = frozenset(s for s in secrets if s and len(s) >= MIN_SECRET_LENGTH)
        self._environ = os.environ if environ is None else environ
        self._key_shapes = key_shapes
        self._cache_key: frozenset[str] | None = None
        self._cache_pattern: re.Pattern[str] | None = None

    @classmethod
    def from_settings(cls, resolved: Any, *, environ: Mapping[str, str] | None = None) -> Redactor:
        """A redactor for :class:`twnb.llm.settings.ResolvedSettings` (or plain ``Settings``)."""
        settings = getattr(resolved, "settings", resolved)
        secrets = [settings.api_key if settings.has_real_api_key else None]
        secrets.extend(getattr(resolved, "dotenv_secrets", ()))
        return cls(secrets, environ=environ)

    def with_secrets(self, *secrets: str | None) -> Redactor:
        """A redactor that also knows these values."""
        return Redactor([*self._secrets, *secrets], environ=self._environ, key_shapes=self._key_shapes)

    def secret_values(self) -> frozenset[str]:
        """The literal values redacted right now (the fixed ones plus the environment's)."""
        found = set(self._secrets)
        for name, value in self._environ.items():
            if value and len(value) >= MIN_SECRET_LENGTH and is_secret_name(name):
                found.add(value)
        return frozenset(found)

    def redact(self, text: str) -> str:
        """``text`` with every secret replaced by ``[redacted]``."""
        if not text:
            return text
        pattern = self._literal_pattern()
        if pattern is not None:
            text = pattern.sub(REDACTED, text)
        if self._key_shapes:
            text = _KEY_SHAPES.sub(REDACTED, text)
            text = _BEARER.sub(lambda m: f"{m.group(1)} {REDACTED}", text)
        return text

    def redact_data(self, obj: Any) -> Any:
        """A copy of ``obj`` (dicts, lists, tuples, strings) with every string redacted; the values of
        credential fields (``Authorization``, ``api-key``, ``*_token``, ...) are replaced whole."""
        if isinstance(obj, str):
            return self.redact(obj)
        if isinstance(obj, Mapping):
            out = {}
            for key, value in obj.items():
                if isinstance(key, str) and is_credential_field(key) and isinstance(value, str) and value:
                    out[self.redact(key)] = REDACTED
                else:
                    out[self.redact(key) if isinstance(key, str) else key] = self.redact_data(value)
            return out
        if isinstance(obj, list):
            return [self.redact_data(v) for v in obj]
        if isinstance(obj, tuple):
            return tuple(self.redact_data(v) for v in obj)
        return obj

    def redact_exception(self, exc: BaseException) -> str:
        """The exception's text, redacted: for messages shown to the user or saved in a Round."""
        return self.redact(f"{type(exc).__name__}: {exc}")

    def _literal_pattern(self) -> re.Pattern[str] | None:
        secrets = self.secret_values()
        if secrets != self._cache_key:
            # Longest first, so a secret that contains another is replaced whole.
            ordered = sorted(secrets, key=len, reverse=True)
            self._cache_pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None
            self._cache_key = secrets
        return self._cache_pattern


class RedactingFilter(logging.Filter):
    """A logging filter that redacts the message, its arguments and any traceback of each record.

    Attach it to handlers (``handler.addFilter(...)``): a filter on a logger does not see records that
    propagate from its children.
    """

    def __init__(self, redactor: Redactor) -> None:
        super().__init__()
        self.redactor = redactor

    def filter(self, record: logging.LogRecord) -> bool:
        try:
            message = record.getMessage()
        except Exception:  # a bad format string: keep the raw parts rather than lose the record
            message = f"{record.msg} {record.args}"
        record.msg = self.redactor.redact(message)
        record.args = None
        if record.exc_info and not record.exc_text:
            record.exc_text = logging.Formatter().formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = self.redactor.redact(record.exc_text)
        if record.stack_info:
            record.stack_info = self.redactor.redact(record.stack_info)
        return True
