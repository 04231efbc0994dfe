"""twnb's loggers, and the one place their records are scrubbed of secrets.

Every twnb module logs through `get_logger(__name__)`, which puts one shared `ScrubbingFilter` on
that logger. The session hands it its redactor (`set_log_scrubber`), so a key or a secret value never
reaches the user's log handlers, whatever they are. The filter sits on each twnb logger, not on a
handler, because twnb cannot know the user's handlers, and a filter on the parent `twnb` logger would
not see the records of its children. Until a session sets a scrubber, records pass unchanged.
"""

from __future__ import annotations

import logging
from collections.abc import Callable


class ScrubbingFilter(logging.Filter):
    """Passes each record's message, arguments, traceback and stack through `scrub`."""

    def __init__(self, scrub: Callable[[str], str] | None = None) -> None:
        super().__init__()
        self.scrub = scrub

    def filter(self, record: logging.LogRecord) -> bool:
        scrub = self.scrub
        if scrub is None:
            return True
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
        return True


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
