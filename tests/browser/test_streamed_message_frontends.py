"""A long message streamed into the live Round widget looks in JupyterLab and Notebook 7 as it did
when the widget showed it whole: the same Markdown blocks with the same text, the same height (within
a few pixels a chunk).

One cell streams the message into a RoundView (chunks of Markdown, each in its own Output widget);
the next shows the same message the way the widget used to, whole, in one Output widget.
"""

from __future__ import annotations

import pytest
from notebook_page import (
    ROUND_TIMEOUT_MS,
    UI_TIMEOUT_MS,
    code_cells,
    open_notebook,
    run_all_cells,
    wait_until_ran,
)
from playwright.sync_api import expect
from round_scripts import notebook_of
from screenshot_files import screenshot_path

NAME = "streamed-message.ipynb"

MESSAGE = """
paragraph = "The margin in the West region rose while discounts fell; see [the table](t.csv).\\n" * 3 + "\\n"
fence = "```python\\n" + "".join(f"total_{n} = sales.sum()\\n\\n" for n in range(150)) + "```\\n\\n"
listing = "".join(f"{n}. step {n} of the plan\\n\\n" for n in range(1, 120)) + "After the list.\\n\\n"
table = "| region | margin |\\n|---|---|\\n| West | 0.31 |\\n| East | 0.27 |\\n\\n"
hostile = "<script>alert(1)</script> ![x](http://127.0.0.1:9/x.png) <b>not bold</b>\\n\\n"
text = "# Findings\\n\\n" + paragraph * 12 + fence + listing + paragraph * 6 + table + hostile
text += paragraph * 12
"""
STREAM = (
    MESSAGE
    + """
from twnb.memory import MessageDelta, PostStarted, RoundStarted
from twnb.notebook.round_view import RoundView

view = RoundView("a long message", rate_hz=1e9)
view.on_event(RoundStarted("round-1", "a long message"))
view.on_event(PostStarted("post-1", "Planner", "User"))
for start in range(0, len(text), 37):
    view.on_event(MessageDelta("post-1", text[start : start + 37], False))
print("chunks:", len(view._posts["post-1"].message_view.box.children))
view._posts["post-1"].message_view.box.add_class("streamed-message")
display(view._posts["post-1"].message_view.box)
"""
)
WHOLE = """
import ipywidgets
from twnb.render.markdown_escape import escape_markdown

whole = ipywidgets.Output()
whole.add_class("whole-message")
data = {"text/markdown": escape_markdown(text, links=True)}
whole.outputs = ({"output_type": "display_data", "data": data, "metadata": {}},)
display(whole)
"""
# The rendered Markdown blocks under a selector: their tags and text, in order, and the total height.
JS_BLOCKS = """(selector) => {
  const root = document.querySelector(selector);
  const rendered = [...root.querySelectorAll('.jp-RenderedMarkdown')];
  const blocks = rendered.flatMap(r => [...r.children]).map(b => [b.tagName, b.innerText.trim()]);
  return {blocks, chunks: rendered.length, height: root.getBoundingClientRect().height};
}"""


@pytest.fixture(scope="module", params=["lab_without_extension", "notebook7_without_extension"])
def shown(request, browser_context):
    """What JupyterLab, then Notebook 7, shows of the message streamed in chunks and shown whole."""
    frontend = request.getfixturevalue(request.param)
    frontend.write_notebook(NAME, notebook_of(STREAM, WHOLE))
    page = browser_context.new_page()
    open_notebook(page, frontend.server.notebook_url(NAME))
    run_all_cells(page)
    wait_until_ran(code_cells(page).nth(1), ROUND_TIMEOUT_MS)
    for selector in (".streamed-message", ".whole-message"):
        expect(page.locator(f"{selector} .jp-RenderedMarkdown").first).to_be_visible(timeout=UI_TIMEOUT_MS)
    page.screenshot(path=str(screenshot_path(f"streamed-message-{request.param}")), full_page=True)
    streamed = page.evaluate(JS_BLOCKS, ".streamed-message")
    whole = page.evaluate(JS_BLOCKS, ".whole-message")
    page.close()
    return streamed, whole


def test_the_chunks_show_the_same_markdown_blocks_as_the_whole_message(shown):
    streamed, whole = shown
    assert streamed["chunks"] >= 5
    assert streamed["blocks"] == whole["blocks"]


def test_the_chunks_take_the_height_of_the_whole_message_within_a_few_pixels_a_chunk(shown):
    streamed, whole = shown
    assert abs(streamed["height"] - whole["height"]) <= 4 * streamed["chunks"]
