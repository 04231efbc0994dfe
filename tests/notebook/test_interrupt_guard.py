"""SIGINT around a block: held while a Round's final display is written, raised at once while step
mode's awaited cell does the Round's synchronous work (real signals sent to this process)."""

from __future__ import annotations

import os
import signal

import pytest

from twnb.notebook.interrupt_guard import interrupts_held, interrupts_raise


def _cancel_like_an_async_cell(calls: list[int]):
    """ipykernel's handler for awaited cells only notes the signal (it asks the loop to cancel)."""
    return lambda signum, frame: calls.append(signum)


def test_inside_interrupts_raise_sigint_raises_keyboard_interrupt_at_once():
    calls: list[int] = []
    previous = signal.signal(signal.SIGINT, _cancel_like_an_async_cell(calls))
    try:
        with pytest.raises(KeyboardInterrupt), interrupts_raise():
            os.kill(os.getpid(), signal.SIGINT)
        assert calls == []
    finally:
        signal.signal(signal.SIGINT, previous)


def test_after_interrupts_raise_the_cells_own_handler_is_back():
    calls: list[int] = []
    previous = signal.signal(signal.SIGINT, handler := _cancel_like_an_async_cell(calls))
    try:
        with interrupts_raise():
            pass
        assert signal.getsignal(signal.SIGINT) is handler
        os.kill(os.getpid(), signal.SIGINT)
        assert calls == [signal.SIGINT]
    finally:
        signal.signal(signal.SIGINT, previous)


def test_inside_interrupts_held_sigint_is_counted_not_raised():
    with interrupts_held() as held:
        os.kill(os.getpid(), signal.SIGINT)
    assert held == [signal.SIGINT]
