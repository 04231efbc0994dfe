"""The Planner: plans the User's request, hands steps to workers, answers the User.

Its reply is validated as TaskWeaver's is (`send_to` a worker or the User, never itself; a message;
the plan attachments), and `stop`, when given, must be one of TaskWeaver's values (any case; written
back as the enum spells it). An invalid reply becomes a Planner -> Planner post carrying the raw reply
(`invalid_response`) and what to fix (`revise_message`), so the next call can correct itself; after
`max_self_corrections` such posts in one Round, the Round fails with a clear reason.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from twnb.llm import ChatClient, Msg
from twnb.memory import AttachmentType, Memory, Observer, Post
from twnb.roles.chat_prompt import append_to_last_user
from twnb.roles.llm_turn import LLMTurn, ReplyUnreadable
from twnb.roles.planner_prompt import PLANNER_POLICY, PlannerPrompt, Worker
from twnb.roles.prompt_fit import FULL, PromptFit, run_fitted
from twnb.roles.prompt_library import EXAMPLES_DIR, load_examples, load_prompts
from twnb.roles.response_schema import role_response_format
from twnb.roles.role import Role, RoleFailure, attach, current_round_posts
from twnb.roles.role_setup import (
    NO_SURROUNDINGS,
    PACKAGE_BRIEF,
    ROLE_LIMITS,
    RoleBrief,
    RoleLimits,
    RoleSurroundings,
)
from twnb.roles.round_context import round_context
from twnb.roles.translator import PostTranslator

REQUIRED_PLAN_KEYS = (AttachmentType.init_plan, AttachmentType.plan, AttachmentType.current_plan_step)
# TaskWeaver's `stop` values: why the Planner stops (InProcess while work remains).
STOP_VALUES = (
    "InProcess",
    "Completed",
    "Clarification",
    "AdditionalInformation",
    "SecurityRisks",
    "TaskFailure",
)


def canonical_stop(value: str) -> str | None:
    """`value` spelled as TaskWeaver's enum (case and spaces forgiven), or None if it is not one."""
    key = "".join(value.split()).lower()
    return next((stop for stop in STOP_VALUES if stop.lower() == key), None)


def planner_problems(post: Post, recipients: Sequence[str]) -> list[str]:
    """What makes a Planner reply unusable (empty when it is fine)."""
    problems = []
    if post.send_to == "Planner":
        problems.append("send_to is Planner: you never send a message to yourself")
    elif post.send_to not in recipients:
        problems.append(f"send_to is {post.send_to!r}, not one of {', '.join(recipients)}")
    if not post.message.strip():
        problems.append("the message is empty")
    present = {a.type for a in post.attachment_list}
    missing = [t.value for t in REQUIRED_PLAN_KEYS if t not in present]
    if missing:
        problems.append("missing " + ", ".join(missing))
    for attachment in post.attachment_list:
        if attachment.type is AttachmentType.stop and canonical_stop(str(attachment.content)) is None:
            problems.append(f"stop is {str(attachment.content)!r}, not one of {', '.join(STOP_VALUES)}")
    return problems


def normalize_stop(post: Post) -> None:
    """Write a valid `stop` as the enum spells it ("completed" -> "Completed"), for every reader."""
    for attachment in post.attachment_list:
        if attachment.type is AttachmentType.stop:
            attachment.content = canonical_stop(str(attachment.content)) or attachment.content


