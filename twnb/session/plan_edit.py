"""The user's edit of the Planner's plan in step mode, recorded in the Planner's post.

The post's `init_plan`, `plan` and `current_plan_step` become the user's steps; what the model wrote
(those three, where it sent the post and its message) is kept in `post.extra["edited_from"]`, and
`post.extra["edited_by"]` is "User". The post then goes to the User, whose reply (`user_plan_message`)
hands the edited plan back to the Planner, so its next call sees the plan as the user left it.
"""

from __future__ import annotations

from twnb.memory import AttachmentType, Post

_PLAN_KEYS = (AttachmentType.init_plan, AttachmentType.plan, AttachmentType.current_plan_step)


def numbered(steps: list[str]) -> str:
    return "\n".join(f"{i}. {step}" for i, step in enumerate(steps, 1))


def clean_steps(steps: list[str]) -> list[str]:
    return [" ".join(step.split()) for step in steps if step.strip()]


def apply_plan_edit(post: Post, steps: list[str]) -> Post:
    steps = clean_steps(steps)
    original: dict[str, str] = {"send_to": post.send_to, "message": post.message}
    values = {
        AttachmentType.init_plan: numbered(steps),
        AttachmentType.plan: numbered(steps),
        AttachmentType.current_plan_step: f"1. {steps[0]}" if steps else "",
    }
    for attachment in post.attachment_list:
        if attachment.type in _PLAN_KEYS and attachment.type.value not in original:
            original[attachment.type.value] = str(attachment.content)
            attachment.content = values[attachment.type]
    post.extra["edited_from"] = original
    post.extra["edited_by"] = "User"
    post.send_to = "User"
    return post


def user_plan_message(steps: list[str]) -> str:
    return (
        "I changed your plan before any step ran. Follow this plan from its first step, "
        "and keep its steps as they are:\n" + numbered(clean_steps(steps))
    )
