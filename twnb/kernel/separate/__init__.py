"""A separate kernel over jupyter_client: `KernelExecutor`, the runtime guard's channel into it, requests
that leave no trace, its filesystem, a kernel someone else started, a kernel of this very Python."""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.base import lazy_front_door

if TYPE_CHECKING:
    from twnb.kernel.separate.attached_kernel import AttachedKernelManager as AttachedKernelManager
    from twnb.kernel.separate.guard_channel import KernelGuardChannel as KernelGuardChannel
    from twnb.kernel.separate.kernel_client import KernelExecutor as KernelExecutor
    from twnb.kernel.separate.kernel_client import KernelSetup as KernelSetup
    from twnb.kernel.separate.kernel_files import KernelPlace as KernelPlace
    from twnb.kernel.separate.kernel_files import bring_back as bring_back
    from twnb.kernel.separate.kernel_files import probe_place as probe_place
    from twnb.kernel.separate.kernel_files import read_file as read_file
    from twnb.kernel.separate.kernel_start import KernelStartError as KernelStartError
    from twnb.kernel.separate.kernel_start import start_notebook_kernel as start_notebook_kernel
    from twnb.kernel.separate.quiet_requests import evaluate as evaluate
    from twnb.kernel.separate.quiet_requests import execute_quietly as execute_quietly
    from twnb.kernel.separate.this_python import this_python_kernel_manager as this_python_kernel_manager
    from twnb.kernel.separate.unix_sockets import AsyncUnixSocketKernelManager as AsyncUnixSocketKernelManager
    from twnb.kernel.separate.unix_sockets import UnixSocketKernelManager as UnixSocketKernelManager
else:
    __getattr__, __dir__ = lazy_front_door(__name__, __file__)
