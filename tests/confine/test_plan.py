"""What the launcher decides before anything is confined: where a system cannot confine, and the
confinement's own rules never read from a file the kernel could write."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest

from twnb.config import resolve_settings
from twnb.config.planted import JUDGED_FILES, TOOL_FILES
from twnb.confine import unavailable_reason
from twnb.confine.plan import TOOL_CONFIG, ConfinementError, ConfinementPlan, plan_confinement
from twnb.confine.resolve_launch import launch_settings
from twnb.kernel.guard.trust_base import EDITOR_FOLDER, PROTECTED_NAMES, TOOL_NAMES


def test_a_system_without_landlock_is_refused_in_one_line() -> None:
    reason = unavailable_reason(0)
    assert reason is not None and "no Landlock" in reason and "\n" not in reason


def test_an_old_landlock_is_refused_saying_which_abi_it_needs() -> None:
    assert "needs 6" in (unavailable_reason(3) or "")


def test_confine_settings_in_the_notebooks_twnb_yaml_are_refused(tmp_path: Path) -> None:
    (tmp_path / "twnb.yaml").write_text("confine:\n  write: ['/']\n")
    resolved = resolve_settings(environ={}, workdir=tmp_path, home=tmp_path / "home")
    with pytest.raises(ConfinementError, match=r"confine_write is set in .*twnb\.yaml"):
        launch_settings(resolved)


def test_confine_settings_from_the_environment_widen_the_rules(tmp_path: Path) -> None:
    (tmp_path / "data").mkdir()
    environ = {
        "TWNB_CONFINE_READ": str(tmp_path / "data"),
        "TWNB_CONFINE_CONNECT": "db.example.com:5432, 8080",
    }
    resolved = resolve_settings(environ=environ, workdir=tmp_path / "nb", home=tmp_path / "home")
    plan = plan_confinement(
        workdir=tmp_path / "nb",
        private_dir=tmp_path / "p",
        settings=launch_settings(resolved)[0],
        home=tmp_path / "home",
        bind_ports=[1],
        proxy_port=9000,
    )
    assert (tmp_path / "data").resolve() in plan.read
    assert plan.connect == (5432, 8080, 9000) and plan.udp


def test_a_port_that_is_not_one_is_a_settings_error(tmp_path: Path) -> None:
    from twnb.config import SettingsError

    with pytest.raises(SettingsError, match="confine_connect"):
        resolve_settings(environ={"TWNB_CONFINE_CONNECT": "db.example.com"}, workdir=tmp_path, home=tmp_path)


def _plan_in(workdir: Path, tmp_path: Path) -> ConfinementPlan:
    resolved = resolve_settings(environ={}, workdir=workdir, home=tmp_path / "home")
    return plan_confinement(
        workdir=workdir,
        private_dir=tmp_path / "p",
        settings=launch_settings(resolved)[0],
        home=tmp_path / "home",
        bind_ports=[1],
        proxy_port=None,
    )


@pytest.mark.skipif(not Path("/dev/shm").is_dir(), reason="this system has no /dev/shm")
def test_the_kernel_gets_a_writable_private_dev_shm(tmp_path: Path) -> None:
    plan = _plan_in(tmp_path / "nb", tmp_path)
    assert plan.shm == Path("/dev/shm").resolve() and plan.shm in plan.write


@pytest.mark.skipif(not Path("/dev/shm").is_dir(), reason="this system has no /dev/shm")
def test_a_notebook_kept_in_dev_shm_is_not_hidden_by_a_private_one(tmp_path: Path) -> None:
    with tempfile.TemporaryDirectory(dir="/dev/shm") as folder:
        plan = _plan_in(Path(folder), tmp_path)
    assert plan.shm is None and Path("/dev/shm").resolve() not in plan.write


def _plan_with_record(tmp_path: Path, environ: dict[str, str], workdir: Path) -> ConfinementPlan:
    record = tmp_path / "home" / ".local" / "state" / "twnb" / "quarantine" / "key"
    record.mkdir(parents=True)
    resolved = resolve_settings(environ=environ, workdir=workdir, home=tmp_path / "home")
    return plan_confinement(
        workdir=workdir,
        private_dir=tmp_path / "p",
        settings=launch_settings(resolved)[0],
        home=tmp_path / "home",
        bind_ports=[1],
        proxy_port=None,
        record_dir=record,
    )


def test_the_quarantine_record_is_readable_and_the_way_to_it_read_only_in_a_writable_home(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    plan = _plan_with_record(tmp_path, {}, home)
    record = (home / ".local" / "state" / "twnb" / "quarantine" / "key").resolve()
    assert record in plan.read
    assert (home / ".local").resolve() in plan.read_only  # no folder on the way can be renamed away


def test_a_writable_folder_inside_the_state_folder_is_refused(tmp_path: Path) -> None:
    state = tmp_path / "home" / ".local" / "state" / "twnb"
    (tmp_path / "nb").mkdir()
    with pytest.raises(ConfinementError, match="where twnb keeps the record"):
        _plan_with_record(tmp_path, {"TWNB_CONFINE_WRITE": str(state)}, tmp_path / "nb")


def test_gits_own_settings_in_a_writable_home_are_read_only(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = someone\n")
    plan = _plan_in(home, tmp_path)
    assert (home / ".gitconfig").resolve() in plan.read_only


def test_home_start_up_files_absent_in_a_writable_home_are_left_to_the_warden(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text("[user]\n\tname = someone\n")
    plan = _plan_in(home, tmp_path)
    assert (home / ".bash_profile").resolve() in plan.absent_trusted  # no mount can hold it
    assert (home / ".gitconfig").resolve() not in plan.absent_trusted  # mounted read-only instead
    assert (home / ".config").resolve() in plan.absent_trusted  # git/config in it: hidden where it exists


def test_no_home_start_up_file_is_left_to_the_warden_when_home_is_not_writable(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir()
    (tmp_path / "nb").mkdir()
    assert _plan_in(tmp_path / "nb", tmp_path).absent_trusted == ()


def test_a_repository_in_a_confine_write_folder_is_read_only(tmp_path: Path) -> None:
    data = tmp_path / "data"
    (data / ".git").mkdir(parents=True)
    resolved = resolve_settings(
        environ={"TWNB_CONFINE_WRITE": str(data)}, workdir=tmp_path / "nb", home=tmp_path / "home"
    )
    plan = plan_confinement(
        workdir=tmp_path / "nb",
        private_dir=tmp_path / "p",
        settings=launch_settings(resolved)[0],
        home=tmp_path / "home",
        bind_ports=[1],
        proxy_port=None,
    )
    assert (data / ".git").resolve() in plan.read_only


def test_tool_configs_at_the_top_of_a_writable_folder_are_read_only(tmp_path: Path) -> None:
    notebook = tmp_path / "nb"
    (notebook / ".vscode").mkdir(parents=True)
    (notebook / "sub").mkdir()
    for name in ("pyproject.toml", "setup.cfg", "pytest.ini", ".pdbrc", "sub/tox.ini"):
        (notebook / name).write_text("")
    read_only = _plan_in(notebook, tmp_path).read_only
    real = notebook.resolve()
    for name in ("pyproject.toml", "setup.cfg", "pytest.ini", ".pdbrc", ".vscode"):
        assert real / name in read_only, name
    assert real / "sub" / "tox.ini" not in read_only  # below the top: the warden's, at the end
    assert real / "tox.ini" not in read_only  # absent: nothing to mount


def test_the_three_lists_of_tool_configs_name_the_same_files() -> None:
    # The same names live in three layers that may not import each other at run time: the confined
    # kernel's read-only mounts (plan.py), the warden's end (planted.py) and the runtime guard, sent
    # as source into kernels (trust_base.py). A name added to one list only would leave a route open.
    mounted = set(TOOL_CONFIG)
    assert mounted == set(TOOL_FILES) | set(JUDGED_FILES) | {EDITOR_FOLDER}
    assert mounted <= TOOL_NAMES | PROTECTED_NAMES | {EDITOR_FOLDER}
