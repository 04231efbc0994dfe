"""A notebook client that acts as a frontend drawing widgets, over the real Jupyter protocol: it reports
a view of each Round widget (the handshake step mode waits for) and clicks step mode's buttons by their
CSS class when a rule says so, as JupyterLab does on a person's click.

It keeps every widget's state as the kernel sends it (comm_open, then updates), so a test can read
what the panel showed. It sends on the shell socket nbclient awaits a cell's reply on: that wait looks
again every slice (support/shell_wait.py), or a reply whose wake-up the send made pyzmq miss would wait
for the cell's whole timeout."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from support.nb_run import CountingClient
from support.shell_wait import look_again_every_slice

# (the widgets' states so far, the comm that just changed, what the kernel just sent it) -> the button
# class to click, the classes to click one after the other (a double click: the same class twice), or
# None
ClickRule = Callable[[dict[str, dict[str, Any]], str, dict[str, Any]], str | list[str] | None]


class WidgetFrontend(CountingClient):
    def __init__(self, *args: Any, click: ClickRule | None = None, **kwargs: Any) -> None:
        super().__init__(*args, frontend=True, **kwargs)
        self.states: dict[str, dict[str, Any]] = {}
        self.click_rule = click
        self.clicked: list[str] = []
        self.values: list[str] = []  # every widget value the kernel sent, in order
        self.history: dict[str, list[dict[str, Any]]] = {}  # each comm's states as sent, in order

    async def async_start_new_kernel_client(self) -> Any:
        client = await super().async_start_new_kernel_client()
        look_again_every_slice(client.shell_channel)
        return client

    def handle_comm_msg(self, outs: Any, msg: dict[str, Any], cell_index: int) -> None:
        content = msg["content"]
        comm_id = content.get("comm_id", "")
        data = content.get("data") or {}
        state = data.get("state")
        update = msg["msg_type"] == "comm_open" or (
            msg["msg_type"] == "comm_msg" and data.get("method") == "update"
        )
        if update and isinstance(state, dict):
            self.states.setdefault(comm_id, {}).update(state)
            self.history.setdefault(comm_id, []).append(dict(state))
            if isinstance(state.get("value"), str):
                self.values.append(state["value"])
            if state.get("_view_count") == 0:
                self._send(comm_id, {"method": "update", "state": {"_view_count": 1}, "buffer_paths": []})
            self._maybe_click(comm_id, state)
        super().handle_comm_msg(outs, msg, cell_index)

    def _maybe_click(self, comm_id: str, update: dict[str, Any]) -> None:
        if self.click_rule is None:
            return
        wanted = self.click_rule(self.states, comm_id, update)
        for css_class in [wanted] if isinstance(wanted, str) else wanted or []:
            self._click(css_class)

    def _click(self, css_class: str) -> None:
        for button_id, state in self.states.items():
            if button_id in self.closed_comms:  # a closed model: the frontend dropped its view
                continue
            if css_class in (state.get("_dom_classes") or ()) and state.get("_model_name") == "ButtonModel":
                self.clicked.append(css_class)
                self._send(button_id, {"method": "custom", "content": {"event": "click"}})
                return

    def _send(self, comm_id: str, data: dict[str, Any]) -> None:
        msg = self.kc.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        self.kc.shell_channel.send(msg)

    def displays_of(self, css_class: str) -> list[str | None]:
        """Every `display` the layout of the widget carrying `css_class` was given, in order ("none":
        hidden; "" or None: shown)."""
        widget = next(s for s in self.states.values() if css_class in (s.get("_dom_classes") or ()))
        layout = str(widget.get("layout", "")).removeprefix("IPY_MODEL_")
        return [update["display"] for update in self.history.get(layout, []) if "display" in update]

    def shown(self, text: str) -> list[str]:
        """Every widget value the kernel sent that held `text`, in order (once each)."""
        return list(dict.fromkeys(value for value in self.values if text in value))
