"""Whole Rounds that go wrong: every failure ends the Round clearly, and nothing is lost."""

from __future__ import annotations

import _thread
import threading

from support.session_script import answer, attachment, code_reply, kinds, one_step, planner_reply, text_reply


def test_revise_loop_recovers_from_an_error(make_session, shell, fake_llm):
    session = make_session(
        {
            "Planner": [planner_reply("CodeInterpreter", "Compute ratio"), answer("The ratio is 0.5.")],
            "CodeInterpreter": [code_reply("ratio = 1 / zero"), code_reply("zero = 2\nratio = 1 / zero")],
        }
    )
    round = session.run_round("Compute the ratio")
    assert round.state == "finished" and shell.user_ns["ratio"] == 0.5
    failed = round.post_list[2]
    assert (failed.send_from, failed.send_to) == ("CodeInterpreter", "CodeInterpreter")
    assert attachment(failed, "execution_status").content == "FAILURE"
    assert "NameError" in attachment(failed, "revise_message").content
    second_prompt = fake_llm.chat_requests()[2]["body"]["messages"]
    assert "NameError" in second_prompt[-1]["content"]


def test_revisions_are_bounded_then_the_planner_decides(make_session):
    bad = code_reply("1 / 0")
    session = make_session(
        {
            "Planner": [planner_reply("CodeInterpreter", "Divide"), answer("It cannot be computed.")],
            "CodeInterpreter": [bad, bad, bad],
        },
        settings={"max_retries": 2},
    )
    round = session.run_round("Divide by zero")
    assert kinds(round)[2:] == [
        ("CodeInterpreter", "CodeInterpreter"),
        ("CodeInterpreter", "CodeInterpreter"),
        ("CodeInterpreter", "Planner"),
        ("Planner", "User"),
    ]
    assert attachment(round.post_list[4], "revise_message") is None
    assert round.state == "finished"


def test_refused_code_never_runs(make_session, shell):
    session = make_session(
        {
            "Planner": [planner_reply("CodeInterpreter", "Clean up"), answer("Cleaned up safely.")],
            "CodeInterpreter": [
                code_reply("ran = True\nimport shutil\nshutil.rmtree('data')"),
                code_reply("ran_safely = True"),
            ],
        }
    )
    round = session.run_round("Clean up")
    refused = round.post_list[2]
    assert "ran" not in shell.user_ns
    assert attachment(refused, "verification").content == "INCORRECT"
    assert "Line 3" in attachment(refused, "code_error").content
    assert attachment(refused, "execution_status").content == "NONE"
    assert refused.send_to == "CodeInterpreter"
    assert shell.user_ns["ran_safely"] is True


def test_llm_server_error_mid_round_fails_it_keeping_the_posts(make_session):
    session = make_session(
        {
            "Planner": [planner_reply("CodeInterpreter", "Compute")],
            "CodeInterpreter": [{"content": code_reply("a = 1"), "fault": "http_500", "times": 5}],
        }
    )
    round = session.run_round("Compute a")
    assert round.state == "failed"
    assert kinds(round) == [("User", "Planner"), ("Planner", "CodeInterpreter")]
    assert round.extra["failure_reason"].startswith("The LLM call failed:")
    assert session.memory.conversation.rounds[-1] is round


def test_llm_failure_mid_stream_keeps_the_partial_post_with_its_raw_text(make_session, recorder):
    cut = {"content": answer("A long answer that never fully arrives."), "drop_after_chars": 60, "times": 3}
    session = make_session({"Planner": [cut]})
    round = session.run_round("Explain", recorder)
    assert round.state == "failed" and "The LLM call failed" in round.extra["failure_reason"]
    partial = round.post_list[-1]
    assert partial.send_from == "Planner" and "LLMStreamDropped" in partial.extra["incomplete"]
    assert partial.extra["raw_text"] == answer("A long answer that never fully arrives.")[:60]
    assert len(partial.extra["dropped_attempts"]) == 2  # the two earlier attempts, kept too
    assert recorder.of("PostCommitted")[-1].post.id == partial.id


def test_failed_round_reports_the_failure_then_ends(make_session, recorder):
    session = make_session({"Planner": [{"content": answer("x"), "fault": "http_500", "times": 5}]})
    session.run_round("Anything", recorder)
    names = [type(e).__name__ for e in recorder.events]
    assert names[-2:] == ["RoundFailed", "RoundEnded"]
    assert recorder.events[-1].state == "failed" and recorder.events[-1].failure_reason


def test_interrupted_execution_ends_the_round_as_interrupted(make_session, fake_llm):
    session = make_session(one_step("before = 1\nraise KeyboardInterrupt"))
    round = session.run_round("Run something long")
    assert round.state == "failed"
    assert "interrupted" in round.extra["failure_reason"].lower()
    code_post = round.post_list[-1]
    assert attachment(code_post, "execution_result").extra["status"] == "interrupted"
    assert len([r for r in fake_llm.chat_requests() if r["role"] == "Planner"]) == 1


def test_ctrl_c_during_the_llm_stream_ends_the_round_keeping_posts(make_session):
    slow = {"content": code_reply("never = 1"), "chunk_size": 2, "delay_s": 0.05}
    session = make_session(
        {"Planner": [planner_reply("CodeInterpreter", "Compute")], "CodeInterpreter": [slow]}
    )

    def press_ctrl_c(event):
        if type(event).__name__ == "PostStarted" and event.send_from == "CodeInterpreter":
            threading.Timer(0.2, _thread.interrupt_main).start()

    class CtrlC:
        on_event = staticmethod(press_ctrl_c)

    round = session.run_round("Compute", CtrlC())
    assert round.state == "failed" and "interrupted" in round.extra["failure_reason"].lower()
    assert kinds(round)[:2] == [("User", "Planner"), ("Planner", "CodeInterpreter")]


