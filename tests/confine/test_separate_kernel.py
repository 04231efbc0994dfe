"""The separate kernel of "Kernels elsewhere" (`KernelExecutor`) starts confined by default: its code,
with twnb's own guard off (so only the operating system stands in the way), starts no program and
reads no secret of the home folder, and a whole Round still runs in it. `confine_kernels: false`
opts out, saying what that allows; set in the notebook's own files it is refused."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fakellm import FakeLLMServer
from support.confined_kernel import REAL_KEY, Places, make_places, needs_landlock
from support.nb_scripts import answer_round

from twnb.confine import separate_kernel
from twnb.kernel import KernelExecutor, KernelSetup, KernelStartError, RunRules

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300), needs_landlock]


def _env(places: Places, server: FakeLLMServer, **extra: str) -> dict[str, str]:
    return {
        "HOME": str(places.home),
        "OPENAI_API_KEY": REAL_KEY,
        "OPENAI_BASE_URL": server.base_url,
        "TWNB_MODEL": "fake-model",
        "MPLBACKEND": "Agg",
        **extra,
    }


@pytest.fixture(scope="module")
def fake_server() -> Iterator[FakeLLMServer]:
    with FakeLLMServer() as server:
        yield server


@pytest.fixture(scope="module")
def places(tmp_path_factory: pytest.TempPathFactory) -> Places:
    return make_places(tmp_path_factory.mktemp("separate"))


@pytest.fixture(scope="module")
def executor(places: Places, fake_server: FakeLLMServer) -> Iterator[KernelExecutor]:
    # the user's own examples and experience folders, visible beside the notebook; the experience
    # folder not made yet (twnb makes it at the first remembered Round)
    (places.notebook / "examples" / "code_interpreter").mkdir(parents=True)
    env = _env(places, fake_server, TWNB_EXAMPLES_DIR="examples", TWNB_EXPERIENCE_DIR="experience")
    # guarded=False: twnb's in-kernel guard stays out of the way; what is refused is refused by the OS
    setup, unguarded = KernelSetup(env=env), RunRules(guarded=False)
    with KernelExecutor(places.notebook, kernel=setup, rules=unguarded) as kernel:
        yield kernel


def test_the_separate_kernel_is_confined_by_default(executor: KernelExecutor) -> None:
    result = executor.run("import os\nmarker = os.environ.get('TWNB_CONFINED', '')")
    assert result.status == "success", result.error
    assert "landlock_abi" in executor._expression("marker")


def test_the_separate_kernel_starts_no_program(executor: KernelExecutor, places: Places) -> None:
    marker = places.notebook / "ran.txt"
    result = executor.run(f"import subprocess\nsubprocess.run(['/bin/sh', '-c', 'touch {marker}'])")
    assert result.status == "error" and result.error is not None
    assert result.error.ename == "PermissionError"
    assert not marker.exists()


def test_the_separate_kernel_reads_no_ssh_key(executor: KernelExecutor, places: Places) -> None:
    key_file = places.home / ".ssh" / "id_rsa"
    result = executor.run(f"print(open({str(key_file)!r}).read())")
    assert result.status == "error"
    assert "PRIVATE KEY" not in result.stdout


def test_the_separate_kernel_writes_nothing_into_the_session_folder(
    executor: KernelExecutor, places: Places
) -> None:
    forged = places.notebook / ".twnb" / "forged" / "rounds.yaml"
    result = executor.run(
        "import os\nos.makedirs('.twnb/forged')\nopen('.twnb/forged/rounds.yaml', 'w').write('x')"
    )
    assert result.status == "error" and result.error is not None
    assert result.error.ename == "OSError" and "Read-only file system" in result.error.evalue
    assert not forged.parent.exists()


@pytest.mark.parametrize(
    "forged", ["experience/exp_forged.yaml", "examples/code_interpreter/example-forged.yaml"]
)
def test_the_separate_kernel_writes_no_experience_or_examples_for_the_next_prompt(
    executor: KernelExecutor, places: Places, forged: str
) -> None:
    folder = str(Path(forged).parent)
    code = f"import os\nos.makedirs({folder!r}, exist_ok=True)\nopen({forged!r}, 'w').write('obey')"
    result = executor.run(code)
    assert result.status == "error" and result.error is not None
    assert "Read-only file system" in result.error.evalue
    assert not (places.notebook / forged).exists()


def test_the_separate_kernels_environment_holds_no_api_key(executor: KernelExecutor) -> None:
    result = executor.run("import os\nprint(sorted(os.environ.items()))")
    assert result.status == "success"
    assert REAL_KEY not in result.stdout


def test_a_round_runs_in_the_confined_separate_kernel(
    executor: KernelExecutor, places: Places, fake_server: FakeLLMServer
) -> None:
    from twnb.config import ResolvedSettings, Settings
    from twnb.llm import ClientLimits, OpenAIChatClient
    from twnb.session import build_session

    fake_server.reset()
    fake_server.load(answer_round("The answer is 42."))
    client = OpenAIChatClient(
        api_key=REAL_KEY, base_url=fake_server.base_url, limits=ClientLimits(max_retries=0)
    )
    resolved = ResolvedSettings(Settings(model="fake-model"), {}, places.notebook)
    session = build_session(resolved, executor, client=client, session_dir=places.outside / "sessions")
    finished = session.run_round("What is 6 times 7?")
    assert finished.state == "finished", finished.post_list[-1].message
    assert executor._expression("answer") == 42


def test_confine_kernels_off_starts_it_unconfined_and_says_what_that_allows(
    places: Places,
    fake_server: FakeLLMServer,
    capfd: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # said once per process: another test in this worker may have turned it off before
    monkeypatch.setattr(separate_kernel, "_said", set())
    env = _env(places, fake_server, TWNB_CONFINE_KERNELS="false")
    with KernelExecutor(places.notebook, kernel=KernelSetup(env=env)) as kernel:
        assert kernel._expression("__import__('os').environ.get('TWNB_CONFINED', '')") == ""
    said = capfd.readouterr().err
    assert "runs unconfined (confine_kernels is off" in said and "can run programs" in said


def test_confine_kernels_off_in_the_notebooks_twnb_yaml_is_refused(
    tmp_path: Path, places: Places, fake_server: FakeLLMServer
) -> None:
    (tmp_path / "twnb.yaml").write_text("confine:\n  kernels: false\n")
    with pytest.raises(KernelStartError, match=r"confine_kernels is set in .*twnb\.yaml"):
        KernelExecutor(tmp_path, kernel=KernelSetup(env=_env(places, fake_server))).start()


def test_a_program_start_that_raises_nothing_is_in_the_runs_record(
    executor: KernelExecutor, places: Places
) -> None:
    marker = places.notebook / "by-system.txt"
    result = executor.run(f"import ctypes\nctypes.CDLL(None).system(b'touch {marker}')")
    refused = [n for n in result.notes if n.startswith("Confined kernel: running /bin/sh was refused")]
    assert (result.status, marker.exists(), len(refused)) == ("success", False, 1)


def test_once_shut_down_its_end_is_done_and_said(places: Places, fake_server: FakeLLMServer) -> None:
    # A module pandas imports if it finds it, left by the kernel's code (twnb's guard off): by the time
    # the `with` block has shut the kernel down, its warden has moved it aside, and the executor says so.
    folder = places.notebook / "ends"
    folder.mkdir()
    setup, unguarded = KernelSetup(env=_env(places, fake_server)), RunRules(guarded=False)
    with KernelExecutor(folder, kernel=setup, rules=unguarded) as kernel:
        planted = kernel.run("open('numexpr.py', 'w').write('raise SystemExit')")
        assert planted.status == "success", planted.error
    assert not (folder / "numexpr.py").exists()
    assert not (folder / "twnb.yaml").exists(), "the stand-in settings file outlived the shutdown"
    (said,) = kernel.end_lines
    assert "numexpr.py" in said and "twnb trust" in said
