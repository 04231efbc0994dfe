"""Code verification: what generated code may do before it runs on the user's kernel."""

from __future__ import annotations

import pytest

from twnb.roles.verification import (
    DEFAULT_ALLOWED_MODULES,
    Refusal,
    Rule,
    VerificationConfig,
    allowable_modules,
    verify_code,
)


def texts(code: str, config: VerificationConfig | None = None) -> list[str]:
    """The refusals as the model reads them."""
    refusals = verify_code(code, config)
    assert refusals is not None
    return [str(r) for r in refusals]


def test_typical_analysis_code_passes() -> None:
    code = (
        "import pandas as pd\nimport numpy as np\nimport matplotlib.pyplot as plt\nfrom pathlib import Path\n"
        "df = pd.DataFrame({'a': np.arange(3)})\ndf.eval('b = a * 2', inplace=True)\n"
        "df.plot(); plt.savefig('a.png')\nnp.__version__, df\n"
    )
    assert verify_code(code) == []


def test_verification_off_returns_none() -> None:
    assert verify_code("exit()", VerificationConfig(enabled=False)) is None


@pytest.mark.parametrize(
    ("code", "line", "fragment"),
    [
        ("x = 1\nexit()", 2, "Function 'exit' is blocked: it would stop the user's kernel"),
        ("quit()", 1, "Function 'quit' is blocked"),
        ("import os\nos._exit(0)", 2, "Function 'os._exit' is blocked"),
        ("import os as o\no.kill(1, 9)", 2, "Function 'os.kill' is blocked"),
        ("from os import system", 1, "Function 'os.system' is blocked"),
        ("import shutil\nshutil.rmtree('data')", 2, "Function 'shutil.rmtree' is blocked"),
        ("y = eval('1 + 1')", 1, "Function 'eval' is blocked"),
        ("exec('x = 1')", 1, "Function 'exec' is blocked"),
        ("f = getattr", 1, "Function 'getattr' is blocked"),
        ("g = globals()", 1, "Function 'globals' is blocked"),
        ("m = __import__('os')", 1, "Function '__import__' is blocked"),
    ],
)
def test_blocked_functions_are_refused_naming_the_line(code: str, line: int, fragment: str) -> None:
    errors = texts(code)
    assert errors and errors[0].startswith(f"Line {line}: ")
    assert fragment in errors[0]


def test_blocked_subprocess_module_is_refused() -> None:
    errors = texts("import subprocess\nsubprocess.run(['ls'])")
    assert errors and "Importing module 'subprocess' is not allowed" in errors[0]


def test_module_outside_the_allow_list_is_refused() -> None:
    errors = texts("import requests")
    assert errors == [
        "Line 1: import requests -> Importing module 'requests' is not allowed. "
        "Use the modules suited to data analysis listed in your instructions."
    ]


def test_allow_list_is_configurable() -> None:
    config = VerificationConfig(allowed_modules=frozenset({"requests"}))
    assert verify_code("import requests", config) == []
    assert verify_code("import pandas", config)


def test_any_module_still_refuses_blocked_modules() -> None:
    config = VerificationConfig(allowed_modules=None)
    assert verify_code("import requests", config) == []
    assert verify_code("import ctypes", config)


def test_blocked_functions_are_configurable() -> None:
    config = VerificationConfig(blocked_functions=frozenset({"pandas.read_sql"}))
    assert verify_code("import pandas as pd\npd.read_sql('q', None)", config)
    assert verify_code("eval('1')", config) == []


def test_dunder_attribute_access_is_refused() -> None:
    errors = texts("x = ().__class__.__bases__")
    assert errors and "Attribute access to '__bases__' is blocked" in errors[0]


def test_harmless_dunders_are_allowed() -> None:
    assert verify_code("import pandas as pd\nprint(pd.__version__, pd.__name__)") == []


def test_dunder_subscript_is_refused() -> None:
    errors = texts("b = vals['__builtins__']")
    assert errors and "Subscript access to '__builtins__' is blocked" in errors[0]


def test_a_variable_named_like_a_builtin_is_not_the_builtin() -> None:
    assert verify_code("input = 'data.csv'\nprint(input)") == []


def test_method_with_a_blocked_name_on_an_object_is_allowed() -> None:
    # pandas' DataFrame.eval is not the builtin eval.
    assert verify_code("import pandas as pd\ndf = pd.DataFrame()\ndf.eval('a = 1')") == []


@pytest.mark.parametrize(
    ("code", "fragment"),
    [
        ("!ls -l", "A shell escape (!cmd) is refused"),
        ("files = !ls", "A shell escape (!cmd) is refused"),
        ("!pip install polars", "Installing packages (!pip) is refused"),
        ("%pip install polars", "Installing packages (%pip) is refused"),
        ("%conda install polars", "Installing packages (%conda) is refused"),
        ("%%bash\nrm -rf data", "A shell command (%%bash) is refused"),
        ("%run other.py", "The magic %run is not allowed"),
    ],
)
def test_shell_escapes_and_installs_are_refused(code: str, fragment: str) -> None:
    errors = texts(code)
    assert errors and fragment in errors[0]


