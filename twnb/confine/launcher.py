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

import argparse
import json
import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
from pathlib import Path

from twnb.config import (
    CONFINED_ENV,
    PLACEHOLDER_API_KEY,
    SETTINGS_BY_NAME,
    Confinement,
    ResolvedSettings,
    SettingsError,
    is_secret_name,
    resolve_settings,
)
from twnb.confine import landlock, seccomp
from twnb.confine.mounts import MountError, enter_private_mounts, hide, make_read_only
from twnb.confine.plan import ConfinementError, ConfinementPlan, kernel_environment, plan_confinement
from twnb.confine.upstream import Upstream

STILL_PROTECTS = (
    "what still protects you: code verification before each Round's code runs and the runtime guard "
    "inside the kernel (mistakes, not attacks); use the plain `python3` kernel knowingly"
)
_OPENAI = "https://api.openai.com/v1"
_PORT_KEYS = ("shell_port", "iopub_port", "stdin_port", "control_port", "hb_port")


def unavailable_reason(abi: int) -> str | None:
    """Why this system cannot confine a kernel, None when it can."""
    if abi == 0:
        return "this system has no Landlock (Linux 5.13+ with Landlock on; not macOS or Windows)"
    if abi < landlock.MIN_ABI:
        return f"this Linux has Landlock ABI {abi}; a confined kernel needs {landlock.MIN_ABI} (Linux 6.7+)"
    return None


def _upstream(resolved: ResolvedSettings) -> Upstream | None:
    settings = resolved.settings
    if settings.azure_endpoint:
        return Upstream(settings.azure_endpoint, settings.api_key or "", azure=True)
    if settings.base_url or settings.api_key:
        return Upstream(settings.base_url or _OPENAI, settings.api_key or "")
    return None


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


def _start_warden(upstream: Upstream | None, private_dir: Path, kernel_ports: set[int]) -> int | None:
    """Fork, before anything is confined, the process that serves the key proxy (when a model server
    is configured: its port is returned) and removes the kernel's private folder when the kernel ends.
    It learns of the end from a pipe whose writing end the kernel holds (the parent death signal would
    be a signal from the confined kernel to a process outside its domain: Landlock refuses it)."""
    listener = None if upstream is None else _proxy_listener(kernel_ports)
    alive_read, alive_write = os.pipe()
    if os.fork() == 0:
        try:
            os.close(alive_write)
            os.setpgid(0, 0)  # out of the kernel's process group: Jupyter interrupts and kills the group
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            if upstream is not None and listener is not None:
                from twnb.confine.key_proxy import KeyProxyServer

                server = KeyProxyServer(upstream, listener=listener)
                threading.Thread(target=server.serve_forever, daemon=True).start()
            while os.read(alive_read, 1):
                pass
        finally:
            shutil.rmtree(private_dir, ignore_errors=True)
            os._exit(0)
    os.close(alive_read)
    os.set_inheritable(alive_write, True)  # kept open across the kernel's exec, never written
    if listener is None:
        return None
    port = int(listener.getsockname()[1])
    listener.close()  # the child serves; the kernel must not hold the listening socket
    return port


def _prepare_private(private_dir: Path, connection_file: Path, real_home: Path) -> Path:
    for name in ("home", "tmp", "ipython", "matplotlib", "cache", "config", "jupyter", "runtime"):
        (private_dir / name).mkdir(mode=0o700)
    copy = private_dir / "runtime" / connection_file.name
    shutil.copyfile(connection_file, copy)
    # matplotlib's font list takes seconds to build: start from the user's, a plain data file
    for cached in (real_home / ".cache" / "matplotlib").glob("fontlist-*.json"):
        shutil.copyfile(cached, private_dir / "matplotlib" / cached.name)
    return copy


