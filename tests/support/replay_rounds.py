"""Rounds built in code for the replay tests: code that ran with its outputs, and the user's own cells
recorded before a Round (as a session records them in Round.extra["user_cells"])."""

from __future__ import annotations

from typing import Any

from twnb.memory import Attachment, AttachmentType, Conversation, Post, Round


def stdout(text: str) -> dict[str, Any]:
    return {"output_type": "stream", "name": "stdout", "text": text}


def code_round(query: str, code: str, outputs: list[dict[str, Any]], *, status: str = "SUCCESS") -> Round:
    """A finished Round whose CodeInterpreter ran `code`, which printed `outputs`."""
    round = Round.create(query)
    round.add_post(Post.create(query, "User", "Planner"))
    coder = Post.create("Ran it.", "CodeInterpreter", "Planner")
    for kind, content in [("reply_type", "python"), ("reply_content", code), ("execution_status", status)]:
        coder.add_attachment(Attachment.create(AttachmentType(kind), content))
    coder.add_attachment(Attachment.create(AttachmentType.execution_result, "ok", extra={"outputs": outputs}))
    round.add_post(coder)
    round.change_round_state("finished")
    return round


def user_cell(
    source: str, count: int, *, error: str | None = None, made: tuple[str, ...] = ()
) -> dict[str, Any]:
    return {
        "source": source,
        "execution_count": count,
        "error": error,
        "variables": [{"name": name, "kind": "created", "type": "object"} for name in made],
    }


def with_user_cells(round: Round, *cells: dict[str, Any]) -> Round:
    round.extra["user_cells"] = list(cells)  # type: ignore[typeddict-item]
    return round


def conversation(*rounds: Round) -> Conversation:
    made = Conversation.init()
    for round in rounds:
        made.add_round(round)
    return made
