"""What the runs' results say about the model server, and what the batch does about it.

- A server that serves one request at a time (llama-cpp-python stops a running reply when a second
  request arrives) cuts the replies of cases run side by side (`-j 2`): such a run ends with a
  dropped stream. The first one seen while runs shared the server turns the batch to one case at a
  time, said once, and that run goes again.
- A server that is down fails every case the same way. After `MAX_CONNECT_FAILURES` runs in a row
  could not connect, no further run starts, and one line says so and what to do.

`RunGate` is the batch's side of both: how many runs may go at once (lowered to one for good), and
whether new runs may start at all.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from twnb.evaluation.case_result import CaseResult

__all__ = [
    "MAX_CONNECT_FAILURES",
    "ONE_AT_A_TIME",
    "RunGate",
    "could_not_connect",
    "stopped_line",
    "stream_was_cut",
]

MAX_CONNECT_FAILURES = 3

ONE_AT_A_TIME = (
    "the model server cut a reply short when another case's request arrived: it serves one request at "
    "a time (llama-cpp-python does); going on one case at a time, and running the cut case again "
    "(give -j 1 for this server)"
)

# twnb's words for a stream that ended or broke before its finish reason (twnb/llm/stream.py).
_CUT = re.compile(r"the connection dropped|The connection to \S+ broke during")
# ... and for a server that could not be reached at all (twnb/llm/errors.py).
_NO_CONNECTION = re.compile(r"Could not connect to (\S+)")


def stream_was_cut(result: CaseResult) -> bool:
    return result.status == "error" and any(_CUT.search(text) for text in result.failures)


def could_not_connect(result: CaseResult) -> str | None:
    """The server's URL when the run failed because it could not connect to it; else None."""
    if result.status != "error":
        return None
    for text in result.failures:
        found = _NO_CONNECTION.search(text)
        if found is not None:
            # The base URL, as it is set (TWNB_BASE_URL, OPENAI_BASE_URL), not the endpoint under it.
            return found.group(1).rstrip(".:,").removesuffix("/chat/completions")
    return None


def stopped_line(url: str, not_started: int) -> str:
    return (
        f"twnb eval stopped: {MAX_CONNECT_FAILURES} cases in a row could not connect to {url}; "
        f"{not_started} not started. Start the server (or fix its URL), then run again with -o the same "
        "folder and --resume."
    )


class RunGate:
    """At most `limit` runs at once (lowered to 1 by `one_at_a_time`, for good); `halt` stops new ones."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.active = 0
        self.halted = False
        self._changed = threading.Condition()

    @contextmanager
    def slot(self) -> Iterator[bool]:
        """Wait for a slot; yields whether the run may start (False once halted) and frees it after."""
        with self._changed:
            self._changed.wait_for(lambda: self.halted or self.active < self.limit)
            if self.halted:
                may_start = False
            else:
                self.active += 1
                may_start = True
        try:
            yield may_start
        finally:
            if may_start:
                with self._changed:
                    self.active -= 1
                    self._changed.notify_all()

    def one_at_a_time(self) -> bool:
        """Lower the limit to one; True the first time (the caller says so then)."""
        with self._changed:
            first = self.limit > 1
            self.limit = 1
            return first

    def halt(self) -> None:
        with self._changed:
            self.halted = True
            self._changed.notify_all()