def _apply_mounts(plan: ConfinementPlan) -> None:
    try:
        enter_private_mounts()
        for path in plan.read_only:
            make_read_only(path)
        for path in plan.hidden:
            hide(path)
        # the working folder was resolved before the mounts: look it up again, or relative paths
        # would reach the files under them
        os.chdir(plan.notebook_dir)
    except (MountError, OSError) as error:
        raise ConfinementError(
            f"this system refuses an unprivileged user namespace ({error}), which keeps the kernel from "
            "reading other processes' environment and memory (the Jupyter server's API key) and hides "
            f"secrets inside its folders; {STILL_PROTECTS}"
        ) from error


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
    from twnb.confine.plan import DEVICES_WRITE

    return [p for p in DEVICES_WRITE if os.path.exists(p)]


def confine_and_exec(connection_file: Path, kernel_args: list[str]) -> int:
    abi = landlock.abi_version()
    reason = unavailable_reason(abi)
    if reason is not None:
        print(f"twnb-confined: not started: {reason}; {STILL_PROTECTS}.", file=sys.stderr)
        return 1
    workdir = Path.cwd()
    real_home = Path(os.path.expanduser("~"))
    try:
        resolved = resolve_settings(workdir=workdir)
        connection = json.loads(connection_file.read_text(encoding="utf-8"))
    except (SettingsError, OSError, ValueError) as error:
        print(f"twnb-confined: not started: {error}", file=sys.stderr)
        return 1
    private_dir = Path(tempfile.mkdtemp(prefix="twnb-confined-"))
    try:
        private_connection = _prepare_private(private_dir, connection_file, real_home)
        upstream = _upstream(resolved)
        kernel_ports = {int(connection[key]) for key in _PORT_KEYS}
        proxy_port = _start_warden(upstream, private_dir, kernel_ports)
        plan = plan_confinement(
            workdir=workdir,
            private_dir=private_dir,
            resolved=resolved,
            home=real_home,
            bind_ports=kernel_ports,
            proxy_port=proxy_port,
        )
        _apply_mounts(plan)
    except ConfinementError as error:
        shutil.rmtree(private_dir, ignore_errors=True)
        print(f"twnb-confined: not started: {error}", file=sys.stderr)
        return 1
    proxy_url = None if upstream is None or proxy_port is None else upstream.proxy_url(proxy_port)
    env = _environment(resolved, plan, proxy_url, real_home)
    marker = Confinement(
        read=tuple(str(p) for p in plan.read),
        write=tuple(str(p) for p in plan.write),
        connect=tuple(p for p in plan.connect if p != proxy_port),
        proxy=None if proxy_port is None else f"127.0.0.1:{proxy_port}",
        landlock_abi=abi,
        seccomp=seccomp.supported(),
        mounts=True,
    )
    env[CONFINED_ENV] = marker.to_json()
    _ruleset(plan, abi).restrict_self()
    seccomp.install(udp=plan.udp)
    argv = [sys.executable, "-m", "twnb.confine.inside", "-f", str(private_connection), *kernel_args]
    os.execve(sys.executable, argv, env)
    return 1  # not reached


def _environment(
    resolved: ResolvedSettings, plan: ConfinementPlan, proxy_url: str | None, home: Path
) -> dict[str, str]:
    settings = resolved.settings
    key_names: list[str] = []
    if settings.api_key and proxy_url is not None:
        key_names = [*SETTINGS_BY_NAME["api_key"].env, settings.api_key_env]
    if settings.azure_endpoint:
        base_url_names: tuple[str, ...] = SETTINGS_BY_NAME["azure_endpoint"].env
    else:
        base_url_names = SETTINGS_BY_NAME["base_url"].env
    return kernel_environment(
        os.environ,
        plan=plan,
        home=home,
        key_names=key_names,
        base_url_names=base_url_names,
        proxy_url=proxy_url,
        placeholder=PLACEHOLDER_API_KEY,
        is_secret_name=is_secret_name,
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m twnb.confine", description="Start an ipykernel confined by Landlock and seccomp."
    )
    parser.add_argument("-f", dest="connection_file", required=True, help="the kernel's connection file")
    args, rest = parser.parse_known_args(argv)
    return confine_and_exec(Path(args.connection_file), rest)
