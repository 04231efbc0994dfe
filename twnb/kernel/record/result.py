"""What one execution produced: the record every executor returns and the session stores."""

from __future__ import annotations

import secrets
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from twnb.base import now_compact
from twnb.kernel.guard import GuardRefusal
from twnb.memory import PluginCallRecord

# "kernel_died" is only produced by KernelExecutor: the separate kernel process ended mid-run.
# "refused": the runtime guard refused something the code did (`ExecutionResult.refusals` says what).
ExecutionStatus = Literal["success", "error", "timeout", "interrupted", "kernel_died", "refused"]
VariableChangeKind = Literal["created", "rebound", "changed", "deleted"]


@dataclass
class ExecutionError:
    """The failure of one execution. `traceback` is plain text (no ANSI escape codes)."""

    ename: str
    evalue: str
    traceback: str = ""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ExecutionError:
        return cls(ename=data["ename"], evalue=data["evalue"], traceback=data.get("traceback", ""))


@dataclass
class VariableChange:
    """One name in the user namespace that the code created, rebound, changed or deleted.

    `changed` means the same object now has another type, shape or dtype (an in-place change such as a
    new DataFrame column). Objects are compared by identity and cheap attributes, never by hashing their
    contents, so an in-place edit that keeps shape and dtype (`lst[0] = 1`) is not reported.

    Its dict holds only the facts a change has (no `None` fields: most changes have no previous type
    or dtype, and every saved Round keeps each change); reading takes a missing field as `None`, so
    records written with every field (before 2026-12) read the same.
    """

    name: str
    kind: VariableChangeKind
    type: str
    shape: list[int] | None = None
    dtype: str | None = None
    previous_type: str | None = None
    previous_shape: list[int] | None = None

    def to_dict(self) -> dict[str, Any]:
        return {key: value for key, value in asdict(self).items() if value is not None}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> VariableChange:
        known: dict[str, Any] = {k: data.get(k) for k in cls.__dataclass_fields__}
        return cls(**known)


@dataclass
class ExecutionResult:
    """Everything one `run(code)` produced.

    `stdout`/`stderr` are the captured stream text, capped (head and tail kept, an explicit note marks
    what was left out: see `stdout_chars`/`stderr_chars` for the true sizes). `outputs` holds every
    output as an nbformat v4 output dict (stream, execute_result, display_data, error) for replay;
    `artifacts` lists absolute paths of files the code produced (saved display images first, then the
    files it created or modified). `refusals` are what the runtime guard refused while the code ran
    (the status is then "refused", unless the user interrupted it).
    """

    execution_id: str
    code: str
    status: ExecutionStatus
    stdout: str = ""
    stderr: str = ""
    stdout_chars: int = 0
    stderr_chars: int = 0
    result: str | None = None
    result_data: dict[str, Any] = field(default_factory=dict)
    error: ExecutionError | None = None
    displays: list[dict[str, Any]] = field(default_factory=list)
    artifacts: list[str] = field(default_factory=list)
    files_created: list[str] = field(default_factory=list)
    files_modified: list[str] = field(default_factory=list)
    variables: list[VariableChange] = field(default_factory=list)
    outputs: list[dict[str, Any]] = field(default_factory=list)
    duration_s: float = 0.0
    # Honest notes about what was bounded or went wrong around the code (scan cut short, output
    # truncated, kernel restarted, ...). Shown to the LLM with the result.
    notes: list[str] = field(default_factory=list)
    kernel_restarted: bool = False
    # The calls the code made to plugins (twnb/plugins/), recorded around the run.
    plugin_calls: list[PluginCallRecord] = field(default_factory=list)
    refusals: list[GuardRefusal] = field(default_factory=list)
    # Undo's bookkeeping (undo_log.py): the names the code may have changed in place (read from the
    # code before it ran), and what of the run cannot be undone, one line each (said before it ran).
    in_place: list[str] = field(default_factory=list)
    undo_limits: list[str] = field(default_factory=list)
    # What the runtime guard saw the code do that risky step mode asks about (guard_files.py's
    # risky_sightings): {"kind": overwrite | delete | outside | working_folder | environment | network,
    # "subject": the path, variable or address}.
    sightings: list[dict[str, str]] = field(default_factory=list)

    @property
    def success(self) -> bool:
        return self.status == "success"

    def variables_of_kind(self, kind: VariableChangeKind) -> list[str]:
        return [v.name for v in self.variables if v.kind == kind]

    def to_dict(self) -> dict[str, Any]:
        """Plain data (dicts, lists, str, numbers, bool, None) that JSON and `yaml.safe_dump` write as is."""
        data = asdict(self)
        data["success"] = self.success
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ExecutionResult:
        fields = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        if fields.get("error") is not None:
            fields["error"] = ExecutionError.from_dict(fields["error"])
        fields["variables"] = [VariableChange.from_dict(v) for v in fields.get("variables", [])]
        fields["refusals"] = [GuardRefusal.from_dict(r) for r in fields.get("refusals", [])]
        return cls(**fields)


def new_execution_id() -> str:
    """A readable, sortable id; it names the files an execution saves (`<id>-display-1.png`)."""
    return f"exec-{now_compact()}-{secrets.token_hex(3)}"
