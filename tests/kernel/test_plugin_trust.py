"""Trust for plugins follows what is actually acting, not a flag generated code can set: in a real
kernel, with a TaskWeaver plugin and a notebook function that start a process, each way generated code
might borrow a plugin's trust is refused, the plugins themselves still start their processes, and the
user's variables are intact.

The code runs as a Round runs it: a PluginExecutor around the kernel's LiveShellExecutor, with the
plugins bound by a PluginCatalog in a cell of the user's before the run.
"""

from __future__ import annotations

import ast
import json
import marshal
import textwrap

import pytest
from support.plugin_folder import write_plugin_folder

pytestmark = pytest.mark.slow

USER_CELL = """\
import os, subprocess, threading, twnb
from pathlib import Path
from twnb.kernel import LiveShellExecutor
from twnb.plugins import PluginCatalog, PluginExecutor

keep = 41

@twnb.plugin
def line_count(path: str) -> int:
    '''The number of lines in a file, as wc counts them.'''
    return int(subprocess.run(['wc', '-l', path], capture_output=True, text=True).stdout.split()[0])

@twnb.plugin
def in_background(task) -> None:
    '''Run task in a thread of its own and wait for it.'''
    worker = threading.Thread(target=task)
    worker.start()
    worker.join()

__trust_catalog = PluginCatalog(
    folders=[Path('plugins')], artifacts_dir=Path('artifacts'),
    namespace=get_ipython().user_ns, hidden=get_ipython().user_ns_hidden,
)
__trust_executor = PluginExecutor(
    LiveShellExecutor(get_ipython(), os.getcwd(), os.path.join(os.getcwd(), 'artifacts')),
    __trust_catalog, Path('artifacts'),
)
__trust_problems = __trust_catalog.refresh()
__trust_originals = (
    subprocess.run, word_count.target, type(word_count.target), type(word_count.target).__call__,
    line_count.__code__,
)
"""


@pytest.fixture(scope="module")
def kernel(live_kernel):
    write_plugin_folder(live_kernel.workdir)
    reply = live_kernel.execute(USER_CELL)
    assert reply["status"] == "ok", reply
    assert live_kernel.evaluate("__trust_problems") == []
    return live_kernel


def _run(kernel, code: str) -> dict:
    """Generated code run as a Round runs it; the result as a dict."""
    setup = f"__trust_json = __import__('json').dumps(__trust_executor.run({code!r}).to_dict())"
    reply = kernel.execute(setup, user_expressions={"result": "__trust_json"})
    assert reply["status"] == "ok", reply
    value = reply["user_expressions"]["result"]
    assert value["status"] == "ok", value
    return json.loads(ast.literal_eval(value["data"]["text/plain"]))


@pytest.fixture
def clean(kernel):
    """No marker file before the test; the user's variable and the plugins intact after it."""
    marker = kernel.workdir / "pwned"
    marker.unlink(missing_ok=True)
    yield marker
    assert kernel.evaluate("keep") == 41
    assert kernel.evaluate("line_count('notes.txt')") == 2


def _refused(result: dict) -> list[dict]:
    assert result["status"] == "refused", result
    return result["refusals"]


def test_a_notebook_function_plugin_still_starts_its_process(kernel, clean):
    result = _run(kernel, "lines = line_count('notes.txt')")
    assert result["status"] == "success", result
    assert kernel.evaluate("lines") == 2


def test_a_taskweaver_plugin_still_starts_its_process(kernel, clean):
    result = _run(kernel, "words = word_count('notes.txt')")
    assert result["status"] == "success", result
    assert kernel.evaluate("words") == 3


EVIL_RUN = "def run(*a, **k):\n    os.system('touch pwned')\n"

