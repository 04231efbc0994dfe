"""A confined kernel, attacked as generated code or a received notebook would: each attempt fails at
the operating system and nothing it tried happened (a marker file the attack would write in the
notebook's folder, which the kernel itself may write, stays absent). And what users do still works."""

from __future__ import annotations

import os
import select
import signal
import socket
from pathlib import Path

import pytest
from support.confined_kernel import REAL_KEY, ConfinedKernel

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def _marker(kernel: ConfinedKernel, name: str) -> Path:
    path = kernel.places.notebook / name
    assert not path.exists()
    return path


def test_the_kernel_answers_and_writes_in_the_notebook_folder(confined: ConfinedKernel) -> None:
    confined.run("open('result.csv', 'w').write('a,b\\n1,2\\n')")
    assert (confined.places.notebook / "result.csv").read_text() == "a,b\n1,2\n"


def test_pandas_and_a_matplotlib_figure_work(confined: ConfinedKernel) -> None:
    reply = confined.execute(
        "import pandas as pd, matplotlib.pyplot as plt\n"
        "df = pd.DataFrame({'x': range(10), 'y': [v * v for v in range(10)]})\n"
        "df.plot(x='x', y='y'); plt.show()\n"
        "print(df.groupby(df.x % 2).y.sum().tolist())"
    )
    assert reply["status"] == "ok", reply
    assert any(kind == "display_data" and "image/png" in c["data"] for kind, c in confined.shown)


def test_subprocess_runs_no_shell(confined: ConfinedKernel) -> None:
    marker = _marker(confined, "subprocess.txt")
    reply = confined.error(f"import subprocess; subprocess.run(['/bin/sh', '-c', 'touch {marker}'])")
    assert reply["ename"] == "PermissionError"
    assert not marker.exists()


def test_a_program_named_without_its_path_is_refused_as_a_program(confined: ConfinedKernel) -> None:
    reply = confined.error("import subprocess; subprocess.run(['ls'])")
    assert "runs no programs" in reply["traceback"][0]


def test_os_system_runs_no_shell(confined: ConfinedKernel) -> None:
    marker = _marker(confined, "system.txt")
    status = confined.value(f"__import__('os').system('touch {marker}')")
    assert status != 0 and not marker.exists()


def test_libc_system_through_ctypes_runs_no_shell(confined: ConfinedKernel) -> None:
    marker = _marker(confined, "libc.txt")
    status = confined.value(f"__import__('ctypes').CDLL(None).system(b'touch {marker}')")
    assert status != 0 and not marker.exists()


def test_posix_spawn_runs_no_shell(confined: ConfinedKernel) -> None:
    marker = _marker(confined, "spawn.txt")
    confined.error(
        f"import os; os.waitpid(os.posix_spawn('/bin/sh', ['sh', '-c', 'touch {marker}'], {{}}), 0)"
    )
    assert not marker.exists()


def test_the_dynamic_loader_runs_no_shell(confined: ConfinedKernel) -> None:
    marker = _marker(confined, "loader.txt")
    code = (
        "import subprocess\n"
        "loader = next(l.split()[-1] for l in open('/proc/self/maps') if '/ld-linux' in l)\n"
        f"subprocess.run([loader, '/bin/sh', '-c', 'touch {marker}'])"
    )
    confined.error(code)
    assert not marker.exists()


def test_python_itself_cannot_be_started_again(confined: ConfinedKernel) -> None:
    marker = _marker(confined, "python.txt")
    confined.error(
        f"import subprocess, sys; subprocess.run([sys.executable, '-c', 'open({str(marker)!r}, \"w\")'])"
    )
    assert not marker.exists()


def test_a_pth_file_cannot_be_written_into_site_packages(confined: ConfinedKernel) -> None:
    import sysconfig

    target = Path(sysconfig.get_paths()["purelib"]) / "twnb_confined_attack.pth"
    confined.error(f"open({str(target)!r}, 'w').write('import os; os.system(\"id\")')")
    assert not target.exists()


def test_an_ipython_startup_file_cannot_be_written(confined: ConfinedKernel) -> None:
    target = confined.places.home / ".ipython" / "profile_default" / "startup" / "00-attack.py"
    confined.error(f"open({str(target)!r}, 'w').write('import os')")
    assert not target.exists()


def test_writing_outside_the_allowed_folders_is_refused_naming_confine_write(
    confined: ConfinedKernel,
) -> None:
    target = confined.places.outside / "written.txt"
    reply = confined.error(f"open({str(target)!r}, 'w').write('x')")
    assert "confine_write" in reply["traceback"][0] or "confine_write" in "".join(reply["traceback"])
    assert not target.exists()


def test_the_ssh_key_cannot_be_read(confined: ConfinedKernel) -> None:
    key = confined.places.home / ".ssh" / "id_rsa"
    reply = confined.error(f"print(open({str(key)!r}).read())")
    assert reply["ename"] == "PermissionError"
    assert "PRIVATE KEY" not in confined.run("")


def test_the_api_key_is_not_in_the_kernels_environment(confined: ConfinedKernel) -> None:
    text = confined.run("import os; print(dict(os.environ)); print(open('/proc/self/environ', 'rb').read())")
    assert "OPENAI_API_KEY" in text and REAL_KEY not in text


