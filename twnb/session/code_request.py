"""What the Round driver yields: one piece of code to run, and whose it is."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class CodeRequest:
    """Run `code` (the reply of the CodeInterpreter post `post_id`) within `timeout` seconds (None: no
    limit) and send the kernel's `ExecutionResult` back into the driver. Files saved for the user (the
    figures the code displays) are named after `artifact_name` (`round-2-revenue-by-month`)."""

    post_id: str
    code: str
    timeout: float | None
    artifact_name: str | None = None
