"""Fixtures for real-browser tests: Debian's Chromium through Playwright, JupyterLab and Notebook 7
servers (one per test module), and the loopback LLM server behind their kernels.

    def test_x(lab, browser_context, module_llm):
        module_llm.load(analysis_script())
        lab.write_notebook("x.ipynb", analysis_notebook())
        page = browser_context.new_page()
        open_notebook(page, lab.server.notebook_url("x.ipynb"))

Without /usr/bin/chromium or the Python packages, every test here is skipped with the reason; under
`CI=true` they fail instead, so a missing install step cannot pass unseen. Screenshots (the ones tests
take, and one per open page of a failed test) land in tests/browser/screenshots/, printed at the end.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import pytest
from chromium import launch_chromium, missing_tools
from fakellm.server import FakeLLMServer
from frontend_server import LABEXTENSION_BUNDLE, JupyterServer, clean_environment
from round_scripts import FAKE_MODEL
from screenshot_files import SCREENSHOTS, TAKEN, screenshot_path
from step_inbox_log import environment, inbox_lines, install

VIEWPORT = {"width": 1280, "height": 900}
_STASH_REPORTS = pytest.StashKey[dict[str, pytest.TestReport]]()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    here = Path(__file__).resolve().parent
    for item in items:
        if here in Path(str(item.path)).resolve().parents:
            item.add_marker(pytest.mark.slow)
            item.add_marker(pytest.mark.browser)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    report = yield
    item.stash.setdefault(_STASH_REPORTS, {})[report.when] = report
    return report


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if TAKEN:
        terminalreporter.write_line(
            f"browser screenshots ({len(TAKEN)}) in {SCREENSHOTS}: " + ", ".join(path.name for path in TAKEN)
        )


@pytest.fixture(scope="session")
def playwright_browser() -> Iterator[Any]:
    """One headless Chromium for the whole run; skipped (failed under CI=true) when it cannot start."""
    problem = missing_tools(modules=("playwright", "jupyterlab", "notebook"))
    if problem:
        _cannot_run(problem)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = launch_chromium(playwright)
        try:
            yield browser
        finally:
            browser.close()


@pytest.fixture(scope="module")
def browser_context(playwright_browser: Any) -> Iterator[Any]:
    """A fresh browser profile for one test module (cookies of its server, no others)."""
    context = playwright_browser.new_context(viewport=VIEWPORT)
    context.set_default_timeout(30_000)
    try:
        yield context
    finally:
        context.close()


@pytest.fixture(autouse=True)
def _screenshot_on_failure(request: pytest.FixtureRequest) -> Iterator[None]:
    """A failed browser test leaves a picture of every open page: what the person would have seen;
    and prints what step mode's inbox logged in its servers' kernels (step_inbox_log.py)."""
    yield
    reports = request.node.stash.get(_STASH_REPORTS, {})
    if not any(report.failed for report in reports.values()) or "browser_context" not in request.fixturenames:
        return
    for name in request.fixturenames:
        frontend = request.getfixturevalue(name) if name in FRONTENDS else None
        lines = inbox_lines(frontend.server.log_path) if isinstance(frontend, RunningFrontend) else []
        if lines:
            print(f"step mode's inbox in {name}'s kernels (the last {len(lines)} lines):", *lines, sep="\n")
    context = request.getfixturevalue("browser_context")
    for index, page in enumerate(context.pages):
        try:
            page.screenshot(path=str(screenshot_path(f"FAILED-{request.node.name}-{index}")), full_page=True)
        except Exception as error:  # a crashed page must not hide the test's own failure
            print(f"no screenshot of page {index}: {error}")


def _cannot_run(problem: str) -> None:
    if os.environ.get("CI", "").lower() in ("true", "1"):
        pytest.fail(f"browser tests cannot run under CI=true: {problem}", pytrace=False)
    pytest.skip(problem)


@pytest.fixture(scope="session")
def labextension_bundle() -> Path:
    """This checkout's built JupyterLab extension (the servers serve it); skipped (failed under CI=true)
    when it is not built."""
    if not (LABEXTENSION_BUNDLE / "package.json").is_file():
        _cannot_run(
            f"twnb's JupyterLab extension is not built ({LABEXTENSION_BUNDLE} is missing):"
            " run `cd labextension && npm ci && npm run build`"
        )
    return LABEXTENSION_BUNDLE


@pytest.fixture(scope="session")
def browser_scratch() -> Iterator[Path]:
    folder = Path(tempfile.mkdtemp(prefix="twnb-browser-"))
    try:
        yield folder
    finally:
        if os.environ.get("TWNB_KEEP_BROWSER_SCRATCH"):
            print(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="module")
def module_llm() -> Iterator[FakeLLMServer]:
    """The loopback OpenAI-compatible server the module's kernels talk to; `.load(script)` per test."""
    with FakeLLMServer(models=(FAKE_MODEL,)) as server:
        yield server


