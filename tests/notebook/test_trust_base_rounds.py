"""Nothing a Round does changes what twnb trusts, in a notebook run by nbclient in a real kernel against
the loopback LLM server: each Round's code is the attack a model would write, and each test asserts
that the later Round ran as the user set it up (its marker file never made).

The attacking Rounds run with --no-verify, where the runtime guard refuses nothing (a user who turned
verification off for one Round): the files they write reach the disk, and what is tested is that
twnb never loads them (config/file_trust.py). With verification on the guard refuses the writes
themselves (tests/kernel/test_trust_base.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.nb_run import cell_text, llm_env, outputs_with, run_notebook
from support.nb_scripts import code, planner

from twnb.render import MIME_TYPE

pytestmark = pytest.mark.slow


def _rounds(*codes: list[str]) -> dict[str, list[str]]:
    """One Round per list of code replies (the first tried, the rest its revisions)."""
    planners: list[str] = []
    for _ in codes:
        planners.append(planner("Do the step.", send_to="CodeInterpreter", step="1. compute 6 times 7"))
        planners.append(planner("Done.", send_to="User", step="2. report the answer", stop="Completed"))
    return {"Planner": planners, "CodeInterpreter": [code(text) for replies in codes for text in replies]}


def _payloads(nb) -> list[dict]:
    return [output["data"][MIME_TYPE] for output in outputs_with(nb, MIME_TYPE)]


def _write(path: str, text: str) -> str:
    return (
        f"import os\nos.makedirs(os.path.dirname({path!r}) or '.', exist_ok=True)\n"
        f"open({path!r}, 'w').write({text!r})\nanswer = 1"
    )


SYSTEM = "import os\nos.system('touch marker')\nanswer = 2"


def test_a_round_cannot_write_the_settings_and_the_next_round_is_still_verified(fake_llm, tmp_path):
    settings = _write("twnb.yaml", "code_interpreter:\n  verify: false\n")
    fake_llm.load(_rounds([settings, "answer = 1"], [SYSTEM, "answer = 2"]))
    cells = ["%load_ext twnb", "%%taskweaver\nSave my preferences.", "%%taskweaver\nTouch a marker."]
    nb, _ = run_notebook(tmp_path, cells, llm_env(fake_llm, tmp_path))
    assert not (tmp_path / "twnb.yaml").exists()
    assert not (tmp_path / "marker").exists()
    first, second = _payloads(nb)
    attempt = next(p for p in first["post_list"] if p["send_from"] == "CodeInterpreter")
    record = next(a for a in attempt["attachment_list"] if a["type"] == "execution_result")
    assert [r["rule"] for r in record["extra"]["refusals"]] == ["trust-base"]
    assert first["state"] == second["state"] == "finished"


def test_settings_a_round_wrote_are_not_loaded_and_verification_stays_on(fake_llm, tmp_path):
    fake_llm.load(
        _rounds([_write("twnb.yaml", "code_interpreter:\n  verify: false\n")], [SYSTEM, "answer = 2"])
    )
    cells = [
        "%load_ext twnb",
        "%%taskweaver --no-verify\nSave my preferences.",
        "%%taskweaver\nTouch a marker.",
    ]
    nb, _ = run_notebook(tmp_path, cells, llm_env(fake_llm, tmp_path))
    assert (tmp_path / "twnb.yaml").exists()  # written in the Round without verification
    assert not (tmp_path / "marker").exists()
    second = _payloads(nb)[1]
    (notes,) = [second["extra"]["trust_notes"]]
    assert any("twnb.yaml was written by generated code" in line for line in notes), notes
    assert "does not load it as settings" in cell_text(nb.cells[2])


def test_an_mcp_server_a_round_wrote_is_never_started(fake_llm, tmp_path):
    server = "mcp:\n  servers:\n    helper:\n      command: /bin/sh\n      args: ['-c', 'touch marker']\n"
    fake_llm.load(_rounds([_write("twnb.yaml", server)], ["answer = 2"]))
    cells = ["%load_ext twnb", "%%taskweaver --no-verify\nSet up a helper.", "%%taskweaver\nUse it."]
    nb, _ = run_notebook(tmp_path, cells, llm_env(fake_llm, tmp_path))
    assert (tmp_path / "twnb.yaml").exists()
    assert not (tmp_path / "marker").exists()
    assert _payloads(nb)[1]["state"] == "finished"


def test_a_plugin_a_round_wrote_is_never_loaded(fake_llm, tmp_path):
    spec = "name: tool\nenabled: true\nrequired: false\ndescription: a tool\nparameters: []\nreturns: []\n"
    module = (
        "open('marker', 'w').close()\n"
        "from taskweaver.plugin import register_plugin\n\n\n@register_plugin\ndef tool():\n    return 1\n"
    )
    writes = _write("plugins/tool.yaml", spec).replace("answer = 1", _write("plugins/tool.py", module))
    fake_llm.load(_rounds([writes], ["answer = 2"]))
    cells = ["%load_ext twnb", "%%taskweaver --no-verify\nMake a tool.", "%%taskweaver\nUse the tool."]
    nb, _ = run_notebook(tmp_path, cells, llm_env(fake_llm, tmp_path))
    assert (tmp_path / "plugins" / "tool.py").exists()
    assert not (tmp_path / "marker").exists()
    problems = _payloads(nb)[1]["extra"]["plugin_problems"]
    assert any("written by generated code" in line for line in problems), problems


def test_the_settings_traitlet_set_by_generated_code_is_refused_and_undone(fake_llm, tmp_path):
    magics = "get_ipython().magics_manager.registry['TaskWeaverMagics']"
    around = f"m = {magics}\nm._trait_values['max_retries'] = 0\nanswer = 1"
    direct = f"{magics}.verify = False\nanswer = 1"
    fake_llm.load(_rounds([around], [direct, "answer = 1"]))
    cells = [
        "%load_ext twnb",
        "%%taskweaver --no-verify\nTune twnb.",
        "%%taskweaver --no-verify\nTune twnb again.",
        "%taskweaver config",
        "m = get_ipython().magics_manager.registry['TaskWeaverMagics']\nprint(m.verify, m.max_retries)",
    ]
    nb, _ = run_notebook(tmp_path, cells, llm_env(fake_llm, tmp_path))
    first, second = _payloads(nb)
    assert any("max_retries" in line and "put it back" in line for line in first["extra"]["trust_notes"])
    attempt = next(p for p in second["post_list"] if p["send_from"] == "CodeInterpreter")
    record = next(a for a in attempt["attachment_list"] if a["type"] == "execution_result")
    assert [r["rule"] for r in record["extra"]["refusals"]] == ["settings"]
    assert cell_text(nb.cells[4]).strip() == "None None"
    config = {line.split()[0]: line for line in cell_text(nb.cells[3]).splitlines() if line.strip()}
    assert config["verify"].split()[1:] == ["True", "default"]
    assert "%config" not in config["max_retries"]


def test_config_names_a_traitlet_the_user_set_by_assignment_as_such(shell):
    shell.run_cell("get_ipython().magics_manager.registry['TaskWeaverMagics'].max_retries = 5")
    shell.run_line_magic("config", "TaskWeaverMagics.timeout = 30")
    magics = shell.magics_manager.registry["TaskWeaverMagics"]
    resolved = magics.notebook.resolve({}, magics.traitlet_values())
    assert (
        resolved.sources["max_retries"].describe()
        == "TaskWeaverMagics.max_retries set by assignment in a cell"
    )
    assert resolved.sources["timeout"].describe() == "%config TaskWeaverMagics.timeout"


def test_a_settings_file_the_user_changes_by_hand_is_said_once(shell, clean_env: Path):
    magics = shell.magics_manager.registry["TaskWeaverMagics"]
    trust = magics.notebook.file_trust
    magics.notebook.resolve({}, {})
    trust.take_lines()  # the first Round: what is there is what the user started with
    (clean_env / "twnb.yaml").write_text("code_interpreter:\n  max_retries: 2\n", encoding="utf-8")
    magics.notebook.resolve({}, {})
    magics.notebook.resolve({}, {})
    lines = trust.take_lines()
    assert lines == [f"loaded settings from {clean_env / 'twnb.yaml'} (new since the last Round)."]
