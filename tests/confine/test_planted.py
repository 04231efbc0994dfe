"""What a confined kernel leaves for a later program that obeys it unconfined is moved aside when the
kernel ends (twnb/config/planted.py): a `.git` it made (git runs `core.fsmonitor` at every `git
status`), a module or package that would shadow an installed one (the next plain Python started in
the folder imports it before site-packages). `twnb trust` lists them; `twnb trust accept` puts them
back. Each attack is written as a model would; the test then runs, outside, what a person would run
next (`git status`, a plain Python importing yaml) and asserts the planted code never ran.

Real confined kernels (the kernelspec's launcher, Landlock, seccomp), a real git and Python.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support.confined_kernel import ConfinedKernel, Places, make_places, needs_landlock

from twnb.config import FolderQuarantine

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300), needs_landlock]

PLANT_GIT = """\
import subprocess, os
os.makedirs('.git/hooks', exist_ok=True)
os.makedirs('.git/objects', exist_ok=True)
os.makedirs('.git/refs', exist_ok=True)
open('.git/HEAD', 'w').write('ref: refs/heads/main\\n')
open('.git/config', 'w').write(
    '[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = "touch {marker}; false"\\n'
)
"""


def _plant_module(path: str, marker: Path) -> str:
    """A model's code writing a module whose import writes `marker`."""
    content = f"open({str(marker)!r}, 'w').write('planted')\n"
    return f"open({path!r}, 'w').write({content!r})"


@pytest.fixture
def places(tmp_path: Path) -> Places:
    return make_places(tmp_path)


def _run_and_end(kernel: ConfinedKernel, code: str, within_s: float = 30.0) -> None:
    reply = kernel.execute(code)
    assert reply["status"] == "ok", reply  # the kernel could write it: the mounts do not cover it
    private = kernel.private_folder()
    kernel.shutdown()
    deadline = time.monotonic() + within_s
    while private.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not private.exists(), "the warden did not finish"


def _outside_env(places: Places) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TWNB_", "XDG_STATE", "PYTHONPATH"))}
    env["HOME"] = str(places.home)
    return env


