"""A rate limit for view updates: a widget update per token floods the frontend.

See docs/architecture.md, "Dropped streams end silently".

The first update goes out at once (time to first visible token matters most), later ones at most
`rate_hz` a second; the caller flushes the end of a stream unconditionally with `force()`. Kept apart
from the widget so its behaviour is testable with a fake clock and no frontend.
"""

from __future__ import annotations

import time
from collections.abc import Callable


class Throttle:
    """Says when an update may go out; counts the updates that did."""

    def __init__(self, rate_hz: float = 10.0, clock: Callable[[], float] = time.monotonic) -> None:
        if rate_hz <= 0:
            raise ValueError(f"rate_hz must be positive, got {rate_hz}")
        self.interval = 1.0 / rate_hz
        self._clock = clock
        self._last: float | None = None
        self.updates = 0  # every update that went out, forced ones included
        self.skipped = 0  # requests held back (their text goes out with a later update)

    def ready(self) -> bool:
        """True when an update may go out now; the caller then sends it (and this counts it)."""
        now = self._clock()
        if self._last is None or now - self._last >= self.interval - 1e-9:  # float sums of steps
            self._last = now
            self.updates += 1
            return True
        self.skipped += 1
        return False

    def force(self) -> None:
        """Record an update that goes out regardless (the end of a stream, a state change)."""
        self._last = self._clock()
        self.updates += 1
