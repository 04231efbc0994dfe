"""What a prompt says of the kernel's state, to leave out when a replay is compared with its recording
on a pass after the first in the same kernel.

Run All twice in one kernel replays the cassette twice (the second pass starts it over). The recording
was made in a fresh kernel; the second pass meets the variables the first one made: the variables
lists differ, the code's variables are "rebound" rather than "created", a traceback's cell is
`In[13]` rather than `In[6]`. Those are the kernel's doing, not a drift of the conversation; the rest
of each request (the requests, the plans, the code, its output) must still match.
"""

from __future__ import annotations

import re
from typing import Any

from twnb.roles.namespace_delta import CHANGES_HEADER, SNAPSHOT_HEADER

_PATTERNS = (
    # the variables lists (the snapshot and its changes): the header and each line to a blank one
    (
        re.compile(
            "(?m)^(?:" + "|".join(re.escape(h) for h in (SNAPSHOT_HEADER, CHANGES_HEADER)) + r")\n(?:.+\n?)*"
        ),
        "",
    ),
    # what code made: an execution result's and a CodeInterpreter message's "Variables: ...", a
    # condensed Round's "made ..."
    (re.compile(r"Variables: [^\n]*"), "Variables: ..."),
    (re.compile(r"\bmade [^;\n]*"), "made ..."),
    # the kernel's execution count in a traceback
    (re.compile(r"\bIn \[\d+\]|\bIn\[\d+\]"), "In[...]"),
    # an empty section left by any of these
    (re.compile(r"\n{3,}"), "\n\n"),
)


def without_kernel_state(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """`messages` with what they say of the kernel's state left out (the module's docstring)."""
    stripped: list[dict[str, Any]] = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, str):
            for pattern, replacement in _PATTERNS:
                content = pattern.sub(replacement, content)
            message = {**message, "content": content.strip()}
        stripped.append(message)
    return stripped
