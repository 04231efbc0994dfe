"""Running code in a separate kernel over jupyter_client (the CLI, replays, tests), same ExecutionResult.

Only messages answering this request are collected (iopub `parent_header.msg_id`), until the kernel
reports idle. A time limit interrupts the kernel; a kernel that ignores the interrupt, or dies (say
`os._exit(1)`), is restarted, and the result says so: every variable in it is gone.
"""

from __future__ import annotations

import ast
import json
import os
import queue
import time
from pathlib import Path
from types import TracebackType
from typing import Any

from twnb.kernel.capture import STREAM_HEAD_CHARS, STREAM_TAIL_CHARS, OutputRecorder
from twnb.kernel.file_scan import DEFAULT_SCAN_LIMITS, ScanLimits, changes_since, scan_directory
from twnb.kernel.outcome import build_result, traceback_text
from twnb.kernel.result import ExecutionError, ExecutionResult, ExecutionStatus, new_execution_id
from twnb.kernel.variables import IPYTHON_NAMES, Signature, namespace_signatures_source, variable_delta

_POLL_S = 0.1

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


class KernelStartError(RuntimeError):
    """The kernel could not be started or did not become ready in time."""


class KernelExecutor:
    """A separate kernel started in `workdir`. Use as a context manager, or call `shutdown()`.

    `kernel_name` None (the default) starts this interpreter's ipykernel, whatever kernel is
    registered as `python3` (see `twnb.kernel.this_python`); a name goes through Jupyter's kernelspecs.
    """

    def __init__(
        self,
        workdir: str | os.PathLike[str],
        kernel_name: str | None = None,
        *,
        artifacts_dir: str | os.PathLike[str] | None = None,
        session_dir: str | os.PathLike[str] | None = None,
        startup_timeout: float = 60.0,
        default_timeout: float | None = None,
        interrupt_grace_s: float = 5.0,
        env: dict[str, str] | None = None,
        track_variables: bool = True,
        scan_limits: ScanLimits = DEFAULT_SCAN_LIMITS,
        stream_head_chars: int = STREAM_HEAD_CHARS,
        stream_tail_chars: int = STREAM_TAIL_CHARS,
        max_listed_files: int = 200,
    ) -> None:
        self.workdir = Path(workdir)
        self.kernel_name = kernel_name
        default_artifacts = self.workdir / ".twnb" / "artifacts"
        self.artifacts_dir = Path(artifacts_dir) if artifacts_dir is not None else default_artifacts
        self.session_dir = Path(session_dir) if session_dir is not None else None
        self.startup_timeout = startup_timeout
        self.default_timeout = default_timeout
        self.interrupt_grace_s = interrupt_grace_s
        self.env = dict(env or {})
        self.track_variables = track_variables
        self.scan_limits = scan_limits
        self.stream_head_chars = stream_head_chars
        self.stream_tail_chars = stream_tail_chars
        self.max_listed_files = max_listed_files
        self._km: Any = None
        self._kc: Any = None

    # -- lifecycle
    @property
    def is_running(self) -> bool:
        return self._km is not None and self._km.is_alive()

    def start(self) -> None:
        from jupyter_client.kernelspec import NoSuchKernel
        from jupyter_client.manager import KernelManager

        from twnb.kernel.this_python import KERNEL_NAME, ThisPythonKernelSpecs

        if not self.workdir.is_dir():
            raise KernelStartError(f"The working directory {self.workdir} does not exist; create it first.")
        if self.kernel_name is None:
            km = KernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=ThisPythonKernelSpecs())
        else:
            km = KernelManager(kernel_name=self.kernel_name)
        env = {**os.environ, **self.env}
        try:
            km.start_kernel(cwd=str(self.workdir), env=env)
        except NoSuchKernel as exc:
            raise KernelStartError(
                f"No kernel named {self.kernel_name!r}; `jupyter kernelspec list` shows the installed ones."
            ) from exc
        kc = km.client()
        kc.start_channels()
        try:
            kc.wait_for_ready(timeout=self.startup_timeout)
        except RuntimeError as exc:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
            which = repr(self.kernel_name) if self.kernel_name else "of this Python"
            raise KernelStartError(
                f"The kernel {which} did not become ready within {self.startup_timeout:g} s "
                f"({exc}); check that ipykernel is installed for it, or raise startup_timeout."
            ) from exc
        self._km, self._kc = km, kc
        prelude = _PRELUDE.replace("@SOURCE@", repr(namespace_signatures_source())).replace(
            "@NAMES@", repr(sorted(IPYTHON_NAMES))
        )
        reply = self._execute_quietly(prelude, timeout=self.startup_timeout)
        if reply.get("status") != "ok":
            self.track_variables = False  # an odd kernel: run code, just without the variable delta

    def shutdown(self) -> None:
        kc, km, self._kc, self._km = self._kc, self._km, None, None
        if kc is not None:
            kc.stop_channels()
        if km is not None:
            try:
                km.shutdown_kernel(now=not km.is_alive())
            except Exception:  # already gone: nothing left to stop
                km.cleanup_resources()

    def restart(self) -> None:
        """A fresh kernel (every variable is lost)."""
        self.shutdown()
        self.start()

    def __enter__(self) -> KernelExecutor:
        if self._km is None:
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
        msg_id = self._kc.execute(
            code, silent=True, store_history=False, user_expressions=user_expressions or {}, allow_stdin=False
        )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                msg = self._kc.get_shell_msg(timeout=_POLL_S)
            except queue.Empty:
                if not self._km.is_alive():
                    return {"status": "dead"}
                continue
            if msg["parent_header"].get("msg_id") == msg_id:
                return dict(msg["content"])
        return {"status": "timeout"}

    def _expression(self, expression: str, timeout: float = 30.0) -> Any:
        reply = self._execute_quietly("", user_expressions={"value": expression}, timeout=timeout)
        value = (reply.get("user_expressions") or {}).get("value") or {}
        if value.get("status") != "ok":
            return None
        return ast.literal_eval(value["data"]["text/plain"])

    def _signatures(self) -> dict[str, Signature] | None:
        if not self.track_variables:
            return None
        try:
            text = self._expression("__twnb_signatures_json()")
            return json.loads(text) if isinstance(text, str) else None
        except (ValueError, SyntaxError):
            return None

    def namespace_summary(self, **options: Any) -> str:
        """The kernel's variables described for a prompt (needs twnb importable in the kernel; else "")."""
        if self._km is None:
            self.start()
        expression = (
            "__import__('twnb.kernel.namespace_summary', fromlist=['_']).summarize_namespace("
            f"get_ipython().user_ns, hidden_names=set(get_ipython().user_ns_hidden), **{options!r})"
        )
        try:
            text = self._expression(expression)
        except (ValueError, SyntaxError):
            return ""
        return text if isinstance(text, str) else ""

    # -- running code
    def run(
        self, code: str, *, timeout: float | None = None, execution_id: str | None = None
    ) -> ExecutionResult:
        notes: list[str] = []
        restarted = False
        if self._km is None:
            self.start()
        elif not self._km.is_alive():
            # Ended since the last run (killed, out of memory): run the code in a fresh kernel rather
            # than report it as having killed one.
            exit_code = self._exit_code()
            self.restart()
            restarted = True
            notes.append(
                f"The kernel had stopped since the last run (exit code {exit_code}); a new kernel was "
                "started before this code ran: every earlier variable is lost."
            )
        execution_id = execution_id or new_execution_id()
        limit = timeout if timeout is not None else self.default_timeout
        skip = tuple(p for p in (self.session_dir, self.artifacts_dir) if p is not None)
        before_files = scan_directory(self.workdir, skip=skip, limits=self.scan_limits)
        before_vars = self._signatures()
        recorder = OutputRecorder(self.stream_head_chars, self.stream_tail_chars)

        started = time.perf_counter()
        msg_id = self._kc.execute(
            code, silent=False, store_history=True, allow_stdin=False, stop_on_error=False
        )
        ending = self._collect(msg_id, recorder, limit)
        duration = time.perf_counter() - started

        died_now = ending in ("died", "stuck")
        if died_now:
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
            restarted = True
        status, error = self._outcome(ending, recorder, limit, notes)

        changes = changes_since(before_files, skip=skip, limits=self.scan_limits)
        after_vars = None if died_now else self._signatures()
        if died_now and before_vars is not None:
            variables = variable_delta(before_vars, {})
        elif before_vars is not None and after_vars is not None:
            variables = variable_delta(before_vars, after_vars)
        else:
            variables = []
            if self.track_variables:
                notes.append("The variable delta could not be read from the kernel.")
        result = build_result(
            execution_id=execution_id,
            code=code,
            status=status,
            error=error,
            recorder=recorder,
            artifacts_dir=self.artifacts_dir,
            file_changes=changes,
            variables=variables,
            duration_s=duration,
            notes=notes,
            max_listed_files=self.max_listed_files,
        )
        result.kernel_restarted = restarted
        return result

    def _collect(self, msg_id: str, recorder: OutputRecorder, limit: float | None) -> str:
        """Record iopub messages for `msg_id` until idle: "idle", "timeout", "died" or "stuck"."""
        deadline = None if limit is None else time.monotonic() + limit
        interrupted_at: float | None = None
        while True:
            now = time.monotonic()
            if deadline is not None and interrupted_at is None and now > deadline:
                self._km.interrupt_kernel()
                interrupted_at = now
            if interrupted_at is not None and now > interrupted_at + self.interrupt_grace_s:
                return "stuck"
            try:
                msg = self._kc.get_iopub_msg(timeout=_POLL_S)
            except queue.Empty:
                if not self._km.is_alive():
                    return "died"
                continue
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            kind, content = msg["header"]["msg_type"], msg["content"]
            if kind == "status" and content.get("execution_state") == "idle":
                return "timeout" if interrupted_at is not None else "idle"
            if kind == "stream":
                recorder.stream(content.get("name", "stdout"), content.get("text", ""))
            elif kind in ("display_data", "update_display_data"):
                display_id = (content.get("transient") or {}).get("display_id")
                recorder.display(content.get("data", {}), content.get("metadata"), display_id,
                                 kind == "update_display_data")
            elif kind == "execute_result":
                recorder.execute_result(content.get("data", {}), content.get("metadata"))
            elif kind == "error":
                recorder.error(
                    content.get("ename", ""), content.get("evalue", ""), content.get("traceback", [])
                )
            elif kind == "clear_output":
                recorder.clear(bool(content.get("wait", False)))

    def _exit_code(self) -> Any:
        try:
            provisioner = self._km.provisioner
            return provisioner.process.poll() if provisioner is not None and provisioner.process else None
        except Exception:
            return None

    def _outcome(
        self, ending: str, recorder: OutputRecorder, limit: float | None, notes: list[str]
    ) -> tuple[ExecutionStatus, ExecutionError | None]:
        last = recorder.tracebacks[-1] if recorder.tracebacks else None
        shown = traceback_text(last[2]) if last else ""
        if ending == "died":
            return "kernel_died", ExecutionError(
                "KernelDied", "The kernel process ended while running the code; it was restarted.", shown
            )
        if ending in ("timeout", "stuck"):
            return "timeout", ExecutionError(
                "TimeoutError", f"The code was stopped after its time limit of {limit:g} s.", shown
            )
        if last is None:
            return "success", None
        ename, evalue, _stb = last
        if ename == "KeyboardInterrupt":
            return "interrupted", ExecutionError(ename, "Interrupted.", shown)
        if ename == "SystemExit":
            notes.append("The code called sys.exit(); it stopped there and the kernel keeps running.")
        return "error", ExecutionError(ename, evalue, shown)
