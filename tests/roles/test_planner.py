"""The Planner's validation rules and its reply on the loopback LLM server."""

from __future__ import annotations

import json

import pytest

from twnb.llm import ClientLimits, OpenAIChatClient
from twnb.memory import Attachment, AttachmentType, Memory, Post
from twnb.roles.planner import Planner, planner_problems
from twnb.roles.planner_prompt import Worker
from twnb.roles.role import RoleFailure
from twnb.roles.translator import PostTranslator

RECIPIENTS = ["CodeInterpreter", "User"]


def plan_post(send_to: str = "User", message: str = "Done.", keys=("init_plan", "plan", "current_plan_step")):
    post = Post.create(message, "Planner", send_to)
    for key in keys:
        post.add_attachment(Attachment.create(AttachmentType(key), "1. step"))
    return post


def reply(send_to: str, message: str) -> str:
    response = {
        "plan_reasoning": "r",
        "init_plan": "1. a",
        "plan": "1. a",
        "current_plan_step": "1. a",
        "stop": "Completed",
        "send_to": send_to,
        "message": message,
    }
    return json.dumps({"response": response})


def test_a_complete_reply_has_no_problems():
    assert planner_problems(plan_post(), RECIPIENTS) == []


def test_sending_to_itself_is_a_problem():
    assert planner_problems(plan_post("Planner"), RECIPIENTS) == [
        "send_to is Planner: you never send a message to yourself"
    ]


def test_unknown_recipient_is_a_problem():
    assert "send_to is 'Bob', not one of CodeInterpreter, User" in planner_problems(
        plan_post("Bob"), RECIPIENTS
    )


def test_blank_message_is_a_problem():
    assert planner_problems(plan_post(message="  "), RECIPIENTS) == ["the message is empty"]


def test_missing_plan_attachments_are_named():
    assert planner_problems(plan_post(keys=("plan",)), RECIPIENTS) == ["missing init_plan, current_plan_step"]


@pytest.fixture
def planner(fake_llm):
    client = OpenAIChatClient(
        api_key="test-key", base_url=fake_llm.base_url, limits=ClientLimits(max_retries=0)
    )
    return Planner(
        client, "fake-model", PostTranslator(), workers=[Worker("CodeInterpreter", "- writes code")]
    )


def memory_asking(query: str) -> Memory:
    memory = Memory("s")
    memory.create_round(query).add_post(Post.create(query, "User", "Planner"))
    return memory


def test_reply_answers_the_user_directly(planner, fake_llm):
    fake_llm.load({"Planner": [reply("User", "Hello!")]})
    post = planner.reply(memory_asking("hi"))
    assert (post.send_from, post.send_to, post.message) == ("Planner", "User", "Hello!")
    assert post.extra["usage"]["calls"] == 1


def test_invalid_reply_becomes_a_revise_post_to_itself(planner, fake_llm):
    fake_llm.load({"Planner": [reply("Planner", "hmm")]})
    post = planner.reply(memory_asking("hi"))
    assert post.send_to == "Planner"
    assert [a.type.value for a in post.attachment_list] == ["invalid_response", "revise_message"]


def test_revise_posts_are_bounded_per_round(planner, fake_llm):
    memory = memory_asking("hi")
    for _ in range(3):
        memory.conversation.rounds[-1].add_post(Post.create("bad", "Planner", "Planner"))
    fake_llm.load({"Planner": [reply("Planner", "hmm")]})
    with pytest.raises(RoleFailure, match="no usable reply after 4 attempts"):
        planner.reply(memory)


def test_requests_name_the_planner_and_ask_for_json(planner, fake_llm):
    fake_llm.load({"Planner": [reply("User", "Hello!")]})
    planner.reply(memory_asking("hi"))
    request = fake_llm.chat_requests()[0]
    assert request["role"] == "Planner" and request["body"]["stream"] is True


def with_stop(value: str) -> Post:
    post = plan_post()
    post.add_attachment(Attachment.create(AttachmentType.stop, value))
    return post


def test_a_stop_outside_taskweavers_values_is_a_problem():
    assert planner_problems(with_stop("Done"), RECIPIENTS) == [
        "stop is 'Done', not one of InProcess, Completed, Clarification, AdditionalInformation, "
        "SecurityRisks, TaskFailure"
    ]


def test_a_stop_spelled_in_another_case_is_accepted_and_written_as_the_enum(planner, fake_llm):
    response = json.loads(reply("User", "Hello!"))
    response["response"]["stop"] = "completed"
    fake_llm.load({"Planner": [json.dumps(response)]})
    post = planner.reply(memory_asking("hi"))
    assert [a.content for a in post.attachment_list if a.type is AttachmentType.stop] == ["Completed"]


def test_an_invalid_stop_gets_a_revise_post_naming_the_values(planner, fake_llm):
    response = json.loads(reply("User", "Hello!"))
    response["response"]["stop"] = "Finished"
    fake_llm.load({"Planner": [json.dumps(response)]})
    post = planner.reply(memory_asking("hi"))
    assert post.send_to == "Planner"
    revise = next(a.content for a in post.attachment_list if a.type is AttachmentType.revise_message)
    assert "stop is 'Finished', not one of InProcess, Completed" in revise
