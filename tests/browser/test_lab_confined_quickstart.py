"""The README's quickstart in JupyterLab on the confined kernel: a person installs the kernelspec
(`twnb kernel install --confined --prefix P`), picks "Python 3 (twnb, confined)" in the launcher, types
the quickstart's cells and runs them one by one with Shift+Enter. The three Rounds finish with their
results and the plot, the artifacts land in the notebook's folder, and the model is reached through
the key proxy: the kernel's environment never held the key, the model server saw it.

One JupyterLab server for the module; the Rounds run once (the `ran` fixture), each test checks one
thing of that run.
"""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml
from fakellm.server import FakeLLMServer
from frontend_server import JupyterServer, clean_environment
from notebook_page import (
    JS_KERNEL_IDLE,
    KERNEL_TIMEOUT_MS,
    ROUND_TIMEOUT_MS,
    code_cells,
    outputs,
    wait_until_ran,
)
from playwright.sync_api import expect
from screenshot_files import screenshot_path
from support.confined_kernel import needs_landlock

from twnb.confine import CONFINED_DISPLAY_NAME, CONFINED_KERNEL_NAME
from twnb.demo.quickstart import CONVERSATION_FILE, DATASET, DEMO_MODEL, QUICKSTART, build_quickstart_notebook
from twnb.render import IN_CELL_NOTE
from twnb.session import load_conversation_file

pytestmark = [needs_landlock, pytest.mark.timeout(900)]

REAL_KEY = "sk-proj-labConfinedTEST0123456789abcdefXYZ"
KEY_DELAY_MS = 60  # a quick typist; the Rounds run while the next cell is typed
PID_CELL = "import os\nos.getpid()"  # the kernel's process, whose environment the test reads
# the quickstart's code cells as README's notebook has them: %load_ext, the user's cell, three Rounds,
# the conversation saved, the Rounds listed
QUICKSTART_CELLS = [cell.source for cell in build_quickstart_notebook().cells if cell.cell_type == "code"]
JS_ACTIVE_SOURCE = "() => window.jupyterapp.shell.currentWidget.content.activeCell.model.sharedModel.source"
TWNB_COMMAND = str(Path(sys.executable).with_name("twnb"))  # this environment's `twnb` command


@dataclass
class ConfinedLab:
    server: JupyterServer
    root: Path  # the notebook's folder: the kernel may write here


def _quickstart_script() -> dict[str, list[str]]:
    replies = yaml.safe_load(QUICKSTART.scripted_replies.read_text(encoding="utf-8"))
    return {role: [json.dumps({"response": r}) for r in items] for role, items in replies.items()}


@pytest.fixture(scope="module")
def quickstart_llm() -> Iterator[FakeLLMServer]:
    """The loopback model server, serving the quickstart's scripted replies as `twnb-scripted-demo`."""
    with FakeLLMServer(_quickstart_script(), models=(DEMO_MODEL,)) as server:
        yield server


@pytest.fixture(scope="module")
def confined_lab(
    playwright_browser: Any, labextension_bundle: Path, browser_scratch: Path, quickstart_llm: FakeLLMServer
) -> Iterator[ConfinedLab]:
    """JupyterLab whose kernelspecs include `twnb-confined`, installed under a prefix as the README says;
    the server (and so the kernel's launcher) holds the key, the folder holds the quickstart's data."""
    scratch = Path(tempfile.mkdtemp(prefix="lab-confined-", dir=browser_scratch))
    prefix = scratch / "prefix"
    installed = subprocess.run(
        [TWNB_COMMAND, "kernel", "install", "--confined", "--prefix", str(prefix)],
        capture_output=True,
        text=True,
        check=True,
    )
    assert CONFINED_KERNEL_NAME in installed.stdout, installed
    root = scratch / "notebooks"
    root.mkdir()
    shutil.copyfile(DATASET, root / DATASET.name)
    env = clean_environment(browser_scratch / "home")
    env.update(
        {
            "JUPYTER_PATH": str(prefix / "share" / "jupyter"),
            "OPENAI_BASE_URL": quickstart_llm.base_url,
            "OPENAI_API_KEY": REAL_KEY,
            "TWNB_MODEL": DEMO_MODEL,
        }
    )
    with JupyterServer("lab", root, scratch, env) as server:
        yield ConfinedLab(server, root)


def _type_cell_and_run(page: Any, source: str) -> Any:
    """Type `source` into the cell being edited, key by key, and Shift+Enter: it runs and JupyterLab
    opens a new cell below for the next one. Returns the cell typed."""
    cell = code_cells(page).nth(code_cells(page).count() - 1)  # this cell, not whichever is last later
    editor = cell.locator(".cm-content")
    expect(editor).to_be_focused()
    for index, line in enumerate(source.split("\n")):
        if index:
            page.keyboard.press("Enter")
            page.keyboard.press("Home")  # no auto-indent carried from the line above
        editor.press_sequentially(line, delay=KEY_DELAY_MS)
    assert page.evaluate(JS_ACTIVE_SOURCE) == source  # what the person sees is what runs
    page.keyboard.press("Shift+Enter")
    expect(code_cells(page).last.locator(".cm-content")).to_be_focused()
    return cell


