"""Step mode's decision on a piece of code when verification refuses the user's edit: the clicks go
into a real StepRound's inbox (as the panel's buttons post them), its real approval panel and a real
session decide, no frontend needed. A Skip or Stop after the refusal carries the edit along."""

from __future__ import annotations

import asyncio
import concurrent.futures

from support.session_script import one_step

from twnb.memory.events import NullObserver
from twnb.notebook.approval_panel import ApprovalPanel
from twnb.notebook.step_mode import StepRound
from twnb.session.code_request import CodeRequest, RefusedEdit, Skipped, UserStopped

REFUSED = "import subprocess\nnever = 2"


def _decided(session, clicks: list[str]):
    """What `_decide_code` returns for the model's `never = 1` after `clicks`, the editor holding
    REFUSED once the user edits."""

    async def decide():
        step = StepRound(magics=None, session=session, query="Set it", args=None)
        step.panel, step.observer = ApprovalPanel(step.post), NullObserver()
        request = CodeRequest("post-1", "never = 1", None, verification="CORRECT")
        step.panel.ask_code(request.code, request.verification)
        step.panel.editor.value = REFUSED
        for click in clicks:  # as the panel's buttons post them: the click names its prompt
            step.inbox.put_nowait((click, step.panel.prompt))
        return await step._decide_code(request)

    # On a thread of its own: the browser tests' Playwright, earlier in the same process, leaves an
    # event loop marked running on the main thread, where asyncio.run refuses to start another.
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, decide()).result()


def test_skip_after_a_refused_edit_carries_the_edit_and_the_refusal_the_user_saw(make_session):
    session = make_session(one_step("never = 1"))
    decided = _decided(session, ["edit", "run", "skip"])
    assert decided == Skipped(RefusedEdit(REFUSED, session.check_edit(REFUSED)))


def test_stop_after_a_refused_edit_carries_the_edit(make_session):
    session = make_session(one_step("never = 1"))
    decided = _decided(session, ["edit", "run", "stop"])
    assert isinstance(decided, UserStopped) and decided.refused_edit is not None
    assert decided.refused_edit.code == REFUSED


def test_a_plain_skip_carries_no_edit(make_session):
    assert _decided(make_session(one_step("never = 1")), ["skip"]) == Skipped()
