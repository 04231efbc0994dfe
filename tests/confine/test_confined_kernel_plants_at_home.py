"""A notebook in the home folder: the confined kernel may write the whole folder, and the mounts keep
read-only only the start-up files that exist when it starts. What it creates there that the user's
shell or git obeys runs later, unconfined, as the user.

Each test starts a real confined kernel with the notebook folder the home folder, runs the attack as a
model would, ends the kernel (its warden done), then does what the user does next, with that HOME,
and asserts that the planted command did not run: the warden moves aside, at the kernel's end, each
start-up file absent at its start that it created (twnb/config/planted.py).
"""

from __future__ import annotations

import os
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from support.confined_kernel import ConfinedKernel, Places, kernel_env, make_places, needs_landlock

import twnb

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300), needs_landlock]


@pytest.fixture
def places(tmp_path: Path) -> Places:
    places = make_places(tmp_path, notebook_in_home=True)
    # a project of the user's below the home folder, under git
    subprocess.run(["git", "init", "-q", str(places.home / "project")], check=True)
    return places


@pytest.fixture
def marker(places: Places) -> Path:
    return places.outside / "planted-command-ran"


@pytest.fixture
def plant(places: Places) -> Callable[[str], None]:
    def run(code: str) -> None:
        env = kernel_env(places)
        env["PYTHONPATH"] = str(Path(twnb.__file__).parents[1])
        kernel = ConfinedKernel(places, env)
        try:
            kernel.execute(code)  # refused or not: what counts is what runs later
            private = kernel.private_folder()
        finally:
            kernel.shutdown()
        deadline = time.monotonic() + 30
        while private.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert not private.exists(), "the warden did not finish"

    return run


def _user_env(places: Places) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TWNB_", "GIT_", "PYTEST"))}
    return {**env, "HOME": str(places.home), "GIT_CONFIG_NOSYSTEM": "1"}


def test_a_gitconfig_created_in_the_home_folder_runs_nothing_at_the_next_git_status(plant, places, marker):
    command = f"sh -c 'echo ran > {marker}' fsmonitor"
    config = f'[core]\n\tfsmonitor = "{command}"\n'
    plant(f"open('.gitconfig', 'w').write({config!r})")
    subprocess.run(
        ["git", "status", "--short"],
        cwd=places.home / "project",
        env=_user_env(places),
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert not marker.exists(), "the fsmonitor command a planted ~/.gitconfig named ran at git status"


def test_a_login_script_created_in_the_home_folder_never_runs_in_the_next_shell(plant, places, marker):
    script = f"echo ran > {marker}\n"
    plant(f"open('.bash_profile', 'w').write({script!r})")
    subprocess.run(
        ["bash", "-l", "-c", "true"], env=_user_env(places), capture_output=True, timeout=60, check=False
    )
    assert not marker.exists(), "a planted ~/.bash_profile ran in the user's next login shell"


def test_a_git_config_created_in_an_absent_config_folder_runs_nothing_at_the_next_git_status(
    plant, places, marker
):
    command = f"sh -c 'echo ran > {marker}' fsmonitor"
    config = f'[core]\n\tfsmonitor = "{command}"\n'
    plant(f"import os\nos.makedirs('.config/git')\nopen('.config/git/config', 'w').write({config!r})")
    env = {k: v for k, v in _user_env(places).items() if k != "XDG_CONFIG_HOME"}  # git reads ~/.config/git
    subprocess.run(
        ["git", "status", "--short"],
        cwd=places.home / "project",
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    assert not marker.exists(), "the fsmonitor command a planted ~/.config/git/config named ran at git status"
