"""An exported conversation opened in JupyterLab reads as a document: each Round's saved output, the
request and plan as Markdown, the code with its recorded output, model text as text, the copied
artifact loading from the visible folder beside the notebook, and no widget or red output.

As a colleague without twnb's extension sees it (JupyterLab runs with the extension disabled): the
Rounds show as their static, sanitized HTML."""

from __future__ import annotations

import base64

import pytest
from notebook_page import ERROR_OUTPUT, UI_TIMEOUT_MS, WIDGET_OUTPUT, code_cells, open_notebook, outputs
from playwright.sync_api import expect
from screenshot_files import screenshot_path

from twnb.memory import Attachment, AttachmentType, Conversation, Post, Round
from twnb.memory.ledger import Ledger, LedgerEntry
from twnb.replay import export_notebook

NAME = "exported.ipynb"
HOSTILE = "<img src=x onerror=\"document.title='pwned'\">"
# A 2x2 red PNG: a real image the browser can decode.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg=="
)


# The Round's time line: the waterfall drawn beneath it (start and duration in seconds of a 4 s Round).
LEDGER = Ledger(
    4.0,
    [
        LedgerEntry("llm", "Planner", 0.0, 1.0, "stop", input_tokens=900, output_tokens=80),
        LedgerEntry("llm", "CodeInterpreter", 1.0, 1.0, "stop", input_tokens=700, output_tokens=60),
        LedgerEntry("code", "CodeInterpreter", 2.0, 1.0, "success"),
        LedgerEntry("llm", "Planner", 3.0, 1.0, "stop", input_tokens=1000, output_tokens=40),
    ],
)


def _conversation(source) -> Conversation:
    round = Round.create("Plot the squares of 1 to 5")
    round.add_post(Post.create("Plot the squares of 1 to 5", "User", "Planner"))
    planner = Post.create("Plot the squares.", "Planner", "CodeInterpreter")
    for kind, text in [
        ("init_plan", "1. plot the squares\n2. report"),
        ("plan", "1. plot the squares\n2. report"),
        ("current_plan_step", "1. plot the squares"),
    ]:
        planner.add_attachment(Attachment.create(AttachmentType(kind), text))
    round.add_post(planner)
    coder = Post.create("The code ran successfully.", "CodeInterpreter", "Planner")
    for kind, text in [
        ("reply_type", "python"),
        ("reply_content", "squares = [x * x for x in range(1, 6)]\nsum(squares)"),
        ("execution_status", "SUCCESS"),
    ]:
        coder.add_attachment(Attachment.create(AttachmentType(kind), text))
    coder.add_attachment(
        Attachment.create(
            AttachmentType.execution_result,
            "55",
            extra={
                "outputs": [
                    {
                        "output_type": "execute_result",
                        "data": {"text/plain": "55"},
                        "metadata": {},
                        "execution_count": 1,
                    }
                ]
            },
        )
    )
    (source / ".twnb").mkdir()
    (source / ".twnb" / "squares.png").write_bytes(PNG)
    coder.add_attachment(
        Attachment.create(AttachmentType.artifact_paths, [str(source / ".twnb" / "squares.png")])
    )
    round.add_post(coder)
    # The answer links to the file where the session saved it; the export links to its copy instead.
    answer = Post.create(
        f"The sum of the squares is 55, [plotted]({source / '.twnb' / 'squares.png'}). {HOSTILE}",
        "Planner",
        "User",
    )
    answer.add_attachment(Attachment.create(AttachmentType.plan, "1. plot the squares\n2. report"))
    answer.add_attachment(Attachment.create(AttachmentType.current_plan_step, "2. report"))
    answer.add_attachment(Attachment.create(AttachmentType.stop, "Completed"))
    round.add_post(answer)
    round.change_round_state("finished")
    round.extra["ledger"] = LEDGER.to_dict()
    conversation = Conversation.init()
    conversation.add_round(round)
    return conversation


@pytest.fixture(scope="module")
def page(lab_without_extension, browser_context, tmp_path_factory):
    lab = lab_without_extension
    source = tmp_path_factory.mktemp("conversation")
    export_notebook(_conversation(source), lab.root / NAME, source_dir=source)
    page = browser_context.new_page()
    open_notebook(page, lab.server.notebook_url(NAME))
    page.screenshot(path=str(screenshot_path("lab-exported")), full_page=True)
    return page


def test_the_show_cell_displays_the_round_as_it_ended(page):
    show = code_cells(page).filter(has_text="%taskweaver show")
    expect(show).to_have_count(1, timeout=UI_TIMEOUT_MS)
    shown = outputs(show)
    expect(shown).to_contain_text("Plot the squares of 1 to 5")
    expect(shown).to_contain_text("finished")


def test_the_request_and_plan_render_as_markdown(page):
    heading = page.locator(".jp-MarkdownCell h2", has_text="Round 1: Plot the squares of 1 to 5")
    expect(heading).to_have_count(1, timeout=UI_TIMEOUT_MS)
    expect(page.locator(".jp-MarkdownCell li", has_text="plot the squares").first).to_be_visible()


def test_the_code_cell_shows_its_recorded_output(page):
    cell = code_cells(page).filter(has_text="squares = [x * x", has_not_text="%taskweaver show")
    expect(outputs(cell)).to_contain_text("55")


def test_model_text_stays_text(page):
    expect(page.locator(".jp-MarkdownCell").filter(has_text="onerror=")).not_to_have_count(0)
    expect(page.locator("img[onerror]")).to_have_count(0)
    assert page.title() != "pwned"


def test_the_copied_artifact_loads_from_the_visible_folder(page, lab_without_extension):
    lab = lab_without_extension
    assert (lab.root / "twnb-artifacts" / "squares.png").read_bytes() == PNG
    response = page.request.get(lab.server.url("files/twnb-artifacts/squares.png"))
    assert response.ok


def test_every_link_to_an_artifact_loads(page):
    links = page.locator(".jp-MarkdownCell a[href], .jp-OutputArea a[href]")
    expect(links.filter(has_text="plotted").first).to_be_visible(timeout=UI_TIMEOUT_MS)
    hrefs = links.evaluate_all("anchors => anchors.map(a => a.href)")
    to_files = [href for href in hrefs if "squares.png" in href]
    assert len(to_files) >= 2  # the answer's link and the Artifacts line, in the Markdown and the Round
    for href in to_files:
        assert page.request.get(href).ok, href


def test_no_widget_and_no_red_output(page):
    expect(page.locator(WIDGET_OUTPUT)).to_have_count(0)
    expect(page.locator(ERROR_OUTPUT)).to_have_count(0)


def test_the_rounds_waterfall_keeps_its_bars_in_the_untrusted_notebook(page):
    """An exported notebook is untrusted: its HTML goes through JupyterLab's sanitizer."""
    show = code_cells(page).filter(has_text="%taskweaver show")
    bars = outputs(show).locator(".twnb-bar")
    expect(bars).to_have_count(len(LEDGER.entries), timeout=UI_TIMEOUT_MS)
    row = bars.first.locator("xpath=..").bounding_box()
    for index, entry in enumerate(LEDGER.entries):
        box = bars.nth(index).bounding_box()
        assert box is not None and row is not None
        # Each bar spans a quarter of the row, one after the other: the 4 s Round's four seconds.
        assert box["width"] == pytest.approx(row["width"] * entry.duration_s / LEDGER.duration_s, abs=2)
        assert box["x"] - row["x"] == pytest.approx(row["width"] * entry.start_s / LEDGER.duration_s, abs=2)
