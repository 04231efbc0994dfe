"""The evaluator: one question per scoring point, over real HTTP to the loopback server, and its answer
read as TaskWeaver's evaluator answers (`reason`, `is_hit`)."""

from __future__ import annotations

import json

import pytest

from twnb.evaluation.agent_turn import AgentTurn, CodeStep
from twnb.evaluation.case_file import ScoringPoint
from twnb.evaluation.evaluator import Evaluator, parse_verdict, transcript
from twnb.evaluation.model_calls import ModelCaller
from twnb.llm import ClientLimits, OpenAIChatClient

POINT = ScoringPoint("The mean is 2", 1.0)
TURNS = [
    AgentTurn(
        "What is the mean of x?",
        "finished",
        reply="The mean is 2.0.",
        work=[
            CodeStep("df.x.mean()", "SUCCESS", "2.0"),
            CodeStep("os.remove('x')", "NONE", refusal="os.remove is blocked"),
        ],
    )
]


@pytest.mark.parametrize(
    "reply",
    [
        '{"reason": "It says 2.0.", "is_hit": "yes"}',
        '```json\n{"reason": "It says 2.0.", "is_hit": "Yes"}\n```',
        'Let me see. {"reason": "It says 2.0.", "is_hit": true} That is all.',
    ],
)
def test_a_yes_in_any_usual_wrapping_is_a_hit_with_its_reason(reply):
    verdict = parse_verdict(POINT, reply)
    assert (verdict.hit, verdict.reason, verdict.judged_by) == (True, "It says 2.0.", "evaluator")


def test_a_no_is_a_miss():
    assert parse_verdict(POINT, '{"reason": "It says 3.", "is_hit": "no"}').hit is False


def test_a_reply_that_is_not_a_verdict_is_not_guessed_at():
    verdict = parse_verdict(POINT, "I know the answer, no doubt.")
    assert verdict.hit is None
    assert verdict.error.startswith('the evaluator did not answer with {"reason", "is_hit": "yes"/"no"}')


def test_the_transcript_has_the_code_the_agent_ran_and_what_verification_refused():
    entries = json.loads(transcript(TURNS))
    assert entries[0] == {"from": "user", "message": "What is the mean of x?"}
    ran, refused = entries[1]["code_it_ran"]
    assert ran == {"code": "df.x.mean()", "ran": True, "status": "SUCCESS", "result": "2.0"}
    assert refused == {
        "code": "os.remove('x')",
        "ran": False,
        "refused_by_verification": "os.remove is blocked",
    }


def test_the_evaluator_asks_for_a_json_verdict_on_the_statement(fake_llm):
    fake_llm.load({"*": ['{"reason": "It says 2.0.", "is_hit": "yes"}']})
    client = OpenAIChatClient(api_key="test-key", base_url=fake_llm.base_url)
    caller = ModelCaller(client, "judge-model", "Evaluator")
    verdict = Evaluator(caller).judge("Ask for the mean of x.", TURNS, POINT)
    assert verdict.hit is True
    body = fake_llm.chat_requests()[0]["body"]
    assert body["model"] == "judge-model" and body["response_format"] == {"type": "json_object"}
    question = body["messages"][1]["content"]
    assert "Ask for the mean of x." in question and "The statement: The mean is 2" in question
    assert "df.x.mean()" in question
    assert caller.spend.calls == 1 and caller.spend.input_tokens > 0


def test_an_evaluator_that_fails_leaves_the_point_not_judged_with_why(fake_llm):
    fake_llm.load({"*": [{"content": "x", "fault": "http_401"}]})
    client = OpenAIChatClient(
        api_key="test-key", base_url=fake_llm.base_url, limits=ClientLimits(max_retries=0)
    )
    verdict = Evaluator(ModelCaller(client, "judge-model", "Evaluator")).judge("t", TURNS, POINT)
    assert verdict.hit is None and verdict.error.startswith("the evaluator's model failed:")
