"""The confined kernel's launcher (`python -m twnb.confine -f CONNECTION_FILE`, the `twnb-confined`
kernelspec's command): run in the notebook's folder, single-threaded, before the kernel exists.

1. Refuse in one line where Landlock is missing or too old (macOS, Windows, Linux before 6.7).
2. Start the key proxy in a forked child, outside every confinement: it alone holds the API key.
3. Enter a private user and mount namespace (mounts.py): Landlock alone lets a confined process read
   a same-user process's /proc/PID/environ and memory (the Jupyter server's key); from a child user
   namespace it cannot. Make the trust base read-only and hide the secrets inside the allowed folders.
4. Build the kernel's environment (no key, no secret-named variable, the model's base URL the
   proxy's, private HOME, TMPDIR, IPython, Jupyter and matplotlib folders).
5. Take the Landlock ruleset (execute: only this Python and its loader, for the one exec that follows)
   and the seccomp filter, and exec the kernel's first stage (inside.py), which takes a second ruleset
   that executes nothing before ipykernel runs any code.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
from pathlib import Path
from typing import IO

from twnb.config import LaunchRecord, QuarantineError, settings_at_start
from twnb.confine import landlock, seccomp
from twnb.confine.dotenv_key import key_dotenvs, key_notice
from twnb.confine.exec_notify import HANDOFF_ENV
from twnb.confine.exec_supervisor import RECORD_ENV, RECORD_OPTION, start_supervisor
from twnb.confine.held_ports import HELD_PORTS_ENV, held_ports_value
from twnb.confine.launch_settings import KEY_ENV, LAUNCH_ENV, LaunchSettings
from twnb.confine.lost_mounts import (
    PROTECTED_MOUNTS_ENV,
    ProtectedMount,
    protected_mounts,
    protected_value,
    read_mountinfo,
)
from twnb.confine.mounts import MountError, enter_private_mounts, hide, make_read_only, private_tmpfs
from twnb.confine.placeholders import hold_placeholders, release_placeholders
from twnb.confine.plan import (
    DEVICES_WRITE,
    FOLDER_TRUST_BASE,
    SHARED_MEMORY_SIZE,
    ConfinementError,
    ConfinementPlan,
    is_inside,
    kernel_environment,
    plan_confinement,
    real_path,
)
from twnb.confine.upstream import Upstream

# Only what the launcher itself needs is imported here: it is a Python of its own at every confined
# kernel's start, and each import is paid there (bench/bench_confined.py). The settings (PyYAML, the
# table) are resolved by whoever starts the kernel and passed in (launch_settings.py); the key proxy's
# HTTP server is imported by the proxy's own process.
# The name of the variable twnb's kernels read their marker from (twnb.config.CONFINED_ENV), and the
# key's placeholder (twnb.config.PLACEHOLDER_API_KEY): written out so the launcher need not import
# the settings table; tests/confine/test_launch_settings.py checks they agree.
CONFINED_ENV = "TWNB_CONFINED"
PLACEHOLDER_API_KEY = "twnb-no-key-needed"

STILL_PROTECTS = (
    "what still protects you: code verification before each Round's code runs and the runtime guard "
    "inside the kernel (mistakes, not attacks); use the plain `python3` kernel knowingly"
)
_PORT_KEYS = ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")
# The launcher's exit status when a port of the connection file is already taken (BSD's EX_TEMPFAIL):
# the starter tries once more with new ports.
PORT_TAKEN_EXIT = 75


class PortTakenError(Exception):
    """A port of the connection file is bound by another process."""


def hold_kernel_ports(connection: dict[str, object]) -> list[socket.socket]:
    """Bind the connection file's TCP ports now, and keep them bound through the exec until the kernel
    binds them. jupyter_client found them free by binding and closing each; the kernel binds them a
    second later, once Python and ipykernel are loaded, and another process handed one of them in
    between would make it fail on "Address already in use" and hang until the starter's timeout.
    Bound with SO_REUSEADDR and not listening, a port stays bound here (the system hands it to no one
    asking for a free port, and refuses it to a plain bind) while ZeroMQ, which sets SO_REUSEADDR too,
    binds and listens on it. One already taken is a PortTakenError naming it, at once."""
    if connection.get("transport", "tcp") != "tcp":
        return []
    ip = str(connection.get("ip") or "127.0.0.1")
    held: list[socket.socket] = []
    for name in _PORT_KEYS:
        port = int(str(connection[name]))
        sock = socket.socket(socket.AF_INET6 if ":" in ip else socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("0.0.0.0" if ip == "*" else ip, port))
        except OSError as error:
            sock.close()
            for other in held:
                other.close()
            raise PortTakenError(
                f"port {port} of the connection file ({name}) is taken by another process ({error}); "
                "start the kernel again: new ports are chosen"
            ) from error
        held.append(sock)
    return held


def unavailable_reason(abi: int) -> str | None:
    """Why this system cannot confine a kernel, None when it can."""
    if abi == 0:
        return "this system has no Landlock (Linux 5.13+ with Landlock on; not macOS or Windows)"
    if abi < landlock.MIN_ABI:
        return f"this Linux has Landlock ABI {abi}; a confined kernel needs {landlock.MIN_ABI} (Linux 6.7+)"
    return None


def _upstream(settings: LaunchSettings, key: str) -> Upstream | None:
    if settings.upstream_url is None:
        return None
    return Upstream(settings.upstream_url, key, azure=settings.azure)


def _proxy_listener(kernel_ports: set[int]) -> socket.socket:
    """A loopback listening socket on a free port that is none of the kernel's: those are only written
    in the connection file (free when Jupyter chose them, bound by the kernel later), so the system may
    hand one of them out again, and the kernel would then die at start on "Address already in use"."""
    for _ in range(100):
        listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listener.bind(("127.0.0.1", 0))
        if int(listener.getsockname()[1]) not in kernel_ports:
            listener.listen(64)
            return listener
        listener.close()
    raise ConfinementError("no free loopback port for the key proxy besides the kernel's own")


def _start_warden(
    upstream: Upstream | None,
    private_dir: Path,
    kernel_ports: set[int],
    held: list[tuple[Path, int]],
    held_ports: list[socket.socket],
    record: LaunchRecord,
) -> tuple[int | None, int, int]:
    """Fork, before anything is confined, the process that serves the key proxy (when a model server
    is configured: its port is returned, with the warden's pid and the descriptor `_enter_namespace`
    tells it on that the kernel is in its user namespace, which it then holds (namespace_pin.py: its
    number then names this kernel's alone)) and, when the kernel ends, ends what
    the kernel left running (leftover_processes.py), quarantines what the kernel changed of the trust
    base (`record`, twnb/config/quarantine.py) and removes the kernel's private folder and the
    stand-in settings files (`held`, placeholders.py).
    It learns of the end from a pidfd of this process (the kernel's, after the exec), readable once it
    has exited (exit, crash, or killed by Jupyter): not from the parent death signal, a signal from the
    confined kernel to a process outside its domain, which Landlock refuses; not from a pipe's end,
    which every child the kernel forks holds open too. `held_ports` (hold_kernel_ports) are the
    kernel's: closed in the warden."""
    listener = None if upstream is None else _proxy_listener(kernel_ports)
    kernel = os.getpid()
    kernel_fd = os.pidfd_open(kernel)  # this very process: its pid, given again later, is not it
    entered, say_entered = os.pipe2(os.O_CLOEXEC)
    warden = os.fork()
    if warden == 0:
        server = None
        try:
            os.close(say_entered)
            for sock in held_ports:  # or the kernel's ports stay bound for its life, here
                sock.close()
            os.setpgid(0, 0)  # out of the kernel's process group: Jupyter interrupts and kills the group
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            if upstream is not None and listener is not None:
                # lazy: twnb.confine.key_proxy (~25 ms, 51 modules) and threading, in the proxy's process
                from twnb.confine.key_proxy import KeyProxyServer

                server = KeyProxyServer(upstream, listener=listener)
                import threading

                threading.Thread(target=server.serve_forever, daemon=True).start()
            _held = _wait_for_the_end(kernel_fd, kernel, entered)  # held until os._exit below
        finally:
            try:
                if server is not None:  # no more model calls for what is left of the kernel
                    # asked, not waited for (serve_forever looks every half second)
                    threading.Thread(target=server.shutdown, daemon=True).start()
                # the kernel's own end first, whatever ended the wait above: what is in its namespace
                # is ended only once it is gone (it is in the namespace too)
                _wait_until_readable(kernel_fd)
                _end_leftovers(record, kernel)
            except OSError as error:  # the next reader outside finishes it (the session stays)
                print(f"twnb-confined: the quarantine record was not finished: {error}", file=sys.stderr)
            finally:
                release_placeholders(held)
                _remove(private_dir)
                os._exit(0)
    os.close(kernel_fd)
    os.close(entered)
    if listener is None:
        return None, warden, say_entered
    port = int(listener.getsockname()[1])
    listener.close()  # the child serves; the kernel must not hold the listening socket
    return port, warden, say_entered


def _wait_for_the_end(kernel_fd: int, kernel: int, entered: int) -> int | None:
    """The warden, until the kernel has ended: meanwhile, once the launcher says on `entered` that
    it is in its user namespace, a descriptor of that namespace (None: not had), returned to be held."""
    import select  # lazy: select (~0.6 ms) in the warden alone

    from twnb.confine.namespace_pin import pin_user_namespace  # lazy: (~1 ms) for the warden

    poller = select.poll()
    poller.register(kernel_fd, select.POLLIN)
    poller.register(entered, select.POLLIN)
    held = None
    while True:
        ready = [fd for fd, _events in poller.poll()]
        if entered in ready:
            poller.unregister(entered)  # one word, or the launcher's end without it
            if os.read(entered, 1):
                held = pin_user_namespace(kernel, kernel_fd)
            os.close(entered)
        if kernel_fd in ready:
            return held


def _wait_until_readable(fd: int) -> None:
    import select  # lazy: select (~0.6 ms) in the warden alone

    poller = select.poll()
    poller.register(fd, select.POLLIN)
    while not poller.poll():
        pass


def _end_leftovers(record: LaunchRecord, kernel: int) -> None:
    """The warden, the kernel's own process gone: end every other process of its user namespace, say
    how many on the kernel's log (the launcher's stderr), and do the end-of-kernel work, noting them
    for the batch starters (kernel_end.py)."""
    from twnb.confine.leftover_processes import end_leftovers  # lazy: (~10 ms) at the end only

    leftovers = end_leftovers(record.namespace_of(kernel))
    said = leftovers.line()
    if said is not None:
        print(said, file=sys.stderr, flush=True)
    record.wait_for_end(kernel)
    record.end(kernel, leftovers=len(leftovers.ended))


def _start_exec_supervisor(record: Path | None, plan: ConfinementPlan, inside: Path) -> int | None:
    """Fork the supervisor that refuses and records the kernel's program starts (exec_supervisor.py),
    still outside every confinement; the descriptor the kernel hands its exec filter's listener over
    (None where seccomp is not supported: Landlock alone refuses, unrecorded). It writes `inside`, the
    record the kernel reads (`_record_the_kernel_reads`), and `record` when the starter named one,
    which must be in a folder the kernel cannot write, or the kernel could write the record itself;
    without one, also a line in Jupyter's log."""
    if not seccomp.supported():
        return None
    files: list[IO[bytes]] = []
    try:
        if record is not None:
            if is_inside(real_path(record), [real_path(p) for p in plan.write]):
                raise ConfinementError(
                    f"the record of refused program starts ({record}) is in a folder the kernel may "
                    "write; name one outside the notebook's and the writable folders"
                )
            files.append(_open_record(record))
        files.append(_open_record(inside))
    except BaseException:
        for file in files:
            file.close()
        raise
    return start_supervisor(files, log=record is None)


def _open_record(path: Path) -> IO[bytes]:
    try:
        return open(path, "ab", buffering=0)  # the supervisor's from here on
    except OSError as error:
        raise ConfinementError(f"the record of refused program starts cannot be written: {error}") from error


def _record_the_kernel_reads(plan: ConfinementPlan) -> tuple[ConfinementPlan, Path]:
    """The plan with a record of refused starts the kernel may read but not write (twnb inside puts
    what a Round's code tried in its record): a file in a folder of the private folder, made now and
    mounted read-only over itself with the plan's other read-only places, so the kernel can neither
    append, truncate, rename nor remove it; the supervisor writes it through the descriptor it opens
    before the mounts (`_start_exec_supervisor`)."""
    folder = plan.private_dir / "refused-starts"
    folder.mkdir(mode=0o700)
    read_only = (*plan.read_only, folder)
    return plan._replace(read_only=read_only), folder / "refused-starts.jsonl"


def _make_private_dir() -> Path:
    """A new folder only this user can enter, under TMPDIR (tempfile would cost the launcher an
    import of shutil, random and hashlib)."""
    base = os.environ.get("TMPDIR") or "/tmp"
    while True:
        folder = os.path.join(base, f"twnb-confined-{os.urandom(6).hex()}")
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            continue
        return Path(folder)


def _remove(folder: Path) -> None:
    import shutil  # lazy: shutil (~2.4 ms, 7 modules), not at every kernel start

    shutil.rmtree(folder, ignore_errors=True)


def _copy(source: Path, target: Path) -> None:
    with open(source, "rb") as reader, open(target, "wb") as writer:
        writer.write(reader.read())


def _prepare_private(private_dir: Path, connection_file: Path, real_home: Path) -> Path:
    for name in ("home", "tmp", "ipython", "matplotlib", "cache", "config", "jupyter", "runtime"):
        (private_dir / name).mkdir(mode=0o700)
    copy = private_dir / "runtime" / connection_file.name
    _copy(connection_file, copy)
    # matplotlib's font list takes seconds to build: start from the user's, a plain data file
    fonts = real_home / ".cache" / "matplotlib"
    if fonts.is_dir():
        for name in os.listdir(fonts):
            if name.startswith("fontlist-") and name.endswith(".json"):
                _copy(fonts / name, private_dir / "matplotlib" / name)
    return copy


def _apply_mounts(plan: ConfinementPlan, record: LaunchRecord, say_entered: int) -> None:
    try:
        enter_private_mounts()
        _enter_namespace(record, say_entered)  # before the mounts make the record read-only
        for path in plan.read_only:
            make_read_only(path)
        for path in plan.hidden:
            hide(path)
        _mount_private_shm(plan)
        # the working folder was resolved before the mounts: look it up again, or relative paths
        # would reach the files under them
        os.chdir(plan.notebook_dir)
    except (MountError, OSError) as error:
        raise ConfinementError(
            f"this system refuses an unprivileged user namespace ({error}), which keeps the kernel from "
            "reading other processes' environment and memory (the Jupyter server's API key) and hides "
            f"secrets inside its folders; {STILL_PROTECTS}"
        ) from error


def _enter_namespace(record: LaunchRecord, say_entered: int) -> None:
    """The namespace this process has entered: in the record, and said to the warden, which holds it
    (namespace_pin.py)."""
    try:
        record.enter_namespace(os.getpid())
    except OSError as error:
        raise ConfinementError(f"the quarantine record cannot be written: {error}") from error
    try:
        os.write(say_entered, b"n")
    except OSError:  # the warden is gone: it holds nothing, and its end's own checks stand
        pass
    finally:
        os.close(say_entered)


def _watched_folders(plan: ConfinementPlan, settings: LaunchSettings) -> list[str]:
    """The folders of `settings.watched` (plugins, experience) whose files the kernel could write:
    inside a writable folder and not made read-only whole by a mount (one absent at the start, or
    the experience folder of the kernelspec's kernel, where twnb runs inside)."""
    found = []
    for value in settings.watched:
        place = real_path(value if os.path.isabs(os.path.expanduser(value)) else plan.notebook_dir / value)
        if not is_inside(place, plan.write) or (os.path.isdir(place) and is_inside(place, plan.read_only)):
            continue
        relative = os.path.relpath(place, plan.notebook_dir)
        found.append(str(place) if relative.startswith(os.pardir) else relative)
    return found


def _begin_quarantine(
    record: LaunchRecord, plan: ConfinementPlan, settings: LaunchSettings, warden: int
) -> None:
    # where its end looks for a `.git`, a shadowing module, a tool's config or a sub-folder's trust base
    writable = [str(p) for p in plan.write if p not in (plan.private_dir, plan.shm)]
    try:
        record.begin(
            files=FOLDER_TRUST_BASE,
            folders=_watched_folders(plan, settings),
            warden=warden,
            kernel=os.getpid(),
            writable=writable,
            fixed=[str(p) for p in plan.read_only],
            absent=[str(p) for p in plan.absent_trusted],
            # what in their pyproject.toml and setup.cfg makes pytest, mypy, ... run code: the end
            # moves one aside only when that changed
            tool_settings=settings_at_start(writable),
        )
    except QuarantineError as error:
        raise ConfinementError(
            f"{error}; it records the files later sessions trust before the kernel can write them "
            "(XDG_STATE_HOME chooses where)"
        ) from error


def _watched_mounts(plan: ConfinementPlan) -> list[ProtectedMount]:
    """The mounts a save from outside can take away (lost_mounts.py), read right after they were made;
    not the private folder's, which no person saves into."""
    places = [(str(p), False) for p in plan.read_only if not is_inside(p, [plan.private_dir])]
    places += [(str(p), True) for p in plan.hidden]
    try:
        mountinfo = read_mountinfo()
    except OSError:  # no /proc: nothing to watch, and nothing said
        return []
    return protected_mounts(places, str(plan.notebook_dir), mountinfo)


def _mount_private_shm(plan: ConfinementPlan) -> None:
    """The kernel's own /dev/shm, after the other mounts (a mount under /dev/shm would be hidden by
    it): multiprocessing's semaphores and queues are made there, and no other process sees them."""
    if plan.shm is not None:
        private_tmpfs(plan.shm, SHARED_MEMORY_SIZE)


def _ruleset(plan: ConfinementPlan, abi: int) -> landlock.Ruleset:
    paths = [landlock.PathRule(p, landlock.READ) for p in plan.read]
    paths += [landlock.PathRule(p, landlock.READ | landlock.WRITE) for p in plan.write]
    paths += [landlock.PathRule(Path(p), landlock.READ_FILE | landlock.WRITE_FILE) for p in _devices()]
    paths += [landlock.PathRule(p, landlock.READ_FILE | landlock.EXECUTE) for p in plan.execute]
    ports = [landlock.PortRule(p, landlock.BIND_TCP) for p in plan.bind]
    ports += [landlock.PortRule(p, landlock.CONNECT_TCP) for p in plan.connect]
    return landlock.Ruleset(
        handled_fs=landlock.fs_access_of(abi),
        handled_net=landlock.BIND_TCP | landlock.CONNECT_TCP,
        scoped=landlock.SCOPE_SIGNAL | landlock.SCOPE_ABSTRACT_UNIX_SOCKET,
        paths=tuple(paths),
        ports=tuple(ports),
    )


def _devices() -> list[str]:
    return [p for p in DEVICES_WRITE if os.path.exists(p)]


def _read_settings(workdir: Path) -> tuple[LaunchSettings, str, tuple[str, ...]]:
    """The launcher's settings, the model's key and the variables to keep out of the kernel's
    environment: as the starter resolved them (LAUNCH_ENV), else resolved here (a kernel Jupyter
    starts from the kernelspec), which imports the settings table and PyYAML."""
    text = os.environ.get(LAUNCH_ENV)
    if text is not None:
        # the starter already left the secret-named variables out of the environment it gave
        return LaunchSettings.from_json(text), os.environ.get(KEY_ENV, ""), (LAUNCH_ENV, KEY_ENV)
    from twnb.confine.resolve_launch import confined_launch  # lazy: ~30 ms, for a kernelspec's start

    launch = confined_launch(workdir, os.environ)
    settings = LaunchSettings.from_json(launch.env[LAUNCH_ENV])
    return settings, launch.env.get(KEY_ENV, ""), (*launch.drop, LAUNCH_ENV, KEY_ENV)


def confine_and_exec(
    connection_file: Path, kernel_args: list[str], refused_record: Path | None = None
) -> int:
    abi = landlock.abi_version()
    reason = unavailable_reason(abi)
    if reason is not None:
        print(f"twnb-confined: not started: {reason}; {STILL_PROTECTS}.", file=sys.stderr)
        return 1
    workdir = Path.cwd()
    real_home = Path(os.path.expanduser("~"))
    try:
        settings, key, unwanted = _read_settings(workdir)
        with open(connection_file, encoding="utf-8") as file:
            connection = json.load(file)
    except (ConfinementError, OSError, ValueError) as error:  # SettingsError is a ValueError
        print(f"twnb-confined: not started: {error}", file=sys.stderr)
        return 1
    try:  # before any work: a port already lost is said at once, not at the starter's timeout
        held_ports = hold_kernel_ports(connection)
    except PortTakenError as error:
        print(f"twnb-confined: not started: {error}", file=sys.stderr)
        return PORT_TAKEN_EXIT
    except (KeyError, ValueError) as error:
        print(f"twnb-confined: not started: the connection file has no valid {error}", file=sys.stderr)
        return 1
    private_dir = _make_private_dir()
    try:
        private_connection = _prepare_private(private_dir, connection_file, real_home)
        upstream = _upstream(settings, key)
        kernel_ports = {int(connection[name]) for name in _PORT_KEYS}
        record = LaunchRecord(workdir)
        try:  # made now: only what exists can be made readable and read-only to the kernel
            record.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        except OSError as error:
            raise ConfinementError(f"the quarantine record cannot be made: {error}") from error
        # before the mounts: a settings file that does not exist could not be made read-only
        held = hold_placeholders(Path(os.path.realpath(workdir)))
        try:
            proxy_port, warden, say_entered = _start_warden(
                upstream, private_dir, kernel_ports, held, held_ports, record
            )
        except BaseException:
            release_placeholders(held)  # no warden to do it
            raise
        plan = plan_confinement(
            workdir=workdir,
            private_dir=private_dir,
            settings=settings,
            home=real_home,
            bind_ports=kernel_ports,
            proxy_port=proxy_port,
            record_dir=record.folder,
        )
        # before the kernel runs any code: what later sessions trust, as it is now
        _begin_quarantine(record, plan, settings, warden)
        plan, inside_record = _record_the_kernel_reads(plan)
        # before the mounts hide them: a key there is the kernel's once such a file is saved
        notice = key_notice(key_dotenvs(plan.hidden, settings.key_names, key), settings.key_names)
        if notice is not None:
            print(f"twnb-confined: {notice}", file=sys.stderr)
        handoff = _start_exec_supervisor(refused_record, plan, inside_record)  # before the mounts
        _apply_mounts(plan, record, say_entered)
    except ConfinementError as error:
        _remove(private_dir)
        print(f"twnb-confined: not started: {error}", file=sys.stderr)
        return 1
    proxy_url = None if upstream is None or proxy_port is None else upstream.proxy_url(proxy_port)
    environ = {name: value for name, value in os.environ.items() if name not in unwanted}
    env = kernel_environment(
        environ,
        plan=plan,
        home=real_home,
        key_names=settings.key_names if proxy_url is not None else (),
        base_url_names=settings.base_url_names,
        proxy_url=proxy_url,
        placeholder=PLACEHOLDER_API_KEY,
    )
    env[CONFINED_ENV] = json.dumps(
        {
            "read": [str(p) for p in plan.read],
            "write": [str(p) for p in plan.write],
            "connect": [p for p in plan.connect if p != proxy_port],
            "proxy": None if proxy_port is None else f"127.0.0.1:{proxy_port}",
            "landlock_abi": abi,
            "seccomp": seccomp.supported(),
            "mounts": True,
        },
        sort_keys=True,
    )
    env[PROTECTED_MOUNTS_ENV] = protected_value(_watched_mounts(plan))
    env.update(record.kernel_environ())
    if handoff is not None:
        env[HANDOFF_ENV] = str(handoff)
        env[RECORD_ENV] = str(inside_record)
    for sock in held_ports:  # the kernel's until its ZeroMQ sockets listen on the same ports
        sock.set_inheritable(True)
    if held_ports:  # inside.py closes them then (held_ports.py)
        env[HELD_PORTS_ENV] = held_ports_value([(s.fileno(), int(s.getsockname()[1])) for s in held_ports])
    _ruleset(plan, abi).restrict_self()
    seccomp.install(udp=plan.udp)
    argv = [sys.executable, "-m", "twnb.confine.inside", "-f", str(private_connection), *kernel_args]
    os.execve(sys.executable, argv, env)
    return 1  # not reached


def main(argv: list[str] | None = None) -> int:
    """`-f CONNECTION_FILE [--refused-record PATH]`, the rest passed to ipykernel (argparse would cost
    the launcher an import)."""
    args = list(sys.argv[1:] if argv is None else argv)
    record: Path | None = None
    if RECORD_OPTION in args:
        at = args.index(RECORD_OPTION)
        if at + 1 >= len(args):
            print(
                f"usage: {RECORD_OPTION} names the file to record refused program starts in", file=sys.stderr
            )
            return 2
        record = Path(args[at + 1])
        del args[at : at + 2]
    if "-f" not in args or args.index("-f") + 1 >= len(args):
        print("usage: python -m twnb.confine -f CONNECTION_FILE [ipykernel options]", file=sys.stderr)
        return 2
    at = args.index("-f")
    return confine_and_exec(Path(args[at + 1]), args[:at] + args[at + 2 :], record)
