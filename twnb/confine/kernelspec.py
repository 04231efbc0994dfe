"""The `twnb-confined` kernelspec ("Python 3 (twnb, confined)"): this Python's ipykernel started by the
launcher, for JupyterLab, Notebook 7, VS Code, nbclient and papermill (`-k twnb-confined`)."""

from __future__ import annotations

import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

CONFINED_KERNEL_NAME = "twnb-confined"
CONFINED_DISPLAY_NAME = "Python 3 (twnb, confined)"


def confined_kernel_argv(python: str | None = None) -> list[str]:
    return [python or sys.executable, "-m", "twnb.confine", "-f", "{connection_file}"]


def confined_kernel_spec() -> dict[str, Any]:
    return {
        "argv": confined_kernel_argv(),
        "display_name": CONFINED_DISPLAY_NAME,
        "language": "python",
        "interrupt_mode": "signal",
        "metadata": {"debugger": False, "twnb": {"confined": True}},
    }


def install_confined_kernelspec(*, user: bool = False, prefix: str | None = None) -> str:
    """Install the kernelspec (in the user's Jupyter folder, under `prefix`, or the system's) and return
    the folder it went to."""
    from jupyter_client.kernelspec import KernelSpecManager  # lazy: jupyter_client (~120 ms), to install

    with tempfile.TemporaryDirectory() as staging:
        folder = Path(staging) / CONFINED_KERNEL_NAME
        folder.mkdir()
        (folder / "kernel.json").write_text(json.dumps(confined_kernel_spec(), indent=1), encoding="utf-8")
        for logo in _ipykernel_logos():
            shutil.copy(logo, folder / logo.name)
        installed: str = KernelSpecManager().install_kernel_spec(
            str(folder), CONFINED_KERNEL_NAME, user=user, prefix=prefix
        )
    return installed


def _ipykernel_logos() -> list[Path]:
    try:
        from ipykernel.kernelspec import RESOURCES  # lazy: absent where ipykernel is not installed
    except ImportError:
        return []
    return sorted(Path(RESOURCES).glob("logo-*.png"))
