"""The run-and-record skeleton both executors share: one call of `run`, from its id to its record.

`LiveShellExecutor` (the notebook's shell) and `KernelExecutor` (a separate kernel) differ in how code
runs and how they learn what it did, not in the order of a run: get ready (the variables and files as
they were, the guard armed), run the code while an `OutputRecorder` records its outputs, timed, then
say what it came to (status, files, variable delta) and turn all of it into one `ExecutionResult`
(`build_result`). `RecordingExecutor.run` is that order, once; each executor fills in the three steps.
"""

from __future__ import annotations

import os
import time
from abc import ABC, abstractmethod
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

from twnb.kernel.capture.capture import STREAM_HEAD_CHARS, STREAM_TAIL_CHARS, OutputRecorder
from twnb.kernel.capture.file_scan import FileChanges
from twnb.kernel.capture.outcome import ImageFiles, RunOutcome, RunTrace, build_result
from twnb.kernel.capture.output_redaction import Redact
from twnb.kernel.record import ExecutionResult, VariableChange, new_execution_id

RunState = TypeVar("RunState")


@dataclass(frozen=True)
class RunRules:
    """What generated code may do in a run, in either executor: its time limit (`default_timeout`
    seconds, None for none; `run(timeout=...)` overrides it), whether the runtime guard refuses what it
    guards (`guarded`; False when verification is off: the files the code writes are recorded
    either way), and twnb's places the code may not write (`protected`, besides Python's, IPython's
    and Jupyter's: trust_base.py). `await_on_a_thread`: whether verification lets the code run a
    coroutine on a thread of its own (live/busy_loop.py's `AWAIT_ON_A_THREAD`), so that the live
    shell's advice for code that awaits at its top level may say so; the separate kernel runs such
    code itself."""

    default_timeout: float | None = None
    guarded: bool = True
    protected: Collection[str | os.PathLike[str]] = ()
    await_on_a_thread: bool = False


@dataclass(frozen=True)
class RecordLimits:
    """How much of a run its record keeps: the head and tail of each stream, and the files listed."""

    stream_head_chars: int = STREAM_HEAD_CHARS
    stream_tail_chars: int = STREAM_TAIL_CHARS
    max_listed_files: int = 200


@dataclass(frozen=True)
class RunCall:
    """One call of `run`: the code, the run's id, its time limit (None: none), where its images go."""

    code: str
    execution_id: str
    limit: float | None
    images: ImageFiles


@dataclass
class RunEnd:
    """What an executor learnt after the code ran: the outcome, the files written, the variable delta."""

    outcome: RunOutcome
    file_changes: FileChanges
    variables: list[VariableChange]


class RecordingExecutor(ABC, Generic[RunState]):
    """Runs code and records it in the skeleton's order; `RunState` is what one run's steps share."""

    artifacts_dir: Path
    default_timeout: float | None
    stream_head_chars: int
    stream_tail_chars: int
    max_listed_files: int
    redact: Redact | None

    def run(
        self,
        code: str,
        *,
        timeout: float | None = None,
        execution_id: str | None = None,
        artifact_name: str | None = None,
        own_artifacts: Collection[str] | None = None,
    ) -> ExecutionResult:
        """Run `code` within `timeout` seconds (None: `default_timeout`) and record it (the `Executor`
        protocol, twnb/kernel/record/executor.py, says what each argument means)."""
        call = RunCall(
            code,
            execution_id or new_execution_id(),
            timeout if timeout is not None else self.default_timeout,
            ImageFiles(self.artifacts_dir, artifact_name, own_artifacts),
        )
        notes: list[str] = []
        state = self._before(call, notes)
        recorder = OutputRecorder(self.stream_head_chars, self.stream_tail_chars)
        started = time.perf_counter()
        self._execute(call, state, recorder, notes)
        duration = time.perf_counter() - started
        end = self._after(call, state, recorder, notes)
        trace = RunTrace(call.execution_id, code, recorder, end.file_changes, end.variables, duration)
        result = build_result(
            trace, end.outcome, call.images, max_listed_files=self.max_listed_files, redact=self.redact
        )
        self._finish(result, state)
        return result

    @abstractmethod
    def _before(self, call: RunCall, notes: list[str]) -> RunState:
        """Get ready to run the code: what the steps after need (the variables and files as they were);
        what the user should know goes in `notes`."""

    @abstractmethod
    def _execute(self, call: RunCall, state: RunState, recorder: OutputRecorder, notes: list[str]) -> None:
        """Run the code, its outputs into `recorder`; how it ended goes in `state`."""

    @abstractmethod
    def _after(self, call: RunCall, state: RunState, recorder: OutputRecorder, notes: list[str]) -> RunEnd:
        """What the run came to, the files it wrote and its variable delta."""

    def _finish(self, result: ExecutionResult, state: RunState) -> None:
        """Add to the record what only this executor knows (nothing, unless it says otherwise)."""
