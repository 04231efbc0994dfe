"""Removing terminal colour codes: IPython colours its tracebacks, prompts and files must not carry them."""

from __future__ import annotations

import re

# CSI sequences (colours, cursor moves) and OSC sequences (hyperlinks, titles).
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")


def strip_ansi(text: str) -> str:
    return _ANSI.sub("", text)
