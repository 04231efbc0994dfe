"""What the Round driver yields (code to run, a plan to approve) and what a step-mode driver may send
back besides a plain ExecutionResult (the user ran the code as it was, skipped it, or edited it before
it ran). Each decision records itself in the code's post (`record`): the driver asks no decision what
type it is."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from twnb.session.undone_links import relink_post

if TYPE_CHECKING:
    from twnb.kernel import ExecutionResult
    from twnb.memory import Observer, Post
    from twnb.roles import CodeInterpreter


@dataclass
class CodeRequest:
    """Run `code` (the reply of the CodeInterpreter post `post_id`) within `timeout` seconds (None: no
    limit) and send the kernel's `ExecutionResult` back into the driver. Files saved for the user (the
    figures the code displays) are named after `artifact_name` (`round-2-revenue-by-month`).
    `verification` is the verdict the code got (CORRECT, or NONE when verification is off). `risks`
    (risky step mode only) are why the code should wait for the user: each a reason in words (none:
    it may run without asking)."""

    post_id: str
    code: str
    timeout: float | None
    artifact_name: str | None = None
    verification: str = ""
    risks: list[str] = field(default_factory=list)


@dataclass
class PlanRequest:
    """Yielded only by a driver made with `approve_plan=True`, after the Planner's first plan of the Round:
    send back None to approve `steps` as they are, or the list of steps the user made of them."""

    post_id: str
    steps: list[str]


@dataclass
class RefusedEdit:
    """The user's last edit of the code that verification refused (it did not run), and the refusal
    they were shown: kept in the record when they then skip the code or stop the Round."""

    code: str
    refusal: str


def keep_refused_edit(roles: CodeInterpreter, post: Post, refused: RefusedEdit | None) -> None:
    """Step mode: what the user typed is never lost, even when verification refused it to run."""
    if refused is not None:
        roles.record_refused_edit(post, refused.code, refused.refusal)


class StepDecision:
    """What a step-mode driver sends back for a CodeRequest instead of the plain result."""

    ran_users_edit = False  # what ran is the user's edit: risky mode compares the guard with its grades

    def record(self, post: Post, roles: CodeInterpreter, watcher: Observer) -> ExecutionResult | None:
        """Record the decision in the code's post; the result of the code's run (None: it did not run)."""
        raise NotImplementedError

    def after_run(self, post: Post, workdir: Path) -> None:
        """What the decision adds to the post once the run's result is recorded (nothing by default);
        `workdir`: the executor's, where the code's relative paths start."""


@dataclass
class RanAsItWas(StepDecision):
    """The kernel's result of the code as it was (a plain Round, or code that ran without asking)."""

    result: ExecutionResult

    def record(self, post: Post, roles: CodeInterpreter, watcher: Observer) -> ExecutionResult | None:
        return self.result


@dataclass
class Skipped(StepDecision):
    """Sent instead of a result: the user chose not to run the code (`refused_edit`: after
    verification refused their edit of it)."""

    refused_edit: RefusedEdit | None = None

    def record(self, post: Post, roles: CodeInterpreter, watcher: Observer) -> ExecutionResult | None:
        roles.record_skipped(post, watcher)
        keep_refused_edit(roles, post, self.refused_edit)
        return None


@dataclass
class ApprovedRun(StepDecision):
    """Sent instead of a result: the user chose Run on the code as it was, and `result` is what running
    it gave (recorded as the plain result, and the post as approved by the User)."""

    result: ExecutionResult

    def record(self, post: Post, roles: CodeInterpreter, watcher: Observer) -> ExecutionResult | None:
        roles.record_approved(post, watcher)
        return self.result


@dataclass
class EditedRun(StepDecision):
    """Sent instead of a result: the user edited the code to `code`, and `result` is what running it gave."""

    code: str
    result: ExecutionResult
    ran_users_edit = True

    def record(self, post: Post, roles: CodeInterpreter, watcher: Observer) -> ExecutionResult | None:
        roles.record_edit(post, self.code, watcher)
        return self.result


@dataclass
class UndoneRun(StepDecision):
    """Sent instead of a result: the user ran the code (`code`: their edit of it, None: as it was), then
    undid it before the Round went on; `result` is what running it gave, `line` what undo took back.
    The model is told the code ran and was undone, and the Round goes on from the state before it.
    `files_moved` (old path -> new) are the files undo moved out of the way: the post links them there."""

    result: ExecutionResult
    line: str
    code: str | None = None
    files_moved: dict[str, str] = field(default_factory=dict)

    def record(self, post: Post, roles: CodeInterpreter, watcher: Observer) -> ExecutionResult | None:
        if self.code is not None:
            roles.record_edit(post, self.code, watcher)
        return self.result

    def after_run(self, post: Post, workdir: Path) -> None:
        """The post says the user undid this code right after it ran, and so does what the model reads
        of its result, so it goes on from the state before the code; its links follow the files undo
        moved."""
        post.extra["undone_by"] = "User"
        post.extra["undone"] = self.line
        told = f"The user undid this code after it ran; the kernel is back as it was before it. {self.line}"
        for attachment in post.attachment_list:
            if attachment.type.value == "execution_result":
                attachment.content = f"{attachment.content}\n\n{told}".strip()
        post.message = f"{post.message}\n\n{told}".strip()
        relink_post(post, self.files_moved, workdir)


class NeedsApproval(Exception):
    """Thrown into the driver by a risky Round that no one can approve (a batch run: nbclient,
    papermill): the code graded risky was not run, and the Round ends failed saying why it would have
    asked (`risks`) and that approving needs a frontend."""

    def __init__(self, risks: list[str]) -> None:
        self.risks = list(risks)
        super().__init__(
            f"Not run: risky mode would have asked before this code because {'; '.join(self.risks)}; "
            "approving it needs a frontend that draws widgets (JupyterLab or Notebook 7), and this run "
            "has none."
        )


class UserStopped(KeyboardInterrupt):
    """Thrown into the driver when the user pressed Stop: the Round ends interrupted, every post kept
    (`refused_edit`: the user stopped after verification refused their edit of the code)."""

    def __init__(self, refused_edit: RefusedEdit | None = None) -> None:
        super().__init__()
        self.refused_edit = refused_edit


# What the Round driver is sent back for a CodeRequest: the kernel's result of the code run as it was (a
# plain Round; risky step mode's code that ran without asking), or what the user decided in step mode.
CodeDecision: TypeAlias = "ExecutionResult | ApprovedRun | EditedRun | UndoneRun | Skipped"
# ... and for a PlanRequest: None (the plan approved as it was) or the steps the user made of it.
PlanDecision: TypeAlias = "list[str] | None"
