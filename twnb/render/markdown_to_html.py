"""Untrusted Markdown (LLM messages, plan steps) rendered to HTML that holds nothing the text did not say.

A small renderer for what replies use: paragraphs, headings, bullet and numbered lists, fenced code
(highlighted), inline code, bold, italics and links. Every character of the text is escaped first and
only tags written here are added, so raw HTML in a reply shows as text; links keep only safe targets
(relative paths and http(s), see `safe_link_target`); images stay text (they would load on render).
"""

from __future__ import annotations

import html
import re

from twnb.render.highlighted_code import MONOSPACE, code_html
from twnb.render.links import safe_link_target
from twnb.render.markdown_escape import CODE_SPAN, LINK_OR_CODE_SPAN, split_fences

_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*")
_ITALIC = re.compile(r"(?<![*\w])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![*\w])")
_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)\s*#*\s*$")
_BULLET = re.compile(r"^ {0,3}[-*+]\s+(.*)$")
_NUMBERED = re.compile(r"^ {0,3}(\d{1,9})[.)]\s+(.*)$")
_TABLE_ROW = re.compile(r"^ {0,3}\|.*\|\s*$")
_TABLE_RULE = re.compile(r"^ {0,3}\|(\s*:?-+:?\s*\|)+\s*$")
_CELL = "border:1px solid rgba(128,128,128,0.45);padding:2px 8px"
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
            code = html.escape(match.group("code").strip(), quote=False)
            parts.append(f'<code style="{MONOSPACE}">{code}</code>')
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
    for block, is_table in _split_tables(text.split("\n")):
        out.append(_table_html(block) if is_table else _lines_html(block))
    return "".join(out)


def _split_tables(lines: list[str]) -> list[tuple[list[str], bool]]:
    """Runs of lines, and pipe tables (a header row, a `|---|` rule, rows) between them."""
    blocks: list[tuple[list[str], bool]] = []
    index, start = 0, 0
    while index < len(lines):
        if _TABLE_ROW.match(lines[index]) and index + 1 < len(lines) and _TABLE_RULE.match(lines[index + 1]):
            end = index + 2
            while end < len(lines) and _TABLE_ROW.match(lines[end]):
                end += 1
            blocks += [(lines[start:index], False), (lines[index:end], True)]
            index = start = end
        else:
            index += 1
    blocks.append((lines[start:], False))
    return [(block, is_table) for block, is_table in blocks if block]


def _table_html(lines: list[str]) -> str:
    def cells(line: str) -> list[str]:
        return [cell.strip() for cell in line.strip().strip("|").split("|")]

    head = "".join(f'<th style="{_CELL}">{inline_html(cell)}</th>' for cell in cells(lines[0]))
    rows = "".join(
        "<tr>" + "".join(f'<td style="{_CELL}">{inline_html(cell)}</td>' for cell in cells(line)) + "</tr>"
        for line in lines[2:]
    )
    return f'<table style="border-collapse:collapse;margin:4px 0"><tr>{head}</tr>{rows}</table>'


def _lines_html(lines: list[str]) -> str:
    out: list[str] = []
    paragraph: list[str] = []
    items: list[str] = []
    list_tag = ""

    def close_paragraph() -> None:
        if paragraph:
            # Lines of a paragraph join as Markdown joins them (a reply wrapped at 80 columns reads
            # as one paragraph); two trailing spaces or a backslash keep a line break.
            out.append('<p style="margin:4px 0">' + "".join(paragraph) + "</p>")
            paragraph.clear()

    def close_list() -> None:
        nonlocal list_tag
        if items:
            out.append(
                f'<{list_tag} style="margin:4px 0;padding-left:22px">' + "".join(items) + f"</{list_tag}>"
            )
            items.clear()
        list_tag = ""

    for line in lines:
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
            hard_break = line.endswith(("  ", "\\"))
            text = inline_html(line.strip().removesuffix("\\").rstrip())
            if paragraph and not paragraph[-1].endswith("<br>"):
                text = " " + text
            paragraph.append(text + ("<br>" if hard_break else ""))
    close_paragraph()
    close_list()
    return "".join(out)
