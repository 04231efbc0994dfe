"""`twnb export RECEIVED.ipynb --execute --check` of a hostile notebook a stranger sent (issue 37,
"Done when"): the check runs in a confined kernel by default, none of the notebook's attacks (in its
user cells and in its Rounds' code) happens, the report names each refused cell with what refused it
(verification, the runtime guard or the confined kernel), and the notebook's benign cells reproduce.

One re-run for the module (real confined kernel, real Landlock); each test reads one fact from it.
test_hostile_notebook_unverified.py checks the same notebook with the confinement alone.
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

_REFUSED = re.compile(
    r"^  (?:not run, verification refused it|stopped, the runtime guard refused what it did|"
    r"refused by the confined kernel): cell (\d+) \(",
    re.M,
)


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Checked]:
    with checked_hostile(tmp_path_factory.mktemp("hostile")) as result:
        yield result


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


def test_each_refused_attack_is_named_once_in_the_report_for_each_of_its_cells(checked: Checked) -> None:
    named = sorted(int(n) for n in _REFUSED.findall(checked.out))
    attacked = sorted(n for a in checked.attacks if a.refused for n in checked.cells_of(a.code))
    assert named == attacked and len(attacked) == 2 * sum(a.refused for a in checked.attacks)


def test_what_the_confined_kernel_refused_is_named_with_the_setting_that_would_allow_it(
    checked: Checked,
) -> None:
    outside = next(a for a in checked.attacks if a.name == "writing outside")
    lines = confined_refusals(checked.out)
    whys = [lines.get(n, "") for n in checked.cells_of(outside.code)]
    named = ["outside the folders it may use" in why and "confine_write" in why for why in whys]
    assert named == [True, True]


def test_the_benign_cells_reproduce(checked: Checked) -> None:
    benign = checked.cells_of(TABLE) + checked.cells_of(WRITE_HERE)
    reproduced = {int(n) for n in re.findall(r"cell (\d+): reproduced$", checked.err, re.M)}
    assert len(benign) == 3 and set(benign) <= reproduced


def test_the_benign_cell_wrote_its_file_in_the_notebooks_folder(checked: Checked) -> None:
    assert (checked.places.notebook / "kept.csv").read_text() == "region,amount\nnorth,8\n"
