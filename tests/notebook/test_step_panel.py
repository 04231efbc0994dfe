"""Step mode's approval panel inside the live Round widget (real ipywidgets, no frontend needed): the
code waiting for a decision shows once, and an edit verification refused cannot be run."""

from __future__ import annotations

import re
from typing import Any

from nb_fake_clock import FakeClock

from twnb.memory import AttachmentDelta, AttachmentType, PostStarted, RoundStarted
from twnb.notebook.approval_panel import ApprovalPanel
from twnb.notebook.round_view import RoundView

CODE = "waiting_total = 2 + 3\nwaiting_total"
NAME = "waiting_total"  # each time the code is shown highlighted, it is there twice
REFUSAL = "Verification refused the edited code:\nLine 1: import subprocess -> Importing module 'subprocess'"


def _waiting() -> tuple[RoundView, ApprovalPanel]:
    """A Round whose code post has streamed in and now waits in the panel, as step mode shows it."""
    clicks: list[Any] = []
    view = RoundView("Add them up.", clock=FakeClock())
    view.on_event(RoundStarted("round-1", "Add them up."))
    view.on_event(PostStarted("post-2", "CodeInterpreter", "Planner"))
    view.on_event(AttachmentDelta("post-2", "a-1", AttachmentType.reply_type, "python", True))
    view.on_event(AttachmentDelta("post-2", "a-2", AttachmentType.reply_content, CODE, True))
    panel = ApprovalPanel(clicks.append)
    view.add_controls(panel.widget)
    panel.ask_code(CODE, "CORRECT")
    view.hold_code("post-2")
    panel.listen(("run", "edit", "skip", "stop"))  # as step mode does once the panel is in place
    return view, panel


def _shown(widget: Any) -> str:
    """The text of every widget a person sees under `widget` (hidden ones and their children left out)."""
    layout = getattr(widget, "layout", None)
    if layout is not None and layout.display == "none":
        return ""
    parts = [str(getattr(widget, "value", "") or "")] if hasattr(widget, "value") else []
    for output in getattr(widget, "outputs", ()) or ():
        parts.append(str(output.get("data", {}).get("text/plain", "")))
    for child in getattr(widget, "children", ()) or ():
        parts.append(_shown(child))
    return "\n".join(parts)


def _offered(widget: Any) -> list[str]:
    """The buttons a person sees under `widget` and can click, by label."""
    layout = getattr(widget, "layout", None)
    if layout is not None and layout.display == "none":
        return []
    if type(widget).__name__ == "Button":
        return [] if widget.disabled else [widget.description]
    return [label for child in getattr(widget, "children", ()) or () for label in _offered(child)]


def _times_shown(view: RoundView) -> int:
    """How often NAME is shown in highlighted code (a `<pre>` block), not in an editor's raw text."""
    blocks = re.findall(r"<pre\b.*?</pre>", _shown(view.widget), flags=re.DOTALL)
    return sum(re.sub(r"<[^>]+>", "", block).count(NAME) for block in blocks)


def test_while_the_code_waits_it_shows_once_in_the_panel():
    view, panel = _waiting()
    assert _offered(view.widget) == ["Run", "Edit", "Skip", "Stop"]
    assert _times_shown(view) == 2  # the assignment and the last line: one copy of the code
    assert NAME in panel.code.value
    assert NAME not in view._posts["post-2"].attachments_html.value
    assert "waits for your decision" in view._posts["post-2"].attachments_html.value


def test_once_decided_the_code_shows_once_in_its_post():
    view, panel = _waiting()
    panel.lock("Running…")
    view.hold_code(None)
    assert _times_shown(view) == 2
    assert NAME in view._posts["post-2"].attachments_html.value
    assert panel.code.layout.display == "none"


def test_while_editing_the_code_shows_once_in_the_editor():
    view, panel = _waiting()
    panel.start_editing()
    panel.listen(("run", "skip", "stop"))
    shown = _shown(view.widget)
    assert shown.count(CODE) == 1 and _times_shown(view) == 0


def test_a_refused_edit_shows_the_verdict_and_offers_edit_again_skip_and_stop_but_not_run():
    view, panel = _waiting()
    panel.start_editing()
    panel.refuse_edit("import subprocess\n" + CODE, REFUSAL)
    panel.listen(("edit", "skip", "stop"))
    assert "import subprocess -&gt; Importing module" in panel.title.value
    assert _offered(view.widget) == ["Edit again", "Skip", "Stop"]


def test_editing_again_after_a_refusal_starts_from_the_refused_edit_and_offers_run():
    view, panel = _waiting()
    panel.start_editing()
    panel.editor.value = "import subprocess\n" + CODE
    panel.refuse_edit(panel.edited_text(), REFUSAL)
    panel.start_editing()
    panel.listen(("run", "skip", "stop"))
    assert panel.edited_text().startswith("import subprocess")
    assert _offered(view.widget) == ["Run edited", "Skip", "Stop"]


def test_while_the_plan_waits_no_code_button_is_enabled():
    panel = ApprovalPanel(lambda _item: None)
    panel.ask_plan(["Add them up", "Report"])
    panel.listen(("approve", "stop"))
    assert _offered(panel.widget) == ["Approve plan", "Stop"]
    assert all(button.disabled for button in panel.code_row.children)


def test_a_question_shows_its_buttons_disabled_until_the_round_listens():
    panel = ApprovalPanel(lambda _item: None)
    panel.ask_code(CODE, "CORRECT")
    assert _offered(panel.widget) == []
    panel.listen(("run", "skip"))
    assert _offered(panel.widget) == ["Run", "Skip"]


def test_each_question_has_buttons_of_its_own_whose_clicks_name_it():
    clicks: list[Any] = []
    panel = ApprovalPanel(clicks.append)
    panel.ask_code(CODE, "CORRECT")
    first_run = panel.buttons["run"]
    panel.lock("Running…")
    panel.ask_code(CODE, "CORRECT")
    first_run.click()  # a click the browser sent before it learnt the first question was decided
    panel.buttons["run"].click()
    assert clicks == [("run", 1), ("run", 2)]
    assert first_run not in panel.code_row.children and first_run.comm is None  # closed


def test_after_a_run_the_panel_shows_what_the_code_printed_returned_and_raised() -> None:
    """The post sections above are folded while the panel waits for Continue or Undo: the output is
    shown in the panel itself, not left to "its output is in the cell"."""
    from twnb.kernel import ExecutionError, ExecutionResult
    from twnb.notebook.approval_panel import ran_output

    view, panel = _waiting()
    result = ExecutionResult(
        "e-1",
        CODE,
        "error",
        stdout="printed 5\n",
        stderr="a warning\n",
        error=ExecutionError("ZeroDivisionError", "division by zero"),
    )
    panel.ask_after_run("it ended: error", ran_output(result))
    shown = _shown(panel.widget)
    for text in ("printed 5", "a warning", "ZeroDivisionError: division by zero"):
        assert text in shown
    assert "output is in the cell" not in shown
    panel.ask_after_run("it ran", ran_output(ExecutionResult("e-2", CODE, "success", result="5")))
    assert "Out: 5" in _shown(panel.widget)
    view.close()
