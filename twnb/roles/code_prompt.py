"""The CodeInterpreter's chat messages (`Msg`s, see chat_prompt.py), built from attachments (TaskWeaver's
temporal delimiter acts on messages only, so this builder condenses older execution results itself).

Layout:
1. system: instructions, the verification rules in force, the JSON schema: byte-identical every call.
2. the few-shot examples, rendered once.
3. the conversation: older tasks as a digest at the head of the first message; the newest Rounds in
   full: the Planner's task as a user turn, the CodeInterpreter's JSON (thought, reply_type,
   reply_content) as an assistant turn, then the feedback on that code as the next user turn (the
   output capped for earlier Rounds).
   The previous Round, kept in full, opens with its task as the next item of the digest's list (not
   as "The task for this step is: ..."): when it folds, at the Round after, its item gains its outcome
   where it stands, and the request is the previous one's up to that task; opened with the task line,
   the fold would send the folded Round's line and the next task anew.
   The history changes shape only in steps (round_digest.history_layout); in between, a call only adds
   at its end, so a provider's prompt cache reuses all that came before.
4. the namespace summary as a snapshot after the digest (taken when the history last changed shape);
   the User's request of the current Round and what changed in the namespace since the snapshot, in
   the last user message (namespace_delta.py).
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from twnb.base import clip
from twnb.llm import Msg
from twnb.memory import EDITED_BY_USER, AttachmentType, Conversation, Post, Round
from twnb.roles.chat_prompt import ChatPrompt, append_to_last_user, assistant_msg, user_msg
from twnb.roles.namespace_delta import NamespaceSnapshot
from twnb.roles.prompt_fit import FULL, PromptFit
from twnb.roles.prompt_library import PromptTemplates, parse_schema
from twnb.roles.round_context import round_context
from twnb.roles.round_digest import CondensePolicy, code_digest, first_text

CODE_KEYS = ("thought", "reply_type", "reply_content")


def code_reply_json(post: Post) -> str:
    """The CodeInterpreter's post as the JSON it wrote (repeated thoughts joined, as TaskWeaver)."""
    response: dict[str, str] = {}
    for attachment in post.attachment_list:
        key = attachment.type.value
        if key in CODE_KEYS:
            text = str(attachment.content)
            response[key] = f"{response[key]}\n{text}" if key in response else text
    return json.dumps({"response": response}, ensure_ascii=False)


def is_task(post: Post) -> bool:
    """A task the Planner gave the CodeInterpreter."""
    return post.send_from == "Planner" and post.send_to == "CodeInterpreter"


def code_feedback(post: Post, output_cap: int | None) -> str:
    """What became of the post's code: refused, ran (with its output), failed (with its error)."""
    if first_text(post, AttachmentType.reply_type) != "python":
        return ""
    if first_text(post, AttachmentType.verification) == "INCORRECT":
        return "Verification refused the code:\n" + (first_text(post, AttachmentType.code_error) or "")
    status = first_text(post, AttachmentType.execution_status)
    output = clip(first_text(post, AttachmentType.execution_result) or "", output_cap, count=True)
    # Step mode: the user's decisions, said to the model in the words the post records.
    edited = EDITED_BY_USER + "\n" if (post.extra or {}).get("edited_by") == "User" else ""
    if status == "SUCCESS":
        return edited + "The code ran successfully. Output:\n" + (output or "(no output)")
    if status == "FAILURE":
        return edited + "The code failed:\n" + output
    if (post.extra or {}).get("skipped_by") == "User":
        return output
    return ""


@dataclass
class CodePrompt(ChatPrompt):
    templates: PromptTemplates
    verification_rules: str
    examples: Sequence[Conversation] = ()
    policy: CondensePolicy = field(default_factory=CondensePolicy)

    def __post_init__(self) -> None:
        self._digests = {}
        self._namespace = NamespaceSnapshot()
        schema = self.templates.text("response_json_schema")
        self.response_schema: dict[str, Any] = parse_schema(schema, self.templates.source)
        rules = self.verification_rules.rstrip() or self.templates.text("no_verification_rules")
        self._system = self.templates.fill("system", verification_rules=rules, response_schema=schema)
        self._examples = [m for ex in self.examples for m in self._render_full(ex.rounds, {}, lead="")]

    def compose(self, rounds: list[Round], namespace_summary: str = "", fit: PromptFit = FULL) -> list[Msg]:
        """The messages for the CodeInterpreter's next call. `rounds` is `memory.get_role_rounds(
        "CodeInterpreter", include_failure_rounds=True)`: the last one is the current Round. `fit` cuts
        it to fit the model's context (prompt_fit.py)."""
        lead, full, changes = self.condensed_past(rounds, namespace_summary, fit)
        listed = self.lists_in_full(full)
        history = self._render_full(full, self.output_caps(full, fit), lead=lead, listed=listed)
        tail = []
        if rounds:
            tail.append(self.templates.fill("request_format", query=rounds[-1].user_query))
            tail.append(round_context(rounds[-1], mentions=True))
        if changes:
            tail.append(changes)
        append_to_last_user(history, "\n\n".join(t for t in tail if t))
        return [*self.prefix(fit), *history]

    def digest_round(self, round: Round, *, one_line: bool) -> str:
        return code_digest(round, self.policy, one_line=one_line)

    def lists_in_full(self, full: Sequence[Round]) -> bool:
        """An earlier Round shown in full (the previous one) that has a task opens with it listed."""
        return len(full) > 1 and any(is_task(post) for post in full[0].post_list)

    def _render_full(
        self, rounds: Sequence[Round], caps: dict[str, int | None], *, lead: str, listed: bool = False
    ) -> list[Msg]:
        """`listed`: the first task is the next item of the digest's list that ends `lead`, quoted as
        a digest quotes it (`- "task"`), so its digest, once folded, only appends to the item."""
        messages: list[Msg] = []
        pending = lead  # text waiting to open the next user turn (digest, or feedback on earlier code)
        for round in rounds:
            cap = caps.get(round.id)
            for post in round.post_list:
                if is_task(post):
                    if listed:  # whole, though its digest clips it: only the prefix stops sooner
                        text, listed = f'{pending.rstrip()}\n- "{post.message}"', False
                    else:
                        task = self.templates.fill("task_format", message=post.message)
                        text = f"{pending.rstrip()}\n\n{task}" if pending.strip() else task
                    messages.append(user_msg(post.send_from, text))
                    pending = ""
                elif post.send_from == "CodeInterpreter":
                    messages.append(assistant_msg(post, code_reply_json(post)))
                    feedback = code_feedback(post, cap)
                    if post.send_to == "CodeInterpreter":  # a revision: its message quotes the problem
                        revise = first_text(post, AttachmentType.revise_message) or feedback
                        messages.append(user_msg(post.send_from, revise))
                        pending = ""
                    elif feedback:
                        header = self.templates.text("feedback_header")
                        pending = f"{header}\n{feedback}"
            if note := self.failure_note(round, rounds[-1]):
                pending = f"{pending}\n{note}" if pending else note
        return messages