def test_shell_is_allowed_when_approved() -> None:
    assert verify_code("!ls\n%pip install polars", VerificationConfig(allow_shell=True)) == []


def test_harmless_line_magics_are_allowed() -> None:
    code = "%matplotlib inline\n%time total = sum(range(10))\n%timeit -n 2 -r 1 sum(range(9))"
    assert verify_code(code) == []


def test_the_body_of_a_time_magic_is_verified() -> None:
    errors = texts("a = 1\n%time y = eval('1')")
    assert errors and errors[0].startswith("Line 2: ") and "Function 'eval' is blocked" in errors[0]


def test_the_body_of_a_time_cell_magic_is_verified_with_its_line() -> None:
    errors = texts("%%time\na = 1\nb = getattr(a, 'real')\n")
    assert errors and errors[0].startswith("Line 3: ") and "getattr" in errors[0]


def test_syntax_error_names_the_line() -> None:
    errors = texts("x = 1\ny = (")
    assert errors and errors[0].startswith("Line 2: y = ( -> Syntax error:")


def test_every_problem_is_reported() -> None:
    errors = texts("import os\nos.system('ls')\nexit()")
    assert [e.split(":")[0] for e in errors] == ["Line 2", "Line 3"]


def test_describe_lists_the_rules_stably() -> None:
    config = VerificationConfig()
    assert config.describe() == VerificationConfig().describe()
    assert "pandas" in config.describe() and "os.system" in config.describe()


def test_a_module_bound_to_another_name_is_judged_as_the_module() -> None:
    errors = texts("import os\nx = os\nx.system('rm -rf data')")
    assert errors == [
        "Line 3: x.system('rm -rf data') -> Function 'os.system' is blocked: it can damage "
        "the user's files or processes. Explain in text what you need instead."
    ]


def test_a_name_from_a_from_import_bound_again_is_followed() -> None:
    assert verify_code("from os import path\nq = path\nq.join('a')") == []
    assert "Function 'os.kill' is blocked" in texts("import os\nk = os\nk.kill(1, 9)")[0]


def test_a_submodule_bound_to_a_name_is_still_usable() -> None:
    assert verify_code("import os\np = os.path\np.join('a', 'b')") == []


def test_methods_of_computed_objects_are_not_judged_a_documented_limit() -> None:
    # verification.py's docstring: calls on objects the code computes are not resolved.
    assert verify_code("from pathlib import Path\nPath('old.csv').unlink(missing_ok=True)") == []


def test_modules_refused_for_the_allow_list_can_be_named_to_the_user() -> None:
    refusals = verify_code("import colorsys\nfrom subprocess import run\nimport colorsys.sub")
    assert allowable_modules(refusals or []) == ["colorsys"]  # subprocess is blocked, not allowable


def test_a_refusal_names_its_rule_line_subject_and_fix() -> None:
    assert verify_code("x = 1\nimport requests") == [
        Refusal(
            Rule.MODULE_NOT_ALLOWED,
            2,
            "import requests",
            "Importing module 'requests' is not allowed.",
            "Use the modules suited to data analysis listed in your instructions.",
            "requests",
        )
    ]


def test_a_chain_through_another_module_is_judged_as_the_function_it_reaches() -> None:
    (refusal,) = verify_code("import shutil\nshutil.os.system('id')") or []
    assert (refusal.rule, refusal.subject, refusal.line) == (Rule.BLOCKED_FUNCTION, "os.system", 2)


def test_a_module_reached_by_a_chain_is_allowable_like_an_import() -> None:
    refusals = verify_code("import os\nos.sys.version") or []
    assert [r.rule for r in refusals] == [Rule.MODULE_NOT_ALLOWED]
    assert allowable_modules(refusals) == ["sys"]
    assert verify_code("import os\nos.sys.version", VerificationConfig(allowed_modules=None)) == []


def test_sys_modules_stays_refused_when_every_module_is_allowed() -> None:
    refusals = verify_code("import sys\nsys.modules['os']", VerificationConfig(allowed_modules=None)) or []
    assert [r.subject for r in refusals] == ["sys.modules"]


def test_a_module_passed_as_a_value_is_refused() -> None:
    refusals = verify_code("import pathlib\nprint(pathlib)") or []
    assert [r.rule for r in refusals] == [Rule.MODULE_AS_VALUE]


def test_binding_a_bypass_builtins_name_is_refused_where_it_is_bound() -> None:
    refusals = verify_code("def run(code, eval=None):\n    return code") or []
    assert [(r.rule, r.line, r.subject) for r in refusals] == [(Rule.SHADOWED_BUILTIN, 1, "eval")]


def test_a_refusal_as_data_round_trips_to_plain_values() -> None:
    (refusal,) = verify_code("exit()") or []
    assert refusal.to_dict()["rule"] == "blocked-function" and refusal.to_dict()["line"] == 1


# -- dynamic imports: judged by the name they import ----------------------------------------------------

ANY_MODULE = VerificationConfig(allowed_modules=None)