def test_the_parents_environment_and_memory_cannot_be_read(confined: ConfinedKernel) -> None:
    for name in ("environ", "mem"):
        reply = confined.error(f"open(f'/proc/{{__import__(\"os\").getppid()}}/{name}', 'rb').read(4096)")
        assert reply["ename"] == "PermissionError", name


def _outside_pids(kernel: ConfinedKernel) -> list[int]:
    """The processes the launcher forked before it confined anything: the key proxy (the warden) and
    the supervisor of program starts; both hold what the launcher was given (the key)."""
    children = kernel.value(
        "[int(p) for t in __import__('os').listdir('/proc/self/task') "
        "for p in open(f'/proc/self/task/{t}/children').read().split()]"
    )
    assert len(children) == 2, children
    return [int(child) for child in children]


def test_the_proxys_and_the_supervisors_environment_and_memory_cannot_be_read(
    confined: ConfinedKernel,
) -> None:
    refused = [
        confined.error(f"open('/proc/{pid}/{name}', 'rb').read(4096)")["ename"]
        for pid in _outside_pids(confined)
        for name in ("environ", "mem", "maps")
    ]
    assert refused == ["PermissionError"] * 6


def test_neither_the_proxy_nor_the_supervisor_can_be_traced(confined: ConfinedKernel) -> None:
    for pid in _outside_pids(confined):
        result = confined.value(
            f"(lambda ct: (ct.CDLL(None, use_errno=True).ptrace(16, {pid}, 0, 0), ct.get_errno()))"  # ATTACH
            "(__import__('ctypes'))"
        )
        assert result[0] == -1 and result[1] in (1, 13), pid


def test_a_loopback_port_that_is_not_the_proxy_is_refused_naming_confine_connect(
    confined: ConfinedKernel,
) -> None:
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listener.settimeout(0.5)
        port = listener.getsockname()[1]
        reply = confined.error(f"__import__('socket').create_connection(('127.0.0.1', {port}), timeout=5)")
        assert "confine_connect" in "".join(reply["traceback"])
        with pytest.raises(TimeoutError):
            listener.accept()


def test_udp_sockets_are_refused(confined: ConfinedKernel) -> None:
    reply = confined.error("import socket; socket.socket(socket.AF_INET, socket.SOCK_DGRAM)")
    assert reply["ename"] == "PermissionError"


def test_the_parent_cannot_be_signalled(confined: ConfinedKernel) -> None:
    reply = confined.error(f"import os; os.kill(os.getppid(), {int(signal.SIGWINCH)})")
    assert reply["ename"] == "PermissionError"


def test_neither_the_proxy_nor_the_supervisor_can_be_killed(confined: ConfinedKernel) -> None:
    pids = _outside_pids(confined)
    ends = [os.pidfd_open(pid) for pid in pids]  # each readable once its process has ended
    try:
        refused = [confined.error(f"import os; os.kill({pid}, 9)")["ename"] for pid in pids]
        # kill() failed in the kernel, so no signal is pending: each is still running now, and
        # neither ended in between (a pid taken over by another process would not hide that)
        ended, _, _ = select.select(ends, [], [], 0)
    finally:
        for end in ends:
            os.close(end)
    assert (refused, ended) == (["PermissionError", "PermissionError"], [])


def test_its_own_children_can_be_signalled(confined: ConfinedKernel) -> None:
    code = (
        "import os, time\n"
        "child = os.fork()\n"
        "if child == 0:\n    time.sleep(30); os._exit(0)\n"
        "os.kill(child, 9); print(os.waitpid(child, 0)[1] & 0x7f)"
    )
    assert confined.run(code).strip() == "9"


def test_a_model_call_goes_through_the_proxy_with_the_real_key_and_streams(
    confined: ConfinedKernel, fake_server
) -> None:
    fake_server.load({"*": ["one two three four five"]})
    code = (
        "from openai import OpenAI\n"
        "stream = OpenAI().chat.completions.create(model='fake-model', stream=True,"
        " messages=[{'role': 'user', 'content': 'hi'}])\n"
        "pieces = [c.choices[0].delta.content for c in stream if c.choices and c.choices[0].delta.content]\n"
        "print(len(pieces), ''.join(pieces))"
    )
    count, text = confined.run(code).strip().split(" ", 1)
    assert text == "one two three four five" and int(count) > 1
    request = fake_server.chat_requests()[-1]
    assert request["headers"]["authorization"] == f"Bearer {REAL_KEY}"


def test_the_kernel_says_it_is_confined(confined: ConfinedKernel) -> None:
    text = confined.run("from twnb.config import Confinement; print(Confinement.from_environ().describe())")
    assert text.startswith("confined (Landlock ABI") and str(confined.places.notebook.resolve()) in text


def test_private_folders_replace_home_for_ipython_and_matplotlib(confined: ConfinedKernel) -> None:
    home = confined.value("__import__('os').environ['HOME']")
    assert home != str(confined.places.home) and os.path.basename(os.path.dirname(home)).startswith(
        "twnb-confined-"
    )
