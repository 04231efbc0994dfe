"""Pausing Python's cyclic garbage collector while a large conversation is built.

Building one creates tens of thousands of dicts and dataclasses that hold no reference cycles; each
full collection triggered meanwhile walks the whole growing heap, which made loading 200 rounds take
5.5x the time of 50 (measured, bench/bench_memory.py). Paused, it is linear. Reference counting still
frees everything as usual; only cycle detection waits until the load ends.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
