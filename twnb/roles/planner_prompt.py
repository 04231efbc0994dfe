"""The Planner's chat messages (`Msg`s, see chat_prompt.py): a stable prefix, a condensed past, the live
namespace at the end.

Layout (each part is what TaskWeaver's Planner sends, made lean):
1. system: the Planner's instructions, the workers' intros and its JSON schema. Byte-identical on every
   call: no time, no session id, no variables, so provider prompt caching can hit.
2. the few-shot examples, rendered once and reused (also byte-identical).
3. the conversation: earlier Rounds as a digest (round_digest.py) at the head of the first message, the
   current Round in full, TaskWeaver-style (`From: X\\nMessage: ...` user turns, the Planner's own JSON
   as assistant turns), with the code and output of a worker's step. A Round is digested as soon as
   the next one starts (`PLANNER_POLICY`), unless it ended with a question to the User, whose answer
   continues its plan.
   The history changes shape only in steps (round_digest.history_layout); in between, a call only adds
   at its end, so a provider's prompt cache reuses all that came before.
4. the namespace summary: a snapshot after the condensed Rounds, taken when the history last changed
   shape; what changed since at the end of the last user message (namespace_delta.py).
"""

from __future__ import annotations

import json
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from twnb.base import clip
from twnb.llm import Msg
from twnb.memory import AttachmentType, Conversation, Post, Round
from twnb.roles.chat_prompt import ChatPrompt, append_to_last_user, append_user_text, assistant_msg
from twnb.roles.namespace_delta import NamespaceSnapshot
from twnb.roles.prompt_fit import FULL, PromptFit
from twnb.roles.prompt_library import PromptTemplates, fill, parse_schema
from twnb.roles.round_digest import CondensePolicy, first_text, planner_digest

PLANNER_KEYS = ("plan_reasoning", "init_plan", "plan", "current_plan_step", "stop")
# Stops that hand the Round to the User with the plan unfinished: the next request answers them.
ASKING_STOPS = ("Clarification", "AdditionalInformation")
# The Planner digests the previous Round as soon as a new one starts. Its digest keeps what the
# Planner works from (the request, each step's status and variables, the answer); its code and
# output, which the CodeInterpreter builds on, stay in full in that role's prompt. Folding the
# previous Round at the start of the next rewrites only the end of the history, where the new request
# goes anyway, so the Planner's first call of a Round reuses nearly all of its previous call (a
# provider's prompt cache), and its prompts are about a fifth smaller (bench/bench_prompt_cache.py).
PLANNER_POLICY = CondensePolicy(block_rounds=0)


def planner_reply_json(post: Post) -> str:
    """The Planner's post as the JSON it would have written (TaskWeaver's `post_to_raw_text` form)."""
    response: dict[str, str] = {}
    for key in PLANNER_KEYS:
        text = first_text(post, AttachmentType(key))
        if text is not None:
            response[key] = text
    response["send_to"] = post.send_to
    response["message"] = post.message
    return json.dumps({"response": response}, ensure_ascii=False)


@dataclass(frozen=True)
class Worker:
    """What the Planner is told about a worker."""

    alias: str
    intro: str


@dataclass
class PlannerPrompt(ChatPrompt):
    templates: PromptTemplates
    workers: Sequence[Worker]
    examples: Sequence[Conversation] = ()
    policy: CondensePolicy = PLANNER_POLICY

    def __post_init__(self) -> None:
        self._namespace = NamespaceSnapshot()
        self.recipients = [w.alias for w in self.workers] + ["User"]
        self._digests = {}
        self._system = self._compose_system()
        start = self.templates.text("conversation_start")
        self._examples = [m for ex in self.examples for m in self._render_full(ex.rounds, {}, lead=start)]

    # -- the stable prefix ---------------------------------------------------------------------------

    def _compose_system(self) -> str:
        intros = "\n".join(
            self.templates.fill("worker_intro", alias=w.alias, intro=textwrap.indent(w.intro.rstrip(), "  "))
            for w in self.workers
        )
        schema = self.templates.fill("response_json_schema", recipients=json.dumps(self.recipients))
        self.response_schema: dict[str, Any] = parse_schema(schema, self.templates.source)
        return self.templates.fill("system", worker_intro=intros, response_schema=schema)

    # -- the conversation ----------------------------------------------------------------------------

    def compose(self, rounds: list[Round], namespace_summary: str = "", fit: PromptFit = FULL) -> list[Msg]:
        """The messages for the Planner's next call. `rounds` is `memory.get_role_rounds("Planner",
        include_failure_rounds=True)`: the last one is the current Round. `fit` cuts it to fit the
        model's context (prompt_fit.py)."""
        head, full, changes = self.condensed_past(rounds, namespace_summary, fit)
        lead = self.templates.text("conversation_start")
        if head:
            lead += "\n" + head
        history = self._render_full(full, self.output_caps(full, fit), lead=lead)
        append_to_last_user(history, changes)
        return [*self.prefix(fit), *history]

    def digest_round(self, round: Round, *, one_line: bool) -> str:
        return planner_digest(round, self.policy, one_line=one_line)

    def keeps_in_full(self, round: Round) -> bool:
        """A Round that ended with the Planner asking the User: its plan goes on in the next one."""
        for post in reversed(round.post_list):
            if post.send_from == "Planner":
                return post.send_to == "User" and first_text(post, AttachmentType.stop) in ASKING_STOPS
        return False

    def _render_full(
        self, rounds: Sequence[Round], outputs: dict[str, int | None], *, lead: str
    ) -> list[Msg]:
        """Rounds in TaskWeaver's form, `lead` heading the first user turn. `outputs[round.id]` caps the
        worker output shown (None, or a round missing from `outputs`: all of it)."""
        messages: list[Msg] = []
        for index, round in enumerate(rounds):
            for post in round.post_list:
                if post.send_from == "Planner":
                    if post.send_to == "Planner":  # a self-correction
                        invalid = first_text(post, AttachmentType.invalid_response) or ""
                        revise = first_text(post, AttachmentType.revise_message) or ""
                        messages.append(assistant_msg(post, invalid))
                        append_user_text(messages, "User", self._from("User", revise), merge=False)
                    else:
                        messages.append(assistant_msg(post, planner_reply_json(post)))
                    continue
                text = self._from(post.send_from, post.message)
                if post.send_from != "User":
                    text += self._step_details(post, outputs.get(round.id))
                if index == 0 and not messages:
                    text = lead + "\n" + text
                append_user_text(messages, post.send_from, text)
            if note := self.failure_note(round, rounds[-1]):
                append_user_text(messages, "User", note)
        return messages

    def _from(self, role: str, message: str) -> str:
        return fill(self.templates.text("message_format"), role=role, message=message)

    @staticmethod
    def _step_details(post: Post, output_cap: int | None) -> str:
        """A worker's code and its output (capped), read from its attachments."""
        if first_text(post, AttachmentType.reply_type) != "python":
            return ""
        code = first_text(post, AttachmentType.reply_content) or ""
        text = f"\nCode:\n```python\n{code}\n```"
        output = first_text(post, AttachmentType.execution_result)
        status = first_text(post, AttachmentType.execution_status)
        if output and status in ("SUCCESS", "FAILURE"):
            text += f"\nOutput:\n{clip(output, output_cap, count=True)}"
        return text
