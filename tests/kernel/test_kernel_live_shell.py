"""LiveShellExecutor inside a real ipykernel: every fault is recorded and the kernel lives on."""

from __future__ import annotations

import threading
from pathlib import Path

import nbformat
import pytest
from kernel_contract_cases import CONTRACT_CASES, CONTRACT_IDS

pytestmark = pytest.mark.slow


def _as_notebook_outputs(outputs: list[dict]) -> None:
    notebook = nbformat.v4.new_notebook()
    cell = nbformat.v4.new_code_cell("# generated")
    cell.outputs = [nbformat.from_dict(o) for o in outputs]
    notebook.cells.append(cell)
    nbformat.validate(notebook)


def test_output_result_and_new_variable_are_recorded(live_kernel):
    result = live_kernel.run_case("answer = 41 + 1\nprint('working')\nanswer")
    assert result["status"] == "success" and result["success"] is True
    assert result["stdout"] == "working\n"
    assert result["result"] == "42"
    assert {"name": "answer", "kind": "created", "type": "int"}.items() <= result["variables"][0].items()


def test_output_is_still_shown_in_the_calling_cell(live_kernel):
    live_kernel.run_case(
        "print('for the user')\nfrom IPython.display import display, HTML\ndisplay(HTML('<i>t</i>'))"
    )
    assert live_kernel.shown_streams() == {"stdout": "for the user\n"}
    assert any(kind == "display_data" and "text/html" in c["data"] for kind, c in live_kernel.shown)


@pytest.mark.parametrize(("code", "status", "value", "stdout", "ename"), CONTRACT_CASES, ids=CONTRACT_IDS)
def test_taskweavers_executor_contract(live_kernel, code, status, value, stdout, ename):
    result = live_kernel.run_case(code)
    assert (result["status"], result["result"], result["stdout"]) == (status, value, stdout)
    if ename is None:
        assert result["error"] is None
    else:
        assert result["error"]["ename"] == ename and ename in result["error"]["traceback"]


def test_outputs_are_valid_nbformat_in_order(live_kernel):
    code = "print('a')\nfrom IPython.display import display, HTML\ndisplay(HTML('<b>x</b>'))\n1/0"
    result = live_kernel.run_case(code)
    kinds = [o["output_type"] for o in result["outputs"]]
    assert kinds == ["stream", "display_data", "error"]
    _as_notebook_outputs(result["outputs"])


def test_a_traceback_is_recorded_but_not_shown_in_the_calling_cell(live_kernel):
    result = live_kernel.run_case("print('before')\n{}['sales']")
    assert result["error"]["ename"] == "KeyError"
    assert [o["output_type"] for o in result["outputs"]] == ["stream", "error"]
    assert "error" not in [kind for kind, _ in live_kernel.shown]
    assert live_kernel.shown_streams() == {"stdout": "before\n"}


def test_exception_is_an_error_with_plain_traceback(live_kernel):
    result = live_kernel.run_case("def f():\n    raise ValueError('bad value')\nf()")
    assert result["status"] == "error"
    assert result["error"]["ename"] == "ValueError" and result["error"]["evalue"] == "bad value"
    assert "raise ValueError" in result["error"]["traceback"]
    assert "\x1b" not in result["error"]["traceback"]
    assert live_kernel.answers()


def test_syntax_error_is_an_error(live_kernel):
    result = live_kernel.run_case("def f(:\n    pass")
    assert result["status"] == "error" and result["error"]["ename"] == "SyntaxError"
    assert "\x1b" not in result["error"]["traceback"]
    assert live_kernel.answers()


def test_ipython_syntax_runs_when_the_guard_is_off(live_kernel):
    # With verification off (--no-verify) nothing refuses a shell escape; with it on, see
    # test_runtime_guard.py.
    (live_kernel.workdir / "visible-file.txt").write_text("x")
    result = live_kernel.run_case("%time total = sum(range(10))\n!ls", guarded=False)
    assert result["status"] == "success"
    assert "Wall time" in result["stdout"]
    assert "visible-file.txt" in result["stdout"]
    assert live_kernel.answers()


