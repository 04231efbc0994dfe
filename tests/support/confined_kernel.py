"""Confined kernels for the tests: the real launcher (`python -m twnb.confine`), real
Landlock and seccomp, started with jupyter_client as Jupyter starts the `twnb-confined` kernelspec.

Each kernel gets a fake home folder (with `~/.ssh/id_rsa`, `~/.bashrc` and an IPython startup folder),
a notebook folder and a folder outside both; the model's key is in the environment the launcher gets.
Where the kernel has no Landlock (or too old an ABI) every test here is skipped, saying so.
"""

from __future__ import annotations

import ast
import os
import queue
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.kernelspec import KernelSpec, KernelSpecManager

from twnb.confine import (
    CONFINED_KERNEL_NAME,
    PORT_TAKEN_EXIT,
    abi_version,
    confined_kernel_spec,
    unavailable_reason,
)

REAL_KEY = "sk-proj-confinedTEST0123456789abcdefXYZ"
INLINE_BACKEND = "module://matplotlib_inline.backend_inline"
READY_TIMEOUT_S = 90

_REASON = unavailable_reason(abi_version())


def unavailable_line() -> str | None:
    return _REASON


needs_landlock = pytest.mark.skipif(_REASON is not None, reason=f"no confined kernel here: {_REASON}")


