"""Importing the kernel layer costs what its docstring says: no room, no jupyter_client, no IPython.

Each check runs in a fresh interpreter, since this one has imported everything long ago.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

HEAVY = ("jupyter_client", "ipykernel", "IPython", "zmq", "pandas", "numpy")


def modules_after(code: str) -> set[str]:
    """The modules loaded, in a fresh interpreter, by `code`."""
    done = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"],
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
        capture_output=True,
        text=True,
        check=True,
    )
    return set(json.loads(done.stdout.splitlines()[-1]))


def test_importing_the_layer_loads_its_front_door_alone():
    twnb_modules = {m for m in modules_after("import twnb.kernel") if m.split(".")[0] == "twnb"}
    assert twnb_modules == {"twnb", "twnb._version", "twnb.base", "twnb.base.front_door", "twnb.kernel"}


def test_importing_the_layer_loads_no_kernel_client_shell_or_data_library():
    assert modules_after("import twnb.kernel") & set(HEAVY) == set()


def test_the_record_of_a_run_loads_no_kernel_client_or_shell():
    loaded = modules_after("from twnb.kernel import ExecutionResult, execution_text_for_llm")
    assert loaded & set(HEAVY) == set()
