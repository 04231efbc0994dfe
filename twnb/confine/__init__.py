"""confine layer: a kernel the operating system confines (Landlock and seccomp), its launcher, the key
proxy that alone holds the model's key, and the `twnb-confined` kernelspec (docs/architecture.md,
"Confined kernels"). The launcher runs before the kernel exists, outside it: nothing here imports
kernel code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.base import lazy_exports

if TYPE_CHECKING:
    from twnb.confine.kernelspec import (
        CONFINED_DISPLAY_NAME,
        CONFINED_KERNEL_NAME,
        confined_kernel_argv,
        confined_kernel_spec,
        install_confined_kernelspec,
    )
    from twnb.confine.landlock import abi_version
    from twnb.confine.launcher import unavailable_reason
    from twnb.confine.plan import ConfinementError
    from twnb.confine.resolve_launch import ConfinedLaunch, confined_launch
    from twnb.confine.separate_kernel import separate_kernel_launch

__all__ = [
    "CONFINED_DISPLAY_NAME",
    "CONFINED_KERNEL_NAME",
    "ConfinedLaunch",
    "ConfinementError",
    "abi_version",
    "confined_kernel_argv",
    "confined_kernel_spec",
    "confined_launch",
    "install_confined_kernelspec",
    "separate_kernel_launch",
    "unavailable_reason",
]

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy_exports(
        __name__,
        {
            "CONFINED_DISPLAY_NAME": "kernelspec",
            "CONFINED_KERNEL_NAME": "kernelspec",
            "confined_kernel_argv": "kernelspec",
            "confined_kernel_spec": "kernelspec",
            "install_confined_kernelspec": "kernelspec",
            "abi_version": "landlock",
            "unavailable_reason": "launcher",
            "ConfinementError": "plan",
            "ConfinedLaunch": "resolve_launch",
            "confined_launch": "resolve_launch",
            "separate_kernel_launch": "separate_kernel",
        },
    )
