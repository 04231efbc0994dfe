"""The confined kernel's private folder (its HOME, TMPDIR, IPython's and matplotlib's) goes when the
kernel goes, with a model configured (the proxy's process removes it) or without one."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from support.confined_kernel import ConfinedKernel, kernel_env, make_places, needs_landlock

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300), needs_landlock]


@pytest.mark.parametrize("model", ["configured", "none"])
def test_the_private_folder_is_removed_when_the_kernel_ends(tmp_path: Path, model: str) -> None:
    places = make_places(tmp_path)
    env = kernel_env(places)
    if model == "none":
        del env["OPENAI_API_KEY"]
    kernel = ConfinedKernel(places, env)
    private = Path(os.path.dirname(kernel.value("__import__('os').environ['HOME']")))
    assert private.is_dir()
    kernel.shutdown()
    deadline = time.monotonic() + 10
    while private.exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not private.exists()
