"""Fixtures for the plugin tests: a copy of the test plugins (TaskWeaver's format, written for these
tests), a real InteractiveShell, and sessions built with the notebook's plugins against the loopback
LLM server.

`make_session(script, catalog=...)` builds a Session as `build_live_session` does for a notebook: the
LiveShellExecutor wrapped in a PluginExecutor, the catalog handed to both roles and the session.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from plugin_files import DATA
from support.shell_reset import reset_shell

INLINE_BACKEND = "module://matplotlib_inline.backend_inline"


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.fixture
def plugin_folder(workdir: Path) -> Path:
    """The test plugins, copied beside the notebook as `plugins/` (the default plugin folder)."""
    folder = workdir / "plugins"
    shutil.copytree(DATA / "taskweaver", folder)
    return folder


@pytest.fixture(autouse=True)
def forget_plugin_modules() -> Iterator[None]:
    """Each test loads its plugins afresh (a plugin file is imported as `twnb_plugin_NAME`)."""
    yield
    for name in [n for n in sys.modules if n.startswith("twnb_plugin_")]:
        del sys.modules[name]


@pytest.fixture
def shell(workdir: Path) -> Iterator[Any]:
    import matplotlib
    from IPython.core.interactiveshell import InteractiveShell
    from matplotlib_inline.backend_inline import configure_inline_support

    matplotlib.use(INLINE_BACKEND)
    shell = InteractiveShell.instance()
    configure_inline_support(shell, INLINE_BACKEND)
    reset_shell(shell)
    yield shell
    reset_shell(shell)


@pytest.fixture
def make_catalog(workdir: Path, shell: Any) -> Iterator[Callable[..., Any]]:
    from twnb.plugins import PluginCatalog

    made: list[Any] = []

    def make(**options: Any) -> Any:
        options.setdefault("folders", [workdir / "plugins"])
        options.setdefault("artifacts_dir", workdir / "twnb-artifacts")
        catalog = PluginCatalog(namespace=shell.user_ns, hidden=shell.user_ns_hidden, **options)
        made.append(catalog)
        return catalog

    yield make
    for catalog in made:
        catalog.close()


@pytest.fixture
def make_session(fake_llm: Any, shell: Any, workdir: Path) -> Callable[..., Any]:
    from twnb.config import ResolvedSettings, Settings
    from twnb.kernel import LiveShellExecutor, NotebookOutput
    from twnb.llm import ClientLimits, OpenAIChatClient
    from twnb.plugins import PluginExecutor
    from twnb.session import NotebookParts, build_session
    from twnb.session.factory import redactor_for

    def make(script: dict[str, Any], catalog: Any, **settings: Any) -> Any:
        fake_llm.load(script)
        session_dir = workdir / ".twnb"
        resolved = ResolvedSettings(Settings(model="fake-model", **settings), {}, workdir)
        redactor = redactor_for(resolved)
        catalog.remember_secrets = redactor.remember
        live = LiveShellExecutor(
            shell,
            workdir,
            catalog.artifacts_dir,
            session_dir=session_dir,
            output=NotebookOutput(redact=redactor.redact),
        )
        executor = PluginExecutor(live, catalog, catalog.artifacts_dir)
        client = OpenAIChatClient(
            api_key="test-key", base_url=fake_llm.base_url, limits=ClientLimits(max_retries=0)
        )
        return build_session(
            resolved,
            executor,
            client=client,
            session_dir=session_dir,
            redactor=redactor,
            notebook=NotebookParts(plugins=catalog),
        )

    return make
