"""How one secret value is spelled in ordinary output, so each spelling is redacted like the value.

A value is rarely printed as it was stored: ``print(os.environ)`` shows each value's ``repr`` (a ``\\``
doubled), ``json.dumps`` escapes ``"``, a DataFrame's HTML repr escapes ``&`` and ``<``, a URL or a
form body percent-encodes, and a display cuts a long value to a prefix followed by ``...`` or ``…``.
`spellings` gives the whole spellings; `SecretMatcher` (secret_matcher.py) finds them and the cut
ones. A secret the code transforms on purpose (base64, reversed, sliced) is not one of these.
"""

from __future__ import annotations

import html
import json
from urllib.parse import quote, quote_plus

__all__ = ["MIN_TRUNCATED_PREFIX", "spellings"]

# A display's cut (pandas keeps a long cell's first 46 characters, then "..."): a prefix this long or
# longer, directly followed by an ellipsis, is a spelling of its secret. Shorter prefixes are too likely
# to begin ordinary text.
MIN_TRUNCATED_PREFIX = 12


def spellings(secret: str) -> frozenset[str]:
    """`secret` as written and as `repr`, JSON, bytes' repr, HTML (in the escapes html.escape, pandas
    and Jinja use, also around the repr and JSON forms, and with tqdm's figure spaces) and
    percent-encoding print it."""
    escaped = {
        secret,
        secret.replace(" ", "\u2007"),  # tqdm.notebook's bar pads with figure spaces, then HTML-escapes
        repr(secret)[1:-1],  # str(), repr() of a dict or list holding it: print(os.environ)
        json.dumps(secret)[1:-1],
        json.dumps(secret, ensure_ascii=False)[1:-1],
        repr(_utf8(secret))[2:-1],
    }
    found = set(escaped)
    for text in escaped:
        full = html.escape(text)  # &amp; &lt; &gt; &quot; &#x27;
        jinja = full.replace("&quot;", "&#34;").replace("&#x27;", "&#39;")
        found |= {full, html.escape(text, quote=False), jinja}
    raw = _utf8(secret)
    found |= {quote(raw, safe=""), quote(raw), quote_plus(raw, safe=""), quote_plus(raw)}
    return frozenset(text for text in found if text)


def _utf8(secret: str) -> bytes:
    # The environment decodes bytes that are not UTF-8 as lone surrogates (surrogateescape): their
    # spellings are those of the original bytes.
    try:
        return secret.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return secret.encode("utf-8", "backslashreplace")
