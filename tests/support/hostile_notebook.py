"""A hostile notebook as a stranger would send it: Rounds whose generated code and whose user cells
around them attack the machine that re-runs it (issue 37, point 5), between benign cells that must
still reproduce.

Each attack tries to leave a marker the test can see: a file in the notebook's folder (which the
kernel itself may write, so only the attack's route is refused), a byte sent to a loopback listener
the test holds, or a signal to the test's own process. The attacks are written as a model or a
stranger would write them, each in its own cell so that the report names each one.
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
from contextlib import contextmanager, redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
import pytest

from support.confined_kernel import REAL_KEY, Places, make_places
from support.replay_rounds import code_round, conversation, stdout, user_cell, with_user_cells
from twnb.cli import main
from twnb.memory import Conversation, save_conversation

SIGNAL_MARKER = "SIGUSR2"
# a part of support.confined_kernel.REAL_KEY that the export does not redact as a key (a whole
# key-shaped string in the attack would be, and the attack would then never find it)
STOLEN_KEY_PART = "confinedTEST"

# The benign analysis: computed here first, so the recorded output is what pandas really prints.
TABLE = (
    "import pandas as pd\n"
    "sales = pd.DataFrame({'region': ['north', 'south', 'north', 'east'], 'amount': [3, 4, 5, 6]})\n"
    "totals = sales.groupby('region').amount.sum().reset_index()\n"
    "print(totals.to_string(index=False))"
)
WRITE_HERE = "open('kept.csv', 'w').write('region,amount\\nnorth,8\\n')"


def table_output() -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        exec(TABLE, {})
    return out.getvalue()


@dataclass(frozen=True)
class Attack:
    name: str  # what it tries, as the test names it
    code: str
    marker: str | None  # the file in the notebook's folder it leaves when it succeeds
    refused: bool = True  # False: it runs, and finds nothing (the key is not in the kernel's environment)
    # the program is refused in the child the call forks, which exits 127: nothing raises in the cell,
    # only the supervisor outside the kernel records it
    silent: bool = False


def attacks(places: Places, port: int, test_pid: int) -> list[Attack]:
    """The attacks of point 5, each leaving a marker when it gets through."""
    here = places.notebook

    def mark(name: str) -> str:
        return str(here / name)

    site = Path(sysconfig.get_paths()["purelib"]) / "twnb_hostile_notebook.pth"
    startup = places.home / ".ipython" / "profile_default" / "startup" / "00-hostile.py"
    key = places.home / ".ssh" / "id_rsa"
    steal = (
        "def _keep(name, text):\n"
        f"    if {STOLEN_KEY_PART!r} in text or 'PRIVATE KEY' in text:\n"
        f"        open({str(here)!r} + '/' + name, 'w').write(text)\n"
    )
    return [
        Attack(
            "subprocess",
            f"import subprocess\nsubprocess.run(['/bin/sh', '-c', 'touch {mark('by-subprocess')}'])",
            "by-subprocess",
        ),
        Attack(
            "os.system", f"import os\nos.system('touch {mark('by-os-system')}')", "by-os-system", silent=True
        ),
        Attack(
            "libc system through ctypes",
            f"import ctypes\nctypes.CDLL(None).system(b'touch {mark('by-ctypes')}')",
            "by-ctypes",
            silent=True,
        ),
        Attack(
            "libc system through pandas",
            "import numpy as np, pandas as pd\n"
            "libc = np.ctypeslib.load_library('libc.so.6', '/lib/x86_64-linux-gnu')\n"
            f"pd.Series([b'touch {mark('by-pandas')}']).map(libc.system)",
            "by-pandas",
            silent=True,
        ),
        Attack(
            "os.posix_spawn",
            "import os\n"
            f"os.waitpid(os.posix_spawn('/bin/sh', ['sh', '-c', 'touch {mark('by-spawn')}'], {{}}), 0)",
            "by-spawn",
        ),
        Attack(
            "the dynamic loader",
            "import subprocess\n"
            "subprocess.run(['/lib64/ld-linux-x86-64.so.2', '/bin/sh', '-c', "
            f"'touch {mark('by-loader')}'])",
            "by-loader",
        ),
        Attack(
            "a .pth in site-packages",
            f"open({str(site)!r}, 'w').write(\"import os; os.system('touch {mark('by-pth')}')\")",
            None,
        ),
        Attack(
            "an IPython startup file",
            f"open({str(startup)!r}, 'w').write(\"open({mark('by-startup')!r}, 'w')\")",
            None,
        ),
        Attack(
            "writing outside",
            f"open({str(places.outside / 'written.txt')!r}, 'w').write('x')",
            None,
        ),
        Attack(
            "reading ~/.ssh/id_rsa",
            steal + f"_keep('stolen-ssh-key', open({str(key)!r}).read())",
            "stolen-ssh-key",
        ),
        Attack(
            "the API key in the environment",
            steal + "import os\n_keep('stolen-env-key', os.environ.get('OPENAI_API_KEY', ''))",
            "stolen-env-key",
            refused=False,
        ),
        Attack(
            "the API key in /proc/self/environ",
            steal + "_keep('stolen-self-environ', open('/proc/self/environ', 'rb').read().decode())",
            "stolen-self-environ",
            refused=False,
        ),
        Attack(
            "the API key in the parent's environ",
            steal
            + "import os\n"
            + "_keep('stolen-parent-environ', open(f'/proc/{os.getppid()}/environ', 'rb').read().decode())",
            "stolen-parent-environ",
        ),
        Attack(
            "the API key in the parent's memory",
            steal
            + "import os, re\n"
            + "pid = os.getppid()\n"
            + "with open(f'/proc/{pid}/maps') as maps, open(f'/proc/{pid}/mem', 'rb') as mem:\n"
            + "    for line in maps:\n"
            + "        span = re.match(r'([0-9a-f]+)-([0-9a-f]+) rw', line)\n"
            + "        if span:\n"
            + "            try:\n"
            + "                mem.seek(int(span[1], 16))\n"
            + "                text = mem.read(int(span[2], 16) - int(span[1], 16)).decode('latin-1')\n"
            + "            except OSError:\n"
            + "                continue\n"
            + f"            at = text.find({STOLEN_KEY_PART!r})\n"
            + "            if at >= 0:\n"
            + "                _keep('stolen-parent-memory', text[at - 8 : at + 40])",
            "stolen-parent-memory",
        ),
        Attack(
            "the API key in the key proxy's environ",
            steal
            + "import os\n"
            + "proxy = next(int(p) for t in os.listdir('/proc/self/task')"
            + " for p in open(f'/proc/self/task/{t}/children').read().split())\n"
            + "_keep('stolen-proxy-environ', open(f'/proc/{proxy}/environ', 'rb').read().decode())",
            "stolen-proxy-environ",
        ),
        Attack(
            "a loopback port that is not the proxy",
            f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=5).sendall(b'x')",
            None,
        ),
        Attack(
            "signalling the parent",
            f"import os, signal\nos.kill({test_pid}, signal.{SIGNAL_MARKER})\n"
            f"os.kill(os.getppid(), signal.{SIGNAL_MARKER})",
            None,
        ),
    ]


def hostile_conversation(places: Places, port: int, test_pid: int) -> tuple[Conversation, list[Attack]]:
    """Two Rounds: the first's user cells hold the attacks and the benign cells around them, the
    second's generated code holds the attacks again, recorded as if each had printed "done"."""
    found = attacks(places, port, test_pid)
    user_cells: list[dict[str, Any]] = [user_cell(TABLE, 1, made=("sales", "totals"))]
    user_cells += [user_cell(attack.code, n) for n, attack in enumerate(found, start=2)]
    user_cells.append(user_cell(WRITE_HERE, len(found) + 2))
    table = code_round("Sum the sales by region", TABLE, [stdout(table_output())])
    first = with_user_cells(table, *user_cells)
    generated = [
        code_round(f"Tidy up ({attack.name})", attack.code + "\nprint('done')", [stdout("done\n")])
        for attack in found
    ]
    return conversation(first, *generated), found


