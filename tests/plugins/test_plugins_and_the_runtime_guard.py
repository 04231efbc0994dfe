"""A plugin is code the user offered the model: generated code calling it does not put it under the
runtime guard, which still refuses the same action in the generated code itself. A real kernel, run by
nbclient against the loopback LLM server."""

from __future__ import annotations

import pytest
from plugin_scripts import one_step
from support.nb_run import llm_env, outputs_with, run_notebook

from twnb.render import MIME_TYPE

pytestmark = pytest.mark.slow

PLUGIN_CELL = (
    "import subprocess, twnb\n\n"
    "@twnb.plugin\ndef line_count(path: str) -> int:\n"
    "    '''The number of lines in a file, as wc counts them.'''\n"
    "    return int(subprocess.run(['wc', '-l', path], capture_output=True, text=True).stdout.split()[0])"
)


def test_a_plugin_may_start_a_process_that_the_generated_code_may_not(fake_llm, tmp_path):
    (tmp_path / "notes.txt").write_text("one\ntwo\nthree\n")
    fake_llm.load(
        one_step(
            # what verification lets through once the user allows IPython; the guard refuses it
            "import IPython\nIPython.InteractiveShell.instance().system('wc -l notes.txt')\nlines = 0",
            "lines = line_count('notes.txt')\nlines",
        )
    )
    cells = [
        "%load_ext twnb\n%config TaskWeaverMagics.allow_modules = ['IPython']",
        PLUGIN_CELL,
        "%%taskweaver\nHow many lines has notes.txt?",
        "print(lines)",
    ]
    nb, _ = run_notebook(tmp_path, cells, llm_env(fake_llm, tmp_path))
    (output,) = outputs_with(nb, MIME_TYPE)
    payload = output["data"][MIME_TYPE]
    first, second = [p for p in payload["post_list"] if p["send_from"] == "CodeInterpreter"]
    status = {
        post["id"]: next(
            a["extra"]["status"] for a in post["attachment_list"] if a["type"] == "execution_result"
        )
        for post in (first, second)
    }
    assert status == {first["id"]: "refused", second["id"]: "success"}
    assert [call["name"] for call in second["extra"]["plugin_calls"]] == ["line_count"]
    assert nb.cells[3].outputs[0]["text"].strip() == "3"
