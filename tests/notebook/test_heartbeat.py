"""The heartbeat: a daemon thread calling back about once a second until stopped."""

from __future__ import annotations

import threading

import pytest

from twnb.notebook.heartbeat import Heartbeat


def test_it_calls_back_repeatedly_until_stopped():
    import time

    calls: list[float] = []
    beat = Heartbeat(lambda: calls.append(time.monotonic()), interval=0.01)
    beat.start()
    deadline = time.monotonic() + 2
    while len(calls) < 3 and time.monotonic() < deadline:
        time.sleep(0.005)
    beat.stop()
    stopped_at = len(calls)
    time.sleep(0.05)
    assert stopped_at >= 3
    assert len(calls) == stopped_at


def test_stop_waits_for_the_thread_and_is_idempotent():
    beat = Heartbeat(lambda: None, interval=0.01)
    beat.start()
    beat.stop()
    beat.stop()
    assert not beat._thread.is_alive()


def test_a_failing_callback_stops_the_heartbeat_after_logging_once(caplog):
    def broken() -> None:
        raise RuntimeError("boom")

    beat = Heartbeat(broken, interval=0.01)
    beat.start()
    beat._thread.join(timeout=2)
    assert not beat._thread.is_alive()
    assert caplog.text.count("the widget heartbeat failed") == 1


def test_it_runs_in_the_starting_threads_context():
    import contextvars

    cell = contextvars.ContextVar("cell")
    cell.set("cell-7")
    seen: list[str] = []
    done = threading.Event()

    def record() -> None:
        seen.append(cell.get())
        done.set()

    beat = Heartbeat(record, interval=0.01)
    beat.start()
    done.wait(2)
    beat.stop()
    assert seen[0] == "cell-7"


def test_interval_must_be_positive():
    with pytest.raises(ValueError, match="interval must be positive"):
        Heartbeat(lambda: None, interval=0)
