"""Risky step mode pauses on a write to a file that existed before the code ran, by whatever name the
code reaches it: a symlink or hard link it makes first, a memory map opened for writing, `os.open` with
flags that write, a folder that is a link to elsewhere. Each attack runs through the Round driver on a
real InteractiveShell; the user skips it, and the file is as it was."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.session_script import one_step

from twnb.session.code_request import CodeRequest, Skipped
from twnb.session.factory import NotebookParts
from twnb.session.risk_check import RiskCheck

BEFORE = "a\n1\n"

ATTACKS = {
    "hard-link": "import os\nos.link('sales.csv', 'copy.csv')\nopen('copy.csv', 'w').write('gone')",
    "symlink": (
        "import os\nos.symlink('sales.csv', 'view.csv')\n"
        "with open('view.csv', 'w') as f:\n    f.write('gone')"
    ),
    "symlink-in-folder": (
        "import os\nos.symlink('../sales.csv', 'out/v.csv')\nopen('out/v.csv', 'a').write('gone')"
    ),
    "pathlib-link": (
        "from pathlib import Path\nPath('v.csv').symlink_to('sales.csv')\nPath('v.csv').write_text('gone')"
    ),
    "memmap": "import numpy as np\nm = np.memmap('sales.csv', dtype='uint8')\nm[:] = 48",
    "memmap-r+": "import numpy as np\nm = np.memmap('sales.csv', dtype='uint8', mode='r+')\nm[:] = 48",
    "os.open-flags-in-a-name": (
        "import os\nflags = os.O_RDWR\nfd = os.open('sales.csv', flags)\nos.write(fd, b'gone')"
    ),
    "os.open-number": "import os\nfd = os.open('sales.csv', 2)\nos.write(fd, b'gone')",
}


@pytest.fixture
def risky_session(make_session, shell, workdir: Path):
    def make(code: str):
        risk = RiskCheck(
            workdir,
            workdir / ".twnb" / "artifacts",
            namespace=lambda: shell.user_ns,
            hidden=lambda: set(shell.user_ns_hidden),
        )
        return make_session(one_step(code), notebook=NotebookParts(risk=risk))

    return make


@pytest.mark.parametrize("code", ATTACKS.values(), ids=ATTACKS.keys())
def test_a_write_to_an_existing_file_by_another_name_pauses_and_skipping_leaves_it(
    risky_session, workdir, code
):
    (workdir / "sales.csv").write_text(BEFORE)
    (workdir / "out").mkdir()
    session = risky_session(code)
    driver = session.round_driver("Do it", grade_risk=True)
    request = next(driver)
    assert isinstance(request, CodeRequest)
    assert request.risks, "risky mode would have run it without asking"
    with pytest.raises(StopIteration):
        driver.send(Skipped())
    assert (workdir / "sales.csv").read_text() == BEFORE
    assert sorted(p.name for p in workdir.iterdir() if p.name != ".twnb") == ["out", "sales.csv"]


def test_a_write_through_a_folder_that_links_outside_pauses_as_outside(
    risky_session, workdir, tmp_path_factory
):
    outside = tmp_path_factory.mktemp("elsewhere")
    (workdir / "reports").symlink_to(outside, target_is_directory=True)
    session = risky_session("open('reports/new.csv', 'w').write('x')")
    request = next(session.round_driver("Do it", grade_risk=True))
    assert request.risks and "outside the notebook's folder" in request.risks[0]
    assert f"a link to {outside / 'new.csv'}" in request.risks[0]


def test_reading_through_a_memory_map_and_os_open_for_reading_run_without_asking(risky_session, workdir):
    (workdir / "sales.csv").write_text(BEFORE)
    code = (
        "import os\nimport numpy as np\nm = np.memmap('sales.csv', dtype='uint8', mode='r')\n"
        "fd = os.open('sales.csv', os.O_RDONLY | os.O_CLOEXEC)\nos.close(fd)"
    )
    request = next(risky_session(code).round_driver("Do it", grade_risk=True))
    assert request.risks == []
