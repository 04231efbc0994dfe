"""Fixtures shared by every test folder.

`fake_llm`: a loopback OpenAI-compatible server (tests/fakellm) started for one test and stopped after it.

    def test_x(fake_llm):
        fake_llm.load({"Planner": ["{...}"], "*": ["hi"]})
        client = OpenAIChatClient(api_key="test-key", base_url=fake_llm.base_url)
        ...
        assert fake_llm.requests()[0]["body"]["stream"] is True
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

# The fake server lives beside the tests, not in the package: tests/ is on the import path through
# pytest's `pythonpath` (pyproject.toml), as is the repository's root (hatch_build.py).
from fakellm.server import FakeLLMServer


def _own_ipython_dir() -> str:
    """An IPython folder for this test session alone, set as IPYTHONDIR before any shell or kernel
    starts (kernels inherit it), and removed when the session ends.

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
    for name in ("ipython_config.py", "ipython_kernel_config.py"):
        (profile / name).write_text(in_memory, encoding="utf-8")
    atexit.register(shutil.rmtree, folder, ignore_errors=True)
    return str(folder)


os.environ["IPYTHONDIR"] = _own_ipython_dir()


@pytest.fixture
def fake_llm() -> Iterator[FakeLLMServer]:
    """A started FakeLLMServer with an empty script: `.base_url` (ends in /v1), `.root_url`
    (Azure's endpoint), `.load(script)`, `.requests()`, `.chat_requests()`, `.remaining()`, `.reset()`."""
    server = FakeLLMServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def forget_refused_formats() -> Iterator[None]:
    """The process remembers which response_format each server refused (per URL and model): a test's
    loopback server may reuse an earlier one's port, so every test starts with nothing remembered."""
    yield
    from twnb.llm.response_format import PROCESS_FORMATS

    PROCESS_FORMATS.clear()
