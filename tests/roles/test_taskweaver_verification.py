"""TaskWeaver's verification rules give TaskWeaver's verdicts: the cases of its
tests/unit_tests/test_code_verification.py, with its counts, and its words where a case's refusal is
read by a model or a person; and, with a VerificationConfig, they add to twnb's guard, never replace it."""

from __future__ import annotations

import pytest

from twnb.roles import VerificationConfig, verify_code
from twnb.roles.refusal import Rule
from twnb.roles.taskweaver_verification import TaskWeaverRules, taskweaver_errors, taskweaver_refusals

PLOT = (
    "import numpy as np\n"
    "import matplotlib.pyplot as plt\n"
    "random_numbers = np.random.normal(size=100)\n"
    "plt.hist(random_numbers, bins=10, alpha=0.5)\n"
    "plt.title('Distribution of Random Numbers')\n"
    "# Displaying the plot\n"
    "plt.show()\n"
)
CALLS = "exec('import os')\neval('import sys')\nprint('Hello, World!')\n"
ASSIGNS = "name = 'John'\nage = 25\nprint(f'Hello, {name}! You are {age} years old.')\n"
NOTHING = TaskWeaverRules(allowed_modules=None, blocked_functions=None)


def rules(**lists: tuple[str, ...] | None) -> TaskWeaverRules:
    return TaskWeaverRules(**{"allowed_modules": None, "blocked_functions": None, **lists})


@pytest.mark.parametrize(("allowed", "count"), [(("pandas", "matplotlib"), 1), ((), 2), (None, 0)])
def test_an_allow_list_of_modules_refuses_every_other_import(allowed, count):
    assert len(taskweaver_errors(PLOT, rules(allowed_modules=allowed))) == count


@pytest.mark.parametrize(("blocked", "count"), [(("numpy", "matplotlib"), 2), ((), 0), (None, 0)])
def test_a_block_list_of_modules_refuses_those_only(blocked, count):
    assert len(taskweaver_errors(PLOT, rules(blocked_modules=blocked))) == count


def test_allow_and_block_lists_of_one_kind_cannot_go_together():
    with pytest.raises(ValueError, match="Only one of allowed_modules or blocked_modules"):
        TaskWeaverRules(allowed_modules=("numpy",), blocked_modules=("numpy",))
    with pytest.raises(ValueError, match="Only one of allowed_functions or blocked_functions"):
        TaskWeaverRules(allowed_functions=("print",), blocked_functions=("exec",))


@pytest.mark.parametrize(("blocked", "count"), [(("exec", "eval"), 2), ((), 0), (None, 0)])
def test_a_block_list_of_functions_refuses_those_calls(blocked, count):
    assert len(taskweaver_errors(CALLS, rules(blocked_functions=blocked))) == count


@pytest.mark.parametrize(("allowed", "count"), [(("print", "abs"), 2), ((), 3), (None, 0)])
def test_an_allow_list_of_functions_refuses_every_other_call(allowed, count):
    assert len(taskweaver_errors(CALLS, rules(allowed_functions=allowed))) == count


@pytest.mark.parametrize(
    ("code", "allowed", "count"),
    [
        (ASSIGNS, ("name", "age"), 0),
        (ASSIGNS, (), 2),
        (ASSIGNS, None, 0),
        ("name, age = 'John', 25\nprint(name, age)\n", ("name", "age"), 0),
    ],
)
def test_an_allow_list_of_variables_refuses_other_assignments(code, allowed, count):
    assert len(taskweaver_errors(code, rules(allowed_variables=allowed))) == count


def test_magics_are_one_refusal_but_a_package_install_is_let_through():
    code = (
        "!pip install pandas\n" + PLOT + "%matplotlib inline\nimport pandas as pd\ndf = pd.DataFrame()\ndf\n"
    )
    errors = taskweaver_errors(code, NOTHING)
    assert errors == [
        "Magic commands except package install are not allowed. Details: ['%matplotlib inline']"
    ]