def _twnb(places: Places, *args: str) -> subprocess.CompletedProcess[str]:
    env = _outside_env(places)
    env["PYTHONPATH"] = os.environ.get("PYTHONPATH", "")
    return subprocess.run(
        [sys.executable, "-m", "twnb.cli", "trust", "--folder", str(places.notebook), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _quarantined(places: Places) -> dict[str, Any]:
    return FolderQuarantine(places.notebook, {"HOME": str(places.home)}).quarantined()


def test_a_git_the_kernel_made_is_moved_aside_and_git_status_runs_nothing(
    places: Places, kernel_in: type[ConfinedKernel]
) -> None:
    marker = places.outside / "fsmonitor-ran"
    _run_and_end(kernel_in(places), PLANT_GIT.format(marker=marker))
    assert not (places.notebook / ".git").exists()
    subprocess.run(["git", "status"], cwd=places.notebook, capture_output=True, timeout=60, check=False)
    assert not marker.exists(), "git status ran the kernel's fsmonitor command"
    entry = _quarantined(places)[".git"]
    assert entry["moved_to"] == ".git.twnb-quarantined" and "git runs its config" in entry["what"]


def test_twnb_trust_lists_the_moved_git_and_accept_puts_it_back(
    places: Places, kernel_in: type[ConfinedKernel]
) -> None:
    _run_and_end(kernel_in(places), PLANT_GIT.format(marker=places.outside / "m"))
    listed = _twnb(places)
    assert (
        ".git: a repository's .git (git runs its config and hooks), moved aside to .git.twnb-quarantined"
        in (listed.stdout)
    )
    accepted = _twnb(places, "accept", ".git", "--yes")
    assert accepted.returncode == 0, accepted.stderr
    assert (places.notebook / ".git" / "config").is_file() and ".git" not in _quarantined(places)


@pytest.mark.parametrize("planted", ["yaml.py", "yaml/__init__.py"])
def test_a_module_that_would_shadow_an_installed_one_is_not_imported_later(
    places: Places, kernel_in: type[ConfinedKernel], planted: str
) -> None:
    marker = places.outside / "planted-module-ran"
    code = f"import os\nos.makedirs(os.path.dirname({planted!r}) or '.', exist_ok=True)\n"
    _run_and_end(kernel_in(places), code + _plant_module(planted, marker))
    plain = subprocess.run(  # the next plain Python in the folder: the folder before site-packages
        [sys.executable, "-c", "import yaml; print(yaml.__file__)"],
        cwd=places.notebook,
        env=_outside_env(places),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert not marker.exists(), "a later Python imported the kernel's yaml"
    assert plain.returncode == 0 and str(places.notebook) not in plain.stdout
    top = planted.split("/")[0]
    assert _quarantined(places)[top]["moved_to"] == f"{top}.twnb-quarantined"


def test_a_module_of_a_name_nothing_installs_is_left_alone(
    places: Places, kernel_in: type[ConfinedKernel]
) -> None:
    _run_and_end(kernel_in(places), "open('my_analysis_helpers.py', 'w').write('X = 1\\n')")
    assert (places.notebook / "my_analysis_helpers.py").read_text() == "X = 1\n"
    assert _quarantined(places) == {}


def test_a_module_the_user_kept_there_before_is_left_alone(
    places: Places, kernel_in: type[ConfinedKernel]
) -> None:
    (places.notebook / "yaml.py").write_text("# the user's own, before the kernel\n")
    time.sleep(0.1)  # older than the session's start by more than the clock's slack
    _run_and_end(kernel_in(places), "x = open('yaml.py').read()")
    assert (places.notebook / "yaml.py").exists() and _quarantined(places) == {}


def test_the_record_says_what_was_moved(places: Places, kernel_in: type[ConfinedKernel]) -> None:
    _run_and_end(kernel_in(places), "open('json.py', 'w').write('')")
    record = json.loads(
        (FolderQuarantine(places.notebook, {"HOME": str(places.home)}).record_dir / "record.json").read_text()
    )
    assert record["quarantined"]["json.py"]["what"] == "a module that would shadow the installed json"


def test_a_module_pandas_imports_if_it_finds_it_is_moved_aside_and_reported(
    places: Places, kernel_in: type[ConfinedKernel]
) -> None:
    """numexpr: nothing installs it, pandas imports it at `import pandas` if it finds it."""
    _run_and_end(kernel_in(places), "open('numexpr.py', 'w').write('')")
    assert not (places.notebook / "numexpr.py").exists()
    entry = _quarantined(places)["numexpr.py"]
    assert entry["moved_to"] == "numexpr.py.twnb-quarantined"
    assert entry["what"] == "a module that pandas imports if it finds it"


POISON_CACHE = """\
import importlib._bootstrap_external as external, importlib.util, os
source = os.stat('helpers.py')
code = compile("open({marker!r}, 'w').write('planted')", 'helpers.py', 'exec')
os.makedirs('__pycache__', exist_ok=True)
with open(importlib.util.cache_from_source('helpers.py'), 'wb') as cache:
    cache.write(external._code_to_timestamp_pyc(code, int(source.st_mtime), source.st_size))
"""


def test_a_compiled_module_the_kernel_wrote_for_the_users_module_is_not_run_later(
    places: Places, kernel_in: type[ConfinedKernel]
) -> None:
    marker = places.outside / "poisoned-cache-ran"
    (places.notebook / "helpers.py").write_text("VALUE = 42\n")
    _run_and_end(kernel_in(places), POISON_CACHE.format(marker=str(marker)))
    plain = subprocess.run(  # the next plain Python in the folder imports the user's module
        [sys.executable, "-c", "import helpers; print(helpers.VALUE)"],
        cwd=places.notebook,
        env=_outside_env(places),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert not marker.exists(), "a later Python ran the kernel's compiled module"
    assert plain.stdout.strip() == "42", plain.stderr


@pytest.mark.parametrize(
    ("planted", "tool"),
    [
        ("matplotlibrc", "matplotlib"),
        ("conftest.py", "pytest"),
        ("tests/conftest.py", "pytest"),
        ("mypy.ini", "mypy"),
        (".mypy.ini", "mypy"),
        ("pytest.ini", "pytest"),
        ("tests/tox.ini", "pytest"),
        (".pdbrc", "pdb"),
        ("pylintrc", "pylint"),
        (".coveragerc", "coverage"),
        (".flake8", "flake8"),
        (".pre-commit-config.yaml", "pre-commit"),
    ],
)
def test_a_file_a_tool_obeys_that_the_kernel_wrote_is_moved_aside_naming_the_tool(
    places: Places, kernel_in: type[ConfinedKernel], planted: str, tool: str
) -> None:
    code = f"import os\nos.makedirs(os.path.dirname({planted!r}) or '.', exist_ok=True)\n"
    _run_and_end(kernel_in(places), code + f"open({planted!r}, 'w').write('# planted\\n')")
    assert not (places.notebook / planted).exists()
    entry = _quarantined(places)[planted]
    assert entry["moved_to"] == f"{planted}.twnb-quarantined" and tool in entry["what"]


def test_twnb_trust_lists_a_moved_matplotlibrc_and_accept_puts_it_back(
    places: Places, kernel_in: type[ConfinedKernel]
) -> None:
    _run_and_end(kernel_in(places), "open('matplotlibrc', 'w').write('backend: agg\\n')")
    assert "matplotlibrc: a matplotlibrc (matplotlib imports the backend" in _twnb(places).stdout
    accepted = _twnb(places, "accept", "matplotlibrc", "--yes")
    assert accepted.returncode == 0, accepted.stderr
    assert (places.notebook / "matplotlibrc").read_text() == "backend: agg\n"
    assert "matplotlibrc" not in _quarantined(places)


def test_a_conftest_the_user_kept_there_before_is_left_alone(
    places: Places, kernel_in: type[ConfinedKernel]
) -> None:
    (places.notebook / "conftest.py").write_text("# the user's own, before the kernel\n")
    time.sleep(0.1)  # older than the session's start by more than the clock's slack
    _run_and_end(kernel_in(places), "x = open('conftest.py').read()")
    assert (places.notebook / "conftest.py").exists() and _quarantined(places) == {}


def test_a_home_start_up_file_the_kernel_created_is_moved_aside_and_accept_puts_it_back(
    tmp_path: Path, kernel_in: type[ConfinedKernel]
) -> None:
    at_home = make_places(tmp_path, notebook_in_home=True)
    code = "import os\nos.makedirs('.jupyter/lab')\nos.makedirs('.config/git')\n"
    code += "open('.gitconfig', 'w').write('[user]\\n')"
    _run_and_end(kernel_in(at_home), code)
    assert not (at_home.home / ".gitconfig").exists() and not (at_home.home / ".jupyter").exists()
    quarantined = _quarantined(at_home)
    assert quarantined[".gitconfig"]["moved_to"] == ".gitconfig.twnb-quarantined"
    assert quarantined[".jupyter"]["moved_to"] == ".jupyter.twnb-quarantined"  # moved whole
    assert quarantined[".config"]["moved_to"] == ".config.twnb-quarantined"  # absent at the start
    assert ".gitconfig: a home folder start-up file absent at the start" in _twnb(at_home).stdout
    accepted = _twnb(at_home, "accept", ".gitconfig", "--yes")
    assert accepted.returncode == 0, accepted.stderr
    assert (at_home.home / ".gitconfig").read_text() == "[user]\n"


def test_a_home_start_up_file_the_user_had_before_is_left_alone(
    tmp_path: Path, kernel_in: type[ConfinedKernel]
) -> None:
    at_home = make_places(tmp_path, notebook_in_home=True)
    (at_home.home / ".bash_profile").write_text("# the user's own\n")
    time.sleep(0.1)  # older than the session's start by more than the clock's slack
    _run_and_end(kernel_in(at_home), "x = open('.bash_profile').read()")
    assert (at_home.home / ".bash_profile").read_text() == "# the user's own\n"
    assert _quarantined(at_home) == {}


def test_a_vscode_folder_the_kernel_made_is_moved_aside_whole_naming_vs_code(
    places: Places, kernel_in: type[ConfinedKernel]
) -> None:
    code = "import os\nos.makedirs('project/.vscode')\nopen('project/.vscode/settings.json', 'w').write('{}')"
    _run_and_end(kernel_in(places), code)
    assert not (places.notebook / "project" / ".vscode").exists()
    entry = _quarantined(places)["project/.vscode"]
    assert entry["moved_to"] == "project/.vscode.twnb-quarantined" and "VS Code" in entry["what"]


def test_a_file_the_kernel_adds_to_a_vscode_folder_below_is_moved_aside_alone(
    places: Places, kernel_in: type[ConfinedKernel]
) -> None:
    editor = places.notebook / "project" / ".vscode"
    editor.mkdir(parents=True)
    (editor / "settings.json").write_text('{"editor.tabSize": 4}')
    time.sleep(0.1)  # older than the session's start by more than the clock's slack
    _run_and_end(kernel_in(places), "open('project/.vscode/tasks.json', 'w').write('{}')")
    assert (editor / "settings.json").is_file() and not (editor / "tasks.json").exists()
    assert _quarantined(places)["project/.vscode/tasks.json"]["moved_to"].endswith(".twnb-quarantined")
