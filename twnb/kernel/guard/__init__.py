"""The runtime guard: what generated code may not do, in this process or sent as source to a separate
kernel (`kernel_guard.py`: those modules use the standard library and each other only), the time limit
(`watchdog.py`), and the refusals of `exit()` and of changes to twnb's settings."""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.base import lazy_front_door

if TYPE_CHECKING:
    from twnb.kernel.guard.armed_thread import generated_code_running as generated_code_running
    from twnb.kernel.guard.exit_guard import ExitRefused as ExitRefused
    from twnb.kernel.guard.exit_guard import exit_refused as exit_refused
    from twnb.kernel.guard.guard_files import risky_sightings as risky_sightings
    from twnb.kernel.guard.guard_files import written_files as written_files
    from twnb.kernel.guard.guard_refusal import GuardRefusal as GuardRefusal
    from twnb.kernel.guard.interrupt_traceback import (
        interrupts_end_in_user_code as interrupts_end_in_user_code,
    )
    from twnb.kernel.guard.kernel_guard import GuardReport as GuardReport
    from twnb.kernel.guard.kernel_guard import code_digest as code_digest
    from twnb.kernel.guard.kernel_guard import kernel_guard_source as kernel_guard_source
    from twnb.kernel.guard.runtime_guard import GuardedRun as GuardedRun
    from twnb.kernel.guard.runtime_guard import RuntimeGuard as RuntimeGuard
    from twnb.kernel.guard.settings_refusal import refuse_setting_change as refuse_setting_change
    from twnb.kernel.guard.settings_refusal import written_by_generated_code as written_by_generated_code
    from twnb.kernel.guard.shell_guard import ShellGuard as ShellGuard
    from twnb.kernel.guard.shell_guard import run_cell_guarded as run_cell_guarded
    from twnb.kernel.guard.started_threads import left_threads_note as left_threads_note
    from twnb.kernel.guard.trust_base import TrustBase as TrustBase
    from twnb.kernel.guard.trust_base import restore_settings_environment as restore_settings_environment
    from twnb.kernel.guard.trust_base import settings_environment as settings_environment
    from twnb.kernel.guard.watchdog import Watchdog as Watchdog
else:
    __getattr__, __dir__ = lazy_front_door(__name__, __file__)
