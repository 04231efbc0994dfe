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
- it is the password of a URL with user info (``postgresql://user:pw@host/db``), with or without the
  scheme (``netloc='user:pw@host'`` in ``urlparse``'s repr), or of a URL in the environment (whatever
  the variable's name; from 8 characters up, percent-decoded);
- it is the quoted value of a password-, secret-, token- or key-named field in a repr or JSON
  (``{'password': 'pw'}``, SQLAlchemy's ``URL._asdict()``, ``password='pw'``);
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
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

if TYPE_CHECKING:
    from twnb.config.literal_scan import LiteralScan


__all__ = [
    "MIN_KEY_LENGTH",
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "has_secret_shape",
    "is_credential_field",
    "is_credential_variable",
    "is_secret_name",
    "mentions_secret_name",
    "redact_shapes",
    "secret_environment_values",
]

REDACTED = "[redacted]"
MIN_SECRET_LENGTH = 8  # environment and .env values
MIN_KEY_LENGTH = 4  # the configured API key: a short key for a local server is still the key


def _lazy(pattern: str, flags: int = 0) -> Callable[[], re.Pattern[str]]:
    """A regex compiled at its first use. `%load_ext twnb` imports this module for the name rule alone
    (the notebook's secrets from its environment); compiling the others took a millisecond of each load."""
    return functools.cache(lambda: re.compile(pattern, flags))


def _lazy_scan(*words: str) -> Callable[[], LiteralScan]:
    """A LiteralScan made at its first use, for the same reason: importing ahocorasick_rs took ~1.3 ms."""

    @functools.cache
    def make() -> LiteralScan:
        from twnb.config.literal_scan import LiteralScan  # lazy: ahocorasick_rs (~1.4 ms), not at %load_ext

        return LiteralScan(words)

    return make


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
_IDENTIFIER = _lazy(r"[A-Za-z][A-Za-z0-9_\-]*")

# Field (and header) names whose whole value is a credential, whatever it looks like. Narrower than the
# name rule on purpose: "sort_key" or "max_tokens" in saved data must survive.
_SECRET_FIELD = _lazy(
    r"^(?:proxy-)?authorization$|(?:^|[_\-])(?:api[_\-]?key|access[_\-]?key|token|secret|password|passwd)$",
    re.IGNORECASE,
)

# Each key shape begins with one of these literals. They are found in one pass (literal_scan.py) and the
# shapes matched only where one begins after a word's end: scanning the text with the regex tried it at
# every position, ~8 ms per MB (a leading lookbehind in the regex, 10x more).
_KEY_SHAPE_STARTS = (
    "sk-", "ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_", "AKIA", "ASIA", "hf_", "AIza", "xox",
)  # fmt: skip
_KEY_SHAPE_MARKERS = _lazy_scan(*_KEY_SHAPE_STARTS)
_KEY_SHAPES = _lazy(
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
_JWT = _lazy(r"eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]*")
# Azure OpenAI / Cognitive Services keys: exactly 32 hex digits. Leftmost-longest matching of a run
# means a match never starts inside a longer run; its length is checked in _hex_replacement.
_HEX_RUN = _lazy(r"[0-9a-fA-F]{32,}")
# Keep the word "Bearer" so the text still reads; drop what follows.
_BEARER = _lazy(r"(?i:bearer)\s+[A-Za-z0-9._~+/=\-]{8,}")
# The password of user info: `user:password@host`, in a URL or a bare netloc. Starting at ":" keeps the
# scan fast; what comes before is checked in _credential_replacement. A raw "@" in the password (an
# unencoded URL) is kept in it: the last "@" before the host ends it.
_CREDENTIAL_AT = _lazy(r":([^\s/'\"]+)@(?=[A-Za-z0-9\[])")
_USER_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._~%+-!$&*")
# Where user info may begin: the text's start, "//" (the user may then be empty), a space, a quote, or
# what opens a value in code and reprs.
_BEFORE_USER = frozenset(" \t\n\r'\"/(=,[{<;`")
# A quoted value after a credential-named field, as reprs and JSON write it: `'password': 'pw'`,
# `password='pw'`, `"api_key": "..."`. Starting at the separator keeps the scan fast (a leading
# case-blind alternation of names measured 10x slower); the name before it is checked in
# _field_replacement.
_FIELD_VALUE = _lazy(r"""[:=][ \t]*(?:'((?:[^'\\\n]|\\.)+)'|"((?:[^"\\\n]|\\.)+)")""")
_FIELD_NAME = _lazy(r"(?i:passw(?:or)?d|secret|token|api[_\-]?key|access[_\-]?key|authorization)$")
_NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
# A PEM private-key block, up to its END line, or to the end of the text when the END was cut off.
_PEM = _lazy(
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----.*?(?:-----END [A-Z0-9 ]*PRIVATE KEY[A-Z ]*-----|\Z)", re.S
)
_WORD_CHAR = _lazy(r"[A-Za-z0-9_]")
# For the kernel's screen only (it hides a whole value, so it can afford a wider net): a long run of
# letters and digits mixing small, capital and digit, as random keys are.
_MIXED_RUN = _lazy(r"\b(?=[A-Za-z0-9]*[0-9])(?=[A-Za-z0-9]*[A-Z])(?=[A-Za-z0-9]*[a-z])[A-Za-z0-9]{32,}\b")


@functools.lru_cache(maxsize=4096)
def is_secret_name(name: str) -> bool:
    """True for variable names whose values are secrets (matched on the name's parts, and on its end for
    the long words)."""
    if name.upper().endswith(_SECRET_ENDINGS):
        return True
    return any(part.upper() in _SECRET_PARTS for part in _NAME_PART.findall(name))


def mentions_secret_name(text: str) -> bool:
    """True when a word in `text` is a secret name (`{'password': 'hunter2'}`: the value beside it)."""
    return any(is_secret_name(word) for word in _IDENTIFIER().findall(text))


def is_credential_field(name: str) -> bool:
    """True for data or header field names whose whole value is a credential."""
    return bool(_SECRET_FIELD().search(name))


def is_credential_variable(name: str, value: str) -> bool:
    """True when a notebook variable holds a credential the redactor should keep for the session: named
    like one (`hf_token`, `db_password`, `api_key`, `dbPassword`; narrower than `is_secret_name`, since
    `key` and `sort_key` are loop and column names in notebooks) and valued like one (8 characters or
    more, not one plain word or number: `for token in text.split()` leaves a word, not a key)."""
    if not (name.upper().endswith(_SECRET_ENDINGS) or is_credential_field(name)):
        return False
    if len(value) < MIN_SECRET_LENGTH or value.isalpha() or value.isdigit():
        return False
    return "-----BEGIN " in value or not any(char.isspace() for char in value)


def secret_environment_values(environ: Mapping[str, str]) -> set[str]:
    """The values of secret-named variables in `environ`, and the passwords of URLs in any variable
    (as written and percent-decoded), from 8 characters up."""
    values = {v for k, v in environ.items() if v and len(v) >= MIN_SECRET_LENGTH and is_secret_name(k)}
    for value in environ.values():
        if "://" in value and "@" in value:
            values |= {p for p in _url_passwords(value) if len(p) >= MIN_SECRET_LENGTH}
    return values


def _url_passwords(value: str) -> set[str]:
    try:
        password = urlsplit(value.strip()).password
    except ValueError:  # not a URL after all (a bad port, brackets)
        return set()
    return {password, unquote(password)} if password else set()


def _credential_replacement(match: re.Match[str], replacement: str) -> str:
    """`:[redacted]@` when what precedes the ":" is a user name that begins where one may begin."""
    text, start = match.string, match.start()
    begin = start
    while begin > 0 and text[begin - 1] in _USER_CHARS:
        begin -= 1
    user = text[begin:start]
    before = text[begin - 1] if begin > 0 else " "
    if before not in _BEFORE_USER or (not user and before != "/") or user.lower() == "mailto":
        return match.group(0)
    if user.isdigit():  # "10:30@home" is a time
        return match.group(0)
    return f":{replacement}@"


def _field_replacement(match: re.Match[str], replacement: str) -> str:
    """The quoted value replaced when the field before the separator is named like a credential
    (`password`, `dbPassword`, `'api_key'`; not `max_tokens`)."""
    text, end = match.string, match.start()
    while end > 0 and text[end - 1] in " \t":
        end -= 1
    if end > 0 and text[end - 1] in "'\"":
        end -= 1
    begin = end
    while begin > 0 and text[begin - 1] in _NAME_CHARS:
        begin -= 1
    if begin == end or not _FIELD_NAME().search(text[begin:end]):
        return match.group(0)
    quoted = 1 if match.group(1) is not None else 2
    return text[match.start() : match.start(quoted)] + replacement + text[match.end(quoted) : match.end()]


def _redact_key_shapes(text: str, replacement: str) -> str:
    """Each key replaced, from the left: a key begins where a word does not go on ("mask-..." holds no
    "sk-" key), so a key right after such a word is still one ("task-sk-proj-...")."""
    pieces: list[str] = []
    done = 0
    # Literals are found leftmost, none overlapping another: one beginning inside another ("AKIAIza")
    # follows a letter, so it never begins a key.
    for _, start, _ in _KEY_SHAPE_MARKERS().find(text):
        if start < done or (start > 0 and _WORD_CHAR().match(text, start - 1)):
            continue
        match = _KEY_SHAPES().match(text, start)
        if match is not None:
            pieces += (text[done:start], replacement)
            done = match.end()
    if not pieces:
        return text
    pieces.append(text[done:])
    return "".join(pieces)


def _hex_replacement(match: re.Match[str], replacement: str) -> str:
    run = match.group(0)
    if len(run) == 32 and (run.islower() or run.isupper() or run.isdigit()):
        return replacement
    return run


def redact_shapes(text: str, replacement: str = REDACTED) -> str:
    """`text` with every secret recognisable by its shape (not by a known value) replaced."""
    # A rule runs only when the text holds what it needs (most text holds none): one literal scan of
    # the text and one of it in small letters (an `in` per literal read the text once for each absent
    # one), a quote, 32 hex digits in a row. Replacing only ever adds `replacement`, so what the text
    # held at first stands for what it holds at each step.
    cues = _CUE_SCAN().words_in(text)
    names = _NAME_CUE_SCAN().words_in(text.lower())
    if "-----BEGIN " in cues:
        text = _PEM().sub(replacement, text)
    if "@" in cues:
        text = _CREDENTIAL_AT().sub(lambda m: _credential_replacement(m, replacement), text)
    if names - {"bearer"} and ("'" in text or '"' in text):
        text = _FIELD_VALUE().sub(lambda m: _field_replacement(m, replacement), text)
    if "eyJ" in cues:
        text = _JWT().sub(replacement, text)
    text = _redact_key_shapes(text, replacement)
    if _may_hold_hex_run(text):
        text = _HEX_RUN().sub(lambda m: _hex_replacement(m, replacement), text)
    if "bearer" in names:
        text = _BEARER().sub(lambda m: f"{m.group(0)[:6]} {replacement}", text)
    return text


_CUE_SCAN = _lazy_scan("-----BEGIN ", "@", "eyJ")
# The field names' parts (_FIELD_NAME) and "bearer", in small letters.
_NAME_CUE_SCAN = _lazy_scan("passw", "secret", "token", "key", "authorization", "bearer")
_HEX_TABLE = bytes.maketrans(
    b"0123456789abcdefABCDEF" + bytes(c for c in range(256) if chr(c) not in "0123456789abcdefABCDEF"),
    b"x" * 22 + b" " * (256 - 22),
)
_HEX_KEY_LENGTH = b"x" * 32


def _may_hold_hex_run(text: str) -> bool:
    """False when `text` has no run of 32 hex digits: a translation of its bytes and a search, ~10x
    cheaper than the regex's attempt at every hex digit."""
    return len(text) >= 32 and _HEX_KEY_LENGTH in text.encode("utf-8", "surrogatepass").translate(_HEX_TABLE)


def has_secret_shape(text: str) -> bool:
    """True when `text` holds anything `redact_shapes` replaces, or a long mixed letters-and-digits run
    (the kernel's screen hides such a value whole)."""
    return redact_shapes(text, "\x00") != text or bool(_MIXED_RUN().search(text))