# The fixtures that start a server (their kernels' step inbox is printed when a test fails).
FRONTENDS = (
    "lab",
    "notebook7",
    "lab_without_extension",
    "notebook7_without_extension",
    "lab_saving_widget_state",
    "lab_dark",
)


@dataclass
class RunningFrontend:
    """A started server and the folder it serves."""

    server: JupyterServer
    root: Path

    def write_notebook(self, name: str, nb: nbformat.NotebookNode) -> str:
        nbformat.write(nb, self.root / name)
        return name


def _frontend(
    app: str,
    scratch_root: Path,
    llm: FakeLLMServer,
    name: str,
    *,
    labextension: bool = True,
    settings: dict[str, dict[str, Any]] | None = None,
) -> Iterator[RunningFrontend]:
    """A server of `app` ("lab" or "notebook") for the test module `name`, its kernels pointed at
    `llm`, with `settings` (user settings by plugin id) beside the fresh defaults; stopped after."""
    scratch = Path(tempfile.mkdtemp(prefix=f"{app}-{name}-", dir=scratch_root))
    root = scratch / "notebooks"
    root.mkdir()
    env = clean_environment(scratch_root / "home")  # shared: matplotlib builds its font cache once
    install(Path(os.environ["IPYTHONDIR"]))  # the kernels log step mode's inbox into the server's log
    env.update(
        {"OPENAI_BASE_URL": llm.base_url, "OPENAI_API_KEY": "browser-test-key", "TWNB_MODEL": FAKE_MODEL}
    )
    env.update(environment())
    with JupyterServer(app, root, scratch, env, labextension=labextension, settings=settings) as server:
        yield RunningFrontend(server, root)


@pytest.fixture(scope="module")
def lab(
    playwright_browser: Any, browser_scratch: Path, module_llm: FakeLLMServer, request: pytest.FixtureRequest
) -> Iterator[RunningFrontend]:
    """`jupyter lab` for this test module, its kernels pointed at `module_llm`."""
    yield from _frontend("lab", browser_scratch, module_llm, request.module.__name__)


@pytest.fixture(scope="module")
def notebook7(
    playwright_browser: Any, browser_scratch: Path, module_llm: FakeLLMServer, request: pytest.FixtureRequest
) -> Iterator[RunningFrontend]:
    """`jupyter notebook` (Notebook 7) for this test module, its kernels pointed at `module_llm`."""
    yield from _frontend("notebook", browser_scratch, module_llm, request.module.__name__)


@pytest.fixture(scope="module")
def lab_without_extension(
    playwright_browser: Any, browser_scratch: Path, module_llm: FakeLLMServer, request: pytest.FixtureRequest
) -> Iterator[RunningFrontend]:
    """`jupyter lab` with twnb's extension disabled: Rounds show as their static HTML, as in any viewer
    without the extension (VS Code, GitHub, a JupyterLab where it is not installed)."""
    yield from _frontend("lab", browser_scratch, module_llm, request.module.__name__, labextension=False)


@pytest.fixture(scope="module")
def notebook7_without_extension(
    playwright_browser: Any, browser_scratch: Path, module_llm: FakeLLMServer, request: pytest.FixtureRequest
) -> Iterator[RunningFrontend]:
    """`jupyter notebook` with twnb's extension disabled: Rounds show as their static HTML."""
    yield from _frontend("notebook", browser_scratch, module_llm, request.module.__name__, labextension=False)


# The Jupyter Widgets setting "Save Jupyter widget state in notebooks" (jupyterlab_widgets' plugin
# schema: `saveState`, off by default). A user may turn it on: then every open widget model goes into
# the notebook's metadata when JupyterLab saves it.
WIDGET_STATE_SETTING = "@jupyter-widgets/jupyterlab-manager:plugin"
DARK_THEME_SETTING = {"@jupyterlab/apputils-extension:themes": {"theme": "JupyterLab Dark"}}


@pytest.fixture(scope="module")
def lab_saving_widget_state(
    playwright_browser: Any, browser_scratch: Path, module_llm: FakeLLMServer, request: pytest.FixtureRequest
) -> Iterator[RunningFrontend]:
    """`jupyter lab` (with twnb's extension) whose user turned widget-state saving on."""
    settings = {WIDGET_STATE_SETTING: {"saveState": True}}
    yield from _frontend("lab", browser_scratch, module_llm, request.module.__name__, settings=settings)


@pytest.fixture(scope="module")
def lab_dark(
    playwright_browser: Any, browser_scratch: Path, module_llm: FakeLLMServer, request: pytest.FixtureRequest
) -> Iterator[RunningFrontend]:
    """`jupyter lab` (with twnb's extension) in the JupyterLab Dark theme from its first page."""
    name = request.module.__name__
    yield from _frontend("lab", browser_scratch, module_llm, name, settings=DARK_THEME_SETTING)
