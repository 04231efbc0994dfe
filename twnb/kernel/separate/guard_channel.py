"""The client's side of the runtime guard in another kernel (kernel_guard.py), over any jupyter_client
kernel client: `KernelExecutor` uses it, and so can whatever else runs cells there (an nbclient
re-run of an exported notebook).

`set_up()` once (after a start or a restart of the kernel), then around each cell to guard:
`announce(code, ...)` before it is sent, `report()` once it has run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from twnb.kernel.guard import GuardReport, code_digest, kernel_guard_source
from twnb.kernel.separate.quiet_requests import evaluate, execute_quietly

if TYPE_CHECKING:
    from jupyter_client.blocking.client import BlockingKernelClient
    from jupyter_client.connect import KernelConnectionInfo


class KernelGuardChannel:
    """`kc` a jupyter_client kernel client with its channels started; `alive` says whether the kernel
    still runs (a dead one ends a wait early)."""

    def __init__(self, kc: BlockingKernelClient, alive: Callable[[], bool], *, timeout: float = 60.0) -> None:
        self.kc = kc
        self.alive = alive
        self.timeout = timeout
        self.missing = "not set up yet"  # why the guard is not in the kernel ("" once it is)
        self._own_client = False

    @classmethod
    def connected(cls, connection_info: KernelConnectionInfo, *, timeout: float = 60.0) -> KernelGuardChannel:
        """A channel over a blocking client of its own, for a kernel another (asynchronous) client
        drives, such as nbclient's; `close()` it when done."""
        from jupyter_client.blocking.client import BlockingKernelClient  # lazy: jupyter_client, ~200 ms

        kc = BlockingKernelClient()
        kc.load_connection_info(connection_info)
        kc.start_channels()
        channel = cls(kc, kc.is_alive, timeout=timeout)
        channel._own_client = True
        return channel

    def close(self) -> None:
        """Stop the channels of a client this channel made (`connected`); the kernel runs on."""
        if self._own_client:
            self.kc.stop_channels()
            self._own_client = False

    @property
    def ready(self) -> bool:
        return not self.missing

    def set_up(self) -> str:
        """Send the guard into the kernel; "" when it is there, else why not (the code then runs
        unguarded: say so)."""
        reply = execute_quietly(self.kc, kernel_guard_source(), alive=self.alive, timeout=self.timeout)
        ok = reply.get("status") == "ok"
        self.missing = "" if ok else str(reply.get("evalue") or reply.get("status") or "no reply")
        return self.missing

    def announce(
        self,
        code: str,
        *,
        refuse: bool,
        timeout: float | None = None,
        skip: list[str] | None = None,
        protect: list[str] | None = None,
    ) -> bool:
        """Arm the guard for the next cell whose text is `code` (with a time limit of its own when
        `timeout`; files in `skip` are not artifacts; twnb's places in `protect` may not be written:
        trust_base.py). False when the kernel could not be told."""
        if not self.ready:
            return False
        call = (
            f"__twnb_guard.expect({code_digest(code)!r}, {refuse!r}, {timeout!r}, {list(skip or [])!r}, "
            f"{list(protect or [])!r})"
        )
        reply = execute_quietly(self.kc, call, alive=self.alive, timeout=self.timeout)
        return reply.get("status") == "ok"

    def report(self) -> GuardReport | None:
        """What the announced cell did (None when the kernel could not say)."""
        if not self.ready:
            return None
        try:
            text = evaluate(self.kc, "__twnb_guard.report_json()", alive=self.alive, timeout=self.timeout)
            return GuardReport.from_json(text) if isinstance(text, str) else None
        except (ValueError, SyntaxError, TypeError):
            return None
