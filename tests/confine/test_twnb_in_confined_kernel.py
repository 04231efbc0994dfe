"""What twnb does besides a plain Round works in a confined kernel (issue 37, point 2): step mode
(the plan approved, the code edited before it runs), undo of a Round (variables and files), a
TaskWeaver plugin called by generated code, and MCP servers as the user configured them: one the user
started outside the confinement is reached by its URL through `confine_connect`, one the kernel would
have to start (stdio), or whose port is not allowed, is refused in one line saying why and what to do.

Real confined kernels (the launcher, Landlock, seccomp, the key proxy), the loopback fake model server.
"""

from __future__ import annotations

import shutil
import socket
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import nbformat
import pytest
import yaml
from fakellm import FakeLLMServer
from jupyter_client.manager import AsyncKernelManager
from support.confined_kernel import ConfinedKernel, ConfinedSpecs, kernel_env, make_places, needs_landlock
from support.http_mcp_server import http_mcp_server
from support.nb_run import cell_text
from support.nb_scripts import code, planner

from twnb.confine import CONFINED_KERNEL_NAME
from twnb.session.conversation_store import load_conversation_file

pytestmark = [pytest.mark.slow, needs_landlock, pytest.mark.timeout(300)]

PLUGINS = Path(__file__).resolve().parents[1] / "plugins" / "data"
MCP_SERVER = PLUGINS / "mcp_server.py"
SEARCH_TOKEN = "search-token-0123456789abcdef"  # in the launcher's environment, never the kernel's
EDITED = "edited_product = 6 * 7\nprint('edited code ran', edited_product)"


def _one_step(*codes: str) -> dict[str, list[str]]:
    return {
        "Planner": [
            planner("Do it.", send_to="CodeInterpreter", step="1. compute 6 times 7"),
            planner("Done.", send_to="User", step="2. report the answer", stop="Completed"),
        ],
        "CodeInterpreter": [code(c) for c in codes],
    }


def _processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _saved_round(notebook: Path) -> Any:
    return load_conversation_file(max((notebook / ".twnb").glob("*/rounds/*.yaml"))).rounds[-1]


def _code_posts(notebook: Path) -> list[Any]:
    return [post for post in _saved_round(notebook).post_list if post.send_from == "CodeInterpreter"]


@pytest.fixture
def fake_llm() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


# --- step mode: a frontend that approves the plan, edits the code, runs it and continues -------------


class EditingFrontend:
    """The click rule of tests/notebook/nb_widget_frontend.py's WidgetFrontend: Approve plan, then on
    the code: Edit, type `edited` into the editor, Run edited; then Continue."""

    def __init__(self, edited: str) -> None:
        self.edited = edited
        self.client: Any = None
        self.edited_once = False

    def __call__(self, states: dict[str, dict[str, Any]], comm_id: str, update: dict[str, Any]) -> str | None:
        shown = str(update.get("value", ""))  # the panel's title says what waits
        if "<b>Approve the plan</b>" in shown:
            return "twnb-step-approve"
        if "<b>Run this code?</b>" in shown and not self.edited_once:
            self.edited_once = True
            self._click("twnb-step-edit")
            editor = next(i for i, s in states.items() if "twnb-step-editor" in (s.get("_dom_classes") or ()))
            state = {"value": self.edited}
            self.client._send(editor, {"method": "update", "state": state, "buffer_paths": []})
            return "twnb-step-run"
        classes = states[comm_id].get("_dom_classes") or ()
        if "twnb-step-continue" in classes and update.get("disabled") is False:
            return "twnb-step-continue"  # enabled by an update: the panel asks after the run
        return None

    def _click(self, css_class: str) -> None:
        for button, state in self.client.states.items():
            if css_class in (state.get("_dom_classes") or ()) and state.get("_model_name") == "ButtonModel":
                self.client.clicked.append(css_class)
                self.client._send(button, {"method": "custom", "content": {"event": "click"}})
                return


