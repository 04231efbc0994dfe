"""Running code in a separate kernel over jupyter_client (the CLI, replays, tests), same ExecutionResult.

The kernel is this interpreter's, any kernelspec by name (remote-kernel providers such as Enterprise
Gateway appear as kernelspecs), or a running kernel attached by its connection file, which twnb never
shuts down or restarts. Only messages answering this request are collected (iopub
`parent_header.msg_id`), until the kernel reports idle. A time limit interrupts the kernel; a kernel
twnb started that ignores the interrupt, or dies (say `os._exit(1)`), is restarted, and the result says
so: every variable in it is gone. When the kernel's filesystem is not ours (kernel_files.py), the files
its code writes are brought back through it.

The runtime guard and the time limit run inside the kernel (kernel_guard.py, set up when the kernel
starts): each execution is announced, armed for exactly that cell, and reported back, so refusals,
the files the code wrote and a code that swallows interrupts are handled there as on the live shell,
and the kernel keeps its variables. Only a kernel that stays stuck past the limit and the in-kernel
watchdog's own escalation is interrupted, and then restarted, from here. In a kernel where the guard
cannot be set up, the code runs unguarded, its files found by comparing the working folder (each
result says so).
"""

from __future__ import annotations

import json
import os
import queue
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from twnb.kernel.capture import (
    DEFAULT_SCAN_LIMITS,
    SYS_EXIT_NOTE,
    DirectorySnapshot,
    FileChanges,
    HeldText,
    OutputRecorder,
    RecordingExecutor,
    RecordLimits,
    Redact,
    RunCall,
    RunEnd,
    RunOutcome,
    RunRules,
    ScanLimits,
    changes_since,
    inert_bundle,
    late_refusal_note,
    redact_bundle,
    redact_value,
    say_note,
    scan_directory,
    time_limit_notes,
    timed_out,
    traceback_text,
    with_refusals,
)
from twnb.kernel.guard import GuardReport
from twnb.kernel.namespace import (
    IPYTHON_NAMES,
    Signature,
    namespace_signatures_source,
    variable_delta,
)
from twnb.kernel.record import ExecutionError, ExecutionResult, ExecutionStatus
from twnb.kernel.separate.guard_channel import KernelGuardChannel
from twnb.kernel.separate.kernel_files import KernelPlace, bring_back, probe_place, remote_scan_source
from twnb.kernel.separate.kernel_start import KernelStartError, attach_kernel, start_ready_kernel
from twnb.kernel.separate.quiet_requests import POLL_S, evaluate, evaluate_many, execute_quietly
from twnb.memory import DEFAULT_SESSION_FOLDER

if TYPE_CHECKING:
    from jupyter_client.blocking.client import BlockingKernelClient
    from jupyter_client.manager import KernelManager

    from twnb.config import KernelEnd
    from twnb.confine import RefusedStartsRecord

# Runs once in each new kernel: defines the variable-signature helper under a private name and makes
# exit()/quit() raise instead of ending the kernel (which belongs to twnb, not to the code).
_PRELUDE = """
def __twnb_setup(source, ipython_names):
    import json
    scope = {}
    exec(compile("from __future__ import annotations\\n" + source, "<twnb-signatures>", "exec"), scope)
    signatures = scope["namespace_signatures"]
    ip = get_ipython()

    def signatures_json():
        return json.dumps(signatures(ip.user_ns, set(ipython_names) | set(ip.user_ns_hidden)))

    def refuse_exit(*args, **kwargs):
        raise RuntimeError("exit()/quit() is disabled in twnb's kernel: let the code end normally.")

    ip.user_ns["__twnb_signatures_json"] = signatures_json
    ip.user_ns_hidden["__twnb_signatures_json"] = signatures_json
    ip.ask_exit = refuse_exit

__twnb_setup(@SOURCE@, @NAMES@)
del __twnb_setup
"""


@dataclass
class _KernelRun:
    """What one run's steps in a separate kernel share."""

    restarted: bool
    guarded: bool
    skip: tuple[Path, ...]
    before_files: DirectorySnapshot | None
    before_vars: dict[str, Signature] | None
    ending: str = "idle"


