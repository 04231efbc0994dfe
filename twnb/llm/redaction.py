"""One redaction pass for everything twnb records or sends (docs/architecture.md, "Secrets live
in the same process").

Generated code runs in the process that holds the API key, so ``print(os.environ)`` would carry it into
the next prompt, the saved YAML, a cassette or a notebook. Every such text goes through one
:class:`Redactor`, which replaces with ``[redacted]``:

- the configured API key's value, whatever its length from 4 characters up (a short key for a local
  server is still the key; under 4 characters, replacing it would blank out ordinary text);
- other values it is told about (secrets from ``.env``) and values of environment variables whose
  names contain KEY, TOKEN, SECRET or PASSWORD, of 8 characters or more: shorter ones, like ``1`` or
  ``true``, would blank out ordinary text;
- strings shaped like keys: OpenAI ``sk-...``/``sk-proj-...``, Azure's 32 hex digits, ``Bearer ...``,
  GitHub ``ghp_...``/``github_pat_...``, AWS ``AKIA...``, Hugging Face ``hf_...``, Google ``AIza...``,
  Slack ``xox?-...``.

The Azure pattern also catches any free-standing 32-digit hex string (an MD5 digest, a UUID without
dashes): a price paid on purpose, as such strings rarely matter to the model.

The environment is read on every call (it is a live mapping: the user may set a token mid-session).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from twnb.memory.logs import ScrubbingFilter

__all__ = ["REDACTED", "RedactingFilter", "Redactor", "is_credential_field", "is_secret_name"]

REDACTED = "[redacted]"
MIN_SECRET_LENGTH = 8
MIN_KEY_LENGTH = 4

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD", re.IGNORECASE)
# Field (and header) names whose whole value is a credential, whatever it looks like. Narrower than
# _SECRET_NAME on purpose: "sort_key" or "max_tokens" in saved data must survive.
_SECRET_FIELD = re.compile(
    r"^(?:proxy-)?authorization$|(?:^|[_\-])(?:api[_\-]?key|access[_\-]?key|token|secret|password|passwd)$",
    re.IGNORECASE,
)

# Each alternative starts with a literal, so the regex engine can skip ahead to candidates; a leading
# \b would defeat that (measured 10x slower), so the word boundary is checked in _shape_replacement.
_KEY_SHAPES = re.compile(
    "|".join(
        (
            r"sk-[A-Za-z0-9_\-]{16,}",  # OpenAI (sk-, sk-proj-, sk-svcacct-), Anthropic (sk-ant-)
            r"gh[pousr]_[A-Za-z0-9]{20,}",  # GitHub tokens
            r"github_pat_[A-Za-z0-9_]{20,}",
            r"A[KS]IA[0-9A-Z]{16}(?![0-9A-Z])",  # AWS access key ids
            r"hf_[A-Za-z0-9]{30,}",  # Hugging Face
            r"AIza[0-9A-Za-z_\-]{35}",  # Google API keys
            r"xox[abposr]-[A-Za-z0-9\-]{10,}",  # Slack
        )
    )
)
# Azure OpenAI / Cognitive Services keys: exactly 32 hex digits. Leftmost-longest matching of a run
# means a match never starts inside a longer run; its length is checked in _hex_replacement.
_HEX_RUN = re.compile(r"[0-9a-fA-F]{32,}")
# Keep the word "Bearer" so the text still reads; drop what follows.
_BEARER = re.compile(r"(?i:bearer)\s+[A-Za-z0-9._~+/=\-]{8,}")
_WORD_CHAR = re.compile(r"[A-Za-z0-9_]")


def _shape_replacement(match: re.Match[str]) -> str:
    start = match.start()
    if start > 0 and _WORD_CHAR.match(match.string, start - 1):
        return match.group(0)  # "mask-..." is a word, not an "sk-" key
    return REDACTED


def _bearer_replacement(match: re.Match[str]) -> str:
    return f"{match.group(0)[:6]} {REDACTED}"


def _hex_replacement(match: re.Match[str]) -> str:
    run = match.group(0)
    if len(run) == 32 and (run.islower() or run.isupper() or run.isdigit()):
        return REDACTED
    return run


def is_secret_name(name: str) -> bool:
    """True for environment variable names whose values are treated as secrets."""
    return bool(_SECRET_NAME.search(name))


def is_credential_field(name: str) -> bool:
    """True for data or header field names whose whole value is a credential."""
    return bool(_SECRET_FIELD.search(name))


class Redactor:
    """Replaces secrets in text and in nested data with ``[redacted]``.

    ``secrets`` are values always redacted (``.env`` secrets), from 8 characters up; ``api_key`` (the
    configured key) from 4; ``environ`` (default ``os.environ``, read live) supplies the values of
    secret-named variables.
    """

    def __init__(
        self,
        secrets: Iterable[str | None] = (),
        *,
        api_key: str | None = None,
        environ: Mapping[str, str] | None = None,
        key_shapes: bool = True,
    ) -> None:
        self._api_key = api_key if api_key and len(api_key) >= MIN_KEY_LENGTH else None
        fixed = {s for s in secrets if s and len(s) >= MIN_SECRET_LENGTH}
        self._secrets = frozenset(fixed | {self._api_key} if self._api_key else fixed)
        self._environ = os.environ if environ is None else environ
        self._key_shapes = key_shapes
        self._cache_key: frozenset[str] | None = None
        self._cache_pattern: re.Pattern[str] | None = None

    @classmethod
    def from_settings(cls, resolved: Any, *, environ: Mapping[str, str] | None = None) -> Redactor:
        """A redactor for :class:`twnb.config.settings.ResolvedSettings` (or plain ``Settings``)."""
        settings = getattr(resolved, "settings", resolved)
        api_key = settings.api_key if settings.has_real_api_key else None
        return cls(getattr(resolved, "dotenv_secrets", ()), api_key=api_key, environ=environ)

    def with_secrets(self, *secrets: str | None) -> Redactor:
        """A redactor that also knows these values (8 characters or more)."""
        known = [*self._secrets, *secrets]
        return Redactor(known, api_key=self._api_key, environ=self._environ, key_shapes=self._key_shapes)

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
        return self._redact(text, self._literal_pattern())

    def redact_data(self, obj: Any) -> Any:
        """A copy of ``obj`` (dicts, lists, tuples, strings) with every string redacted; the values of
        credential fields (``Authorization``, ``api-key``, ``*_token``, ...) are replaced whole."""
        # The environment is read once per call, not once per string.
        return self._walk(obj, self._literal_pattern())

    def _walk(self, obj: Any, pattern: re.Pattern[str] | None) -> Any:
        if isinstance(obj, str):
            return self._redact(obj, pattern) if obj else obj
        if isinstance(obj, Mapping):
            out = {}
            for key, value in obj.items():
                new_key = self._redact(key, pattern) if isinstance(key, str) and key else key
                if isinstance(key, str) and is_credential_field(key) and isinstance(value, str) and value:
                    out[new_key] = REDACTED
                else:
                    out[new_key] = self._walk(value, pattern)
            return out
        if isinstance(obj, list):
            return [self._walk(v, pattern) for v in obj]
        if isinstance(obj, tuple):
            return tuple(self._walk(v, pattern) for v in obj)
        return obj

    def _redact(self, text: str, pattern: re.Pattern[str] | None) -> str:
        if pattern is not None:
            text = pattern.sub(REDACTED, text)
        if self._key_shapes:
            text = _KEY_SHAPES.sub(_shape_replacement, text)
            text = _HEX_RUN.sub(_hex_replacement, text)
            text = _BEARER.sub(_bearer_replacement, text)
        return text

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


class RedactingFilter(ScrubbingFilter):
    """A logging filter that redacts the message, its arguments and any traceback of each record.

    For the user's own handlers (``handler.addFilter(...)``): a filter on a logger does not see
    records that propagate from its children. twnb's own loggers are scrubbed already, by the
    session's redactor (`twnb.memory.logs`).
    """

    def __init__(self, redactor: Redactor) -> None:
        super().__init__(redactor.redact)
        self.redactor = redactor
