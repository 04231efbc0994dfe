"""Real kernels for the kernel-layer tests.

`live_kernel` is an ipykernel started with jupyter_client (one per test module, inline matplotlib
backend as users get it). `live_kernel.run_case(code)` builds a LiveShellExecutor on that kernel's own
`get_ipython()`, runs `code` through it, and returns `ExecutionResult.to_dict()` as read back from the
kernel: the executor is tested where it will run, not in a look-alike.
"""

from __future__ import annotations

import ast
import json
import os
import queue
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

INLINE_BACKEND = "module://matplotlib_inline.backend_inline"


class LiveKernel:
    def __init__(
        self, workdir: Path, *, watched_descriptors: bool = False, env: dict[str, str] | None = None
    ) -> None:
        """`watched_descriptors`: ipykernel turns what reaches descriptors 1 and 2 into cell output,
        as in a notebook (it does not under pytest, which it recognises by PYTEST_CURRENT_TEST).
        `env`: variables added to the kernel's environment."""
        from twnb.kernel import UnixSocketKernelManager

        self.workdir = workdir
        # UNIX sockets: over TCP another test process may take a port between its choice and the
        # kernel's bind, and the kernel dies at start (twnb/kernel/separate/unix_sockets.py)
        self.km = UnixSocketKernelManager(kernel_name="python3")
        env = {**os.environ, "MPLBACKEND": INLINE_BACKEND, **(env or {})}
        if watched_descriptors:
            env.pop("PYTEST_CURRENT_TEST", None)
        self.km.start_kernel(cwd=str(workdir), env=env)
        self.kc = self.km.client()
        self.kc.start_channels()
        self.kc.wait_for_ready(timeout=60)

    def execute(
        self, code: str, *, user_expressions: dict[str, str] | None = None, timeout: float = 60
    ) -> dict[str, Any]:
        """Run `code`; return the execute_reply content once the kernel is idle again.

        The iopub messages the calling cell received (what the notebook shows) are kept in
        `self.shown` as (msg_type, content) pairs.
        """
        msg_id = self.kc.execute(code, user_expressions=user_expressions or {}, allow_stdin=False)
        reply = self.kc.get_shell_msg(timeout=timeout)
        while reply["parent_header"].get("msg_id") != msg_id:
            reply = self.kc.get_shell_msg(timeout=timeout)
        self.shown: list[tuple[str, dict[str, Any]]] = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:  # drain this request's iopub messages, up to its idle status
            try:
                msg = self.kc.get_iopub_msg(timeout=1)
            except queue.Empty:
                continue  # a loaded machine can hold the last messages back for more than a second
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                break
            self.shown.append((msg["msg_type"], msg["content"]))
        return dict(reply["content"])

    def shown_streams(self) -> dict[str, str]:
        """The text the calling cell showed, by stream name. ipykernel sends a stream's text in as many
        messages as its flush timer cuts it into (under load, `print('a')` can arrive as 'a' and a
        line break): only the joined text is what the cell shows."""
        texts: dict[str, str] = {}
        for kind, content in self.shown:
            if kind == "stream":
                texts[content["name"]] = texts.get(content["name"], "") + content["text"]
        return texts

    def evaluate(self, expression: str) -> Any:
        reply = self.execute("", user_expressions={"value": expression})
        value = reply["user_expressions"]["value"]
        assert value["status"] == "ok", value
        return ast.literal_eval(value["data"]["text/plain"])

    def run_case(
        self,
        code: str,
        *,
        timeout: float | None = None,
        session_dir: str = ".twnb",
        redact_secrets: tuple[str, ...] | None = None,
        redactor: str | None = None,
        **executor_options: Any,
    ) -> dict[str, Any]:
        """`redact_secrets`: give the executor a Redactor's `redact` that knows these values; `redactor`:
        the name of a Redactor in the kernel whose `redact` and `remember` the executor gets."""
        args: dict[str, list[str]] = {group: [] for group in COLLABORATORS}
        for name, value in executor_options.items():
            args[CASE_OPTIONS[name]].append(f"{name}={value!r}")
        if redact_secrets is not None:
            args["output"].append(f"redact=__Redactor({list(redact_secrets)!r}, environ={{}}).redact")
        if redactor is not None:
            args["output"] += [f"redact={redactor}.redact", f"remember_secrets={redactor}.remember"]
        collaborators = "".join(
            f", {group}=__kernel.{kind}({', '.join(args[group])})" for group, kind in COLLABORATORS.items()
        )
        setup = (
            "import json as __json, os as __os\n"
            "import twnb.kernel as __kernel\n"
            "from twnb.config.redaction import Redactor as __Redactor\n"
            "__case_executor = __kernel.LiveShellExecutor(get_ipython(), __os.getcwd(),"
            " __os.path.join(__os.getcwd(), 'artifacts'),"
            f" session_dir=__os.path.join(__os.getcwd(), {session_dir!r})" + collaborators + ")\n"
            f"__case_json = __json.dumps(__case_executor.run({code!r}, timeout={timeout!r}).to_dict())\n"
        )
        reply = self.execute(setup, user_expressions={"result": "__case_json"})
        assert reply["status"] == "ok", reply
        value = reply["user_expressions"]["result"]
        assert value["status"] == "ok", value
        return json.loads(ast.literal_eval(value["data"]["text/plain"]))

    def answers(self) -> bool:
        """True when the kernel process lives, still runs code, and was not asked to stop: exit()
        sets the shell's `exit_now`, and ipykernel stops its loop ~0.1 s later (read the flag itself,
        rather than waiting a guessed while for the stop)."""
        if not self.km.is_alive():
            return False
        try:
            return self.evaluate("(6 * 7, get_ipython().exit_now)") == (42, False)
        except (queue.Empty, AssertionError):
            return False

    def shutdown(self) -> None:
        self.kc.stop_channels()
        self.km.shutdown_kernel(now=True)


