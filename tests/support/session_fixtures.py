"""Fixtures for whole-Round tests, shared by the folders that run Rounds (session, telemetry, replay, the
notebook's step mode): each folder's conftest.py imports them by name. A real InteractiveShell, the
loopback LLM server (tests/conftest.py's `fake_llm`), a real session.

`make_session(**options)` builds the session exactly as the notebook does (`build_session` with the
settings object), pointed at the `fake_llm` server with the client's retries off so faults show at once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from support.shell_reset import reset_shell

INLINE_BACKEND = "module://matplotlib_inline.backend_inline"


class Recorder:
    """An observer that keeps every event."""

    def __init__(self) -> None:
        self.events: list[Any] = []

    def on_event(self, event: Any) -> None:
        self.events.append(event)

    def of(self, kind: str) -> list[Any]:
        return [e for e in self.events if type(e).__name__ == kind]


@pytest.fixture
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The notebook's folder: code runs with it as the working directory."""
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def shell(workdir: Path) -> Iterator[Any]:
    """The one InteractiveShell of this process, with the inline backend a notebook has and an empty
    user namespace for each test."""
    import matplotlib
    from IPython.core.interactiveshell import InteractiveShell
    from matplotlib_inline.backend_inline import configure_inline_support

    matplotlib.use(INLINE_BACKEND)
    shell = InteractiveShell.instance()
    configure_inline_support(shell, INLINE_BACKEND)
    reset_shell(shell)
    yield shell
    reset_shell(shell)
    import matplotlib.pyplot as plt

    plt.close("all")


@pytest.fixture
def make_session(fake_llm: Any, shell: Any, workdir: Path) -> Callable[..., Any]:
    from twnb.config import ResolvedSettings, Settings
    from twnb.kernel import LiveShellExecutor
    from twnb.llm import ClientLimits, OpenAIChatClient
    from twnb.session import build_session

    def make(script: dict[str, Any] | None = None, *, settings: dict[str, Any] | None = None, **options: Any):
        if script is not None:
            fake_llm.load(script)
        session_dir = workdir / ".twnb"
        executor = LiveShellExecutor(shell, workdir, session_dir / "artifacts", session_dir=session_dir)
        client = OpenAIChatClient(
            api_key="test-key", base_url=fake_llm.base_url, limits=ClientLimits(max_retries=0)
        )
        resolved = ResolvedSettings(Settings(model="fake-model", **(settings or {})), {}, workdir)
        return build_session(resolved, executor, client=client, session_dir=session_dir, **options)

    return make
