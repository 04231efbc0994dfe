"""Fixtures for replay tests: conversations recorded by real Rounds (a real InteractiveShell running the
code, the loopback LLM server answering over HTTP), and the TaskWeaver-format files in tests/data.

The whole-Round fixtures are tests/support's (`make_session`, `shell`, `workdir`), as tests/session
has them.
"""

from __future__ import annotations

import pytest
from support.session_fixtures import make_session, recorder, shell, workdir  # noqa: F401
from support.session_script import code_reply, planner_reply


def two_steps(first: str, second: str, final: str = "Done.") -> dict:
    """A Round in which the CodeInterpreter runs `first`, is sent on to run `second`, then answers."""
    return {
        "Planner": [
            planner_reply("CodeInterpreter", "Run the first step."),
            planner_reply("CodeInterpreter", "Run the second step.", step="2. Report"),
            planner_reply("User", final, stop="Completed", step="2. Report"),
        ],
        "CodeInterpreter": [code_reply(first), code_reply(second)],
    }


@pytest.fixture
def recorded(make_session, fake_llm):  # noqa: F811 (the fixture imported above)
    """A session after two real Rounds: printed text, a result, a displayed figure, a failed attempt
    that was revised, and a file the code wrote (an artifact)."""
    session = make_session(
        two_steps(
            "import matplotlib.pyplot as plt\nprint('rows: 3')\nplt.plot([1, 2, 3])\nplt.show()",
            "total = 6 * 7\ntotal",
        )
    )
    session.run_round("Plot 1..3 and compute 6 times 7")
    fake_llm.load(
        {
            "Planner": [
                planner_reply("CodeInterpreter", "Write the total to a file."),
                planner_reply("User", "Saved [total.txt](total.txt).", stop="Completed", step="2. Report"),
            ],
            "CodeInterpreter": [
                code_reply("open('total.txt', 'w').write(str(missing_name))"),
                code_reply("open('total.txt', 'w').write(str(total))\nprint('saved')"),
            ],
        }
    )
    session.run_round("Save the total to total.txt")
    return session
