"""twnb's loggers scrub their records with the session's redactor, whatever the user's handlers are."""

from __future__ import annotations

import logging

import pytest

from twnb.base.logs import every_record_scrubbed, get_logger, set_log_scrubber

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


def test_inside_every_record_scrubbed_any_loggers_record_reaches_the_users_handler_scrubbed(root_handler):
    with every_record_scrubbed(lambda text: text.replace(SECRET, "[redacted]")):
        logging.getLogger("somelibrary.child").warning("connecting with %s", SECRET)
    assert root_handler.lines == ["somelibrary.child connecting with [redacted]"]


def test_outside_every_record_scrubbed_other_loggers_records_pass_unchanged(root_handler):
    with every_record_scrubbed(lambda text: "[scrubbed]"):
        pass
    logging.getLogger("somelibrary.child").warning("value %s", "visible")
    assert root_handler.lines == ["somelibrary.child value visible"]


def test_every_record_scrubbed_scrubs_tracebacks_and_restores_make_record(root_handler):
    root_handler.setFormatter(logging.Formatter("%(message)s | %(exc_text)s"))
    plain = logging.Logger.makeRecord
    with every_record_scrubbed(lambda text: text.replace(SECRET, "[redacted]")):
        try:
            raise RuntimeError(SECRET)
        except RuntimeError:
            logging.getLogger("somelibrary").exception("failed")
    assert logging.Logger.makeRecord is plain
    assert SECRET not in root_handler.lines[0] and "RuntimeError: [redacted]" in root_handler.lines[0]


def test_fields_a_call_adds_with_extra_are_scrubbed(root_handler):
    root_handler.setFormatter(logging.Formatter("%(message)s | %(token)s | %(headers)s | %(count)d"))
    set_log_scrubber(lambda text: text.replace(SECRET, "[redacted]"))
    extra = {"token": SECRET, "headers": {"Authorization": f"Bearer {SECRET}"}, "count": 3}
    get_logger("twnb.test.extra").warning("calling", extra=extra)
    assert root_handler.lines == ["calling | [redacted] | {'Authorization': 'Bearer [redacted]'} | 3"]


def test_extra_fields_without_a_secret_keep_their_objects(root_handler):
    seen: list[object] = []
    root_handler.emit = lambda record: seen.append(record.payload)  # type: ignore[method-assign]
    payload = {"rows": 3}
    with every_record_scrubbed(lambda text: text.replace(SECRET, "[redacted]")):
        logging.getLogger("somelibrary").warning("plain", extra={"payload": payload})
    assert seen == [payload] and seen[0] is payload
