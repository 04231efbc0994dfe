"""Untrusted Markdown to HTML: what replies use renders, nothing the text did not say gets in."""

from __future__ import annotations

import re

import pytest

from twnb.render.markdown_to_html import inline_html, markdown_html


def _bare(html: str) -> str:
    return re.sub(r"<(\w+) [^>]*>", r"<\1>", html)  # tags without their styles


def test_lines_of_a_paragraph_join_and_blank_lines_separate_paragraphs():
    assert _bare(markdown_html("one\ntwo\n\nthree")) == "<p>one two</p><p>three</p>"


def test_bullet_and_numbered_lists_become_lists():
    assert _bare(markdown_html("- a\n- b\n\n1. c")) == "<ul><li>a</li><li>b</li></ul><ol><li>c</li></ol>"


def test_a_pipe_table_becomes_a_table_with_escaped_cells():
    html = _bare(markdown_html("| store | revenue |\n|---|---:|\n| `Midtown` | <b>1153.5</b> |"))
    assert html == (
        "<table><tr><th>store</th><th>revenue</th></tr>"
        "<tr><td><code>Midtown</code></td><td>&lt;b&gt;1153.5&lt;/b&gt;</td></tr></table>"
    )


def test_fenced_python_is_highlighted_with_pygments_classes():
    html = markdown_html("```python\nimport os\n```")
    assert '<div class="highlight"' in html
    assert "<span class=kn>import</span>" in html


@pytest.mark.parametrize(
    "text",
    [
        "<script>alert(1)</script>",
        "<img src=x onerror=alert(1)>",
        "[x](javascript:alert(1))",
        "![pixel](https://tracker.example/p.png)",
        "**<iframe src=//evil>**",
        "`</code><script>alert(1)</script>`",
    ],
)
def test_hostile_markdown_adds_no_element_but_our_own(text):
    tags = set(re.findall(r"<(\w+)", markdown_html(text)))
    assert tags <= {"p", "b", "i", "code", "a"}
    assert 'href="javascript' not in markdown_html(text)


def test_bold_italics_and_code_spans_render_inline():
    shown = inline_html("**bold**, *it* and `x_y`")
    assert re.sub(r"<code [^>]*>", "<code>", shown) == "<b>bold</b>, <i>it</i> and <code>x_y</code>"
    assert "monospace" in shown  # named inline: pages that show the HTML draw it in their own font


def test_snake_case_and_arithmetic_stars_stay_text():
    assert inline_html("use total_sales_by_region and 2 * 3 * 4") == "use total_sales_by_region and 2 * 3 * 4"
