"""Trust follows where a forbidden act comes from (guard_provenance.py), in a real kernel: a library,
a backend, a helper program or a thread pool put between generated code and the act does not make it
the library's. Each test is the attack as a model would write it; each asserts that nothing ran (the
marker file is not there) and that the kernel keeps the user's variables.
"""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow

USER_CELL = "keep = 41\nimport pandas as pd\nframe = pd.DataFrame({'a': [1, 2]})"
MARKER = "made-by-attack"


@pytest.fixture
def kernel(live_kernel):
    live_kernel.execute(USER_CELL)
    (live_kernel.workdir / MARKER).unlink(missing_ok=True)
    return live_kernel


def _intact(kernel) -> bool:
    return kernel.evaluate("keep") == 41 and kernel.evaluate("list(frame.columns)") == ["a"]


def _refused(result: dict, rule: str) -> dict:
    assert result["status"] == "refused", result
    found = [r for r in result["refusals"] if r["rule"] == rule]
    assert found, result["refusals"]
    return found[0]


def _user_cell_refused(kernel, code: str) -> None:
    """The user's own cell runs `code`; what generated code made is refused inside it."""
    reply = kernel.execute(code)
    assert reply["status"] == "error" and reply["ename"] == "RuntimeGuardRefused", reply


# -- native code through a library -----------------------------------------------------------------------


def test_libc_loaded_through_numpy_is_refused(kernel):
    code = (
        "import numpy as np, pandas as pd\n"
        "libc = np.ctypeslib.load_library('libc.so.6', '/lib/x86_64-linux-gnu')\n"
        "system = pd.Series(['system']).map(libc.__getitem__).iloc[0]\n"
        f"pd.Series([b'touch {MARKER}']).map(system)"
    )
    _refused(kernel.run_case(code), "ctypes")
    assert not (kernel.workdir / MARKER).exists()
    assert _intact(kernel) and kernel.answers()


def test_the_users_libc_called_through_pandas_by_the_code_is_refused(kernel):
    # the C function is the user's; the pandas frame is nearest; the code chose to call it
    kernel.execute("import ctypes\nusers_libc = ctypes.CDLL('libc.so.6')")
    code = (
        "system = pd.Series(['system']).map(users_libc.__getitem__).iloc[0]\n"
        f"pd.Series([b'touch {MARKER}']).map(system)"
    )
    result = kernel.run_case(code)
    _refused(result, "ctypes")
    assert not (kernel.workdir / MARKER).exists()
    assert _intact(kernel)


# -- a module the code wrote, loaded by a library --------------------------------------------------------

_BACKEND = (
    "import os\n"
    "from matplotlib.backends.backend_agg import FigureCanvasAgg as FigureCanvas\n"
    f"def show(*args, **kwargs):\n    os.system('touch {MARKER}')\n"
    f"def plot(data, kind=None, **kwargs):\n    os.system('touch {MARKER}')\n"
)


def test_a_pandas_plotting_backend_the_code_wrote_is_refused_when_the_user_plots(kernel):
    code = (
        f"open('sneaky_plots.py', 'w').write({_BACKEND!r})\npd.set_option('plotting.backend', 'sneaky_plots')"
    )
    assert kernel.run_case(code)["status"] == "success"
    try:
        _user_cell_refused(kernel, "frame.plot()")
    finally:
        kernel.execute("pd.reset_option('plotting.backend')")
    assert not (kernel.workdir / MARKER).exists()
    assert _intact(kernel)


def test_a_matplotlib_backend_the_code_wrote_is_refused_when_the_user_shows(kernel):
    code = (
        f"open('sneaky_backend.py', 'w').write({_BACKEND!r})\n"
        "import matplotlib\nmatplotlib.use('module://sneaky_backend')"
    )
    assert kernel.run_case(code)["status"] == "success"
    try:
        _user_cell_refused(kernel, "import matplotlib.pyplot as plt\nplt.plot([1, 2])\nplt.show()")
    finally:
        kernel.execute("import matplotlib.pyplot as plt\nplt.close('all')\nplt.switch_backend('agg')")
    assert not (kernel.workdir / MARKER).exists()
    assert _intact(kernel)


def test_a_module_the_code_wrote_is_generated_code_when_a_library_imports_it_later(kernel):
    # written in the Round, imported only afterwards, by matplotlib, in the user's own cell
    module = f"import os\nos.system('touch {MARKER}')\n" + _BACKEND
    assert kernel.run_case(f"open('later_backend.py', 'w').write({module!r})")["status"] == "success"
    try:
        _user_cell_refused(kernel, "import matplotlib\nmatplotlib.use('module://later_backend')")
    finally:
        kernel.execute("import matplotlib.pyplot as plt\nplt.switch_backend('agg')")
    assert not (kernel.workdir / MARKER).exists()


# -- helper programs through PATH ------------------------------------------------------------------------

_FAKE_PROGRAM = (
    "import os\n"
    "os.makedirs('bin', exist_ok=True)\n"
    "with open('bin/{name}', 'w') as f:\n"
    f"    f.write('#!/bin/sh\\ntouch {MARKER}\\n')\n"
    "os.chmod('bin/{name}', 0o755)\n"
    "os.environ['PATH'] = os.path.abspath('bin') + os.pathsep + os.environ['PATH']\n"
)


