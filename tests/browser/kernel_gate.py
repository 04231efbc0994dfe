"""The kernel's messages to the page, held back at a chosen moment: a slow frontend made exact.

Under load, the messages that follow one another from the kernel reach JupyterLab's page in separate
tasks, and a person's mouse-down and mouse-up can fall between them. `HoldAfterEnabled` routes the
notebook's kernel websocket through the test (Playwright's `route_web_socket`): it forwards every
message until the one that enables the button with a given CSS class, then holds the kernel's
messages until `release`. The page's own messages to the kernel always pass."""

from __future__ import annotations

import re
from typing import Any

KERNEL_CHANNELS = re.compile(r"/api/kernels/[^/?]+/channels")
COMM_ID = re.compile(r'"comm_id":\s*"([^"]+)"')
ENABLED = re.compile(r'"disabled":\s*false')
UPDATE = re.compile(r'"method":\s*"update"')


def _text(message: str | bytes) -> str:
    """The message as text (JupyterLab's binary protocol frames the JSON parts with offsets)."""
    return message if isinstance(message, str) else message.decode("utf-8", errors="replace")


class HoldAfterEnabled:
    """Route `page`'s kernel websockets (before the notebook opens); hold what the kernel sends after
    the update that enables the button of `css_class` until `release`. `closed` says whether it
    did (a test that cannot fail when the gate never closed is a defect)."""

    def __init__(self, page: Any, css_class: str) -> None:
        self.css_class = css_class
        self.button_ids: set[str] = set()
        self.holding = False
        self.closed = False  # the gate held back the messages after the enabling once
        self.held: list[tuple[Any, str | bytes]] = []
        page.route_web_socket(KERNEL_CHANNELS, self._route)

    def _route(self, ws: Any) -> None:
        server = ws.connect_to_server()
        ws.on_message(server.send)
        server.on_message(lambda message: self._from_kernel(ws, message))

    def _from_kernel(self, ws: Any, message: str | bytes) -> None:
        if self.holding:
            self.held.append((ws, message))
            return
        text = _text(message)
        if self.css_class in text:  # the model's classes: at its opening, or in an update after it
            self.button_ids.update(COMM_ID.findall(text))
        ws.send(message)
        enables = UPDATE.search(text) and ENABLED.search(text)
        if enables and not self.closed and any(comm_id in text for comm_id in self.button_ids):
            self.holding = self.closed = True

    def release(self) -> None:
        """Send what was held, in order, and hold nothing more."""
        self.holding = False
        held, self.held = self.held, []
        for ws, message in held:
            ws.send(message)
