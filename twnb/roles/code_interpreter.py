"""The CodeInterpreter: writes Python for the Planner's task, verifies it, has it run, revises it.

Running code is not its own business: the session's Round driver yields the code to whoever drives the
Round (the plain `run_round`, or step mode waiting for a click) and hands the result back. So one turn
is two calls: `generate(memory)` makes the post (thought, reply_type, reply_content, verification,
code_error), `code_to_run(post)` says what to run, and `record_execution(post, result)` adds
execution_status, execution_result and artifact_paths and decides where the post goes: back to the
Planner, or to itself with a `revise_message` quoting the error (at most `max_retries` times per task).
Refused code never runs. A reply is read for its own keys only (thought, reply_type, reply_content):
anything else it carries that names an attachment (`execution_status: SUCCESS` with a made-up
`execution_result`, artifact paths, verification's verdict) is dropped, the code runs as any code does,
and `post.extra["ignored_reply_keys"]` records that the reply carried them.

Attachments come in TaskWeaver's order: thought, reply_type, reply_content, verification, code_error,
execution_status, execution_result, artifact_paths[, revise_message].
"""

from __future__ import annotations

import os

from twnb.base import clip
from twnb.kernel import ExecutionResult, execution_text_for_llm
from twnb.llm import ChatClient, Msg
from twnb.memory import (
    EDITED_BY_USER,
    SKIPPED_BY_USER,
    AttachmentType,
    ExecutionRecord,
    Memory,
    MessageDelta,
    Observer,
    Post,
    RefusedEdit,
)
from twnb.plugins import NO_PLUGINS, PluginOffer
from twnb.roles.code_prompt import CodePrompt
from twnb.roles.llm_turn import LLMTurn, ReplyUnreadable
from twnb.roles.plugin_only import assigned_names, check_plugin_only
from twnb.roles.prompt_fit import FULL, PromptFit, run_fitted
from twnb.roles.prompt_library import EXAMPLES_DIR, load_examples, load_prompts
from twnb.roles.response_schema import role_response_format
from twnb.roles.role import Role, attach, current_round_posts
from twnb.roles.role_setup import (
    CODE_LIMITS,
    NO_SURROUNDINGS,
    PACKAGE_BRIEF,
    CodeLimits,
    RoleBrief,
    RoleSurroundings,
)
from twnb.roles.round_digest import CondensePolicy, describe_variable, first_text
from twnb.roles.translator import PostTranslator
from twnb.roles.verification import Refusal, VerificationConfig, allowable_modules, verify_code


