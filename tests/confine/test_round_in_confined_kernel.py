"""A Round in a confined kernel: its model calls go through the key proxy (the fake server sees the
real key, the kernel never had it), its code runs, and its record and `%taskweaver config` say the
kernel is confined and with which rules."""

from __future__ import annotations

import pytest
from support.confined_kernel import REAL_KEY, ConfinedKernel
from support.nb_scripts import answer_round

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def test_a_round_runs_through_the_proxy_and_its_record_says_confined(
    confined: ConfinedKernel, fake_server
) -> None:
    fake_server.reset()
    fake_server.load(answer_round("The answer is 42."))
    confined.run("%load_ext twnb")
    reply = confined.execute("%%taskweaver\nWhat is 6 times 7?", timeout=120)
    assert reply["status"] == "ok", reply
    assert confined.value("answer") == 42
    assert {r["headers"]["authorization"] for r in fake_server.chat_requests()} == {f"Bearer {REAL_KEY}"}
    saved = "\n".join(p.read_text() for p in (confined.places.notebook / ".twnb").rglob("*.yaml"))
    assert "confinement:" in saved and "landlock_abi:" in saved


def test_taskweaver_config_says_the_kernel_is_confined(confined: ConfinedKernel) -> None:
    confined.run("%load_ext twnb")
    text = confined.run("%taskweaver config")
    assert "kernel: confined (Landlock ABI" in text and REAL_KEY not in text
