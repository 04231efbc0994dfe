"""Fixtures for `twnb eval` tests: a clean folder with no twnb settings around, and case files written
the way TaskWeaver's auto_eval cases are (look-alikes written here, not TaskWeaver's own files)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

from twnb.config.table import SETTINGS

SETTING_VARIABLES = tuple(name for row in SETTINGS for name in row.env)

MakeCase = Callable[..., Path]


@pytest.fixture
def clean_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The folder `twnb eval` runs in, with no settings from the developer's environment or home."""
    for name in SETTING_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    folder = tmp_path / "work"
    folder.mkdir()
    monkeypatch.chdir(folder)
    return folder


@pytest.fixture
def make_case(tmp_path: Path) -> MakeCase:
    """Write a case folder `cases/NAME/NAME.yaml` (TaskWeaver's layout) with `fields` over a minimal
    case, and its data files (name -> text); returns the case file."""

    def make(
        name: str, *, data: dict[str, str] | None = None, root: Path | None = None, **fields: Any
    ) -> Path:
        case: dict[str, Any] = {
            "version": 0.1,
            "config_var": {"execution_service.kernel_mode": "local"},
            "app_dir": "../project/",
            "dependencies": [],
            "task_description": "Ask the agent to compute 6 times 7.",
            "scoring_points": [{"score_point": "The agent says 42", "weight": 1}],
        }
        case.update(fields)
        folder = (root or tmp_path / "cases") / name
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"{name}.yaml"
        path.write_text(yaml.safe_dump(case, sort_keys=False), encoding="utf-8")
        for file_name, text in (data or {}).items():
            (folder / file_name).write_text(text, encoding="utf-8")
        return path

    return make


@pytest.fixture
def live(clean_env: Path, fake_llm, monkeypatch: pytest.MonkeyPatch):
    """The loopback fake server as the model server of `twnb eval` (and of each case's kernel)."""
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-0123456789abcdefghij")
    return fake_llm
