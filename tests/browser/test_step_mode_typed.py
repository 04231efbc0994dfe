"""Step mode typed at a person's pace: what is on screen when Approve or Run is clicked is what runs,
what the Round records and what the model is told, in JupyterLab and in Notebook 7.

Each box is typed key by key (150 ms a key, with a 2 s pause half way) and the button is clicked at
once after the last key, as a person does; one edit is pasted (one input event). After the run the
panel shows what the code printed, in view, before Continue. Before the fix the
kernel saw the first key only: ipywidgets' frontend holds a widget's next update until the kernel says
`idle` for the previous one, which ipykernel 7.4 does not say for a comm message handled while an async
cell awaits (twnb/notebook/comm_status.py)."""

from __future__ import annotations

from notebook_page import (
    ROUND_TIMEOUT_MS,
    expect_wholly_shown,
    open_notebook,
    round_cells,
    run_all_cells,
    wait_until_ran,
)
from playwright.sync_api import expect
from screenshot_files import screenshot_path
from step_scripts import edited_plan_script, step_notebook
from test_lab_step_mode import _attachment, _click, _printed

from twnb.session.conversation_store import load_conversation_file

KEY_DELAY_MS = 150  # a person's typing
PAUSE_MS = 2000  # a person's pause, mid-edit: the kernel is idle-awaiting meanwhile
TYPED_STEPS = ["Multiply 6 and 7", "Report the product"]
REFUSED_MARKER = "typed-refused-ran.txt"
TYPED_REFUSED = f"import subprocess\nopen('{REFUSED_MARKER}', 'w').write('ran')"
TYPED_CODE = "typed_total = 6 * 7\nprint('typed code ran', typed_total)"
PASTED_CODE = "pasted_total = 6 * 8\nprint('pasted code ran', pasted_total)"


def _type(page, box, text):
    """Select what the box holds, delete it and type `text` with the keyboard, pausing half way; then
    the box must show all of it (what a person sees before clicking)."""
    box.select_text()
    page.keyboard.press("Backspace")
    half = len(text) // 2
    box.press_sequentially(text[:half], delay=KEY_DELAY_MS)
    page.wait_for_timeout(PAUSE_MS)
    box.press_sequentially(text[half:], delay=KEY_DELAY_MS)
    assert box.input_value() == text


def _paste(page, box, text):
    box.select_text()
    page.keyboard.press("Backspace")
    page.keyboard.insert_text(text)  # one input event, as a paste
    assert box.input_value() == text


def _posts(root, role):
    rounds = load_conversation_file(max((root / ".twnb").glob("*/rounds/*.yaml"))).rounds
    return [post for post in rounds[-1].post_list if post.send_from == role]


def _type_plan_and_code(frontend, page, module_llm, before, *, paste_second: bool):
    """Type the plan, approve; Edit, type code verification refuses, Run; Edit again and type (or
    paste) code that runs, Run; Continue. Then compare the Round's record and the LLM calls with the
    screen."""
    plan_box = page.locator(".twnb-step-plan textarea")
    expect(page.locator(".twnb-step-approve")).to_be_enabled(timeout=ROUND_TIMEOUT_MS)
    _type(page, plan_box, "\n".join(TYPED_STEPS))
    _click(page, "approve")
    code_box = page.locator(".twnb-step-editor textarea")
    _click(page, "edit")
    _type(page, code_box, TYPED_REFUSED)
    _click(page, "run")
    verdict = page.locator(".twnb-step-verdict")
    expect(verdict).to_contain_text("import subprocess", timeout=ROUND_TIMEOUT_MS)  # the whole edit
    expect(page.locator(".twnb-step-panel")).to_contain_text(f"open('{REFUSED_MARKER}', 'w')")
    _click(page, "edit")  # Edit again: a second update of the same box
    final = PASTED_CODE if paste_second else TYPED_CODE
    (_paste if paste_second else _type)(page, code_box, final)
    _click(page, "run")
    printed = "pasted code ran 48" if paste_second else "typed code ran 42"
    output = page.locator(".twnb-step-panel .twnb-step-output")  # shown where the eye is, before Continue
    expect(output).to_contain_text(printed, timeout=ROUND_TIMEOUT_MS)
    expect_wholly_shown(output)
    _click(page, "continue")
    cell = round_cells(page).first
    wait_until_ran(cell)
    expect(_printed(cell, printed)).to_have_count(1)
    assert not (frontend.root / REFUSED_MARKER).exists()  # the refused edit never ran
    plan_post = next(p for p in _posts(frontend.root, "Planner") if p.extra.get("edited_by") == "User")
    assert _attachment(plan_post, "plan") == "1. Multiply 6 and 7\n2. Report the product"
    code_post = _posts(frontend.root, "CodeInterpreter")[-1]
    assert _attachment(code_post, "reply_content") == final
    assert printed in _attachment(code_post, "execution_result")
    planner_calls = [r for r in module_llm.chat_requests()[before:] if r["role"] == "Planner"]
    told = [str(call["body"]["messages"][-1]["content"]) for call in planner_calls]
    assert told[1].endswith("1. Multiply 6 and 7\n2. Report the product")
    assert printed in told[-1]  # the model is told what the typed code printed
    return cell


def test_in_lab_typed_plan_and_code_are_what_runs_and_is_recorded(lab, browser_context, module_llm):
    name = "step-typed.ipynb"
    before = len(module_llm.chat_requests())
    module_llm.load(edited_plan_script())
    lab.write_notebook(name, step_notebook())
    page = browser_context.new_page()
    open_notebook(page, lab.server.notebook_url(name))
    run_all_cells(page)
    cell = _type_plan_and_code(lab, page, module_llm, before, paste_second=False)
    cell.scroll_into_view_if_needed()
    page.screenshot(path=str(screenshot_path("lab-step-typed")), full_page=True)
    page.close()


def test_in_notebook7_typed_plan_and_code_are_what_runs_and_is_recorded(
    notebook7, browser_context, module_llm
):
    """... and a pasted edit after a typed one."""
    name = "step7-typed.ipynb"
    before = len(module_llm.chat_requests())
    module_llm.load(edited_plan_script())
    notebook7.write_notebook(name, step_notebook())
    page = browser_context.new_page()
    open_notebook(page, notebook7.server.notebook_url(name))
    run_all_cells(page)
    _type_plan_and_code(notebook7, page, module_llm, before, paste_second=True)
    page.screenshot(path=str(screenshot_path("notebook7-step-typed")), full_page=True)
    page.close()
