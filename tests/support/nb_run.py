"""Running a notebook of cells in a real ipykernel with nbclient, and reading what it saved."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient

from twnb.kernel import AsyncUnixSocketKernelManager

CANARY_KEY = "sk-canary-9f8e7d6c5b4a39281706f5e4d3c2b1a0"


class CountingClient(NotebookClient):
    """nbclient, counting the widget state updates the kernel sends (what a frontend would redraw).
    Its kernel talks over UNIX sockets: over TCP another test process may take a port between its
    choice and the kernel's bind (twnb/kernel/separate/unix_sockets.py)."""

    def __init__(self, *args: Any, frontend: bool = False, **kwargs: Any) -> None:
        kwargs.setdefault("kernel_manager_class", AsyncUnixSocketKernelManager)
        super().__init__(*args, **kwargs)
        self.frontend = frontend
        self.widget_updates = 0
        self.update_displays = 0
        self.html_values: list[str] = []  # every HTML widget value sent, in order
        self.opened_comms: set[str] = set()
        self.closed_comms: set[str] = set()  # widgets the kernel closed

    def handle_comm_msg(self, outs: Any, msg: dict[str, Any], cell_index: int) -> None:
        if msg["msg_type"] == "comm_open":
            self.opened_comms.add(msg["content"]["comm_id"])
        elif msg["msg_type"] == "comm_close":
            self.closed_comms.add(msg["content"]["comm_id"])
        if msg["msg_type"] == "comm_msg" and msg["content"]["data"].get("method") == "update":
            self.widget_updates += 1
            value = msg["content"]["data"].get("state", {}).get("value")
            if isinstance(value, str):
                self.html_values.append(value)
        super().handle_comm_msg(outs, msg, cell_index)

    async def async_execute_cell(self, cell: Any, cell_index: int, *args: Any, **kwargs: Any) -> Any:
        if self.frontend:  # name the cell in the request's metadata, as JupyterLab does
            self.kc.execute = self._named_execute(cell)
        return await super().async_execute_cell(cell, cell_index, *args, **kwargs)

    def _named_execute(self, cell: Any) -> Any:
        client = self.kc

        def execute(code: str, store_history: bool = True, stop_on_error: bool = True) -> str:
            content = {
                "code": code,
                "silent": False,
                "store_history": store_history,
                "user_expressions": {},
                "allow_stdin": False,
                "stop_on_error": stop_on_error,
            }
            msg = client.session.msg("execute_request", content, metadata={"cellId": cell.get("id", "")})
            client.shell_channel.send(msg)
            return str(msg["header"]["msg_id"])

        return execute

    def process_message(self, msg: dict[str, Any], cell: Any, cell_index: int) -> Any:
        if msg["msg_type"] == "update_display_data":
            self.update_displays += 1
        return super().process_message(msg, cell, cell_index)


@contextlib.contextmanager
def environment_added(env: Mapping[str, str]) -> Iterator[None]:
    """`env` added to this process's environment (a kernel started inside inherits it), then put back."""
    saved = {name: os.environ.get(name) for name in env}
    os.environ.update(env)
    try:
        yield
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def run_notebook(
    folder: Path,
    cells: list[str],
    env: Mapping[str, str],
    *,
    allow_errors: bool = False,
    frontend: bool = False,
) -> tuple[Any, CountingClient]:
    """Execute `cells` (code) in a fresh python3 kernel whose working directory is `folder`, with `env`
    added to its environment; the notebook is saved as folder/run.ipynb and validated.

    `frontend=True` names each cell in its execute request, as JupyterLab does, so the kernel takes
    this client for one that draws widgets (nbclient alone names none)."""
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    with environment_added(env):  # the kernel inherits the environment it is started with
        client = CountingClient(
            nb,
            kernel_name="python3",
            timeout=60,
            allow_errors=allow_errors,
            frontend=frontend,
            resources={"metadata": {"path": str(folder)}},
        )
        try:
            client.execute()
        finally:
            path = folder / "run.ipynb"
            nbformat.write(nb, path)
    nbformat.validate(nbformat.read(path, as_version=4))
    return nb, client


def llm_env(fake_llm: Any, folder: Path) -> dict[str, str]:
    """The kernel's environment for Rounds against the loopback LLM server, autosaving under `folder`."""
    return {
        "TWNB_MODEL": "fake-model",
        "OPENAI_BASE_URL": fake_llm.base_url,
        "OPENAI_API_KEY": CANARY_KEY,
        "TWNB_SESSION_DIR": str(folder / ".twnb"),
        "HOME": str(folder),
    }


def outputs_with(nb: Any, mime: str) -> list[dict[str, Any]]:
    return [out for cell in nb.cells for out in cell.get("outputs", []) if mime in out.get("data", {})]


def cell_text(cell: Any) -> str:
    parts = []
    for out in cell.get("outputs", []):
        if out.get("output_type") == "stream":
            parts.append(out["text"])
        elif "text/plain" in out.get("data", {}):
            parts.append(out["data"]["text/plain"])
        elif out.get("output_type") == "error":
            parts.append("\n".join(out.get("traceback", [])))
    return "".join(parts)