ATTEMPTS = {
    "own_plugin_function": (
        "from twnb.plugins.calls import PluginFunction\n"
        "PluginFunction('x', 'notebook', lambda: os.system('touch pwned'))()"
    ),
    "own_plugin_function_around_a_partial": (
        "import functools\nfrom twnb.plugins.calls import PluginFunction\n"
        "PluginFunction('x', 'notebook', functools.partial(os.system, 'touch pwned'))()"
    ),
    "trusted_section_opened_by_the_code": (
        "from twnb.kernel import RuntimeGuard\n"
        "with RuntimeGuard.installed().trusted(None):\n    os.system('touch pwned')"
    ),
    "entry_point_registered_by_the_code": (
        "import sys\nfrom twnb.kernel import RuntimeGuard\n"
        "RuntimeGuard.installed().trust_entry(sys._getframe().f_code)\n"
        "with RuntimeGuard.installed().trusted(None):\n    os.system('touch pwned')"
    ),
    "lenient_run_armed_by_the_code": (
        "from twnb.kernel.guard.runtime_guard import RuntimeGuard, GuardedRun\n"
        "with RuntimeGuard.installed().watching(GuardedRun(refuse=False)):\n    os.system('touch pwned')"
    ),
    "thread_follower_called_in_the_codes_own_thread": (
        "from twnb.kernel.guard.runtime_guard import RuntimeGuard, _Follower\n"
        "guard = RuntimeGuard.installed()\n"
        "_Follower(print, guard, guard.armed_run(), True)()\nos.system('touch pwned')"
    ),
    "class_call_of_a_plugin_patched": (
        "type(word_count.target).__call__ = lambda self, path: os.system('touch pwned')\n"
        "word_count('notes.txt')"
    ),
    "class_call_replaced_by_a_library_function": (
        "type(word_count.target).__call__ = staticmethod(subprocess.getoutput)\nword_count('touch pwned')"
    ),
    "library_function_the_plugin_uses_patched": (
        "subprocess.run = lambda *a, **k: os.system('touch pwned')\nline_count('notes.txt')"
    ),
    "plugin_code_replaced": (
        "line_count.target.__code__ = subprocess.getoutput.__code__\n"
        "getstatusoutput = subprocess.getstatusoutput\nline_count('touch pwned')"
    ),
    "path_like_handed_to_a_plugin": (
        "class Evil:\n"
        "    def __fspath__(self):\n        os.system('touch pwned')\n        return 'notes.txt'\n"
        "line_count(Evil())"
    ),
    "function_handed_to_a_plugin_run_in_its_thread": "in_background(lambda: os.system('touch pwned'))",
    "exec_of_a_string_inside_a_patched_library": (
        "ns = {'os': os}\n"
        "exec('def run(*a, **k):\\n    os.system(\"touch pwned\")', ns)\n"
        "subprocess.run = ns['run']\nline_count('notes.txt')"
    ),
    "function_compiled_under_a_library_file_name": (
        "import types\n"
        "import string\n"
        "code = compile('def run(*a, **k):\\n    os.system(\"touch pwned\")', string.__file__, 'exec')\n"
        "run = types.FunctionType(code.co_consts[0], {'os': os})\n"
        "subprocess.run = run\nline_count('notes.txt')"
    ),
    # bytes made here, outside the run: the code never compiles anything itself
    "code_loaded_from_marshalled_bytes": (
        "import marshal, types\n"
        f"data = {marshal.dumps(compile(EVIL_RUN, textwrap.__file__, 'exec'))!r}\n"
        "run = types.FunctionType(marshal.loads(data).co_consts[0], {'os': os})\n"
        "subprocess.run = run\nline_count('notes.txt')"
    ),
}


@pytest.mark.parametrize("code", ATTEMPTS.values(), ids=ATTEMPTS.keys())
def test_generated_code_never_borrows_a_plugins_trust(kernel, clean, code):
    try:
        result = _run(kernel, code)
        refusals = _refused(result)
        assert refusals and all(r["rule"] in ("process", "code") for r in refusals), refusals
        assert not clean.exists()
    finally:
        _undo(kernel)


def _undo(kernel) -> None:
    """Undo what an attempt changed in the user's kernel (a real user would restart it)."""
    reply = kernel.execute(
        "subprocess.run, __target, __kind, __kind.__call__, line_count.__code__ = __trust_originals\n"
        "object.__setattr__(word_count, 'target', __target)"
    )
    assert reply["status"] == "ok", reply


def test_a_bound_plugin_calls_the_target_it_was_bound_with(kernel, clean):
    code = (
        "import functools\n"
        "object.__setattr__(word_count, 'target', functools.partial(os.system, 'touch pwned'))\n"
        "words = word_count('notes.txt')"
    )
    try:
        result = _run(kernel, code)
        assert result["status"] == "success", result["refusals"]
        assert kernel.evaluate("words") == 3 and not clean.exists()
    finally:
        _undo(kernel)


def test_a_module_written_by_the_code_and_imported_is_its_code(kernel, clean):
    code = (
        "from pathlib import Path\n"
        f"Path('helper_module.py').write_text({'import os' + chr(10) + EVIL_RUN!r})\n"
        "import helper_module\nsubprocess.run = helper_module.run\nline_count('notes.txt')"
    )
    try:
        _refused(_run(kernel, code))
        assert not clean.exists()
    finally:
        _undo(kernel)


def test_a_module_the_code_imports_from_a_file_it_did_not_write_is_not_its_code(kernel, clean):
    # what the user (or a library) provided stays trusted code when a plugin runs it, even when the
    # generated code is first to import it
    (kernel.workdir / "toucher.py").write_text(
        "import subprocess\n\ndef touch():\n    subprocess.run(['touch', 'touched-by-module'])\n"
    )
    result = _run(kernel, "import toucher\nin_background(toucher.touch)")
    assert result["status"] == "success", result["refusals"]
    assert (kernel.workdir / "touched-by-module").exists()


def test_a_function_generated_code_wrote_gets_no_trust_when_made_a_plugin(kernel, clean):
    written = _run(
        kernel,
        "def lines_of(path: str) -> int:\n"
        "    '''The lines of a file, as wc counts them.'''\n"
        "    done = subprocess.run(['wc', '-l', path], capture_output=True, text=True)\n"
        "    return int(done.stdout.split()[0])",
    )
    assert written["status"] == "success", written
    # the user makes it a plugin in a cell of their own, as %taskweaver plugins add does
    reply = kernel.execute("twnb.plugin(lines_of)\n__trust_problems = __trust_catalog.refresh()")
    assert reply["status"] == "ok" and kernel.evaluate("__trust_problems") == []
    refusals = _refused(_run(kernel, "count = lines_of('notes.txt')"))
    assert [r["rule"] for r in refusals] == ["process"]
