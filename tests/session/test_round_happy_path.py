"""Whole Rounds on a real InteractiveShell against the loopback LLM server: the happy paths."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.session_script import answer, attachment, code_reply, kinds, one_step, planner_reply


def test_variables_made_by_the_code_appear_in_the_namespace(make_session, shell):
    session = make_session(one_step("total = sum(range(10))\ntotal", "The total is 45."))
    round = session.run_round("Sum the numbers below 10")
    assert round.state == "finished"
    assert shell.user_ns["total"] == 45
    assert round.post_list[-1].message == "The total is 45."


def test_round_follows_user_planner_codeinterpreter_planner_user(make_session):
    round = make_session(one_step("x = 1")).run_round("Set x")
    assert kinds(round) == [
        ("User", "Planner"),
        ("Planner", "CodeInterpreter"),
        ("CodeInterpreter", "Planner"),
        ("Planner", "User"),
    ]


def test_code_post_has_taskweavers_attachments_in_order(make_session):
    round = make_session(one_step("y = 2\ny")).run_round("Set y")
    code_post = round.post_list[2]
    assert [a.type.value for a in code_post.attachment_list] == [
        "thought",
        "reply_type",
        "reply_content",
        "verification",
        "code_error",
        "execution_status",
        "execution_result",
        "artifact_paths",
    ]
    assert attachment(code_post, "verification").content == "CORRECT"
    assert attachment(code_post, "execution_status").content == "SUCCESS"
    assert "2" in attachment(code_post, "execution_result").content


def test_execution_result_extra_holds_nbformat_outputs(make_session):
    import nbformat

    round = make_session(one_step("print('hello')\n40 + 2")).run_round("Print")
    extra = attachment(round.post_list[2], "execution_result").extra
    kinds_of_output = [o["output_type"] for o in extra["outputs"]]
    assert kinds_of_output == ["stream", "execute_result"]
    notebook = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("x")
    cell.outputs = [nbformat.from_dict(o) for o in extra["outputs"]]
    notebook.cells.append(cell)
    nbformat.validate(notebook)


def test_figure_and_written_file_become_artifacts(make_session, workdir):
    code = (
        "import matplotlib.pyplot as plt\nimport pandas as pd\n"
        "fig, ax = plt.subplots()\nax.plot([1, 2, 3])\nplt.show()\n"
        "pd.DataFrame({'a': [1, 2]}).to_csv('table.csv')"
    )
    round = make_session(one_step(code)).run_round("Plot and save")
    paths = attachment(round.post_list[2], "artifact_paths").content
    assert any(p.endswith(".png") and Path(p).is_file() for p in paths)
    assert str(workdir / "table.csv") in paths


def test_planner_answers_without_code_when_none_is_needed(make_session, fake_llm):
    session = make_session({"Planner": [answer("Hello! What shall we analyse?")]})
    round = session.run_round("hi")
    assert round.state == "finished"
    assert kinds(round) == [("User", "Planner"), ("Planner", "User")]
    assert [r["role"] for r in fake_llm.chat_requests()] == ["Planner"]


def test_codeinterpreter_text_reply_runs_nothing(make_session, shell):
    from support.session_script import text_reply

    session = make_session(
        {
            "Planner": [planner_reply("CodeInterpreter", "Explain the column"), answer("It is the price.")],
            "CodeInterpreter": [text_reply("The column holds prices.")],
        }
    )
    round = session.run_round("What is the price column?")
    code_post = round.post_list[2]
    assert code_post.message == "The column holds prices."
    assert attachment(code_post, "execution_status").content == "NONE"
    assert round.state == "finished"


def test_usage_is_recorded_per_post_and_summed_on_the_round(make_session):
    round = make_session(one_step("z = 3")).run_round("Set z")
    llm_posts = [p for p in round.post_list if p.send_from != "User"]
    assert all(p.extra["usage"]["prompt_tokens"] > 0 for p in llm_posts)
    total = sum(p.extra["usage"]["prompt_tokens"] for p in llm_posts)
    assert round.extra["usage"]["prompt_tokens"] == total
    assert round.extra["usage"]["calls"] == 3


def test_each_llm_post_has_its_wall_time_and_time_to_first_token(make_session):
    slow = {"content": planner_reply("CodeInterpreter", "Run the step."), "slow_first_token_s": 0.15}
    script = {"Planner": [slow, answer("Done.")], "CodeInterpreter": [code_reply("v = 5")]}
    round = make_session(script).run_round("Set v")
    usage = [p.extra["usage"] for p in round.post_list if p.send_from != "User"]
    assert all(u["wall_time_s"] >= u["time_to_first_token_s"] >= 0 for u in usage)
    assert usage[0]["time_to_first_token_s"] >= 0.15  # the slow first Planner call, measured as such


def test_the_round_sums_llm_wall_time_and_leaves_first_token_times_to_the_posts(make_session):
    round = make_session(one_step("u = 6")).run_round("Set u")
    posts_time = sum(p.extra["usage"]["wall_time_s"] for p in round.post_list if p.send_from != "User")
    assert round.extra["usage"]["wall_time_s"] == pytest.approx(posts_time, abs=0.002)
    assert "time_to_first_token_s" not in round.extra["usage"]


def test_requests_are_openai_messages_and_served_reasoning_is_never_sent_back(make_session, fake_llm):
    thinking = {"content": planner_reply("CodeInterpreter", "Run the step."), "reasoning": "SERVED-THINKING"}
    session = make_session({"Planner": [thinking, answer("Done.")], "CodeInterpreter": [code_reply("t = 7")]})
    first = session.run_round("Set t")
    fake_llm.load(one_step("s = 8"))
    session.run_round("Set s")
    assert first.post_list[1].extra["reasoning"] == "SERVED-THINKING"
    bodies = [r["body"] for r in fake_llm.chat_requests()]
    assert len(bodies) == 6
    for message in (m for body in bodies for m in body["messages"]):
        assert set(message) == {"role", "content"} and isinstance(message["content"], str)
    assert not any("SERVED-THINKING" in json.dumps(body) for body in bodies)


def test_round_records_timing(make_session):
    round = make_session(one_step("w = 4")).run_round("Set w")
    timing = round.extra["timing"]
    assert timing["started_at"] <= timing["ended_at"] and timing["duration_s"] >= 0


def test_plan_is_derived_at_every_planner_post(make_session):
    session = make_session(one_step("v = 5"))
    heard = []
    session.plans.register_plan_change_hook("test", lambda notebook, plan: heard.append(plan.to_dict()))
    round = session.run_round("Set v")
    assert [[s["state"] for s in plan["subtasks"]] for plan in heard[:2]] == [
        ["in_progress", "todo"],
        ["done", "done"],
    ]
    assert heard[-1]["state"] == "done" and round.extra["plan"] == heard[-1]
    assert session.plans.history[-1].id == heard[-1]["id"] and session.plans.current is None


def test_events_start_and_end_the_round(make_session, recorder):
    round = make_session(one_step("u = 6")).run_round("Set u", recorder)
    names = [type(e).__name__ for e in recorder.events]
    assert names[0] == "RoundStarted" and names[-1] == "RoundEnded"
    assert recorder.events[-1].state == "finished"
    committed = [e.post.id for e in recorder.of("PostCommitted")]
    assert committed == [p.id for p in round.post_list]


def test_a_second_round_builds_on_the_first(make_session, shell, fake_llm):
    session = make_session(
        {
            "Planner": [
                planner_reply("CodeInterpreter", "Make data"),
                answer("Made."),
                planner_reply("CodeInterpreter", "Double it"),
                answer("Doubled."),
            ],
            "CodeInterpreter": [code_reply("data = [1, 2]"), code_reply("doubled = [2 * d for d in data]")],
        }
    )
    session.run_round("Make data")
    second = session.run_round("Double the data")
    assert second.state == "finished" and shell.user_ns["doubled"] == [2, 4]
    last_code_prompt = [r for r in fake_llm.chat_requests() if r["role"] == "CodeInterpreter"][-1]
    assert "data" in last_code_prompt["body"]["messages"][-1]["content"]  # the namespace summary


def test_verification_off_runs_code_unverified(make_session, shell):
    session = make_session(one_step("flag = True"), settings={"verify": False})
    round = session.run_round("Set flag")
    assert attachment(round.post_list[2], "verification").content == "NONE"
    assert shell.user_ns["flag"] is True
