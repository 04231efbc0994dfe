"""The quickstart notebook: a user's own cell, then three `%%taskweaver` Rounds that build on it.

Built here (not stored as a file) so the notebook `twnb demo` runs and the one in `notebooks/` come
from one source; `notebooks/quickstart.ipynb` is this notebook after a demo run.
"""

from __future__ import annotations

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell

from twnb.demo.demo_notebook import ASSETS, DemoNotebook, round_notebook
from twnb.demo.demo_notebook import DEMO_MODEL as DEMO_MODEL  # the scripted replies' model name

DATASET = ASSETS / "coffee_sales.csv"
CASSETTE = ASSETS / "quickstart.cassette.yaml"
SCRIPTED_REPLIES = ASSETS / "scripted_replies.yaml"
CONVERSATION_FILE = "quickstart-conversation.yaml"

REQUESTS = (
    "Give me an overview of `sales`: the date range, and for each store the number of days and the "
    "average daily revenue.",
    "How do iced drink sales relate to the temperature? Plot it per store and tell me the correlation.",
    "Find the weeks where a store's revenue was more than 30% away from its usual weekly level, save "
    "them to unusual_weeks.csv and explain what you see.",
)

_INTRO = """\
# twnb quickstart: four months of coffee sales

A step-by-step analysis with `%%taskweaver` cells. Each cell is one **Round**: the Planner plans, the
CodeInterpreter writes Python and runs it **on this notebook's kernel**, so the variables it makes
(`overview`, `corr_by_store`, `weekly`, ...) are yours, and it builds on the `sales` DataFrame you load
yourself below.

> **Scripted replies.** When this notebook is run by `twnb demo` (and as saved in the repository), the
> LLM replies are **scripted**: written by hand for this dataset and replayed from a bundled cassette
> under the model name `twnb-scripted-demo`. They are not a live model's output. The code in them
> really runs here. Run `twnb demo --live`, or this notebook with your own model configured, to see a
> real model at work.
"""

_SETUP_NOTE = """\
Configure a model for live use with `%config TaskWeaverMagics.model = "..."` and `OPENAI_API_KEY`
(or `OPENAI_BASE_URL` for Ollama, vLLM, ...): see the README. Your own cell first:
"""

_USER_CELL = """\
import pandas as pd

sales = pd.read_csv("coffee_sales.csv", parse_dates=["date"])
sales.head()"""

_OUTRO = """\
The whole conversation (every Post with its plan, code, results and artifacts) is saved as
TaskWeaver-compatible YAML, and `%taskweaver history` lists the Rounds:
"""


def build_quickstart_notebook() -> nbformat.NotebookNode:
    """The quickstart notebook, unexecuted."""
    opening = [
        new_markdown_cell(_INTRO),
        new_code_cell("%load_ext twnb"),
        new_markdown_cell(_SETUP_NOTE),
        new_code_cell(_USER_CELL),
    ]
    return round_notebook(opening, REQUESTS, _OUTRO, CONVERSATION_FILE)


QUICKSTART = DemoNotebook(
    name="quickstart",
    notebook_file="quickstart.ipynb",
    build=build_quickstart_notebook,
    cassette=CASSETTE,
    scripted_replies=SCRIPTED_REPLIES,
    conversation_file=CONVERSATION_FILE,
    assets=(DATASET,),
)
