"""A real IPython InteractiveShell with `%load_ext twnb`, in a clean folder with no twnb settings around."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from support.shell_reset import reset_shell

from twnb.config.table import SETTINGS

# Every environment variable a setting is read from (the settings table says which).
SETTING_VARIABLES = tuple(name for row in SETTINGS for name in row.env)


@pytest.fixture
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A notebook folder with no settings from the developer's environment or home."""
    for name in SETTING_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    folder = tmp_path / "notebook"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


@pytest.fixture
def shell(clean_env: Path) -> Iterator[object]:
    from IPython.core.interactiveshell import InteractiveShell

    ip = InteractiveShell.instance()
    ip.run_line_magic("load_ext", "twnb")
    try:
        yield ip
    finally:
        from twnb.notebook.extension import forget_kept_conversation

        ip.run_line_magic("unload_ext", "twnb")
        forget_kept_conversation(ip)  # the next test's notebook starts with no conversation
        # `%config TaskWeaverMagics.x = ...` also writes the shell's config, which outlives the magics.
        ip.config.pop("TaskWeaverMagics", None)
        # The shell outlives the test: its variables (an @twnb.plugin function among them, which the
        # next test's Rounds would take up as a plugin) must not reach the next test.
        reset_shell(ip)
