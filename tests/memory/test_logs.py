"""twnb's loggers scrub their records with the session's redactor, whatever the user's handlers are."""

from __future__ import annotations

import logging

import pytest

from twnb.memory.logs import get_logger, set_log_scrubber

SECRET = "sk-canary-logs-0123456789"


class Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def root_handler():
    handler = Collect()
    handler.setFormatter(logging.Formatter("%(name)s %(message)s"))
    root = logging.getLogger()
    root.addHandler(handler)
    yield handler
    root.removeHandler(handler)
    set_log_scrubber(None)


def test_records_pass_unchanged_until_a_scrubber_is_set(root_handler):
    get_logger("twnb.test.plain").warning("value %s", "visible")
    assert root_handler.lines == ["twnb.test.plain value visible"]


def test_a_twnb_record_reaches_the_users_handler_scrubbed(root_handler):
    set_log_scrubber(lambda text: text.replace(SECRET, "[redacted]"))
    get_logger("twnb.test.deep.child").warning("the server said %s", SECRET)
    assert root_handler.lines == ["twnb.test.deep.child the server said [redacted]"]


def test_a_logged_traceback_is_scrubbed_too(root_handler):
    set_log_scrubber(lambda text: text.replace(SECRET, "[redacted]"))
    try:
        raise RuntimeError(f"bad key {SECRET}")
    except RuntimeError:
        get_logger("twnb.test.exc").exception("failed")
    assert SECRET not in "\n".join(root_handler.lines)
    assert "RuntimeError: bad key [redacted]" in root_handler.lines[0]
