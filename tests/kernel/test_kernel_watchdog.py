"""The time-limit watchdog: a timeout is told apart from Ctrl-C, and nothing of it outlives the code."""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
import subprocess
import sys
import threading
import time

import pytest

from twnb.kernel.guard.code_stopper import CodeStopper
from twnb.kernel.guard.watchdog import _GUARDS, Watchdog


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


def _ignore_sigint() -> None:
    """What code does to escape the time limit (reaching `signal` where verification cannot see)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def test_code_that_ignores_sigint_is_still_stopped_at_the_limit():
    previous = signal.getsignal(signal.SIGINT)
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt), Watchdog(0.2) as watchdog:
        _ignore_sigint()
        _spin(10)
    assert watchdog.fired and time.monotonic() - started < 3
    assert signal.getsignal(signal.SIGINT) is previous


def test_code_that_swallows_every_interrupt_is_still_stopped():
    started = time.monotonic()
    with pytest.raises(KeyboardInterrupt), Watchdog(0.1, escalate_every_s=0.2) as watchdog:
        while time.monotonic() - started < 10:
            try:
                signal.signal(signal.SIGINT, lambda signum, frame: None)  # its own, doing nothing
                _spin(0.01)
            except KeyboardInterrupt:
                pass  # and a careless `except KeyboardInterrupt` in a retry loop
    assert watchdog.fired
    assert time.monotonic() - started < 5


async def _awaits_past_its_limit(seen: list[str]) -> bool:
    """Code awaiting at its top level, in a task of its own (as ipykernel runs an async cell)."""
    try:
        with Watchdog(0.2, task=asyncio.current_task()) as watchdog:
            await asyncio.sleep(10)
    except KeyboardInterrupt:
        seen.append("the code's await")
    return watchdog.fired


def test_code_awaiting_in_its_task_gets_the_interrupt_and_the_event_loop_runs_on():
    # Raised in the loop instead, the interrupt would leave run_until_complete (ipykernel's kernel ends).
    loop = asyncio.new_event_loop()
    try:
        seen: list[str] = []
        started = time.monotonic()
        assert loop.run_until_complete(_awaits_past_its_limit(seen)) is True
        assert seen == ["the code's await"] and time.monotonic() - started < 5
        assert loop.run_until_complete(asyncio.sleep(0.01, result="still running")) == "still running"
    finally:
        loop.close()


def test_a_replaced_handler_is_given_back_so_the_users_ctrl_c_still_works():
    with pytest.raises(KeyboardInterrupt), Watchdog(None) as watchdog:
        _ignore_sigint()
        _spin(0.5)  # a few ticks: the watchdog takes SIGINT back
        signal.raise_signal(signal.SIGINT)  # the notebook's Interrupt button
        _spin(2)
    assert not watchdog.fired and watchdog.handler_restored >= 1


def test_a_call_that_cannot_be_interrupted_is_reported_while_it_blocks():
    reports: list[tuple[float, str]] = []
    watchdog = Watchdog(
        0.2, unresponsive_after_s=0.4, on_unresponsive=lambda text: reports.append((time.monotonic(), text))
    )
    with pytest.raises(KeyboardInterrupt), watchdog:
        _ignore_sigint()
        time.sleep(2.5)  # SIGINT ignored: only the end of the call lets the interrupt in
        ended = time.monotonic()
        _spin(1)
    assert watchdog.fired and watchdog.unresponsive
    assert len(reports) == 1 and reports[0][0] < ended
    assert "restart the kernel" in reports[0][1] and "time limit of 0.2 s" in reports[0][1]


def test_leaving_twice_is_harmless():
    previous = signal.getsignal(signal.SIGINT)
    watchdog = Watchdog(5)
    with watchdog:
        pass
    watchdog.close()
    assert signal.getsignal(signal.SIGINT) is previous


def test_a_limit_reached_as_the_code_leaves_the_block_sends_nothing_after_it():
    # Off the main thread the interrupt is an exception raised in the code's thread. Were it raised
    # as the thread enters the watchdog's __exit__, the block would be left without closing the
    # watchdog, whose thread would go on raising into whatever thread later gets the same thread id
    # (another test's server thread, seen under load in parallel runs). Here the code's thread is held
    # at that very point until the limit has passed.
    watchdog = Watchdog(0.05, escalate_every_s=0.05)
    outcome: dict[str, object] = {}

    def hold_at_exit(frame, event, arg):
        if event == "call" and frame.f_code is Watchdog.__exit__.__code__:
            sys.settrace(None)
            time.sleep(0.3)  # the limit passes while the code is leaving the block
        return None

    def worker() -> None:
        try:
            with watchdog:
                sys.settrace(hold_at_exit)
            outcome["left"] = "cleanly"
            _spin(1)  # whatever the thread runs next
            outcome["next"] = "undisturbed"
        except BaseException as exc:
            outcome["raised"] = type(exc).__name__

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join(10)
    assert outcome == {"left": "cleanly", "next": "undisturbed"}
    assert watchdog._thread is not None
    watchdog._thread.join(1)
    assert not watchdog._thread.is_alive()


def test_the_users_interrupt_while_entering_leaves_no_handler_behind():
    # `with` calls no __exit__ when __enter__ raises: an interrupt landing after the handler was set
    # (here as the watchdog builds its stopper) must not leave it installed, where the re-installs
    # queued by a later watchdog's thread would give it SIGINT back after that one ended.
    previous = signal.getsignal(signal.SIGINT)

    def interrupt_in_stopper(frame, event, arg):
        if event == "call" and frame.f_code is CodeStopper.__init__.__code__:
            sys.settrace(None)
            signal.raise_signal(signal.SIGINT)  # the notebook's Interrupt button, at that moment
        return None

    watchdog = Watchdog(5)
    sys.settrace(interrupt_in_stopper)
    try:
        with pytest.raises(KeyboardInterrupt), watchdog:
            pytest.fail("the block must not run")
    finally:
        sys.settrace(None)
    assert signal.getsignal(signal.SIGINT) is previous
    assert watchdog not in _GUARDS


EXITS_WITH_A_WATCHDOG_ARMED = """
import time
from concurrent.futures import ThreadPoolExecutor
from twnb.kernel.guard.watchdog import Watchdog

pool = ThreadPoolExecutor(1)
pool.submit(time.sleep, 1.5)  # joined by concurrent.futures' threading atexit, as the program exits
Watchdog(0.2).__enter__()  # armed as the kernel guard arms a cell; its post_run_cell never comes
print("the program ended")
"""


def test_a_process_that_exits_while_a_watchdog_is_armed_is_not_interrupted():
    # The main thread is alive while threading's atexit callbacks join other threads; the limit passes
    # then. A SIGINT sent into the exiting interpreter ended the process with a KeyboardInterrupt from
    # the watchdog's handler ("Exception ignored in: <module 'threading'>").
    done = subprocess.run(
        [sys.executable, "-c", EXITS_WITH_A_WATCHDOG_ARMED], capture_output=True, text=True, timeout=60
    )
    assert (done.returncode, done.stdout, done.stderr) == (0, "the program ended\n", "")
