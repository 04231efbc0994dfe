"""Redacting what comms send while generated code runs: widget state, which the notebook keeps.

A widget's state (a `tqdm.notebook` bar's description, an ipywidgets `value`) travels to the frontend
in comm messages, and the notebook saves it in its metadata (JupyterLab from its widget models,
nbclient from the messages). While generated code runs, every comm message's data and metadata are
redacted before they are sent; a comm opened meanwhile (a widget the code made) stays redacted for its
life, so a later update, or its whole state sent again when a frontend asks, is redacted too. Binary
buffers are left as they are, and so are references to other widgets (`IPY_MODEL_` + 32 hex digits,
which the key-shape rules would otherwise take for an Azure key).

The hook is ipykernel's comm class's `publish_msg`, installed once per process; it acts only while a
block of `comm_messages_redacted` is open or for a comm opened inside one. Outside ipykernel (a bare
shell) comms send nothing, and nothing is installed.
"""

from __future__ import annotations

import contextlib
import re
import threading
from collections.abc import Iterator
from typing import Any

from twnb.kernel.capture.output_redaction import Redact

__all__ = ["comm_messages_redacted"]

_WIDGET_REFERENCE = re.compile(r"IPY_MODEL_[0-9a-f]{32}")
_ATTRIBUTE = "_twnb_redact"  # on a comm opened while generated code ran: the redaction it keeps

_open: list[Redact] = []
_lock = threading.Lock()
_installed: set[type] = set()


@contextlib.contextmanager
def comm_messages_redacted(redact: Redact | None) -> Iterator[None]:
    """Inside this block every comm message is redacted, and every comm opened stays redacted."""
    comm_class = _kernel_comm_class() if redact is not None else None
    if comm_class is None or redact is None:
        yield
        return
    with _lock:
        if comm_class not in _installed:
            _install(comm_class)
            _installed.add(comm_class)
        _open.append(redact)
    try:
        yield
    finally:
        with _lock:
            _open.remove(redact)


def _kernel_comm_class() -> type | None:
    try:
        from ipykernel.comm.comm import BaseComm  # lazy: ipykernel (~580 ms), absent in a plain shell
    except ImportError:
        return None
    return BaseComm


def _install(comm_class: type) -> None:
    original = comm_class.publish_msg  # type: ignore[attr-defined]

    def publish_msg(
        self: Any, msg_type: str, data: Any = None, metadata: Any = None, buffers: Any = None, **keys: Any
    ) -> Any:
        redact = _open[-1] if _open else None
        if redact is not None and msg_type == "comm_open":
            setattr(self, _ATTRIBUTE, redact)
        redact = redact or getattr(self, _ATTRIBUTE, None)
        if redact is not None:
            data, metadata = _redacted(data, redact), _redacted(metadata, redact)
        return original(self, msg_type, data, metadata, buffers, **keys)

    comm_class.publish_msg = publish_msg  # type: ignore[attr-defined]


def _redacted(value: Any, redact: Redact) -> Any:
    if isinstance(value, str):
        return value if not value or _WIDGET_REFERENCE.fullmatch(value) else redact(value)
    if isinstance(value, dict):
        return {key: _redacted(item, redact) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_redacted(item, redact) for item in value]
    return value
