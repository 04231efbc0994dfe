"""The record of refused program starts a confined kernel reads, for a kernel nobody named a record to
(the `twnb-confined` kernelspec's, started by Jupyter): the launcher makes it before anything is
confined, the supervisor outside writes it, the kernel's environment names it (`RECORD_ENV`), and the
kernel's code can neither forge, empty, move nor remove it. twnb inside puts what a Round's code tried
in the Round's record: `os.system` and libc's `system` raise nothing, so this is how the Round, and the
model, learn that running /bin/sh was refused.

Real confined kernels (Landlock, seccomp user notification, the mounts), the loopback fake model server.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml
from fakellm import FakeLLMServer
from support.confined_kernel import ConfinedKernel
from support.nb_scripts import code, planner

from twnb.confine.exec_supervisor import RECORD_ENV

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

FORGED = '{"time": 1, "program": "/forged/by/the/kernel", "pid": 1}\n'
ATTACKS = {
    "append": f"open(path, 'a').write({FORGED!r})",
    "truncate": "os.truncate(path, 0)",
    "open for writing": "open(path, 'w').close()",
    "rename": "os.rename(path, path + '.gone')",
    "remove": "os.remove(path)",
    "rename the folder": "os.rename(os.path.dirname(path), os.path.dirname(path) + '-gone')",
    "remove the folder": "shutil.rmtree(os.path.dirname(path))",
    "change its mode": "os.chmod(path, 0o666)",
}


def _record_text(kernel: ConfinedKernel) -> str:
    return str(kernel.value(f"open(__import__('os').environ[{RECORD_ENV!r}]).read()"))


def test_the_kernel_reads_the_starts_refused_while_its_code_ran(confined: ConfinedKernel) -> None:
    marker = confined.places.notebook / "started-by-system"
    confined.run(f"import ctypes; ctypes.CDLL(None).system(b'touch {marker}')")
    assert not marker.exists()
    assert '"program": "/bin/sh"' in _record_text(confined)


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_the_kernels_code_cannot_forge_or_erase_the_record(confined: ConfinedKernel, attack: str) -> None:
    confined.run("import os, shutil, ctypes; ctypes.CDLL(None).system(b'true')")  # one line is there
    before = _record_text(confined)
    shown = confined.run(f"path = os.environ[{RECORD_ENV!r}]\n{ATTACKS[attack]}")
    assert "Error" in shown, shown  # refused at the operating system
    after = _record_text(confined)
    assert after.startswith(before) and before and "/forged/" not in after


def test_a_refused_start_after_an_attack_is_still_recorded(confined: ConfinedKernel) -> None:
    confined.run(f"import os\ntry:\n    os.remove(os.environ[{RECORD_ENV!r}])\nexcept OSError:\n    pass")
    before = _record_text(confined).count("\n")
    confined.run("import ctypes; ctypes.CDLL(None).system(b'echo still seen')")
    assert _record_text(confined).count("\n") == before + 1


def _saved_round_text(notebook: Path) -> str:
    return max((notebook / ".twnb").glob("*/rounds/*.yaml")).read_text()


def test_a_rounds_record_says_its_code_was_refused_running_a_shell(
    confined: ConfinedKernel, fake_server: FakeLLMServer
) -> None:
    marker = confined.places.notebook / "MARKER"
    attack = f"import ctypes\nstatus = ctypes.CDLL(None).system(b'touch {marker}')\nprint('status', status)"
    fake_server.reset()
    fake_server.load(
        {
            "Planner": [
                planner("Do it.", send_to="CodeInterpreter", step="1. touch the marker"),
                planner("Done.", send_to="User", step="2. report", stop="Completed"),
            ],
            "CodeInterpreter": [code(attack)],
        }
    )
    confined.run("%load_ext twnb")
    reply = confined.execute("%%taskweaver --no-verify\nTouch the marker.", timeout=120)
    assert reply["status"] == "ok", reply
    assert not marker.exists()
    # the person sees it in the Round the cell shows
    html = [c["data"].get("text/html", "") for kind, c in confined.shown if kind.endswith("display_data")]
    assert "Confined kernel: running /bin/sh was refused" in html[-1]
    saved = yaml.safe_load(_saved_round_text(confined.places.notebook))
    text = yaml.safe_dump(saved)
    assert "Confined kernel: running /bin/sh was refused" in text, text
    # the model's next prompt was told, so it does not try again
    prompts = [str(r["body"]) for r in fake_server.chat_requests()]
    assert any("running /bin/sh was refused" in p for p in prompts[1:])