class ConfinedSpecs(KernelSpecManager):
    """Only the `twnb-confined` kernelspec, as `twnb kernel install --confined` writes it (`extra`:
    launcher options after its command, as a starter adds them)."""

    def __init__(self, extra: tuple[str, ...] = (), **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.extra = extra

    def find_kernel_specs(self) -> dict[str, str]:
        return {CONFINED_KERNEL_NAME: ""}

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        spec = confined_kernel_spec()
        spec["argv"] = [*spec["argv"], *self.extra]
        return KernelSpec(resource_dir="", **spec)


@dataclass
class Places:
    home: Path
    notebook: Path
    outside: Path


def make_places(root: Path, *, notebook_in_home: bool = False) -> Places:
    home = root / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("-----BEGIN OPENSSH PRIVATE KEY-----\nsecret\n")
    (home / ".bashrc").write_text("# the user's shell start-up\n")
    (home / ".ipython" / "profile_default" / "startup").mkdir(parents=True)
    notebook = home if notebook_in_home else root / "notebook"
    notebook.mkdir(exist_ok=True)
    outside = root / "outside"
    outside.mkdir()
    return Places(home, notebook, outside)


# The confined kernel talks over TCP (its seccomp filter refuses UNIX sockets, which the other test
# kernels use: twnb/kernel/separate/unix_sockets.py). jupyter_client chooses its ports free and the
# launcher binds them as it starts, holding them until the kernel binds them: another test process may
# take one in between, and the launcher then exits at once with PORT_TAKEN_EXIT, naming the port on
# stderr. That one failure, and only it, is retried with new ports.
START_ATTEMPTS = 3


class PortTakenError(RuntimeError):
    """The launcher found a port jupyter_client had chosen taken by another process."""


class ConfinedKernel:
    def __init__(self, places: Places, env: dict[str, str], *, extra: tuple[str, ...] = ()) -> None:
        """`extra`: launcher options after its command, as a starter adds them."""
        self.places = places
        self.extra = extra
        # the launcher's and the kernel's stderr: what a failed start says goes into the error
        self.stderr_path = places.outside.parent / "kernel-stderr.txt"
        started = time.monotonic()
        self.ports_lost = 0  # starts that failed on a port another process took (then retried)
        for attempt in range(1, START_ATTEMPTS + 1):
            try:
                self._start(env, started)
                break
            except PortTakenError:
                self.ports_lost += 1
                self.shutdown()
                if attempt == START_ATTEMPTS:
                    raise RuntimeError(
                        f"the confined kernel lost a port to another process {attempt} times; "
                        f"its stderr:\n{self.stderr()}"
                    ) from None
        self.start_s = time.monotonic() - started
        self.shown: list[tuple[str, dict[str, Any]]] = []

    def _start(self, env: dict[str, str], started: float) -> None:
        from jupyter_client.manager import KernelManager

        specs = ConfinedSpecs(self.extra)
        self.km = KernelManager(kernel_name=CONFINED_KERNEL_NAME, kernel_spec_manager=specs)
        said_before = len(self.stderr()) if self.stderr_path.exists() else 0
        with self.stderr_path.open("a", encoding="utf-8") as stderr:
            self.km.start_kernel(cwd=str(self.places.notebook), env=env, stderr=stderr)
        self.kc = self.km.client()
        self.kc.start_channels()
        deadline = time.monotonic() + READY_TIMEOUT_S
        while True:
            try:
                self.kc.wait_for_ready(timeout=1)
                return
            except (RuntimeError, TimeoutError) as error:
                if self._exit_status() == PORT_TAKEN_EXIT:
                    raise PortTakenError(self.stderr()[said_before:].strip()) from error
                if time.monotonic() < deadline and self.km.is_alive():
                    continue
                waited = time.monotonic() - started
                self.shutdown()
                raise RuntimeError(
                    f"the confined kernel did not start ({error}; after {waited:.1f} s); "
                    f"its stderr:\n{self.stderr()}"
                ) from error

    def _exit_status(self) -> int | None:
        process = getattr(self.km.provisioner, "process", None)
        return None if process is None else process.poll()

    def execute(self, code: str, *, timeout: float = 60) -> dict[str, Any]:
        msg_id = self.kc.execute(code, allow_stdin=False)
        reply = self.kc.get_shell_msg(timeout=timeout)
        while reply["parent_header"].get("msg_id") != msg_id:
            reply = self.kc.get_shell_msg(timeout=timeout)
        self.shown = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                msg = self.kc.get_iopub_msg(timeout=1)
            except queue.Empty:
                continue
            if msg["parent_header"].get("msg_id") != msg_id:
                continue
            if msg["msg_type"] == "status" and msg["content"]["execution_state"] == "idle":
                break
            self.shown.append((msg["msg_type"], msg["content"]))
        return dict(reply["content"])

    def run(self, code: str) -> str:
        """Run `code`; its stdout (the error's lines appended when it failed)."""
        reply = self.execute(code)
        text = "".join(c["text"] for kind, c in self.shown if kind == "stream" and c["name"] == "stdout")
        if reply["status"] == "error":
            text += "\n".join(reply["traceback"])
        return text

    def value(self, expression: str) -> Any:
        reply = self.execute(f"__value = repr({expression})")
        assert reply["status"] == "ok", reply
        return ast.literal_eval(self.run("print(__value)").strip())

    def error(self, code: str) -> dict[str, Any]:
        reply = self.execute(code)
        assert reply["status"] == "error", f"expected a refusal, the code ran: {self.shown}"
        return reply

    def private_folder(self) -> Path:
        """The kernel's private folder (its HOME's parent), which the launcher's warden removes last
        when the kernel ends: once it is gone, the warden has put everything back."""
        return Path(os.path.dirname(self.value("__import__('os').environ['HOME']")))

    def stderr(self) -> str:
        """What the launcher and the kernel wrote to stderr so far."""
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")

    def restart(self) -> None:
        """Restart the kernel as Jupyter does (`KernelManager.restart_kernel`: the old one killed, a
        new launcher started with the same arguments), its stderr appended to the same file."""
        with self.stderr_path.open("a", encoding="utf-8") as stderr:
            self.km._launch_args["stderr"] = stderr  # the start's own file was closed after it
            self.km.restart_kernel(now=True)
        self.kc.wait_for_ready(timeout=READY_TIMEOUT_S)

    def shutdown(self) -> None:
        self.kc.stop_channels()
        if self.km.has_kernel:
            self.km.shutdown_kernel(now=True)


def kernel_env(places: Places, **extra: str) -> dict[str, str]:
    # the fake home's state folder, not the test session's: a test finds the record under `places.home`
    unwanted = ("OPENAI_", "TWNB_", "AZURE_", "XDG_STATE_HOME")
    env = {k: v for k, v in os.environ.items() if not k.startswith(unwanted)}
    env.update(HOME=str(places.home), MPLBACKEND=INLINE_BACKEND, OPENAI_API_KEY=REAL_KEY, **extra)
    return env
