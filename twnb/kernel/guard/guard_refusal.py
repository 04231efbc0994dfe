"""What the runtime guard refused while generated code ran, as data, and the exception it raises.

A `GuardRefusal` reads like verification's refusals (`Line N: <the line> -> <why> <what to do>`), so
the CodeInterpreter explains it to the model the same way and the Round revises. This module is
stdlib only: it is also sent, as source, to a kernel where twnb is not installed (kernel_guard.py).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

# Which kind of action was refused (stable names: saved with the Round and may be matched on).
PROCESS = "process"  # os.system, subprocess, fork, exec, spawn, pty, multiprocessing
CTYPES = "ctypes"  # loading or calling C libraries from the code itself
SIGNAL = "signal"  # a signal to the kernel's own process, its group or its parent
KERNEL_EXIT = "kernel-exit"  # os._exit, os.abort, the shell's ask_exit: the kernel would stop
NAMESPACE = "namespace"  # the shell's reset, or the user's variables deleted or cleared
THREAD = "thread"  # a thread started where the guard cannot follow it
CODE = "code"  # a function's code replaced, or code loaded with marshal.load
TRUST_BASE = "trust-base"  # twnb's settings, plugins, Python's and Jupyter's start-up files written
SETTINGS = "settings"  # a twnb setting (or an environment variable it reads) changed


@dataclass(frozen=True)
class GuardRefusal:
    """One action the guard refused. `line` counts from 1 in the code that ran (0: not found, say
    for code a thread ran from a string); `source` is that line; `event` the audit event or route
    (`os.system`, `InteractiveShell.reset`); `subject` what it named (a command, a library)."""

    rule: str
    event: str
    message: str
    hint: str = ""
    line: int = 0
    source: str = ""
    subject: str = ""

    @property
    def problem(self) -> str:
        """Where and why, without the hint (which speaks to the model)."""
        where = f"Line {self.line}: {self.source}" if self.line else "While the code ran"
        return f"{where} -> {self.message}"

    def __str__(self) -> str:
        return f"{self.problem} {self.hint}" if self.hint else self.problem

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GuardRefusal:
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        return cls(**known)


class RuntimeGuardRefused(BaseException):
    """Raised where generated code tried something the guard refuses. A BaseException, so a careless
    `except Exception` in the code does not carry on as if it had worked; the refusal is recorded
    whether or not the code catches it."""

    def __init__(self, refusal: GuardRefusal) -> None:
        super().__init__(f"twnb's runtime guard refused this: {refusal.message}")
        self.refusal = refusal