class Planner(Role):
    name = "Planner"

    def __init__(
        self,
        client: ChatClient,
        model: str,
        translator: PostTranslator,
        *,
        workers: Sequence[Worker],
        brief: RoleBrief = PACKAGE_BRIEF,
        limits: RoleLimits = ROLE_LIMITS,
        surroundings: RoleSurroundings = NO_SURROUNDINGS,
    ) -> None:
        """`brief`: what it is told (prompts, examples, condensing, the reply format: "json_schema" is
        the Planner's own schema); `limits`: its attempts, self-corrections per Round, the reply size
        (see LLMTurn), the model's context; `surroundings`: the namespace summary and the plugins each
        Round offers its CodeInterpreter, which the Planner is told of, one line each."""
        self.templates = brief.prompts or load_prompts("planner")
        super().__init__(intro=self.templates.text("intro"))
        self.workers = list(workers)
        self.recipients = [w.alias for w in self.workers] + ["User"]
        examples = brief.examples
        if examples is None:
            role_set = {"Planner", "User", *self.recipients}
            examples = load_examples([EXAMPLES_DIR / "planner", *brief.example_dirs], role_set)
        self.prompt = PlannerPrompt(self.templates, self.workers, examples, brief.policy or PLANNER_POLICY)
        self.namespace_summary = surroundings.namespace_summary
        # The session's plan notebook sets this: the plan a Round continues, as a note (else "").
        self.plan_hint: Callable[[], str] | None = None
        self.max_self_corrections = limits.max_revisions
        self.plugins = surroundings.plugins
        self.plugin_only = False  # the session sets it for each Round (start_round)
        fmt = role_response_format(brief.response_format, self.prompt.response_schema, "planner_reply")
        self.turn = LLMTurn(
            client,
            model,
            self.name,
            translator,
            limits.attempts,
            fmt,
            (),
            limits.max_reply_chars,
            limits.context,
        )

    def start_round(self, *, plugin_only: bool = False) -> None:
        """What the Round asks: in plugin-only mode the Planner is told the worker may only call plugins."""
        self.plugin_only = plugin_only

    def _plugin_section(self, memory: Memory) -> str:
        rounds = memory.conversation.rounds
        if self.plugins is None or not rounds:
            return ""
        offer = self.plugins.offer(rounds[-1].id, rounds[-1].user_query, self.plugin_only)
        parts = [self.templates.fill("plugins", lines=offer.planner_lines)] if offer.planner_lines else []
        if self.plugin_only:
            parts.append(self.templates.text("plugin_only"))
        return "\n".join(parts)

    def compose(self, memory: Memory, fit: PromptFit = FULL) -> list[Msg]:
        """The request for this role's next call, as Msgs (LLMTurn converts them to the openai format),
        cut as `fit` says to fit the model's context."""
        self.prompt.plugin_section = self._plugin_section(memory)
        rounds = memory.get_role_rounds(self.alias, include_failure_rounds=True)
        summary = self.namespace_summary() if self.namespace_summary is not None else ""
        messages = self.prompt.compose(rounds, summary, fit)
        # A plan carried into this Round (recovered): its state at the end, where it changes nothing
        # before it (no hint at all in other Rounds, so their prompts are what they always were).
        append_to_last_user(messages, self.plan_hint() if self.plan_hint is not None else "")
        # the experiences retrieved for this Round's request (none: nothing added)
        append_to_last_user(messages, round_context(rounds[-1], mentions=False) if rounds else "")
        return messages

    def reply(self, memory: Memory, observer: Observer | None = None) -> Post:
        corrections = sum(
            1 for p in current_round_posts(memory) if p.send_from == self.alias and p.send_to == self.alias
        )
        post_id = Post.create("", self.alias).id

        def compose(fit: PromptFit) -> list[Msg]:
            return self.compose(memory, fit)

        try:
            result = run_fitted(self.turn, compose, post_id=post_id, send_to="Unknown", observer=observer)
        except ReplyUnreadable as unreadable:
            post = unreadable.empty_post(post_id, self.alias, "Unknown")
            return self._revise(post, unreadable.raw_texts[-1], [unreadable.problem], corrections, observer)
        problems = planner_problems(result.post, self.recipients)
        if problems:
            return self._revise(result.post, result.raw_text, problems, corrections, observer)
        normalize_stop(result.post)
        return result.post

    def _revise(
        self, post: Post, raw_text: str, problems: list[str], corrections: int, observer: Observer | None
    ) -> Post:
        """The Planner -> Planner post that asks for a corrected reply (or the end of the Round)."""
        what = "; ".join(problems)
        if corrections >= self.max_self_corrections:
            raise RoleFailure(
                f"The Planner gave no usable reply after {corrections + 1} attempts in this Round "
                f"(last problem: {what}). The model may not follow the JSON format; try a stronger model."
            )
        revised = Post.create(f"The reply could not be used: {what}.", self.alias, self.alias)
        revised.id = post.id
        revised.extra = post.extra.copy()
        attach(revised, AttachmentType.invalid_response, raw_text, observer)
        attach(
            revised,
            AttachmentType.revise_message,
            self.templates.fill("revise_invalid", error=what, recipients=", ".join(self.recipients)),
            observer,
        )
        return revised
