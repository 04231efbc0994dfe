"""The TaskWeaver-format conversation files the replay tests export (tests/data)."""

from __future__ import annotations

from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "data"
TASKWEAVER_FILES = sorted(DATA.glob("*.yaml"))
