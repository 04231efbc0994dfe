"""Step mode's controls inside the Round widget: the plan to approve, then each piece of code to run.

Callbacks only post `(action, prompt)` to the Round's event loop (`post`, which uses
`call_soon_threadsafe`): a click may arrive on any thread, and a widget updated from a callback would
route that comm's later messages to another thread. Everything else (reading the edited text,
enabling, hiding) is done by the coroutine that awaits the clicks.

Each question the panel asks (the plan, a piece of code, Continue or Undo after a run) is a prompt
with its own number, and gets buttons of its own (new widget models, the old ones closed), whose
clicks carry that number. A click the browser sent before it learnt that its prompt was decided (the
second click of a double click on Run, a Run clicked just after Skip) then cannot answer the next
prompt, which the person has not seen: the click message names no prompt, but the button model it
comes from does. The buttons are created disabled; `listen` enables the ones the Round will accept
once everything else the prompt changes (the panel's text, the folded notes above, the `twnb-waiting`
class that scrolls it into view) has been sent, so a button never moves after it can be clicked.

Buttons carry CSS classes (`twnb-step-run`, ...) so tests and user scripts can find them.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from functools import cache
from typing import Any

from traitlets import Bool, Unicode

from twnb.notebook.theme_colours import AMBER, GREEN, RED
from twnb.render import clean_text, clip_middle, code_html, preformatted_html

CODE_ACTIONS = ("run", "edit", "skip", "stop")
PLAN_ACTIONS = ("approve", "stop")
RAN_ACTIONS = ("continue", "undo")  # after code the user ran: go on, or take it back first
ROW_ACTIONS = {"plan": PLAN_ACTIONS, "code": CODE_ACTIONS, "ran": RAN_ACTIONS}
LABELS = {
    "run": "Run",
    "edit": "Edit",
    "skip": "Skip",
    "stop": "Stop",
    "approve": "Approve plan",
    "continue": "Continue",
    "undo": "Undo",
}
STYLES = {"run": "success", "approve": "success", "stop": "danger"}
OUTPUT_LIMIT = 2000  # characters of the run's output the panel shows (the middle is cut)


def ran_output(result: Any) -> str:
    """What the code the user ran printed, returned and raised (an ExecutionResult's text), as the
    panel shows it before Continue or Undo."""
    parts = [str(getattr(result, "stdout", "") or ""), str(getattr(result, "stderr", "") or "")]
    value = getattr(result, "result", None)
    if value:
        parts.append(f"Out: {value}")
    error = getattr(result, "error", None)
    if error is not None:
        parts.append(f"{getattr(error, 'ename', 'Error')}: {getattr(error, 'evalue', '')}")
    return clean_text("\n".join(part.rstrip("\n") for part in parts if part.strip()))


def why_it_waits(risks: list[str]) -> str:
    """Risky step mode's reasons, as the panel shows them above the code."""
    if not risks:
        return ""
    items = "".join(f"<li>{html.escape(reason)}</li>" for reason in risks)
    return (
        f'<div class="twnb-step-why" style="color:{AMBER};margin:2px 0">Paused because:'
        f'<ul style="margin:0">{items}</ul></div>'
    )


@cache
def _editor_class() -> Any:
    """A Textarea whose text reaches the kernel, whole, before the click that uses it.

    `continuous_update=False`: the browser sends the text when the box loses focus, which pressing a
    button does before its click is sent, so the kernel handles the text first (typed key by key, each
    key's update would be held in ipywidgets' throttle while the previous one waits for its `idle`, and
    the last could arrive after the click). No echo of the value: the echo is sent under the frontend's
    message, and ipykernel 7.4 then routes this comm's later messages to that message's subshell
    thread, out of order with the clicks the main thread handles (comm_status.py has the rest).
    """
    import ipywidgets as w  # lazy: ipywidgets (~40 modules, ~80 ms), with a widget front end only

    class StepEditor(w.Textarea):  # type: ignore[misc]
        value = Unicode(help="String value").tag(sync=True, echo_update=False)
        continuous_update = Bool(False).tag(sync=True)

    return StepEditor


class ApprovalPanel:
    """`ask_plan` / `ask_code` / `ask_after_run` show what waits for a decision, with new buttons, still
    disabled; `listen` enables those the Round accepts; `lock` disables them while the decision is
    carried out; `close_panel` hides the panel when the Round ends."""

    def __init__(self, post: Callable[[tuple[str, Any]], None]) -> None:
        import ipywidgets as w  # lazy: ipywidgets (~40 modules, ~80 ms), with a widget front end only

        self._w = w
        self._post = post
        self.prompt = 0  # the number of the question the panel asks now (0: none yet)
        self.title = w.HTML()
        self.code = w.HTML()
        editor = _editor_class()
        self.editor = editor(layout=w.Layout(width="100%", height="10em", display="none"))
        self.editor.add_class("twnb-step-editor")
        self.plan_editor = editor(layout=w.Layout(width="100%", height="8em", display="none"))
        self.plan_editor.add_class("twnb-step-plan")
        self.rows = {mode: w.HBox(layout=w.Layout(display="none")) for mode in ROW_ACTIONS}
        self.plan_row, self.code_row, self.ran_row = self.rows["plan"], self.rows["code"], self.rows["ran"]
        self.buttons: dict[str, Any] = {}  # the buttons of the prompt asked now, by action
        self.widget = w.VBox(
            [
                self.title,
                self.plan_editor,
                self.plan_row,
                self.code,
                self.editor,
                self.code_row,
                self.ran_row,
            ],
            layout=w.Layout(border="1px solid #9a6700", padding="4px 8px", display="none"),
        )
        for row in self.rows.values():
            row.add_class("twnb-step-buttons")  # sticky (the extension's CSS): in view whatever the length
        self.widget.add_class("twnb-step-panel")

    def _new_prompt(self, mode: str) -> None:
        """A new question: its row gets new buttons, disabled until `listen`, whose clicks carry its
        number; the previous buttons of that row are closed (layouts and styles too: a frontend keeps
        a model per open widget)."""
        self.prompt += 1
        row = self.rows[mode]
        old = row.children
        self.buttons = {action: self._button(action, mode, self.prompt) for action in ROW_ACTIONS[mode]}
        row.children = tuple(self.buttons.values())
        for button in old:
            for widget in (button, button.layout, button.style):
                widget.close()

    def _button(self, action: str, mode: str, prompt: int) -> Any:
        style = STYLES.get(action, "")
        button = self._w.Button(description=LABELS[action], button_style=style, disabled=True)
        stop_plan = (mode, action) == ("plan", "stop")
        button.add_class("twnb-step-stop-plan" if stop_plan else f"twnb-step-{action}")
        post = self._post
        button.on_click(lambda _button: post((action, prompt)))
        return button

    # --- what waits for a decision -----------------------------------------------------------------

    def ask_plan(self, steps: list[str]) -> None:
        self._new_prompt("plan")
        self.title.value = (
            "<b>Approve the plan</b> <small>one step per line: change, add, remove or reorder lines, "
            "then Approve plan (or Stop)</small>"
        )
        self.plan_editor.value = "\n".join(steps)
        self._show(plan=True, code=False)

    def ask_code(self, code: str, verdict: str, risks: list[str] | None = None) -> None:
        """`risks`: risky step mode's reasons this code waits (shown above it, one per line)."""
        self._new_prompt("code")
        checked = {
            "CORRECT": f'<span style="color:{GREEN}">verified</span>',
            "NONE": f'<span style="color:{AMBER}">not verified (verification is off)</span>',
        }.get(verdict, html.escape(verdict or "not verified"))
        self.title.value = f"<b>Run this code?</b> <small>{checked}</small>" + why_it_waits(risks or [])
        self.code.value = f"<div>{code_html(code)}</div>"
        self.editor.value = code
        self.editor.layout.display = "none"
        self._show(plan=False, code=True)

    def ask_after_run(self, status: str, output: str = "") -> None:
        """The code the user approved ran (`status`: how it ended; `output`: what it printed, returned
        or raised, shown here: the post sections above are folded while the panel waits): Continue, or
        Undo it before the Round goes on."""
        self._new_prompt("ran")
        shown = (
            preformatted_html(clip_middle(output, OUTPUT_LIMIT), style="max-height:16em;overflow:auto")
            if output
            else "<div><small><i>It printed nothing.</i></small></div>"
        )
        self.title.value = (
            f"<b>The code ran</b> <small>({html.escape(status)})</small> "
            "<small>Continue, or Undo it: its variables and files go back as they were before it, and "
            f'the model is told</small><div class="twnb-step-output">{shown}</div>'
        )
        self._show(plan=False, code=False)
        self.ran_row.layout.display = ""

    def listen(self, allowed: tuple[str, ...]) -> int:
        """The Round waits for one of `allowed` now: enable those buttons of the prompt asked (the last
        change the prompt makes, so nothing moves a button once it can be clicked), disable the rest;
        the prompt's number, which their clicks carry."""
        for action, button in self.buttons.items():
            shown = button.layout.display != "none"
            button.disabled = not (shown and action in allowed)
        return self.prompt

    def start_editing(self) -> None:
        """The code shows in the editor; Run runs the edit (enabled by `listen`, as every button)."""
        self.buttons["edit"].disabled = True
        self.editor.layout.display = ""
        self.code.layout.display = "none"
        self.buttons["run"].description = "Run edited"
        self.buttons["run"].layout.display = ""

    def refuse_edit(self, code: str, refusal: str) -> None:
        """Verification refused the edited code: show it with the verdict, offer Edit again, Skip and
        Stop (not Run). The editor keeps the edit, so editing again starts from it."""
        self.title.value = (
            f'<b style="color:{RED}">The edited code was not run</b> <small>change it, skip it or '
            'stop</small><pre class="twnb-step-verdict" style="white-space:pre-wrap;margin:0;'
            f'color:{RED}">{html.escape(refusal)}</pre>'
        )
        self.buttons["run"].disabled = True
        self.code.value = f"<div>{code_html(code)}</div>"
        self.code.layout.display = ""
        self.editor.layout.display = "none"
        self.buttons["run"].layout.display = "none"
        self.buttons["edit"].description = "Edit again"

    def edited_text(self) -> str:
        return str(self.editor.value)

    def edited_steps(self) -> list[str]:
        return [line.strip() for line in str(self.plan_editor.value).splitlines() if line.strip()]

    # --- between decisions ---------------------------------------------------------------------------

    def lock(self, text: str) -> None:
        """The decision is made: the code leaves the panel (the Round's post shows it from now on)."""
        self.disable()
        self.title.value = f"<small><i>{html.escape(text)}</i></small>"
        self._show(plan=False, code=False)

    def close_panel(self) -> None:
        self.disable()
        self.widget.layout.display = "none"

    def _show(self, *, plan: bool, code: bool) -> None:
        self.widget.layout.display = ""
        self.plan_editor.layout.display = "" if plan else "none"
        self.plan_row.layout.display = "" if plan else "none"
        self.code.layout.display = "" if code else "none"
        self.code_row.layout.display = "" if code else "none"
        if not code:
            self.editor.layout.display = "none"
        self.ran_row.layout.display = "none"

    def disable(self) -> None:
        """No button can be clicked (the decision is taken: what follows may move them)."""
        for button in self.buttons.values():
            button.disabled = True
