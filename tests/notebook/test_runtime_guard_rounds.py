"""A Round whose code the runtime guard refuses, in a notebook run by nbclient in a real kernel: the model
is told as for a verification refusal and revises, the user gets one line, their variables stay."""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from support.nb_run import cell_text, llm_env, outputs_with, run_notebook
from support.nb_scripts import code, planner

from twnb.kernel.capture.active_content import SCRIPT_TYPES, active_content_in
from twnb.render import MIME_TYPE

pytestmark = pytest.mark.slow

# What the user trusts: IPython may be imported. Verification then lets the shell's own `system`
# through (it judges names), and the guard refuses what it does.
ALLOW_IPYTHON = "%config TaskWeaverMagics.allow_modules = ['IPython']"
SHELL_ROUTE = "import IPython\nIPython.InteractiveShell.instance().system('touch made-by-shell')\nanswer = 0"


def _round(first_code: str) -> dict[str, list[str]]:
    return {
        "Planner": [
            planner("Compute 6 times 7.", send_to="CodeInterpreter", step="1. compute 6 times 7"),
            planner("The answer is 42.", send_to="User", step="2. report the answer", stop="Completed"),
        ],
        "CodeInterpreter": [code(first_code), code("answer = 6 * 7\nanswer")],
    }


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    return tmp_path


def _cells(flags: str = "") -> list[str]:
    return [
        "%load_ext twnb",
        ALLOW_IPYTHON,
        "mine = 'the user made this'",
        f"%%taskweaver {flags}\nWhat is 6 times 7?".strip(),
        "print(mine, answer)",
    ]


def test_a_refused_attempt_is_revised_and_told_in_one_line(fake_llm, folder):
    fake_llm.load(_round(SHELL_ROUTE))
    nb, _ = run_notebook(folder, _cells(), llm_env(fake_llm, folder))
    (output,) = outputs_with(nb, MIME_TYPE)
    payload = output["data"][MIME_TYPE]
    assert payload["state"] == "finished"
    first, second = [p for p in payload["post_list"] if p["send_from"] == "CodeInterpreter"]
    assert first["send_to"] == "CodeInterpreter"
    record = next(a for a in first["attachment_list"] if a["type"] == "execution_result")
    assert record["extra"]["status"] == "refused"
    (refusal,) = record["extra"]["refusals"]
    assert refusal["rule"] == "process" and refusal["line"] == 2
    revise = next(a["content"] for a in first["attachment_list"] if a["type"] == "revise_message")
    assert revise.startswith("The runtime guard refused what the code did while it ran:\nLine 2:")
    assert second["send_to"] == "Planner"
    assert not (folder / "made-by-shell").exists()
    plain = [o for o in nb.cells[3].outputs if set(o.get("data", {})) == {"text/plain"}]
    lines = [o["data"]["text/plain"] for o in plain if "runtime guard" in o["data"]["text/plain"]]
    assert lines == [
        "attempt 1 was refused by the runtime guard: starting a process (os.forkpty) is not allowed for "
        "generated code.; revised"
    ]
    assert cell_text(nb.cells[4]).strip() == "the user made this 42"


def test_with_no_verify_the_guard_refuses_nothing(fake_llm, folder):
    fake_llm.load(_round(SHELL_ROUTE))
    nb, _ = run_notebook(folder, _cells("--no-verify"), llm_env(fake_llm, folder))
    (output,) = outputs_with(nb, MIME_TYPE)
    payload = output["data"][MIME_TYPE]
    first = next(p for p in payload["post_list"] if p["send_from"] == "CodeInterpreter")
    record = next(a for a in first["attachment_list"] if a["type"] == "execution_result")
    assert record["extra"]["status"] == "success"
    assert (folder / "made-by-shell").exists()


def test_active_output_of_the_code_is_never_saved_active(fake_llm, folder):
    active = (
        "from IPython.display import display, HTML\n"
        "display(HTML('<script>window.stolen = 1</script>'))\nanswer = 0"
    )
    fake_llm.load(_round(active))
    nb, _ = run_notebook(folder, _cells(), llm_env(fake_llm, folder))
    saved = nbformat.read(folder / "run.ipynb", as_version=4)
    bundles = [o.get("data", {}) for cell in saved.cells for o in cell.get("outputs", [])]
    assert not any(mime in SCRIPT_TYPES for bundle in bundles for mime in bundle)
    markup = [(m, str(b[m])) for b in bundles for m in ("text/html", "text/markdown") if m in b]
    assert markup and [active_content_in(m, text) for m, text in markup] == [""] * len(markup)
    plain = [o["data"]["text/plain"] for o in nb.cells[3].outputs if set(o.get("data", {})) == {"text/plain"}]
    assert any(text.startswith("twnb: this output of generated code held active content") for text in plain)