def test_ctrl_c_during_the_llm_stream_keeps_what_arrived_marked_incomplete(make_session, shell):
    slow = {"content": code_reply("never = 1"), "chunk_size": 2, "delay_s": 0.05}
    session = make_session(
        {"Planner": [planner_reply("CodeInterpreter", "Compute")], "CodeInterpreter": [slow]}
    )

    class CtrlC:
        @staticmethod
        def on_event(event):
            if type(event).__name__ == "PostStarted" and event.send_from == "CodeInterpreter":
                threading.Timer(0.4, _thread.interrupt_main).start()

    round = session.run_round("Compute", CtrlC())
    partial = round.post_list[-1]
    assert partial.send_from == "CodeInterpreter" and "interrupted" in partial.extra["incomplete"]
    assert code_reply("never = 1").startswith(partial.extra["raw_text"]) and partial.extra["raw_text"]
    assert "never" not in shell.user_ns


def test_dropped_stream_is_retried_and_only_the_complete_attempt_kept(make_session, recorder):
    first = {"content": answer("Hello there."), "drop_after_chars": 40}
    session = make_session({"Planner": [first]})
    round = session.run_round("hi", recorder)
    assert round.state == "finished"
    post = round.post_list[-1]
    assert post.message == "Hello there."
    assert len(post.extra["dropped_attempts"]) == 1
    assert len(post.extra["dropped_attempts"][0]["raw_text"]) == 40
    assert [e.post_id for e in recorder.of("PostRetry")] == [post.id]


def test_unreadable_planner_reply_is_retried(make_session):
    session = make_session({"Planner": ["I think the answer is 4.", answer("It is 4.")]})
    round = session.run_round("2 + 2?")
    assert round.state == "finished" and round.post_list[-1].message == "It is 4."
    assert round.post_list[-1].extra["dropped_attempts"][0]["raw_text"] == "I think the answer is 4."


def test_invalid_planner_reply_gets_a_revise_post(make_session, fake_llm):
    session = make_session({"Planner": [planner_reply("Planner", "note to self"), answer("Done.")]})
    round = session.run_round("Do it")
    revise = round.post_list[1]
    assert (revise.send_from, revise.send_to) == ("Planner", "Planner")
    assert "send_to is Planner" in attachment(revise, "revise_message").content
    assert '"note to self"' in attachment(revise, "invalid_response").content
    assert round.state == "finished"
    assert "send_to is Planner" in fake_llm.chat_requests()[1]["body"]["messages"][-1]["content"]


def test_planner_self_corrections_are_bounded(make_session):
    bad = planner_reply("Nobody", "hm")
    session = make_session({"Planner": [bad] * 5})
    round = session.run_round("Do it")
    assert round.state == "failed"
    assert "The Planner gave no usable reply after 4 attempts" in round.extra["failure_reason"]
    assert len(round.post_list) == 4  # the User's post and three revise posts, all kept


def test_max_posts_bounds_the_round(make_session):
    ask = planner_reply("CodeInterpreter", "Tell me more")
    session = make_session(
        {"Planner": [ask] * 5, "CodeInterpreter": [text_reply("More.")] * 5}, settings={"max_posts": 4}
    )
    round = session.run_round("Loop")
    assert round.state == "failed"
    assert "4 internal posts" in round.extra["failure_reason"]
    assert len(round.post_list) == 5


def test_secret_printed_by_code_reaches_neither_prompt_nor_files(make_session, fake_llm, secret_env, workdir):
    code = "import os\nprint(os.environ['TWNB_TEST_SECRET_TOKEN'])"
    session = make_session(one_step(code))
    round = session.run_round("Show the token")
    assert secret_env not in str(round.to_dict())
    assert secret_env not in str(fake_llm.chat_requests()[-1]["body"]["messages"])
    saved = session.save(workdir / "conv.yaml").read_text()
    autosaved = "".join(p.read_text() for p in session.autosave_dir.glob("*.yaml"))
    assert secret_env not in saved and secret_env not in autosaved


def test_secret_in_an_llm_reply_is_redacted_when_committed(make_session, fake_llm, secret_env):
    session = make_session({"Planner": [answer(f"Your token is {secret_env}."), answer("Nothing else.")]})
    first = session.run_round("What is my token?")
    assert first.post_list[-1].message == "Your token is [redacted]."
    session.run_round("Anything else?")
    assert secret_env not in str(fake_llm.chat_requests()[-1]["body"]["messages"])


def test_a_planner_answer_with_stop_taskfailure_fails_the_round_abandoning_unfinished_steps(make_session):
    gave_up = planner_reply(
        "User", "I cannot load the file: it is not there.", stop="TaskFailure", step="1. Do it"
    )
    script = {
        "Planner": [planner_reply("CodeInterpreter", "Run it"), gave_up],
        "CodeInterpreter": [code_reply("a = 1")],
    }
    session = make_session(script)

    round = session.run_round("Load the file")

    assert round.state == "failed"
    assert (
        round.extra["failure_reason"]
        == "The Planner stopped with TaskFailure: I cannot load the file: it is not there."
    )
    assert kinds(round)[-1] == ("Planner", "User")  # the answer is kept
    plan = round.extra["plan"]
    assert plan["state"] == "abandoned"
    assert {step["state"] for step in plan["subtasks"]} <= {"abandoned", "done"}
    assert "abandoned" in {step["state"] for step in plan["subtasks"]}


def test_a_planner_answer_with_stop_completed_finishes_the_round(make_session):
    round = make_session(one_step("b = 1")).run_round("Set b")
    assert round.state == "finished" and round.extra["plan"]["state"] == "done"
