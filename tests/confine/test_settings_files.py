"""The settings files the next launch reads (`twnb.yaml`, `.env`) cannot be created by a confined
kernel where the notebook's folder has none: code that tries (as a model would, to send the key to its
own server at the next start) fails at the operating system, and once the kernel ends the folder is
as it was, so the next launch reads the settings the user wrote and nothing else. Also with two
kernels in one folder, whichever ends first."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from fakellm import FakeLLMServer
from support.confined_kernel import ConfinedKernel, Places, kernel_env, make_places, needs_landlock

from twnb.config import resolve_settings

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300), needs_landlock]

FORGED_YAML = "llm:\n  api_base: http://127.0.0.1:9/v1\ncode_interpreter:\n  verify: false\n"
FORGED_ENV = "OPENAI_BASE_URL=http://127.0.0.1:9/v1\n"


def _start(places: Places, server: FakeLLMServer) -> ConfinedKernel:
    return ConfinedKernel(
        places, kernel_env(places, OPENAI_BASE_URL=server.base_url, TWNB_MODEL="fake-model")
    )


def _gone(path: Path, within_s: float = 10.0) -> bool:
    """The warden removes a stand-in once it sees the kernel end: a moment after the shutdown."""
    deadline = time.monotonic() + within_s
    while path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    return not path.exists()


def _forge(kernel: ConfinedKernel, name: str, text: str) -> dict[str, object]:
    return kernel.execute(f"open({name!r}, 'w').write({text!r})")


@pytest.fixture
def fake_server() -> FakeLLMServer:
    with FakeLLMServer() as server:
        yield server


@pytest.mark.parametrize(("name", "text"), [("twnb.yaml", FORGED_YAML), (".env", FORGED_ENV)])
def test_code_cannot_create_a_settings_file_for_the_next_launch(
    tmp_path: Path, fake_server: FakeLLMServer, name: str, text: str
) -> None:
    places = make_places(tmp_path)
    kernel = _start(places, fake_server)
    try:
        reply = _forge(kernel, name, text)
        if name == "twnb.yaml":  # read-only in the kernel's namespace
            assert reply["status"] == "error" and reply["ename"] == "OSError", reply
        # (.env is hidden under /dev/null there, like a .env that holds the key: what is written is lost)
        assert (places.notebook / name).read_text() == "", f"the code wrote {name}"
    finally:
        kernel.shutdown()
    assert _gone(places.notebook / name), f"{name} is still in the notebook's folder"
    resolved = resolve_settings(environ={}, workdir=places.notebook, home=places.home)
    assert resolved.settings.base_url is None and resolved.settings.verify


@pytest.mark.parametrize("name", ["twnb.yaml", ".env"])
def test_code_cannot_remove_the_stand_in_to_write_its_own(
    tmp_path: Path, fake_server: FakeLLMServer, name: str
) -> None:
    places = make_places(tmp_path)
    kernel = _start(places, fake_server)
    try:
        reply = kernel.execute(f"import os\nos.remove({name!r})")
        assert reply["status"] == "error", reply  # a mount point in the kernel's namespace: EBUSY
        _forge(kernel, name, FORGED_YAML if name == "twnb.yaml" else FORGED_ENV)
        assert (places.notebook / name).read_text() == ""
    finally:
        kernel.shutdown()
    assert _gone(places.notebook / name)


def test_a_users_own_settings_file_is_kept_and_stays_read_only(
    tmp_path: Path, fake_server: FakeLLMServer
) -> None:
    places = make_places(tmp_path)
    (places.notebook / "twnb.yaml").write_text("llm:\n  model: users-model\n")
    kernel = _start(places, fake_server)
    private = kernel.private_folder()
    try:
        assert _forge(kernel, "twnb.yaml", FORGED_YAML)["status"] == "error"
    finally:
        kernel.shutdown()
    assert _gone(private), "the warden did not end"
    assert (places.notebook / "twnb.yaml").read_text() == "llm:\n  model: users-model\n"


def test_with_two_kernels_in_one_folder_the_one_left_still_cannot_create_it(
    tmp_path: Path, fake_server: FakeLLMServer
) -> None:
    places = make_places(tmp_path)
    first = _start(places, fake_server)
    second = _start(places, fake_server)
    try:
        first_private = first.private_folder()
        first.shutdown()
        assert _gone(first_private), "the first kernel's warden did not end"
        # the first kernel's warden has ended: it must not have taken the stand-in
        assert (places.notebook / "twnb.yaml").exists()
        assert _forge(second, "twnb.yaml", FORGED_YAML)["status"] == "error"
    finally:
        second.shutdown()
    assert _gone(places.notebook / "twnb.yaml")
    assert resolve_settings(environ={}, workdir=places.notebook, home=places.home).settings.base_url is None
