"""Scripted LLM replies for whole-Round tests (the JSON each role must emit, contract 3)."""

from __future__ import annotations

import json
from typing import Any


def planner_reply(send_to: str, message: str, *, stop: str = "InProcess", step: str = "1. Do it") -> str:
    return json.dumps(
        {
            "response": {
                "plan_reasoning": "Scripted reasoning.",
                "init_plan": "1. Do it\n2. Report <interactively depends on 1>",
                "plan": "1. Do it\n2. Report",
                "current_plan_step": step,
                "stop": stop,
                "send_to": send_to,
                "message": message,
            }
        }
    )


def answer(message: str) -> str:
    return planner_reply("User", message, stop="Completed", step="2. Report")


def code_reply(code: str, thought: str = "Scripted thought.") -> str:
    return json.dumps({"response": {"thought": thought, "reply_type": "python", "reply_content": code}})


def text_reply(text: str) -> str:
    return json.dumps(
        {"response": {"thought": "No code needed.", "reply_type": "text", "reply_content": text}}
    )


def one_step(code: str, final: str = "Done.") -> dict[str, Any]:
    """A Round where the Planner sends one task, the code runs, and the Planner answers."""
    return {
        "Planner": [planner_reply("CodeInterpreter", "Run the step."), answer(final)],
        "CodeInterpreter": [code_reply(code)],
    }


def kinds(round: Any) -> list[tuple[str, str]]:
    """(send_from, send_to) of each post."""
    return [(p.send_from, p.send_to) for p in round.post_list]


def attachment(post: Any, kind: str) -> Any:
    """The post's first attachment of type `kind` (None if it has none)."""
    for a in post.attachment_list:
        if a.type.value == kind:
            return a
    return None
