"""Running code on the live IPython shell, the notebook's own kernel, and recording everything."""

from __future__ import annotations

import os
import sys
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twnb.base import every_record_scrubbed
from twnb.confine import RefusedStartsRecord
from twnb.kernel.capture import (
    SYS_EXIT_NOTE,
    FileChanges,
    OutputRecorder,
    RecordingExecutor,
    RecordLimits,
    Redact,
    RunCall,
    RunEnd,
    RunOutcome,
    RunRules,
    comm_messages_redacted,
    late_refusal_note,
    recorded_shell_output,
    say_note,
    secret_variable_values,
    time_limit_notes,
    timed_out,
    traceback_text,
    with_refusals,
)
from twnb.kernel.guard import (
    ExitRefused,
    GuardedRun,
    RuntimeGuard,
    ShellGuard,
    TrustBase,
    Watchdog,
    exit_refused,
    interrupts_end_in_user_code,
    left_threads_note,
    restore_settings_environment,
    risky_sightings,
    settings_environment,
    written_files,
)
from twnb.kernel.live.busy_loop import TOP_LEVEL_AWAIT, awaits_on_the_busy_loop, top_level_await_advice
from twnb.kernel.namespace import IPYTHON_NAMES, namespace_signatures, summarize_namespace, variable_delta
from twnb.kernel.record import ExecutionError, ExecutionResult, ExecutionStatus
from twnb.kernel.undo import RunSnapshot, UndoLog

if TYPE_CHECKING:
    from typing import TextIO

    from IPython.core.interactiveshell import InteractiveShell


@dataclass(frozen=True)
class NotebookOutput:
    """What the notebook shows of a run's output, and what it keeps secret.

    `redact` (the session's redactor's `redact`) is applied to every output the code makes before it
    is shown or recorded, to what threads it left running write later, and, while the code runs, to
    every log record and to what comms send. `remember_secrets` (the redactor's `remember`) is told
    the values of secret-named variables before and after each run, so they stay secrets once the
    variable is gone. Displays that hold active content (JavaScript, HTML that runs script) are
    recorded as text, and shown so unless `allow_active_output`.
    """

    redact: Redact | None = None
    remember_secrets: Callable[[Iterable[str]], None] | None = None
    allow_active_output: bool = False


@dataclass(frozen=True)
class LiveBookkeeping:
    """The records a `LiveShellExecutor` keeps beside its results.

    `undo_log` (None for none) records each run so it can be undone; `refused_starts` (None for the
    record the confined kernel's launcher named: `RefusedStartsRecord.of_this_kernel`) is read for
    the program starts the supervisor outside refused while the code ran.
    """

    undo_log: UndoLog | None = None
    refused_starts: RefusedStartsRecord | None = None


@dataclass
class _LiveRun:
    """What one run's steps on the live shell share."""

    guard: RuntimeGuard
    shell_guard: ShellGuard
    hidden: set[str]
    before_vars: Any
    snapshot: RunSnapshot | None
    watchdog: Watchdog
    run: GuardedRun
    folder_before: str
    path_before: list[str]
    environment_before: dict[str, str]
    inert_lines: list[str] = field(default_factory=list)
    cell: Any = None
    interrupted_outside_code: bool = False
    not_started: ExecutionError | None = None  # why the code was not run at all


