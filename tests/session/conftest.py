"""Fixtures for whole-Round tests (tests/support/session_fixtures.py: `make_session`, `shell`,
`workdir`, `recorder`), and an environment holding a secret."""

from __future__ import annotations

import pytest
from support.session_fixtures import make_session, recorder, shell, workdir  # noqa: F401


@pytest.fixture
def secret_env(monkeypatch: pytest.MonkeyPatch) -> str:
    value = "sk-test-" + "9f8e7d6c5b4a" * 3
    monkeypatch.setenv("TWNB_TEST_SECRET_TOKEN", value)
    return value
