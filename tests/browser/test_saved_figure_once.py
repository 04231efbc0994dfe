"""A saved plot Round holds its figure once, as the cell's own output, and every place a person looks
shows it once: JupyterLab with twnb's extension (the notebook opened with no kernel) and nbconvert's
HTML (as nbviewer and shared reports show it). JupyterLab and Notebook 7 without the extension, after
a real run, save and reopen: test_lab_reopen.py, test_notebook7_reopen.py (reopen_checks.py)."""

from __future__ import annotations

import base64
import io
import json

import nbformat
import pytest
from labextension_page import HTML_OUTPUT, open_without_kernel, rendered_round
from notebook_page import UI_TIMEOUT_MS, outputs, round_cells
from playwright.sync_api import expect
from reopen_checks import JS_LOADED_IMAGES
from screenshot_files import screenshot_path

from twnb.memory import Attachment, AttachmentType, Post, Round
from twnb.render import IN_CELL_NOTE, artifact_previews, round_bundle

PLOT_PATH = "twnb-artifacts/round-1-plot.png"
REQUEST = "Plot the squares of 1 to 3."


def _figure() -> bytes:
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (240, 160), (255, 255, 255))
    ImageDraw.Draw(image).line([(20, 140), (120, 100), (220, 20)], fill=(31, 119, 180), width=4)
    out = io.BytesIO()
    image.save(out, format="PNG")
    return out.getvalue()


def _plot_notebook(folder) -> tuple[nbformat.NotebookNode, str]:
    """The notebook a live plot Round leaves: its `%%taskweaver` cell holds the Round's bundle made for
    its own cell, then the figure its code displayed; the figure is also the Round's artifact."""
    raw = _figure()
    (folder / PLOT_PATH).parent.mkdir(parents=True, exist_ok=True)
    (folder / PLOT_PATH).write_bytes(raw)
    png = base64.b64encode(raw).decode("ascii")
    figure = {"image/png": png, "text/plain": "<Figure>"}
    shown = {"output_type": "display_data", "data": figure, "metadata": {}}
    round = Round.create(REQUEST)
    round.add_post(Post.create(REQUEST, "User", "Planner"))
    coder = Post.create("Plotted.", "CodeInterpreter", "Planner")
    coder.add_attachment(Attachment.create(AttachmentType.reply_content, "plt.plot([1, 4, 9])\nplt.show()"))
    result = Attachment.create(AttachmentType.execution_result, "The execution succeeded.")
    result.extra = {"outputs": [json.loads(json.dumps(shown))]}
    coder.add_attachment(result)
    coder.add_attachment(Attachment.create(AttachmentType.artifact_paths, [PLOT_PATH]))
    round.add_post(coder)
    round.add_post(Post.create("The plot is below.", "Planner", "User"))
    round.change_round_state("finished")
    bundle = round_bundle(round, session_id="s", previews=artifact_previews(round, folder), in_cell=True)
    cell = nbformat.v4.new_code_cell(f"%%taskweaver\n{REQUEST}", execution_count=1)
    cell.outputs = [
        nbformat.v4.new_output("display_data", data=bundle),
        nbformat.v4.new_output("display_data", data=shown["data"]),
    ]
    nb = nbformat.v4.new_notebook(cells=[cell])
    nb.metadata["kernelspec"] = {"name": "twnb-no-kernel", "display_name": "none", "language": "twnb-none"}
    nbformat.validate(nb)
    return nb, png


def test_the_saved_notebook_holds_the_figures_bytes_once(tmp_path):
    nb, png = _plot_notebook(tmp_path)
    assert nbformat.writes(nb).count(png[:200]) == 1


@pytest.fixture(scope="module")
def lab_page(lab, labextension_bundle, browser_context):
    nb, _ = _plot_notebook(lab.root)
    lab.write_notebook("plot.ipynb", nb)
    page = browser_context.new_page()
    open_without_kernel(page, lab.server.notebook_url("plot.ipynb"))
    expect(rendered_round(round_cells(page).nth(0))).to_have_count(1, timeout=UI_TIMEOUT_MS)
    page.screenshot(path=str(screenshot_path("labext-lab-figure-once")))
    yield page
    page.close()


def test_the_extension_names_the_figure_and_the_cell_shows_it_once(lab_page):
    cell = round_cells(lab_page).nth(0)
    shown = rendered_round(cell)
    expect(shown).to_contain_text(IN_CELL_NOTE)
    expect(cell.locator(HTML_OUTPUT)).to_have_count(0)
    figures = outputs(cell).locator("img")
    expect(figures).to_have_count(1, timeout=UI_TIMEOUT_MS)
    assert figures.evaluate_all(JS_LOADED_IMAGES) == 1


def _only_local_files(route) -> None:
    if route.request.url.startswith("file:"):
        route.continue_()
    else:
        route.abort()  # the page's CDN scripts: nothing leaves the machine


def test_nbconvert_html_shows_the_figure_once(tmp_path, browser_context):
    from nbconvert import HTMLExporter

    nb, _ = _plot_notebook(tmp_path)
    body, _ = HTMLExporter().from_notebook_node(nb)
    page_file = tmp_path / "plot.html"
    page_file.write_text(body, encoding="utf-8")
    page = browser_context.new_page()
    page.route("**/*", _only_local_files)
    try:
        page.goto(page_file.as_uri())
        expect(page.locator(".twnb-round")).to_contain_text(IN_CELL_NOTE)
        figures = page.locator(".jp-OutputArea-output img")
        expect(figures).to_have_count(1)
        assert figures.evaluate_all(JS_LOADED_IMAGES) == 1
    finally:
        page.close()
