"""What the session asks the server for: each role's JSON schema; json_object once the schema is
refused, plain text once that is refused too (the llm layer's fallback chain, remembered per model)."""

from __future__ import annotations

from support.session_script import answer, code_reply, one_step, planner_reply


def formats(fake_llm) -> list[str | None]:
    return [(r["body"].get("response_format") or {}).get("type") for r in fake_llm.chat_requests()]


def test_each_role_asks_for_its_own_json_schema(make_session, fake_llm):
    make_session(one_step("s = 1")).run_round("Set s")
    assert formats(fake_llm) == ["json_schema"] * 3
    names = [r["body"]["response_format"]["json_schema"]["name"] for r in fake_llm.chat_requests()]
    assert names == ["planner_reply", "code_interpreter_reply", "planner_reply"]


def test_a_server_refusing_json_schema_gets_json_object_from_then_on(make_session, fake_llm):
    reply = planner_reply("CodeInterpreter", "Run it")
    refused = {"content": reply, "reject_response_format": ["json_schema"]}
    session = make_session({"Planner": [refused, answer("Done.")], "CodeInterpreter": [code_reply("u = 1")]})
    round = session.run_round("Set u")
    assert round.state == "finished"
    assert formats(fake_llm) == ["json_schema", "json_object", "json_object", "json_object"]


def test_a_server_refusing_response_format_gets_plain_text_from_then_on(make_session, fake_llm):
    refused = {"content": planner_reply("CodeInterpreter", "Run it"), "reject_response_format": True}
    session = make_session({"Planner": [refused, answer("Done.")], "CodeInterpreter": [code_reply("t = 1")]})
    round = session.run_round("Set t")
    assert round.state == "finished"
    assert formats(fake_llm) == ["json_schema", "json_object", "json_object", None, None, None]


def test_a_500_validation_error_on_json_schema_still_runs_the_round_with_json_object(make_session, fake_llm):
    # llama-cpp-python's server: HTTP 500 "Input should be 'text' or 'json_object'" for json_schema
    reply = planner_reply("CodeInterpreter", "Run it")
    refused = {
        "content": reply,
        "reject_response_format": ["json_schema"],
        "reject_response_format_status": 500,
    }
    session = make_session({"Planner": [refused, answer("Done.")], "CodeInterpreter": [code_reply("w = 1")]})

    round = session.run_round("Set w")

    assert round.state == "finished"
    assert formats(fake_llm) == ["json_schema", "json_object", "json_object", "json_object"]


def test_the_response_format_setting_chooses_json_object_outright(make_session, fake_llm):
    session = make_session(one_step("v = 1"), settings={"response_format": "json_object"})
    session.run_round("Set v")
    sent = [r["body"]["response_format"] for r in fake_llm.chat_requests()]
    assert sent == [{"type": "json_object"}] * 3


def test_the_response_format_setting_text_sends_none(make_session, fake_llm):
    session = make_session(one_step("x = 1"), settings={"response_format": "text"})
    session.run_round("Set x")
    assert formats(fake_llm) == [None] * 3


def test_a_format_chosen_outright_is_never_stepped_down(make_session, fake_llm):
    refused = {"content": planner_reply("CodeInterpreter", "Run it"), "reject_response_format": True}
    session = make_session({"Planner": [refused]}, settings={"response_format": "json_schema"})

    round = session.run_round("Set y")

    assert round.state == "failed"
    assert formats(fake_llm) == ["json_schema"]
    assert "response_format" in round.extra["failure_reason"]
