"""The files a developer tool started in the notebook's folder obeys by running code, in a confined
kernel: those at the top of the folder at the start are read-only to the kernel (plan.py
`TOOL_CONFIG`, as `.git` is); those it makes are moved aside at its end (planted.py). The user's
`pyproject.toml` and `setup.cfg`, which the user edits while a kernel runs (a save by rename takes
the read-only mount away in the kernel's namespace), are judged by the settings that make a tool run
code (tool_settings.py): the user's edit of anything else is left alone, a plugin the kernel adds
after such a save is moved aside with the file.

Each attack is written as a model would; the test then does, outside, what the user does next (a
plain `pytest` in the folder) and asserts the planted code never ran. Real confined kernels.
"""

from __future__ import annotations

import errno
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from support.confined_kernel import ConfinedKernel, Places, make_places, needs_landlock
from support.planted_for_later import (
    PYPROJECT_ATTACK,
    RUN_THE_TESTS,
    SETUP_CFG_ATTACK,
    USER_PYPROJECT,
    USER_SETUP_CFG,
    attack,
    run_later,
    seed_project_files,
    seed_user_files,
)

from twnb.config import FolderQuarantine

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300), needs_landlock]

TRY_TO_WRITE = """\
import errno
try:
    with open({name!r}, 'a') as file:
        file.write('\\n[pytest]\\naddopts = -p timing_plugin\\n')
    said = 'written'
except OSError as error:
    said = errno.errorcode[error.errno]
said
"""
# The user's edits while the kernel runs: nothing that makes a tool run code.
USER_EDITS = {
    "pyproject.toml": USER_PYPROJECT.replace('version = "0.1.0"', 'version = "0.2.0"'),
    "setup.cfg": USER_SETUP_CFG.replace("max-line-length = 100", "max-line-length = 120"),
}
ATTACKS = {"pyproject.toml": PYPROJECT_ATTACK, "setup.cfg": SETUP_CFG_ATTACK}


@pytest.fixture
def places(tmp_path: Path) -> Places:
    places = make_places(tmp_path)
    seed_user_files(places.notebook)
    seed_project_files(places.notebook)
    return places


@pytest.fixture
def marker(places: Places) -> Path:
    return places.outside / "planted-code-ran"


def _end(kernel: ConfinedKernel) -> None:
    private = kernel.private_folder()
    kernel.shutdown()
    deadline = time.monotonic() + 30
    while private.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not private.exists(), "the warden did not finish"


def _save_as_an_editor_does(path: Path, text: str) -> None:
    """A new file in the same folder, renamed over the old one (Jupyter's and most editors' save)."""
    draft = path.with_name(f".{path.name}.saving")
    draft.write_text(text)
    os.replace(draft, path)


def _quarantined(places: Places) -> dict[str, Any]:
    return FolderQuarantine(places.notebook, {"HOME": str(places.home)}).quarantined()


def _twnb_trust(places: Places, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TWNB_", "XDG_STATE"))}
    env["HOME"] = str(places.home)
    return subprocess.run(
        [sys.executable, "-m", "twnb.cli", "trust", "--folder", str(places.notebook), *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize("name", ["pyproject.toml", "setup.cfg", "pytest.ini", ".pdbrc", ".coveragerc"])
def test_a_tool_config_the_user_had_at_the_start_is_read_only_to_the_kernel(
    places: Places, kernel_in: type[ConfinedKernel], name: str
) -> None:
    path = places.notebook / name
    if not path.exists():
        path.write_text("# the user's own\n")
    before = path.read_text()
    kernel = kernel_in(places)
    assert kernel.execute(TRY_TO_WRITE.format(name=name))["status"] == "ok"
    assert kernel.value("said") == errno.errorcode[errno.EROFS]
    _end(kernel)
    assert path.read_text() == before and _quarantined(places) == {}


def test_a_vscode_folder_the_user_had_at_the_start_is_read_only_to_the_kernel(
    places: Places, kernel_in: type[ConfinedKernel]
) -> None:
    (places.notebook / ".vscode").mkdir()
    kernel = kernel_in(places)
    assert kernel.execute(TRY_TO_WRITE.format(name=".vscode/tasks.json"))["status"] == "ok"
    assert kernel.value("said") == errno.errorcode[errno.EROFS]
    _end(kernel)
    assert list((places.notebook / ".vscode").iterdir()) == []


@pytest.mark.parametrize("name", ["pyproject.toml", "setup.cfg"])
def test_an_edit_the_user_saves_while_the_kernel_runs_is_left_alone(
    places: Places, kernel_in: type[ConfinedKernel], name: str
) -> None:
    kernel = kernel_in(places)
    assert kernel.execute("x = 1")["status"] == "ok"
    _save_as_an_editor_does(places.notebook / name, USER_EDITS[name])
    assert kernel.execute(f"text = open({name!r}).read()")["status"] == "ok"
    _end(kernel)
    assert (places.notebook / name).read_text() == USER_EDITS[name]
    assert _quarantined(places) == {}


@pytest.mark.parametrize("name", ["pyproject.toml", "setup.cfg"])
def test_a_plugin_the_kernel_adds_after_the_users_save_is_moved_aside_and_never_runs(
    places: Places, kernel_in: type[ConfinedKernel], marker: Path, name: str
) -> None:
    kernel = kernel_in(places)
    assert kernel.execute("x = 1")["status"] == "ok"
    _save_as_an_editor_does(places.notebook / name, USER_EDITS[name])  # the mount is gone with it
    assert kernel.execute(attack(ATTACKS[name], marker))["status"] == "ok"  # the kernel could write it
    _end(kernel)
    later = run_later(places.notebook, RUN_THE_TESTS, places.home)
    assert "1 passed" in later.stdout, later.stdout + later.stderr
    assert not marker.exists(), f"the plugin the kernel's {name} named ran in the user's pytest"
    entry = _quarantined(places)[name]
    assert entry["moved_to"] == f"{name}.twnb-quarantined" and "pytest" in entry["what"]
    moved = (places.notebook / entry["moved_to"]).read_text()
    assert moved.startswith(USER_EDITS[name])  # the user's edit is kept there, for `accept`
    assert f"{name}: a {name} with changed settings that make pytest" in _twnb_trust(places).stdout


@pytest.mark.parametrize("name", ["pyproject.toml", "setup.cfg"])
def test_a_plugin_in_a_file_the_kernel_makes_is_moved_aside_and_never_runs(
    places: Places, kernel_in: type[ConfinedKernel], marker: Path, name: str
) -> None:
    (places.notebook / name).unlink()
    kernel = kernel_in(places)
    assert kernel.execute(attack(ATTACKS[name], marker))["status"] == "ok"
    _end(kernel)
    run_later(places.notebook, RUN_THE_TESTS, places.home)
    assert not marker.exists(), f"the plugin the kernel's {name} named ran in the user's pytest"
    assert not (places.notebook / name).exists()


def test_a_pyproject_the_kernel_makes_for_a_package_is_left_alone(
    places: Places, kernel_in: type[ConfinedKernel]
) -> None:
    package = places.notebook / "mypackage"
    package.mkdir()
    kernel = kernel_in(places)
    code = f"open('mypackage/pyproject.toml', 'w').write({USER_PYPROJECT!r})"
    assert kernel.execute(code)["status"] == "ok"
    _end(kernel)
    assert (package / "pyproject.toml").read_text() == USER_PYPROJECT
    assert _quarantined(places) == {}
