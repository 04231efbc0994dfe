"""The kernel a demo runs in: this interpreter's, any kernelspec by name, or a running kernel attached
by its connection file, which is never shut down and is given back its working folder and environment.

Every kernel but this interpreter's is prepared through the kernel itself, since a kernelspec may start
it elsewhere (Enterprise Gateway, a cluster), where neither our folder nor our environment reaches: its
working folder is the output folder when it reads a marker file we wrote there (kernel_files.py), else
a folder of the same name in its own working directory, into which its own twnb copies the notebook's
files; the offline settings are set in its `os.environ`, with the cassette twnb bundles there. Afterwards,
from a kernel elsewhere, the conversation and its small artifacts are copied back through the kernel.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.kernelspec import KernelSpecManager, NoSuchKernel
from jupyter_client.manager import AsyncKernelManager
from jupyter_core.utils import run_sync

from twnb.demo.demo_notebook import DemoNotebook
from twnb.kernel import (
    AttachedKernelManager,
    KernelPlace,
    bring_back,
    evaluate,
    execute_quietly,
    probe_place,
    read_file,
    this_python_kernel_manager,
)
from twnb.memory import AttachmentType, load_conversation

BUNDLED_CASSETTE = "@bundled"  # TWNB_REPLAY value the kernel replaces with its own twnb's cassette

_SETUP = """
def __twnb_demo_setup(folder, environ, assets, cassette):
    import os, shutil
    import twnb.demo
    bundled = os.path.dirname(twnb.demo.__file__)
    previous = (os.getcwd(), {name: os.environ.get(name) for name in environ})
    os.makedirs(folder, exist_ok=True)
    os.chdir(folder)
    for asset in assets:
        if not os.path.exists(asset):
            shutil.copyfile(os.path.join(bundled, asset), asset)
    for name, value in environ.items():
        if value == @BUNDLED@:
            value = os.path.join(bundled, cassette)
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
    get_ipython().user_ns_hidden["__twnb_demo_previous"] = previous
__twnb_demo_setup(@FOLDER@, @ENVIRON@, @ASSETS@, @CASSETTE@)
del __twnb_demo_setup
"""

_TEARDOWN = """
def __twnb_demo_teardown():
    import os
    cwd, environ = get_ipython().user_ns_hidden.pop("__twnb_demo_previous")
    os.chdir(cwd)
    for name, value in environ.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value
__twnb_demo_teardown()
del __twnb_demo_teardown
"""


class DemoKernelError(RuntimeError):
    """The demo's kernel could not be started, attached or prepared; the message says why."""


