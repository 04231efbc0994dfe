"""twnb's loggers, and the one place log records are scrubbed of secrets.

Every twnb module logs through `get_logger(__name__)`, which puts one shared `ScrubbingFilter` on
that logger. The session hands it its redactor (`set_log_scrubber`), so a key or a secret value never
reaches the user's log handlers, whatever they are. The filter sits on each twnb logger, not on a
handler, because twnb cannot know the user's handlers, and a filter on the parent `twnb` logger would
not see the records of its children. Until a session sets a scrubber, records pass unchanged.

Code twnb runs also logs through loggers twnb does not own: the libraries generated code calls, and
the openai SDK and httpx under twnb's own client (which log the request URL, user info included,
once the user's `logging.basicConfig(level=logging.INFO)` lets them). Inside `every_record_scrubbed`
every record, of any logger in any thread, is scrubbed as it is made (`Logger.makeRecord`), before
any filter or handler sees it.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from typing import Any


class ScrubbingFilter(logging.Filter):
    """Passes each record's message, arguments, traceback and stack through `scrub`."""

    def __init__(self, scrub: Callable[[str], str] | None = None) -> None:
        super().__init__()
        self.scrub = scrub

    def filter(self, record: logging.LogRecord) -> bool:
        if self.scrub is not None:
            scrub_record(record, self.scrub)
        return True


# What every LogRecord has; any other attribute came from a call's `extra=` (or a record factory).
_RECORD_ATTRIBUTES = frozenset(vars(logging.LogRecord("", 0, "", 0, "", None, None))) | {"message", "asctime"}


def scrub_record(record: logging.LogRecord, scrub: Callable[[str], str]) -> None:
    """Scrub `record` in place: its message (formatted with its arguments), traceback, stack, and the
    fields a call added with `extra=` (a handler or formatter may show any of them)."""
    try:
        message = record.getMessage()
    except Exception:  # a bad format string: keep the raw parts rather than lose the record
        message = f"{record.msg} {record.args}"
    record.msg = scrub(message)
    record.args = None
    if record.exc_info and not record.exc_text:
        record.exc_text = logging.Formatter().formatException(record.exc_info)
    if record.exc_text:
        record.exc_text = scrub(record.exc_text)
    if record.stack_info:
        record.stack_info = scrub(record.stack_info)
    for name, value in vars(record).items():
        if name not in _RECORD_ATTRIBUTES:
            setattr(record, name, _scrub_field(value, scrub))


def _scrub_field(value: Any, scrub: Callable[[str], str]) -> Any:
    """`value` as it is when its text holds nothing to scrub; else its text scrubbed (a string then: a
    formatter shows a field by its text, and the object itself would still hold the secret)."""
    if value is None or isinstance(value, bool | int | float):
        return value
    try:
        text = value if isinstance(value, str) else str(value)
    except Exception:  # an object whose str() fails cannot be shown by a formatter either
        return value
    scrubbed = scrub(text)
    return value if scrubbed == text else scrubbed


_TWNB_FILTER = ScrubbingFilter()


def get_logger(name: str) -> logging.Logger:
    """The logger `name`, its records scrubbed by the session's redactor."""
    logger = logging.getLogger(name)
    if _TWNB_FILTER not in logger.filters:
        logger.addFilter(_TWNB_FILTER)
    return logger


def set_log_scrubber(scrub: Callable[[str], str] | None) -> None:
    """Scrub every twnb log record with `scrub` from now on (None: leave records as they are)."""
    _TWNB_FILTER.scrub = scrub


# The scrubs of the `every_record_scrubbed` blocks open now (the newest applies), and Logger.makeRecord
# as it was before the first of them opened.
_open_scrubs: list[Callable[[str], str]] = []
_scope_lock = threading.Lock()
_plain_make_record: Any = None


def _scrubbed_make_record(self: logging.Logger, *args: Any, **kwargs: Any) -> logging.LogRecord:
    record: logging.LogRecord = _plain_make_record(self, *args, **kwargs)
    scrubs = _open_scrubs
    if scrubs:
        scrub_record(record, scrubs[-1])
    return record


@contextlib.contextmanager
def every_record_scrubbed(scrub: Callable[[str], str] | None) -> Iterator[None]:
    """Scrub every log record made inside this block, whatever logger, thread or handler: records are
    scrubbed as they are made. `None` scrubs nothing. Blocks may nest and overlap across threads."""
    global _plain_make_record
    if scrub is None:
        yield
        return
    with _scope_lock:
        if not _open_scrubs:
            _plain_make_record = vars(logging.Logger)["makeRecord"]
            logging.Logger.makeRecord = _scrubbed_make_record  # type: ignore[method-assign]
        _open_scrubs.append(scrub)
    try:
        yield
    finally:
        with _scope_lock:
            _open_scrubs.remove(scrub)
            if not _open_scrubs:
                logging.Logger.makeRecord = _plain_make_record  # type: ignore[method-assign]
