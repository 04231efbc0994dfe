"""`twnb eval` runs each case's kernel confined by default: the agent's code reads nothing outside
the run's folder and the system's, though a replayed run still reads its cassette from the earlier
run's folder; `--no-confine` opts out, and then the same code reads the file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.confined_kernel import needs_landlock
from support.session_script import answer, code_reply, planner_reply

from twnb.cli import main
from twnb.evaluation import EvalOptions, case_run, run_evaluation

pytestmark = [pytest.mark.slow, needs_landlock]

USER = "You play the user"
JUDGE = "You are the judge"
YES = json.dumps({"reason": "It did.", "is_hit": "yes"})
SECRET = "the outside file's secret"


def _script(code: str) -> dict[str, list[str]]:
    request = "Copy the notes file for me"
    return {
        "Planner": [planner_reply("CodeInterpreter", request), answer("Done.")],
        "CodeInterpreter": [code_reply(code)] * 4,
        USER: [request, "TASK_FINISHED"],
        JUDGE: [YES],
    }


@pytest.fixture
def outside_file(tmp_path: Path) -> Path:
    path = tmp_path / "outside" / "notes.txt"
    path.parent.mkdir()
    path.write_text(SECRET, encoding="utf-8")
    return path


def _copy_code(path: Path) -> str:
    return f"text = open({str(path)!r}).read()\nopen('copied.txt', 'w').write(text)\nprint('copied')"


def test_the_agents_code_cannot_read_outside_the_run_folder(tmp_path, live, make_case, outside_file):
    make_case("copy")
    live.load(_script(_copy_code(outside_file)))
    outcome = run_evaluation(
        EvalOptions(paths=[tmp_path / "cases"], out_dir=tmp_path / "out", models=["m"]),
        progress=lambda _: None,
    )
    assert outcome.ran[0].status == "scored"
    assert not (tmp_path / "out" / "m" / "copy" / "copied.txt").exists()


def test_no_confine_lets_the_same_code_read_it_and_says_nothing_of_confinement(
    tmp_path, live, make_case, outside_file
):
    make_case("copy")
    live.load(_script(_copy_code(outside_file)))
    said: list[str] = []
    run_evaluation(
        EvalOptions(paths=[tmp_path / "cases"], out_dir=tmp_path / "out", models=["m"], confine=False),
        progress=said.append,
    )
    assert (tmp_path / "out" / "m" / "copy" / "copied.txt").read_text(encoding="utf-8") == SECRET
    assert not any("unconfined" in line for line in said)


def test_a_confined_replay_reads_its_cassettes_from_the_recorded_folder(tmp_path, live, make_case):
    make_case("answer")
    live.load(_script("print('The answer is 42.')"))
    run_evaluation(
        EvalOptions(paths=[tmp_path / "cases"], out_dir=tmp_path / "out", models=["m"], record=True),
        progress=lambda _: None,
    )
    live.stop()
    replayed = run_evaluation(
        EvalOptions(paths=[tmp_path / "cases"], out_dir=tmp_path / "again", replay=tmp_path / "out"),
        progress=lambda _: None,
    )
    [result] = replayed.ran
    assert result.status == "scored", result.failures
    assert result.turns[0].reply == "Done."  # the recorded answer, read back inside the kernel


def test_the_cli_takes_no_confine(tmp_path, live, make_case, outside_file, capsys):
    make_case("copy")
    live.load(_script(_copy_code(outside_file)))
    out = tmp_path / "out"
    code = main(["eval", str(tmp_path / "cases"), "-o", str(out), "--model", "m", "--no-confine"])
    assert code == 0, capsys.readouterr().err
    assert (tmp_path / "out" / "m" / "copy" / "copied.txt").read_text(encoding="utf-8") == SECRET


def test_a_case_result_names_the_program_start_its_kernel_refused(tmp_path, live, make_case, monkeypatch):
    # verification and the runtime guard off (no case can say so: set here), so the code reaches the
    # operating system as an escape from them would
    monkeypatch.setattr(
        case_run, "setting_lines", lambda settings: ["%config TaskWeaverMagics.verify = False"]
    )
    marker = tmp_path / "out" / "m" / "shell" / "started-by-system"
    make_case("shell")
    live.load(_script(f"import ctypes\nprint('status', ctypes.CDLL(None).system(b'touch {marker}'))"))
    outcome = run_evaluation(
        EvalOptions(paths=[tmp_path / "cases"], out_dir=tmp_path / "out", models=["m"]),
        progress=lambda _: None,
    )
    (result,) = outcome.ran
    assert not marker.exists()
    refused = [
        n for n in result.notes if n.startswith("Round 1: Confined kernel: running /bin/sh was refused")
    ]
    assert len(refused) == 1, result.notes


def test_a_module_the_agent_planted_is_moved_aside_and_named_in_the_cases_notes(
    tmp_path, live, make_case, monkeypatch
):
    # verification and the runtime guard off, as above: the write reaches the folder, and the
    # kernel's end is what stands
    monkeypatch.setattr(
        case_run, "setting_lines", lambda settings: ["%config TaskWeaverMagics.verify = False"]
    )
    make_case("plant")
    live.load(_script("open('yaml.py', 'w').write('import os\\n')\nprint('written')"))
    outcome = run_evaluation(
        EvalOptions(paths=[tmp_path / "cases"], out_dir=tmp_path / "out", models=["m"]),
        progress=lambda _: None,
    )
    (result,) = outcome.ran
    case = (tmp_path / "out" / "m" / "plant").resolve()
    assert not (case / "yaml.py").exists()
    assert (
        "Confined kernel's end: yaml.py (a module that would shadow the installed yaml) was moved aside "
        f"to yaml.py.twnb-quarantined; `twnb trust --folder {case} accept yaml.py` puts it back."
    ) in result.notes


def test_a_dotenv_with_the_key_beside_the_case_notebooks_is_said_once_never_the_key(
    tmp_path, live, make_case, monkeypatch
):
    from support.confined_kernel import REAL_KEY

    monkeypatch.setenv("OPENAI_API_KEY", REAL_KEY)  # the key the settings use, and the one in the .env
    dotenv = {".env": f"OPENAI_API_KEY={REAL_KEY}\n"}
    make_case("answer", data=dotenv, data_files=[".env"])
    make_case("again", data=dotenv, data_files=[".env"])
    script = _script("print('The answer is 42.')")
    live.load({role: replies * 2 for role, replies in script.items()})
    said: list[str] = []
    outcome = run_evaluation(
        EvalOptions(paths=[tmp_path / "cases"], out_dir=tmp_path / "out", models=["m"]), progress=said.append
    )
    assert [r.status for r in outcome.ran] == ["scored", "scored"], [r.failures for r in outcome.ran]
    told = [line for line in said if "the model's key is in " in line]
    assert len(told) == 1, said  # once for the whole evaluation, not once per case
    assert told[0].startswith("twnb eval: confined kernel: the model's key is in "), told
    assert told[0].endswith("and take it out of the file."), told
    for result in outcome.ran:  # each run's record names its own file, as its launcher did in its log
        folder = tmp_path / "out" / "m" / result.case
        (note,) = [n for n in result.notes if n.startswith("Confined kernel: the model's key is in ")]
        assert note.startswith(f"Confined kernel: the model's key is in {(folder / '.env').resolve()}: ")
        launcher_said = (folder / "kernel.log").read_text(encoding="utf-8").splitlines()
        assert note.replace("Confined kernel: ", "twnb-confined: ", 1) in launcher_said
    written = [
        path.read_text(encoding="utf-8")
        for path in (tmp_path / "out").rglob("*")
        if path.is_file() and path.name != ".env"
    ]
    assert REAL_KEY not in "\n".join([*said, *written])