@dataclass
class DemoKernel:
    """A started or attached kernel manager for nbclient, and a blocking client for set-up and files."""

    km: AsyncKernelManager
    owned: bool
    prepared: bool = False
    place: KernelPlace | None = None
    folder: str = ""  # the demo's folder as the kernel sees it
    notes: list[str] = field(default_factory=list)
    _kc: BlockingKernelClient | None = None

    @classmethod
    def create(
        cls,
        *,
        kernel_name: str | None = None,
        connection_file: Path | None = None,
        kernel_argv: list[str] | None = None,
    ) -> DemoKernel:
        """The manager nbclient runs the notebook with: it starts a kernel (cwd and environment from
        its `execute` call; this Python's through `kernel_argv` when given: the confined launcher),
        unless attached to a running one."""
        if connection_file is not None:
            if not connection_file.is_file():
                raise DemoKernelError(
                    f"No connection file at {connection_file}; `jupyter --runtime-dir` holds running "
                    "kernels' files (kernel-*.json)."
                )

            return cls(AttachedKernelManager(connection_file), owned=False)
        if kernel_name is None:
            return cls(this_python_kernel_manager(kernel_argv), owned=True)

        try:
            KernelSpecManager().get_kernel_spec(kernel_name)
        except NoSuchKernel as error:
            raise DemoKernelError(
                f"No kernel named {kernel_name!r}; `jupyter kernelspec list` shows the installed ones."
            ) from error
        return cls(AsyncKernelManager(kernel_name=kernel_name), owned=True)

    def _client(self) -> BlockingKernelClient:
        if self._kc is None:
            kc = BlockingKernelClient()
            kc.load_connection_info(self.km.get_connection_info())
            kc.start_channels()
            try:
                kc.wait_for_ready(timeout=60)
            except RuntimeError as error:
                kc.stop_channels()
                raise DemoKernelError(f"The demo's kernel did not answer: {error}") from error
            self._kc = kc
        return self._kc

    def _alive(self) -> bool:
        return bool(self._client().is_alive())

    def _evaluate(self, expression: str) -> Any:
        return evaluate(self._client(), expression, alive=self._alive, timeout=120)

    def prepare(
        self, out: Path, environ: dict[str, str | None], demo: DemoNotebook, shares_filesystem: bool | None
    ) -> None:
        """Move the kernel into the demo's folder and give it the demo's settings (see the module)."""
        place = probe_place(self._evaluate, out)
        if shares_filesystem is not None:
            place = KernelPlace(place.hostname, place.cwd, shares_filesystem)
        self.place = place
        self.folder = str(out) if place.shares_filesystem else os.path.join(place.cwd, out.name)
        code = (
            _SETUP.replace("@FOLDER@", repr(self.folder))
            .replace("@ENVIRON@", repr(environ))
            .replace("@BUNDLED@", repr(BUNDLED_CASSETTE))
            .replace("@ASSETS@", repr([asset.name for asset in demo.assets]))
            .replace("@CASSETTE@", repr(demo.cassette.name))
        )
        reply = execute_quietly(self._client(), code, alive=self._alive, timeout=120)
        if reply.get("status") != "ok":
            raise DemoKernelError(
                f"Preparing the kernel failed ({reply.get('ename', reply.get('status'))}: "
                f"{reply.get('evalue', '')}); twnb must be installed in the kernel's environment."
            )
        self.prepared = True

    def bring_back(self, out: Path, conversation_file: str) -> None:
        """From a kernel elsewhere: the conversation and the small artifacts it names, into `out`."""
        if self.place is None or self.place.shares_filesystem:
            return
        remote = self.place.where(self.folder)
        conversation = f"{self.folder}/{conversation_file}"
        data = read_file(self._evaluate, conversation)
        if data is None:
            self.notes.append(f"The conversation was not found in the kernel's folder {remote}.")
            return
        (out / conversation_file).write_bytes(data)

        relative = {
            path
            for round_ in load_conversation(out / conversation_file).rounds
            for post in round_.post_list
            for attachment in post.get_attachment(AttachmentType.artifact_paths)
            for path in attachment.content or []
        }
        paths = [f"{self.folder}/{path}" for path in sorted(relative)]
        sizes = (
            self._evaluate(
                "[(lambda os: os.path.getsize(p) if os.path.isfile(p) else -1)(__import__('os')) "
                f"for p in {paths!r}]"
            )
            or []
        )
        files = [(path, size) for path, size in zip(paths, sizes, strict=False) if size >= 0]
        place = KernelPlace(self.place.hostname, self.folder, False)
        back = bring_back(self._evaluate, place, files, out)
        self.notes.extend(back.notes)
        self.notes.insert(0, f"The kernel ran elsewhere, in {remote}; its files were copied back through it.")

    def release(self) -> None:
        """Shut down a kernel the demo started; give an attached one back its folder and environment."""
        if self.owned and not self.km.has_kernel:
            return  # never started
        try:
            if not self.owned and self.prepared:
                execute_quietly(self._client(), _TEARDOWN, alive=self._alive, timeout=60)
        finally:
            if self._kc is not None:
                self._kc.stop_channels()
                self._kc = None
            if self.owned:
                try:
                    run_sync(self.km.shutdown_kernel)(now=False)
                except Exception:  # already gone: nothing left to stop
                    run_sync(self.km.cleanup_resources)()


def environ_for_kernel(env: dict[str, str], names: tuple[str, ...]) -> dict[str, str | None]:
    """The demo's settings among `names`, as the kernel should have them (None: unset there)."""
    environ: dict[str, str | None] = {name: env.get(name) for name in names}
    if environ.get("TWNB_REPLAY"):
        environ["TWNB_REPLAY"] = BUNDLED_CASSETTE
    return environ
