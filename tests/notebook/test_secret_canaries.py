"""Secrets of every kind, printed, raised and displayed by generated code in a real kernel, reach no sink.

One notebook runs once (nbclient, a real ipykernel, the loopback LLM server reached through a base URL
with a password, recording a cassette, after the user's `logging.basicConfig(level=INFO)`): the
generated code prints the environment and each canary (split across two writes) to stdout and
stderr, logs it through a twnb logger (as any twnb module logs) and a library's, displays them as HTML,
in a DataFrame-like repr and in display metadata, raises them in an exception, and keeps a connection
URL in a variable; a later step shows them as its result. It also prints a secret in every spelling
(repr, JSON, pandas' text and HTML with their cuts, percent-encoding, a "…" cut), URLs parsed by
urlparse and SQLAlchemy, a value the user popped or renamed out of the environment before the Round,
and puts a secret in a tqdm.notebook bar's description and an ipywidgets value. The notebook is then
exported. Each test searches one sink for every canary.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import nbformat
import pytest
from fakellm.server import FakeLLMServer
from nbclient import NotebookClient
from support.nb_scripts import code, planner

from twnb.kernel import AsyncUnixSocketKernelManager
from twnb.render import MIME_TYPE

pytestmark = pytest.mark.slow

PEM_BODY = "MIIEcanaryPemBody0123456789abcdefABCDEFghijklmnop"
JWT = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJjYW5hcnkiLCJuIjo3fQ.c2lnbmF0dXJlLWNhbmFyeS0xMjM0"
# Every character an encoding changes (\\ " ' & < > @ / space), around a core no encoding changes, long
# enough that pandas cuts it.
SPELLED = "Sp\\el\"l'&<ed> @/Core-14142-canary-" + "q" * 40
# variable -> its value in the kernel's environment; each rule of the redactor is needed for one of them:
# the configured key and the secret-named variables by name, the others by shape only.
ENVIRONMENT = {
    "WAREHOUSE_PASSWORD": SPELLED,
    "HF_TOKEN": "hfval-popped-canary-17320",  # popped by the user before the Round
    "SERVICE_PASSWORD": "renamed-canary-22360",  # renamed by the user to PLAIN_SETTING
    "DB_SEED": "varval-canary",  # the user makes a secret-named variable's value from it
    "WAREHOUSE_URL": "postgresql://loader:p%40ss-Canary-2718@wh.internal:5432/x",
    "OPENAI_API_KEY": "cfgkey-canary-31415",
    "SERVICE_TOKEN": "tokval-canary-27182",
    "DB_CREDENTIAL": "credval-canary-16180",
    "DATABASE_URL": "postgresql://analyst:UrlPw-Zx81Qa7@db.internal:5432/sales",
    "DEPLOY_PEM": f"-----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n-----END RSA PRIVATE KEY-----",
    "SESSION_JWT": JWT,
    "CI_GITHUB": "ghp_CanaryGitHub0123456789abcdefghijKLMNOP",
    "CLOUD_ID": "AKIACANARY0123456789",
}
# What must never be seen (the URL's password, not the URL; the PEM block's body).
CANARIES = {
    "configured API key": "cfgkey-canary-31415",
    "*_TOKEN value": "tokval-canary-27182",
    "DB_CREDENTIAL value": "credval-canary-16180",
    "URL password": "UrlPw-Zx81Qa7",
    "PEM block": PEM_BODY,
    "JWT": JWT,
    "GitHub token": "ghp_CanaryGitHub0123456789abcdefghijKLMNOP",
    "AWS key id": "AKIACANARY0123456789",
    "a secret in any spelling or cut": "Core-14142",
    "a value popped from the environment": "hfval-popped-canary-17320",
    "a value renamed in the environment": "renamed-canary-22360",
    "a percent-encoded URL password": "ss-Canary-2718",
    "the LLM base URL's password": "LlmPw-Zx81Qa7",
    "a secret-named variable's value": "varval-canary-26457",
}
MARKER = "canary-step-ran"
# Not among the values the leaky code lists: gone from the environment by then, or not a secret.
NOT_LISTED = {"HF_TOKEN", "SERVICE_PASSWORD", "DB_SEED"}
# The user's own cell before the Round: secrets leave the environment, one is kept in a variable.
USER_CELL = """\
import os
hf_token = os.environ.pop("HF_TOKEN")
os.environ["PLAIN_SETTING"] = os.environ.pop("SERVICE_PASSWORD")
db_secret = os.environ["DB_SEED"] + "-26457"
"""

LEAKY_CODE = f"""\
import os, sys
from IPython.display import HTML, display
names = {sorted(set(ENVIRONMENT) - NOT_LISTED)!r}
values = [os.environ[n] for n in names]
conn = os.environ["DATABASE_URL"]
print("{MARKER}")
print(dict(os.environ))
for value in values:
    sys.stdout.write(value[:7])
    sys.stdout.flush()
    sys.stdout.write(value[7:] + "\\n")
    print("err:", value, file=sys.stderr)
