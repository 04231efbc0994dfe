"""The runtime guard in a real kernel: what generated code does is refused however it gets there, the
user's variables survive, and the user's own cells are never touched.

Each attempt here passed verification in a hostile review (or stands for one that did). The code runs
through `LiveShellExecutor` inside the kernel (conftest.py's `run_case`), which is what a Round does;
verification is not involved, so these show the guard alone.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

USER_CELL = "keep = 41\nimport pandas as pd\nframe = pd.DataFrame({'a': [1, 2]})"


@pytest.fixture
def kernel(live_kernel):
    """The module's kernel with the user's own variables defined by a cell of theirs."""
    live_kernel.execute(USER_CELL)
    return live_kernel


def _intact(kernel) -> bool:
    return kernel.evaluate("keep") == 41 and kernel.evaluate("list(frame.columns)") == ["a"]


def _refused(result: dict, rule: str) -> dict:
    assert result["status"] == "refused", result
    assert result["error"]["ename"] == "RuntimeGuardRefused"
    found = [r for r in result["refusals"] if r["rule"] == rule]
    assert found, result["refusals"]
    return found[0]


# -- processes, however they are reached -----------------------------------------------------------------


def test_os_system_is_refused_and_names_the_line(kernel):
    result = kernel.run_case("import os\nmarker = 1\nos.system('touch made-by-shell')")
    refusal = _refused(result, "process")
    assert refusal["line"] == 3 and refusal["source"] == "os.system('touch made-by-shell')"
    assert "os.system: touch made-by-shell" in refusal["message"]
    assert not (kernel.workdir / "made-by-shell").exists()
    assert _intact(kernel) and kernel.answers()


@pytest.mark.parametrize(
    "code",
    [
        "import subprocess\nsubprocess.run(['touch', 'made-by-shell'])",
        "import os\nos.posix_spawn('/usr/bin/touch', ['touch', 'made-by-shell'], os.environ)",
        "import os\nos.popen('touch made-by-shell').read()",
        "import pty\npty.spawn(['touch', 'made-by-shell'])",
        "import os\npid = os.fork()\n"
        "if pid == 0:\n    os.execv('/usr/bin/touch', ['touch', 'made-by-shell'])",
        "import multiprocessing as mp\nmp.get_context('spawn').Process(target=print).start()",
        # the kernel's own loop is running: asyncio runs the subprocess in a loop of a thread
        "import asyncio, threading\n"
        "async def touch():\n"
        "    await (await asyncio.create_subprocess_exec('touch', 'made-by-shell')).wait()\n"
        "worker = threading.Thread(target=asyncio.run, args=(touch(),))\nworker.start()\nworker.join()",
    ],
    ids=["subprocess", "posix_spawn", "popen", "pty", "fork", "multiprocessing", "asyncio"],
)
def test_every_way_to_start_a_process_is_refused(kernel, code):
    result = kernel.run_case(code)
    _refused(result, "process")
    assert not (kernel.workdir / "made-by-shell").exists()
    assert _intact(kernel) and kernel.answers()


@pytest.mark.parametrize(
    "code",
    [
        "import IPython\nIPython.InteractiveShell.instance().system('touch made-by-shell')",
        "import IPython\n"
        "IPython.InteractiveShell.instance().ex(\"import os; os.system('touch made-by-shell')\")",
        "import IPython\nout = IPython.InteractiveShell.instance().getoutput('touch made-by-shell')",
        "import IPython\nIPython.Application.instance().shell.system('touch made-by-shell')",
        "import IPython\nshell = IPython.InteractiveShell.instance()\n"
        "shell.magics_manager.magics['line']['system']('touch made-by-shell')",
        "from IPython.utils._process_posix import system\nsystem('touch made-by-shell')",
        "import IPython\nIPython.InteractiveShell.instance().run_cell('!touch made-by-shell')",
        "import IPython\n"
        "IPython.InteractiveShell.instance().run_line_magic('pip', 'install --no-index nothing-at-all')",
        "import IPython\n"
        "IPython.InteractiveShell.instance().run_cell_magic('bash', '', 'touch made-by-shell')",
    ],
    ids=[
        "system",
        "ex",
        "getoutput",
        "application",
        "magics-table",
        "process-posix",
        "run-cell",
        "pip",
        "bash",
    ],
)
def test_ipython_shell_routes_to_a_process_are_refused(kernel, code):
    result = kernel.run_case(code)
    _refused(result, "process")
    assert not (kernel.workdir / "made-by-shell").exists()
    assert _intact(kernel) and kernel.answers()


def test_a_background_job_of_ipython_is_refused_in_its_thread(kernel):
    code = (
        "from IPython.lib.backgroundjobs import BackgroundJobManager\n"
        "jobs = BackgroundJobManager()\n"
        "jobs.new(\"__import__('os').system('touch made-by-shell')\")\n"
        "import time\n"
        "for _ in range(100):\n"
        "    if not jobs.running:\n"
        "        break\n"
        "    time.sleep(0.02)"
    )
    result = kernel.run_case(code)
    _refused(result, "process")
    assert not (kernel.workdir / "made-by-shell").exists()
    assert _intact(kernel)


def test_a_refusal_the_code_catches_is_still_recorded(kernel):
    code = (
        "import os\ntry:\n    os.system('touch made-by-shell')\nexcept BaseException:\n    pass\n"
        "caught = True"
    )
    result = kernel.run_case(code)
    assert _refused(result, "process")["line"] == 3
    assert kernel.evaluate("caught") is True


def test_a_thread_the_code_starts_is_refused_too(kernel):
    code = (
        "import threading, subprocess\n"
        "worker = threading.Thread(target=subprocess.run, args=(['touch', 'made-by-shell'],))\n"
        "worker.start()\nworker.join()"
    )
    _refused(kernel.run_case(code), "process")
    assert not (kernel.workdir / "made-by-shell").exists()


def test_a_thread_started_through_the_low_level_module_is_followed(kernel):
    code = (
        "import _thread, os, time\n"
        "_thread.start_new_thread(os.system, ('touch made-by-shell',))\n"
        "time.sleep(0.5)"
    )
    _refused(kernel.run_case(code), "process")
    assert not (kernel.workdir / "made-by-shell").exists()


def test_a_thread_refused_after_its_code_ended_is_told_with_the_next_run(kernel):
    code = (
        "import threading, os, time\n"
        "later = threading.Timer(0.5, os.system, args=('touch made-by-shell',))\nlater.start()"
    )
    first = kernel.run_case(code)
    assert first["status"] == "success"
    kernel.execute("import time\ntime.sleep(1.0)")
    second = kernel.run_case("1 + 1")
    assert any("touch made-by-shell" in note and "refused" in note for note in second["notes"])
    assert not (kernel.workdir / "made-by-shell").exists()


def test_a_library_may_run_its_own_helper_program(fresh_kernel, tmp_path):
    # matplotlib lists the system's fonts with fc-list the first time it is imported without a font
    # cache; ctypes.util asks ldconfig where a library is (threadpoolctl does, under scikit-learn).
    kernel = fresh_kernel(MPLCONFIGDIR=str(tmp_path / "fresh-matplotlib-config"))
    code = "import matplotlib.pyplot as plt\nimport ctypes.util\nlibc = ctypes.util.find_library('c')"
    result = kernel.run_case(code)
    assert result["status"] == "success", result
    assert (tmp_path / "fresh-matplotlib-config").is_dir()


def test_the_code_may_not_run_a_library_helper_program_itself(kernel):
    result = kernel.run_case("import subprocess\nsubprocess.run(['fc-list'], capture_output=True)")
    assert _refused(result, "process")["subject"] == "fc-list"


# -- ctypes and signals ---------------------------------------------------------------------------------


def test_ctypes_loaded_by_the_code_is_refused(kernel):
    result = kernel.run_case(
        "import ctypes\nlibc = ctypes.CDLL('libc.so.6')\nlibc.system(b'touch made-by-shell')"
    )
    refusal = _refused(result, "ctypes")
    assert refusal["line"] == 2
    assert not (kernel.workdir / "made-by-shell").exists()


def test_ctypes_reaching_the_interpreter_is_refused(kernel):
    code = (
        "import ctypes, threading\n"
        "ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(threading.get_ident()), None)"
    )
    _refused(kernel.run_case(code), "ctypes")


def test_a_module_may_load_c_code_on_its_own_import(kernel):
    # polars checks the CPU through ctypes as it is imported: a library's import is its own business.
    (kernel.workdir / "c_on_import.py").write_text(
        "import ctypes\n\nPROCESS_ID = ctypes.CDLL(None).getpid()\n"
    )
    result = kernel.run_case("import c_on_import, os\nc_on_import.PROCESS_ID == os.getpid()")
    assert result["status"] == "success", result
    assert result["result"] == "True"


def test_ctypes_a_module_calls_for_the_code_is_refused(kernel):
    # trust follows the call: the module's frame is nearest, the code asked for it
    (kernel.workdir / "c_helper.py").write_text(
        "import ctypes\n\ndef process_id():\n    return ctypes.CDLL(None).getpid()\n"
    )
    result = kernel.run_case("import c_helper\nfound = c_helper.process_id()")
    _refused(result, "ctypes")
    assert kernel.evaluate("'found' in globals()") is False


_THREADPOOLCTL = "import ctypes\n\ndef threadpool_info():\n    return ctypes.CDLL(None).getpid()\n"


def test_a_listed_library_may_call_c_code_for_the_code(fresh_kernel, tmp_path):
    # scikit-learn's threadpoolctl finds the BLAS through ctypes each time KMeans fits (here a stand-in
    # of the user's, under the listed name: scikit-learn is not installed in the test environment)
    (tmp_path / "threadpoolctl.py").write_text(_THREADPOOLCTL)
    kernel = fresh_kernel()
    result = kernel.run_case("import threadpoolctl, os\nthreadpoolctl.threadpool_info() == os.getpid()")
    assert result["status"] == "success", result
    assert result["result"] == "True"


def test_a_listed_library_the_code_wrote_itself_is_refused(fresh_kernel):
    kernel = fresh_kernel()
    code = (
        f"open('threadpoolctl.py', 'w').write({_THREADPOOLCTL!r})\n"
        "import threadpoolctl\nthreadpoolctl.threadpool_info()"
    )
    _refused(kernel.run_case(code), "ctypes")


@pytest.mark.parametrize(
    "code",
    [
        "import os, signal\nos.kill(os.getpid(), signal.SIGTERM)",
        "import os, signal\nos.kill(0, signal.SIGTERM)",
        "import os, signal\nos.killpg(os.getpgrp(), signal.SIGTERM)",
        "import signal, threading\nsignal.pthread_kill(threading.main_thread().ident, signal.SIGTERM)",
        "import signal\nsignal.raise_signal(signal.SIGTERM)",
        "import signal\nsignal.alarm(1)",
        # SIGWINCH is ignored by default: were it let through, the test's own process would not mind
        "import os, signal\nos.kill(os.getppid(), signal.SIGWINCH)",
    ],
    ids=["kill-self", "kill-group", "killpg", "pthread-kill", "raise-signal", "alarm", "kill-parent"],
)
def test_signals_to_the_kernel_are_refused(kernel, code):
    result = kernel.run_case(code)
    _refused(result, "signal")
    assert kernel.answers() and _intact(kernel)


@pytest.mark.parametrize(
    "code",
    [
        "import os\nos._exit(0)",
        "import os\nos.abort()",
        "shell = get_ipython()\ntype(shell).ask_exit(shell)",
        "from ipykernel.zmqshell import ZMQInteractiveShell\nZMQInteractiveShell.ask_exit(get_ipython())",
    ],
    ids=["os-exit", "abort", "class-ask-exit", "kernel-shell-class-ask-exit"],
)
def test_ways_to_stop_the_kernel_are_refused(kernel, code):
    result = kernel.run_case(code)
    _refused(result, "kernel-exit")
    assert kernel.answers() and _intact(kernel)


# -- the user's variables --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "code",
    [
        "import IPython\nIPython.InteractiveShell.instance().reset(new_session=False)",
        "get_ipython().run_line_magic('reset', '-f')",
        "import IPython\nIPython.core.interactiveshell.InteractiveShell.reset(get_ipython())",
    ],
    ids=["reset", "reset-magic", "reset-through-the-class"],
)
def test_resetting_the_shell_is_refused_before_anything_is_lost(kernel, code):
    result = kernel.run_case(code)
    _refused(result, "namespace")
    assert _intact(kernel)


@pytest.mark.parametrize(
    "code",
    [
        "import IPython\nIPython.InteractiveShell.instance().user_ns.clear()",
        "import sys\nsys.modules['__main__'].__dict__.clear()",
        "for name in [n for n in list(globals()) if not n.startswith('_')]:\n    del globals()[name]",
        "get_ipython().run_line_magic('reset_selective', '-f .')",
        "get_ipython().run_line_magic('xdel', 'keep')",
        "del keep",
    ],
    ids=["clear", "main-module", "del-loop", "reset-selective", "xdel", "del"],
)
def test_variables_the_code_removes_are_put_back(kernel, code):
    result = kernel.run_case(code)
    refusal = _refused(result, "namespace")
    assert "keep" in refusal["message"] and "put them back" in refusal["message"]
    assert _intact(kernel) and kernel.answers()


def test_a_replaced_namespace_is_put_back(kernel):
    result = kernel.run_case("get_ipython().user_ns = {}")
    _refused(result, "namespace")
    assert _intact(kernel)
    assert kernel.evaluate("get_ipython().user_ns is get_ipython().user_module.__dict__") is True


def test_the_code_may_delete_what_generated_code_made(kernel):
    assert kernel.run_case("scratch = [1, 2, 3]")["status"] == "success"
    result = kernel.run_case("del scratch")
    assert result["status"] == "success" and result["refusals"] == []
    assert kernel.evaluate("'scratch' in globals()") is False


def test_a_name_the_user_rebound_is_the_users_again(kernel):
    assert kernel.run_case("mine_later = 1")["status"] == "success"
    kernel.execute("mine_later = 'the user wrote this'")
    result = kernel.run_case("del mine_later")
    _refused(result, "namespace")
    assert kernel.evaluate("mine_later") == "the user wrote this"


# -- what the guard leaves alone ---------------------------------------------------------------------------


def test_the_users_own_cells_are_never_guarded(kernel):
    kernel.run_case("import os\nos.system('true')")  # refused inside the run
    reply = kernel.execute(
        "import os, subprocess, threading\n"
        "status = os.system('true')\n"
        "out = subprocess.run(['echo', 'mine'], capture_output=True, text=True).stdout\n"
        "t = threading.Thread(target=os.system, args=('true',)); t.start(); t.join()\n"
        "mine = 1\ndel mine"
    )
    assert reply["status"] == "ok", reply
    assert kernel.evaluate("status") == 0 and kernel.evaluate("out") == "mine\n"


def test_threads_the_user_starts_stay_unguarded_while_generated_code_runs(kernel):
    # A thread of the user's, already running, is not armed by generated code that runs meanwhile.
    kernel.execute(
        "import threading, os, time\n"
        "go = threading.Event()\nseen = []\n"
        "def user_worker():\n    go.wait(5)\n    seen.append(os.system('true'))\n"
        "user_thread = threading.Thread(target=user_worker)\nuser_thread.start()"
    )
    result = kernel.run_case("go.set()\nuser_thread.join(5)")
    assert result["status"] == "success", result
    assert kernel.evaluate("seen") == [0]


def test_without_verification_the_guard_refuses_nothing(kernel):
    result = kernel.run_case("import os\nstatus = os.system('true')\ndel keep", guarded=False)
    assert result["status"] == "success" and result["refusals"] == []
    assert kernel.evaluate("status") == 0
    kernel.execute("keep = 41")


# -- artifacts: the files the code wrote, from the same guard ------------------------------------------------


def test_files_written_after_a_change_of_folder_are_found(kernel):
    code = (
        "import os\nos.makedirs('elsewhere', exist_ok=True)\nos.chdir('elsewhere')\n"
        "open('inside.txt', 'w').write('x')\nos.chdir('..')"
    )
    result = kernel.run_case(code)
    assert result["files_created"] == [str(kernel.workdir / "elsewhere" / "inside.txt")]


def test_a_file_another_process_writes_meanwhile_is_not_an_artifact(kernel):
    import threading

    writer = threading.Timer(0.3, (kernel.workdir / "not-ours.txt").write_text, args=("x",))
    writer.start()
    result = kernel.run_case("import time\ntime.sleep(1.0)\nopen('ours.txt', 'w').write('x')")
    writer.join()
    assert (kernel.workdir / "not-ours.txt").exists()
    assert result["files_created"] == [str(kernel.workdir / "ours.txt")]


def test_a_file_moved_into_place_is_listed_under_its_final_name(kernel):
    code = (
        "import os, shutil\n"
        "open('draft.tmp', 'w').write('x')\nos.replace('draft.tmp', 'report.txt')\n"
        "shutil.copy('report.txt', 'copy.txt')\nshutil.move('copy.txt', 'moved.txt')\n"
        "open('gone.txt', 'w').write('x')\nos.remove('gone.txt')"
    )
    result = kernel.run_case(code)
    names = [p.rsplit("/", 1)[-1] for p in result["files_created"]]
    assert names == ["report.txt", "moved.txt"]


def test_a_file_the_code_rewrites_is_modified_not_created(kernel):
    (kernel.workdir / "existing.csv").write_text("a\n1\n")
    result = kernel.run_case("open('existing.csv', 'a').write('2\\n')")
    assert result["files_modified"] == [str(kernel.workdir / "existing.csv")]
    assert result["files_created"] == []


def test_data_library_writers_and_threads_make_artifacts(kernel):
    code = (
        "import threading\nimport matplotlib\nmatplotlib.use('Agg')\nimport matplotlib.pyplot as plt\n"
        "frame.to_csv('frame.csv', index=False)\nframe.to_parquet('frame.parquet')\n"
        "fig, ax = plt.subplots()\nax.plot([1, 2])\nfig.savefig('plot.png')\nplt.close(fig)\n"
        "worker = threading.Thread(target=lambda: open('from-thread.txt', 'w').write('x'))\n"
        "worker.start()\nworker.join()"
    )
    result = kernel.run_case(code)
    assert result["status"] == "success", result
    names = sorted(p.rsplit("/", 1)[-1] for p in result["files_created"])
    assert names == ["frame.csv", "frame.parquet", "from-thread.txt", "plot.png"]


def test_hidden_cache_and_session_files_are_not_artifacts(kernel):
    # verification off: with it on, writing into the session folder is refused (test_trust_base.py)
    code = (
        "import os\nos.makedirs('.hidden', exist_ok=True)\nopen('.hidden/x.txt', 'w').write('x')\n"
        "os.makedirs('__pycache__', exist_ok=True)\nopen('__pycache__/m.pyc', 'w').write('x')\n"
        "os.makedirs('my-session', exist_ok=True)\nopen('my-session/autosave.yaml', 'w').write('x')\n"
        "import tempfile\nwith tempfile.NamedTemporaryFile('w', delete=False) as f:\n    f.write('x')\n"
        "open('result.txt', 'w').write('x')"
    )
    result = kernel.run_case(code, session_dir="my-session", guarded=False)
    assert result["files_created"] == [str(kernel.workdir / "result.txt")]


def test_without_verification_files_are_still_found_the_same_way(kernel):
    result = kernel.run_case(
        "import os\nos.chdir('elsewhere')\nopen('off.txt', 'w').write('x')\nos.chdir('..')", guarded=False
    )
    assert result["files_created"] == [str(kernel.workdir / "elsewhere" / "off.txt")]


def test_writers_of_libraries_first_imported_by_the_code_make_artifacts(kernel):
    # polars and pyarrow's own writers open their files in native code, where no audit event is
    # raised; the guard wraps them as they are imported.
    code = (
        "import polars as pl\nimport pyarrow as pa, pyarrow.parquet as pq\n"
        "pl.DataFrame({'a': [1, 2]}).write_parquet('by-polars.parquet')\n"
        "pl.DataFrame({'a': [1, 2]}).lazy().sink_csv('by-polars-lazy.csv')\n"
        "pq.write_table(pa.table({'a': [1]}), 'by-pyarrow.parquet')"
    )
    result = kernel.run_case(code)
    assert result["status"] == "success", result
    names = [p.rsplit("/", 1)[-1] for p in result["files_created"]]
    assert names == ["by-polars.parquet", "by-polars-lazy.csv", "by-pyarrow.parquet"]


# -- active content: shown and recorded as text ---------------------------------------------------------


def _shown_bundles(kernel) -> list[dict]:
    return [content["data"] for kind, content in kernel.shown if kind in ("display_data", "execute_result")]


@pytest.mark.parametrize(
    "code",
    [
        "from IPython.display import display, Javascript\ndisplay(Javascript('window.stolen = 1'))",
        "from IPython.display import display\n"
        "display({'application/javascript': 'window.stolen = 1'}, raw=True)",
        "from IPython.display import display, HTML\ndisplay(HTML('<script>window.stolen = 1</script>'))",
        "from IPython.display import HTML\nHTML('<img src=x onerror=\"window.stolen = 1\">')",
        "from IPython.display import display, Markdown\n"
        "display(Markdown('<img src=x onerror=\"window.stolen = 1\">'))",
        "from IPython.display import IFrame\nIFrame('https://example.com', 300, 200)",
    ],
    ids=["javascript", "raw-javascript", "html-script", "result-html-handler", "markdown-handler", "iframe"],
)
def test_active_output_is_shown_and_recorded_as_text_with_why(kernel, code):
    result = kernel.run_case(code)
    assert result["status"] == "success", result
    shown = _shown_bundles(kernel)
    recorded = [
        o["data"] for o in result["outputs"] if o["output_type"] in ("display_data", "execute_result")
    ]
    for bundles in (shown, recorded):
        assert bundles and all(set(bundle) == {"text/plain"} for bundle in bundles), bundles
        assert "held active content" in bundles[0]["text/plain"].splitlines()[0]
    assert any("held active content" in note for note in result["notes"])


def test_a_dataframe_shows_as_html_as_ever(kernel):
    result = kernel.run_case("frame")
    assert "text/html" in _shown_bundles(kernel)[0]
    assert not any("active content" in note for note in result["notes"])


def test_the_setting_shows_active_output_but_the_record_keeps_it_as_text(kernel):
    code = "from IPython.display import display, Javascript\ndisplay(Javascript('window.allowed = 1'))"
    result = kernel.run_case(code, allow_active_output=True)
    assert "application/javascript" in _shown_bundles(kernel)[0]
    (recorded,) = [o["data"] for o in result["outputs"] if o["output_type"] == "display_data"]
    assert set(recorded) == {"text/plain"}
