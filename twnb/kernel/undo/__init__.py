"""Undo: each run's snapshot (what it replaced, copies of what it may change in place, the files it
overwrote), the content digests that say whether something changed since, and which calls only read."""