def test_endless_loop_stops_at_time_limit_and_kernel_answers(live_kernel):
    result = live_kernel.run_case("while True:\n    pass", timeout=1.0)
    assert result["status"] == "timeout"
    assert result["error"]["ename"] == "TimeoutError"
    assert 1.0 <= result["duration_s"] < 5
    _as_notebook_outputs(result["outputs"])
    assert live_kernel.answers()


def test_users_interrupt_is_told_apart_from_a_timeout(live_kernel):
    timer = threading.Timer(1.5, live_kernel.km.interrupt_kernel)  # the notebook's Interrupt button
    timer.start()
    result = live_kernel.run_case("import time\ntime.sleep(20)", timeout=30)
    timer.join()
    assert result["status"] == "interrupted"
    assert live_kernel.answers()


@pytest.mark.parametrize("code", ["exit()", "quit()", "exit", "get_ipython().ask_exit()"])
def test_exit_is_refused_and_kernel_lives(live_kernel, code):
    result = live_kernel.run_case(code)
    assert result["status"] == "error"
    assert result["error"]["ename"] == "ExitRefused"
    assert live_kernel.answers()


def test_exit_works_again_after_the_run(live_kernel):
    # The guard is temporary: the user's own `exit` is IPython's again once the code is done.
    assert live_kernel.evaluate("type(exit).__name__") == "ZMQExitAutocall"


def test_sys_exit_is_an_error_and_kernel_lives(live_kernel):
    result = live_kernel.run_case("import sys\nsys.exit(3)")
    assert result["status"] == "error"
    assert result["error"]["ename"] == "SystemExit"
    assert any("sys.exit" in note for note in result["notes"])
    assert live_kernel.answers()


def test_ten_megabyte_print_is_capped_honestly(live_kernel):
    result = live_kernel.run_case("print('x' * 10_000_000)")
    assert result["status"] == "success"
    assert result["stdout_chars"] == 10_000_001
    assert len(result["stdout"]) < 300_000
    assert "characters of stdout omitted" in result["stdout"]
    assert sum(len(o.get("text", "")) for o in result["outputs"]) < 300_000
    assert any("10,000,001" in note for note in result["notes"])
    _as_notebook_outputs(result["outputs"])
    assert live_kernel.answers()


def test_repr_that_raises_is_recorded(live_kernel):
    code = "class Broken:\n    def __repr__(self):\n        raise RuntimeError('no repr')\nBroken()"
    result = live_kernel.run_case(code)
    assert result["status"] == "error"
    assert result["error"]["ename"] == "RuntimeError"
    assert live_kernel.answers()


def test_deleting_own_variables_is_in_the_delta(live_kernel):
    # Generated code made them, so it may delete them (the user's own are put back: test_runtime_guard.py).
    live_kernel.run_case("doomed_a = 1\ndoomed_b = [1, 2]")
    result = live_kernel.run_case("del doomed_a, doomed_b")
    assert result["status"] == "success"
    deleted = {v["name"] for v in result["variables"] if v["kind"] == "deleted"}
    assert deleted == {"doomed_a", "doomed_b"}
    assert live_kernel.answers()


def test_variable_delta_kinds(live_kernel):
    live_kernel.execute("import pandas as pd\nframe = pd.DataFrame({'a': [1, 2]})\ncount = 1\nkept = 'same'")
    result = live_kernel.run_case("frame['b'] = frame['a'] * 2\ncount = 2\nfresh = [1, 2, 3]")
    kinds = {v["name"]: v for v in result["variables"]}
    assert kinds["frame"]["kind"] == "changed" and kinds["frame"]["shape"] == [2, 2]
    assert kinds["count"]["kind"] == "rebound"
    assert kinds["fresh"]["kind"] == "created" and kinds["fresh"]["shape"] == [3]
    assert "kept" not in kinds


