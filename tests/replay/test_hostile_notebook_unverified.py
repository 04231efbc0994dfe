"""The hostile received notebook of test_hostile_notebook.py checked with `--no-verify`: verification
and the runtime guard are off, so every attack reaches the operating system, and the confined kernel
alone must stop each one. Nothing it tried happens; each attack is named as refused by the confined
kernel, those that raise nothing in their cell too (`os.system`, libc's `system`: the supervisor
outside the kernel recorded the program they tried); the benign cells reproduce.

One re-run for the module (real confined kernel, real Landlock); each test reads one fact from it.
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


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Checked]:
    with checked_hostile(tmp_path_factory.mktemp("hostile-unverified"), "--no-verify") as result:
        yield result


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


def test_each_refused_attack_is_named_as_refused_by_the_confined_kernel(checked: Checked) -> None:
    refused = [a for a in checked.attacks if a.refused]
    attacked = sorted(n for a in refused for n in checked.cells_of(a.code))
    assert sorted(confined_refusals(checked.out)) == attacked and len(attacked) == 2 * len(refused)


def test_a_program_start_that_raised_nothing_is_named_with_the_program_it_tried(checked: Checked) -> None:
    silent = [a for a in checked.attacks if a.silent]
    lines = confined_refusals(checked.out)
    whys = [lines.get(n, "") for a in silent for n in checked.cells_of(a.code)]
    assert len(whys) == 6 and all(why.startswith("running /bin/sh was refused") for why in whys)


def test_posix_spawn_is_named_with_the_program_it_tried(checked: Checked) -> None:
    spawn = next(a for a in checked.attacks if a.name == "os.posix_spawn")
    lines = confined_refusals(checked.out)
    whys = [lines.get(n, "") for n in checked.cells_of(spawn.code)]
    assert len(whys) == 2 and all(why.startswith("running /bin/sh was refused") for why in whys)


def test_a_program_refused_is_named_as_no_setting_allows_it(checked: Checked) -> None:
    loader = next(a for a in checked.attacks if a.name == "the dynamic loader")
    lines = confined_refusals(checked.out)
    whys = [lines.get(n, "") for n in checked.cells_of(loader.code)]
    assert whys and all("runs no programs (no setting allows it" in why for why in whys)


def test_the_benign_cells_reproduce(checked: Checked) -> None:
    benign = checked.cells_of(TABLE) + checked.cells_of(WRITE_HERE)
    reproduced = {int(n) for n in re.findall(r"cell (\d+): reproduced$", checked.err, re.M)}
    assert len(benign) == 3 and set(benign) <= reproduced


def test_reading_another_processs_environ_or_memory_is_named_as_such_not_as_a_write(checked: Checked) -> None:
    peeking = [
        a
        for a in checked.attacks
        if a.name.startswith(("the API key in the parent", "the API key in the key"))
    ]
    lines = confined_refusals(checked.out)
    whys = [lines.get(n, "") for a in peeking for n in checked.cells_of(a.code)]
    assert len(whys) == 6 and all("may not look into other processes" in why for why in whys)
