"""What the live widget shows while step mode's Round waits for the user's approval of the plan: a real
session driven as step mode drives it, watched by the real widget (ipywidgets, no frontend needed)."""

from __future__ import annotations

import re

from support.session_script import one_step

from twnb.notebook.round_display import RoundDisplay
from twnb.session.code_request import PlanRequest


def _waiting_on_the_plan(session):
    display = RoundDisplay("Set x", session_id=session.session_id, widgets=True)
    driver = session.round_driver("Set x", display.observer, approve_plan=True)
    return display, driver


def test_the_planners_section_is_titled_by_its_sender_while_the_plan_waits(make_session):
    session = make_session(one_step("x = 1"))
    display, driver = _waiting_on_the_plan(session)
    with display.following(session.plans):
        assert isinstance(next(driver), PlanRequest)
        titles = [section.titles[0] for section in display.view.posts.children]
        driver.close()
    display.view.close()
    assert titles == ["User → Planner", "Planner"]


def _following_the_edit() -> dict:
    """The Planner's first plan, then the user's edit of it followed step by step."""
    import json

    edited = "1. Set x to one\n2. Report it"

    def reply(send_to: str, step: str, stop: str = "InProcess") -> str:
        keys = {"init_plan": edited, "plan": edited, "current_plan_step": step, "stop": stop}
        return json.dumps({"response": {"plan_reasoning": "r", **keys, "send_to": send_to, "message": "m"}})

    script = one_step("x = 1")
    script["Planner"] = [
        script["Planner"][0],
        reply("CodeInterpreter", "1. Set x to one"),
        reply("User", "2. Report it", "Completed"),
    ]
    return script


def test_the_checklist_shows_the_plan_waiting_for_approval_then_the_users_edit(make_session):
    session = make_session(_following_the_edit())
    display, driver = _waiting_on_the_plan(session)
    with display.following(session.plans):
        next(driver)
        waiting = re.sub(r"<(\w+)[^>]*>", r"<\1>", display.view.plan.value)
        driver.send(["Set x to one", "Report it"])  # on to the code of the edited plan's first step
        edited = re.sub(r"<(\w+)[^>]*>", r"<\1>", display.view.plan.value)
        driver.close()
    display.view.close()
    assert "▶ Do it <small>(in_progress)</small>" in waiting
    assert "▶ Set x to one <small>(in_progress)</small>" in edited and "Do it" not in edited
