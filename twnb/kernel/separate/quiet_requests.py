"""Requests to a kernel that leave no trace in its history or outputs: set-up code, and expressions
whose value is read back (variable signatures, the namespace summary, files through the kernel)."""

from __future__ import annotations

import ast
import contextlib
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


def evaluate_many(
    kc: BlockingKernelClient, expressions: dict[str, str], *, alive: Callable[[], bool], timeout: float = 30.0
) -> dict[str, Any]:
    """The values of several expressions in the kernel, in one request: each read back from its repr,
    left out when it failed or its repr is no literal."""
    reply = execute_quietly(kc, "", alive=alive, user_expressions=expressions, timeout=timeout)
    values: dict[str, Any] = {}
    for name, value in (reply.get("user_expressions") or {}).items():
        if isinstance(value, dict) and value.get("status") == "ok":
            with contextlib.suppress(
                ValueError, SyntaxError, TypeError, KeyError, MemoryError, RecursionError
            ):
                values[name] = ast.literal_eval(value["data"]["text/plain"])
    return values
