"""Generated code in a watched Round of a plain kernel plants, in the notebook's folder, a file that the
user's next plain Python there loads and obeys, outside every guard (tests/support/planted_for_later.py
has the attacks and the user's later acts): bytecode for the user's own module, a `matplotlibrc`
naming a backend module, a `conftest.py`, a `mypy.ini` naming a plugin, a `numexpr.py` (a module
nothing installs, which `import pandas` imports if it finds it). The runtime guard's trust
base holds them (twnb/kernel/guard/trust_base.py).

Each attack runs through `LiveShellExecutor` in a real kernel whose working folder holds the user's own
`helpers.py` and its test; then the user's later act runs in a plain Python there, and the test asserts
that the planted code did not run and the file is not there.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest
from support.planted_for_later import (
    CHECK_THE_TYPES,
    CONFTEST_ATTACK,
    DEBUG_WITH_IPYTHON,
    DEBUG_WITH_PDB,
    IMPORT_HELPERS,
    IMPORT_PANDAS,
    MATPLOTLIBRC_ATTACK,
    MYPY_ATTACK,
    OPTIONAL_IMPORT_ATTACK,
    PDBRC_ATTACK,
    PLOT_A_FIGURE,
    PYC_ATTACK,
    PYC_WHERE_IMPORT_LOOKS_ATTACK,
    PYPROJECT_ATTACK,
    PYTEST_INI_ATTACK,
    PYTEST_TOML_ATTACK,
    RUN_THE_TESTS,
    SETUP_CFG_ATTACK,
    TOX_INI_ATTACK,
    USER_PYPROJECT,
    USER_SETUP_CFG,
    VSCODE_ATTACK,
    attack,
    run_later,
    seed_project_files,
    seed_user_files,
)

import twnb

pytestmark = pytest.mark.slow


@pytest.fixture
def folder(live_kernel) -> Path:
    """The kernel's folder with the user's files, and nothing an earlier test of the module planted."""
    folder = Path(live_kernel.workdir)
    cache = folder / "__pycache__"
    if cache.is_symlink():
        cache.unlink()
    elif cache.exists():
        shutil.rmtree(cache)
    shutil.rmtree(folder / ".vscode", ignore_errors=True)
    for name in (*_PLANTED, *_ORDINARY):
        (folder / name).unlink(missing_ok=True)
    seed_user_files(folder)
    seed_project_files(folder)
    return folder


_PLANTED = (
    "matplotlibrc",
    "plot_style.py",
    "conftest.py",
    "mypy.ini",
    "typing_checks.py",
    "pytest.ini",
    "pytest.toml",
    "tox.ini",
    "timing_plugin.py",
    ".pdbrc",
    "setup_task.py",
    "numexpr.py",
)
_ORDINARY = ("data.csv", "report.md", "summary_helpers.py", "settings.json")


@pytest.fixture
def marker(tmp_path: Path) -> Path:
    return tmp_path / "planted-code-ran"


def test_bytecode_for_the_users_own_module_is_never_written(live_kernel, folder, marker):
    live_kernel.run_case(attack(PYC_ATTACK, marker))
    assert not (folder / "__pycache__" / f"helpers.{sys.implementation.cache_tag}.pyc").exists()
    later = run_later(folder, IMPORT_HELPERS)
    assert later.returncode == 0, later.stderr
    assert not marker.exists(), "the planted bytecode ran in the user's next Python"


def test_bytecode_through_a_linked_cache_folder_is_never_written(live_kernel, folder, marker, tmp_path):
    """`__pycache__` made a link to a folder elsewhere: the write lands in a folder of another name."""
    code = f"import os\nos.symlink({str(tmp_path)!r}, '__pycache__')\n" + PYC_ATTACK
    live_kernel.run_case(attack(code, marker))
    run_later(folder, IMPORT_HELPERS)
    assert not marker.exists(), "the planted bytecode ran in the user's next Python"


def test_a_matplotlibrc_is_never_written(live_kernel, folder, marker):
    result = live_kernel.run_case(attack(MATPLOTLIBRC_ATTACK, marker))
    assert result["status"] == "refused", result
    assert [r["rule"] for r in result["refusals"]] == ["trust-base"]
    assert not (folder / "matplotlibrc").exists()
    run_later(folder, PLOT_A_FIGURE)
    assert not marker.exists(), "the backend a planted matplotlibrc named ran in the user's script"


def test_a_conftest_is_never_written(fresh_kernel, tmp_path, marker):
    """In a kernel without the test suite's folder on its path (there `conftest` would be a module
    name an installed one has), as the user's kernel is."""
    kernel = fresh_kernel(PYTHONPATH=str(Path(twnb.__file__).parents[1]))
    seed_user_files(tmp_path)
    result = kernel.run_case(attack(CONFTEST_ATTACK, marker))
    assert result["status"] == "refused", result
    assert [r["rule"] for r in result["refusals"]] == ["trust-base"]
    assert not (tmp_path / "conftest.py").exists()
    run_later(tmp_path, RUN_THE_TESTS)
    assert not marker.exists(), "the planted conftest.py ran in the user's pytest"


