"""Readable names for the files twnb saves for the user: the Round number and a slug of the request.

"Plot revenue by month" in the second Round gives `round-2-plot-revenue-by-month`; the executor adds
the extension, and `-2`, `-3` when the name is taken (a second figure, a re-run notebook).
"""

from __future__ import annotations

import re
import unicodedata

SLUG_WORDS = 6
SLUG_CHARS = 40
# Words that make a name longer without telling two requests apart.
_FILLER_WORDS = (
    "a an the and or of to in on for with me my our us please can could would you i it its is are be "
    "this that these those"
)
_FILLER = frozenset(_FILLER_WORDS.split())


def request_slug(request: str) -> str:
    """A short lowercase ASCII slug of the request's first words ("" when nothing is left)."""
    ascii_text = unicodedata.normalize("NFKD", request).encode("ascii", "ignore").decode("ascii")
    words = [w for w in re.findall(r"[a-z0-9]+", ascii_text.lower()) if w not in _FILLER]
    slug = ""
    for word in words[:SLUG_WORDS]:
        longer = f"{slug}-{word}" if slug else word
        if len(longer) > SLUG_CHARS:
            break
        slug = longer
    return slug or (words[0][:SLUG_CHARS] if words else "")


def artifact_stem(round_number: int, request: str) -> str:
    """`round-N-slug` (or `round-N` for a request with no usable words)."""
    slug = request_slug(request)
    return f"round-{round_number}-{slug}" if slug else f"round-{round_number}"
