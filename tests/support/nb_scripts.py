"""Scripted LLM replies (contract 3's JSON) for Rounds run against the loopback fake server."""

from __future__ import annotations

import json
from typing import Any

from support.nb_rounds import HOSTILE


def planner(message: str, *, send_to: str, step: str, stop: str = "InProcess") -> str:
    plan = "1. compute 6 times 7\n2. report the answer"
    return json.dumps(
        {
            "response": {
                "plan_reasoning": "A small calculation.",
                "init_plan": plan,
                "plan": plan,
                "current_plan_step": step,
                "stop": stop,
                "send_to": send_to,
                "message": message,
            }
        }
    )


def code(code_text: str, thought: str = "Multiply.") -> str:
    return json.dumps({"response": {"thought": thought, "reply_type": "python", "reply_content": code_text}})


def answer_round(final_message: str = f"The answer is 42. {HOSTILE}", **reply: Any) -> dict[str, list[Any]]:
    """Planner -> CodeInterpreter -> code runs -> Planner -> User."""
    return {
        "Planner": [
            {
                "content": planner(
                    "Compute 6 times 7.", send_to="CodeInterpreter", step="1. compute 6 times 7"
                ),
                **reply,
            },
            {
                "content": planner(
                    final_message, send_to="User", step="2. report the answer", stop="Completed"
                ),
                **reply,
            },
        ],
        "CodeInterpreter": [{"content": code("answer = 6 * 7\nanswer"), **reply}],
    }


def failing_round() -> dict[str, list[Any]]:
    """The Planner's server refuses the key: the Round fails with a clear reason."""
    return {"Planner": [{"content": "", "fault": "http_401", "times": 10}]}


def remember_offer(number: int) -> str:
    """The line an undo ends with: the undone Round is offered to be remembered (nothing is, unasked)."""
    return (
        f"You undid Round {number}. `%taskweaver remember {number}` keeps what you taught as experience "
        "for later requests."
    )