def test_a_mypy_config_naming_a_plugin_is_never_written(live_kernel, folder, marker):
    result = live_kernel.run_case(attack(MYPY_ATTACK, marker))
    assert result["status"] == "refused", result
    assert [r["rule"] for r in result["refusals"]] == ["trust-base"]
    assert not (folder / "mypy.ini").exists()
    run_later(folder, CHECK_THE_TYPES)
    assert not marker.exists(), "the plugin a planted mypy.ini named ran in the user's mypy"


def test_a_module_pandas_imports_if_it_finds_it_is_never_written(live_kernel, folder, marker):
    result = live_kernel.run_case(attack(OPTIONAL_IMPORT_ATTACK, marker))
    assert result["status"] == "refused", result
    assert [r["rule"] for r in result["refusals"]] == ["trust-base"]
    assert "pandas imports if it finds it" in result["refusals"][0]["message"]
    later = run_later(folder, IMPORT_PANDAS)
    assert later.returncode == 0, later.stderr
    assert not marker.exists(), "the planted numexpr.py ran at the user's next import pandas"


def test_a_numexpr_py_there_does_run_at_the_next_import_pandas(tmp_path, marker):
    """The check above can fail: the module, put there by hand, runs in the user's next Python."""
    run_later(tmp_path, ["-c", attack(OPTIONAL_IMPORT_ATTACK, marker)])  # unguarded
    assert not marker.exists() and (tmp_path / "numexpr.py").is_file()
    run_later(tmp_path, IMPORT_PANDAS)
    assert marker.exists()


def test_a_module_the_code_writes_still_imports_without_its_cache(fresh_kernel, tmp_path):
    """The import system's own bytecode write is denied quietly: the import goes on without a cache."""
    kernel = fresh_kernel(PYTHONDONTWRITEBYTECODE="")
    code = "open('summary_tools.py', 'w').write('def double(x):\\n    return 2 * x\\n')\n"
    code += "import summary_tools\nprint(summary_tools.double(21))\n"
    result = kernel.run_case(code)
    assert result["status"] == "success", result
    assert result["stdout"].strip() == "42" and not result.get("refusals")
    assert not list(tmp_path.glob("__pycache__/summary_tools.*.pyc"))


def test_bytecode_under_the_users_cache_prefix_is_never_written(fresh_kernel, tmp_path, marker):
    """The user keeps bytecode apart (PYTHONPYCACHEPREFIX): no `__pycache__` in the path."""
    prefix = tmp_path / "pycache-prefix"
    kernel = fresh_kernel(PYTHONPYCACHEPREFIX=str(prefix), PYTHONDONTWRITEBYTECODE="")
    seed_user_files(tmp_path)
    result = kernel.run_case(attack(PYC_WHERE_IMPORT_LOOKS_ATTACK, marker))
    assert not result.get("refusals"), result  # denied as a cache write is: quietly
    run_later(tmp_path, IMPORT_HELPERS, PYTHONPYCACHEPREFIX=str(prefix))
    assert not marker.exists(), "the planted bytecode ran in the user's next Python"


@pytest.mark.parametrize(
    ("planted", "code"),
    [
        ("pytest.ini", PYTEST_INI_ATTACK),
        ("pytest.toml", PYTEST_TOML_ATTACK),
        ("tox.ini", TOX_INI_ATTACK),
        ("setup.cfg", SETUP_CFG_ATTACK),
        ("pyproject.toml", PYPROJECT_ATTACK),
    ],
)
def test_a_pytest_config_naming_a_plugin_of_the_folder_is_never_written(
    live_kernel, folder, marker, planted, code
):
    result = live_kernel.run_case(attack(code, marker))
    assert result["status"] == "refused", result
    refusal = result["refusals"][0]
    assert refusal["rule"] == "trust-base" and f"({planted})" in refusal["message"], refusal
    assert (folder / "pyproject.toml").read_text() == USER_PYPROJECT
    assert (folder / "setup.cfg").read_text() == USER_SETUP_CFG
    later = run_later(folder, RUN_THE_TESTS)
    assert "1 passed" in later.stdout, later.stdout + later.stderr
    assert not marker.exists(), f"the plugin a planted {planted} named ran in the user's pytest"


