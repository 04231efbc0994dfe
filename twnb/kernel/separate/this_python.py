"""A kernel of the very Python that runs twnb.

Starting the kernel *named* `python3` can start another environment's Python: a user's own
`~/.local/share/jupyter/kernels/python3` (or one on JUPYTER_PATH) wins over the one beside this
interpreter, and twnb may not be installed there. A kernel spec manager that only knows this
interpreter's ipykernel avoids that.
"""

from __future__ import annotations

from typing import Any

from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
from jupyter_client.manager import AsyncKernelManager

from twnb.kernel.separate.unix_sockets import AsyncUnixSocketKernelManager

KERNEL_NAME = "python3"


class ThisPythonKernelSpecs(KernelSpecManager):
    """Every kernel name resolves to ipykernel on `sys.executable` (started by `argv` when given: the
    confined kernel's launcher)."""

    def __init__(self, argv: list[str] | None = None, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.kernel_argv = argv

    def find_kernel_specs(self) -> dict[str, str]:
        return {KERNEL_NAME: ""}

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        from ipykernel.kernelspec import get_kernel_dict  # lazy: loads ipykernel (~320 ms), to start one

        spec = get_kernel_dict()
        if self.kernel_argv is not None:
            spec["argv"] = list(self.kernel_argv)
        return KernelSpec(resource_dir="", **spec)


def this_python_kernel_manager(argv: list[str] | None = None, **kwargs: Any) -> AsyncKernelManager:
    """An (async) kernel manager, as nbclient takes it, that starts this interpreter's ipykernel, its
    channels UNIX sockets (unix_sockets.py: no port another process can take first); through `argv`
    when given (e.g. `twnb.confine.confined_kernel_argv()`: the confined kernel, refused UNIX sockets,
    keeps TCP)."""
    specs = ThisPythonKernelSpecs(argv)
    manager = AsyncKernelManager if argv is not None else AsyncUnixSocketKernelManager
    return manager(kernel_name=KERNEL_NAME, kernel_spec_manager=specs, **kwargs)
