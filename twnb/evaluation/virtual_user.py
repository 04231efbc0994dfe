"""The virtual user: an LLM that plays the user of the agent, from the case's task description.

It sends the first request, answers the agent's questions from the task description (and only from
it), and ends the conversation with the stop keyword when the task is done or cannot go further. Its
chat is kept as the chat history `eval_code` reads (chat_messages.py): its instructions, the agent's
lines as `HumanMessage`s, its own as `AIMessage`s, as in TaskWeaver's evaluation.
"""

from __future__ import annotations

from twnb.evaluation.chat_messages import AIMessage, ChatMessage, HumanMessage, SystemMessage
from twnb.evaluation.model_calls import ModelCaller

__all__ = ["KICK_OFF", "STOP_KEYWORD", "VirtualUser", "virtual_user_instructions"]

# TaskWeaver's keyword, so task descriptions written for its evaluation read the same here.
STOP_KEYWORD = "TASK_FINISHED"
KICK_OFF = "The agent is ready. Send it your first request."
# The fake LLM server and cassettes tell the virtual user's calls apart by this role name.
ROLE = "VirtualUser"

_INSTRUCTIONS = """\
You play the user of an AI data-analysis agent, to test it. Stay in that role for the whole chat: \
every message you write is sent to the agent as the user's message.

Your brief (the agent never sees it):
<brief>
{task_description}
</brief>

How to play the user:
- Ask for what the brief says, in your own words, as a user would. Keep back what the brief says to \
keep back until the agent asks for it.
- Tell the agent only what the brief gives you: never hint at the answer or at how to get it.
- When the agent asks you something, answer from the brief; when the brief does not say, say you do \
not know.
- Do not check or correct the agent's work: it is judged later, not by you.
- Write one message at a time, with no role label and no quotes around it.
- When the task in the brief is done, or the agent cannot go further, reply with exactly \
{stop_keyword} and nothing else."""


def virtual_user_instructions(task_description: str) -> str:
    return _INSTRUCTIONS.format(task_description=task_description.strip(), stop_keyword=STOP_KEYWORD)


class VirtualUser:
    """One conversation's user. `history` is the chat so far, instructions first."""

    def __init__(self, caller: ModelCaller, task_description: str) -> None:
        self.caller = caller
        self.history: list[ChatMessage] = [
            SystemMessage(virtual_user_instructions(task_description)),
            HumanMessage(KICK_OFF),
        ]

    def first_request(self) -> str:
        return self._reply()

    def answer(self, agent_text: str) -> str:
        """The user's reply to what the agent said (the stop keyword ends the conversation)."""
        self.history.append(HumanMessage(agent_text))
        return self._reply()

    def agent_failed(self, why: str) -> None:
        """End the chat after a Round that failed: the agent's last line says so, and the user stops
        (what TaskWeaver's evaluation records when the agent raises)."""
        self.history.append(HumanMessage(f"I could not finish the task because of an error: {why}"))
        self.history.append(AIMessage(STOP_KEYWORD))

    @staticmethod
    def is_done(text: str) -> bool:
        return STOP_KEYWORD in text

    def _reply(self) -> str:
        messages = [
            {"role": {"system": "system", "human": "user", "ai": "assistant"}[m.type], "content": m.content}
            for m in self.history
        ]
        text = self.caller.ask(messages)
        self.history.append(AIMessage(text))
        return text
