"""What the runtime guard tells risky step mode, in a real kernel: files overwritten or deleted that
existed before the code ran, files written outside the notebook's folder, the working folder and the
environment changed, the network reached. Files the code made itself, and twnb's own folders, are
none of these."""

from __future__ import annotations

import os

import pytest

pytestmark = pytest.mark.slow


def _sightings(kernel, code: str) -> list[tuple[str, str]]:
    result = kernel.run_case(code)
    return [(s["kind"], s["subject"]) for s in result["sightings"]]


def test_an_overwritten_file_that_existed_is_seen(live_kernel):
    (live_kernel.workdir / "kept.csv").write_text("a\n1\n")
    path = str(live_kernel.workdir / "kept.csv")
    assert _sightings(live_kernel, "open('kept.csv', 'w').close()") == [("overwrite", path)]


def test_a_file_the_code_made_and_rewrote_is_not_an_overwrite(live_kernel):
    code = "open('made-here.txt', 'w').close()\nopen('made-here.txt', 'a').close()"
    assert _sightings(live_kernel, code) == []


def test_a_deleted_file_that_existed_is_seen_however_it_was_deleted(live_kernel):
    for name in ("one.txt", "two.txt", "three.txt"):
        (live_kernel.workdir / name).write_text("x")
    code = (
        "import os, pathlib, shutil\n"
        "os.remove('one.txt')\n"
        "pathlib.Path('two.txt').unlink()\n"
        "shutil.move('three.txt', 'artifacts/three.txt')"
    )
    seen = _sightings(live_kernel, code)
    assert [kind for kind, _ in seen] == ["delete", "delete", "delete"]
    assert [os.path.basename(subject) for _, subject in seen] == ["one.txt", "two.txt", "three.txt"]


def test_a_file_written_outside_the_notebooks_folder_is_seen(live_kernel):
    home_file = os.path.expanduser("~/twnb-risky-sighting-test.txt")
    try:
        assert _sightings(live_kernel, f"open({home_file!r}, 'w').close()") == [("outside", home_file)]
    finally:
        if os.path.exists(home_file):
            os.remove(home_file)


def test_scratch_files_in_the_temporary_folder_are_not_outside(live_kernel):
    code = "import tempfile\nwith tempfile.NamedTemporaryFile('w') as f:\n    f.write('x')"
    assert _sightings(live_kernel, code) == []


def test_the_working_folder_and_the_environment_changed_are_seen(live_kernel):
    folder = str(live_kernel.workdir)
    code = (
        "import os, sys\n"
        "os.environ['RISKY_TEST_FLAG'] = '1'\n"
        "del os.environ['RISKY_TEST_FLAG']\n"
        "os.chdir('artifacts')\n"
        f"os.chdir({folder!r})\n"
        "sys.path.append('/nowhere')\n"
        "sys.path.remove('/nowhere')\n"
    )
    os.makedirs(live_kernel.workdir / "artifacts", exist_ok=True)
    seen = _sightings(live_kernel, code)
    assert ("environment", "RISKY_TEST_FLAG") in seen
    assert ("working_folder", os.path.join(folder, "artifacts")) in seen
    assert ("working_folder", folder) in seen


def test_a_variable_a_library_sets_as_it_is_imported_is_not_the_codes(live_kernel):
    # as numpy's import sets OPENBLAS_MAIN_FREE: the library's doing, whichever line imported it
    (live_kernel.workdir / "sets_on_import.py").write_text(
        "import os\nos.environ['LIB_ON_IMPORT'] = '1'\n"
        "def set_later():\n    os.environ['LIB_BY_A_CALL'] = '1'\n"
    )
    code = "import sets_on_import\nsets_on_import.set_later()\nimport os\nos.environ['LIB_BY_CODE'] = '1'"
    seen = _sightings(live_kernel, code)
    assert ("environment", "LIB_BY_CODE") in seen and ("environment", "LIB_BY_A_CALL") in seen
    assert ("environment", "LIB_ON_IMPORT") not in seen


def test_reaching_the_network_is_seen_even_when_the_connection_fails(live_kernel):
    code = (
        "import socket\n"
        "s = socket.socket()\n"
        "try:\n"
        "    s.connect(('127.0.0.1', 9))\n"
        "except OSError:\n"
        "    pass\n"
        "finally:\n"
        "    s.close()"
    )
    assert _sightings(live_kernel, code) == [("network", "127.0.0.1:9")]


def test_a_separate_kernel_reports_the_same_sightings(tmp_path):
    from twnb.kernel import KernelExecutor

    (tmp_path / "kept.csv").write_text("a\n1\n")
    with KernelExecutor(tmp_path) as executor:
        code = "import os\nopen('kept.csv', 'w').close()\nos.environ['RISKY_TEST_FLAG'] = '1'"
        result = executor.run(code)
    assert [(s["kind"], os.path.basename(s["subject"])) for s in result.sightings] == [
        ("overwrite", "kept.csv"),
        ("environment", "RISKY_TEST_FLAG"),
    ]
