"""What counts as active content in a display of generated code, and the inert bundle shown instead."""

from __future__ import annotations

import pandas as pd
import pytest

from twnb.kernel.capture.active_content import SOURCE_CHARS, active_content_in, active_markup, inert_bundle


@pytest.mark.parametrize(
    ("markup", "found"),
    [
        ("<script>alert(1)</script>", "the element <script>"),
        ("<SCRIPT src='x.js'></SCRIPT>", "the element <script>"),
        ("<img src=x onerror=alert(1)>", "an event handler (onerror on <img>)"),
        ("<div onmouseover='steal()'>hover</div>", "an event handler (onmouseover on <div>)"),
        ("<a href=' jav&#x09;ascript:alert(1)'>x</a>", "a script URL (href on <a>)"),
        ("<a href='JavaScript:alert(1)'>x</a>", "a script URL (href on <a>)"),
        ("<iframe src='https://example.com'></iframe>", "the element <iframe>"),
        (
            "<svg><animate attributeName='href' to='javascript:alert(1)'/></svg>",
            "a script URL (to on <animate>)",
        ),
        ("<object data='data:text/html;base64,PHNjcmlwdD4='></object>", "the element <object>"),
        ("<meta http-equiv='refresh' content='0;url=https://example.com'>", "a <meta> refresh"),
        ("**bold** and <img src=x onerror=alert(1)>", "an event handler (onerror on <img>)"),
    ],
)
def test_markup_that_can_run_script_is_found(markup, found):
    assert active_markup(markup) == found


@pytest.mark.parametrize(
    "markup",
    [
        pd.DataFrame({"a": [1, 2], "b": ["x", "<y>"]})._repr_html_(),
        pd.DataFrame({"a": [1.5, 2.5]}).style.background_gradient().to_html(),
        "<b>bold</b> <a href='https://example.com'>a link</a> <img src='data:image/png;base64,iVBO'>",
        "A plain sentence with 2 < 3 and no tags.",
    ],
    ids=["dataframe", "styler", "links-and-images", "text"],
)
def test_tables_styles_links_and_images_are_not_active(markup):
    assert active_markup(markup) == ""


def test_a_javascript_output_becomes_its_source_as_text_with_one_line_why():
    bundle = {
        "application/javascript": "alert(document.cookie)",
        "text/plain": "<IPython.core.display.Javascript object>",
    }
    kept, line = inert_bundle(bundle)
    assert set(kept) == {"text/plain"}
    first, *rest = kept["text/plain"].splitlines()
    assert first == line and "JavaScript (application/javascript)" in line and "allow_active_output" in line
    assert rest == ["alert(document.cookie)"]


def test_what_else_the_bundle_holds_stays_and_only_the_active_part_goes():
    bundle = {
        "text/html": "<div id='plot'></div><script>require(['plotly'])</script>",
        "application/vnd.plotly.v1+json": {"data": [], "layout": {}},
        "text/plain": "Figure()",
    }
    kept, line = inert_bundle(bundle)
    assert kept == {"application/vnd.plotly.v1+json": {"data": [], "layout": {}}, "text/plain": "Figure()"}
    assert "text/html with the element <script>" in line


def test_a_long_source_is_cut_and_says_how_much_is_left_out():
    kept, _ = inert_bundle({"text/html": "<script>" + "x" * (SOURCE_CHARS * 2) + "</script>"})
    assert kept["text/plain"].endswith(f"[... {SOURCE_CHARS * 2 + 17 - SOURCE_CHARS:,} more characters]")


def test_a_bundle_without_active_content_is_returned_as_it_is():
    bundle = {"text/html": "<table><tr><td>1</td></tr></table>", "text/plain": "1"}
    kept, line = inert_bundle(bundle)
    assert kept is bundle and line == ""


def test_code_in_markdown_is_shown_as_code_and_not_active():
    markdown = "Run this:\n\n```html\n<script>alert(1)</script>\n```\n\nor `<img onerror=x>` inline."
    assert active_content_in("text/markdown", markdown) == ""
    assert active_content_in("text/markdown", markdown + " <img src=x onerror=alert(1)>") != ""
