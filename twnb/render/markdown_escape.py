"""Untrusted text (LLM replies, results) as Markdown that renders as the same text: no raw HTML, and no
links or images except safe links when asked for."""

from __future__ import annotations

import re
from collections.abc import Mapping

from twnb.render.links import safe_link_target

# Characters that build Markdown structure, written as character references: CommonMark never reads a
# reference as structure, so `![x](https://evil/?q=...)` (an image that would load, and leak, on
# render) and `[click](javascript:...)` stay text. Backslash escapes would not do: a backslash in the
# text could cancel them. Tables for `str.translate` (escape_chars), which replaces in one pass.
_INLINE_ESCAPES = str.maketrans(
    {"&": "&amp;", "<": "&lt;", ">": "&gt;", "[": "&#91;", "]": "&#93;", "\\": "&#92;"}
)
_CODE_ESCAPES = {**_INLINE_ESCAPES, **str.maketrans({"*": "&#42;", "_": "&#95;", "`": "&#96;"})}
_LABEL_ESCAPES = {**_INLINE_ESCAPES, ord("`"): "&#96;"}
_CODE_SPAN_PATTERN = r"(?<!`)(?P<ticks>`+)(?!`)(?P<code>.+?)(?<!`)(?P=ticks)(?!`)"
CODE_SPAN = re.compile(_CODE_SPAN_PATTERN)
# `[label](target)`, not after `!` (an image loads on render) nor `]` (a reference link); the label
# may hold code spans but no brackets, the target no spaces or parentheses (so no title, no nesting).
# Tried before a code span at each position, as a renderer would see the link first there.
LINK_OR_CODE_SPAN = re.compile(
    r"(?<![!\]])\[(?P<label>(?:[^\[\]`\n]|`[^`\n]+`)+)\]\((?P<target>[^\s()<>]+)\)|" + _CODE_SPAN_PATTERN
)
FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)")


def split_fences(text: str) -> list[tuple[str, str | None]]:
    """`text` as (text, None) runs of lines and (code, language) fenced blocks, in order."""
    lines = text.split("\n")
    blocks: list[tuple[str, str | None]] = []
    plain: list[str] = []
    index = 0
    while index < len(lines):
        opened = FENCE_OPEN.match(lines[index])
        if opened is None:
            plain.append(lines[index])
            index += 1
            continue
        if plain:
            blocks.append(("\n".join(plain), None))
            plain = []
        marker = opened.group(1)
        closing = re.compile(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}\s*$")
        end = next((i for i in range(index + 1, len(lines)) if closing.match(lines[i])), len(lines))
        blocks.append(("\n".join(lines[index + 1 : end]), opened.group(2)))
        index = end + 1
    if plain:
        blocks.append(("\n".join(plain), None))
    return blocks


def escape_markdown(text: str, *, links: bool = False) -> str:
    """Untrusted text as Markdown that renders as the same text: no raw HTML, links or images
    (with `links`, safe links stay links: see `escape_markdown_inline`).

    Fenced code blocks are re-fenced (their content is literal); inline code spans become `<code>`
    with escaped content. If this reading of the text differs from a renderer's, the result is only
    less pretty, never live: everything outside the fences we write ourselves is escaped.
    """
    out: list[str] = []
    for block, language in split_fences(text):
        if language is None:
            out += [escape_markdown_inline(line, links=links) for line in block.split("\n")]
        else:
            out += fence(block, language)
    return "\n".join(out)


def escape_markdown_inline(line: str, *, links: bool = False) -> str:
    """One line of untrusted text as inline Markdown (no fences: for table cells, list items).

    With `links`, a Markdown link whose target is safe (see `safe_link_target`) stays a link, as
    TaskWeaver's Planner is told to give files: `[unusual_weeks.csv](unusual_weeks.csv)`. Images,
    reference links and autolinks stay text either way.
    """
    token = LINK_OR_CODE_SPAN if links else CODE_SPAN
    parts, position = [], 0
    for match in token.finditer(line):
        parts.append(escape_chars(line[position : match.start()], _INLINE_ESCAPES))
        if match.group("code") is not None:
            parts.append(_code_span(match.group("code")))
        else:
            parts.append(_link(match.group(0), match.group("label"), match.group("target")))
        position = match.end()
    parts.append(escape_chars(line[position:], _INLINE_ESCAPES))
    return "".join(parts)


def _code_span(code: str) -> str:
    return "<code>" + escape_chars(code, _CODE_ESCAPES) + "</code>"


def _link(whole: str, label: str, target: str) -> str:
    url = safe_link_target(target)
    if url is None:  # an unsafe target: the whole link stays text
        return escape_markdown_inline(whole)
    # The label is text (code spans allowed); a backtick left over could open a span across the link.
    text = "".join(
        _code_span(piece[1:-1]) if piece.startswith("`") and piece.endswith("`") and len(piece) > 1
        else escape_chars(piece, _LABEL_ESCAPES)
        for piece in re.split(r"(`[^`]+`)", label)
    )  # fmt: skip
    return f"[{text}]({url})"


def escape_chars(text: str, table: Mapping[int, str]) -> str:
    """Each character of `text` that `table` (made by `str.maketrans`) names, replaced."""
    return text.translate(table)


def fence(text: str, language: str) -> list[str]:
    """`text` as a fenced block whose fence is longer than any backtick run inside (so code cannot
    close it early)."""
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    marks = "`" * max(3, longest + 1)
    return [f"{marks}{language}", text, marks]
