"""Requests to a kernel that leave no trace in its history or outputs: set-up code, and expressions
whose value is read back (variable signatures, the namespace summary, files through the kernel)."""

from __future__ import annotations

import ast
import queue
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from jupyter_client.blocking.client import BlockingKernelClient

POLL_S = 0.1


def execute_quietly(
    kc: BlockingKernelClient,
    code: str,
    *,
    alive: Callable[[], bool],
    user_expressions: dict[str, str] | None = None,
    timeout: float = 30.0,
) -> dict[str, Any]:
    """Run `code` silently on blocking client `kc`; the execute_reply's content, or `{"status":
    "dead"}` / `{"status": "timeout"}`."""
    msg_id = kc.execute(
        code, silent=True, store_history=False, user_expressions=user_expressions or {}, allow_stdin=False
    )
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            msg = kc.get_shell_msg(timeout=POLL_S)
        except queue.Empty:
            if not alive():
                return {"status": "dead"}
            continue
        if msg["parent_header"].get("msg_id") == msg_id:
            return dict(msg["content"])
    return {"status": "timeout"}


def evaluate(
    kc: BlockingKernelClient, expression: str, *, alive: Callable[[], bool], timeout: float = 30.0
) -> Any:
    """The value of `expression` in the kernel, read back from its repr (None when it failed)."""
    reply = execute_quietly(kc, "", alive=alive, user_expressions={"value": expression}, timeout=timeout)
    value = (reply.get("user_expressions") or {}).get("value") or {}
    if value.get("status") != "ok":
        return None
    return ast.literal_eval(value["data"]["text/plain"])