@dataclass(frozen=True)
class KernelSetup:
    """How a `KernelExecutor` reaches its kernel and how long it waits for it.

    `connection_file` attaches to a running kernel instead of starting one (`shutdown()` then only
    disconnects); `env` is added to a started kernel's environment. `shares_filesystem` None asks the
    kernel (a marker file); True or False says so (a test treats a local kernel as remote with False);
    `scan_limits` bound the scan of its working folder when its guard cannot list the files written.
    `startup_timeout`: seconds for the kernel to become ready; `interrupt_grace_s`: for it to answer
    an interrupt before it is restarted; `guard_grace_s`: how long past the time limit the in-kernel
    watchdog has to stop the code before the kernel is interrupted from here. `track_variables`
    reads the variable delta back from the kernel.
    """

    connection_file: str | os.PathLike[str] | None = None
    env: Mapping[str, str] = field(default_factory=dict)
    shares_filesystem: bool | None = None
    scan_limits: ScanLimits = DEFAULT_SCAN_LIMITS
    startup_timeout: float = 60.0
    interrupt_grace_s: float = 5.0
    guard_grace_s: float = 6.0
    track_variables: bool = True


_SIGNATURES = "__twnb_signatures_json()"
# In a confined kernel twnb started: what lost_mounts.py has to say since the last run.
_LOST_MOUNT_LINES = "__import__('twnb.confine.lost_mounts', fromlist=['_']).check_lost_mounts().new_lines"


def _signatures_of(text: Any) -> dict[str, Signature] | None:
    """The signatures' JSON as the kernel gave it (None when it gave none)."""
    if not isinstance(text, str):
        return None
    try:
        found = json.loads(text)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None


