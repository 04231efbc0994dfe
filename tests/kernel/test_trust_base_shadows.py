"""Modules that would shadow an installed one or that an installed library imports if it finds it
(pandas' numexpr), and the notebook's git repository, in a real kernel: what generated code plants
there runs later, outside every guard (the next kernel's `import yaml` or `import pandas`, twnb's own
load, a shell prompt's `git status`), so a Round may not write it (twnb/kernel/guard/trust_base.py,
shadowed_modules.py).

Each attack is written as a model would write it and run through `LiveShellExecutor` in a kernel whose
working folder is the notebook's (a git repository) and whose HOME is the test's own. Each asserts on the
folder that nothing was planted, and `test_nothing_planted_runs_in_the_next_kernel_or_at_git_status`
starts a fresh kernel there and runs git, as a person's next session would.
"""

from __future__ import annotations

import importlib.machinery
import subprocess
from pathlib import Path

import pytest

from twnb.kernel import KernelExecutor

pytestmark = pytest.mark.slow

SO_SUFFIX = importlib.machinery.EXTENSION_SUFFIXES[0]


@pytest.fixture(scope="module")
def places(live_kernel, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The module's kernel works in `nb`, made a git repository; `marker` is what planted code makes."""
    notebook = live_kernel.workdir
    subprocess.run(["git", "init", "-q", str(notebook)], check=True)
    return {"nb": notebook, "marker": tmp_path_factory.mktemp("markers") / "planted-code-ran"}


@pytest.fixture
def kernel(live_kernel, places):
    yield live_kernel
    assert not places["marker"].exists(), "planted code ran"


def _payload(marker: Path) -> str:
    return f"open({str(marker)!r}, 'w').write('ran')\n"


def _refused(result: dict) -> dict:
    assert result["status"] == "refused", result
    found = [r for r in result["refusals"] if r["rule"] == "trust-base"]
    assert found, result["refusals"]
    return found[0]


ATTACKS = {
    "yaml.py": ("yaml.py", "open('yaml.py', 'w').write(PAYLOAD)"),
    "package": (
        "pandas/__init__.py",
        "import os\nos.makedirs('pandas', exist_ok=True)\nopen('pandas/__init__.py', 'w').write(PAYLOAD)",
    ),
    "pyc": (
        "yaml.pyc",
        "import py_compile\nopen('draft_module.py', 'w').write(PAYLOAD)\n"
        "py_compile.compile('draft_module.py', cfile='yaml.pyc')",
    ),
    "extension": (f"yaml{SO_SUFFIX}", f"open('yaml{SO_SUFFIX}', 'wb').write(b'\\x7fELF')"),
    "renamed": (
        "numpy.py",
        "import os\nopen('numpy_tools.py', 'w').write(PAYLOAD)\nos.rename('numpy_tools.py', 'numpy.py')",
    ),
    "twnb": ("twnb.py", "from pathlib import Path\nPath('twnb.py').write_text(PAYLOAD)"),
    # names nothing installs that pandas imports at `import pandas` if it finds them
    "optional": ("numexpr.py", "open('numexpr.py', 'w').write(PAYLOAD)"),
    # (`tables`, imported by pandas' HDF functions: the empty folder the refused write leaves would make
    # pandas fail at import if it were `bottleneck`, a nuisance the guard leaves: runs no code)
    "optional-package": (
        "tables/__init__.py",
        "import os\nos.makedirs('tables', exist_ok=True)\nopen('tables/__init__.py', 'w').write(PAYLOAD)",
    ),
    "optional-package-moved": (
        "bottleneck",
        "import os\nos.makedirs('fast_stats', exist_ok=True)\n"
        "open('fast_stats/__init__.py', 'w').write(PAYLOAD)\nos.rename('fast_stats', 'bottleneck')",
    ),
    "optional-renamed": (
        "numexpr.py",
        "import os\nopen('fast_eval.py', 'w').write(PAYLOAD)\nos.rename('fast_eval.py', 'numexpr.py')",
    ),
    "optional-linked": (
        "numexpr.py",
        "import os\nopen('fast_eval.py', 'w').write(PAYLOAD)\nos.symlink('fast_eval.py', 'numexpr.py')",
    ),
}


@pytest.mark.parametrize("planted, code", list(ATTACKS.values()), ids=list(ATTACKS))
def test_a_module_that_would_shadow_an_installed_one_is_never_written(kernel, places, planted, code):
    code = code.replace("PAYLOAD", repr(_payload(places["marker"])))
    refusal = _refused(kernel.run_case(code))
    name = planted.split("/")[0].split(".")[0]
    assert f"`{name}`" in refusal["message"] and "name" in refusal["hint"]
    assert not (places["nb"] / planted).exists()


def test_the_refusal_of_an_optional_import_names_the_library_that_imports_it(kernel, places):
    refusal = _refused(kernel.run_case(ATTACKS["optional"][1].replace("PAYLOAD", "''")))
    assert "`numexpr`, which pandas imports if it finds it" in refusal["message"]
    assert "no installed library imports" in refusal["hint"]


def test_a_hook_command_is_never_written_into_the_git_config(kernel, places):
    config = places["nb"] / ".git" / "config"
    before = config.read_text(encoding="utf-8")
    refusal = _refused(kernel.run_case(GIT_ATTACK.replace("FSMONITOR", repr(_fsmonitor(places["marker"])))))
    assert "git repository" in refusal["message"] and "git" in refusal["hint"]
    assert config.read_text(encoding="utf-8") == before


def test_a_git_hook_is_never_written(kernel, places):
    code = (
        "import os\nos.makedirs('.git/hooks', exist_ok=True)\n"
        f"open('.git/hooks/pre-commit', 'w').write('#!/bin/sh\\ntouch {places['marker']}\\n')\n"
        "os.chmod('.git/hooks/pre-commit', 0o755)"
    )
    _refused(kernel.run_case(code))
    assert not (places["nb"] / ".git" / "hooks" / "pre-commit").exists()


def test_the_users_git_settings_are_never_written(fresh_kernel, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    kernel = fresh_kernel(HOME=str(home))
    code = "import os\nopen(os.path.expanduser('~/.gitconfig'), 'a').write('[core]\\n\\tfsmonitor = x\\n')"
    refusal = _refused(kernel.run_case(code))
    assert "git settings" in refusal["message"]
    assert not (home / ".gitconfig").exists()


# -- what must keep working -------------------------------------------------------------------------------


def test_a_helper_module_of_the_codes_own_is_written_and_imported(kernel, places):
    code = (
        "open('helpers.py', 'w').write('def double(x):\\n    return 2 * x\\n')\n"
        "import helpers\nanswer = helpers.double(21)"
    )
    result = kernel.run_case(code)
    assert result["status"] == "success", result
    assert kernel.evaluate("answer") == 42
    again = kernel.run_case("open('helpers.py', 'w').write('def double(x):\\n    return x + x\\n')")
    assert again["status"] == "success", again


def test_a_module_in_a_sub_folder_is_written_and_imported(kernel, places):
    code = (
        "import os\nos.makedirs('analysis', exist_ok=True)\n"
        "open('analysis/utils.py', 'w').write('TOTAL = 7\\n')\n"
        "from analysis import utils\ntotal = utils.TOTAL"
    )
    result = kernel.run_case(code)
    assert result["status"] == "success", result
    assert kernel.evaluate("total") == 7
    assert (places["nb"] / "analysis" / "utils.py").is_file()


def test_data_files_named_as_modules_are_written(kernel, places):
    code = (
        "import pandas as pd\npd.DataFrame({'a': [1]}).to_csv('pandas.csv')\nopen('yaml.txt', 'w').write('x')"
    )
    result = kernel.run_case(code)
    assert result["status"] == "success", result
    assert (places["nb"] / "pandas.csv").is_file() and (places["nb"] / "yaml.txt").is_file()


# -- the next session ----------------------------------------------------------------------------------------


NEXT_SESSION = "import yaml, pandas, numpy\n%load_ext twnb"


def _fsmonitor(marker: Path) -> str:
    return f"sh -c 'touch {marker}' x"


GIT_ATTACK = (
    "with open('.git/config', 'a') as f:\n    f.write('[core]\\n\\tfsmonitor = ' + FSMONITOR + '\\n')"
)


def test_nothing_planted_runs_in_the_next_kernel_or_at_git_status(kernel, places, kernel_in):
    """After every attack of this module, a person's next kernel in the folder imports the shadowed
    names and loads twnb, and their shell prompt runs git status."""
    payload = repr(_payload(places["marker"]))
    for _, code in ATTACKS.values():
        _refused(kernel.run_case(code.replace("PAYLOAD", payload)))
    _refused(kernel.run_case(GIT_ATTACK.replace("FSMONITOR", repr(_fsmonitor(places["marker"])))))
    reply = kernel_in(places["nb"]).execute(NEXT_SESSION)
    assert reply["status"] == "ok", reply
    subprocess.run(["git", "status"], cwd=places["nb"], capture_output=True, check=True)
    assert not places["marker"].exists()


def test_the_same_files_planted_by_hand_do_run_in_the_next_kernel_and_at_git_status(tmp_path, kernel_in):
    """The check above can fail: what the guard refused runs when it is there."""
    marker = tmp_path / "planted-code-ran"
    notebook = tmp_path / "nb"
    notebook.mkdir()
    (notebook / "yaml.py").write_text(_payload(marker), encoding="utf-8")
    kernel_in(notebook).execute("import yaml")
    assert marker.exists()
    marker.unlink()
    subprocess.run(["git", "init", "-q", str(notebook)], check=True)
    subprocess.run(["git", "config", "core.fsmonitor", _fsmonitor(marker)], cwd=notebook, check=True)
    subprocess.run(["git", "status"], cwd=notebook, capture_output=True, check=False)
    assert marker.exists()


def test_the_separate_kernels_guard_refuses_a_shadowing_module(tmp_path):
    """The guard sent as source to a kernel elsewhere judges by that kernel's own sys.path."""
    workdir = tmp_path / "nb"
    workdir.mkdir()
    with KernelExecutor(workdir) as executor:
        result = executor.run("open('yaml.py', 'w').write('raise SystemExit')")
    assert result.status == "refused", result
    assert result.refusals[0].rule == "trust-base" and "`yaml`" in result.refusals[0].message
    assert not (workdir / "yaml.py").exists()


def test_the_separate_kernels_guard_refuses_a_module_pandas_imports_if_it_finds_it(tmp_path):
    """The declared names too are read in that kernel (twnb/base/declared_imports.py, sent with it)."""
    workdir = tmp_path / "nb"
    workdir.mkdir()
    with KernelExecutor(workdir) as executor:
        result = executor.run("open('numexpr.py', 'w').write('raise SystemExit')")
    assert result.status == "refused", result
    assert "pandas imports if it finds it" in result.refusals[0].message
    assert not (workdir / "numexpr.py").exists()
