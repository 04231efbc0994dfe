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
import sysconfig
from contextlib import redirect_stdout
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from support.confined_kernel import Places
from support.replay_rounds import code_round, conversation, stdout, user_cell, with_user_cells
from twnb.memory import Conversation

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
        Attack("os.system", f"import os\nos.system('touch {mark('by-os-system')}')", "by-os-system"),
        Attack(
            "libc system through ctypes",
            f"import ctypes\nctypes.CDLL(None).system(b'touch {mark('by-ctypes')}')",
            "by-ctypes",
        ),
        Attack(
            "libc system through pandas",
            "import numpy as np, pandas as pd\n"
            "libc = np.ctypeslib.load_library('libc.so.6', '/lib/x86_64-linux-gnu')\n"
            f"pd.Series([b'touch {mark('by-pandas')}']).map(libc.system)",
            "by-pandas",
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