def test_hundreds_of_files_are_found_within_the_scan_limit(live_kernel):
    code = (
        "import os\nos.makedirs('many', exist_ok=True)\n"
        "for i in range(300):\n    open(f'many/f{i:03}.txt', 'w').write('x')"
    )
    result = live_kernel.run_case(code, max_listed_files=50)
    assert result["status"] == "success"
    assert len(result["files_created"]) == 50
    assert any("300 files" in note for note in result["notes"])
    assert live_kernel.answers()


def test_matplotlib_figure_becomes_a_png_artifact(live_kernel):
    code = "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot([1, 3, 2])\nplt.show()"
    result = live_kernel.run_case(code)
    assert result["status"] == "success"
    pngs = [p for p in result["artifacts"] if p.endswith(".png")]
    assert len(pngs) == 1
    assert Path(pngs[0]).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert Path(pngs[0]).parent == live_kernel.workdir / "artifacts"
    assert any(o["output_type"] == "display_data" and "image/png" in o["data"] for o in result["outputs"])
    _as_notebook_outputs(result["outputs"])


def test_figure_returned_as_the_result_is_saved_once(live_kernel):
    # Recorded as the result (closed first, so the backend does not show it again): one file.
    code = "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\nax.plot([1, 2])\nplt.close(fig)\nfig"
    result = live_kernel.run_case(code)
    pngs = [p for p in result["artifacts"] if p.endswith(".png")]
    assert len(pngs) == 1 and result["result"].startswith("<Figure")
    _as_notebook_outputs(result["outputs"])


def test_figure_that_fails_to_render_is_recorded(live_kernel):
    code = (
        "import matplotlib.pyplot as plt\nfig, ax = plt.subplots()\n"
        "ax.set_title(r'$\\undefinedcommand{x}$')\nplt.show()"
    )
    result = live_kernel.run_case(code)
    assert result["status"] == "error"
    assert result["error"]["ename"] == "ValueError"
    assert live_kernel.answers()


def test_written_csv_becomes_an_artifact(live_kernel):
    result = live_kernel.run_case("open('table.csv', 'w').write('a,b\\n1,2\\n')")
    assert str(live_kernel.workdir / "table.csv") in result["artifacts"]
    assert str(live_kernel.workdir / "table.csv") in result["files_created"]


def test_session_folder_is_not_scanned(live_kernel):
    # A visible name: hidden folders are skipped anyway, so `.twnb` would prove nothing. Verification
    # off: with it on, writing into the session folder is refused (test_trust_base.py).
    code = (
        "import os\nos.makedirs('my-session', exist_ok=True)\n"
        "open('my-session/autosave.yaml', 'w').write('x')\nopen('beside.txt', 'w').write('x')"
    )
    result = live_kernel.run_case(code, session_dir="my-session", guarded=False)
    assert result["files_created"] == [str(live_kernel.workdir / "beside.txt")]


def test_namespace_summary_shows_dataframe_and_never_a_secret(live_kernel):
    live_kernel.execute(
        "import pandas as pd\n"
        "sales = pd.DataFrame({'region': ['n', 's'], 'amount': [1.5, 2.5], 'units': [1, 2]})\n"
        "OPENAI_API_KEY = 'sk-canary0123456789abcdef'\n"
        "my_token = 'canary-token-value'\n"
        "innocent = 'sk-canary0123456789abcdef'\n"
    )
    summary = live_kernel.evaluate(
        "__import__('twnb.kernel', fromlist=['_']).LiveShellExecutor(get_ipython(), '.', 'artifacts')"
        ".namespace_summary()"
    )
    assert "- sales: DataFrame, shape (2, 3); columns: region (" in summary
    assert "amount (float64)" in summary and "units (int64)" in summary
    assert "canary" not in summary
    assert "pd:" not in summary and "get_ipython" not in summary and "In:" not in summary
