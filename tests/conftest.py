"""Fixtures shared by every test folder.

`fake_llm`: a loopback OpenAI-compatible server (tests/fakellm) started for one test and stopped after it.

    def test_x(fake_llm):
        fake_llm.load({"Planner": ["{...}"], "*": ["hi"]})
        client = OpenAIChatClient(api_key="test-key", base_url=fake_llm.base_url)
        ...
        assert fake_llm.requests()[0]["body"]["stream"] is True

Markers: a test that starts a kernel or a notebook (here, in a subprocess, or in a Jupyter server) is
marked `slow`; one that drives Chromium `browser` (tests/browser marks its own). A test marked neither
that starts a kernel fails at teardown: `bash tests/run.sh --fast` runs `-m "not slow and not browser"`
and stays a lane without kernels. Each kernel the tests start says so at start-up (its profile's
ipython_kernel_config.py, below, appends the running test's id to KERNEL_STARTS).

Parallel runs (`-n N --dist loadscope`, as tests/run.sh runs them): see `pytest_xdist_make_scheduler`.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import socket
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# The fake server lives beside the tests, not in the package: tests/ is on the import path through
# pytest's `pythonpath` (pyproject.toml), as is the repository's root (hatch_build.py).
from fakellm.server import FakeLLMServer


def _own_ipython_dir() -> str:
    """An IPython folder for this test process alone (each of pytest-xdist's workers imports this file
    and makes its own), set as IPYTHONDIR before any shell or kernel starts (kernels inherit it), and
    removed when the process ends.

    Without it every test process and every kernel the tests start, of every test session on the
    machine, share ~/.ipython/profile_default/history.sqlite. When IPython finds that database locked
    or corrupt it moves it aside and starts a new one; the other processes' open connections then
    point at a moved file and their next write fails with `sqlite3.OperationalError: attempt to write
    a readonly database` (SQLite's READONLY_DBMOVED), failing whatever test was running. Kernels keep
    their history in memory (the profile's config); the one in-process shell writes only to this
    session's folder."""
    folder = Path(tempfile.mkdtemp(prefix="twnb-tests-ipython-"))
    profile = folder / "profile_default"
    profile.mkdir()
    in_memory = 'c.HistoryManager.hist_file = ":memory:"\n'
    (profile / "ipython_config.py").write_text(in_memory, encoding="utf-8")
    # Only kernels read ipython_kernel_config.py: each notes the test that started it (the variable
    # pytest sets during a test's setup, call and teardown, which the kernel inherits).
    kernel_start = (
        "import os as _os\n"
        f"with open({str(folder / KERNEL_STARTS)!r}, 'a', encoding='utf-8') as _starts:\n"
        "    _starts.write(_os.environ.get('PYTEST_CURRENT_TEST', '?').rsplit(' ', 1)[0] + '\\n')\n"
    )
    (profile / "ipython_kernel_config.py").write_text(in_memory + kernel_start, encoding="utf-8")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return str(folder)


def _own_state_dir() -> str:
    """A state folder for this test process alone (XDG_STATE_HOME, inherited by every kernel, launcher
    and command the tests start), removed when the process ends: the confined kernels' launchers keep
    their quarantine records there (twnb/config/quarantine.py), which would otherwise pile up in the
    real `~/.local/state/twnb/quarantine`. Tests of the default location unset it themselves."""
    folder = tempfile.mkdtemp(prefix="twnb-tests-state-")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return folder


BROWSER_TESTS = Path(__file__).parent / "browser"  # their Playwright keeps its loop marked running

KERNEL_STARTS = "kernel-starts.txt"  # in IPYTHONDIR: one line per kernel started, the test's id
os.environ["IPYTHONDIR"] = _own_ipython_dir()
os.environ["XDG_STATE_HOME"] = _own_state_dir()
_STARTS_BEFORE = pytest.StashKey[int]()
_STARTED = time.time()


def _kernel_starts() -> Path:
    return Path(os.environ["IPYTHONDIR"]) / KERNEL_STARTS


def pytest_runtest_setup(item: pytest.Item) -> None:
    starts = _kernel_starts()
    item.stash[_STARTS_BEFORE] = starts.stat().st_size if starts.exists() else 0


@pytest.hookimpl(wrapper=True)
def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> Iterator[None]:
    """Fails a test marked neither `slow` nor `browser` that started a kernel, in its setup (a module's
    kernel fixture), its call or its teardown. A kernel whose start-up names no test ('?': started with
    an environment of its own) counts for the test running."""
    yield
    if item.get_closest_marker("slow") or item.get_closest_marker("browser"):
        return
    starts = _kernel_starts()
    if not starts.exists():
        return
    with starts.open(encoding="utf-8") as lines:
        lines.seek(item.stash.get(_STARTS_BEFORE, 0))
        own = [line for line in lines.read().splitlines() if line in (item.nodeid, "?")]
    if own:
        raise pytest.fail.Exception(
            f"{item.nodeid} started {len(own)} kernel(s) but is marked neither slow nor browser: mark it"
            " (`pytestmark = pytest.mark.slow` for its module) so that `bash tests/run.sh --fast` runs"
            " no kernel",
            pytrace=False,
        )


FAST_LANE = "not slow and not browser"  # tests/run.sh --fast's `-m`
_MODULE_MARKED_SLOW = re.compile(r"^pytestmark\s*=\s*(\[[^\]]*)?pytest\.mark\.slow\b", re.MULTILINE)
_BROWSER = Path(__file__).resolve().parent / "browser"


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """In the fast lane, the modules whose every test it would deselect are not imported: tests/browser
    (its conftest.py marks each test `browser`) and a module whose top-level `pytestmark` includes
    `pytest.mark.slow`. Importing them (assertion rewriting, nbclient, Playwright) was a third of each
    worker's collection; no test of theirs ran there anyway."""
    if " ".join(config.option.markexpr.split()) != FAST_LANE:
        return None
    if collection_path == _BROWSER:
        return True
    if collection_path.suffix == ".py" and collection_path.name.startswith("test_"):
        return bool(_MODULE_MARKED_SLOW.search(collection_path.read_text(encoding="utf-8"))) or None
    return None


@pytest.fixture
def fake_llm() -> Iterator[FakeLLMServer]:
    """A started FakeLLMServer with an empty script: `.base_url` (ends in /v1), `.root_url`
    (Azure's endpoint), `.load(script)`, `.requests()`, `.chat_requests()`, `.remaining()`, `.reset()`."""
    server = FakeLLMServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def refused_port() -> Iterator[int]:
    """A loopback port where every connection is refused, for the whole test: a socket bound to it and
    not listening. A port found free and released could be handed to another test process's server
    (or kernel) before the code under test connects, which would then reach that server instead."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield int(held.getsockname()[1])


@pytest.fixture(autouse=True)
def no_loop_running(request: pytest.FixtureRequest) -> Iterator[None]:
    """No event loop marked running on this thread, as in a terminal's IPython or when a test runs a
    loop of its own: Playwright's sync API (tests/browser/conftest.py starts it once per test process)
    leaves its loop marked running on the main thread while it is started, so a later test in the same
    worker would find "another loop running" (a watchdog test's own loop failed so in CI, after a
    browser module in its worker). For every test but the browser's, whose Playwright needs it."""
    import asyncio

    if request.node.path.is_relative_to(BROWSER_TESTS):
        yield
        return
    marked = asyncio._get_running_loop()
    asyncio._set_running_loop(None)
    yield
    asyncio._set_running_loop(marked)


@pytest.fixture(autouse=True)
def forget_refused_formats() -> Iterator[None]:
    """The process remembers which response_format each server refused (per URL and model): a test's
    loopback server may reuse an earlier one's port, so every test starts with nothing remembered."""
    yield
    from twnb.llm.response_format import PROCESS_FORMATS

    PROCESS_FORMATS.clear()


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under `--dist loadscope` (tests/run.sh), a worker takes a whole module at a time, so a module's
    kernel or notebook fixture starts once, and all of tests/browser at once: one Chromium and one
    Jupyter server at a time, on one worker, started first as the longest unit; then the modules with
    the most tests first (pytest-xdist's order), so the small ones fill in at the end."""
    if config.getoption("dist") != "loadscope":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByModuleBrowserTogether(LoadScopeScheduling):  # type: ignore[misc]
        browser_first = False

        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return "tests/browser" if path.startswith("tests/browser/") else path

        def _assign_work_unit(self, node: Any) -> None:
            if not self.browser_first and "tests/browser" in self.workqueue:
                self.workqueue.move_to_end("tests/browser", last=False)
            self.browser_first = True
            super()._assign_work_unit(node)

    return ByModuleBrowserTogether(config, log)


def pytest_terminal_summary(terminalreporter: Any, config: pytest.Config) -> None:
    """With pytest-xdist's workers, tests/browser/conftest.py's list of screenshots stays in the worker:
    this process lists the ones saved since it started."""
    if not config.pluginmanager.hasplugin("dsession"):
        return
    folder = Path(__file__).resolve().parent / "browser" / "screenshots"
    saved = sorted(p.name for p in folder.glob("*.png") if p.stat().st_mtime >= _STARTED)
    if saved:
        terminalreporter.write_line(f"browser screenshots ({len(saved)}) in {folder}: " + ", ".join(saved))
