"""Step mode (`--step`) with code that awaits at its top level, end to end in a real InteractiveShell:
the cell's coroutine runs on a running event loop as ipykernel runs a step cell, a person clicks the
approval panel's real buttons, the loopback LLM server scripts the model. The approved code is not
started (the loop is busy running the cell): the Round records the one line of advice, takes no undo
snapshot and offers no Continue or Undo for code that never ran, and the next attempt runs."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from nb_shell import magics
from support.nb_scripts import code, planner

from twnb.notebook.step_mode import StepRound
from twnb.notebook.typed_arguments import parse_argstring

# Awaits with nothing verification refuses (a library's coroutine, say polars' `collect_async()`).
AWAITING = "async def compute():\n    return 6 * 7\nstarted = True\nanswer = await compute()"
SYNCHRONOUS = "answer = 6 * 7\nanswer"
TASK = "Compute 6 times 7."
# What the person clicks when the panel offers it.
CLICKS = {"Approve plan": "approve", "Run": "run", "Continue": "continue"}


@pytest.fixture
def llm_shell(shell, fake_llm, monkeypatch, clean_env):
    monkeypatch.setenv("TWNB_MODEL", "fake-model")
    monkeypatch.setenv("OPENAI_BASE_URL", fake_llm.base_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    fake_llm.load(
        {
            "Planner": [
                planner(TASK, send_to="CodeInterpreter", step="1. compute 6 times 7"),
                planner("The answer is 42.", send_to="User", step="2. report", stop="Completed"),
            ],
            "CodeInterpreter": [code(AWAITING), code(SYNCHRONOUS)],
        }
    )
    yield shell
    for name in ("answer", "started"):
        shell.user_ns.pop(name, None)


def _offered(widget: Any) -> list[str]:
    """The buttons a person sees under `widget` and can click, by label."""
    layout = getattr(widget, "layout", None)
    if layout is not None and layout.display == "none":
        return []
    if type(widget).__name__ == "Button":
        return [] if widget.disabled else [widget.description]
    return [label for child in getattr(widget, "children", ()) or () for label in _offered(child)]


async def _person(step: StepRound, seen: list[tuple[str, ...]]) -> None:
    """Waits for the panel to offer buttons, notes what it offered, clicks the one CLICKS names, and
    waits for the panel to lock on that decision (the next may be offered at once)."""
    while not hasattr(step, "panel"):
        await asyncio.sleep(0.01)
    panel = step.panel
    locks: list[str] = []
    lock = panel.lock
    panel.lock = lambda text: (locks.append(text), lock(text))[1]  # type: ignore[method-assign]
    while True:
        offered = tuple(label for label in _offered(panel.widget) if label != "Stop")
        if offered:
            seen.append(offered)
            decided = len(locks)
            panel.buttons[next(CLICKS[label] for label in offered if label in CLICKS)].click()
            while len(locks) == decided:
                await asyncio.sleep(0.01)
        await asyncio.sleep(0.01)


def _step_round(shell: Any) -> tuple[Any, list[tuple[str, ...]]]:
    """The step Round, run as ipykernel runs the rewritten cell (a coroutine on the running loop)."""
    tw = magics(shell)
    args = parse_argstring(tw.taskweaver, "--step")
    seen: list[tuple[str, ...]] = []

    async def the_cell() -> None:
        session = tw.prepare_round(TASK, args)
        step = StepRound(tw, session, TASK, args)
        step.post(("drawn", 1))  # the frontend's handshake: it drew the widget
        person = asyncio.ensure_future(_person(step, seen))
        try:
            async with asyncio.timeout(30):
                await step.run()
        finally:
            person.cancel()

    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(the_cell())
    finally:
        loop.close()
    return tw.notebook.conversation.rounds[-1], seen


def _attempts(round_: Any) -> list[tuple[Any, dict[str, Any]]]:
    return [
        (post, attachment.to_dict()["extra"])
        for post in round_.post_list
        for attachment in post.attachment_list
        if attachment.type.value == "execution_result"
    ]


def test_the_awaiting_code_approved_in_step_mode_is_recorded_with_the_line_of_advice(llm_shell):
    round_, _ = _step_round(llm_shell)
    (first, record), _ = _attempts(round_)
    (line,) = record["error"].splitlines()
    assert line.startswith("TopLevelAwait: Top-level `await` cannot run in a Round")
    assert (record["status"], first.send_to) == ("error", "CodeInterpreter")  # the model revises
    assert "started" not in llm_shell.user_ns


def test_the_awaiting_code_takes_no_undo_snapshot(llm_shell):
    round_, _ = _step_round(llm_shell)
    (first, _), (second, _) = _attempts(round_)
    undo_log = magics(llm_shell).notebook.undo_log
    assert undo_log.get(first.id) is None  # nothing ran: nothing to undo
    assert undo_log.get(second.id) is not None


def test_the_user_approves_the_awaiting_code_and_is_not_asked_to_undo_it(llm_shell):
    round_, seen = _step_round(llm_shell)
    run = ("Run", "Edit", "Skip")
    # the plan, the awaiting code, the next attempt, then Continue or Undo after that one only
    assert seen == [("Approve plan",), run, run, ("Continue", "Undo")]
    assert (round_.state, llm_shell.user_ns["answer"]) == ("finished", 42)
