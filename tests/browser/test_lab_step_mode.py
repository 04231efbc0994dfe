"""Step mode in JupyterLab with real clicks: the plan and each piece of code wait for the user."""

from __future__ import annotations

import re

import pytest
from kernel_gate import HoldAfterEnabled
from notebook_page import (
    ERROR_OUTPUT,
    KERNEL_TIMEOUT_MS,
    ROUND_TIMEOUT_MS,
    add_cell_below_and_run,
    code_cells,
    expect_wholly_shown,
    open_notebook,
    outputs,
    reopen_in_lab,
    round_cells,
    run_all_cells,
    save_ended_rounds,
    shut_down_kernel,
    wait_until_ran,
)
from playwright.sync_api import expect
from round_scripts import STARTED_MARKER
from screenshot_files import screenshot_path
from step_scripts import (
    EDITED_CODE,
    EDITED_STEPS,
    NEXT_CELL,
    REFUSED_EDIT,
    SLOW_PLAN_REASONING,
    SLOW_THOUGHT,
    STEP_CODE,
    edited_plan_script,
    slow_code_reply_script,
    slow_planner_script,
    slow_step_script,
    step_notebook,
    step_script,
)
from test_lab_live_rounds import INTERRUPT_BUTTON, _wait_for_file

from twnb.render import MIME_TYPE
from twnb.session.conversation_store import load_conversation_file

INTERRUPTED_LINE = re.compile(r"^Cells below not run: This Round was interrupted")  # the one error line
LIVE_WIDGET = ".jupyter-widgets"  # what ipywidgets draws (the live Round, step mode's panel)
# Notes in `window.twnbEnabled`, for each step-mode button the moment it becomes clickable (its
# `disabled` attribute removed, or drawn enabled), its class, whether its panel waited then, and where
# it was (its top in the window).
JS_RECORD_ENABLED = """() => {
  window.twnbEnabled = [];
  const stepClass = button => [...button.classList].find(name => name.startsWith('twnb-step-'));
  const note = button => {
    const panel = button.closest('.twnb-step-panel');
    const waiting = !!panel && panel.classList.contains('twnb-waiting');
    window.twnbEnabled.push([stepClass(button), waiting, button.getBoundingClientRect().top]);
  };
  new MutationObserver(records => {
    for (const record of records) {
      if (record.type === 'attributes') {
        const button = record.target;
        if (stepClass(button) && !button.disabled && record.oldValue !== null) note(button);
        continue;
      }
      for (const node of record.addedNodes) {
        if (!(node instanceof Element)) continue;
        const buttons = [...(node.matches('button') ? [node] : []), ...node.querySelectorAll('button')];
        buttons.filter(button => stepClass(button) && !button.disabled).forEach(note);
      }
    }
  }).observe(document.body, {
    subtree: true, childList: true, attributes: true, attributeFilter: ['disabled'], attributeOldValue: true,
  });
}"""


def _start(lab, browser_context, module_llm, name, script, *after):
    module_llm.load(script)
    lab.write_notebook(name, step_notebook(*after))
    page = browser_context.new_page()
    open_notebook(page, lab.server.notebook_url(name))
    run_all_cells(page)
    return page, round_cells(page).first


def _click(page, action):
    button = page.locator(f".twnb-step-{action}")
    expect(button).to_be_enabled(timeout=ROUND_TIMEOUT_MS)
    button.click()


def _approve_plan(page):
    _click(page, "approve")


def _saved_round(lab):
    return load_conversation_file(max((lab.root / ".twnb").glob("*/rounds/*.yaml"))).rounds[-1]


def _saved_code_post(lab):
    posts = [p for p in _saved_round(lab).post_list if p.send_from == "CodeInterpreter"]
    return posts[-1]


def _printed(cell, text):
    """The cell's stdout outputs starting with `text` (the Round's own display quotes the code)."""
    stdout = cell.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stdout"]')
    return stdout.filter(has_text=re.compile("^" + re.escape(text)))


