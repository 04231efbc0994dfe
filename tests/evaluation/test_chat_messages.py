"""The chat history eval_code reads: TaskWeaver's message names and who each one means."""

from __future__ import annotations

import pytest

from twnb.evaluation.chat_messages import (
    AgentMessage,
    AIMessage,
    HumanMessage,
    SystemMessage,
    VirtualUserMessage,
    history_from_data,
    history_to_data,
)


def test_the_agent_speaks_in_human_messages_as_in_taskweavers_history():
    assert AgentMessage is HumanMessage and HumanMessage("x").type == "human"
    assert VirtualUserMessage is AIMessage and AIMessage("x").type == "ai"
    assert SystemMessage("x").type == "system"


def test_a_history_goes_to_plain_data_and_back_unchanged():
    history = [SystemMessage("brief"), HumanMessage("ready"), AIMessage("do it"), HumanMessage("done")]
    data = history_to_data(history)
    assert data[1] == {"type": "human", "content": "ready"}
    assert history_from_data(data) == history


def test_an_unknown_message_type_is_refused_naming_it():
    with pytest.raises(ValueError, match="chat message 1 has type 'tool'"):
        history_from_data([{"type": "tool", "content": "x"}])