@pytest.mark.parametrize(
    ("code", "blocked", "names"),
    [
        ("obj = object()\nmethod = getattr(obj, 'some_method')\n", ("getattr",), ["getattr"]),
        ("obj = object()\nsetattr(obj, 'dangerous_attr', 'value')\n", ("setattr",), ["setattr"]),
        ("g = globals()\nl = locals()\n", ("globals", "locals"), ["globals", "locals"]),
        ("obj = object()\nattributes = vars(obj)\n", ("vars",), ["vars"]),
        ("class Foo:\n    x = 1\ndelattr(Foo, 'x')\n", ("delattr",), ["delattr"]),
        ("obj = object()\ncls = obj.__class__\nbases = cls.__bases__\n", None, ["__class__", "__bases__"]),
        ("obj = {}\ndangerous = obj['__class__']\n", None, ["__class__"]),
        ("import sys\nbuiltins = sys.modules['__builtins__']\n", None, ["__builtins__"]),
    ],
)
def test_what_reaches_around_the_checks_is_refused_by_name(code, blocked, names):
    errors = taskweaver_errors(code, rules(blocked_functions=blocked))
    assert len(errors) >= len(names)
    assert all(any(name in error for error in errors) for name in names)


def test_a_call_through_a_subscript_is_refused():
    errors = taskweaver_errors(
        "methods = {'dangerous': eval}\nresult = methods['dangerous']('print(1)')\n", NOTHING
    )
    assert errors == [
        "Error on line 2: result = methods['dangerous']('print(1)') => Subscript-based function calls "
        "are not allowed for security reasons."
    ]


def test_the_defaults_refuse_what_the_delete_files_case_writes_in_taskweavers_words():
    code = "import os\n\n# remove it\nos.remove('demo_data.csv')\nwith open('x.txt') as f:\n    f.read()\n"
    assert taskweaver_errors(code) == [
        "Error on line 1: import os => Importing module 'os' is not allowed. ",
        "Error on line 3: with open('x.txt') as f: => Function 'open' is not allowed.",
    ]
    refusals = taskweaver_refusals(code)
    assert [(r.rule, r.line, r.source) for r in refusals] == [
        (Rule.TASKWEAVER, 1, "import os"),
        (Rule.TASKWEAVER, 5, "with open('x.txt') as f:"),
    ]


def test_a_syntax_error_is_the_only_verdict():
    errors = taskweaver_errors("%ls\nx = (\n", NOTHING)
    assert len(errors) == 1 and errors[0].startswith("Syntax error: ")


def test_a_case_asking_for_taskweavers_rules_gets_them_on_top_of_twnbs():
    plain = VerificationConfig()
    both = VerificationConfig(taskweaver=TaskWeaverRules())
    # twnb's guard alone lets analysis code import os; TaskWeaver's refuses it.
    assert verify_code("import os\nos.remove('demo_data.csv')\n", plain) == []
    refused = verify_code("import os\nos.remove('demo_data.csv')\n", both)
    assert [r.rule for r in refused or []] == [Rule.TASKWEAVER]
    # twnb's own refusals still hold: TaskWeaver's rules let exit() through, twnb's refuse it.
    rules_for_shell = [r.rule for r in verify_code("import pandas\nexit()\n", both) or []]
    assert Rule.BLOCKED_FUNCTION in rules_for_shell


def test_with_twnbs_verification_off_a_case_still_gets_taskweavers_rules():
    config = VerificationConfig(enabled=False, taskweaver=TaskWeaverRules())
    refused = verify_code("import os\n", config)
    assert [r.message for r in refused or []] == ["Importing module 'os' is not allowed."]
    assert "Import only these modules: pandas" in config.describe()


def test_the_model_is_told_one_list_of_imports_both_rule_sets_allow():
    text = VerificationConfig(taskweaver=TaskWeaverRules()).describe()
    assert (
        "- Allowed imports: datetime, matplotlib, numpy, pandas, scipy, seaborn, sklearn, typing.\n" in text
    )
    assert "open" in text.split("- Never call: ")[1].split("\n")[0]
    assert "Import only" not in text
