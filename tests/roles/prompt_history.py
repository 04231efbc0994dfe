"""Synthetic conversations for prompt tests: Rounds shaped exactly as the session records them."""

from __future__ import annotations

import json

from twnb.llm.messages import Msg, to_openai_messages
from twnb.memory import Attachment, AttachmentType, Memory, Post, Round

PLAN = {
    "plan_reasoning": "Load and aggregate, then report.",
    "init_plan": "1. Aggregate the data\n2. Report <interactively depends on 1>",
    "plan": "1. Aggregate the data\n2. Report",
}


def planner_post(send_to: str, message: str, step: str, stop: str) -> Post:
    post = Post.create(message, "Planner", send_to)
    for key, value in [*PLAN.items(), ("current_plan_step", step), ("stop", stop)]:
        post.add_attachment(Attachment.create(AttachmentType(key), value))
    return post


def code_post(
    code: str, output: str, *, status: str = "SUCCESS", variables: list[str] = (), to: str = "Planner"
):
    message = "The code ran successfully." if status == "SUCCESS" else "The code failed: KeyError: 'x'"
    post = Post.create(message, "CodeInterpreter", to)
    for key, value in [
        ("thought", "Scripted thought."),
        ("reply_type", "python"),
        ("reply_content", code),
        ("verification", "CORRECT"),
        ("code_error", "No error is found."),
        ("execution_status", status),
    ]:
        post.add_attachment(Attachment.create(AttachmentType(key), value))
    extra = {
        "status": "success" if status == "SUCCESS" else "error",
        "error": None if status == "SUCCESS" else "KeyError: 'x'",
        "variables": [
            {"name": v, "kind": "created", "type": "DataFrame", "shape": [23, 10]} for v in variables
        ],
        "outputs": [],
    }
    post.add_attachment(Attachment.create(AttachmentType.execution_result, output, extra=extra))
    post.add_attachment(Attachment.create(AttachmentType.artifact_paths, []))
    if to == "CodeInterpreter":
        post.add_attachment(
            Attachment.create(AttachmentType.revise_message, "The code failed:\nKeyError: 'x'")
        )
    return post


def analysis_round(n: int, *, state: str = "finished") -> Round:
    round = Round.create(f"Question {n}: summarise sales by region for month {n}", state=state)
    round.add_post(Post.create(round.user_query, "User", "Planner"))
    round.add_post(
        planner_post("CodeInterpreter", f"Aggregate month {n} into table_{n}.", "1. Aggregate", "InProcess")
    )
    code = f"table_{n} = sales[sales.month == {n}].groupby('region').sum()\ntable_{n}"
    round.add_post(code_post(code, f"RESULT-OF-ROUND-{n}\n" + "row data\n" * 20, variables=[f"table_{n}"]))
    if state == "failed":
        round.extra["failure_reason"] = "The LLM call failed: HTTP 500."
        return round
    round.add_post(planner_post("User", f"ANSWER-{n}: West leads in month {n}.", "2. Report", "Completed"))
    return round


def memory_with(rounds: list[Round], current_query: str = "Now compare the regions") -> Memory:
    memory = Memory("test-session")
    for round in rounds:
        memory.conversation.add_round(round)
    current = memory.create_round(current_query)
    current.add_post(Post.create(current_query, "User", "Planner"))
    return memory


def with_task(memory: Memory, message: str = "Compare the regions across months.") -> Memory:
    memory.conversation.rounds[-1].add_post(
        planner_post("CodeInterpreter", message, "1. Aggregate", "InProcess")
    )
    return memory


def sent(messages: list[Msg]) -> list[dict]:
    """A composed request as the server receives it (LLMTurn converts it this way, in one place)."""
    return to_openai_messages(messages)


def render(messages: list[Msg]) -> str:
    return "\n".join(f"=== {m['role']} ===\n{m['content']}" for m in sent(messages)) + "\n"


__all__ = [
    "analysis_round",
    "code_post",
    "json",
    "memory_with",
    "planner_post",
    "render",
    "sent",
    "with_task",
]
