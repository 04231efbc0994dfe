"""`twnb export --execute` re-runs a received notebook's code in a confined kernel by default: with
verification and the runtime guard both off (`--no-verify`), the operating system still refuses what
the code attempts; `--no-confine` opts out, and then the same code runs."""

from __future__ import annotations

import pytest
from support.confined_kernel import needs_landlock
from support.replay_rounds import code_round, conversation, stdout

from twnb.cli import main
from twnb.memory import save_conversation

pytestmark = [pytest.mark.slow, needs_landlock]

# libc's system reached through pandas: the route the in-process guards were shown to miss
THROUGH_PANDAS = (
    "import ctypes, pandas as pd\n"
    "pd.Series([b'touch pwned']).map(ctypes.CDLL(None).system)\n"
    "open('kept.txt', 'w').write('benign')\n"
    "print('done')"
)


@pytest.fixture
def saved(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "conv.yaml"
    save_conversation(conversation(code_round("Clean up", THROUGH_PANDAS, [stdout("done\n")])), path)
    return path


def _export(path, *flags):
    return main(
        ["export", str(path), "-o", str(path.parent / "out.ipynb"), "--execute", "--no-verify", *flags]
    )


def test_a_confined_rerun_runs_no_shell_even_unverified(saved, capsys):
    assert _export(saved) == 0
    assert "in a fresh confined kernel" in capsys.readouterr().err
    assert not (saved.parent / "pwned").exists()
    assert (saved.parent / "kept.txt").read_text() == "benign"  # the benign part of the cell ran


def test_no_confine_lets_the_same_code_run_a_shell(saved):
    assert _export(saved, "--no-confine") == 0
    assert (saved.parent / "pwned").exists()