def _attachment(post, kind):
    return next(str(a.content) for a in post.attachment_list if a.type.value == kind)


def _saved_views(lab, name):
    """The saved notebook's Round output, its static views and the Round JSON."""
    for cell in lab.server.saved_notebook(name)["cells"]:
        for output in cell.get("outputs", []):
            if MIME_TYPE in output.get("data", {}):
                return output["data"]
    raise AssertionError(f"{name} holds no Round output")


def test_run_runs_the_code_in_the_cell_and_a_queued_cell_runs_after_the_round(
    lab, browser_context, module_llm
):
    """... and the saved notebook, reopened, says the user approved the plan and ran the code."""
    name = "step-run.ipynb"
    page, cell = _start(lab, browser_context, module_llm, name, step_script(), NEXT_CELL)
    expect(page.locator(".twnb-step-approve")).to_be_enabled(timeout=ROUND_TIMEOUT_MS)
    panel = page.locator(".twnb-step-panel.twnb-waiting")
    expect_wholly_shown(panel)  # 1280x900: scrolled to, the notes above it folded
    notes = cell.get_by_text("planner notes")
    assert notes.count() > 0 and not any(note.is_visible() for note in notes.all())
    page.screenshot(path=str(screenshot_path("lab-step-plan-waiting")))
    _approve_plan(page)
    expect(page.locator(".twnb-step-run")).to_be_enabled(timeout=ROUND_TIMEOUT_MS)
    expect_wholly_shown(page.locator(".twnb-step-panel.twnb-waiting"))
    next_cell = code_cells(page).nth(2)
    expect(next_cell.locator(".jp-InputPrompt")).to_have_text("[*]:")  # queued behind the Round
    page.screenshot(path=str(screenshot_path("lab-step-waiting")), full_page=True)
    _click(page, "run")
    _click(page, "continue")  # keep what the code did: the Round goes on
    wait_until_ran(cell)
    expect(_printed(cell, "step code ran 10")).to_have_count(1)
    expect(outputs(cell).first).to_contain_text(re.compile(r"\bfinished\b"))
    wait_until_ran(next_cell)
    expect(outputs(next_cell)).to_have_text(["next cell sees 10"])
    cell.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_path("lab-step-ran")), full_page=True)
    save_ended_rounds(page, lab.server, name, 1)
    views = _saved_views(lab, name)
    for view in ("text/html", "text/markdown", "text/plain"):
        assert "You approved this plan" in views[view] and "You ran this code" in views[view], view
    shut_down_kernel(page)
    reopen_in_lab(page, name)
    shown = round_cells(page).first.locator(".jp-OutputArea")  # the extension's view, or the HTML
    expect(shown).to_contain_text("You approved this plan")
    expect(shown).to_contain_text("You ran this code")
    page.screenshot(path=str(screenshot_path("lab-step-ran-reopened")), full_page=True)
    page.close()


def test_each_button_becomes_clickable_only_once_its_panel_waits_in_place(lab, browser_context, module_llm):
    """A button that moves after it can be clicked takes the mouse-down and loses the mouse-up, and
    no click is sent (a Continue click under load once took focus and did nothing): each button is
    enabled only once its panel waits, the notes above folded and the panel scrolled into view, and is
    where it was then when the person clicks it (the old panel's Continue moved up ~540 px after)."""
    name = "step-clicks.ipynb"
    module_llm.load(step_script())
    lab.write_notebook(name, step_notebook())
    page = browser_context.new_page()
    open_notebook(page, lab.server.notebook_url(name))
    page.evaluate(JS_RECORD_ENABLED)
    run_all_cells(page)
    moved = {}
    for action in ("approve", "run", "continue"):
        button = page.locator(f".twnb-step-{action}")
        expect(button).to_be_enabled(timeout=ROUND_TIMEOUT_MS)
        notes = page.evaluate("() => window.twnbEnabled")
        tops = [top for css, _, top in notes if css == f"twnb-step-{action}"]
        box = button.bounding_box()
        assert box is not None
        moved[action] = round(abs(box["y"] - tops[-1]))
        button.click()
    wait_until_ran(round_cells(page).first)
    enabled = page.evaluate("() => window.twnbEnabled")
    assert [css for css, waiting, _ in enabled if not waiting] == []
    assert {"twnb-step-approve", "twnb-step-run", "twnb-step-continue"} <= {css for css, _, _ in enabled}
    assert moved == {"approve": 0, "run": 0, "continue": 0}
    page.close()


