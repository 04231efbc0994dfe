"""twnb's JupyterLab extension on notebooks that hold saved Rounds, opened with no kernel in JupyterLab:
plan, code, previews and artifacts, other schema versions, hundreds of posts, Copy code, dark theme."""

from __future__ import annotations

import time

import pytest
from labextension_page import (
    HTML_OUTPUT,
    JS_ACTIVE_CELL,
    ROUND_RENDERED,
    cell_sources,
    open_without_kernel,
    rendered_round,
)
from notebook_page import UI_TIMEOUT_MS, code_cells, menu, round_cells, wait_until
from playwright.sync_api import expect
from reopen_checks import JS_LOWEST_CONTRASTS, MIN_CONTRAST
from round_payloads import (
    HTML_FALLBACK_TEXT,
    attachment,
    code_post,
    payload,
    png_preview,
    post,
    saved_notebook,
)
from screenshot_files import screenshot_path

PLOT_PATH = "twnb-artifacts/plot.png"
FIRST_CODE = "squares = [n * n for n in range(1, 4)]\nsquares"
FAILED_CODE = "shop['sales']"
SECOND_CODE = "total = sum(shop['revenue'])\ntotal"
MANY_POSTS = 600


@pytest.fixture(scope="module")
def saved(lab, labextension_bundle, browser_context):
    """A notebook of four saved Rounds, opened with no kernel."""
    raw, preview = png_preview(PLOT_PATH)
    (lab.root / PLOT_PATH).parent.mkdir()
    (lab.root / PLOT_PATH).write_bytes(raw)
    analysis = payload(
        "Square, then total the revenue.",
        [
            post("Planner", "CodeInterpreter", "Make the squares."),
            code_post(FIRST_CODE, "SUCCESS", "Result:\n[1, 4, 9]", PLOT_PATH),
            code_post(FAILED_CODE, "FAILURE", "KeyError: 'sales'"),
            code_post(SECOND_CODE, "SUCCESS", "Result:\n60"),
            post("Planner", "User", "The squares are 1, 4 and 9; the revenue is **60**."),
        ],
        steps=[("Make the squares", "done"), ("Total the revenue", "done"), ("Draw a map", "abandoned")],
        previews=[preview],
    )
    newer = payload(
        "A Round from the future.",
        [post("Planner", "User", "Still readable.", attachment("hologram", "a 3-D plot"))],
        steps=[("Look ahead", "done")],
        schema_version=99,
    )
    older = payload(
        "A Round from the past.", [post("Planner", "User", "Old but readable.")], schema_version=None
    )
    many = payload(
        "A long Round.",
        [post("Planner", "CodeInterpreter", f"Step {n}: keep going.") for n in range(MANY_POSTS)],
        steps=[(f"Step {n}", "done") for n in range(30)],
    )
    lab.write_notebook("saved.ipynb", saved_notebook(analysis, newer, older, many))
    page = browser_context.new_page()
    started = time.monotonic()
    open_without_kernel(page, lab.server.notebook_url("saved.ipynb"))
    expect(page.locator(ROUND_RENDERED)).to_have_count(4, timeout=UI_TIMEOUT_MS)
    seconds = time.monotonic() - started
    print(f"4 saved Rounds ({MANY_POSTS + 9} posts) rendered {seconds:.1f} s after opening")
    page.screenshot(path=str(screenshot_path("labext-lab-saved-no-kernel")))
    return page


def test_a_saved_round_renders_through_the_extension_not_the_html_fallback(saved):
    cell = round_cells(saved).nth(0)
    expect(rendered_round(cell)).to_have_count(1)
    expect(cell.locator(HTML_OUTPUT)).to_have_count(0)
    expect(saved.locator(".jp-Notebook")).not_to_contain_text(HTML_FALLBACK_TEXT)


def test_the_plan_shows_each_step_with_its_state(saved):
    steps = rendered_round(round_cells(saved).nth(0)).locator(".twnb-step")
    expect(steps).to_have_count(3)
    expect(steps.nth(0)).to_contain_text("Make the squares")
    assert [step.get_attribute("data-state") for step in steps.all()] == ["done", "done", "abandoned"]


def test_each_code_block_shows_what_became_of_it_the_failed_attempt_with_its_error(saved):
    section = rendered_round(round_cells(saved).nth(0)).locator(".twnb-code-section")
    blocks = section.locator(".twnb-code-block")
    expect(blocks).to_have_count(3)
    assert [block.get_attribute("data-outcome") for block in blocks.all()] == ["ran", "failed", "ran"]
    expect(blocks.nth(0).locator(".twnb-code")).to_contain_text("squares = [n * n for n in range(1, 4)]")
    expect(blocks.nth(1).locator(".twnb-outcome")).to_have_text("raised")
    expect(blocks.nth(1).locator(".twnb-error")).to_contain_text("KeyError: 'sales'")
    expect(blocks.nth(2).locator(".twnb-code")).to_contain_text("total = sum(shop['revenue'])")
    expect(section.locator("> summary")).to_have_text("Code (3 blocks, 2 ran)")


