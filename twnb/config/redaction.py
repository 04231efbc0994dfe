"""The Redactor: one pass that replaces secrets with ``[redacted]`` in everything twnb records or sends.

Generated code runs in the process that holds the API key, so ``print(os.environ)`` would carry it into
the next prompt, the saved YAML, a cassette, the notebook or a log. A session builds one Redactor and
every such text goes through it, by the rules of `twnb.config.secret_rules`: the configured API key's
value (from 4 characters up), other values it is told about (``.env`` secrets, values of secret-named
variables in the notebook), the values of secret-named environment variables and the passwords of URLs
in the environment, each in every spelling ordinary output gives it (secret_spellings.py), and URL
passwords, PEM private keys and key-shaped strings by their shape.

Once a secret, always a secret: a value the Redactor has known stays redacted for its life, after the
variable that held it was popped, renamed or rebound.

The environment is a live mapping (the user, or generated code, may set a token mid-session), but
reading all of `os.environ` costs tens of microseconds, too much for every line a loop prints: it is
read when the Redactor is made, again when its size changes, and otherwise at most every
`ENVIRONMENT_TTL_S`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from twnb.base import ScrubbingFilter
from twnb.config.secret_matcher import SecretMatcher
from twnb.config.secret_rules import (
    MIN_KEY_LENGTH,
    MIN_SECRET_LENGTH,
    REDACTED,
    is_credential_field,
    redact_shapes,
    secret_environment_values,
)
from twnb.config.settings_secrets import settings_secrets

if TYPE_CHECKING:
    from twnb.config.settings import ResolvedSettings

__all__ = ["ENVIRONMENT_TTL_S", "RedactingFilter", "Redactor"]

ENVIRONMENT_TTL_S = 0.25
# Texts redacted once are remembered, up to this many characters in all (then forgotten at once).
MEMO_MAX_CHARS = 4_000_000
# A text from this long, with blank lines, is redacted paragraph by paragraph when that gives the same
# result (_splittable), so a paragraph seen before is a lookup.
SPLIT_MIN_CHARS = 512


class Redactor:
    """Replaces secrets in text and in nested data with ``[redacted]``.

    ``secrets`` are values always redacted (``.env`` secrets), from 8 characters up; ``api_key`` (the
    configured key) from 4; ``environ`` (default ``os.environ``, read live) supplies the values of
    secret-named variables and URL passwords; `remember` adds values learnt later. None is forgotten.
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
        self._cache_matcher: SecretMatcher | None = None
        self._environment_read: tuple[int, float, frozenset[str]] | None = None  # (size, when, values)
        self._cache_environment: frozenset[str] | None = None
        # Every secret value ever read from the environment or remembered: never shrinks.
        self._known: frozenset[str] = frozenset()
        self._environment_values()  # what the environment holds now stays a secret after a pop
        # The same texts are redacted again and again: every prompt repeats the system prompt, the
        # examples and most of the previous call's history, and each pass of the secret-shape rules
        # costs far more than a lookup. A memo holds what the texts became under one matcher
        # (a new secret makes a new matcher, hence a new memo); a thread that still holds the old
        # memo only ever writes there.
        self._memo: tuple[SecretMatcher | None, dict[str, str]] = (None, {})
        self._memo_chars = 0

    @classmethod
    def from_settings(
        cls, resolved: ResolvedSettings, *, environ: Mapping[str, str] | None = None
    ) -> Redactor:
        """A redactor for these settings: the configured key, the `.env` file's secrets and those the
        settings hold (plugin configurations, MCP servers' environments), and the live environment."""
        settings = resolved.settings
        api_key = settings.api_key if settings.has_real_api_key else None
        secrets = [*resolved.dotenv_secrets, *settings_secrets(settings)]
        return cls(secrets, api_key=api_key, environ=environ)

    def with_secrets(self, *secrets: str | None) -> Redactor:
        """A redactor that also knows these values (8 characters or more), and all this one knows."""
        known = [*self._secrets, *self._environment_values(), *secrets]
        return Redactor(known, api_key=self._api_key, environ=self._environ, key_shapes=self._key_shapes)

    def remember(self, values: Iterable[str]) -> None:
        """Redact these values (8 characters or more) from now on: the values of secret-named variables
        the notebook holds, which stay secrets after the variable is gone."""
        new = {v for v in values if isinstance(v, str) and len(v) >= MIN_SECRET_LENGTH} - self._known
        if new - self._secrets:
            self._known = self._known | new

    def secret_values(self) -> frozenset[str]:
        """The literal values redacted right now: the fixed ones, and every one the environment held
        or `remember` was told of."""
        return self._secrets | self._environment_values()

    def _environment_values(self) -> frozenset[str]:
        size, now, last = len(self._environ), time.monotonic(), self._environment_read
        if last is None or last[0] != size or now - last[1] > ENVIRONMENT_TTL_S:
            values = frozenset(secret_environment_values(self._environ))
            last = (size, now, values)
            self._environment_read = last
            if not values <= self._known:
                self._known = self._known | values
        return self._known

    def redact(self, text: str) -> str:
        """``text`` with every secret replaced by ``[redacted]``."""
        if not text:
            return text
        return self._redact(text, self._literal_matcher())

    def redact_data(self, obj: Any) -> Any:
        """A copy of ``obj`` (dicts, lists, tuples, strings) with every string redacted; the values of
        credential fields (``Authorization``, ``api-key``, ``*_token``, ...) are replaced whole."""
        # The environment is read once per call, not once per string.
        return self._walk(obj, self._literal_matcher())

    def _walk(self, obj: Any, matcher: SecretMatcher | None) -> Any:
        if isinstance(obj, str):
            return self._redact(obj, matcher) if obj else obj
        if isinstance(obj, Mapping):
            out = {}
            for key, value in obj.items():
                new_key = self._redact(key, matcher) if isinstance(key, str) and key else key
                if isinstance(key, str) and is_credential_field(key) and isinstance(value, str) and value:
                    out[new_key] = REDACTED
                else:
                    out[new_key] = self._walk(value, matcher)
            return out
        if isinstance(obj, list):
            return [self._walk(v, matcher) for v in obj]
        if isinstance(obj, tuple):
            return tuple(self._walk(v, matcher) for v in obj)
        return obj

    def _redact(self, text: str, matcher: SecretMatcher | None) -> str:
        memo_matcher, memo = self._memo
        if memo_matcher is not matcher:
            memo = {}
            self._memo, self._memo_chars = (matcher, memo), 0
        done = memo.get(text)
        if done is not None:
            return done
        if len(text) >= SPLIT_MIN_CHARS and "\n\n" in text and _splittable(text, matcher, self._key_shapes):
            # A prompt message often joins a long part seen before (the namespace snapshot, a Round's
            # digest) to a new one: each paragraph is redacted, and remembered, on its own.
            done = "\n\n".join(self._redact_remembered(part, matcher, memo) for part in text.split("\n\n"))
        else:
            done = self._redact_once(text, matcher)
        self._remember(memo, text, done)
        return done

    def _redact_remembered(self, text: str, matcher: SecretMatcher | None, memo: dict[str, str]) -> str:
        done = memo.get(text)
        if done is None:
            done = self._redact_once(text, matcher)
            self._remember(memo, text, done)
        return done

    def _redact_once(self, text: str, matcher: SecretMatcher | None) -> str:
        done = matcher.redact(text, REDACTED) if matcher is not None and text else text
        return redact_shapes(done) if self._key_shapes and done else done

    def _remember(self, memo: dict[str, str], text: str, done: str) -> None:
        if len(text) <= MEMO_MAX_CHARS // 16:  # a huge text is seldom sent twice
            if self._memo_chars + 2 * len(text) > MEMO_MAX_CHARS:
                memo.clear()
                self._memo_chars = 0
            memo[text] = done
            self._memo_chars += len(text) + len(done)

    def redact_exception(self, exc: BaseException) -> str:
        """The exception's text, redacted: for messages shown to the user or saved in a Round."""
        return self.redact(f"{type(exc).__name__}: {exc}")

    def _literal_matcher(self) -> SecretMatcher | None:
        known = self._environment_values()
        if known is self._cache_environment:  # the common case: nothing new was learnt
            return self._cache_matcher
        secrets = self._secrets | known
        if secrets != self._cache_key:
            self._cache_matcher = SecretMatcher(secrets) if secrets else None
            self._cache_key = secrets
        self._cache_environment = known
        return self._cache_matcher


def _splittable(text: str, matcher: SecretMatcher | None, key_shapes: bool) -> bool:
    """True when redacting `text`'s paragraphs (split at blank lines) one by one gives what redacting
    it whole gives: no match can reach across a blank line. The shapes' character classes exclude line
    breaks, and a key's word boundary sees a line break either way; what could reach across is a
    secret's spelling holding a line break (whole, or cut before an ellipsis), a PEM block (its body,
    or "to the end of the text" when its END is cut), and "Bearer" followed by white space."""
    if matcher is not None and matcher.crosses_lines:
        return False
    if not key_shapes:
        return True
    if "-----BEGIN " in text:
        return False
    return not any(part.rstrip()[-6:].lower() == "bearer" for part in text.split("\n\n")[:-1])


class RedactingFilter(ScrubbingFilter):
    """A logging filter that redacts the message, its arguments and any traceback of each record.

    For the user's own handlers (``handler.addFilter(...)``): a filter on a logger does not see
    records that propagate from its children. twnb's own loggers are scrubbed already, by the
    session's redactor (`twnb.base.logs`).
    """

    def __init__(self, redactor: Redactor) -> None:
        super().__init__(redactor.redact)
        self.redactor = redactor