def test_continue_pressed_the_moment_it_is_enabled_is_not_lost_on_a_slow_page(
    lab, browser_context, module_llm
):
    """The failure once seen under load, made exact: the person presses Continue as soon as it can be
    clicked, the page then handles the kernel's next messages, and the person lets go. On the old panel
    the notes above then folded, Continue moved up and the mouse-up landed elsewhere: the button took
    focus, no click was sent and the Round waited for good."""
    name = "step-slow-page.ipynb"
    module_llm.load(step_script())
    lab.write_notebook(name, step_notebook())
    page = browser_context.new_page()
    gate = HoldAfterEnabled(page, "twnb-step-continue")
    try:
        open_notebook(page, lab.server.notebook_url(name))
        run_all_cells(page)
        _click(page, "approve")
        _click(page, "run")
        button = page.locator(".twnb-step-continue")
        expect(button).to_be_enabled(timeout=ROUND_TIMEOUT_MS)  # what follows its enabling is held
        assert gate.closed
        button.scroll_into_view_if_needed()
        box = button.bounding_box()
        assert box is not None
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        gate.release()  # the page handles the rest while the button is pressed
        expect(page.locator(".twnb-step-panel.twnb-waiting")).to_have_count(1)
        page.evaluate("() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(done)))")
        page.mouse.up()
        wait_until_ran(round_cells(page).first, timeout_ms=60_000)
    finally:
        gate.release()
    expect(_printed(round_cells(page).first, "step code ran 10")).to_have_count(1)
    page.close()


def test_undo_after_the_code_ran_takes_it_back_before_the_round_goes_on(lab, browser_context, module_llm):
    """... the queued cell then finds no `step_total`, and the saved Round says the user undid the code."""
    name = "step-undo.ipynb"
    check = "print('after undo:', 'step_total' in dir())"
    page, cell = _start(lab, browser_context, module_llm, name, step_script(), check)
    _approve_plan(page)
    _click(page, "run")
    expect(page.locator(".twnb-step-undo")).to_be_enabled(timeout=ROUND_TIMEOUT_MS)
    expect(page.locator(".twnb-step-continue")).to_be_enabled()
    expect(page.locator(".twnb-step-run")).to_be_hidden()
    expect(_printed(cell, "step code ran 10")).to_have_count(1)  # it ran; the model has not seen it yet
    expect_wholly_shown(page.locator(".twnb-step-panel.twnb-waiting"))
    page.screenshot(path=str(screenshot_path("lab-step-undo-offered")), full_page=True)
    _click(page, "undo")
    wait_until_ran(cell)
    expect(outputs(cell).first).to_contain_text("You undid this code after it ran")
    next_cell = code_cells(page).nth(2)
    wait_until_ran(next_cell)
    expect(outputs(next_cell)).to_have_text(["after undo: False"])
    post = _saved_code_post(lab)
    assert post.extra["undone_by"] == "User"
    assert post.extra["undone"] == "Undone by the user: removed step_total."
    planner_calls = [r for r in module_llm.chat_requests() if r["role"] == "Planner"]
    assert "The user undid this code after it ran" in str(
        planner_calls[-1]["body"]["messages"][-1]["content"]
    )
    page.close()


