"""Scripted replies and notebooks for step mode in the browser: one Round whose plan is approved (or
edited) and whose one piece of code is Run, edited, skipped or stopped, then a next cell that reads
what the code made."""

from __future__ import annotations

from typing import Any

from round_scripts import (
    PLOT_REQUEST,
    SLOW_CODE,
    TOTAL_REQUEST,
    _code,
    _planner,
    analysis_script,
    notebook_of,
)

STEP_REQUEST = "Compute the total of 2, 3 and 5."
STEP_STEPS = ["Add up 2, 3 and 5", "Report the total to the user"]
STEP_CODE = "step_total = 2 + 3 + 5\nprint('step code ran', step_total)\nstep_total"
EDITED_CODE = "step_total = 2 * 3 * 5\nprint('edited code ran', step_total)\nstep_total"
STEP_ANSWER = "The total is 10."
NEXT_CELL = "print('next cell sees', step_total)"
EDITED_STEPS = ["Multiply 2, 3 and 5", "Report the product to the user"]


def _round(steps: list[str], code: str, answer: str) -> dict[str, list[Any]]:
    return {
        "Planner": [
            _planner(steps, 1, send_to="CodeInterpreter", message="Compute it in Python."),
            _planner(steps, 2, send_to="User", message=answer),
        ],
        "CodeInterpreter": [_code(code, "Simple arithmetic.")],
    }


def step_script() -> dict[str, list[Any]]:
    return _round(STEP_STEPS, STEP_CODE, STEP_ANSWER)


def edited_plan_script() -> dict[str, list[Any]]:
    """The Planner's first plan is edited by the user; its second reply follows the edited plan."""
    return {
        "Planner": [
            _planner(STEP_STEPS, 1, send_to="CodeInterpreter", message="Add them up."),
            _planner(EDITED_STEPS, 1, send_to="CodeInterpreter", message="Multiply them."),
            _planner(EDITED_STEPS, 2, send_to="User", message="The product is 30."),
        ],
        "CodeInterpreter": [_code(EDITED_CODE, "The product, as the edited plan says.")],
    }


def analysis_then_step_script() -> dict[str, list[Any]]:
    """The analysis's two Rounds (a plot; a failed attempt revised), then step_script's Round."""
    analysis, step = analysis_script(), step_script()
    return {role: analysis[role] + step[role] for role in ("Planner", "CodeInterpreter")}


def analysis_then_step_notebook(*after: str) -> Any:
    return notebook_of(
        "%load_ext twnb",
        f"%%taskweaver\n{PLOT_REQUEST}",
        f"%%taskweaver\n{TOTAL_REQUEST}",
        f"%%taskweaver --step\n{STEP_REQUEST}",
        *after,
    )


def slow_step_script() -> dict[str, list[Any]]:
    return _round(["Count slowly", "Report"], SLOW_CODE, "Counted.")


def step_notebook(*after: str) -> Any:
    return notebook_of("%load_ext twnb", f"%%taskweaver --step\n{STEP_REQUEST}", *after)


# An edit that adds a module the default verification refuses: it must never run.
REFUSED_EDIT = "import subprocess\n" + EDITED_CODE
# While a reply streams this slowly (two characters every 0.3 s: minutes for a whole reply), the test
# has all the time it needs to press Interrupt during the LLM call.
SLOW_STREAM = {"chunk_size": 2, "delay_s": 0.3}
SLOW_PLAN_REASONING = "Scripted for the browser tests."  # the Planner's first streamed words
SLOW_THOUGHT = "A reply that streams slowly."


def slow_planner_script() -> dict[str, list[Any]]:
    """The Planner's first reply streams for minutes."""
    script = step_script()
    script["Planner"][0] = {"content": script["Planner"][0], **SLOW_STREAM}
    return script


def slow_code_reply_script() -> dict[str, list[Any]]:
    """The plan comes at once; the CodeInterpreter's reply streams for minutes."""
    script = step_script()
    script["CodeInterpreter"][0] = {"content": _code(STEP_CODE, SLOW_THOUGHT), **SLOW_STREAM}
    return script
