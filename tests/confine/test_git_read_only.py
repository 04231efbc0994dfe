"""A repository at the top of the notebook's folder is read-only to a confined kernel (plan.py
`git_places`): its `.git/config` (`core.fsmonitor = COMMAND` runs at every `git status`, which shell
prompts, editors and JupyterLab's git extension run on their own, outside the confinement) and
`.git/hooks/` cannot be written, nor the folder a `.git` file names.

Each attack is written as a model would; the kernel's write fails at the operating system, and a
plain `git status` the test runs afterwards, outside, runs nothing. Real confined kernels.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from support.confined_kernel import ConfinedKernel, Places, make_places, needs_landlock

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300), needs_landlock]

FSMONITOR = """\
import errno
try:
    with open({config!r}, 'a') as config:
        config.write('[core]\\n\\tfsmonitor = "touch {marker}; false"\\n')
    said = 'written'
except OSError as error:
    said = errno.errorcode[error.errno]
said
"""
HOOK = """\
import errno, os
try:
    with open({hook!r}, 'w') as hook:
        hook.write('#!/bin/sh\\ntouch {marker}\\n')
    os.chmod({hook!r}, 0o755)
    said = 'written'
except OSError as error:
    said = errno.errorcode[error.errno]
said
"""


def _git(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", "-C", str(folder), *args], capture_output=True, text=True, timeout=60, check=False
    )


def _attempt(kernel: ConfinedKernel, code: str) -> str:
    """What the kernel's code said of its write: 'written', or the error's name."""
    assert kernel.execute(code)["status"] == "ok"
    said: str = kernel.value("said")
    return said


@pytest.fixture
def repository(tmp_path: Path) -> Places:
    places = make_places(tmp_path)
    assert _git(places.notebook, "init", "-q").returncode == 0
    return places


def test_the_kernel_cannot_set_fsmonitor_in_the_notebook_folders_git_config(
    repository: Places, kernel_in: type[ConfinedKernel]
) -> None:
    marker = repository.outside / "fsmonitor-ran"
    kernel = kernel_in(repository)
    code = FSMONITOR.format(config=".git/config", marker=marker)
    assert _attempt(kernel, code) in ("EROFS", "EACCES")
    kernel.shutdown()
    assert "fsmonitor" not in (repository.notebook / ".git" / "config").read_text()
    assert _git(repository.notebook, "status").returncode == 0
    assert not marker.exists(), "git status ran the kernel's fsmonitor command"


def test_the_kernel_cannot_write_a_hook(repository: Places, kernel_in: type[ConfinedKernel]) -> None:
    marker = repository.outside / "hook-ran"
    kernel = kernel_in(repository)
    assert _attempt(kernel, HOOK.format(hook=".git/hooks/pre-commit", marker=marker)) in ("EROFS", "EACCES")
    kernel.shutdown()
    assert not (repository.notebook / ".git" / "hooks" / "pre-commit").exists()
    (repository.notebook / "a.txt").write_text("a\n")
    _git(repository.notebook, "add", "a.txt")
    _git(repository.notebook, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "a")
    assert not marker.exists(), "git commit ran the kernel's hook"


def test_the_folder_a_git_file_names_is_read_only_too(
    tmp_path: Path, kernel_in: type[ConfinedKernel]
) -> None:
    places = make_places(tmp_path)
    # `.git` a file naming a folder of the notebook's (as `git worktree` and submodules make them)
    separate = places.notebook / "repo-data"
    assert _git(places.notebook, "init", "-q", f"--separate-git-dir={separate}").returncode == 0
    assert (places.notebook / ".git").is_file()
    marker = places.outside / "fsmonitor-ran"
    kernel = kernel_in(places)
    assert _attempt(kernel, FSMONITOR.format(config="repo-data/config", marker=marker)) in ("EROFS", "EACCES")
    replaced = "open('.git', 'w').write('gitdir: elsewhere\\n')"
    assert kernel.execute(replaced)["status"] == "error"  # nor can it point `.git` elsewhere
    kernel.shutdown()
    assert _git(places.notebook, "status").returncode == 0
    assert not marker.exists(), "git status ran the kernel's fsmonitor command"