def test_undo_greys_the_rounds_own_output_where_it_ran(lab, browser_context, module_llm, labextension_bundle):
    """`%taskweaver undo` below a Round: its output, drawn by the extension, turns grey under the line."""
    from round_scripts import notebook_of
    from step_scripts import STEP_REQUEST

    module_llm.load(step_script())
    name = "undo-greys.ipynb"
    lab.write_notebook(
        name, notebook_of("%load_ext twnb", f"%%taskweaver\n{STEP_REQUEST}", "%taskweaver undo")
    )
    page = browser_context.new_page()
    open_notebook(page, lab.server.notebook_url(name))
    run_all_cells(page)
    undo_cell = code_cells(page).nth(2)
    wait_until_ran(undo_cell)
    expect(outputs(undo_cell).first).to_have_text("Round 1: Undone by the user: removed step_total.")
    # an undone Round was steered: the cell then offers to remember it (issue 39), nothing else
    expect(outputs(undo_cell)).to_have_count(2)
    expect(outputs(undo_cell).nth(1)).to_contain_text("%taskweaver remember 1")
    undone = round_cells(page).first.locator(".twnb-round.twnb-undone")
    expect(undone).to_have_count(1, timeout=ROUND_TIMEOUT_MS)
    expect(undone.locator(".twnb-undone-line")).to_have_text("Undone by the user: removed step_total.")
    round_cells(page).first.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_path("lab-round-undone")), full_page=True)
    page.close()


def test_edit_runs_and_saves_the_edited_code(lab, browser_context, module_llm):
    page, cell = _start(lab, browser_context, module_llm, "step-edit.ipynb", step_script())
    _approve_plan(page)
    _click(page, "edit")
    page.locator(".twnb-step-editor textarea").fill(EDITED_CODE)
    page.screenshot(path=str(screenshot_path("lab-step-editing")), full_page=True)
    _click(page, "run")
    _click(page, "continue")
    wait_until_ran(cell)
    expect(_printed(cell, "edited code ran 30")).to_have_count(1)
    post = _saved_code_post(lab)
    assert _attachment(post, "reply_content") == EDITED_CODE
    assert post.extra["edited_from"] == STEP_CODE
    assert "edited" in post.message
    page.close()


def test_skip_records_that_the_user_skipped_and_runs_nothing(lab, browser_context, module_llm):
    page, cell = _start(lab, browser_context, module_llm, "step-skip.ipynb", step_script())
    _approve_plan(page)
    _click(page, "skip")
    wait_until_ran(cell)
    expect(outputs(cell).first).to_contain_text(re.compile(r"\bfinished\b"))
    expect(_printed(cell, "step code ran")).to_have_count(0)
    post = _saved_code_post(lab)
    assert _attachment(post, "execution_status") == "NONE"
    assert "skipped by the user" in _attachment(post, "execution_result").lower()
    page.close()


def test_stop_ends_the_round_interrupted_without_running_the_code(lab, browser_context, module_llm):
    page, cell = _start(lab, browser_context, module_llm, "step-stop.ipynb", step_script())
    _approve_plan(page)
    _click(page, "stop")
    wait_until_ran(cell)
    expect(outputs(cell).first).to_contain_text(re.compile(r"\binterrupted\b"))
    expect(_printed(cell, "step code ran")).to_have_count(0)
    assert "user stopped" in _attachment(_saved_code_post(lab), "execution_result")
    page.close()


