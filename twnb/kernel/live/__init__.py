"""The live notebook shell: `LiveShellExecutor` runs code on the IPython shell that runs twnb."""

from __future__ import annotations

from typing import TYPE_CHECKING

from twnb.base import lazy_front_door

if TYPE_CHECKING:
    from twnb.kernel.live.busy_loop import AWAIT_ON_A_THREAD as AWAIT_ON_A_THREAD
    from twnb.kernel.live.live_shell import LiveBookkeeping as LiveBookkeeping
    from twnb.kernel.live.live_shell import LiveShellExecutor as LiveShellExecutor
    from twnb.kernel.live.live_shell import NotebookOutput as NotebookOutput
else:
    __getattr__, __dir__ = lazy_front_door(__name__, __file__)