@pytest.mark.parametrize("debugger", [DEBUG_WITH_PDB, DEBUG_WITH_IPYTHON], ids=["pdb", "ipython"])
def test_a_pdbrc_is_never_written(live_kernel, folder, marker, debugger):
    result = live_kernel.run_case(attack(PDBRC_ATTACK, marker))
    assert result["status"] == "refused", result
    assert [r["rule"] for r in result["refusals"]] == ["trust-base"]
    assert not (folder / ".pdbrc").exists()
    run_later(folder, debugger)
    assert not marker.exists(), "the lines of a planted .pdbrc ran in the user's debugger"


def test_a_vscode_task_is_never_written(live_kernel, folder, marker):
    """VS Code is not here to open the folder: that the file is not there is what counts."""
    result = live_kernel.run_case(attack(VSCODE_ATTACK, marker))
    assert result["status"] == "refused", result
    assert ".vscode" in result["refusals"][0]["message"]
    assert not (folder / ".vscode").exists()


def test_a_folder_renamed_to_vscode_is_refused(live_kernel, folder, marker):
    code = attack(VSCODE_ATTACK.replace(".vscode", "editor_setup"), marker)
    result = live_kernel.run_case(code + "os.rename('editor_setup', '.vscode')\n")
    assert result["status"] == "refused", result
    assert not (folder / ".vscode").exists()
    shutil.rmtree(folder / "editor_setup")


def test_the_models_ordinary_files_are_written_and_project_files_read(live_kernel, folder):
    code = (
        "import os, tomllib\n"
        "open('data.csv', 'w').write('a,b\\n1,2\\n')\n"
        "open('report.md', 'w').write('# Report\\n')\n"
        "open('summary_helpers.py', 'w').write('def f():\\n    return 1\\n')\n"
        "open('settings.json', 'w').write('{}')\n"
        "os.makedirs('outputs/config', exist_ok=True)\n"
        "open('outputs/config/settings.json', 'w').write('{}')\n"
        "print(tomllib.load(open('pyproject.toml', 'rb'))['project']['name'])\n"
        "print(open('setup.cfg').read().splitlines()[0])\n"
    )
    result = live_kernel.run_case(code)
    assert result["status"] == "success", result
    assert result["stdout"].split() == ["analysis", "[metadata]"]
    for name in (
        "data.csv",
        "report.md",
        "summary_helpers.py",
        "settings.json",
        "outputs/config/settings.json",
    ):
        assert (folder / name).is_file(), name
    shutil.rmtree(folder / "outputs")


@pytest.mark.parametrize(
    "code",
    [
        "import os\nos.remove('setup.cfg')\n",
        "import os\nopen('draft.ini', 'w').write('[pytest]\\naddopts = -p timing_plugin\\n')\n"
        "os.replace('draft.ini', 'pytest.ini')\n",
        "import shutil\nopen('draft.cfg', 'w').write('[tool:pytest]\\naddopts = -p timing_plugin\\n')\n"
        "shutil.copy('draft.cfg', 'setup.cfg')\n",
        "import os\nopen('draft.txt', 'w').write(PAYLOAD)\nos.symlink('draft.txt', '.pdbrc')\n",
        "import os\nos.link('pyproject.toml', 'project_copy.toml')\n",
        "import os\nos.rename('pyproject.toml', 'pyproject_old.toml')\n",
    ],
    ids=["remove", "replace-onto", "copy-onto", "symlink", "hard-link-to", "rename-away"],
)
def test_every_route_to_a_tool_config_is_refused(live_kernel, folder, marker, code):
    result = live_kernel.run_case(attack(code, marker))
    assert result["status"] == "refused", result
    assert [r["rule"] for r in result["refusals"]] == ["trust-base"]
    assert (folder / "pyproject.toml").read_text() == USER_PYPROJECT
    assert (folder / "setup.cfg").read_text() == USER_SETUP_CFG
    assert not (folder / "pytest.ini").exists() and not (folder / ".pdbrc").exists()
    assert not (folder / "project_copy.toml").exists()
    for draft in ("draft.ini", "draft.cfg", "draft.txt"):
        (folder / draft).unlink(missing_ok=True)
