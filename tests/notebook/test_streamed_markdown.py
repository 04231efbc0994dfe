"""A streaming message cut into Markdown chunks reads exactly as the whole message does."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from support.nb_markdown import rendered

from twnb.memory import PromptUtil
from twnb.notebook.streamed_markdown import MarkdownChunks, chunk_markdown
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
    "    indented\n",
    "`code` ",
    "[file](out.csv) ",
    "![img](http://x/y.png) ",
    "<script>x</script>",
    "<div>\n",
    "* item\n",
    "- item\n",
    "1. item\n",
    "2) item\n",
    "  continued\n",
    "> quote\n",
    "# Title\n",
    "===\n",
    "---\n",
    "| a | b |\n",
    "|---|---|\n",
    "$$\n",
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


def shown_in_chunks(chunks: MarkdownChunks) -> list[tuple[str, str]]:
    """Each chunk as its widget shows it: closed ones, then the live one."""
    return [chunk_markdown(source) for source in chunks.closed] + [chunks.live_markdown()]


def streamed(text: str, step: int, chunk_chars: int) -> MarkdownChunks:
    chunks = MarkdownChunks(chunk_chars)
    for start in range(0, len(text), step):
        chunks.append(text[start : start + step])
    return chunks


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(PIECES), max_size=40),
    st.integers(min_value=1, max_value=9),
    st.integers(min_value=1, max_value=60),
)
def test_any_message_streamed_in_any_steps_escapes_in_chunks_as_the_whole_message(pieces, step, chunk_chars):
    text = "".join(pieces)
    chunks = MarkdownChunks(chunk_chars)
    for start in range(0, len(text), step):
        chunks.append(text[start : start + step])
        shown = shown_in_chunks(chunks)
        assert ("".join(m for m, _ in shown), "".join(p for _, p in shown)) == whole(text[: start + step])


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=60), st.integers(min_value=1, max_value=40))
def test_chunks_rendered_one_by_one_render_as_the_whole_message(pieces, chunk_chars):
    chunks = streamed("".join(pieces), 3, chunk_chars)
    assert "".join(rendered(markdown) for markdown, _ in shown_in_chunks(chunks)) == rendered(
        whole(chunks.text)[0]
    )


def test_a_long_message_is_cut_into_chunks_of_at_least_the_chunk_size():
    paragraph = "A line of prose about the margin.\n" * 4 + "\n"
    chunks = streamed(paragraph * 100, 7, 2048)
    assert len(chunks.closed) >= 5
    assert all(len(source) >= 2048 for source in chunks.closed)
    assert len(chunks.live) < 2048 + len(paragraph)


def test_a_code_fence_past_the_chunk_size_is_never_cut():
    code = "```python\n" + "x = 1\n\n" * 500 + "```\n"
    chunks = streamed("Intro.\n\n" + code + "\nAfter the code.\n", 5, 100)
    assert chunks.closed == ["Intro.\n\n" + code + "\n"]
    assert chunks.live == "After the code.\n"


def test_display_math_spanning_a_blank_line_past_the_chunk_size_is_never_cut():
    math = "$$\n" + "a = b\n\n" * 500 + "$$\n"
    chunks = streamed("Intro.\n\n" + math + "\nAfter the math.\n", 5, 100)
    assert chunks.closed == ["Intro.\n\n" + math + "\n"]
    assert chunks.live == "After the math.\n"


def test_a_list_with_blank_lines_between_items_stays_in_one_chunk():
    items = "".join(f"{n}. item number {n}\n\n" for n in range(1, 200))
    chunks = streamed(items, 4, 100)
    assert chunks.closed == []


def test_a_replaced_message_starts_its_chunks_afresh():
    chunks = streamed("First attempt, a paragraph.\n\n" * 50, 10, 100)
    assert chunks.closed
    assert chunks.replace("Second try.\n") is False
    assert (chunks.closed, chunks.live) == ([], "Second try.\n")


def test_a_message_replaced_by_its_continuation_keeps_its_chunks():
    text = "A paragraph of the answer.\n\n" * 50
    chunks = streamed(text, 10, 100)
    closed = list(chunks.closed)
    assert chunks.replace(text + "The end.") is True
    assert chunks.closed[: len(closed)] == closed
    assert chunks.text == text + "The end."
