"""Scripted LLM replies (contract 3's JSON) for the plugin tests' Rounds."""

from __future__ import annotations

import json
from typing import Any


def planner(send_to: str, message: str, *, stop: str = "InProcess") -> str:
    return json.dumps(
        {
            "response": {
                "plan_reasoning": "Scripted.",
                "init_plan": "1. Call the plugin\n2. Report <interactively depends on 1>",
                "plan": "1. Call the plugin\n2. Report",
                "current_plan_step": "1. Call the plugin" if send_to != "User" else "2. Report",
                "stop": stop,
                "send_to": send_to,
                "message": message,
            }
        }
    )


def code(code_text: str) -> str:
    return json.dumps(
        {"response": {"thought": "Use the plugin.", "reply_type": "python", "reply_content": code_text}}
    )


def text(message: str) -> str:
    return json.dumps({"response": {"thought": "Cannot.", "reply_type": "text", "reply_content": message}})


def one_step(*codes: str, final: str = "Done.") -> dict[str, Any]:
    """The Planner sends one task; the CodeInterpreter's replies in order (revisions after the first);
    then the Planner answers."""
    return {
        "Planner": [planner("CodeInterpreter", "Run the step."), planner("User", final, stop="Completed")],
        "CodeInterpreter": [code(c) if not c.startswith("TEXT:") else text(c[5:]) for c in codes],
    }
