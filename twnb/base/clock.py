"""twnb's one clock: UTC. Times are written as ISO 8601 with milliseconds; ids and file names carry
the compact form (`20261130-003717`), which sorts the same way."""

from __future__ import annotations

from datetime import UTC, datetime


def now_iso() -> str:
    """`2026-11-30T00:37:17.123+00:00`."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def now_iso_precise() -> str:
    """`2026-11-30T00:37:17.123456+00:00`: microseconds, for events placed on a time line (a plugin
    call inside a code run, whose spans must nest)."""
    return datetime.now(UTC).isoformat(timespec="microseconds")


def now_compact() -> str:
    """`20261130-003717`, for ids and file names."""
    return f"{datetime.now(UTC):%Y%m%d-%H%M%S}"