@pytest.mark.parametrize(
    ("code", "rule", "subject"),
    [
        ("from IPython.utils.importstring import import_item\nimport_item('subprocess').run(['x'])",
         Rule.BLOCKED_MODULE, "subprocess"),
        ("from IPython.utils.importstring import import_item as load\nload('os.system')('x')",
         Rule.BLOCKED_FUNCTION, "os.system"),
        ("from IPython.utils import importstring\nload = importstring.import_item\nload('ctypes')",
         Rule.BLOCKED_MODULE, "ctypes"),
        ("import pkgutil\npkgutil.resolve_name('os:system')('x')", Rule.BLOCKED_FUNCTION, "os.system"),
        ("import pkgutil\npkgutil.resolve_name('subprocess')", Rule.BLOCKED_MODULE, "subprocess"),
        ("import pydoc\npydoc.locate('subprocess.run')", Rule.BLOCKED_MODULE, "subprocess"),
        ("import pandas as pd\npd.compat._optional.import_optional_dependency('subprocess')",
         Rule.BLOCKED_MODULE, "subprocess"),
    ],
    ids=["import-item", "import-item-alias-attribute", "import-item-bound", "resolve-name-colon",
         "resolve-name", "pydoc-locate", "pandas-optional-dependency"],
)  # fmt: skip
def test_a_dynamic_import_of_a_literal_name_is_judged_as_that_import(code, rule, subject) -> None:
    refusals = verify_code(code, ANY_MODULE)
    assert refusals and (refusals[0].rule, refusals[0].subject) == (rule, subject), refusals


@pytest.mark.parametrize(
    "code",
    [
        "from IPython.utils.importstring import import_item\nimport_item('sub' + 'process')",
        "from IPython.utils.importstring import import_item\nname = 'os'\nimport_item(name)",
        "import pkgutil\nnames = ['os:system']\npkgutil.resolve_name(names[0])",
        "from IPython.utils.importstring import import_item\nlist(map(import_item, ['subprocess']))",
        "from IPython.utils.importstring import import_item\nloaders = {'x': import_item}",
    ],
    ids=["computed", "variable", "subscript", "passed-to-map", "kept-in-a-dict"],
)
def test_a_dynamic_import_whose_name_cannot_be_known_is_refused(code) -> None:
    refusals = verify_code(code, ANY_MODULE)
    assert [r.rule for r in refusals] == [Rule.DYNAMIC_IMPORT], refusals


def test_importlib_when_the_user_unblocks_it_is_judged_by_name() -> None:
    config = VerificationConfig(allowed_modules=None, blocked_modules=frozenset({"subprocess"}))
    assert verify_code("import importlib\nimportlib.import_module('json')", config) == []
    refused = verify_code("import importlib\nimportlib.import_module('subprocess')", config)
    assert refused and refused[0].rule == Rule.BLOCKED_MODULE


def test_a_dynamic_import_of_an_allowed_module_passes() -> None:
    code = "from IPython.utils.importstring import import_item\njoin = import_item('os.path.join')"
    assert verify_code(code) == []


@pytest.mark.parametrize(
    "code",
    [
        "from IPython.lib.backgroundjobs import BackgroundJobManager\nBackgroundJobManager().new(print, 1)",
        "import IPython.lib.backgroundjobs as jobs\njobs.BackgroundJobManager().new(print, 1)",
        "from IPython.lib import backgroundjobs\nbackgroundjobs.BackgroundJobManager().new(print, 1)",
        "import IPython\nIPython.lib.backgroundjobs.BackgroundJobManager().new(print, 1)",
        "from IPython.utils.importstring import import_item\n"
        "import_item('IPython.lib.backgroundjobs.BackgroundJobManager')().new(print, 1)",
    ],
    ids=["from-import", "import-as", "submodule", "chain", "import-item"],
)
def test_ipythons_background_jobs_are_judged_as_starting_a_thread(code: str) -> None:
    refusals = verify_code(code)
    assert refusals and "its jobs run in threads, as module 'threading' starts them" in str(refusals[0])
    assert allowable_modules(refusals) == ["threading"]  # allowing threads allows them, nothing else does


def test_background_jobs_pass_where_threading_is_allowed() -> None:
    job = "from IPython.lib.backgroundjobs import BackgroundJobManager\nBackgroundJobManager().new(print, 1)"
    assert verify_code(job, VerificationConfig(allowed_modules=DEFAULT_ALLOWED_MODULES | {"threading"})) == []
    assert verify_code(job, VerificationConfig(allowed_modules=None)) == []


@pytest.mark.parametrize(
    ("code", "module"),
    [
        ("import zipfile\nzipfile.threading.Thread(target=print).start()", "threading"),
        ("import zipfile\nzipfile._thread.start_new_thread(print, ())", "_thread"),
    ],
)
def test_a_thread_reached_through_an_allowed_module_is_judged_as_threading(code: str, module: str) -> None:
    refusals = verify_code(code)
    assert refusals and f"reaches module '{module}', which is not allowed" in str(refusals[0])
