"""Code highlighted with Pygments classes, written short: the tokens' classes unquoted, the same
elements and classes to an HTML parser as Pygments' own markup, and each character of the code kept."""

from __future__ import annotations

from html.parser import HTMLParser

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers.python import PythonLexer

from twnb.render.highlighted_code import code_html

CODE = 'import os\nfor name in os.listdir("."):\n    print(f"{name!r}: <b>{len(name)}</b>")  # 1 < 2\n'


class _Tokens(HTMLParser):
    """Each coloured token as the browser reads it: (class, its text)."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[tuple[str, str]] = []
        self._open: list[str] = []
        self.text = ""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "span":
            self._open.append(dict(attrs).get("class") or "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "span":
            self._open.pop()

    def handle_data(self, data: str) -> None:
        self.text += data
        if self._open and self._open[-1] not in ("", "n", "w"):
            self.found.append((self._open[-1], data))


def _tokens(html: str) -> _Tokens:
    parser = _Tokens()
    parser.feed(html)
    return parser


def test_token_classes_are_written_unquoted():
    html = code_html(CODE)
    assert "<span class=kn>import</span>" in html
    assert '<span class="' not in html


def test_a_parser_reads_the_same_tokens_and_text_as_from_pygments_own_markup():
    ours, pygments = _tokens(code_html(CODE)), _tokens(highlight(CODE, PythonLexer(), HtmlFormatter()))
    assert ours.found == pygments.found
    assert ours.text == pygments.text and ours.text.strip("\n") == CODE.strip("\n")