def test_a_failed_attempt_shows_its_error_when_its_post_is_opened(saved):
    shown = rendered_round(round_cells(saved).nth(0))
    shown.locator(".twnb-posts > summary").click()
    failed = shown.locator(".twnb-post").filter(has_text="FAILURE")
    failed.locator("summary").click()
    expect(failed.locator(".twnb-code")).to_contain_text(FAILED_CODE)
    expect(failed.locator(".twnb-result")).to_contain_text("KeyError: 'sales'")


def test_a_preview_shows_and_a_click_opens_the_artifact_in_jupyterlab(saved):
    image = rendered_round(round_cells(saved).nth(0)).locator("img.twnb-preview-image")
    expect(image).to_have_count(1)
    assert image.evaluate("img => img.complete && img.naturalWidth") == 60
    image.click()
    tab = saved.locator(".lm-DockPanel-tabBar .lm-TabBar-tab", has_text="plot.png")
    expect(tab).to_have_count(1, timeout=UI_TIMEOUT_MS)
    saved.screenshot(path=str(screenshot_path("labext-lab-artifact-opened")))
    menu(saved, "File", "Close Tab")
    expect(tab).to_have_count(0)


def test_copy_code_puts_the_successful_code_on_the_clipboard(saved, browser_context, lab):
    browser_context.grant_permissions(["clipboard-read", "clipboard-write"], origin=lab.server.base_url)
    rendered_round(round_cells(saved).nth(0)).get_by_role("button", name="Copy code").click()
    expected = f"{FIRST_CODE}\n\n{SECOND_CODE}"
    deadline = time.monotonic() + 10
    while saved.evaluate("() => navigator.clipboard.readText()") != expected:
        assert time.monotonic() < deadline, "the clipboard never held the Round's code"
        time.sleep(0.2)  # polling the clipboard, not waiting a guessed time


def test_a_newer_schema_renders_what_it_can_and_names_what_it_could_not(saved):
    shown = rendered_round(round_cells(saved).nth(1))
    expect(shown.locator(".twnb-schema-note")).to_contain_text("newer twnb (schema 99")
    expect(shown.locator(".twnb-schema-note")).to_contain_text("hologram")
    expect(shown.locator(".twnb-step")).to_have_count(1)
    expect(shown.locator(".twnb-answer")).to_contain_text("Still readable.")


def test_a_payload_without_a_view_shows_its_saved_page_and_how_to_have_it_drawn(saved):
    """The extension draws only the view twnb computes: an older payload shows the page it was saved
    with, under a note naming the command that draws it anew."""
    shown = rendered_round(round_cells(saved).nth(2))
    expect(shown.locator(".twnb-schema-note")).to_contain_text("without its twnb section")
    expect(shown.locator(".twnb-schema-note")).to_contain_text("%taskweaver show round-")
    expect(shown.locator(".twnb-saved-page")).to_contain_text("Old but readable.")
    expect(shown.locator(".twnb-code-section, .twnb-posts")).to_have_count(0)


def test_hundreds_of_posts_start_collapsed_and_a_post_is_built_only_when_opened(saved):
    shown = rendered_round(round_cells(saved).nth(3))
    expect(shown.locator(".twnb-post")).to_have_count(MANY_POSTS + 1)
    expect(shown.locator(".twnb-post-body")).to_have_count(0)
    expect(shown.locator(".twnb-posts")).not_to_have_attribute("open", "")
    shown.locator(".twnb-posts > summary").click()
    started = time.monotonic()
    shown.locator(".twnb-post").nth(300).locator("summary").click()
    expect(shown.locator(".twnb-post-body")).to_have_count(1)
    expect(shown.locator(".twnb-post-body")).to_contain_text("Step 299: keep going.")
    print(f"opening post 300 of {MANY_POSTS}: {time.monotonic() - started:.2f} s")


def test_the_round_reads_well_in_the_dark_theme(saved):
    menu(saved, "Settings", "Theme", "JupyterLab Dark")
    try:
        expect(saved.locator("body")).to_have_attribute("data-jp-theme-light", "false")
        # a theme change shows JupyterLab's splash over the page until the theme has loaded
        expect(saved.locator("#jupyterlab-splash")).to_have_count(0)
        shown = rendered_round(round_cells(saved).nth(0))
        shown.scroll_into_view_if_needed()
        saved.screenshot(path=str(screenshot_path("labext-lab-saved-dark-theme")))
        lowest = saved.evaluate(JS_LOWEST_CONTRASTS, [shown.element_handle()])
        assert lowest[0][0] >= MIN_CONTRAST, f"text hard to read on the dark theme: {lowest}"
    finally:
        menu(saved, "Settings", "Theme", "JupyterLab Light")
        expect(saved.locator("body")).to_have_attribute("data-jp-theme-light", "true")


def test_insert_code_as_cells_adds_the_successful_code_below_the_round_in_post_order(saved):
    before = cell_sources(saved)
    rendered_round(round_cells(saved).nth(0)).get_by_role("button", name="Insert code as cells").click()
    wait_until(lambda: len(cell_sources(saved)) == len(before) + 2, 30, "two cells inserted")
    after = cell_sources(saved)
    assert after == [before[0], FIRST_CODE, SECOND_CODE, *before[1:]]
    expect(code_cells(saved).nth(1).locator(".cm-content")).to_contain_text("squares = [n * n")
    saved.screenshot(path=str(screenshot_path("labext-lab-inserted-cells")))