def test_stop_ends_the_cell_as_interrupt_does_and_the_queued_cells_do_not_run(
    lab, browser_context, module_llm
):
    page, cell = _start(lab, browser_context, module_llm, "step-stop-queued.ipynb", step_script(), NEXT_CELL)
    _approve_plan(page)
    _click(page, "stop")
    wait_until_ran(cell)
    next_cell = code_cells(page).nth(2)
    expect(next_cell.locator(".jp-InputPrompt")).to_have_text("[ ]:", timeout=KERNEL_TIMEOUT_MS)
    expect(outputs(next_cell)).to_have_count(0)  # never ran: no NameError on the code that did not
    expect(outputs(cell).first).to_contain_text("Cells below not run: You stopped this Round")
    expect(cell.locator(ERROR_OUTPUT)).to_have_text(re.compile(r"^Cells below not run: You stopped"))
    cell.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_path("lab-step-stopped-queued")), full_page=True)
    page.close()


def test_interrupt_stops_approved_code_and_ends_the_round(lab, browser_context, module_llm):
    page, cell = _start(lab, browser_context, module_llm, "step-interrupt.ipynb", slow_step_script())
    _approve_plan(page)
    _click(page, "run")
    _wait_for_file(lab.root / STARTED_MARKER, ROUND_TIMEOUT_MS / 1000)
    (lab.root / STARTED_MARKER).unlink()
    page.locator(INTERRUPT_BUTTON).click()
    wait_until_ran(cell, 60_000)
    expect(outputs(cell).first).to_contain_text(re.compile(r"\binterrupted\b"))
    new_cell = add_cell_below_and_run(page, code_cells(page).last, "1+1")
    wait_until_ran(new_cell, KERNEL_TIMEOUT_MS)
    expect(outputs(new_cell)).to_have_text(["2"])
    page.close()


def test_an_edited_plan_is_what_the_planner_continues_with(lab, browser_context, module_llm):
    before = len(module_llm.chat_requests())
    page, cell = _start(lab, browser_context, module_llm, "step-plan.ipynb", edited_plan_script())
    expect(page.locator(".twnb-step-approve")).to_be_enabled(timeout=ROUND_TIMEOUT_MS)
    page.locator(".twnb-step-plan textarea").fill("\n".join(EDITED_STEPS))
    page.screenshot(path=str(screenshot_path("lab-step-plan-edited")), full_page=True)
    _approve_plan(page)
    _click(page, "run")
    _click(page, "continue")
    wait_until_ran(cell)
    expect(_printed(cell, "edited code ran 30")).to_have_count(1)
    planner_calls = [r for r in module_llm.chat_requests()[before:] if r["role"] == "Planner"]
    last_user = planner_calls[1]["body"]["messages"][-1]["content"]
    assert "1. Multiply 2, 3 and 5" in str(last_user)
    page.close()


def test_while_the_code_waits_for_a_click_the_round_says_so(lab, browser_context, module_llm):
    page, cell = _start(lab, browser_context, module_llm, "step-waiting.ipynb", step_script())
    _approve_plan(page)
    expect(page.locator(".twnb-step-run")).to_be_enabled(timeout=ROUND_TIMEOUT_MS)
    expect(cell).to_contain_text("waiting for your approval: Run, Edit, Skip or Stop")
    expect(cell).not_to_contain_text("running code")
    expect(cell).to_contain_text("the code waits for your decision below")
    assert cell.inner_text().count("print('step code ran', step_total)") == 1  # the code shows once
    _click(page, "stop")
    wait_until_ran(cell)
    page.close()


