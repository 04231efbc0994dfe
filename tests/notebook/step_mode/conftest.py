"""Step mode's pieces (twnb/notebook/step_mode.py, the approval panel, the plan widget) driven by a real
session without a frontend: tests/support's session fixtures, whose `shell` is a plain InteractiveShell
(the notebook tests' own loads the extension, which these tests do not use)."""

from __future__ import annotations

from support.session_fixtures import make_session, recorder, shell, workdir  # noqa: F401