def test_the_round_history_panel_lists_the_rounds_and_a_click_selects_and_shows_one(saved):
    saved.locator(".twnb-history-button").first.click()
    items = saved.locator(".twnb-round-history .twnb-history-item")
    expect(items).to_have_count(4, timeout=UI_TIMEOUT_MS)
    expect(items.nth(0)).to_contain_text("Square, then total the revenue.")
    expect(items.nth(0)).to_contain_text("finished")
    saved.screenshot(path=str(screenshot_path("labext-lab-round-history")))
    target = cell_sources(saved).index("%%taskweaver\nA long Round.")
    items.nth(3).click()
    wait_until(lambda: saved.evaluate(JS_ACTIVE_CELL) == target, 30, "the fourth Round's cell selected")
    expect(code_cells(saved).nth(target).locator(".jp-InputArea")).to_be_in_viewport()


def _step_mode_round():
    """A Round steered in step mode, as the session records it: the plan approved as it was, one piece
    of code Run, one edited before it ran, one skipped."""
    from twnb.memory import Attachment, AttachmentType, Post, Round
    from twnb.memory.extras import EDITED_BY_USER, SKIPPED_BY_USER

    # The message and result each decision leaves in the record, in the record's own words.
    recorded = {
        "approved_by": ("The code ran successfully.", "Result:\n[1, 4, 9]"),
        "edited_by": (f"{EDITED_BY_USER} The code ran successfully.", "Result:\n60"),
        "skipped_by": (SKIPPED_BY_USER, SKIPPED_BY_USER),
    }

    def code(text: str, status: str, decision: str) -> Post:
        message, result = recorded[decision]
        made = Post.create(message, "CodeInterpreter", "Planner")
        attached = [("reply_type", "python"), ("reply_content", text), ("execution_status", status)]
        for kind, content in [*attached, ("execution_result", result)]:
            made.add_attachment(Attachment.create(AttachmentType(kind), content))
        made.extra[decision] = "User"  # type: ignore[literal-required]
        return made

    round = Round.create("Square, then total.")
    round.add_post(Post.create("Square, then total.", "User", "Planner"))
    plan = Post.create("Make the squares.", "Planner", "CodeInterpreter")
    plan.add_attachment(Attachment.create(AttachmentType.init_plan, "1. Make the squares\n2. Total them"))
    plan.extra["approved_by"] = "User"
    round.add_post(plan)
    round.add_post(code(FIRST_CODE, "SUCCESS", "approved_by"))
    edited = code(SECOND_CODE, "SUCCESS", "edited_by")
    edited.extra["edited_from"] = "total = 0"
    round.add_post(edited)
    round.add_post(code("import os", "NONE", "skipped_by"))
    round.add_post(Post.create("The total is 60.", "Planner", "User"))
    round.change_round_state("finished")
    return round


def test_a_saved_step_mode_round_shows_each_decision_the_user_made(lab, labextension_bundle, browser_context):
    from twnb.render import plan_from_round, round_payload

    round = _step_mode_round()
    data = round_payload(round, session_id="step", plan=plan_from_round(round))
    lab.write_notebook("decided.ipynb", saved_notebook(data))
    page = browser_context.new_page()
    try:
        open_without_kernel(page, lab.server.notebook_url("decided.ipynb"))
        shown = rendered_round(round_cells(page).nth(0))
        expect(shown.locator(".twnb-plan .twnb-decision")).to_have_text("You approved this plan.")
        expect(shown.locator(".twnb-code-section .twnb-decision")).to_have_text(
            ["You ran this code.", "You edited this code before it ran.", "You skipped this code."]
        )
        shown.locator(".twnb-posts > summary").click()
        decisions = [
            post.locator(".twnb-decision").all_inner_texts()
            for post in shown.locator(".twnb-post > .twnb-post-summary").all()
        ]
        assert decisions == [
            [],
            ["You approved this plan."],
            ["You ran this code."],
            ["You edited this code before it ran."],
            ["You skipped this code."],
            [],
        ]
        for post in shown.locator(".twnb-post > .twnb-post-summary").all()[2:5]:
            post.click()
        posts = shown.locator(".twnb-post")
        expect(posts.nth(3)).to_contain_text("The code ran successfully.")
        for index, word in [(3, "edited"), (4, "skipped")]:
            assert posts.nth(index).inner_text().lower().count(word) == 1
        main_view = shown.evaluate(
            "node => { const copy = node.cloneNode(true); copy.querySelector('.twnb-posts').remove();"
            " return copy.textContent; }"
        )
        assert main_view.lower().count("skipped") == 1  # its decision line; the badge says "not run"
        assert shown.locator(".twnb-posts").inner_text().lower().count("skipped") == 1
        page.screenshot(path=str(screenshot_path("labext-lab-step-decisions")))
    finally:
        page.close()