from twnb.base.logs import get_logger
get_logger("twnb.generated").warning("environment: %s", dict(os.environ))

class Frame:
    def __repr__(self):
        return "\\n".join(f"{{i}}  {{v}}" for i, v in enumerate(values))

    def _repr_html_(self):
        return "<table>" + "".join(f"<tr><td>{{v}}</td></tr>" for v in values) + "</table>"

display(HTML("<ul>" + "".join(f"<li>{{v}}</li>" for v in values) + "</ul>"))
display(Frame())

# One secret in every spelling, and cut by displays.
import json, logging, urllib.parse
import pandas as pd
spelled = os.environ["WAREHOUSE_PASSWORD"]
print(json.dumps({{"warehouse": spelled}}))
print(urllib.parse.quote(spelled, safe=""), urllib.parse.urlencode({{"pw": spelled}}))
print(spelled[:30] + "\u2026")
settings = pd.DataFrame({{"setting": ["warehouse"], "value": [spelled]}})
print(settings)
display(settings)
# URLs parsed, by urlparse and SQLAlchemy.
from sqlalchemy.engine import make_url
print(urllib.parse.urlparse(os.environ["WAREHOUSE_URL"]))
warehouse = make_url(os.environ["WAREHOUSE_URL"])
print(warehouse._asdict(), tuple(warehouse), warehouse.password)
# Values that left the environment or live in a variable only.
note = db_secret
del db_secret
print("headers:", {{"X-Hub": hf_token}}, os.environ["PLAIN_SETTING"], note)
# Records the notebook keeps besides outputs.
logging.getLogger("warehouse.driver").warning("connecting with %s", spelled)
logging.getLogger("warehouse.fields").warning("connecting", extra={{"password": spelled}})
display(HTML("<b>saved</b>"), metadata={{"warehouse": {{"password": spelled, "note": note}}}})
from tqdm.notebook import tqdm
for _ in tqdm(range(3), desc=spelled):
    pass
