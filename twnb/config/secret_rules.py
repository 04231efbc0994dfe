"""The one set of rules for what is secret: used by the redactor (everything twnb records or sends) and by
the kernel's screen (the namespace summary).

Generated code runs in the process that holds the user's keys, so a value counts as secret when:

- it is the value of an environment (or ``.env``) variable whose NAME has a credential-like part: KEY,
  TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL(S), AUTH or APIKEY, the name split into parts on ``_``,
  ``-`` and case changes (``OPENAI_API_KEY``, ``apiKey``, ``DB_CREDENTIALS`` are; ``AUTHOR``,
  ``MAX_TOKENS`` and ``MONKEY`` are not), or whose name ends with one of the long words PASSWORD,
  PASSWD, SECRET, TOKEN, APIKEY, CREDENTIAL(S) without a separator (``DBPASSWORD``, ``GITHUBTOKEN``;
  the short KEY and AUTH still need a part of their own), from 8 characters up (``1`` or ``true``
  would blank out text);
- it is the password of a URL with user info (``postgresql://user:pw@host/db``);
- it is a PEM private-key block;
- it is shaped like a key: OpenAI ``sk-...``, Azure's 32 hex digits, AWS ``AKIA...``, GitHub ``ghp_...``,
  Hugging Face, Google, Slack, JWTs, and what follows ``Bearer``.

The Azure shape also catches a free-standing 32-hex string (an MD5 digest, a UUID without dashes): a
price paid on purpose, such strings rarely matter to the model. Rules guard against accidents, not
against code written to exfiltrate.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping

__all__ = [
    "MIN_KEY_LENGTH",
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "has_secret_shape",
    "is_credential_field",
    "is_secret_name",
    "mentions_secret_name",
    "redact_shapes",
    "secret_environment_values",
]

REDACTED = "[redacted]"
MIN_SECRET_LENGTH = 8  # environment and .env values
MIN_KEY_LENGTH = 4  # the configured API key: a short key for a local server is still the key

_SECRET_PARTS = frozenset(
    {"KEY", "TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "CREDENTIALS", "AUTH", "APIKEY"}
)
# Words long enough to count at the end of a name run together (DBPASSWORD, GITHUBTOKEN): ordinary names
# do not end with them. KEY and AUTH are short enough to end ordinary words (MONKEY, HOCKEY), so they
# count only as parts; TOKENS (MAX_TOKENS, a setting) is not TOKEN.
_SECRET_ENDINGS = ("PASSWORD", "PASSWD", "SECRET", "TOKEN", "APIKEY", "CREDENTIAL", "CREDENTIALS")
# A name's parts: runs of capitals not followed by a small letter (OPENAI, API), capitalised or small
# words (Key, api), digits. `_` and `-` separate by not matching.
_NAME_PART = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_\-]*")

# Field (and header) names whose whole value is a credential, whatever it looks like. Narrower than the
# name rule on purpose: "sort_key" or "max_tokens" in saved data must survive.
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
# JSON Web Tokens: a base64url header that starts `{"` (eyJ), a payload, a signature.
_JWT = re.compile(r"eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*")
# Azure OpenAI / Cognitive Services keys: exactly 32 hex digits. Leftmost-longest matching of a run
# means a match never starts inside a longer run; its length is checked in _hex_replacement.
_HEX_RUN = re.compile(r"[0-9a-fA-F]{32,}")
# Keep the word "Bearer" so the text still reads; drop what follows.
_BEARER = re.compile(r"(?i:bearer)\s+[A-Za-z0-9._~+/=\-]{8,}")
# The password of a URL with user info: scheme://user:password@host. Starting at "://" keeps the scan
# fast; a password with "/" or "@" in it would be percent-encoded in a valid URL.
_URL_PASSWORD = re.compile(r"://([^\s:/@'\"]*):([^\s/@'\"]+)@")
# A PEM private-key block, up to its END line, or to the end of the text when the END was cut off.
_PEM = re.compile(
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----|\Z)", re.S
)
_WORD_CHAR = re.compile(r"[A-Za-z0-9_]")
# For the kernel's screen only (it hides a whole value, so it can afford a wider net): a long run of
# letters and digits mixing small, capital and digit, as random keys are.
_MIXED_RUN = re.compile(
    r"\b(?=[A-Za-z0-9]*[0-9])(?=[A-Za-z0-9]*[A-Z])(?=[A-Za-z0-9]*[a-z])[A-Za-z0-9]{32,}\b"
)


@functools.lru_cache(maxsize=4096)
def is_secret_name(name: str) -> bool:
    """True for variable names whose values are secrets (matched on the name's parts, and on its end for
    the long words)."""
    if name.upper().endswith(_SECRET_ENDINGS):
        return True
    return any(part.upper() in _SECRET_PARTS for part in _NAME_PART.findall(name))


def mentions_secret_name(text: str) -> bool:
    """True when a word in `text` is a secret name (`{'password': 'hunter2'}`: the value beside it)."""
    return any(is_secret_name(word) for word in _IDENTIFIER.findall(text))


def is_credential_field(name: str) -> bool:
    """True for data or header field names whose whole value is a credential."""
    return bool(_SECRET_FIELD.search(name))


def secret_environment_values(environ: Mapping[str, str]) -> set[str]:
    """The values of secret-named variables in `environ`, from 8 characters up."""
    return {v for k, v in environ.items() if v and len(v) >= MIN_SECRET_LENGTH and is_secret_name(k)}


def _shape_replacement(match: re.Match[str], replacement: str) -> str:
    start = match.start()
    if start > 0 and _WORD_CHAR.match(match.string, start - 1):
        return match.group(0)  # "mask-..." is a word, not an "sk-" key
    return replacement


def _hex_replacement(match: re.Match[str], replacement: str) -> str:
    run = match.group(0)
    if len(run) == 32 and (run.islower() or run.isupper() or run.isdigit()):
        return replacement
    return run


def redact_shapes(text: str, replacement: str = REDACTED) -> str:
    """`text` with every secret recognisable by its shape (not by a known value) replaced."""
    # The cheap `in` tests skip a regex pass over text that cannot match (most text).
    if "-----BEGIN " in text:
        text = _PEM.sub(replacement, text)
    if "://" in text:
        text = _URL_PASSWORD.sub(lambda m: f"://{m.group(1)}:{replacement}@", text)
    if "eyJ" in text:
        text = _JWT.sub(replacement, text)
    text = _KEY_SHAPES.sub(lambda m: _shape_replacement(m, replacement), text)
    text = _HEX_RUN.sub(lambda m: _hex_replacement(m, replacement), text)
    return _BEARER.sub(lambda m: f"{m.group(0)[:6]} {replacement}", text)


def has_secret_shape(text: str) -> bool:
    """True when `text` holds anything `redact_shapes` replaces, or a long mixed letters-and-digits run
    (the kernel's screen hides such a value whole)."""
    return redact_shapes(text, "\x00") != text or bool(_MIXED_RUN.search(text))