@dataclass
class QuickstartRun:
    page: Any
    rounds: list[Any]
    kernel_pid: int


@pytest.fixture(scope="module")
def ran(confined_lab: ConfinedLab, browser_context: Any) -> Iterator[QuickstartRun]:
    """The launcher's "Python 3 (twnb, confined)" notebook, the quickstart's cells typed and run one
    after the other, every Round waited for."""
    page = browser_context.new_page()
    page.goto(confined_lab.server.url("lab?reset"))
    card = page.locator('.jp-LauncherCard[data-category="Notebook"]', has_text=CONFINED_DISPLAY_NAME)
    card.click(timeout=KERNEL_TIMEOUT_MS)
    page.wait_for_function(JS_KERNEL_IDLE, timeout=KERNEL_TIMEOUT_MS)
    code_cells(page).first.locator(".cm-content").click()
    pid_cell = _type_cell_and_run(page, PID_CELL)
    typed = {source: _type_cell_and_run(page, source) for source in QUICKSTART_CELLS}
    rounds = [cell for source, cell in typed.items() if source.startswith("%%taskweaver")]
    for cell in typed.values():
        wait_until_ran(cell, ROUND_TIMEOUT_MS)
    wait_until_ran(pid_cell)
    kernel_pid = int(outputs(pid_cell).first.inner_text().strip())
    outputs(rounds[0]).first.locator("table").first.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_path("lab-confined-quickstart-overview")))
    outputs(rounds[1]).locator("img").first.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_path("lab-confined-quickstart-plot")))
    yield QuickstartRun(page, rounds, kernel_pid)
    page.close()


def test_the_notebook_runs_on_the_confined_kernel(ran: QuickstartRun, confined_lab: ConfinedLab) -> None:
    (session,) = confined_lab.server.api("api/sessions")
    assert session["kernel"]["name"] == CONFINED_KERNEL_NAME


def test_the_three_rounds_finish(ran: QuickstartRun) -> None:
    for cell in ran.rounds:
        expect(outputs(cell).first).to_contain_text(re.compile(r"\bfinished\b"), timeout=ROUND_TIMEOUT_MS)


def test_each_round_shows_its_result(ran: QuickstartRun) -> None:
    overview, correlation, unusual = ran.rounds
    expect(outputs(overview).first).to_contain_text("1153.5")
    expect(outputs(correlation).first).to_contain_text("0.87")
    expect(outputs(unusual).first).to_contain_text("unusual_weeks.csv")


def test_round_two_shows_the_plot_once_in_its_cell(ran: QuickstartRun) -> None:
    """The figure is the cell's own output, shown once (the Round's view names it, not a copy)."""
    plot = outputs(ran.rounds[1]).locator("img")
    expect(plot).to_have_count(1)
    expect(plot).to_be_visible()
    assert plot.evaluate("img => img.naturalWidth") > 100
    expect(outputs(ran.rounds[1]).first).to_contain_text(IN_CELL_NOTE)


def test_the_artifacts_are_in_the_notebook_folder(ran: QuickstartRun, confined_lab: ConfinedLab) -> None:
    assert (confined_lab.root / "unusual_weeks.csv").read_text(encoding="utf-8").startswith("store")
    figures = list((confined_lab.root / "twnb-artifacts").rglob("*.png"))
    assert figures, sorted(str(p) for p in confined_lab.root.rglob("*"))


def test_each_rounds_record_says_it_ran_confined_with_its_rules(
    ran: QuickstartRun, confined_lab: ConfinedLab
) -> None:
    """The saved conversation's Rounds each carry the rules the operating system applied: Landlock,
    the notebook's folder writable, the model reached through the key proxy."""
    rounds = load_conversation_file(confined_lab.root / CONVERSATION_FILE).rounds
    assert len(rounds) == 3
    for round_ in rounds:
        rules = round_.extra["confinement"]
        assert rules["landlock_abi"] >= 6 and rules["proxy"], rules
        assert str(confined_lab.root.resolve()) in rules["write"], rules


def test_the_kernel_never_held_the_key_and_the_model_got_it_through_the_proxy(
    ran: QuickstartRun, quickstart_llm: FakeLLMServer
) -> None:
    environ = Path(f"/proc/{ran.kernel_pid}/environ").read_bytes().split(b"\0")
    assert not [entry for entry in environ if REAL_KEY.encode() in entry]
    base_urls = [entry.decode() for entry in environ if entry.startswith(b"OPENAI_BASE_URL=")]
    assert base_urls and all(quickstart_llm.base_url not in url for url in base_urls), base_urls
    headers = {request["headers"]["authorization"] for request in quickstart_llm.chat_requests()}
    assert headers == {f"Bearer {REAL_KEY}"}