# run_case's executor options, each by the collaborator of LiveShellExecutor that takes it
COLLABORATORS = {"output": "NotebookOutput", "rules": "RunRules", "limits": "RecordLimits"}
CASE_OPTIONS = {
    "allow_active_output": "output",
    "default_timeout": "rules",
    "guarded": "rules",
    "protected": "rules",
    "stream_head_chars": "limits",
    "stream_tail_chars": "limits",
    "max_listed_files": "limits",
}


KERNEL_FIXTURES = {"live_kernel", "watched_kernel", "fresh_kernel", "kernel_in"}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """A test that asks for a kernel, directly or through a fixture of its module, is `slow` without
    saying so: with a module's kernel shared, the test that starts it depends on which ones run (the
    fast lane deselects the marked ones), and tests/conftest.py fails an unmarked one that does."""
    for item in items:
        if KERNEL_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="module")
def live_kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveKernel]:
    kernel = LiveKernel(tmp_path_factory.mktemp("live-kernel"))
    try:
        yield kernel
    finally:
        kernel.shutdown()


@pytest.fixture(scope="module")
def watched_kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveKernel]:
    """A live kernel whose descriptors 1 and 2 ipykernel watches, as in a notebook."""
    kernel = LiveKernel(tmp_path_factory.mktemp("watched-kernel"), watched_descriptors=True)
    try:
        yield kernel
    finally:
        kernel.shutdown()


@pytest.fixture
def fresh_kernel(tmp_path: Path) -> Iterator[Callable[..., LiveKernel]]:
    """Start a kernel of its own for one test (`fresh_kernel(NAME=value, ...)` adds to its environment),
    in the test's tmp_path; shut down after the test."""
    started: list[LiveKernel] = []

    def start(**env: str) -> LiveKernel:
        kernel = LiveKernel(tmp_path, env=env)
        started.append(kernel)
        return kernel

    try:
        yield start
    finally:
        for kernel in started:
            kernel.shutdown()


@pytest.fixture
def kernel_in() -> Iterator[Callable[..., LiveKernel]]:
    """Start a kernel in a folder of the test's choosing (`kernel_in(folder, NAME=value, ...)` adds to
    its environment), as a person's next session there would; shut down after the test."""
    started: list[LiveKernel] = []

    def start(workdir: Path, **env: str) -> LiveKernel:
        kernel = LiveKernel(workdir, env=env)
        started.append(kernel)
        return kernel

    try:
        yield start
    finally:
        for kernel in started:
            kernel.shutdown()
