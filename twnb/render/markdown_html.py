"""Untrusted Markdown (LLM messages, plan steps) rendered to HTML that holds nothing the text did not say.

A small renderer for what replies use: paragraphs, headings, bullet and numbered lists, fenced code
(highlighted), inline code, bold, italics and links. Every character of the text is escaped first and
only tags written here are added, so raw HTML in a reply shows as text; links keep only safe targets
(relative paths and http(s), see `safe_link_target`); images stay text (they would load on render).
"""

from __future__ import annotations

import html
import re

from twnb.render.code_html import code_html
from twnb.render.links import safe_link_target
from twnb.render.markdown_escape import CODE_SPAN, LINK_OR_CODE_SPAN, split_fences

_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_ITALIC = re.compile(r"(?<![*\w])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![*\w])")
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^ {0,3}[-*+]\s+(.*)$")
_NUMBERED = re.compile(r"^ {0,3}(\d{1,9})[.)]\s+(.*)$")
LINK_STYLE = "color:#2f81f7;text-decoration:underline"  # readable on light and dark backgrounds


def markdown_html(text: str) -> str:
    """Block Markdown as HTML (see the module docstring for what is rendered)."""
    parts: list[str] = []
    for block, language in split_fences(text):
        if language is None:
            parts.append(_blocks_html(block))
        else:
            parts.append(code_html(block, language))
    return "".join(parts)


def inline_html(line: str, *, links: bool = True) -> str:
    """One line of Markdown as inline HTML: code spans, safe links, bold and italics."""
    token = LINK_OR_CODE_SPAN if links else CODE_SPAN
    parts, position = [], 0
    for match in token.finditer(line):
        parts.append(_emphasis(html.escape(line[position : match.start()], quote=False)))
        if match.group("code") is not None:
            parts.append(f"<code>{html.escape(match.group('code').strip(), quote=False)}</code>")
        else:
            parts.append(_link(match.group(0), match.group("label"), match.group("target")))
        position = match.end()
    parts.append(_emphasis(html.escape(line[position:], quote=False)))
    return "".join(parts)


def _emphasis(escaped: str) -> str:
    # On escaped text: the patterns add only <b>/<i> around text that holds no tags.
    return _ITALIC.sub(r"<i>\1</i>", _BOLD.sub(r"<b>\1</b>", escaped))


def _link(whole: str, label: str, target: str) -> str:
    url = safe_link_target(target)
    if url is None:  # an unsafe target: the whole link stays text
        return _emphasis(html.escape(whole, quote=False))
    return f'<a href="{html.escape(url)}" style="{LINK_STYLE}">{inline_html(label, links=False)}</a>'


def _blocks_html(text: str) -> str:
    out: list[str] = []
    paragraph: list[str] = []
    items: list[str] = []
    list_tag = ""

    def close_paragraph() -> None:
        if paragraph:
            out.append('<p style="margin:4px 0">' + "<br>".join(paragraph) + "</p>")
            paragraph.clear()

    def close_list() -> None:
        nonlocal list_tag
        if items:
            out.append(
                f'<{list_tag} style="margin:4px 0;padding-left:22px">' + "".join(items) + f"</{list_tag}>"
            )
            items.clear()
        list_tag = ""

    for line in text.split("\n"):
        heading, bullet, numbered = _HEADING.match(line), _BULLET.match(line), _NUMBERED.match(line)
        if not line.strip():
            close_paragraph()
            close_list()
        elif heading:
            close_paragraph()
            close_list()
            out.append(f'<p style="margin:6px 0 2px"><b>{inline_html(heading.group(2))}</b></p>')
        elif bullet or numbered:
            close_paragraph()
            tag = "ul" if bullet else "ol"
            if tag != list_tag:
                close_list()
                list_tag = tag
            body = bullet.group(1) if bullet else numbered.group(2)  # type: ignore[union-attr]
            items.append(f"<li>{inline_html(body)}</li>")
        elif items and line.startswith((" ", "\t")):
            items[-1] = items[-1][: -len("</li>")] + " " + inline_html(line.strip()) + "</li>"
        else:
            close_list()
            paragraph.append(inline_html(line.strip()))
    close_paragraph()
    close_list()
    return "".join(out)
