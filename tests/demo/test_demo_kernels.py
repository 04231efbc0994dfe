"""`twnb demo` in kernels it did not start from this Python: a kernelspec by name, and a running kernel
attached by its connection file (treated as elsewhere: everything comes back through the kernel)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from twnb.demo.runner import DemoError, KernelChoice, run_demo

pytestmark = pytest.mark.slow


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OPENAI_", "AZURE_", "TWNB_", "LLM_"))}
    env.update(extra)
    return env


def test_the_demo_runs_in_a_running_kernel_elsewhere_and_leaves_it_as_it_was(tmp_path):
    from twnb.kernel import UnixSocketKernelManager
    from twnb.kernel.separate.this_python import KERNEL_NAME, ThisPythonKernelSpecs

    kernel_side = tmp_path / "kernel-side"
    kernel_side.mkdir()
    km = UnixSocketKernelManager(kernel_name=KERNEL_NAME, kernel_spec_manager=ThisPythonKernelSpecs())
    km.start_kernel(cwd=str(kernel_side), env=_clean_env())
    kc = km.client()
    kc.start_channels()
    try:
        kc.wait_for_ready(timeout=60)
        out = tmp_path / "out"
        result = run_demo(
            out,
            kernel_choice=KernelChoice(connection_file=km.connection_file, shares_filesystem=False),
            progress=lambda line: None,
        )
        assert result.round_states == ["finished", "finished", "finished"], result.failures
        assert (out / "quickstart-conversation.yaml").is_file()
        assert out / "unusual_weeks.csv" in result.artifacts
        written_there = kernel_side / "out" / "unusual_weeks.csv"
        assert (out / "unusual_weeks.csv").read_text() == written_there.read_text()
        assert any(path.suffix == ".png" and path.is_file() for path in result.artifacts)
        assert result.notes[0].startswith("The kernel ran elsewhere, in ")
        assert km.is_alive()
        as_it_was = (
            f"import os\nassert os.getcwd() == {str(kernel_side)!r}\nassert 'TWNB_REPLAY' not in os.environ"
        )
        reply = kc.execute_interactive(as_it_was, timeout=30, output_hook=lambda msg: None)
        assert reply["content"]["status"] == "ok", reply["content"]
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def test_twnb_demo_runs_in_a_kernelspec_named_on_the_command_line(tmp_path):
    spec_dir = tmp_path / "jupyter" / "kernels" / "twnb-demo-test"
    spec_dir.mkdir(parents=True)
    (spec_dir / "kernel.json").write_text(
        json.dumps(
            {
                "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                "display_name": "twnb demo test",
                "language": "python",
            }
        )
    )
    env = _clean_env(JUPYTER_PATH=str(tmp_path / "jupyter"))
    twnb = Path(sys.executable).parent / "twnb"
    proc = subprocess.run(
        [str(twnb), "demo", "--kernel", "twnb-demo-test", "-o", "out"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Rounds finished: 3 of 3" in proc.stdout


def test_an_unknown_kernel_name_is_a_clear_error(tmp_path):
    with pytest.raises(DemoError, match=r"No kernel named 'no-such-kernel'; `jupyter kernelspec list`"):
        run_demo(tmp_path / "out", kernel_choice=KernelChoice("no-such-kernel"), progress=lambda line: None)