class LiveShellExecutor(RecordingExecutor[_LiveRun]):
    """Runs code with `shell.run_cell(code, store_history=False)`: the output shows in the calling cell,
    variables land in the user's namespace, and the returned ExecutionResult records all of it.

    `rules` (a `RunRules`), `output` (a `NotebookOutput`) and `bookkeeping` (a `LiveBookkeeping`) hold
    the options named below; `limits` (a `RecordLimits`) say how much of each run is kept.
    `timeout` (seconds, None for none) is enforced by a watchdog that interrupts the main thread,
    even when the code ignores SIGINT or swallows every interrupt; code it cannot stop (blocked in C)
    is reported in the cell while it blocks, with what to do (restart the kernel).
    The code runs under the runtime guard (runtime_guard.py, shell_guard.py): with `rules.guarded` (the
    default; False when verification is off) it refuses processes, ctypes, signals to the kernel, the
    shell's reset and exit, and puts back the user's variables the code removed; the result's
    `refusals` say what, and the status is "refused". Either way the files the code wrote are the
    guard's record of them, wherever the code wrote; files in `session_dir` and `artifacts_dir` are
    not artifacts. Images the code displays are saved in `artifacts_dir`, named after
    `run(..., artifact_name=...)` when given. Displays of the code that hold active content (JavaScript,
    HTML that runs script) are recorded as text, and shown so unless `output.allow_active_output`.
    `output.redact` (the session's redactor's `redact`) is applied to every output the code makes before it
    is shown in the notebook or recorded, and to what threads it left running write later; the user's
    own cells are not touched, except while such a thread still runs (their output is then redacted
    too: lingering_output.py). While the code runs `redact` also applies to every log record made
    (base/logs.py) and to what comms send (comm_redaction.py: widget state), and display metadata.
    `output.remember_secrets` (the redactor's `remember`) is told the values of secret-named variables before
    and after each run, so they stay secrets once the variable is gone.
    With a `bookkeeping.undo_log`, each run is recorded there so it can be undone (undo_log.py): what
    cannot be undone (an object over the undo budget) is said in the cell before the code runs, and in
    the result's `undo_limits`.
    In a confined kernel (the `twnb-confined` kernelspec, `twnb eval`'s and `twnb demo --live`'s),
    `bookkeeping.refused_starts` (by default the record its launcher named:
    `RefusedStartsRecord.of_this_kernel`) holds the program starts the supervisor outside refused;
    those made while the code ran are a line of the result's `notes`, as `KernelExecutor` gives them
    (`os.system` and libc's `system` raise nothing: the record is how the Round, and the model, learn
    of them).
    """

    def __init__(
        self,
        shell: InteractiveShell,
        workdir: str | os.PathLike[str],
        artifacts_dir: str | os.PathLike[str],
        session_dir: str | os.PathLike[str] | None = None,
        *,
        output: NotebookOutput = NotebookOutput(),
        rules: RunRules = RunRules(),
        limits: RecordLimits = RecordLimits(),
        bookkeeping: LiveBookkeeping = LiveBookkeeping(),
    ) -> None:
        self.shell = shell
        refused_starts = bookkeeping.refused_starts
        self.refused_starts = (
            refused_starts if refused_starts is not None else RefusedStartsRecord.of_this_kernel()
        )
        # twnb's places the code may not write, besides Python's, IPython's and Jupyter's (trust_base.py)
        self.protected = [os.fspath(p) for p in rules.protected]
        self._trust_base: TrustBase | None = None
        self.undo_log = bookkeeping.undo_log
        self.redact = output.redact
        self.remember_secrets = output.remember_secrets
        self.workdir = Path(workdir)
        self.artifacts_dir = Path(artifacts_dir)
        self.session_dir = Path(session_dir) if session_dir is not None else None
        self.default_timeout = rules.default_timeout
        self.guarded = rules.guarded
        self.await_on_a_thread = rules.await_on_a_thread
        self.allow_active_output = output.allow_active_output
        self.stream_head_chars = limits.stream_head_chars
        self.stream_tail_chars = limits.stream_tail_chars
        self.max_listed_files = limits.max_listed_files
        # Each name's plain value and signature from the last scan: most are the same objects at the
        # next (namespace_signatures).
        self._signatures_memo: dict[str, Any] = {}

    def _trust_base_now(self) -> TrustBase:
        """The trust base of this executor's runs (built at the first: trust_base.py)."""
        if self._trust_base is None:
            folders = [*self.protected, *(os.fspath(p) for p in (self.session_dir,) if p is not None)]
            self._trust_base = TrustBase.build(twnb_folders=folders, working_folders=[self.workdir])
        return self._trust_base

    def _skipped_dirs(self) -> tuple[Path, ...]:
        return tuple(p for p in (self.session_dir, self.artifacts_dir) if p is not None)

    def _hidden_names(self) -> set[str]:
        return set(IPYTHON_NAMES) | set(getattr(self.shell, "user_ns_hidden", {}) or {})

    def namespace_summary(self, **options: Any) -> str:
        """The prompt text describing the user's variables (see summarize_namespace)."""
        return summarize_namespace(self.shell.user_ns, hidden_names=self._hidden_names(), **options)

    def _before(self, call: RunCall, notes: list[str]) -> _LiveRun:
        self._remember_secret_variables()
        if self.refused_starts is not None:
            self.refused_starts.read_new()  # the user's cells since the last run: not this code's
        guard = RuntimeGuard.installed()
        shell_guard = ShellGuard.for_shell(self.shell, guard)
        notes.extend(late_refusal_note(refusal) for refusal in guard.take_late_refusals())
        hidden = self._hidden_names()
        before_vars = _signatures_or_note(self.shell.user_ns, hidden, notes, self._signatures_memo)
        namespace = self.shell.user_global_ns
        # Known before anything runs, so no undo snapshot is taken for it (nothing to undo, nor to offer).
        not_started = self._not_started(call.code)
        snapshot = None if not_started else self._undo_begin(call.execution_id, call.code, hidden, notes)
        watchdog = Watchdog(call.limit, on_unresponsive=_telling(sys.stderr), code_namespace=namespace)
        run = GuardedRun(
            refuse=self.guarded,
            code_namespace=namespace,
            keep_before=snapshot.keep_file if snapshot is not None else None,
            trust_base=self._trust_base_now(),
        )
        return _LiveRun(
            guard,
            shell_guard,
            hidden,
            before_vars,
            snapshot,
            watchdog,
            run,
            os.getcwd(),
            list(sys.path),
            settings_environment(),
            not_started=not_started,
        )

    def _not_started(self, code: str) -> ExecutionError | None:
        """Why this code will not be run at all (it awaits on the busy loop: busy_loop.py), or None."""
        if awaits_on_the_busy_loop(self.shell, code):
            return ExecutionError(TOP_LEVEL_AWAIT, top_level_await_advice(self.await_on_a_thread))
        return None

    def _execute(self, call: RunCall, state: _LiveRun, recorder: OutputRecorder, notes: list[str]) -> None:
        if state.not_started is not None:
            sys.stderr.write(f"twnb: {state.not_started.evalue}\n")  # where IPython's traceback would be
            sys.stderr.flush()
            return
        namespace = self.shell.user_global_ns
        with (
            exit_refused(self.shell),
            recorded_shell_output(
                self.shell,
                recorder,
                self.redact,
                allow_active=self.allow_active_output,
                on_inert=state.inert_lines.append,
            ),
            every_record_scrubbed(self.redact),
            comm_messages_redacted(self.redact),
            interrupts_end_in_user_code(self.shell, namespace),
        ):
            try:
                # The watchdog's thread starts before arming: it is twnb's, not the code's.
                with state.watchdog, state.shell_guard.keeping(state.run), state.guard.watching(state.run):
                    state.cell = self.shell.run_cell(call.code, store_history=False)
            except KeyboardInterrupt:
                # Landed in IPython's machinery rather than in the code: still this run's interrupt.
                state.interrupted_outside_code = True
            finally:
                state.watchdog.close()  # a no-op, unless a late interrupt of its own cut leaving short

    def _after(self, call: RunCall, state: _LiveRun, recorder: OutputRecorder, notes: list[str]) -> RunEnd:
        self._remember_secret_variables()
        _put_settings_environment_back(state.environment_before, notes)
        run, hidden, snapshot = state.run, state.hidden, state.snapshot
        status, error = (
            ("error", state.not_started)
            if state.not_started is not None
            else self._outcome(
                state.cell, recorder, state.watchdog, call.limit, state.interrupted_outside_code, notes
            )
        )
        why = {"timeout": "at the time limit", "interrupted": "on interrupt"}.get(status, "")
        left_threads = left_threads_note(run.threads, run.code_namespace, why)
        if left_threads:
            say_note(left_threads, notes)
        status, error = with_refusals(status, error, run.refusals)
        if self.refused_starts is not None:
            notes.extend(self.refused_starts.take_notes())
        notes.extend(dict.fromkeys(state.inert_lines))
        created, modified = written_files(
            run, skip=self._skipped_dirs(), workdirs=(self.workdir, os.getcwd())
        )
        changes = FileChanges([Path(p) for p in created], [Path(p) for p in modified])
        if snapshot is not None and self.undo_log is not None:
            self.undo_log.end(snapshot, self.shell.user_ns, hidden, created)
        sightings = risky_sightings(run, self.workdir, skip=self._skipped_dirs())
        sightings += _state_changes(state.folder_before, state.path_before, sightings)
        after_vars = (
            None
            if state.before_vars is None
            else _signatures_or_note(self.shell.user_ns, hidden, notes, self._signatures_memo)
        )
        variables = variable_delta(state.before_vars, after_vars) if after_vars is not None else []
        return RunEnd(RunOutcome(status, error, notes, run.refusals, sightings), changes, variables)

    def _finish(self, result: ExecutionResult, state: _LiveRun) -> None:
        if state.snapshot is not None:
            result.in_place = list(state.snapshot.in_place)
            result.undo_limits = state.snapshot.limit_lines()

    def _undo_begin(
        self, execution_id: str, code: str, hidden: set[str], notes: list[str]
    ) -> RunSnapshot | None:
        """The run's undo snapshot, taken before it runs; what cannot be undone is said now, in the
        cell (before the code's own output), and in the result's notes."""
        if self.undo_log is None:
            return None
        try:
            snapshot = self.undo_log.begin(execution_id, code, self.shell.user_ns, hidden)
        except Exception as exc:  # undo is a courtesy: it must never keep the code from running
            notes.append(f"This run cannot be undone: its snapshot failed ({type(exc).__name__}: {exc}).")
            return None
        limits = snapshot.limit_lines()
        if limits:
            sys.stderr.write("".join(f"twnb: {line}\n" for line in limits))
            sys.stderr.flush()
            notes.extend(limits)
        return snapshot

    def _remember_secret_variables(self) -> None:
        if self.remember_secrets is not None:
            self.remember_secrets(secret_variable_values(self.shell.user_ns))

    @staticmethod
    def _outcome(
        cell: Any,
        recorder: OutputRecorder,
        watchdog: Watchdog,
        limit: float | None,
        interrupted_outside_code: bool,
        notes: list[str],
    ) -> tuple[ExecutionStatus, ExecutionError | None]:
        exc: BaseException | None = None
        if cell is not None:
            exc = cell.error_before_exec or cell.error_in_exec
        shown = _matching_traceback(recorder, exc)
        notes.extend(
            time_limit_notes(
                handler_restored=bool(watchdog.handler_restored), unresponsive=bool(watchdog.unresponsive)
            )
        )
        if watchdog.fired:
            return "timeout", timed_out(limit, shown)
        if interrupted_outside_code or isinstance(exc, KeyboardInterrupt):
            return "interrupted", ExecutionError("KeyboardInterrupt", "Interrupted.", shown)
        if exc is not None:
            if isinstance(exc, SystemExit):
                notes.append(SYS_EXIT_NOTE)
            if isinstance(exc, ExitRefused):
                notes.append("The code called exit()/quit(); it was refused and the kernel keeps running.")
            return "error", ExecutionError(type(exc).__name__, str(exc), shown or _format_exception(exc))
        if recorder.tracebacks:
            # The code ran, but showing its result failed (a repr that raises, a figure that cannot
            # render): the user did not get what the code was for.
            ename, evalue, stb = recorder.tracebacks[0]
            notes.append("The code ran, but displaying its output raised an exception.")
            return "error", ExecutionError(ename, evalue, traceback_text(stb))
        return "success", None