class KernelExecutor(RecordingExecutor[_KernelRun]):
    """A separate kernel started in `workdir`. Use as a context manager, or call `shutdown()`.

    `kernel_name` None (the default) starts this interpreter's ipykernel, whatever kernel is
    registered as `python3` (see `twnb.kernel.separate.this_python`); a name goes through Jupyter's
    kernelspecs.
    `kernel` (a `KernelSetup`) says how to reach and wait for the kernel; after `start()`, `place`
    says where the kernel runs.
    `redact` (the session's redactor's `redact`) is applied to every output the kernel sends back
    (streams, display and result text, errors) before it is recorded. `rules` (a `RunRules`): with
    `guarded` the runtime guard refuses in the kernel; files are found through it either way.
    `limits` (a `RecordLimits`): how much of each run is kept.
    """

    def __init__(
        self,
        workdir: str | os.PathLike[str],
        kernel_name: str | None = None,
        *,
        artifacts_dir: str | os.PathLike[str] | None = None,
        session_dir: str | os.PathLike[str] | None = None,
        redact: Redact | None = None,
        rules: RunRules = RunRules(),
        limits: RecordLimits = RecordLimits(),
        kernel: KernelSetup = KernelSetup(),
    ) -> None:
        self.workdir = Path(workdir)
        self.guarded = rules.guarded
        # twnb's places the code may not write (with the kernel's own trust base: trust_base.py)
        self.protected = [str(p) for p in rules.protected]
        self.guard_grace_s = kernel.guard_grace_s
        self.guard_missing = ""  # why the runtime guard could not be set up in the kernel ("" if it was)
        self.redact = redact
        self.kernel_name = kernel_name
        self.connection_file = Path(kernel.connection_file) if kernel.connection_file is not None else None
        self.shares_filesystem = kernel.shares_filesystem
        self.place: KernelPlace | None = None
        default_artifacts = self.workdir / "twnb-artifacts"
        self.artifacts_dir = Path(artifacts_dir) if artifacts_dir is not None else default_artifacts
        self.session_dir = Path(session_dir) if session_dir is not None else None
        self.startup_timeout = kernel.startup_timeout
        self.default_timeout = rules.default_timeout
        self.interrupt_grace_s = kernel.interrupt_grace_s
        self.env = dict(kernel.env)
        self.track_variables = kernel.track_variables
        self.scan_limits = kernel.scan_limits
        self.stream_head_chars = limits.stream_head_chars
        self.stream_tail_chars = limits.stream_tail_chars
        self.max_listed_files = limits.max_listed_files
        self._km: KernelManager | None = None
        self._kc: BlockingKernelClient | None = None
        self._guard: KernelGuardChannel | None = None
        self._remote_scan = False
        # the program starts the confined kernel's supervisor refused, written outside the kernel
        self._refused_starts: RefusedStartsRecord | None = None
        # what a kernel's start has to tell the next run's notes, and what was told, once each
        self._start_notes: list[str] = []
        self._told: set[str] = set()
        # the confined kernel's session in its folder's quarantine record, while it runs; after a
        # shutdown, what its warden's end did (quarantined, moved aside, processes ended), one line each
        self._end: KernelEnd | None = None
        self.end_lines: list[str] = []

    # -- lifecycle
    @property
    def owns_kernel(self) -> bool:
        """False for a kernel attached by its connection file: never restarted or shut down here."""
        return self.connection_file is None

    @property
    def is_running(self) -> bool:
        return self._kc is not None and self._alive()

    @property
    def _client(self) -> BlockingKernelClient:
        """The blocking client of the started kernel."""
        if self._kc is None:
            raise RuntimeError("the kernel is not started: start() it first")
        return self._kc

    def _alive(self) -> bool:
        return bool(self._km.is_alive()) if self._km is not None else bool(self._client.is_alive())

    def start(self) -> None:
        if not self.workdir.is_dir():
            raise KernelStartError(f"The working directory {self.workdir} does not exist; create it first.")
        if self.connection_file is not None:
            self._kc = attach_kernel(self.connection_file, self.startup_timeout)
        else:
            self._start_kernel()
        prelude = _PRELUDE.replace("@SOURCE@", repr(namespace_signatures_source())).replace(
            "@NAMES@", repr(sorted(IPYTHON_NAMES))
        )
        reply = self._execute_quietly(prelude, timeout=self.startup_timeout)
        if reply.get("status") != "ok":
            self.track_variables = False  # an odd kernel: run code, just without the variable delta
        self._guard = KernelGuardChannel(self._client, self._alive, timeout=self.startup_timeout)
        self.guard_missing = self._guard.set_up()
        self._locate()

    def _locate(self) -> None:
        """Where the kernel runs; when its files are not ours, the scan moves into the kernel."""
        try:
            place = probe_place(self._expression, self.workdir)
        except (RuntimeError, ValueError, SyntaxError, OSError):
            place = KernelPlace("", "", self.shares_filesystem is not False)
        if self.shares_filesystem is not None:
            place = KernelPlace(place.hostname, place.cwd, self.shares_filesystem)
        self.place = place
        self._remote_scan = False
        if not place.shares_filesystem:
            reply = self._execute_quietly(remote_scan_source(), timeout=self.startup_timeout)
            self._remote_scan = reply.get("status") == "ok"

    def _start_kernel(self) -> None:
        # lazy: jupyter_client (~200 ms) loads when a kernel is reached, not for KernelSetup and the rest
        from jupyter_client.manager import KernelManager

        from twnb.kernel.separate.this_python import ThisPythonKernelSpecs
        from twnb.kernel.separate.unix_sockets import UnixSocketKernelManager

        env = {**os.environ, **self.env}
        if self.kernel_name is None:  # this Python's kernel: confined unless the settings say not
            # lazy: twnb.confine (~30 ms, 24 modules) and twnb.config, for this Python's own kernel only
            from twnb.config import SettingsError
            from twnb.confine import (
                PORT_TAKEN_EXIT,
                ConfinementError,
                RefusedStartsRecord,
                dotenv_key_notice,
                separate_kernel_launch,
            )

            try:
                # twnb drives this kernel from outside: its session folder is not the code's to write
                sessions = [
                    self.workdir / DEFAULT_SESSION_FOLDER,
                    *([self.session_dir] if self.session_dir else []),
                ]
                launch = separate_kernel_launch(
                    self.workdir, env, write=[self.artifacts_dir], read_only=sessions
                )
            except (ConfinementError, SettingsError) as exc:
                raise KernelStartError(f"The separate kernel was not started: {exc}") from exc
            if launch is not None:
                self._say_once_in_notes(dotenv_key_notice(self.workdir, env, launch))
            env = env if launch is None else launch.environment(env)
            argv = None
            if launch is not None:
                self._refused_starts = RefusedStartsRecord()
                argv = self._refused_starts.kernel_argv(launch.argv)
            specs = ThisPythonKernelSpecs(argv)
            # UNIX sockets where the kernel is ipykernel itself (no port for another process to take
            # first: unix_sockets.py); the confined kernel, refused them, and other kernels keep TCP
            manager = KernelManager if launch is not None else UnixSocketKernelManager
            # The confined launcher holds the kernel's TCP ports until the kernel binds them, and exits
            # at once with PORT_TAKEN_EXIT (saying which on stderr) when another process took one
            # between jupyter_client choosing it and the launcher's start: tried once more, new ports.
            retry_on_exit = None if launch is None else PORT_TAKEN_EXIT
            confined = launch is not None
        else:
            manager, specs, retry_on_exit, confined = KernelManager, None, None, False
        self._km, self._kc = start_ready_kernel(
            manager,
            self.kernel_name,
            specs,
            workdir=self.workdir,
            env=env,
            startup_timeout=self.startup_timeout,
            retry_on_exit=retry_on_exit,
        )
        pid = getattr(self._km.provisioner, "pid", None)
        if confined and isinstance(pid, int):  # found while it runs (kernel_end.py)
            from twnb.config import KernelEnd  # lazy, as above

            self._end = KernelEnd(self.workdir, pid)

    def _say_once_in_notes(self, notice: str | None) -> None:
        """`notice` about the confined kernel's start (a `.env` it could come to read holds the
        model's key), in the notes of the next run, once for this executor, restarts included."""
        line = None if notice is None else f"Confined kernel: {notice}"
        if line is not None and line not in self._told:
            self._told.add(line)
            self._start_notes.append(line)

    def shutdown(self) -> None:
        """Stop the kernel twnb started; from an attached kernel, only disconnect."""
        kc, km, self._kc, self._km = self._kc, self._km, None, None
        if kc is not None:
            kc.stop_channels()
        if km is not None:
            try:
                km.shutdown_kernel(now=not km.is_alive())
            except Exception:  # already gone: nothing left to stop
                km.cleanup_resources()
        if self._refused_starts is not None:
            self._refused_starts.close()
            self._refused_starts = None
        self._wait_for_the_kernels_end()

    def _wait_for_the_kernels_end(self) -> None:
        """Wait (bounded) for the confined kernel's warden: once `shutdown()` returns, what the
        kernel left running is ended, what it planted moved aside, its stand-in settings files gone
        from the folder. What it did is `end_lines`, and the next run's notes after a restart."""
        end, self._end = self._end, None
        if end is None:
            return
        lines = end.lines()
        self.end_lines = ([end.leftover_line] if end.leftover_line else []) + lines
        self._start_notes.extend(self.end_lines)

    def restart(self) -> None:
        """A fresh kernel (every variable is lost)."""
        self.shutdown()
        self.start()

    def __enter__(self) -> KernelExecutor:
        if self._kc is None:
            self.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.shutdown()

    # -- quiet requests (prelude, variable signatures, namespace summary)
    def _execute_quietly(
        self, code: str, *, user_expressions: dict[str, str] | None = None, timeout: float = 30.0
    ) -> dict[str, Any]:
        return execute_quietly(
            self._client, code, alive=self._alive, user_expressions=user_expressions, timeout=timeout
        )

    def _expression(self, expression: str, timeout: float = 30.0) -> Any:
        return evaluate(self._client, expression, alive=self._alive, timeout=timeout)

    def _signatures(self) -> dict[str, Signature] | None:
        if not self.track_variables:
            return None
        try:
            return _signatures_of(self._expression(_SIGNATURES))
        except (ValueError, SyntaxError):
            return None

    def _before_values(self) -> tuple[dict[str, Signature] | None, list[str]]:
        """Before the code runs, in one request: the variables' signatures, and in a confined kernel twnb
        started the protected files a save from outside took out of their mount since the last run, a
        line each, once per kernel (asked of the kernel, whose namespace holds the mounts:
        twnb/confine/lost_mounts.py, imported there by its first stage)."""
        expressions = {"signatures": _SIGNATURES} if self.track_variables else {}
        if self._refused_starts is not None:
            expressions["lost_mounts"] = _LOST_MOUNT_LINES
        if not expressions:
            return None, []
        values = evaluate_many(self._client, expressions, alive=self._alive)
        lines = values.get("lost_mounts")
        notes = [str(line) for line in lines] if isinstance(lines, tuple) else []
        return _signatures_of(values.get("signatures")), notes

    def namespace_summary(self, **options: Any) -> str:
        """The kernel's variables described for a prompt (needs twnb importable in the kernel; else "")."""
        if self._kc is None:
            self.start()
        expression = (
            "__import__('twnb.kernel.namespace.namespace_summary', fromlist=['_']).summarize_namespace("
            f"get_ipython().user_ns, hidden_names=set(get_ipython().user_ns_hidden), **{options!r})"
        )
        try:
            text = self._expression(expression)
        except (ValueError, SyntaxError):
            return ""
        return text if isinstance(text, str) else ""

    # -- running code
    def _before(self, call: RunCall, notes: list[str]) -> _KernelRun:
        restarted = False
        if self._kc is None:
            self.start()
        elif not self._alive() and not self.owns_kernel:
            raise KernelStartError(
                f"The kernel of {self.connection_file} has stopped; twnb did not start it and does not "
                "restart it: start it again and attach to its new connection file."
            )
        elif not self._alive():
            # Ended since the last run (killed, out of memory): run the code in a fresh kernel rather
            # than report it as having killed one.
            exit_code = self._exit_code()
            self.restart()
            restarted = True
            notes.append(
                f"The kernel had stopped since the last run (exit code {exit_code}); a new kernel was "
                "started before this code ran: every earlier variable is lost."
            )
        if self._refused_starts is not None:
            self._refused_starts.read_new()  # the kernel's start, earlier code's leftovers: not this code's
        skip = tuple(p for p in (self.session_dir, self.artifacts_dir) if p is not None)
        guarded = self._guard is not None and self._guard.announce(
            call.code,
            refuse=self.guarded,
            timeout=call.limit,
            skip=[str(p) for p in skip],
            protect=[*self.protected, *(str(p) for p in (self.session_dir,) if p is not None)],
        )
        scan_root = Path(self.place.cwd) if self.place is not None and self.place.cwd else self.workdir
        before_files = None
        if guarded:
            pass  # the guard in the kernel records the files the code writes
        elif self.place is not None and not self.place.shares_filesystem:
            if self._remote_scan:
                self._execute_quietly("__twnb_scan_before()")
        else:
            before_files = scan_directory(scan_root, skip=skip, limits=self.scan_limits)
        if not guarded:
            notes.append(
                "The runtime guard could not be set up in this kernel"
                + (f" ({self.guard_missing})" if self.guard_missing else "")
                + ": the code ran unguarded, and its files were found by comparing the working folder."
            )
        notes.extend(self._start_notes)
        self._start_notes.clear()
        signatures, lost_mounts = self._before_values()
        notes.extend(lost_mounts)
        return _KernelRun(restarted, guarded, skip, before_files, signatures)

    def _execute(self, call: RunCall, state: _KernelRun, recorder: OutputRecorder, notes: list[str]) -> None:
        msg_id = self._client.execute(
            call.code, silent=False, store_history=True, allow_stdin=False, stop_on_error=False
        )
        # With the guard, the kernel's own watchdog stops the code at its limit; the kernel is
        # interrupted from here only if that did not work.
        limit = call.limit
        deadline = None if limit is None else limit + (self.guard_grace_s if state.guarded else 0.0)
        state.ending = self._collect(msg_id, recorder, deadline, notes)

    def _after(self, call: RunCall, state: _KernelRun, recorder: OutputRecorder, notes: list[str]) -> RunEnd:
        ending, limit, skip, before_vars = state.ending, call.limit, state.skip, state.before_vars
        notes.extend(self._refused_start_notes())  # before a restart replaces the record
        died_now = ending in ("died", "stuck")
        if died_now and not self.owns_kernel:
            died = (
                "The kernel stopped while running the code; twnb did not start it, so it is not restarted: "
                "start it again and attach to its new connection file."
            )
            stuck = (
                f"The kernel did not answer the interrupt within {self.interrupt_grace_s:g} s; twnb did "
                "not start it, so it is left running: interrupt or restart it from its notebook."
            )
            notes.append(died if ending == "died" else stuck)
        elif died_now:
            exit_code = self._exit_code()
            if ending == "died":
                notes.append(
                    f"The kernel process ended while running the code (exit code {exit_code}); "
                    "a new kernel was started: every variable is lost."
                )
            else:
                notes.append(
                    f"The kernel did not answer the interrupt within {self.interrupt_grace_s:g} s; "
                    "it was restarted: every variable is lost."
                )
            self.restart()
            state.restarted = True
        status, error = self._outcome(ending, recorder, limit, notes)
        guarded = state.guarded
        report = self._guard.report() if self._guard is not None and guarded and not died_now else None
        if report is not None:
            status, error = self._guarded_outcome(report, status, error, limit, notes)

        if state.before_files is not None:
            changes = changes_since(state.before_files, skip=skip, limits=self.scan_limits)
        elif died_now:
            changes = FileChanges(notes=["The files the code wrote in the kernel could not be listed."])
        elif report is not None:
            changes = self._guarded_changes(report)
        else:
            changes = self._remote_changes()
        after_vars = None if died_now else self._signatures()
        if died_now and before_vars is not None:
            variables = variable_delta(before_vars, {})
        elif before_vars is not None and after_vars is not None:
            variables = variable_delta(before_vars, after_vars)
        else:
            variables = []
            if self.track_variables:
                notes.append("The variable delta could not be read from the kernel.")
        outcome = RunOutcome(
            status,
            error,
            notes,
            report.refusals if report is not None else [],
            report.sightings if report is not None else [],
        )
        return RunEnd(outcome, changes, variables)

    def _refused_start_notes(self) -> list[str]:
        """The programs the confined kernel's supervisor refused while the code ran, in the line the
        kernel gives a refused start that raised (`os.system` and libc's `system` raise nothing)."""
        return [] if self._refused_starts is None else self._refused_starts.take_notes()

    def _finish(self, result: ExecutionResult, state: _KernelRun) -> None:
        result.kernel_restarted = state.restarted

    # -- the runtime guard in the kernel (kernel_guard.py, guard_channel.py)
    @staticmethod
    def _guarded_outcome(
        report: GuardReport,
        status: ExecutionStatus,
        error: ExecutionError | None,
        limit: float | None,
        notes: list[str],
    ) -> tuple[ExecutionStatus, ExecutionError | None]:
        """The outcome, told what the kernel's guard and watchdog did."""
        notes.extend(late_refusal_note(late) for late in report.late)
        notes.extend(
            time_limit_notes(handler_restored=report.handler_restored, unresponsive=report.unresponsive)
        )
        if report.threads:
            say_note(report.threads, notes)
        if report.timed_out and status in ("interrupted", "error", "success"):
            status, error = "timeout", timed_out(limit, error.traceback if error is not None else "")
        return with_refusals(status, error, report.refusals)

    def _guarded_changes(self, report: GuardReport) -> FileChanges:
        """The files the kernel's guard saw the code write; from a kernel elsewhere, brought back."""
        if self.place is None or self.place.shares_filesystem:
            return FileChanges([Path(p) for p, _ in report.created], [Path(p) for p, _ in report.modified])
        back = bring_back(self._expression, self.place, [*report.created, *report.modified], self.workdir)
        created = {path for path, _ in report.created}
        changes = FileChanges(notes=list(back.notes))
        for path, copy in back.copies.items():
            (changes.created if path in created else changes.modified).append(Path(copy))
        return changes

    def _remote_changes(self) -> FileChanges:
        """Files written in a kernel elsewhere: small ones copied into `workdir` at the same relative
        path (a link to them works here), the rest named with the host and path where they are."""
        assert self.place is not None
        if not self._remote_scan:
            return FileChanges(
                notes=[
                    "The kernel's files are not on this machine and could not be scanned there: files the "
                    "code wrote are not listed."
                ]
            )
        try:
            found = json.loads(self._expression("__twnb_scan_changes()"))
        except (TypeError, ValueError, SyntaxError):
            return FileChanges(notes=["The files the code wrote in the kernel could not be listed."])
        listed = [(str(p), int(n)) for p, n in found["created"] + found["modified"]]
        back = bring_back(self._expression, self.place, listed, self.workdir)
        created = {str(p) for p, _ in found["created"]}
        changes = FileChanges(notes=[*found["notes"], *back.notes])
        for path, copy in back.copies.items():
            (changes.created if path in created else changes.modified).append(Path(copy))
        return changes

    def _interrupt(self) -> None:
        if self._km is not None:
            self._km.interrupt_kernel()
        else:  # an attached kernel: ask it over the control channel, as its manager would
            self._client.control_channel.send(self._client.session.msg("interrupt_request", content={}))

    def _collect(self, msg_id: str, recorder: OutputRecorder, limit: float | None, notes: list[str]) -> str:
        """Record iopub messages for `msg_id` until idle: "idle", "timeout", "died" or "stuck". What
        was taken out of displays as active content is said in `notes`."""
        relay = _Relay(recorder, self.redact)
        try:
            return self._relay(msg_id, relay, limit)
        finally:
            relay.drain()
            notes.extend(dict.fromkeys(relay.inert_lines))

    def _relay(self, msg_id: str, relay: _Relay, limit: float | None) -> str:
        deadline = None if limit is None else time.monotonic() + limit
        interrupted_at: float | None = None
        while True:
            now = time.monotonic()
            if deadline is not None and interrupted_at is None and now > deadline:
                self._interrupt()
                interrupted_at = now
            if interrupted_at is not None and now > interrupted_at + self.interrupt_grace_s:
                return "stuck"
            try:
                msg = self._client.get_iopub_msg(timeout=POLL_S)
            except queue.Empty:
                if not self._alive():
                    return "died"
                continue
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["header"]["msg_type"], msg["content"]
            if kind == "status" and content.get("execution_state") == "idle":
                return "timeout" if interrupted_at is not None else "idle"
            relay.message(kind, content)

    def _exit_code(self) -> int | None:
        if self._km is None:
            return None
        try:
            process = getattr(self._km.provisioner, "process", None)  # a local provisioner's Popen
            code: int | None = process.poll() if process is not None else None
            return code
        except Exception:
            return None

    def _outcome(
        self, ending: str, recorder: OutputRecorder, limit: float | None, notes: list[str]
    ) -> tuple[ExecutionStatus, ExecutionError | None]:
        last = recorder.tracebacks[-1] if recorder.tracebacks else None
        shown = traceback_text(last[2]) if last else ""
        if ending == "died":
            then = "it was restarted" if self.owns_kernel else "twnb did not start it and does not restart it"
            return "kernel_died", ExecutionError(
                "KernelDied", f"The kernel process ended while running the code; {then}.", shown
            )
        if ending in ("timeout", "stuck"):
            return "timeout", timed_out(limit, shown)
        if last is None:
            return "success", None
        ename, evalue, _stb = last
        if ename == "KeyboardInterrupt":
            return "interrupted", ExecutionError(ename, "Interrupted.", shown)
        if ename == "SystemExit":
            notes.append(SYS_EXIT_NOTE)
        return "error", ExecutionError(ename, evalue, shown)


