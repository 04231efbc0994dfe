"""What the line on a thread left running calls it: the function it runs and the thread's name."""

from __future__ import annotations

import functools
import threading

from twnb.kernel.guard.started_threads import started_thread, threads_note


def spin(step: int) -> None:
    pass


def test_a_threads_target_is_named_with_the_threads_name_once():
    thread = threading.Thread(target=spin, args=(1,), name="Thread-9 (spin)")
    assert started_thread(thread._bootstrap, 1).what == "spin (Thread-9)"


def test_a_partial_is_named_by_the_function_it_calls():
    thread = threading.Thread(target=functools.partial(spin, 1), name="worker")
    started = started_thread(thread._bootstrap, 1)
    assert started.what == "spin (worker)" and started.code is spin.__code__


def test_a_thread_subclass_is_named_by_its_run_method():
    class Poller(threading.Thread):
        def run(self) -> None:
            pass

    assert started_thread(Poller(name="poller")._bootstrap, 1).what.endswith("Poller.run (poller)")


def test_a_callable_that_cannot_be_described_still_starts_its_thread():
    class Odd:
        def __getattr__(self, name: str) -> object:
            raise RuntimeError(name)

        def __call__(self) -> None:
            pass

    assert started_thread(Odd(), 1).what == "a thread"


def test_a_librarys_thread_running_the_codes_function_is_named_as_a_librarys():
    namespace: dict[str, object] = {}
    monitor = threading.Thread(target=spin, name="monitor")  # `spin` is not the code's: another namespace
    note = threads_note([], [started_thread(monitor._bootstrap, 1, namespace)])
    assert "spin (monitor) from a library, running the code's function" in note


def test_the_codes_own_thread_left_running_is_not_called_a_librarys():
    monitor = threading.Thread(target=spin, name="mine")
    note = threads_note([], [started_thread(monitor._bootstrap, 1, globals())])
    assert "spin (mine);" in note and "library" not in note