import ipywidgets
display(ipywidgets.Text(value=hf_token, description="token"))
raise ValueError("could not connect with " + " ".join(values))
"""
FIXED_CODE = "rows = len(conn)\nFrame()"


def script() -> dict[str, list[Any]]:
    return {
        "Planner": [
            planner("Connect and report.", send_to="CodeInterpreter", step="1. connect"),
            planner("Done: connected.", send_to="User", step="2. report", stop="Completed"),
        ],
        "CodeInterpreter": [code(LEAKY_CODE, "Connect."), code(FIXED_CODE, "Show the frame.")],
    }


@dataclass
class Run:
    folder: Path
    notebook_text: str
    notebook: Any
    requests: list[dict[str, Any]]
    kernel_log: str


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Run]:
    folder = tmp_path_factory.mktemp("canaries")
    # twnb's log records go to the kernel's stderr, captured below as the kernel's log.
    # A log file of the user's shows a field the code adds with `extra=` (the kernel's stderr is redacted
    # as output: a file is not).
    setup = (
        "import logging, sys\nlogging.basicConfig(stream=sys.__stderr__, level=logging.INFO, force=True)\n"
        "fields = logging.FileHandler('user.log')\n"
        "fields.setFormatter(logging.Formatter('fields: %(message)s %(password)s'))\n"
        "logging.getLogger('warehouse.fields').addHandler(fields)"
    )
    cells = [
        "%load_ext twnb",
        setup,
        USER_CELL,
        "%%taskweaver --no-verify\nConnect to the database and report.",
        "%taskweaver save conversation.yaml",
        "%taskweaver export exported/exported.ipynb",
    ]
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
    with FakeLLMServer(script()) as server:
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith(("TWNB_", "OPENAI_", "AZURE_"))},
            **ENVIRONMENT,
            "TWNB_MODEL": "fake-model",
            # twnb's own HTTP client, and the httpx and openai loggers under it, see this password.
            "OPENAI_BASE_URL": server.base_url.replace("://", "://llm:LlmPw-Zx81Qa7@", 1),
            "TWNB_SESSION_DIR": str(folder / ".twnb"),
            "TWNB_RECORD": "1",
            "HOME": str(folder),
        }
        client = NotebookClient(
            nb,
            kernel_name="python3",
            kernel_manager_class=AsyncUnixSocketKernelManager,
            timeout=120,
            resources={"metadata": {"path": str(folder)}},
        )
        log_path = folder / "kernel.log"
        with log_path.open("w", encoding="utf-8") as log:
            try:
                client.execute(env=env, stderr=log)
            finally:
                nbformat.write(nb, folder / "run.ipynb")
        requests = server.requests()
    yield Run(folder, (folder / "run.ipynb").read_text(), nb, requests, log_path.read_text())


def _leaks(text: str) -> list[str]:
    return [kind for kind, canary in CANARIES.items() if canary in text]


def _files_text(paths: list[Path]) -> str:
    assert paths, "the sink holds no files"
    return "\n".join(p.read_text(encoding="utf-8") for p in paths)


def _round(run: Run) -> dict[str, Any]:
    (payload,) = [
        out["data"][MIME_TYPE]
        for cell in run.notebook.cells
        for out in cell.get("outputs", [])
        if MIME_TYPE in out.get("data", {})
    ]
    return payload


def test_the_leaky_code_ran_and_its_outputs_reached_the_notebook_redacted(run):
    assert MARKER in run.notebook_text
    assert "[redacted]" in run.notebook_text
    assert _round(run)["state"] == "finished"


def test_no_canary_in_the_saved_notebook(run):
    assert _leaks(run.notebook_text) == []


def test_no_canary_in_the_round_bundle(run):
    assert _leaks(json.dumps(_round(run))) == []


def test_no_canary_in_the_saved_conversation(run):
    assert _leaks(_files_text([run.folder / "conversation.yaml"])) == []


def test_no_canary_in_the_autosave(run):
    assert _leaks(_files_text(sorted((run.folder / ".twnb").glob("*/rounds/*.yaml")))) == []


def test_no_canary_in_the_recorded_cassettes(run):
    recorded = sorted((run.folder / ".twnb").glob("*/cassette.yaml"))
    cassettes = [*recorded, run.folder / "conversation.cassette.yaml"]
    assert _leaks(_files_text(cassettes)) == []


def test_no_canary_in_any_request_body_the_llm_server_received(run):
    # The key itself travels in the Authorization header, as it must; the bodies are the prompts.
    assert len(run.requests) >= 4
    assert _leaks(json.dumps([r["body"] for r in run.requests])) == []


def test_the_variable_summary_sent_to_the_llm_shows_the_connection_but_not_its_password(run):
    last_planner_prompt = json.dumps([r["body"] for r in run.requests if r.get("role") == "Planner"][-1])
    assert "conn" in last_planner_prompt
    assert "UrlPw-Zx81Qa7" not in last_planner_prompt


def test_no_canary_in_the_kernel_log(run):
    assert "environment:" in run.kernel_log  # the generated code's log record arrived
    assert "connecting with" in run.kernel_log  # and a library's
    assert "HTTP Request: POST" in run.kernel_log  # and twnb's HTTP client's
    assert _leaks(run.kernel_log) == []


def test_no_canary_in_a_log_file_of_the_users_showing_a_field_added_with_extra(run):
    log = (run.folder / "user.log").read_text()
    assert "fields: connecting " in log
    assert _leaks(log) == []


def test_the_widget_state_and_the_display_metadata_reached_the_notebook_redacted(run):
    widgets = run.notebook.metadata["widgets"]["application/vnd.jupyter.widget-state+json"]["state"]
    states = [model["state"] for model in widgets.values()]
    texts = [state["value"] for state in states if state.get("_model_name") == "TextModel"]
    bar_labels = [state["value"] for state in states if state.get("_model_name") == "HTMLModel"]
    assert texts == ["[redacted]"]
    assert any(label.startswith("[redacted]") for label in bar_labels)  # the bar's description
    metadata = [out.get("metadata", {}) for cell in run.notebook.cells for out in cell.get("outputs", [])]
    assert {"warehouse": {"password": "[redacted]", "note": "[redacted]"}} in metadata


def test_no_canary_in_the_widget_state(run):
    assert _leaks(json.dumps(run.notebook.metadata.get("widgets"))) == []


def test_no_canary_in_the_exported_notebook_or_its_folder(run):
    folder = run.folder / "exported"
    files = [p for p in folder.rglob("*") if p.is_file()]
    assert folder / "exported.ipynb" in files
    assert _leaks("\n".join(p.read_text(encoding="utf-8", errors="replace") for p in files)) == []