class _Relay:
    """Records one run's iopub messages, redacted when `redact` is given: stream text is held back until
    it can be redacted whole (the kernel batches it by time, so a key may span two messages). Displays
    are recorded without active content (active_content.py); `inert_lines` gathers what was taken."""

    def __init__(self, recorder: OutputRecorder, redact: Redact | None) -> None:
        self.recorder = recorder
        self.redact = redact
        self.held: dict[str, HeldText] = {}
        self.inert_lines: list[str] = []

    def drain(self) -> None:
        for name, held in self.held.items():
            self.recorder.stream(name, held.drain())

    def message(self, kind: str, content: dict[str, Any]) -> None:
        recorder, redact = self.recorder, self.redact
        if kind == "stream":
            name, text = content.get("name", "stdout"), content.get("text", "")
            if redact is not None:
                held = self.held.setdefault(name, HeldText(redact))
                text = held.feed(text)
            recorder.stream(name, text)
            return
        self.drain()  # held stream text came first
        if kind in ("display_data", "update_display_data", "execute_result"):
            data, metadata = content.get("data", {}), content.get("metadata")
            if redact is not None:  # the metadata is kept beside the output: display(obj, metadata={...})
                data, metadata = redact_bundle(data, redact), redact_value(metadata, redact)
            data, line = inert_bundle(data)
            if line:
                self.inert_lines.append(line)
            if kind == "execute_result":
                recorder.execute_result(data, metadata)
            else:
                display_id = (content.get("transient") or {}).get("display_id")
                recorder.display(data, metadata, display_id, kind == "update_display_data")
        elif kind == "error":
            ename, evalue = content.get("ename", ""), content.get("evalue", "")
            stb = list(content.get("traceback", []))
            if redact is not None:
                evalue, stb = redact(evalue), [redact(line) for line in stb]
            recorder.error(ename, evalue, stb)
        elif kind == "clear_output":
            recorder.clear(bool(content.get("wait", False)))
