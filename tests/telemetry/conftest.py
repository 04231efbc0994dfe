"""Tracing tests run whole Rounds: tests/support's session fixtures (`make_session`, `shell`, `workdir`)."""

from __future__ import annotations

from support.session_fixtures import make_session, recorder, shell, workdir  # noqa: F401
