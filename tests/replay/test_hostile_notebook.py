"""`twnb export RECEIVED.ipynb --execute --check` of a hostile notebook a stranger sent (issue 37,
"Done when"): the check runs in a confined kernel by default, none of the notebook's attacks (in its
user cells and in its Rounds' code) happens, the report names each refused cell with what refused it,
and the notebook's benign cells reproduce. It is checked twice:

- `verified`: as a user runs it; verification, the runtime guard and the confined kernel each refuse
  what is theirs to refuse, and the report says which.
- `unverified`: with `--no-verify`, verification and the runtime guard are off, so every attack reaches
  the operating system and the confined kernel alone must stop each one; each is named as refused by
  it, those that raise nothing in their cell too (`os.system`, libc's `system`: the supervisor outside
  the kernel recorded the program they tried).

What must hold either way is tested against both runs; what only one of them shows, against that one
(`only_verified`, `only_unverified`). One re-run per mode for the module (real confined kernel, real
Landlock); each test reads one fact from it.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from support.confined_kernel import REAL_KEY, needs_landlock
from support.hostile_notebook import (
    TABLE,
    WRITE_HERE,
    Checked,
    checked_hostile,
    confined_refusals,
    markers_left,
    written_elsewhere,
)

pytestmark = [pytest.mark.slow, needs_landlock, pytest.mark.timeout(300)]

FLAGS = {"verified": (), "unverified": ("--no-verify",)}
# The run a test reads, when only one of them shows what it checks (the module's run, not a new one).
only_verified = pytest.mark.parametrize("checked", ["verified"], indirect=True)
only_unverified = pytest.mark.parametrize("checked", ["unverified"], indirect=True)

_REFUSED = re.compile(
    r"^  (?:not run, verification refused it|stopped, the runtime guard refused what it did|"
    r"refused by the confined kernel): cell (\d+) \(",
    re.M,
)


@pytest.fixture(scope="module", params=list(FLAGS))
def checked(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Checked]:
    mode = request.param
    with checked_hostile(tmp_path_factory.mktemp(f"hostile-{mode}"), *FLAGS[mode]) as result:
        yield result


# --- either way -----------------------------------------------------------------------------------


def test_the_check_runs_in_a_confined_kernel(checked: Checked) -> None:
    assert "code cells in a fresh confined kernel in" in checked.err


def test_the_check_fails_since_the_attacks_did_not_do_what_was_recorded(checked: Checked) -> None:
    assert checked.status == 1


def test_no_program_ran_and_no_secret_was_kept_in_the_notebooks_folder(checked: Checked) -> None:
    assert markers_left(checked) == []


def test_nothing_was_written_outside_or_for_the_next_process_to_run(checked: Checked) -> None:
    assert [path for path in written_elsewhere(checked.places) if path.exists()] == []


def test_no_connection_reached_a_loopback_port_that_is_not_the_proxy(checked: Checked) -> None:
    assert checked.connections == 0


def test_no_signal_reached_a_process_outside_the_kernel(checked: Checked) -> None:
    assert checked.signals == []


def test_neither_the_api_key_nor_the_ssh_key_reached_the_rerun_notebook(checked: Checked) -> None:
    text = checked.text()
    assert (REAL_KEY in text, "BEGIN OPENSSH PRIVATE KEY" in text) == (False, False)


def test_the_benign_cells_reproduce(checked: Checked) -> None:
    benign = checked.cells_of(TABLE) + checked.cells_of(WRITE_HERE)
    reproduced = {int(n) for n in re.findall(r"cell (\d+): reproduced$", checked.err, re.M)}
    assert len(benign) == 3 and set(benign) <= reproduced


# --- verified: each layer refuses what is its to refuse ---------------------------------------------


@only_verified
def test_each_refused_attack_is_named_once_in_the_report_for_each_of_its_cells(checked: Checked) -> None:
    named = sorted(int(n) for n in _REFUSED.findall(checked.out))
    attacked = sorted(n for a in checked.attacks if a.refused for n in checked.cells_of(a.code))
    assert named == attacked and len(attacked) == 2 * sum(a.refused for a in checked.attacks)


@only_verified
def test_what_the_confined_kernel_refused_is_named_with_the_setting_that_would_allow_it(
    checked: Checked,
) -> None:
    outside = next(a for a in checked.attacks if a.name == "writing outside")
    lines = confined_refusals(checked.out)
    whys = [lines.get(n, "") for n in checked.cells_of(outside.code)]
    named = ["outside the folders it may use" in why and "confine_write" in why for why in whys]
    assert named == [True, True]


@only_verified
def test_the_benign_cell_wrote_its_file_in_the_notebooks_folder(checked: Checked) -> None:
    assert (checked.places.notebook / "kept.csv").read_text() == "region,amount\nnorth,8\n"


# --- unverified: the confined kernel alone refuses each attack --------------------------------------


@only_unverified
def test_each_refused_attack_is_named_as_refused_by_the_confined_kernel(checked: Checked) -> None:
    refused = [a for a in checked.attacks if a.refused]
    attacked = sorted(n for a in refused for n in checked.cells_of(a.code))
    assert sorted(confined_refusals(checked.out)) == attacked and len(attacked) == 2 * len(refused)


@only_unverified
def test_a_program_start_that_raised_nothing_is_named_with_the_program_it_tried(checked: Checked) -> None:
    silent = [a for a in checked.attacks if a.silent]
    lines = confined_refusals(checked.out)
    whys = [lines.get(n, "") for a in silent for n in checked.cells_of(a.code)]
    assert len(whys) == 6 and all(why.startswith("running /bin/sh was refused") for why in whys)


@only_unverified
def test_posix_spawn_is_named_with_the_program_it_tried(checked: Checked) -> None:
    spawn = next(a for a in checked.attacks if a.name == "os.posix_spawn")
    lines = confined_refusals(checked.out)
    whys = [lines.get(n, "") for n in checked.cells_of(spawn.code)]
    assert len(whys) == 2 and all(why.startswith("running /bin/sh was refused") for why in whys)


@only_unverified
def test_a_program_refused_is_named_as_no_setting_allows_it(checked: Checked) -> None:
    loader = next(a for a in checked.attacks if a.name == "the dynamic loader")
    lines = confined_refusals(checked.out)
    whys = [lines.get(n, "") for n in checked.cells_of(loader.code)]
    assert whys and all("runs no programs (no setting allows it" in why for why in whys)


@only_unverified
def test_reading_another_processs_environ_or_memory_is_named_as_such_not_as_a_write(checked: Checked) -> None:
    peeking = [
        a
        for a in checked.attacks
        if a.name.startswith(("the API key in the parent", "the API key in the key"))
    ]
    lines = confined_refusals(checked.out)
    whys = [lines.get(n, "") for a in peeking for n in checked.cells_of(a.code)]
    assert len(whys) == 6 and all("may not look into other processes" in why for why in whys)
