"""Text as users see it: prompt delimiters removed, terminal control characters dropped, long text clipped.

One way to clip text for every view of a Round (the widget, HTML, Markdown and plain text).
"""

from __future__ import annotations

import re

from twnb.base import clip
from twnb.memory import PromptUtil


def clean_text(text: object) -> str:
    """Text as users see it: TaskWeaver's prompt delimiters removed."""
    return PromptUtil.remove_all_delimiters(text if isinstance(text, str) else as_text(text))


_CONTROL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, screen clears
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: titles, hyperlinks, clipboard writes
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
)


def plain_text(text: object) -> str:
    """Text for terminals: delimiters removed, and no control characters (an ANSI escape from the LLM
    or a traceback could recolour, rewrite or retitle the user's terminal)."""
    return _CONTROL.sub("", clean_text(text).replace("\r\n", "\n"))


def clip_middle(text: str, limit: int) -> str:
    """A long result cut in the middle: its start and its end (where errors and answers are) stay."""
    return clip(text, limit, keep="ends")


def shorten(text: str, limit: int) -> str:
    """At most `limit` characters, an ellipsis marking a cut (one-line previews: headers, tables)."""
    return clip(text, limit)


def as_text(value: object) -> str:
    """An attachment's content as one string (a list, such as artifact paths, one item a line)."""
    if isinstance(value, (list, tuple)):
        return "\n".join(str(v) for v in value)
    return "" if value is None else str(value)
