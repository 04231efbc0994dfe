"""TaskWeaver's harness settings: `pre_command` runs as its harness runs it, `code_prefix` as its
DS-1000 harness expects, and cases written as its `ds1000_scripts/prepare_cases.py` and
`dabench_scripts/prepare_cases.py` write them run unchanged (a few cases in their format, made here
the way those scripts make them: not the datasets)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from support.session_script import answer, code_reply, planner_reply

from twnb.evaluation import EvalOptions, run_evaluation
from twnb.evaluation.case_file import read_case
from twnb.evaluation.case_settings import case_setup
from twnb.evaluation.pre_command import PRE_COMMAND_LOG

pytestmark = pytest.mark.slow

USER = "You play the user"
JUDGE = "You are the judge"
YES = json.dumps({"reason": "It said so.", "is_hit": "yes"})

# TaskWeaver's auto_eval/ds1000_scripts/case.yaml: the template prepare_cases.py fills.
DS1000_TEMPLATE: dict[str, Any] = {
    "version": 0.1,
    "config_var": {
        "execution_service.kernel_mode": "local",
        "code_interpreter.code_prefix": "%%_taskweaver_write_and_run solution.py",
    },
    "app_dir": "../project/",
    "dependencies": [],
    "data_files": ["code_context.py"],
    "task_description": "",
    "scoring_points": [
        {
            "score_point": "solution code much pass the test",
            "weight": 1,
            "eval_code": (
                "import re\n\n"
                "def extract_solution_code(file_path):\n"
                '    with open(file_path, "r") as file:\n'
                "        solution_code = file.read()\n"
                '    solution_regex = re.compile(r"### SOLUTION START(.*?)### SOLUTION END", re.DOTALL)\n'
                "    solution_match = solution_regex.search(solution_code)\n"
                "    return solution_match.group(1)\n\n"
                "from code_context import test_execution\n\n"
                'test_execution(extract_solution_code("solution.py"))\n'
            ),
        }
    ],
}

# A DS-1000 code_context.py: the problem's test, run over the solution's code.
CODE_CONTEXT = '''import pandas as pd

exec_context = r"""
import pandas as pd
df = test_input
[insert]
"""


def test_execution(solution: str):
    env = {"test_input": pd.DataFrame({"a": [3, 1, 2]})}
    exec(exec_context.replace("[insert]", solution), env)
    assert env["result"].tolist() == [1, 2, 3], env["result"]
'''

DS1000_PROMPT = (
    "The task is to complete the sample code described in the <TASK DESCRIPTION> block below.\n"
    "<TASK DESCRIPTION>\n# Problem\nSort the column a of df ascending, into result.\n"
    "```python\nimport pandas as pd\ndf = pd.DataFrame({'a': [3, 1, 2]})\n"
    "### SOLUTION START\n...\n### SOLUTION END\n```\n</TASK DESCRIPTION>\n"
)

SOLUTION = (
    "import pandas as pd\n"
    "df = pd.DataFrame({'a': [3, 1, 2]})\n"
    "### SOLUTION START\n"
    "result = df['a'].sort_values().reset_index(drop=True)\n"
    "### SOLUTION END\n"
    "print(result.tolist())"
)


def _ds1000_case(root: Path, problem_id: str) -> Path:
    """What ds1000_scripts/prepare_cases.py writes for one problem: five files in a folder."""
    folder = root / "ds1000_cases" / problem_id
    folder.mkdir(parents=True)
    case_yaml = dict(DS1000_TEMPLATE, task_description=DS1000_PROMPT, dependencies=["pandas"])
    with (folder / "case.yaml").open("w", encoding="utf-8") as handle:
        yaml.safe_dump(case_yaml, handle, default_flow_style=False, allow_unicode=True, sort_keys=False)
    (folder / "prompt.txt").write_text(DS1000_PROMPT, encoding="utf-8")
    (folder / "reference_code.py").write_text("result = df['a'].sort_values().reset_index(drop=True)\n")
    (folder / "metadata.json").write_text(json.dumps({"problem_id": int(problem_id), "library": "Pandas"}))
    (folder / "code_context.py").write_text(CODE_CONTEXT, encoding="utf-8")
    return folder


def _one_step(code: str, user: str) -> dict[str, list[str]]:
    return {
        "Planner": [planner_reply("CodeInterpreter", "Run it."), answer("Done: it ran.")],
        "CodeInterpreter": [code_reply(code)],
        USER: [user, "TASK_FINISHED"],
        JUDGE: [YES],
    }


def _evaluate(tmp_path: Path, folder: Path) -> tuple[Any, list[str]]:
    lines: list[str] = []
    outcome = run_evaluation(
        EvalOptions(paths=[folder], out_dir=tmp_path / "out", models=["m"]), progress=lines.append
    )
    return outcome, lines


def test_a_ds1000_case_with_a_correct_solution_passes(tmp_path, live):
    _ds1000_case(tmp_path, "000")
    live.load(_one_step(SOLUTION, DS1000_PROMPT))
    outcome, _ = _evaluate(tmp_path, tmp_path / "ds1000_cases")
    [result] = outcome.ran
    assert (result.case, result.status, result.score) == ("000", "scored", 1.0)
    written = (tmp_path / "out" / "m" / "000" / "solution.py").read_text(encoding="utf-8")
    assert written == f"## CODE START ##\n{SOLUTION}"


def test_a_ds1000_case_with_a_wrong_solution_fails(tmp_path, live):
    _ds1000_case(tmp_path, "001")
    live.load(_one_step(SOLUTION.replace("sort_values()", "sort_values(ascending=False)"), DS1000_PROMPT))
    outcome, _ = _evaluate(tmp_path, tmp_path / "ds1000_cases")
    [result] = outcome.ran
    assert (result.status, result.score) == ("scored", 0.0)


def test_a_prefix_twnb_cannot_run_skips_the_case_saying_so(make_case):
    case = read_case(make_case("magic", config_var={"code_interpreter.code_prefix": "%%bash"}))
    assert case_setup(case).skip_reasons == [
        "its code_prefix '%%bash' is neither Python nor TaskWeaver's %%_taskweaver_write_and_run FILE, "
        "which twnb's kernel cannot run before each piece of code"
    ]


def test_a_dabench_case_runs_unchanged(tmp_path, live):
    """What dabench_scripts/prepare_cases.py writes: case.yaml (yaml.dump, keys sorted) and the data."""
    folder = tmp_path / "dabench_cases" / "007"
    folder.mkdir(parents=True)
    case_yaml = {
        "version": 0.1,
        "config_var": {"execution_service.kernel_mode": "local"},
        "app_dir": "../project/",
        "dependencies": [],
        "data_files": ["values.csv"],
        "task_description": (
            "\n        # Task\n        Load the file values.csv and answer the following questions.\n"
            "        \n        # Question\n        What is the mean of x?\n        \n"
            "        # Constraints\n        Round to 1 decimal.\n        \n"
            "        # Format\n        @mean[value]\n        "
        ),
        "scoring_points": [{"score_point": "The mean is 2.0", "weight": 1}],
    }
    (folder / "case.yaml").write_text(yaml.dump(case_yaml), encoding="utf-8")
    (folder / "values.csv").write_text("x\n1\n2\n3\n", encoding="utf-8")
    live.load(
        _one_step("import pandas as pd\npd.read_csv('values.csv')['x'].mean()", "What is the mean of x?")
    )
    outcome, _ = _evaluate(tmp_path, tmp_path / "dabench_cases")
    [result] = outcome.ran
    assert (result.case, result.status, result.score) == ("007", "scored", 1.0)


def test_pre_command_runs_first_where_taskweaver_runs_it_and_is_in_the_record(tmp_path, live, make_case):
    # TaskWeaver's layout: auto_eval/cases/CASE/, app_dir ../project/ found from auto_eval/, where
    # its harness runs the commands.
    (tmp_path / "project").mkdir()
    make_case(
        "prepared",
        root=tmp_path / "auto_eval" / "cases",
        pre_command=["cd cases/prepared && printf 'x\\n5\\n' > made.csv && echo prepared here", "exit 3"],
        data_files=["made.csv"],  # copied after the commands ran: only there if they ran first
    )
    live.load(_one_step("import pandas as pd\npd.read_csv('made.csv')['x'].sum()", "Sum x in made.csv"))
    outcome, lines = _evaluate(tmp_path, tmp_path / "auto_eval" / "cases")
    [result] = outcome.ran
    folder = tmp_path / "out" / "m" / "prepared"
    assert result.status == "scored"
    assert (folder / "made.csv").read_text() == "x\n5\n"
    assert (
        "pre_command `cd cases/prepared && printf 'x\\n5\\n' > made.csv && echo prepared here` exited 0: "
        "prepared here"
    ) in result.notes
    assert "pre_command `exit 3` exited 3: no output" in result.notes
    assert "prepared here" in (folder / PRE_COMMAND_LOG).read_text()
    assert any("pre_command `exit 3` exited 3" in line for line in lines)
