"""confine layer: a kernel the operating system confines (Landlock and seccomp), its launcher, the key
proxy that alone holds the model's key, and the `twnb-confined` kernelspec (docs/architecture.md,
"Confined kernels"). The launcher runs before the kernel exists, outside it: nothing here imports
kernel code.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.base import lazy_front_door

if TYPE_CHECKING:
    from twnb.confine.kernelspec import CONFINED_DISPLAY_NAME as CONFINED_DISPLAY_NAME
    from twnb.confine.kernelspec import CONFINED_KERNEL_NAME as CONFINED_KERNEL_NAME
    from twnb.confine.kernelspec import confined_kernel_argv as confined_kernel_argv
    from twnb.confine.kernelspec import confined_kernel_spec as confined_kernel_spec
    from twnb.confine.kernelspec import install_confined_kernelspec as install_confined_kernelspec
    from twnb.confine.landlock import abi_version as abi_version
    from twnb.confine.launcher import PORT_TAKEN_EXIT as PORT_TAKEN_EXIT
    from twnb.confine.launcher import unavailable_reason as unavailable_reason
    from twnb.confine.lost_mounts import check_lost_mounts as check_lost_mounts
    from twnb.confine.plan import ConfinementError as ConfinementError
    from twnb.confine.refusals import program_refused as program_refused
    from twnb.confine.refused_record import RefusedStartsRecord as RefusedStartsRecord
    from twnb.confine.refused_record import refused_programs as refused_programs
    from twnb.confine.resolve_launch import ConfinedLaunch as ConfinedLaunch
    from twnb.confine.resolve_launch import confined_launch as confined_launch
    from twnb.confine.resolve_launch import dotenv_key_notice as dotenv_key_notice
    from twnb.confine.separate_kernel import separate_kernel_launch as separate_kernel_launch
else:
    __getattr__, __dir__ = lazy_front_door(__name__, __file__)
