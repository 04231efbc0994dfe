"""A streaming message escaped piece by piece reads exactly as the whole message escaped at once."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from twnb.memory import PromptUtil
from twnb.notebook.streamed_markdown import StreamedMarkdown, settled_length
from twnb.render.markdown_escape import escape_markdown
from twnb.render.text import clean_text

START, END = PromptUtil.DELIMITER_TEMPORAL
PIECES = [
    "word ",
    "\n",
    "\n\n",
    "```python\n",
    "```\n",
    "~~~\n",
    "````\n",
    "   ```\n",
    "    ```\n",
    "`code` ",
    "[file](out.csv) ",
    "![img](http://x/y.png) ",
    "<script>x</script>",
    "* item\n",
    "# Title\n",
    START,
    END,
    "&amp; ",
    "\\",
    "]",
    "[",
]


def whole(text: str) -> tuple[str, str]:
    shown = clean_text(text)
    return escape_markdown(shown, links=True), shown


def streamed_renders(text: str, step: int) -> list[tuple[tuple[str, str], tuple[str, str]]]:
    stream = StreamedMarkdown()
    return [(stream.render(text[:end]), whole(text[:end])) for end in range(step, len(text) + step, step)]


def test_a_message_with_fences_links_and_delimiters_streams_to_the_same_markdown():
    text = (
        f"Intro with [a link](a.csv) and <b>html</b>.\n\n```python\nprint('```')\n```\n{START}temp{END}\n"
        "~~~\nunclosed tilde fence\nstill code\n"
    )
    for step in (1, 3, 7):
        for got, expected in streamed_renders(text, step):
            assert got == expected


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40), st.integers(min_value=1, max_value=9))
def test_any_message_streamed_in_any_steps_renders_as_the_whole_message(pieces, step):
    for got, expected in streamed_renders("".join(pieces), step):
        assert got == expected


def test_a_replaced_message_is_rendered_afresh():
    stream = StreamedMarkdown()
    stream.render("first attempt line\nmore\n")
    assert stream.render("second try\n") == whole("second try\n")


def test_lines_inside_an_open_fence_stay_unsettled_until_it_closes():
    assert settled_length("prose\n```\ncode\n") == len("prose\n")
    assert settled_length("prose\n```\ncode\n```\nafter") == len("prose\n```\ncode\n```\n")
