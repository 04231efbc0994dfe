"""Reaching a separate kernel: attaching to a running one, or starting one until it is ready.

`KernelExecutor` (kernel_client.py) decides which kernel and with what environment; here the kernel
is started (once more on fresh ports when the confined launcher lost one) or attached, and waited for.
twnb's nbclient runs (`twnb export --execute/--check`, `twnb eval`, `twnb demo --live`) start this
Python's kernel the same way, through their NotebookClient (`start_notebook_kernel`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jupyter_client.blocking.client import BlockingKernelClient
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager, KernelManager


class KernelStartError(RuntimeError):
    """The kernel could not be started or did not become ready in time."""


LOST_PORT_RETRY = (
    "the confined kernel lost a port of its connection file to another process before it started; "
    "starting it once more, on new ports"
)
LOST_PORT_TWICE = (
    "The confined kernel lost a port of its connection file to another process twice in a row (its "
    "launcher said which on stderr); start it again."
)


def _exit_status(km: Any) -> int | None:
    """The exit status of the kernel's process jupyter_client started (its provisioner's), once it
    ended; None while it runs or when the provisioner keeps no process."""
    process = getattr(km.provisioner, "process", None)
    return None if process is None else process.poll()


def attach_kernel(connection_file: Path, startup_timeout: float) -> BlockingKernelClient:
    """A client of the running kernel of `connection_file`, once it answers."""
    # lazy: jupyter_client (~200 ms) loads when a kernel is reached, not for KernelSetup and the rest
    from jupyter_client.blocking.client import BlockingKernelClient

    if not connection_file.is_file():
        raise KernelStartError(
            f"No connection file at {connection_file}; `jupyter --runtime-dir` holds running kernels' "
            "files (kernel-*.json)."
        )
    kc = BlockingKernelClient()
    try:
        kc.load_connection_file(str(connection_file))
    except (ValueError, KeyError) as exc:
        raise KernelStartError(f"{connection_file} is not a kernel connection file: {exc}") from exc
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=startup_timeout)
    except RuntimeError as exc:
        kc.stop_channels()
        raise KernelStartError(
            f"The kernel of {connection_file} did not answer within {startup_timeout:g} s ({exc}); "
            "is it still running?"
        ) from exc
    return kc


def start_ready_kernel(
    manager: type[KernelManager],
    kernel_name: str | None,
    specs: KernelSpecManager | None,
    *,
    workdir: Path,
    env: dict[str, str],
    startup_timeout: float,
    retry_on_exit: int | None,
) -> tuple[KernelManager, BlockingKernelClient]:
    """A kernel started in `workdir` by `manager` (`kernel_name` None: this Python's), and its client,
    once it is ready. A kernel that exits at once with `retry_on_exit` (the confined launcher's
    PORT_TAKEN_EXIT: another process took one of its ports) is started once more, on new ports."""
    # lazy: jupyter_client (~200 ms) loads when a kernel is reached, not for KernelSetup and the rest
    from jupyter_client.kernelspec import NoSuchKernel

    from twnb.kernel.separate.this_python import KERNEL_NAME

    for attempt in (1, 2):
        km = manager(
            kernel_name=kernel_name or KERNEL_NAME,
            **({} if specs is None else {"kernel_spec_manager": specs}),
        )
        try:
            km.start_kernel(cwd=str(workdir), env=env)
        except NoSuchKernel as exc:
            raise KernelStartError(
                f"No kernel named {kernel_name!r}; `jupyter kernelspec list` shows the installed ones."
            ) from exc
        kc = km.client()
        kc.start_channels()
        try:
            kc.wait_for_ready(timeout=startup_timeout)
            break
        except RuntimeError as exc:
            kc.stop_channels()
            lost_port = retry_on_exit is not None and _exit_status(km) == retry_on_exit
            km.shutdown_kernel(now=True)
            if lost_port and attempt == 1:
                continue
            if lost_port:
                raise KernelStartError(LOST_PORT_TWICE) from exc
            which = repr(kernel_name) if kernel_name else "of this Python"
            raise KernelStartError(
                f"The kernel {which} did not become ready within {startup_timeout:g} s "
                f"({exc}); check that ipykernel is installed for it, or raise startup_timeout."
            ) from exc
    return km, kc


def start_notebook_kernel(
    client: Any,
    kernel_argv: list[str] | None,
    *,
    said: Callable[[str], None] | None = None,
    **start: Any,
) -> AsyncKernelManager:
    """Start this Python's kernel (through `kernel_argv` when given: the confined launcher) for
    nbclient's `client` (a NotebookClient made with `km=this_python_kernel_manager(kernel_argv)`) and
    wait until it is ready, as its `setup_kernel` would (`start`: its keyword arguments, such as `env`
    and `stderr`); `setup_kernel` and `execute` then find it started. A launcher that exits at once
    with PORT_TAKEN_EXIT (another process took a port between jupyter_client choosing it and the
    launcher's start) is started once more, by a new manager on new ports, said in one line through
    `said`; losing a port again is a KernelStartError saying so. The manager that started."""
    # lazy: twnb.confine (~60 ms), for the launcher's exit status only; this_python loads
    # jupyter_client (~140 ms): both only when a notebook's kernel starts
    from twnb.confine import PORT_TAKEN_EXIT
    from twnb.kernel.separate.this_python import this_python_kernel_manager

    for attempt in (1, 2):
        if attempt == 2:
            client.km = this_python_kernel_manager(kernel_argv)
        client.start_new_kernel(**start)
        km = client.km
        process = getattr(km.provisioner, "process", None)
        try:
            client.start_new_kernel_client()  # on failure, nbclient shuts the kernel down and drops km
        except RuntimeError as exc:
            lost_port = kernel_argv is not None and process is not None and process.poll() == PORT_TAKEN_EXIT
            if not lost_port:
                raise
            if attempt == 2:
                raise KernelStartError(LOST_PORT_TWICE) from exc
            if said is not None:
                said(LOST_PORT_RETRY)
            continue
        return km  # type: ignore[no-any-return]
    raise AssertionError("not reached")
