"""Code as HTML highlighted by Pygments CSS classes (`<div class="highlight">`), which JupyterLab,
Notebook 7, nbviewer and VS Code colour from their own theme, light or dark, even in an untrusted
notebook, where inline colours and style blocks would be stripped or fixed to one theme.

Pygments is imported when code is first shown (a Round's end), never when the extension loads.
"""

from __future__ import annotations

import functools
import html
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pygments.formatters import HtmlFormatter
    from pygments.lexer import Lexer

# A monospace font named inline, with plain values: nbconvert's and nbviewer's pages, VS Code and
# GitHub draw an output's HTML in the page's proportional font otherwise (indentation and traceback
# columns lost), and untrusted JupyterLab strips `var(--jp-code-font-family)`. No `<style>` block.
# Each system's own code font first (macOS, Windows), else the browser's monospace (on Linux,
# fontconfig's: DejaVu Sans Mono or Liberation Mono); it is repeated on every code element, so short.
MONOSPACE = "font-family:ui-monospace,Menlo,Consolas,monospace"
_PRE_STYLE = f"{MONOSPACE};font-size:90%;white-space:pre-wrap;word-break:break-word;margin:0"
# A faint grey panel sets code apart on light and dark backgrounds alike.
_CODE_BOX = "background:rgba(128,128,128,0.1);border-radius:4px;padding:4px 8px;margin:4px 0"


# Tokens no theme colours: plain names (`n`: no rule in Pygments' styles nor in jupyterlab_pygments)
# and whitespace (`w`), and the empty span Pygments opens each block with. Their text stays, unwrapped:
# they were a third of a block's bytes.
_UNCOLOURED = re.compile(r'<span class="[nw]">([^<]*)</span>|<span></span>')
# A token's class unquoted (`<span class=kn>`): the same element to every HTML parser (a class of
# letters and digits needs no quotes), and 4 bytes less per token in the notebook's JSON (`\"` twice);
# the tokens are most of a block's bytes.
_QUOTED_CLASS = re.compile(r'<span class="([A-Za-z0-9]+)">')


# A Round's views show each piece of code twice (its block in the main view, its post in the
# conversation beneath), and highlighting is most of what drawing a Round costs.
@functools.lru_cache(maxsize=16)
def code_html(code: str, language: str = "python") -> str:
    """`code` highlighted for `language` (Python when empty); unknown languages as plain `<pre>`."""
    # lazy: pygments (~10 ms, 30 modules) loads with the first code shown, not with the layer
    from pygments import highlight
    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    if language.lower() in ("", "python", "py", "python3", "ipython"):
        lexer = _python_lexer()
    else:
        try:
            lexer = get_lexer_by_name(language)
        except ClassNotFound:
            return preformatted_html(code)
    # Pygments escapes the code itself; the classes carry the colours, no stylesheet is shipped.
    return _QUOTED_CLASS.sub(r"<span class=\1>", _UNCOLOURED.sub(r"\1", highlight(code, lexer, _formatter())))


# One of each, made at the first code shown: a formatter builds its whole style table when made, which
# cost more than highlighting a block (an export highlights a few blocks per Round); neither keeps
# anything between blocks.
@functools.cache
def _formatter() -> HtmlFormatter[str]:
    from pygments.formatters import HtmlFormatter

    formatter: HtmlFormatter[str] = HtmlFormatter(
        cssclass="highlight", cssstyles=_CODE_BOX, prestyles=_PRE_STYLE
    )
    return formatter


@functools.cache
def _python_lexer() -> Lexer:
    from pygments.lexers.python import PythonLexer

    return PythonLexer()


def preformatted_html(text: str, *, style: str = "") -> str:
    """Text as it is, wrapped at the box's width (results, tracebacks)."""
    return f'<pre style="{_PRE_STYLE}{";" + style if style else ""}">{html.escape(text, quote=False)}</pre>'