def test_a_helper_program_the_code_put_first_on_path_is_refused(fresh_kernel, tmp_path):
    kernel = fresh_kernel()
    code = (
        _FAKE_PROGRAM.format(name="fc-list")
        + "from matplotlib import font_manager\n"
        + "font_manager._get_fontconfig_fonts.cache_clear()\nfont_manager._get_fontconfig_fonts()"
    )
    refusal = _refused(kernel.run_case(code), "process")
    assert refusal["subject"].startswith("fc-list")
    assert not (tmp_path / MARKER).exists()


def test_the_real_helper_program_still_runs(fresh_kernel):
    kernel = fresh_kernel()
    code = (
        "from matplotlib import font_manager\n"
        "font_manager._get_fontconfig_fonts.cache_clear()\nfonts = font_manager._get_fontconfig_fonts()"
    )
    result = kernel.run_case(code)
    assert result["status"] == "success", result


def test_a_program_found_through_a_path_entry_the_code_added_is_refused_after_the_round(
    fresh_kernel, tmp_path
):
    # matplotlib runs latex to draw usetex text after the Round, in no run at all
    kernel = fresh_kernel()
    assert kernel.run_case(_FAKE_PROGRAM.format(name="latex"))["status"] == "success"
    _user_cell_refused(kernel, "import subprocess\nsubprocess.run(['latex', '--version'])")
    assert not (tmp_path / MARKER).exists()


# -- work handed to a thread the user made ---------------------------------------------------------------


_EXECUTOR = (
    "from concurrent.futures import ThreadPoolExecutor\nusers_pool = ThreadPoolExecutor(1)\n"
    "users_pool.submit(int).result()"
)
_THREAD_POOL = (
    "from multiprocessing.pool import ThreadPool\nusers_pool = ThreadPool(1)\nusers_pool.apply(int)"
)


@pytest.mark.parametrize(
    ("user_pool", "attack", "users_use"),
    [
        (
            _EXECUTOR,
            f"import subprocess\nusers_pool.submit(subprocess.run, ['touch', '{MARKER}']).result()",
            "users_pool.submit(os.system, 'true').result()",
        ),
        (
            _EXECUTOR,
            f"import os\nlist(users_pool.map(os.system, ['touch {MARKER}']))",
            "users_pool.submit(os.system, 'true').result()",
        ),
        (
            _THREAD_POOL,
            f"import os\nusers_pool.apply(os.system, ('touch {MARKER}',))",
            "users_pool.apply(os.system, ('true',))",
        ),
    ],
    ids=["submit", "map", "multiprocessing-threadpool"],
)
def test_work_the_code_hands_to_the_users_thread_pool_runs_armed(kernel, user_pool, attack, users_use):
    kernel.execute(user_pool)
    try:
        _refused(kernel.run_case(attack), "process")
        assert not (kernel.workdir / MARKER).exists()
        # the worker is the user's again afterwards
        reply = kernel.execute(f"import os\nusers_status = {users_use}")
        assert reply["status"] == "ok", reply
        assert kernel.evaluate("users_status") == 0
    finally:
        kernel.execute(
            "users_pool.terminate() if hasattr(users_pool, 'terminate') else users_pool.shutdown()"
        )
    assert _intact(kernel)


# -- the kernel itself -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "rule"),
    [
        ("import os, signal\nsignal.pidfd_send_signal(os.pidfd_open(os.getpid()), 9)", "signal"),
        ("import os\nos.closerange(3, 65536)", "descriptor"),
        (
            "import os\nfor fd in range(3, 1024):\n"
            "    try:\n        os.close(fd)\n    except OSError:\n        pass",
            "descriptor",
        ),
        ("import os\nos.dup2(os.open(os.devnull, os.O_RDONLY), 3)", "descriptor"),
        ("import resource\nresource.setrlimit(resource.RLIMIT_NOFILE, (3, 3))", "resource"),
        (
            "import resource\nresource.prlimit(0, resource.RLIMIT_AS, (2**24, resource.RLIM_INFINITY))",
            "resource",
        ),
    ],
    ids=["pidfd-signal", "closerange", "close-loop", "dup2", "setrlimit", "prlimit"],
)
def test_acts_that_kill_or_wedge_the_kernel_are_refused(kernel, code, rule):
    _refused(kernel.run_case(code), rule)
    assert kernel.answers() and _intact(kernel)


def test_the_code_may_close_descriptors_it_opened(kernel):
    code = "import os, tempfile\nfd, path = tempfile.mkstemp(dir='.')\nos.close(fd)\nos.remove(path)"
    result = kernel.run_case(code)
    assert result["status"] == "success", result


# -- dynamic imports: what verification refuses by name is refused at the act too --------------------------


@pytest.mark.parametrize(
    "code",
    [
        "from IPython.utils.importstring import import_item\n"
        f"import_item('subprocess').run(['touch', '{MARKER}'])",
        "from IPython.utils.importstring import import_item\n"
        f"import_item('os.' + 'system')('touch {MARKER}')",
        f"import importlib\nimportlib.import_module('sub' + 'process').run(['touch', '{MARKER}'])",
        f"import pkgutil\npkgutil.resolve_name('os:system')('touch {MARKER}')",
        f"__import__('o' + 's').system('touch {MARKER}')",
    ],
    ids=["import-item", "import-item-computed", "importlib-computed", "resolve-name", "dunder-import"],
)
def test_a_process_reached_through_a_dynamic_import_is_refused(kernel, code):
    _refused(kernel.run_case(code), "process")
    assert not (kernel.workdir / MARKER).exists()
    assert _intact(kernel)
