"""The virtual user: an LLM playing the user from the task description, over real HTTP."""

from __future__ import annotations

from twnb.evaluation.chat_messages import AIMessage, HumanMessage, SystemMessage
from twnb.evaluation.model_calls import ModelCaller
from twnb.evaluation.virtual_user import STOP_KEYWORD, VirtualUser
from twnb.llm import OpenAIChatClient


def _user(fake_llm, replies):
    fake_llm.load({"*": replies})
    client = OpenAIChatClient(api_key="test-key", base_url=fake_llm.base_url)
    return VirtualUser(ModelCaller(client, "user-model", "VirtualUser"), "Ask for the mean of x in data.csv.")


def test_the_first_request_comes_from_instructions_holding_the_task_description(fake_llm):
    user = _user(fake_llm, ["What is the mean of x?"])
    assert user.first_request() == "What is the mean of x?"
    messages = fake_llm.chat_requests()[0]["body"]["messages"]
    assert messages[0]["role"] == "system" and "Ask for the mean of x in data.csv." in messages[0]["content"]
    assert STOP_KEYWORD in messages[0]["content"]
    assert [m["role"] for m in messages] == ["system", "user"]


def test_the_agents_words_reach_the_user_model_as_the_users_side_of_its_chat(fake_llm):
    user = _user(fake_llm, ["What is the mean?", STOP_KEYWORD])
    user.first_request()
    reply = user.answer("The mean is 2.")
    assert user.is_done(reply)
    messages = fake_llm.chat_requests()[1]["body"]["messages"]
    assert [(m["role"], m["content"]) for m in messages[2:]] == [
        ("assistant", "What is the mean?"),
        ("user", "The mean is 2."),
    ]


def test_the_history_is_taskweavers_instructions_agent_lines_and_user_lines(fake_llm):
    user = _user(fake_llm, ["Mean of x?", STOP_KEYWORD])
    user.first_request()
    user.answer("2")
    kinds = [type(m) for m in user.history]
    assert kinds == [SystemMessage, HumanMessage, AIMessage, HumanMessage, AIMessage]
    assert user.history[-1].content == STOP_KEYWORD


def test_thinking_a_reasoning_model_writes_inline_is_not_sent_to_the_agent(fake_llm):
    user = _user(fake_llm, ["<think>the brief says x</think>What is the mean of x?"])
    assert user.first_request() == "What is the mean of x?"


def test_a_failed_round_ends_the_chat_as_taskweaver_records_it(fake_llm):
    user = _user(fake_llm, ["Mean of x?"])
    user.first_request()
    user.agent_failed("the model did not answer")
    assert user.history[-2] == HumanMessage(
        "I could not finish the task because of an error: the model did not answer"
    )
    assert user.history[-1] == AIMessage(STOP_KEYWORD)