class CodeInterpreter(Role):
    name = "CodeInterpreter"

    def __init__(
        self,
        client: ChatClient,
        model: str,
        translator: PostTranslator,
        *,
        brief: RoleBrief = PACKAGE_BRIEF,
        limits: CodeLimits = CODE_LIMITS,
        verification: VerificationConfig | None = None,
        surroundings: RoleSurroundings = NO_SURROUNDINGS,
    ) -> None:
        """`brief`: what it is told (prompts, examples, condensing, the reply format); `limits`: its
        attempts, revisions per task, reply and result sizes, the model's context; `surroundings`: the
        namespace summary, the plugins each Round describes, the working directory execution results'
        artifact links are relative to (which keeps prompts the same wherever the notebook lives)."""
        self.templates = brief.prompts or load_prompts("code_interpreter")
        super().__init__(intro=self.templates.text("intro"))
        self.verification = verification or VerificationConfig()
        examples = brief.examples
        if examples is None:
            examples = load_examples(
                [EXAMPLES_DIR / "code_interpreter", *brief.example_dirs], {"Planner", self.alias}
            )
        self.prompt = CodePrompt(
            self.templates, self.verification.describe(), examples, brief.policy or CondensePolicy()
        )
        self.namespace_summary = surroundings.namespace_summary
        self.max_retries = limits.max_revisions
        self.result_chars = limits.result_chars
        self.workdir = surroundings.workdir
        schema = self.prompt.response_schema
        fmt = role_response_format(brief.response_format, schema, "code_interpreter_reply")
        required = ("reply_type", "reply_content")
        self.turn = LLMTurn(
            client,
            model,
            self.name,
            translator,
            limits.attempts,
            fmt,
            required,
            limits.max_reply_chars,
            limits.context,
        )
        # post id -> revisions already made for its task (set by generate, read by record_execution)
        self._revisions: dict[str, int] = {}
        self.plugins = surroundings.plugins
        self.plugin_only = False  # the session sets it for each Round (start_round)
        self._offer: PluginOffer = NO_PLUGINS
        # names plugin-only code assigned from plugin calls: later plugin-only code may use them
        self._plugin_variables: set[str] = set()

    def start_round(self, *, plugin_only: bool = False) -> None:
        """What the Round asks of this role: plugin-only mode (only plugin calls may run)."""
        self.plugin_only = plugin_only

    # -- the prompt ------------------------------------------------------------------------------

    def compose(self, memory: Memory, fit: PromptFit = FULL) -> list[Msg]:
        """The request for this role's next call, as Msgs (LLMTurn converts them to the openai format),
        cut as `fit` says to fit the model's context."""
        rounds = memory.get_role_rounds(self.alias, include_failure_rounds=True)
        summary = self.namespace_summary() if self.namespace_summary is not None else ""
        self.prompt.plugin_section = self._plugin_section(memory, compact=not fit.examples)
        return self.prompt.compose(rounds, summary, fit)

    def _plugin_section(self, memory: Memory, *, compact: bool = False) -> str:
        """The plugins this Round offers, as the system message's section (TaskWeaver's stubs; one line
        each when `compact`: a prompt fitted to a small context), with the plugin-only rules in a
        plugin-only Round."""
        rounds = memory.conversation.rounds
        if self.plugins is None or not rounds:
            self._offer = NO_PLUGINS
        else:
            self._offer = self.plugins.offer(rounds[-1].id, rounds[-1].user_query, self.plugin_only)
        if compact and self._offer.planner_lines:
            parts = [self.templates.fill("plugins_compact", lines=self._offer.planner_lines)]
        else:
            parts = [self.templates.fill("plugins", stubs=self._offer.stubs)] if self._offer.stubs else []
        if self.plugin_only:
            parts.append(self.templates.text("plugin_only" if self._offer.functions else "no_plugins_only"))
        return "\n\n".join(parts)

    def revisions_so_far(self, memory: Memory) -> int:
        """CodeInterpreter -> CodeInterpreter posts since the Planner's latest task in this Round."""
        count = 0
        for post in reversed(current_round_posts(memory)):
            if post.send_from == self.alias and post.send_to == self.alias:
                count += 1
            elif post.send_to == self.alias:
                break
        return count

    # -- one turn ----------------------------------------------------------------------------------

    def generate(self, memory: Memory, observer: Observer | None = None) -> Post:
        """Ask the LLM for code (or text) and verify it; the post is not finished if code must run."""
        revisions = self.revisions_so_far(memory)
        post_id = Post.create("", self.alias).id
        self._revisions[post_id] = revisions

        def compose(fit: PromptFit) -> list[Msg]:
            return self.compose(memory, fit)

        try:
            post = run_fitted(self.turn, compose, post_id=post_id, send_to="Planner", observer=observer).post
        except ReplyUnreadable as unreadable:
            post = unreadable.empty_post(post_id, self.alias, "Planner")
            return self._unusable(post, unreadable.problem, observer)
        except BaseException:
            self._revisions.pop(post_id, None)
            raise
        post.send_to = "Planner"
        _drop_foreign_keys(post)
        reply_type = (first_text(post, AttachmentType.reply_type) or "").strip()
        content = first_text(post, AttachmentType.reply_content)
        if reply_type not in ("python", "text") or content is None:
            found = (
                f"reply_type {reply_type!r}" if reply_type not in ("python", "text") else "no reply_content"
            )
            return self._unusable(post, f"the reply has {found}", observer)
        if reply_type == "text":
            self._set_message(post, content, observer)
            self._nothing_runs(post, "NONE", "No code is generated.", "No code is executed.", observer)
            return post
        refusals = self._verify(content)
        if refusals is None:
            attach(post, AttachmentType.verification, "NONE", observer)
            attach(post, AttachmentType.code_error, "No code verification is performed.", observer)
        elif not refusals:
            attach(post, AttachmentType.verification, "CORRECT", observer)
            attach(post, AttachmentType.code_error, "No error is found.", observer)
        else:
            problem = "\n".join(str(refusal) for refusal in refusals)
            refused = "No code is executed due to code verification failure."
            self._nothing_runs(post, "INCORRECT", problem, refused, observer)
            # for the user, whom the Planner may tell: how to allow them if they trust them
            message = f"Verification refused the code:\n{problem}" + _allow_hint(refusals, "The user")
            self._set_message(post, message, observer)
            self._route(post, revisions, self.templates.fill("revise_refused", error=problem), observer)
        return post

    def _verify(self, code: str) -> list[Refusal] | None:
        """Verification's refusals (None: verification is off), and in a plugin-only Round the
        plugin-only rules' (which hold with verification off too: the user asked for them)."""
        refusals = verify_code(code, self.verification)
        if not self.plugin_only:
            return refusals
        only = check_plugin_only(code, self._offer.functions, self._plugin_variables)
        return [*(refusals or []), *only] if (refusals is not None or only) else None

    def check_edit(self, code: str) -> str | None:
        """Verification's refusal of `code` (the user's edit of a post's code, before it runs), or None
        when it may run: it passed, or verification is off. The same check the model's code gets."""
        refusals = self._verify(code)
        if not refusals:
            return None
        # The refusals' hints speak to the model ("the modules listed in your instructions"): the
        # user is told where and why, and how to allow a module when that is possible.
        problem = "\n".join(refusal.problem for refusal in refusals)
        return f"Verification refused the edited code:\n{problem}" + _allow_hint(refusals, "You")

    @staticmethod
    def code_to_run(post: Post) -> str | None:
        """The code `post` still has to run: python that passed (or skipped) verification, not yet run."""
        if first_text(post, AttachmentType.reply_type) != "python":
            return None
        if first_text(post, AttachmentType.verification) not in ("CORRECT", "NONE"):
            return None
        if first_text(post, AttachmentType.execution_status) is not None:
            return None
        return first_text(post, AttachmentType.reply_content)

    def record_execution(self, post: Post, result: ExecutionResult, observer: Observer | None = None) -> Post:
        """Add what the run produced (a kernel ExecutionResult) and route the post."""
        revisions = self._revisions.pop(post.id, 0)
        text = execution_text_for_llm(result, max_chars=self.result_chars, relative_to=self.workdir)
        error = f"{result.error.ename}: {result.error.evalue}" if result.error is not None else None
        attach(post, AttachmentType.execution_status, "SUCCESS" if result.success else "FAILURE", observer)
        record = ExecutionRecord(
            execution_id=result.execution_id,
            status=result.status,
            error=error,
            variables=[v.to_dict() for v in result.variables],
            outputs=list(result.outputs),
            duration_s=round(result.duration_s, 3),
            notes=list(result.notes),
        )
        if result.refusals:
            record["refusals"] = [refusal.to_dict() for refusal in result.refusals]
        attach(post, AttachmentType.execution_result, text, observer, extra=record)
        attach(post, AttachmentType.artifact_paths, [str(p) for p in result.artifacts], observer)
        if result.plugin_calls:
            post.extra["plugin_calls"] = [dict(call) for call in result.plugin_calls]  # type: ignore[misc]
        if self.plugin_only and result.success:
            self._plugin_variables.update(
                assigned_names(first_text(post, AttachmentType.reply_content) or "")
            )
        timing = post.extra.setdefault("timing", {})
        timing["execution_s"] = round(result.duration_s, 3)
        message = self._outcome_message(result, error)
        if post.extra.get("edited_by") == "User":
            message = EDITED_BY_USER + " " + message
        self._set_message(post, message, observer)
        if result.status == "refused":
            # As a verification refusal: the model is told what was refused and how to do without it.
            problem = "\n".join(str(refusal) for refusal in result.refusals)
            self._route(post, revisions, self.templates.fill("revise_guard_refused", error=problem), observer)
        elif not result.success and result.status != "interrupted":
            self._route(post, revisions, self.templates.fill("revise_failure", error=text), observer)
        return post

    @staticmethod
    def record_approved(post: Post, observer: Observer | None = None) -> Post:
        """The user chose Run on the code as it was: marked in the record only (what the LLM is told
        of the run is what a plain Round tells it)."""
        post.extra["approved_by"] = "User"
        return post

    def record_edit(self, post: Post, code: str, observer: Observer | None = None) -> Post:
        """The user edited the code before it ran: `code` becomes the reply (what ran and is saved), the
        model's own code is kept in `post.extra["edited_from"]`, and the message that goes back to the
        LLM says the user edited it (see record_execution)."""
        for attachment in post.attachment_list:
            if attachment.type is AttachmentType.reply_content:
                post.extra["edited_from"] = attachment.content
                attachment.content = code
                break
        post.extra["edited_by"] = "User"
        return post

    @staticmethod
    def record_refused_edit(post: Post, code: str, refusal: str) -> Post:
        """The user skipped the code, or stopped, after verification refused their edit `code` with
        `refusal`: kept in the record only (the LLM is told of the skip or stop as in any Round)."""
        post.extra["refused_edit"] = RefusedEdit(code=code, refusal=refusal)
        return post

    def record_skipped(self, post: Post, observer: Observer | None = None) -> Post:
        """The user chose not to run the code: nothing ran, the Planner decides what next."""
        self._revisions.pop(post.id, None)
        attach(post, AttachmentType.execution_status, "NONE", observer)
        attach(post, AttachmentType.execution_result, SKIPPED_BY_USER, observer)
        post.extra["skipped_by"] = "User"
        post.send_to = "Planner"
        self._set_message(post, SKIPPED_BY_USER, observer)
        return post

    def record_no_result(
        self, post: Post, outcome: tuple[str, str], observer: Observer | None = None
    ) -> Post:
        """Close a post whose code's result never came back (the Round was interrupted or cancelled, or
        the executor broke): `outcome` is (execution_status, execution_result text). It goes to the
        Planner, unrevised: the Round is ending."""
        status, text = outcome
        self._revisions.pop(post.id, None)
        attach(post, AttachmentType.execution_status, status, observer)
        attach(post, AttachmentType.execution_result, text, observer)
        post.send_to = "Planner"
        self._set_message(post, text, observer)
        return post

    # -- pieces ------------------------------------------------------------------------------------

    def _unusable(self, post: Post, problem: str, observer: Observer | None) -> Post:
        """A reply without usable content: nothing runs; ask again (bounded)."""
        revisions = self._revisions.pop(post.id, 0)
        post.attachment_list = [
            a for a in post.attachment_list if a.type in (AttachmentType.thought, AttachmentType.reply_type)
        ]
        unusable = "No code is executed due to code generation failure."
        self._nothing_runs(post, "NONE", "No code is generated.", unusable, observer)
        self._set_message(post, f"Failed to generate code: {problem}.", observer)
        self._route(post, revisions, self.templates.fill("revise_unparsable", error=problem), observer)
        return post

    @staticmethod
    def _nothing_runs(
        post: Post, verification: str, code_error: str, result: str, observer: Observer | None
    ) -> None:
        """The attachments of a post whose code does not run (a text reply, refused or unusable code)."""
        attach(post, AttachmentType.verification, verification, observer)
        attach(post, AttachmentType.code_error, code_error, observer)
        attach(post, AttachmentType.execution_status, "NONE", observer)
        attach(post, AttachmentType.execution_result, result, observer)

    def _route(self, post: Post, revisions: int, revise_message: str, observer: Observer | None) -> None:
        """To itself with the revise message while revisions are left, else back to the Planner."""
        if revisions < self.max_retries:
            post.send_to = self.alias
            attach(post, AttachmentType.revise_message, revise_message, observer)
        else:
            post.send_to = "Planner"

    @staticmethod
    def _set_message(post: Post, message: str, observer: Observer | None) -> None:
        post.message = message
        if observer is not None:
            observer.on_event(MessageDelta(post.id, message, True))

    @staticmethod
    def _outcome_message(result: ExecutionResult, error: str | None) -> str:
        if result.success:
            parts = ["The code ran successfully."]
            made = [
                describe_variable(v.to_dict())
                for v in result.variables
                if v.kind in ("created", "rebound", "changed")
            ]
            if made:
                parts.append("Variables: " + ", ".join(made[:20]) + ".")
            called = list(dict.fromkeys(call["name"] for call in result.plugin_calls))
            if called:
                parts.append("Plugins called: " + ", ".join(called[:20]) + ".")
            if result.artifacts:
                parts.append(
                    "Files: " + ", ".join(os.path.basename(str(p)) for p in result.artifacts[:20]) + "."
                )
            return " ".join(parts)
        if result.status == "interrupted":
            return "The code was interrupted."
        if result.status == "refused":
            problems = "\n".join(refusal.problem for refusal in result.refusals)
            return f"The runtime guard refused what the code did:\n{problems}"
        if result.status == "timeout":
            return f"The code was stopped at its time limit: {clip(error or '', 300, one_line=True)}"
        return f"The code failed: {clip(error or 'unknown error', 300, one_line=True)}"


# What the model's reply may set; every other attachment is the role's own (verification, execution).
_REPLY_KEYS = frozenset({AttachmentType.thought, AttachmentType.reply_type, AttachmentType.reply_content})


def _drop_foreign_keys(post: Post) -> None:
    """Results come only from running the code: attachments a reply carries beyond its own keys are
    dropped, and the record says which there were."""
    foreign = [a for a in post.attachment_list if a.type not in _REPLY_KEYS]
    if not foreign:
        return
    post.attachment_list = [a for a in post.attachment_list if a.type in _REPLY_KEYS]
    post.extra["ignored_reply_keys"] = list(dict.fromkeys(a.type.value for a in foreign))


def _allow_hint(refusals: list[Refusal], who: str) -> str:
    """How to allow the refused modules, if any could be allowed (for whoever trusts them)."""
    modules = allowable_modules(refusals)
    if not modules:
        return ""
    listed = ", ".join(repr(m) for m in modules)
    return f"\n({who} can allow them with %config TaskWeaverMagics.allow_modules = [{listed}].)"
