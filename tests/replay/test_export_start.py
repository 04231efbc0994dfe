"""Reading a notebook back (`twnb export NOTEBOOK.ipynb -o CONV.yaml`) never imports a JSON schema
validator: importing nbformat imports its validator (jsonschema, rfc3987_syntax: ~1.3 s here, see
bench/bench_export_startup.py), and reading JSON into YAML never validates. Writing a notebook does
validate it (exported notebooks are valid nbformat), so the last test shows the check sees a validator.

Each command runs in a fresh interpreter, since this one has imported everything long ago.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from replay_data import DATA

from twnb.cli import main

VALIDATORS = ("nbformat.validator", "jsonschema", "fastjsonschema")
REVISE = DATA / "codeinterpreter-revise.yaml"  # two Rounds, code that ran: the shown code is compared


def validators_after_export(*args: str, cwd: Path) -> list[str]:
    """The schema validators loaded by `twnb export ARGS` run in a fresh interpreter (which must succeed)."""
    code = (
        "import json, sys\n"
        "from twnb.cli import main\n"
        f"status = main({list(args)!r})\n"
        f"print(json.dumps([status, [m for m in {VALIDATORS!r} if m in sys.modules]]))"
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    status, loaded = json.loads(done.stdout.splitlines()[-1])
    assert status == 0, done.stderr
    return list(loaded)


def test_reading_an_exported_notebook_back_imports_no_schema_validator(tmp_path):
    assert main(["export", str(REVISE), "-o", str(tmp_path / "x.ipynb")]) == 0

    assert validators_after_export("export", "x.ipynb", "-o", "x.yaml", cwd=tmp_path) == []


def test_reading_rounds_from_a_notebooks_outputs_imports_no_schema_validator(tmp_path):
    assert main(["export", str(REVISE), "-o", str(tmp_path / "x.ipynb")]) == 0
    nb = json.loads((tmp_path / "x.ipynb").read_text(encoding="utf-8"))
    del nb["metadata"]["twnb"]  # a notebook Rounds ran in: only the Round outputs hold them
    (tmp_path / "x.ipynb").write_text(json.dumps(nb), encoding="utf-8")

    assert validators_after_export("export", "x.ipynb", "-o", "x.yaml", cwd=tmp_path) == []


def test_writing_a_notebook_imports_the_validator_that_checks_it(tmp_path):
    loaded = validators_after_export("export", str(REVISE), "-o", "x.ipynb", cwd=tmp_path)

    assert "nbformat.validator" in loaded
