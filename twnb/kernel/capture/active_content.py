"""No active content from generated code: JavaScript, and HTML that can run script, become text.

In a trusted notebook (one JupyterLab saved itself) a display's `application/javascript` runs in the
page, and so does HTML carrying a `<script>`, an event handler (`<img onerror=...>`), a `javascript:`
link or an `<iframe>`; Markdown output is HTML too. Generated code can make any of these
(`display(Javascript(...))`, `display(HTML('<script>...'))`, a library's HTML repr). So before a
display of generated code is shown or recorded, `inert_bundle` takes those representations out: what
else the bundle has (an image, a plotly or vega spec, plain text) stays, and when nothing else would
show, its text form says in one line why and shows the source as text. DataFrame and Styler HTML (a
table and a `<style>` block) is not active and passes unchanged.

The `allow_active_output` setting lets the notebook show it as it was; what twnb records (the
Round's outputs, the saved conversation, exported notebooks) is the inert bundle either way.
"""

from __future__ import annotations

import html.parser
import re
from typing import Any

SCRIPT_TYPES = frozenset(
    {"application/javascript", "text/javascript", "application/x-javascript", "application/ecmascript"}
)
MARKUP_TYPES = ("text/html", "text/markdown")  # Markdown output is rendered to HTML in the page
SOURCE_CHARS = 2000  # of an active output's source shown as text

# Elements that run script or load a page of their own.
_ACTIVE_TAGS = frozenset(
    {"script", "iframe", "frame", "frameset", "object", "embed", "applet", "base", "portal", "noscript"}
)
_URL_ATTRIBUTES = frozenset(
    {
        "href",
        "src",
        "action",
        "formaction",
        "xlink:href",
        "data",
        "to",
        "from",
        "values",
        "background",
        "poster",
    }
)
# A URL that runs script when followed (whitespace and control characters are ignored by browsers).
_SCRIPT_URL = re.compile(
    r"^\s*(?:java|vb)script:|^\s*data:\s*(?:text/html|application/xhtml|image/svg)", re.I
)
_CONTROL = re.compile(r"[\x00-\x20]")
HINT = "%config TaskWeaverMagics.allow_active_output = True shows such output as it is"


class _ActiveMarkup(html.parser.HTMLParser):
    """Finds the first thing in HTML that can run script: its description, or "" when none."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.found = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.found:
            return
        if tag in _ACTIVE_TAGS:
            self.found = f"the element <{tag}>"
            return
        for name, value in attrs:
            if name.startswith("on"):
                self.found = f"an event handler ({name} on <{tag}>)"
                return
            if name == "srcdoc" or (
                name in _URL_ATTRIBUTES and value and _SCRIPT_URL.match(_CONTROL.sub("", value))
            ):
                self.found = f"a script URL ({name} on <{tag}>)"
                return
        if tag == "meta" and any(n == "http-equiv" and (v or "").lower() == "refresh" for n, v in attrs):
            self.found = "a <meta> refresh"
        elif tag == "link" and any(
            n == "rel" and (v or "").lower() in ("import", "preload", "modulepreload") for n, v in attrs
        ):
            self.found = "a <link> that loads script"

    handle_startendtag = handle_starttag


def active_markup(text: str) -> str:
    """What in `text` (HTML, or Markdown that may hold HTML) can run script: "" when nothing."""
    if "<" not in text:
        return ""
    parser = _ActiveMarkup()
    try:
        parser.feed(text)
        parser.close()
    except Exception:  # HTMLParser is lenient; should it give up, the markup is not trusted
        return parser.found or "markup that could not be read"
    return parser.found


# Code in Markdown is shown as code, never as HTML: fenced blocks and inline code spans.
_MARKDOWN_CODE = re.compile(r"^(`{3,}|~{3,}).*?^\1[ \t]*$|`[^`\n]+`", re.M | re.S)


def active_content_in(mime: str, text: str) -> str:
    """What in a `mime` representation can run script ("" when nothing): HTML as it is, Markdown
    without its code (a fenced `<script>` is shown as code)."""
    if mime == "text/markdown":
        text = _MARKDOWN_CODE.sub("", text)
    return active_markup(text)


def inert_bundle(data: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """`data` without its active representations, and one line saying what was taken out and why
    ("" when nothing was: `data` itself is returned)."""
    reasons: list[str] = []
    removed: dict[str, str] = {}
    for mime, value in data.items():
        text = "".join(value) if isinstance(value, list) else value
        if mime in SCRIPT_TYPES:
            reasons.append(f"JavaScript ({mime})")
            removed[mime] = str(text)
        elif mime in MARKUP_TYPES and isinstance(text, str):
            found = active_content_in(mime, text)
            if found:
                reasons.append(f"{mime} with {found}")
                removed[mime] = text
    if not removed:
        return data, ""
    kept = {mime: value for mime, value in data.items() if mime not in removed}
    line = (
        f"twnb: this output of generated code held active content ({'; '.join(reasons)}), which could run "
        f"in the page: it is shown as text ({HINT})."
    )
    if not any(mime != "text/plain" for mime in kept):
        source = next(iter(removed.values()))
        if len(source) > SOURCE_CHARS:
            source = source[:SOURCE_CHARS] + f"\n[... {len(source) - SOURCE_CHARS:,} more characters]"
        plain = kept.get("text/plain")
        plain = "".join(plain) if isinstance(plain, list) else plain
        shown = (
            [line, source]
            if not plain or plain.startswith("<IPython.core.display")
            else [line, plain, source]
        )
        kept["text/plain"] = "\n".join(shown)
    return kept, line
