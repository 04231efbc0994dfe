"""Every field of a Round goes through the one redactor: a secret the model echoes into the plan (a step,
the outcome it finishes with) is kept in no field of the Round, its saved YAML, its autosave or the next
prompt; a long secret with spaces that `pprint` wraps over lines reaches none of them either. Real
Rounds against the loopback LLM server, code run on a real InteractiveShell."""

from __future__ import annotations

import json

from support.session_script import one_step, planner_reply

PASSPHRASE = "correct horse battery staple under the old mill bridge at dawn 42"


def _everywhere(session, round, fake_llm, workdir) -> str:
    """Every sink of the Round: its data, the saved YAML, the autosave and the prompts sent."""
    saved = session.save(workdir / "conv.yaml").read_text()
    autosaved = "".join(p.read_text() for p in session.autosave_dir.parent.rglob("*.yaml"))
    prompts = json.dumps([request["body"] for request in fake_llm.chat_requests()])
    return "\n".join([json.dumps(round.to_dict()), saved, autosaved, prompts])


def test_a_secret_the_planner_echoes_into_its_plan_and_outcome_is_kept_nowhere(
    make_session, fake_llm, secret_env, workdir
):
    echo = planner_reply(
        "User", f"Done: your token is {secret_env}.", stop="Completed", step=f"2. Report {secret_env}"
    )
    script = one_step("x = 1")
    script["Planner"][-1] = echo  # the answer echoes the token, into the plan's step and outcome
    session = make_session(script)
    round = session.run_round("What is my token?")
    session.run_round("And now?")  # the plan so far is in this Round's prompts
    plan = round.extra["plan"]
    assert plan["outcome"] == "Done: your token is [redacted]."
    assert secret_env not in _everywhere(session, round, fake_llm, workdir)


def test_a_long_secret_pprint_wraps_over_lines_reaches_no_sink(make_session, fake_llm, workdir, monkeypatch):
    monkeypatch.setenv("TWNB_TEST_DB_PASSWORD", PASSPHRASE)
    code = (
        "import os, pprint\n"
        "pprint.pprint({'db': {'password': os.environ['TWNB_TEST_DB_PASSWORD']}}, width=30)"
    )
    session = make_session(one_step(code))
    round = session.run_round("Show the settings")
    session.run_round("Again")  # the first Round's output is in this Round's prompt
    sinks = _everywhere(session, round, fake_llm, workdir)
    words = PASSPHRASE.split()
    assert not [
        " ".join(words[i : i + 2]) for i in range(len(words) - 1) if " ".join(words[i : i + 2]) in sinks
    ]
