"""nbconvert's HTML of an exported notebook, as nbviewer and shared reports show it, opened in Chromium:
inside a Round, code, results and tracebacks render in a monospace font with their whitespace kept
(the page's own font is proportional, and its stylesheet knows nothing of twnb's output).

Checked by what the browser draws: the computed style of each block, and the widths of a run of
narrow and of wide letters in its font, which only a monospace font makes equal."""

from __future__ import annotations

import nbformat
import pytest
from playwright.sync_api import expect
from screenshot_files import screenshot_path

from twnb.memory import Attachment, AttachmentType, Conversation, Post, Round
from twnb.replay import export_notebook

INDENTED_CODE = "for n in range(3):\n    if n:\n        print(n, n * n)"
ALIGNED_RESULT = "   n  square\n0  1       1\n1  2       4"
TRACEBACK = (
    "Traceback (most recent call last):\n"
    '  File "<cell>", line 2, in <module>\n'
    "    total = shop['sales']\n"
    "            ~~~~^^^^^^^^^\n"
    "KeyError: 'sales'"
)
FAILED_CODE = "shop = {'revenue': [10, 20]}\ntotal = shop['sales']"
# The widths of the same number of narrow and wide letters: equal only in a monospace font.
JS_LETTER_WIDTHS = """element => {
    const probe = document.createElement('span');
    element.appendChild(probe);
    const width = text => { probe.textContent = text; return probe.getBoundingClientRect().width; };
    const widths = [width('iiiiiiiiii'), width('MMMMMMMMMM')];
    probe.remove();
    return widths;
}"""
JS_STYLE = "element => { const s = getComputedStyle(element); return [s.fontFamily, s.whiteSpace]; }"


def _post(message: str, sender: str, recipient: str, *attachments: tuple[str, str]) -> Post:
    post = Post.create(message, sender, recipient)
    for kind, content in attachments:
        post.add_attachment(Attachment.create(AttachmentType(kind), content))
    return post


def _conversation() -> Conversation:
    """One Round: a first attempt raises KeyError, the revised one runs and prints a table."""
    round = Round.create("Square the numbers below 3 and total the sales.")
    round.add_post(_post("Square the numbers below 3 and total the sales.", "User", "Planner"))
    round.add_post(_post("Square them.", "Planner", "CodeInterpreter", ("plan", "1. square\n2. report")))
    code = ("reply_type", "python")
    round.add_post(
        _post(
            "It failed.",
            "CodeInterpreter",
            "CodeInterpreter",
            code,
            ("reply_content", FAILED_CODE),
            ("execution_status", "FAILURE"),
            ("execution_result", TRACEBACK),
        )
    )
    round.add_post(
        _post(
            "Squared.",
            "CodeInterpreter",
            "Planner",
            code,
            ("reply_content", INDENTED_CODE),
            ("execution_status", "SUCCESS"),
            ("execution_result", ALIGNED_RESULT),
        )
    )
    round.add_post(_post("The squares are 1 and 4.", "Planner", "User"))
    round.change_round_state("finished")
    conversation = Conversation.init()
    conversation.add_round(round)
    return conversation


def _only_local_files(route) -> None:
    if route.request.url.startswith("file:"):
        route.continue_()
    else:
        route.abort()


@pytest.fixture(scope="module", params=["lab", "classic"])
def page(request, browser_context, tmp_path_factory):
    """nbconvert's HTML (its `lab` template, the default, and `classic`) of the exported notebook,
    opened from the file with every request off the machine refused (the page's CDN scripts)."""
    from nbconvert import HTMLExporter

    folder = tmp_path_factory.mktemp(f"nbconvert-{request.param}")
    notebook = folder / "exported.ipynb"
    export_notebook(_conversation(), notebook, source_dir=folder)
    body, _ = HTMLExporter(template_name=request.param).from_notebook_node(nbformat.read(notebook, 4))
    html = folder / "exported.html"
    html.write_text(body, encoding="utf-8")
    page = browser_context.new_page()
    page.route("**/*", _only_local_files)
    page.goto(html.as_uri())
    round_view = page.locator(".twnb-round").first
    expect(round_view).to_be_visible()
    round_view.evaluate("node => node.querySelectorAll('details').forEach(d => d.open = true)")
    round_view.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_path(f"nbconvert-{request.param}-round")), full_page=True)
    yield page
    page.close()


def _main_view_block(page, text: str):
    """The first block inside the Round (its main view comes before the folded conversation) that
    holds `text`, the innermost such element."""
    blocks = page.locator(".twnb-round pre").filter(has_text=text)
    expect(blocks.first).to_be_visible()
    return blocks.first


@pytest.mark.parametrize(
    ("what", "text", "kept"),
    [
        ("code", "print(n, n * n)", "\n        print(n, n * n)"),
        ("result", "square", "   n  square\n0  1       1"),
        ("traceback", "KeyError: 'sales'", "\n            ~~~~^^^^^^^^^\n"),
    ],
)
def test_a_rounds_block_renders_in_a_monospace_font_with_its_whitespace(page, what, text, kept):
    block = _main_view_block(page, text)
    family, white_space = block.evaluate(JS_STYLE)
    assert "monospace" in family, f"{what}: font-family {family!r}"
    assert white_space in ("pre", "pre-wrap"), f"{what}: white-space {white_space!r}"
    narrow, wide = block.evaluate(JS_LETTER_WIDTHS)
    assert narrow == pytest.approx(wide, rel=0.01), f"{what}: proportional ({narrow} != {wide} px)"
    assert kept in block.inner_text(), f"{what}: whitespace lost"


def test_the_pages_own_text_is_proportional(page):
    """The check above can tell: text outside a Round's blocks is drawn proportional on this page."""
    narrow, wide = page.locator(".twnb-round").first.evaluate(JS_LETTER_WIDTHS)
    assert narrow < wide * 0.8
