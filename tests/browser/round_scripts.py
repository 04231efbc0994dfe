"""Scripted replies for the loopback LLM server behind the browser tests' kernels, and their notebooks.

The analysis: Round 1 plots the squares of 1 to 5 (a figure, so an artifact and a preview) and
answers 55; Round 2's first attempt raises KeyError, the revised attempt totals the revenue (60).
"""

from __future__ import annotations

import json
from typing import Any

import nbformat

FAKE_MODEL = "fake-model"  # the name the loopback server answers to

PLOT_REQUEST = "Plot the squares of 1 to 5 and tell me their sum."
TOTAL_REQUEST = "What is the total of the sales column in `shop`?"
PLOT_STEP = "Plot the squares of 1 to 5 and sum them"
TOTAL_STEP = "Total the sales of `shop`"
PLOT_CODE = """\
import matplotlib.pyplot as plt

squares = [n * n for n in range(1, 6)]
fig, ax = plt.subplots(figsize=(4, 3))
ax.plot(range(1, 6), squares, marker="o")
ax.set_title("Squares of 1 to 5")
plt.show()
sum(squares)"""
FAILING_CODE = 'shop = {"revenue": [10, 20, 30]}\nshop["sales"]'
REVISED_CODE = 'shop = {"revenue": [10, 20, 30]}\ntotal_revenue = sum(shop["revenue"])\ntotal_revenue'
PLOT_ANSWER = "The squares of 1 to 5 sum to 55; the plot is above."
TOTAL_ANSWER = "There is no sales column; the total revenue is 60."

SLOW_REQUEST = "Count slowly to a thousand."
SLOW_STEP = "Count to a thousand, one number a second"
STARTED_MARKER = "slow-step-started.txt"
# Writes a marker file first, so the test knows the step runs before it presses stop.
SLOW_CODE = f"""\
import time
from pathlib import Path

Path("{STARTED_MARKER}").write_text("started")
for count in range(1000):
    time.sleep(1)
count"""


def _planner(init_plan: list[str], step: int, *, send_to: str, message: str) -> str:
    plan = "\n".join(f"{i}. {text}" for i, text in enumerate(init_plan, 1))
    return json.dumps(
        {
            "response": {
                "plan_reasoning": "Scripted for the browser tests.",
                "init_plan": plan,
                "plan": plan,
                "current_plan_step": f"{step}. {init_plan[step - 1]}",
                "stop": "Completed" if send_to == "User" else "InProcess",
                "send_to": send_to,
                "message": message,
            }
        }
    )


def _code(code: str, thought: str) -> str:
    return json.dumps({"response": {"thought": thought, "reply_type": "python", "reply_content": code}})


def _round(step: str, instruction: str, answer: str) -> list[str]:
    steps = [step, "Report the answer to the user"]
    return [
        _planner(steps, 1, send_to="CodeInterpreter", message=instruction),
        _planner(steps, 2, send_to="User", message=answer),
    ]


def analysis_script() -> dict[str, list[Any]]:
    """Two Rounds: a plot, then a failed attempt revised."""
    return {
        "Planner": _round(PLOT_STEP, "Plot the squares of 1 to 5, then sum them.", PLOT_ANSWER)
        + _round(TOTAL_STEP, "Sum the sales column of `shop`.", TOTAL_ANSWER),
        "CodeInterpreter": [
            _code(PLOT_CODE, "A line plot of the squares, then their sum."),
            _code(FAILING_CODE, "Take the sales column."),
            _code(REVISED_CODE, "There is no sales column: the money column is revenue."),
        ],
    }


def slow_script() -> dict[str, list[Any]]:
    """One Round whose only step runs for minutes, unless interrupted."""
    return {
        "Planner": _round(SLOW_STEP, "Count to a thousand, one a second.", "Counted."),
        "CodeInterpreter": [_code(SLOW_CODE, "A slow loop.")],
    }


def notebook_of(*sources: str) -> nbformat.NotebookNode:
    """An unexecuted notebook with these code cells, on the python3 kernel."""
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source) for source in sources])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    return nb


def analysis_notebook() -> nbformat.NotebookNode:
    return notebook_of("%load_ext twnb", f"%%taskweaver\n{PLOT_REQUEST}", f"%%taskweaver\n{TOTAL_REQUEST}")


def slow_notebook() -> nbformat.NotebookNode:
    return notebook_of("%load_ext twnb", f"%%taskweaver\n{SLOW_REQUEST}")


# Two steps that each run code, the second after a failed attempt: "Insert code as cells" must add
# STEP_ONE_CODE then REVISED_CODE (not FAILING_CODE), in that order.
STEPS_REQUEST = "Make the squares of 1 to 3, then total the revenue of `shop`."
STEP_ONE_CODE = "squares = [n * n for n in range(1, 4)]\nsquares"
STEPS_ANSWER = "The squares are 1, 4 and 9; the total revenue is 60."
# What a hostile model might answer: markup that must stay text wherever the Round is shown.
HOSTILE_REQUEST = "Say something dangerous."
HOSTILE_ANSWER = (
    '<img src=x onerror="window.twnbHostile=1"> <script>window.twnbHostile=2</script> plain **bold** end'
)


def steps_script() -> dict[str, list[Any]]:
    """Round 1: two code steps (the second revised once); Round 2: a hostile answer, no code."""
    steps = ["Make the squares of 1 to 3", "Total the revenue of `shop`", "Report the answer to the user"]
    return {
        "Planner": [
            _planner(steps, 1, send_to="CodeInterpreter", message="Make the squares of 1 to 3."),
            _planner(steps, 2, send_to="CodeInterpreter", message="Sum the sales column of `shop`."),
            _planner(steps, 3, send_to="User", message=STEPS_ANSWER),
            _planner(["Answer"], 1, send_to="User", message=HOSTILE_ANSWER),
        ],
        "CodeInterpreter": [
            _code(STEP_ONE_CODE, "A list of squares."),
            _code(FAILING_CODE, "Take the sales column."),
            _code(REVISED_CODE, "There is no sales column: the money column is revenue."),
        ],
    }


def steps_notebook() -> nbformat.NotebookNode:
    return notebook_of("%load_ext twnb", f"%%taskweaver\n{STEPS_REQUEST}", f"%%taskweaver\n{HOSTILE_REQUEST}")
