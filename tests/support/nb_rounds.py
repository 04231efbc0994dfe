"""Small Rounds built in code, for the bundle and view tests."""

from __future__ import annotations

from twnb.memory import Attachment, AttachmentType, Post, Round

HOSTILE = "<img src=x onerror=alert(1)>"


def analysis_round(message: str = "The mean is 2.") -> Round:
    round = Round.create("What is the mean of [1, 2, 3]?")
    round.add_post(Post.create("What is the mean of [1, 2, 3]?", "User", "Planner"))
    planner = Post.create("Compute the mean of [1, 2, 3].", "Planner", "CodeInterpreter")
    planner.add_attachment(Attachment.create(AttachmentType.init_plan, "1. compute the mean\n2. report it"))
    planner.add_attachment(Attachment.create(AttachmentType.plan, "1. compute the mean\n2. report it"))
    planner.add_attachment(Attachment.create(AttachmentType.current_plan_step, "1. compute the mean"))
    round.add_post(planner)
    coder = Post.create("The mean is 2.0", "CodeInterpreter", "Planner")
    coder.add_attachment(Attachment.create(AttachmentType.thought, "Use statistics.mean."))
    coder.add_attachment(Attachment.create(AttachmentType.reply_type, "python"))
    coder.add_attachment(
        Attachment.create(
            AttachmentType.reply_content, "import statistics\nm = statistics.mean([1, 2, 3])\nm"
        )
    )
    coder.add_attachment(Attachment.create(AttachmentType.execution_status, "SUCCESS"))
    coder.add_attachment(Attachment.create(AttachmentType.execution_result, "2"))
    round.add_post(coder)
    answer = Post.create(message, "Planner", "User")
    answer.add_attachment(Attachment.create(AttachmentType.init_plan, "1. compute the mean\n2. report it"))
    answer.add_attachment(Attachment.create(AttachmentType.plan, "1. compute the mean\n2. report it"))
    answer.add_attachment(Attachment.create(AttachmentType.current_plan_step, "2. report it"))
    answer.add_attachment(Attachment.create(AttachmentType.stop, "Completed"))
    round.add_post(answer)
    round.change_round_state("finished")
    round.extra = {
        "timing": {"started_at": "2026-11-30T12:00:00", "ended_at": "2026-11-30T12:00:03", "duration_s": 3.2},
        "usage": {"prompt_tokens": 1500, "completion_tokens": 120, "cached_tokens": 0, "calls": 3},
    }
    return round
