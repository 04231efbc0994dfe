"""A confined kernel plants, in the notebook's folder it may write, a file that the user's next plain
Python there loads and obeys: the payload then runs outside the confinement, as the user
(tests/support/planted_for_later.py has the attacks and the user's later acts).

Each test seeds the user's own `helpers.py` and its test, starts a real confined kernel (the kernelspec's
launcher, Landlock, seccomp) in the folder, runs the attack there as a model would, ends the kernel (so
whatever its end does, the quarantine included, has been done), then does what the user does next in a
plain Python in the folder, and asserts that the planted code did not run.

The forged bytecode is removed by the warden, and the planted `matplotlibrc`, `conftest.py`,
`mypy.ini`, `numexpr.py` (which `import pandas` imports if it finds it), pytest configs naming a
plugin, `.pdbrc` and `.vscode` are moved aside by it (twnb/config/planted.py; the user's own
`pyproject.toml` and `setup.cfg`: test_tool_config.py).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from fakellm import FakeLLMServer
from support.confined_kernel import ConfinedKernel, Places, kernel_env, make_places, needs_landlock
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
    PYTEST_INI_ATTACK,
    PYTEST_TOML_ATTACK,
    RUN_THE_TESTS,
    TOX_INI_ATTACK,
    VSCODE_ATTACK,
    attack,
    run_later,
    seed_user_files,
)

import twnb

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300), needs_landlock]


@pytest.fixture
def places(tmp_path: Path) -> Places:
    places = make_places(tmp_path)
    seed_user_files(places.notebook)
    return places


@pytest.fixture
def marker(places: Places) -> Path:
    """What the planted code writes: outside every folder the confined kernel may write."""
    return places.outside / "planted-code-ran"


@pytest.fixture
def plant(places: Places, marker: Path) -> Iterator[object]:
    """Run an attack in a confined kernel of the folder, then end the kernel and wait for its warden."""
    with FakeLLMServer() as server:

        def run(code: str) -> None:
            # the user's Python path: with the test suite's folder on it `conftest` would be an
            # installed module's name, which the warden moves aside as a shadow
            env = kernel_env(places, OPENAI_BASE_URL=server.base_url, TWNB_MODEL="fake-model")
            env["PYTHONPATH"] = str(Path(twnb.__file__).parents[1])
            kernel = ConfinedKernel(places, env)
            try:
                kernel.execute(attack(code, marker))  # refused or not: what counts is what runs later
                private = kernel.private_folder()
            finally:
                kernel.shutdown()
            deadline = time.monotonic() + 30
            while private.exists() and time.monotonic() < deadline:
                time.sleep(0.05)
            assert not private.exists(), "the warden did not finish"
            assert not marker.exists(), "the payload ran inside the confined kernel"

        yield run


def test_bytecode_planted_for_the_users_own_module_never_runs_in_the_next_python(plant, places, marker):
    plant(PYC_ATTACK)
    later = run_later(places.notebook, IMPORT_HELPERS, places.home)
    assert later.returncode == 0, later.stderr
    assert (places.notebook / "helpers.py").read_text().startswith("def mean")  # the source unchanged
    assert not marker.exists(), "the planted bytecode ran in the user's next Python"


def test_a_matplotlibrc_planted_in_the_folder_never_runs_code_in_the_next_script(plant, places, marker):
    plant(MATPLOTLIBRC_ATTACK)
    run_later(places.notebook, PLOT_A_FIGURE, places.home)
    assert not marker.exists(), "the backend the planted matplotlibrc named ran in the user's script"


def test_a_conftest_planted_in_the_folder_never_runs_in_the_users_next_test_run(plant, places, marker):
    plant(CONFTEST_ATTACK)
    run_later(places.notebook, RUN_THE_TESTS, places.home)
    assert not marker.exists(), "the planted conftest.py ran in the user's pytest"


def test_a_mypy_config_planted_in_the_folder_never_runs_its_plugin_in_the_next_mypy(plant, places, marker):
    plant(MYPY_ATTACK)
    run_later(places.notebook, CHECK_THE_TYPES, places.home)
    assert not marker.exists(), "the plugin a planted mypy.ini named ran in the user's mypy"


def test_a_module_pandas_imports_if_it_finds_it_never_runs_at_the_next_import_pandas(plant, places, marker):
    plant(OPTIONAL_IMPORT_ATTACK)
    later = run_later(places.notebook, IMPORT_PANDAS, places.home)
    assert later.returncode == 0, later.stderr
    assert not marker.exists(), "the planted numexpr.py ran at the user's next import pandas"


@pytest.mark.parametrize(
    "code",
    [PYTEST_INI_ATTACK, PYTEST_TOML_ATTACK, TOX_INI_ATTACK],
    ids=["pytest.ini", "pytest.toml", "tox.ini"],
)
def test_a_pytest_config_planted_in_the_folder_never_runs_its_plugin_in_the_next_test_run(
    plant, places, marker, code
):
    plant(code)
    later = run_later(places.notebook, RUN_THE_TESTS, places.home)
    assert "1 passed" in later.stdout, later.stdout + later.stderr
    assert not marker.exists(), "the plugin a planted pytest config named ran in the user's pytest"


@pytest.mark.parametrize("debugger", [DEBUG_WITH_PDB, DEBUG_WITH_IPYTHON], ids=["pdb", "ipython"])
def test_a_pdbrc_planted_in_the_folder_never_runs_in_the_users_next_debugger(plant, places, marker, debugger):
    plant(PDBRC_ATTACK)
    run_later(places.notebook, debugger, places.home)
    assert not marker.exists(), "the lines of a planted .pdbrc ran in the user's debugger"


def test_a_vscode_folder_planted_in_the_folder_is_moved_aside(plant, places):
    """VS Code is not here to open the folder: that its folder is gone is what counts."""
    plant(VSCODE_ATTACK)
    assert not (places.notebook / ".vscode").exists()
    assert (places.notebook / ".vscode.twnb-quarantined" / "tasks.json").is_file()
