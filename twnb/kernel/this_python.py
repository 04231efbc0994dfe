"""A kernel of the very Python that runs twnb.

Starting the kernel *named* `python3` can start another environment's Python: a user's own
`~/.local/share/jupyter/kernels/python3` (or one on JUPYTER_PATH) wins over the one beside this
interpreter, and twnb may not be installed there. A kernel spec manager that only knows this
interpreter's ipykernel avoids that.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from jupyter_client.kernelspec import KernelSpec, KernelSpecManager

if TYPE_CHECKING:
    from jupyter_client.manager import AsyncKernelManager

KERNEL_NAME = "python3"


class ThisPythonKernelSpecs(KernelSpecManager):
    """Every kernel name resolves to ipykernel on `sys.executable`."""

    def find_kernel_specs(self) -> dict[str, str]:
        return {KERNEL_NAME: ""}

    def get_kernel_spec(self, kernel_name: str) -> KernelSpec:
        from ipykernel.kernelspec import get_kernel_dict

        return KernelSpec(resource_dir="", **get_kernel_dict())


def this_python_kernel_manager(**kwargs: Any) -> AsyncKernelManager:
    """An (async) kernel manager, as nbclient takes it, that starts this interpreter's ipykernel."""
    from jupyter_client.manager import AsyncKernelManager

    return AsyncKernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=ThisPythonKernelSpecs(), **kwargs)
