"""`twnb export RECEIVED.ipynb --check` of a hostile notebook a stranger sent (issue 37, "Done when"):
the check runs in a confined kernel by default, none of the notebook's attacks (in its user cells and
in its Rounds' code) happens, the report names each refused cell with what refused it, and the
notebook's benign cells still reproduce.

One re-run for the module (real confined kernel, real Landlock); each test reads one fact from it.
"""

from __future__ import annotations

import io
import os
import re
import shutil
import signal
import socket
import sysconfig
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path

import nbformat
import pytest
from support.confined_kernel import REAL_KEY, Places, make_places, needs_landlock
from support.hostile_notebook import SIGNAL_MARKER, TABLE, WRITE_HERE, Attack, hostile_conversation

from twnb.cli import main
from twnb.memory import save_conversation

pytestmark = [pytest.mark.slow, needs_landlock, pytest.mark.timeout(300)]

_REFUSED = re.compile(
    r"^  (?:not run, verification refused it|stopped, the runtime guard refused what it did|"
    r"refused by the confined kernel): cell (\d+) \(",
    re.M,
)
_CONFINED = re.compile(r"^  refused by the confined kernel: cell (\d+) \((.*?)\): (.*)$", re.M)


@dataclass
class Checked:
    status: int
    out: str
    err: str
    places: Places
    attacks: list[Attack]
    rerun: nbformat.NotebookNode
    signals: list[int] = field(default_factory=list)
    connections: int = 0

    def cells_of(self, code: str) -> list[int]:
        """The numbers (from 1) of the re-run notebook's cells that hold `code`."""
        return [
            n
            for n, cell in enumerate(self.rerun.cells, start=1)
            if cell.cell_type == "code" and cell.source.startswith(code)
        ]


def _written_elsewhere(places: Places) -> list[Path]:
    """Where the attacks on the next process and outside the allowed folders would write."""
    return [
        Path(sysconfig.get_paths()["purelib"]) / "twnb_hostile_notebook.pth",
        places.home / ".ipython" / "profile_default" / "startup" / "00-hostile.py",
        places.outside / "written.txt",
    ]


@pytest.fixture(scope="module")
def checked(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Checked]:
    root = tmp_path_factory.mktemp("hostile")
    places = make_places(root)
    signals: list[int] = []
    previous = signal.signal(getattr(signal, SIGNAL_MARKER), lambda number, frame: signals.append(number))
    listener = socket.socket()
    try:
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        rounds, found = hostile_conversation(places, listener.getsockname()[1], os.getpid())
        sender = root / "sender"  # the stranger's machine: the notebook is exported there, then sent
        sender.mkdir()
        save_conversation(rounds, sender / "conv.yaml")
        received = places.notebook / "received.ipynb"
        out, err = io.StringIO(), io.StringIO()
        with pytest.MonkeyPatch.context() as mp, redirect_stdout(out), redirect_stderr(err):
            mp.chdir(sender)
            assert main(["export", str(sender / "conv.yaml"), "-o", str(sender / "received.ipynb")]) == 0
            shutil.copy(sender / "received.ipynb", received)
            mp.chdir(places.notebook)
            mp.setenv("HOME", str(places.home))
            mp.setenv("OPENAI_API_KEY", REAL_KEY)
            status = main(["export", str(received), "--execute", "--check"])
        listener.setblocking(False)
        connections = 0
        while True:
            try:
                listener.accept()[0].close()
            except BlockingIOError:
                break
            connections += 1
        rerun = nbformat.read(places.notebook / "received.rerun.ipynb", as_version=4)
        yield Checked(status, out.getvalue(), err.getvalue(), places, found, rerun, signals, connections)
    finally:
        listener.close()
        signal.signal(getattr(signal, SIGNAL_MARKER), previous)
        for path in _written_elsewhere(places):  # never leave an attack's file in the shared environment
            path.unlink(missing_ok=True)


def test_the_check_runs_in_a_confined_kernel(checked: Checked) -> None:
    assert "Re-running 33 code cells in a fresh confined kernel" in checked.err


def test_the_check_fails_since_the_attacks_did_not_do_what_was_recorded(checked: Checked) -> None:
    assert checked.status == 1


def test_no_program_ran_and_no_secret_was_kept_in_the_notebooks_folder(checked: Checked) -> None:
    markers = [a.marker for a in checked.attacks if a.marker is not None]
    markers += ["by-pth", "by-startup"]  # what the files for the next process would make it leave
    assert [m for m in markers if (checked.places.notebook / m).exists()] == []


def test_nothing_was_written_outside_or_for_the_next_process_to_run(checked: Checked) -> None:
    assert [path for path in _written_elsewhere(checked.places) if path.exists()] == []


def test_no_connection_reached_a_loopback_port_that_is_not_the_proxy(checked: Checked) -> None:
    assert checked.connections == 0


def test_no_signal_reached_a_process_outside_the_kernel(checked: Checked) -> None:
    assert checked.signals == []


def test_neither_the_api_key_nor_the_ssh_key_reached_the_rerun_notebook(checked: Checked) -> None:
    text = (checked.places.notebook / "received.rerun.ipynb").read_text() + checked.out + checked.err
    assert (REAL_KEY in text, "BEGIN OPENSSH PRIVATE KEY" in text) == (False, False)


def test_each_refused_attack_is_named_once_in_the_report_for_each_of_its_cells(checked: Checked) -> None:
    named = sorted(int(n) for n in _REFUSED.findall(checked.out))
    attacked = sorted(n for a in checked.attacks if a.refused for n in checked.cells_of(a.code))
    assert named == attacked and len(attacked) == 2 * sum(a.refused for a in checked.attacks)


def test_what_the_confined_kernel_refused_is_named_with_the_setting_that_would_allow_it(
    checked: Checked,
) -> None:
    outside = next(a for a in checked.attacks if a.name == "writing outside")
    lines = {int(n): why for n, _, why in _CONFINED.findall(checked.out)}
    whys = [lines.get(n, "") for n in checked.cells_of(outside.code)]
    named = ["outside the folders it may use" in why and "confine_write" in why for why in whys]
    assert named == [True, True]


def test_the_benign_cells_reproduce(checked: Checked) -> None:
    benign = checked.cells_of(TABLE) + checked.cells_of(WRITE_HERE)
    reproduced = {int(n) for n in re.findall(r"cell (\d+): reproduced$", checked.err, re.M)}
    assert len(benign) == 3 and set(benign) <= reproduced


def test_the_benign_cell_wrote_its_file_in_the_notebooks_folder(checked: Checked) -> None:
    assert (checked.places.notebook / "kept.csv").read_text() == "region,amount\nnorth,8\n"
