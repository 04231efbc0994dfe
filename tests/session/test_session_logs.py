"""A session's redactor scrubs twnb's own log records: a secret never reaches the user's handlers."""

from __future__ import annotations

import logging

from twnb.base.logs import get_logger, set_log_scrubber


def test_building_a_session_scrubs_twnb_logs_with_its_redactor(make_session, secret_env):
    lines: list[str] = []
    handler = logging.Handler()
    handler.emit = lambda record: lines.append(record.getMessage())  # type: ignore[method-assign]
    logging.getLogger().addHandler(handler)
    try:
        make_session()
        get_logger("twnb.session.session").warning("autosave failed near %s", secret_env)
    finally:
        logging.getLogger().removeHandler(handler)
        set_log_scrubber(None)
    # Only this record: a thread of an earlier test (or the session's own) may log meanwhile.
    assert [line for line in lines if line.startswith("autosave failed")] == [
        "autosave failed near [redacted]"
    ]
