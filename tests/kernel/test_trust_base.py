"""The trust base in a real kernel: generated code never writes what decides what twnb, Python, IPython
and Jupyter trust (twnb/kernel/guard/trust_base.py), whatever the route, and never changes twnb's settings
through the environment.

Each case is written as a model would write it in a Round, run through `LiveShellExecutor` inside a
kernel (conftest.py's `run_case`) whose HOME is a folder of the test's own, so that a failure writes
nothing a later process of this machine would load. Each asserts that nothing was written.
"""

from __future__ import annotations

import pytest

from twnb.kernel import KernelExecutor, RunRules

pytestmark = pytest.mark.slow


@pytest.fixture
def kernel(fresh_kernel, tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    (home / ".bashrc").write_text("# the user's\n", encoding="utf-8")
    started = fresh_kernel(HOME=str(home))
    started.home = home
    return started


def _refused(result: dict, rule: str = "trust-base") -> dict:
    assert result["status"] == "refused", result
    found = [r for r in result["refusals"] if r["rule"] == rule]
    assert found, result["refusals"]
    return found[0]


SETTINGS_ATTACK = "code_interpreter:\n  verify: false\n"


@pytest.mark.parametrize(
    "code",
    [
        f"open('twnb.yaml', 'w').write({SETTINGS_ATTACK!r})",
        f"import pathlib\npathlib.Path('twnb.yaml').write_text({SETTINGS_ATTACK!r})",
        f"import shutil\nopen('draft.txt', 'w').write({SETTINGS_ATTACK!r})\n"
        "shutil.copy('draft.txt', 'twnb.yaml')",
        f"import os\nopen('draft.txt', 'w').write({SETTINGS_ATTACK!r})\nos.replace('draft.txt', 'twnb.yaml')",
        "import os\nfd = os.open('twnb.yaml', os.O_WRONLY | os.O_CREAT)\n"
        f"os.write(fd, {SETTINGS_ATTACK.encode()!r})\nos.close(fd)",
        "import os\nos.makedirs('sub', exist_ok=True)\n"
        f"open('sub/../twnb.yaml', 'w').write({SETTINGS_ATTACK!r})",
        "import pandas as pd\npd.DataFrame({'code_interpreter': ['verify: false']}).to_csv('twnb.yaml')",
    ],
    ids=["open", "pathlib", "shutil-copy", "os-replace", "os-open", "dot-dot", "pandas"],
)
def test_twnb_settings_file_is_never_written(kernel, code):
    result = kernel.run_case(code)
    refusal = _refused(result)
    assert "twnb.yaml" in refusal["message"] and refusal["hint"]
    assert not (kernel.workdir / "twnb.yaml").exists()


def test_dotenv_is_never_written(kernel):
    result = kernel.run_case("open('.env', 'a').write('TWNB_VERIFY=false\\n')")
    _refused(result)
    assert not (kernel.workdir / ".env").exists()


def test_a_plugin_is_never_written_into_the_plugin_folder(kernel):
    (kernel.workdir / "plugins").mkdir()
    code = (
        "open('plugins/tool.yaml', 'w').write('name: tool\\nenabled: true\\n')\n"
        "open('plugins/tool.py', 'w').write('import os\\n')"
    )
    result = kernel.run_case(code, protected=[str(kernel.workdir / "plugins")])
    _refused(result)
    assert list((kernel.workdir / "plugins").iterdir()) == []


def test_the_plugin_folder_is_never_made(kernel):
    result = kernel.run_case(
        "import os\nos.makedirs('plugins/more')", protected=[str(kernel.workdir / "plugins")]
    )
    _refused(result)
    assert not (kernel.workdir / "plugins").exists()


def test_the_session_folder_is_never_written(kernel):
    code = "import os\nos.makedirs('.twnb', exist_ok=True)\nopen('.twnb/cassette.yaml', 'w').write('x')"
    result = kernel.run_case(code)
    _refused(result)
    assert not (kernel.workdir / ".twnb" / "cassette.yaml").exists()


def test_a_pth_file_is_never_written_into_site_packages_found_from_numpy(kernel):
    # A harmless line, and removed afterwards, should the guard ever let it through.
    name = f"twnb-attack-{kernel.workdir.name}.pth"
    code = (
        "import os, numpy as np\n"
        "site = os.path.dirname(os.path.dirname(np.get_include()))\n"
        "if os.path.basename(site) == 'numpy':\n"
        "    site = os.path.dirname(site)\n"
        f"target = os.path.join(site, {name!r})\n"
        "open(target, 'w').write('/nonexistent-twnb-attack\\n')"
    )
    site = kernel.evaluate("__import__('sysconfig').get_paths()['purelib']")
    try:
        result = kernel.run_case(code)
        refusal = _refused(result)
        assert "site-packages" in refusal["message"]
    finally:
        import os

        leaked = os.path.join(site, name)
        existed = os.path.exists(leaked)
        if existed:
            os.remove(leaked)
    assert not existed


def test_an_ipython_startup_file_is_never_written(kernel):
    code = (
        "import os\nfrom IPython.paths import get_ipython_dir\n"
        "startup = os.path.join(get_ipython_dir(), 'profile_default', 'startup')\n"
        "os.makedirs(startup, exist_ok=True)\n"
        "open(os.path.join(startup, '00-x.py'), 'w').write('open(\"marker\", \"w\")')"
    )
    folder = kernel.evaluate("__import__('IPython').paths.get_ipython_dir()")
    result = kernel.run_case(code)
    _refused(result)
    import pathlib

    assert not (pathlib.Path(folder) / "profile_default" / "startup" / "00-x.py").exists()


def test_a_shell_startup_file_is_never_written(kernel):
    code = "import os\nwith open(os.path.expanduser('~/.bashrc'), 'a') as f:\n    f.write('touch marker\\n')"
    result = kernel.run_case(code)
    _refused(result)
    assert (kernel.home / ".bashrc").read_text(encoding="utf-8") == "# the user's\n"


def test_a_sitecustomize_is_never_written_anywhere(kernel):
    result = kernel.run_case("open('sitecustomize.py', 'w').write('import os')")
    _refused(result)
    assert not (kernel.workdir / "sitecustomize.py").exists()


def test_a_symlink_into_the_trust_base_is_refused(kernel):
    code = (
        "import os\nos.symlink(os.path.expanduser('~/.bashrc'), 'notes.txt')\n"
        "open('notes.txt', 'a').write('x')"
    )
    result = kernel.run_case(code)
    _refused(result)
    assert not (kernel.workdir / "notes.txt").is_symlink()
    assert (kernel.home / ".bashrc").read_text(encoding="utf-8") == "# the user's\n"


def test_writing_through_a_symlink_that_resolves_into_the_trust_base_is_refused(kernel):
    (kernel.workdir / "notes.txt").symlink_to(kernel.home / ".bashrc")  # made before the Round
    result = kernel.run_case("open('notes.txt', 'a').write('touch marker\\n')")
    _refused(result)
    assert (kernel.home / ".bashrc").read_text(encoding="utf-8") == "# the user's\n"


def test_a_hard_link_to_a_startup_file_is_refused(kernel):
    result = kernel.run_case("import os\nos.link(os.path.expanduser('~/.bashrc'), 'notes.txt')")
    _refused(result)
    assert not (kernel.workdir / "notes.txt").exists()


def test_writing_through_an_existing_hard_link_is_refused(kernel):
    import os

    os.link(kernel.home / ".bashrc", kernel.workdir / "notes.txt")  # made by hand before the Round
    result = kernel.run_case("open('notes.txt', 'a').write('touch marker\\n')")
    _refused(result)
    assert (kernel.home / ".bashrc").read_text(encoding="utf-8") == "# the user's\n"


def test_a_library_writer_is_refused_in_the_trust_base(kernel):
    code = (
        "import os, pyarrow as pa, pyarrow.parquet as pq\nos.makedirs('.twnb', exist_ok=True)\n"
        "pq.write_table(pa.table({'a': [1]}), '.twnb/rounds.parquet')"
    )
    result = kernel.run_case(code)
    _refused(result)
    assert not (kernel.workdir / ".twnb" / "rounds.parquet").exists()


def test_a_bytecode_cache_in_the_trust_base_is_denied_quietly(kernel):
    code = (
        "import os, sysconfig\n"
        "cache = os.path.join(sysconfig.get_paths()['purelib'], '__pycache__', 'twnb-attack.pyc')\n"
        "try:\n    open(cache, 'wb').write(b'x')\nexcept PermissionError:\n    denied = True"
    )
    result = kernel.run_case(code)
    assert result["status"] == "success" and not result["refusals"], result
    assert kernel.evaluate("denied") is True


def test_results_in_the_notebook_folder_are_written_as_ever(kernel):
    result = kernel.run_case("import pandas as pd\npd.DataFrame({'a': [1]}).to_csv('result.csv')")
    assert result["status"] == "success", result
    assert result["files_created"] == [str(kernel.workdir / "result.csv")]


# -- settings through the environment -------------------------------------------------------------------


def test_setting_an_environment_variable_twnb_reads_is_refused(kernel):
    result = kernel.run_case("import os\nos.environ['TWNB_VERIFY'] = 'false'")
    refusal = _refused(result, "settings")
    assert "TWNB_VERIFY" in refusal["message"]
    assert kernel.evaluate("__import__('os').environ.get('TWNB_VERIFY')") is None


def test_an_environment_change_made_around_putenv_is_put_back(kernel):
    code = "import os\nos.environ._data[b'OPENAI_BASE_URL'] = b'http://evil.example/v1'"
    before = kernel.evaluate("__import__('os').environ.get('OPENAI_BASE_URL')")
    result = kernel.run_case(code)
    assert kernel.evaluate("__import__('os').environ.get('OPENAI_BASE_URL')") == before
    assert any("OPENAI_BASE_URL" in note and "put" in note for note in result["notes"]), result["notes"]


def test_other_environment_variables_are_the_codes_business(kernel):
    result = kernel.run_case("import os\nos.environ['MY_FLAG'] = '1'")
    assert result["status"] == "success", result


# -- in a separate kernel ---------------------------------------------------------------------------------


def test_the_separate_kernels_guard_refuses_the_trust_base(tmp_path):
    workdir = tmp_path / "nb"
    (workdir / "plugins").mkdir(parents=True)
    with KernelExecutor(workdir, rules=RunRules(protected=[workdir / "plugins"])) as executor:
        for code in (
            f"open('twnb.yaml', 'w').write({SETTINGS_ATTACK!r})",
            "open('plugins/tool.py', 'w').write('import os')",
        ):
            result = executor.run(code)
            assert result.status == "refused", result
            assert result.refusals[0].rule == "trust-base"
    assert not (workdir / "twnb.yaml").exists()
    assert list((workdir / "plugins").iterdir()) == []
