"""twnb's one clock: UTC, ISO 8601 with milliseconds."""

from datetime import UTC, datetime, timedelta

from twnb.base.clock import now_compact, now_iso


def test_now_iso_is_utc_iso_8601_with_milliseconds():
    stamp = now_iso()
    assert datetime.fromisoformat(stamp).utcoffset() == timedelta(0)
    assert len(stamp.split("T")[1].split("+")[0]) == len("00:37:17.123")


def test_now_compact_is_the_same_utc_time_for_ids():
    compact, stamp = now_compact(), now_iso()
    from_compact = datetime.strptime(compact, "%Y%m%d-%H%M%S").replace(tzinfo=UTC)
    assert abs(datetime.fromisoformat(stamp) - from_compact) < timedelta(seconds=2)