@dataclass
class Checked:
    """What `twnb export RECEIVED.ipynb --check` did with the hostile notebook, and what reached the
    test: the signals it caught and the connections its listener accepted."""

    status: int
    out: str
    err: str
    places: Places
    attacks: list[Attack]
    rerun: nbformat.NotebookNode
    signals: list[int] = field(default_factory=list)
    connections: int = 0

    def cells_of(self, code: str) -> list[int]:
        """The numbers (from 1) of the re-run notebook's code cells that hold `code`."""
        return [
            n
            for n, cell in enumerate(self.rerun.cells, start=1)
            if cell.cell_type == "code" and cell.source.startswith(code)
        ]

    def text(self) -> str:
        """Everything the run left to read: the re-run notebook and what the command printed."""
        return (self.places.notebook / "received.rerun.ipynb").read_text() + self.out + self.err


def written_elsewhere(places: Places) -> list[Path]:
    """Where the attacks on the next process and outside the allowed folders would write."""
    return [
        Path(sysconfig.get_paths()["purelib"]) / "twnb_hostile_notebook.pth",
        places.home / ".ipython" / "profile_default" / "startup" / "00-hostile.py",
        places.outside / "written.txt",
    ]


def markers_left(checked: Checked) -> list[str]:
    """The marker files the attacks left in the notebook's folder."""
    markers = [a.marker for a in checked.attacks if a.marker is not None]
    markers += ["by-pth", "by-startup"]  # what the files for the next process would make it leave
    return [m for m in markers if (checked.places.notebook / m).exists()]


_CONFINED = re.compile(r"^  refused by the confined kernel: cell (\d+) \((.*?)\): (.*)$", re.M)


def confined_refusals(out: str) -> dict[int, str]:
    """Cell number -> the line the report names it with as refused by the confined kernel."""
    return {int(n): why for n, _, why in _CONFINED.findall(out)}


@contextmanager
def checked_hostile(root: Path, *flags: str) -> Iterator[Checked]:
    """Export the hostile conversation on a stranger's machine (`root/sender`), then check the notebook
    received with `twnb export RECEIVED.ipynb --execute --check *flags` in the notebook's folder, HOME
    pointing at a home with `~/.ssh/id_rsa` and the model's key in the environment."""
    places = make_places(root)
    signals: list[int] = []
    number = getattr(signal, SIGNAL_MARKER)
    previous = signal.signal(number, lambda caught, frame: signals.append(caught))
    listener = socket.socket()
    try:
        listener.bind(("127.0.0.1", 0))
        listener.listen(4)
        rounds, found = hostile_conversation(places, listener.getsockname()[1], os.getpid())
        sender = root / "sender"
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
            status = main(["export", str(received), "--execute", "--check", *flags])
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
        signal.signal(number, previous)
        for path in written_elsewhere(places):  # never leave an attack's file in the shared environment
            path.unlink(missing_ok=True)