def _state_changes(folder: str, path: list[str], seen: list[dict[str, str]]) -> list[dict[str, str]]:
    """The working folder and `sys.path` as the run left them, when they changed and the guard saw no
    event for it (a change made from C, or `sys.path`, which raises none)."""
    found: list[dict[str, str]] = []
    now = os.getcwd()
    if now != folder and not any(s["kind"] == "working_folder" for s in seen):
        found.append({"kind": "working_folder", "subject": now})
    if sys.path != path:
        found.append({"kind": "environment", "subject": "sys.path"})
    return found


def _put_settings_environment_back(before: dict[str, str], notes: list[str]) -> None:
    """The environment variables twnb reads its settings from, as they were before the run (the guard
    refuses `os.environ` writes; this catches what went round it), said in the cell and the notes."""
    changed = restore_settings_environment(before)
    if changed:
        note = (
            f"The code changed {', '.join(changed)}, which twnb reads its settings from; twnb put "
            f"{'it' if len(changed) == 1 else 'them'} back (settings change by the user's hand only)."
        )
        sys.stderr.write(f"twnb: {note}\n")
        sys.stderr.flush()
        notes.append(note)


def _telling(stream: TextIO) -> Callable[[str], None]:
    """Where the watchdog's thread says the code cannot be stopped: the cell's own stderr (the main
    thread is stuck in the code, so nothing else can show it)."""

    def tell(text: str) -> None:
        stream.write(f"\ntwnb: {text}\n")
        stream.flush()

    return tell


def _signatures_or_note(
    namespace: dict[str, Any], hidden: set[str], notes: list[str], memo: dict[str, Any]
) -> Any:
    # The delta is a courtesy: an object we did not foresee must never keep the code from running
    # or lose its result.
    try:
        return namespace_signatures(namespace, hidden, memo)
    except Exception as exc:
        notes.append(f"The variable delta could not be computed ({type(exc).__name__}: {exc}).")
        return None


def _matching_traceback(recorder: OutputRecorder, exc: BaseException | None) -> str:
    if exc is not None:
        for ename, _evalue, stb in reversed(recorder.tracebacks):
            if ename == type(exc).__name__:
                return traceback_text(stb)
    return ""


def _format_exception(exc: BaseException) -> str:
    return "".join(traceback.format_exception_only(type(exc), exc)).strip()
