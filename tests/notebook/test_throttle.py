"""The update throttle: ~10 updates a second, the first at once, forced ends always counted."""

from __future__ import annotations

import pytest
from nb_fake_clock import FakeClock

from twnb.notebook.throttle import Throttle


def test_first_update_goes_out_at_once():
    assert Throttle(10, FakeClock()).ready() is True


def test_updates_inside_the_interval_are_held_back():
    clock = FakeClock()
    throttle = Throttle(10, clock)
    throttle.ready()
    clock.advance(0.05)
    assert throttle.ready() is False
    clock.advance(0.05)
    assert throttle.ready() is True


def test_a_token_every_millisecond_for_two_seconds_gives_about_twenty_updates():
    clock = FakeClock()
    throttle = Throttle(10, clock)
    sent = 0
    for _ in range(2000):
        sent += throttle.ready()
        clock.advance(0.001)
    assert sent == throttle.updates
    assert 19 <= sent <= 21
    assert throttle.skipped == 2000 - sent


def test_forced_update_is_counted_and_restarts_the_interval():
    clock = FakeClock()
    throttle = Throttle(10, clock)
    throttle.force()
    assert throttle.updates == 1
    assert throttle.ready() is False


def test_rate_must_be_positive():
    with pytest.raises(ValueError, match="rate_hz must be positive"):
        Throttle(0)
