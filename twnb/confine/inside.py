"""The confined kernel's first stage, run by the launcher's exec (`python -m twnb.confine.inside`):
still one thread and no code but this, it takes a second Landlock ruleset that executes nothing at all
(the first one still allowed this Python and its loader, for the exec that started it: from now on
neither `python` nor `ld-linux.so /bin/sh` can be started), hands the listener of its exec filter to the
supervisor that records each refused start (exec_notify.py), then starts ipykernel (closing the ports
its launcher held once the kernel listens on them: held_ports.py; ending on a port another process
took, the heartbeat's too: lost_heartbeat.py) with the shell's
refusal handler installed and multiprocessing told it starts no new Python (new_python.py) and serves
no Manager (manager_server.py)."""

from __future__ import annotations

import contextlib
import errno
import os
import platform
import sys
import warnings
from threading import Thread
from typing import NoReturn

from twnb.config import Confinement
from twnb.confine import landlock
from twnb.confine.exec_notify import hand_over_from_environ
from twnb.confine.held_ports import HELD_PORTS_ENV, release_when_listening
from twnb.confine.lost_heartbeat import end_on_a_lost_heartbeat
from twnb.confine.lost_mounts import take_from_environ as take_protected_mounts
from twnb.confine.manager_server import refuse_unservable_managers
from twnb.confine.new_python import refuse_new_pythons
from twnb.confine.refusals import install_refusal_handler


def _blank_processor() -> None:
    """debugpy, which ipykernel imports at start, logs `platform.platform()`, whose processor field
    runs `uname -p`: refused here, after a refused exec in each folder of PATH, each a round trip to
    the supervisor and a line in its record. Set it beforehand to what platform makes of the
    refusal (blank), in the slot `functools.cached_property` fills."""
    with contextlib.suppress(TypeError):  # no such slot: the refused starts are only slower
        vars(platform.uname()).setdefault("processor", "")


def _end_on_a_lost_port(error: Exception) -> NoReturn:
    """A port the launcher held was bound and listened on by another process before this kernel
    bound it: another process's kernel (a launcher like this one, or any ZeroMQ socket: both set
    SO_REUSEADDR, which shares a bound port that no socket listens on yet), handed the same free
    port by its own jupyter_client. End as the launcher ends on a port already taken, so the
    starter tries once more on new ports instead of reporting a kernel that died."""
    # lazy: twnb.confine.launcher (~14 ms, 8 modules) for its exit status, only on this failure
    from twnb.confine.launcher import PORT_TAKEN_EXIT

    print(
        f"twnb-confined: not started: a port of the connection file was taken by another process"
        f" before the kernel listened on it ({error}); start the kernel again: new ports are chosen",
        file=sys.__stderr__,
        flush=True,
    )
    os._exit(PORT_TAKEN_EXIT)  # ipykernel's threads may have started: none of them has work to finish


def main() -> None:
    landlock.Ruleset(handled_fs=landlock.EXECUTE).restrict_self()
    # from here every program start goes to the supervisor outside, which refuses and records it
    hand_over_from_environ()
    take_protected_mounts()  # before any code that could read or change it: lost_mounts.py
    _blank_processor()
    if sys.path and sys.path[0] in ("", "."):
        del sys.path[0]  # as ipykernel_launcher does: IPython puts the working folder back its own way
    # ipykernel's pipe for forked children's output binds a random port, which the ruleset refuses:
    # such output (multiprocessing's workers) is not shown; everything else works
    warnings.filterwarnings("ignore", message="Couldn't bind IOPub Pipe")
    from ipykernel.kernelapp import IPKernelApp  # lazy: ipykernel (~160 ms), once confined

    held_ports = os.environ.pop(HELD_PORTS_ENV, None)
    app = IPKernelApp.instance()
    # the heartbeat binds its port in a thread of its own, which `initialize` starts
    end_on_a_lost_heartbeat(lambda: getattr(app, "heartbeat", None), _end_on_a_lost_port)
    try:
        app.initialize(sys.argv[1:])  # type: ignore[no-untyped-call]
    except Exception as error:  # ZeroMQ's error, by its errno: the layer does not import zmq
        if getattr(error, "errno", None) != errno.EADDRINUSE:
            raise
        _end_on_a_lost_port(error)
    if held_ports is not None:  # the launcher's hold on the ports, closed once the kernel listens
        # beside the start (about 10 ms, mostly the heartbeat thread's bind): none of it waits for this
        Thread(target=release_when_listening, args=(held_ports,), name="twnb-held-ports", daemon=True).start()
    refuse_new_pythons()
    refuse_unservable_managers()
    confinement = Confinement.from_environ()
    if confinement is not None and app.shell is not None:
        install_refusal_handler(app.shell, confinement)
    app.start()  # type: ignore[no-untyped-call]


if __name__ == "__main__":
    main()