def test_an_edit_verification_refuses_shows_the_verdict_and_does_not_run(lab, browser_context, module_llm):
    """... and a skip then holds back the queued cell; the saved Round, reopened, shows all of it."""
    name = "step-refused.ipynb"
    page, cell = _start(lab, browser_context, module_llm, name, step_script(), "print('subprocess' in dir())")
    _approve_plan(page)
    _click(page, "edit")
    page.locator(".twnb-step-editor textarea").fill(REFUSED_EDIT)
    _click(page, "run")
    verdict = page.locator(".twnb-step-verdict")
    expect(verdict).to_contain_text("import subprocess", timeout=ROUND_TIMEOUT_MS)
    expect(verdict).to_contain_text("not allowed")
    expect(page.locator(".twnb-step-run")).to_be_hidden()
    expect(page.locator(".twnb-step-edit")).to_have_text("Edit again")
    expect(page.locator(".twnb-step-edit")).to_be_enabled()
    page.screenshot(path=str(screenshot_path("lab-step-edit-refused")), full_page=True)
    _click(page, "skip")
    wait_until_ran(cell)
    expect(_printed(cell, "edited code ran")).to_have_count(0)
    check = code_cells(page).nth(2)  # queued behind the Round: held back, since code was skipped
    expect(check.locator(".jp-InputPrompt")).to_have_text("[ ]:", timeout=KERNEL_TIMEOUT_MS)
    expect(outputs(check)).to_have_count(0)
    expect(outputs(cell).first).to_contain_text("Cells below not run: You skipped code in this Round")
    post = _saved_code_post(lab)
    assert _attachment(post, "reply_content") == STEP_CODE
    assert _attachment(post, "execution_status") == "NONE"
    save_ended_rounds(page, lab.server, name, 1)
    shut_down_kernel(page)
    reopen_in_lab(page, name)
    shown = round_cells(page).first.locator(".twnb-round")  # the extension's view of the saved Round
    main = shown.locator(".twnb-code-section")
    expect(main).to_contain_text("You skipped this code after verification refused your edit.")
    expect(main.locator(".twnb-refused-edit")).to_contain_text("import subprocess")
    expect(main.locator(".twnb-refused-edit .twnb-error")).to_contain_text("not allowed")
    expect(main.locator(".twnb-outcome")).to_have_text("not run")
    expect(shown.locator(".twnb-note-held_back_cells")).to_contain_text("You skipped code in this Round")
    round_cells(page).first.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_path("lab-step-refused-skipped-reopened")), full_page=True)
    page.close()


@pytest.mark.parametrize(
    ("role", "script", "streamed"),
    [
        ("Planner", slow_planner_script, SLOW_PLAN_REASONING),
        ("CodeInterpreter", slow_code_reply_script, SLOW_THOUGHT),
    ],
)
def test_interrupt_during_the_llm_call_ends_the_round_interrupted_and_holds_back_the_next_cell(
    lab, browser_context, module_llm, role, script, streamed
):
    """As the toolbar's Interrupt ends a plain cell (test_lab_interrupt_queue.py): the queued cell does
    not run, and the cell says why in one line, with no traceback."""
    name = f"step-interrupt-{role.lower()}.ipynb"
    page, cell = _start(lab, browser_context, module_llm, name, script(), "print('the next cell ran')")
    if role == "CodeInterpreter":
        _approve_plan(page)
    expect(cell).to_contain_text(streamed, timeout=ROUND_TIMEOUT_MS)  # the reply is streaming
    expect(cell).to_contain_text(f"{role}: calling the LLM")
    expect(cell.locator(LIVE_WIDGET)).not_to_have_count(0)
    page.locator(INTERRUPT_BUTTON).click()
    wait_until_ran(cell, 60_000)
    expect(outputs(cell).first).to_contain_text(re.compile(r"\binterrupted\b"))
    expect(cell.locator(LIVE_WIDGET)).to_have_count(0)  # the widget gave way to the static Round
    expect(cell.locator(ERROR_OUTPUT)).to_have_text(INTERRUPTED_LINE)
    expect(cell).not_to_contain_text("Traceback")
    next_cell = code_cells(page).nth(2)
    expect(next_cell.locator(".jp-InputPrompt")).to_have_text("[ ]:", timeout=KERNEL_TIMEOUT_MS)
    expect(outputs(next_cell)).to_have_count(0)
    cell.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_path(f"lab-step-interrupted-{role.lower()}")), full_page=True)
    last = _saved_round(lab).post_list[-1]
    assert last.send_from == role and last.extra.get("incomplete")  # the reply was cut off mid-stream
    page.close()
