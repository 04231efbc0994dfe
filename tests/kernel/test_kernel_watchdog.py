"""The time-limit watchdog: a timeout is told apart from Ctrl-C, and nothing of it outlives the code."""

from __future__ import annotations

import contextlib
import random
import signal
import threading
import time

import pytest

from twnb.kernel.watchdog import Watchdog


def _spin(seconds: float) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        pass


def test_timeout_interrupts_the_code_and_is_flagged():
    with pytest.raises(KeyboardInterrupt), Watchdog(0.05) as watchdog:
        _spin(5)
    assert watchdog.fired


def test_users_ctrl_c_is_not_flagged_as_a_timeout():
    with pytest.raises(KeyboardInterrupt), Watchdog(5) as watchdog:
        signal.raise_signal(signal.SIGINT)  # the notebook's Interrupt button
        _spin(1)
    assert not watchdog.fired


def test_code_ending_right_at_the_limit_leaves_no_interrupt_behind():
    # The code ends a hair before or after the watchdog fires; whichever way the race goes, once the
    # watchdog is left no KeyboardInterrupt may reach the code that runs next.
    rng = random.Random(5)
    previous = signal.getsignal(signal.SIGINT)
    fired = strays = 0
    for i in range(150):
        watchdog = Watchdog(0.002)
        # Mostly right at the limit; every fifth well past it, so the watchdog fires even on a busy machine.
        length = 0.02 if i % 5 == 0 else 0.002 + rng.uniform(-0.0005, 0.0005)
        try:
            # The code (IPython, in real use) handles the timeout itself.
            with watchdog, contextlib.suppress(KeyboardInterrupt):
                _spin(length)
        except KeyboardInterrupt:
            assert watchdog.fired  # the timeout landed just after the code, still inside the block
        fired += watchdog.fired
        try:
            _spin(0.002)  # whatever runs next
        except KeyboardInterrupt:
            strays += 1
        assert signal.getsignal(signal.SIGINT) is previous
    assert strays == 0
    assert fired > 0  # the race was really run


def test_off_the_main_thread_no_pending_interrupt_outlives_the_code():
    outcome: dict[str, int] = {"fired": 0, "strays": 0, "late": 0}

    def worker() -> None:
        for i in range(100):
            watchdog = Watchdog(0.002)
            try:
                with watchdog, contextlib.suppress(KeyboardInterrupt):
                    _spin(0.02 if i % 5 == 0 else 0.002)
            except KeyboardInterrupt:
                outcome["late"] += 1  # landed just after the code, still inside the block: fine
            outcome["fired"] += watchdog.fired
            try:
                _spin(0.002)
            except KeyboardInterrupt:
                outcome["strays"] += 1

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(30)
    assert outcome["strays"] == 0 and outcome["fired"] > 0


def test_previous_sigint_handler_is_restored():
    def own_handler(signum, frame):
        raise RuntimeError("own")

    saved = signal.signal(signal.SIGINT, own_handler)
    try:
        with Watchdog(None):
            assert signal.getsignal(signal.SIGINT) is not own_handler
        assert signal.getsignal(signal.SIGINT) is own_handler
    finally:
        signal.signal(signal.SIGINT, saved)