def test_step_mode_runs_the_code_as_the_user_edited_it(
    tmp_path: Path, fake_llm: FakeLLMServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.syspath_prepend(str(Path(__file__).resolve().parents[1] / "notebook"))
    from nb_widget_frontend import WidgetFrontend

    places = make_places(tmp_path)
    model_code = "model_product = 6 * 8\nprint('model code ran', model_product)"
    fake_llm.load(_one_step(model_code))
    nb = nbformat.v4.new_notebook()
    cells = ["%load_ext twnb", "%%taskweaver --step\nMultiply 6 and 7.", "print('after', edited_product)"]
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    rule = EditingFrontend(EDITED)
    km = AsyncKernelManager(kernel_name=CONFINED_KERNEL_NAME, kernel_spec_manager=ConfinedSpecs())
    client = WidgetFrontend(
        nb, km=km, timeout=120, click=rule, resources={"metadata": {"path": str(places.notebook)}}
    )
    rule.client = client
    env = kernel_env(places, OPENAI_BASE_URL=fake_llm.base_url, TWNB_MODEL="fake-model")
    client.execute(env=env)

    assert client.clicked == ["twnb-step-approve", "twnb-step-edit", "twnb-step-run", "twnb-step-continue"]
    assert "edited code ran 42" in cell_text(nb.cells[1]) and "model code ran" not in cell_text(nb.cells[1])
    assert cell_text(nb.cells[2]).strip() == "after 42"
    (post,) = _code_posts(places.notebook)
    assert post.extra["edited_by"] == "User" and post.extra["edited_from"] == model_code
    assert "edited_product = 6 * 7" in str(post.attachment_list)  # the record keeps what ran


# --- undo ----------------------------------------------------------------------------------------------


@pytest.fixture
def kernel(tmp_path: Path, fake_llm: FakeLLMServer) -> Iterator[ConfinedKernel]:
    places = make_places(tmp_path)
    started = ConfinedKernel(
        places, kernel_env(places, OPENAI_BASE_URL=fake_llm.base_url, TWNB_MODEL="fake-model")
    )
    try:
        yield started
    finally:
        started.shutdown()


def test_undo_takes_back_a_rounds_variables_and_files(
    kernel: ConfinedKernel, fake_llm: FakeLLMServer
) -> None:
    notebook = kernel.places.notebook
    (notebook / "data.csv").write_text("x\n1\n")
    kernel.run("%load_ext twnb\nnumbers = [1, 2, 3]")
    fake_llm.load(
        _one_step(
            "undo_total = sum(numbers)\nnumbers.append(4)\n"
            "open('data.csv', 'w').write('x\\n99\\n')\nopen('report.csv', 'w').write('total\\n6\\n')"
        )
    )
    reply = kernel.execute("%%taskweaver\nTotal the numbers.", timeout=120)
    assert reply["status"] == "ok", reply
    assert kernel.value("undo_total") == 6 and (notebook / "report.csv").exists()

    said = kernel.run("%taskweaver undo")

    assert said.startswith("Round 1: Undone by the user"), said
    assert kernel.value("'undo_total' in dir()") is False
    assert kernel.value("numbers") == [1, 2, 3]
    assert (notebook / "data.csv").read_text() == "x\n1\n"
    assert not (notebook / "report.csv").exists()
    assert list((notebook / "twnb-undone").rglob("report.csv"))


# --- plugins and MCP servers -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def outside_server() -> Iterator[int]:
    """An MCP server the user started themselves, outside any confinement, on a loopback port."""
    with http_mcp_server(MCP_SERVER) as port:
        yield port


@pytest.fixture(scope="module")
def closed_port() -> Iterator[int]:
    """A loopback port nothing listens on, held (bound, not listening) for the module: one found free
    and released could be handed to another process's server, or to the kernel's own ports."""
    with socket.socket() as held:
        held.bind(("127.0.0.1", 0))
        yield int(held.getsockname()[1])


@pytest.fixture(scope="module")
def plugin_round(
    tmp_path_factory: pytest.TempPathFactory, outside_server: int, closed_port: int
) -> Iterator[dict[str, Any]]:
    """A confined kernel whose notebook has a `plugins/` folder (TaskWeaver's format) and, in its
    twnb.yaml, four MCP servers: `web` (the user's, by URL, its port in `confine_connect`), `calc`
    (stdio: the kernel would start it), `closed` (by URL, a port not allowed) and `tokened` (`web`
    again, with a header that needs a secret-named variable). One Round calls a TaskWeaver plugin and
    a tool of `web`."""
    places = make_places(tmp_path_factory.mktemp("plugins"))
    shutil.copytree(PLUGINS / "taskweaver", places.notebook / "plugins")
    marker = f"--marker={uuid.uuid4().hex}"
    servers = {
        "web": {"url": f"http://127.0.0.1:{outside_server}/mcp"},
        "calc": {"command": sys.executable, "args": [str(MCP_SERVER), marker]},
        "closed": {"url": f"http://127.0.0.1:{closed_port}/mcp"},
        "tokened": {
            "url": f"http://127.0.0.1:{outside_server}/mcp",
            "headers": {"Authorization": "Bearer ${SEARCH_TOKEN}"},
        },
    }
    (places.notebook / "twnb.yaml").write_text(yaml.safe_dump({"mcp": {"servers": servers, "timeout": 20}}))
    with FakeLLMServer() as llm:
        llm.load(_one_step("country = city_lookup('Lima')\nweb_total = add(a=2, b=3)\ncountry, web_total"))
        env = kernel_env(
            places,
            OPENAI_BASE_URL=llm.base_url,
            TWNB_MODEL="fake-model",
            TWNB_CONFINE_CONNECT=f"127.0.0.1:{outside_server}",
            SEARCH_TOKEN=SEARCH_TOKEN,
        )
        confined = ConfinedKernel(places, env)
        try:
            confined.run("%load_ext twnb")
            reply = confined.execute(
                "%%taskweaver\nWhich country is Lima in, and what is 2 plus 3?", timeout=120
            )
            shown = "".join(c.get("text", "") for kind, c in confined.shown if kind == "stream")
            yield {
                "kernel": confined,
                "reply": reply,
                "shown": shown,
                "marker": marker,
                "notebook": places.notebook,
            }
        finally:
            confined.shutdown()


def test_a_taskweaver_plugin_is_called_by_the_rounds_code(plugin_round: dict[str, Any]) -> None:
    assert plugin_round["reply"]["status"] == "ok", plugin_round["reply"]
    assert plugin_round["kernel"].value("country") == "Peru"
    (post,) = _code_posts(plugin_round["notebook"])
    assert ("city_lookup", "taskweaver") in [(c["name"], c["source"]) for c in post.extra["plugin_calls"]]


def test_an_mcp_server_the_user_started_outside_is_reached_by_its_url(plugin_round: dict[str, Any]) -> None:
    assert plugin_round["kernel"].value("web_total") == 5
    (post,) = _code_posts(plugin_round["notebook"])
    assert ("add", "mcp") in [(c["name"], c["source"]) for c in post.extra["plugin_calls"]]


def test_a_stdio_mcp_server_is_refused_in_one_line_and_never_starts(plugin_round: dict[str, Any]) -> None:
    lines = [line for line in plugin_round["shown"].splitlines() if "Plugin calc" in line]
    assert len(lines) == 1, plugin_round["shown"]
    assert "this kernel is confined and runs no programs" in lines[0] and "`url`" in lines[0]
    assert "PermissionError" not in plugin_round["shown"]
    assert _processes_with(plugin_round["marker"]) == []


def test_an_mcp_server_on_a_port_not_allowed_is_refused_naming_the_setting(
    plugin_round: dict[str, Any],
) -> None:
    (line,) = [line for line in plugin_round["shown"].splitlines() if "Plugin closed" in line]
    assert "confine_connect" in line and "add 127.0.0.1:" in line


def test_an_mcp_server_needing_a_secret_is_refused_saying_the_kernel_never_holds_it(
    plugin_round: dict[str, Any],
) -> None:
    (line,) = [line for line in plugin_round["shown"].splitlines() if "Plugin tokened" in line]
    assert "needs the variable SEARCH_TOKEN, a secret, which a confined kernel never holds" in line
    assert plugin_round["kernel"].value("'SEARCH_TOKEN' in __import__('os').environ") is False
