"""Running the quickstart headless in a real kernel: what `twnb demo` does.

Offline (the default) the kernel replays the bundled cassette of scripted replies, so the demo needs
no key and no network; `live=True` uses the model the user configured instead. Either way the
executed notebook, the conversation YAML and the artifacts land in one folder.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError

from twnb.config import KernelEnd, SettingsError, resolve_settings
from twnb.confine import (
    RefusedStartsRecord,
    abi_version,
    confined_kernel_argv,
    dotenv_key_notice,
    unavailable_reason,
)
from twnb.demo.bigger_than_memory import BIGGER_THAN_MEMORY
from twnb.demo.demo_kernel import DemoKernel, DemoKernelError, environ_for_kernel
from twnb.demo.demo_notebook import DEMO_MODEL, DemoNotebook
from twnb.demo.quickstart import QUICKSTART
from twnb.kernel import start_notebook_kernel
from twnb.memory import AttachmentType, load_conversation
from twnb.render import MIME_TYPE, state_label

DEMO_NOTEBOOKS = {demo.name: demo for demo in (QUICKSTART, BIGGER_THAN_MEMORY)}
KERNEL_LOG = "kernel.log"
SESSION_DIR = "session"  # visible, unlike the default .twnb, so the demo's autosaves are easy to find


class DemoError(RuntimeError):
    """The demo could not run or did not finish; the message says why and what to do."""


@dataclass
class DemoResult:
    out_dir: Path
    notebook: Path
    conversation: Path
    round_states: list[str] = field(default_factory=list)
    artifacts: list[Path] = field(default_factory=list)
    # "Round 2 failed: <its failure reason>" for each Round that did not finish, in order
    failures: list[str] = field(default_factory=list)
    # where a kernel elsewhere ran, and its files that stayed there
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return bool(self.round_states) and all(state == "finished" for state in self.round_states)


@dataclass(frozen=True)
class KernelChoice:
    """Which kernel the demo runs in. `kernel_name`: that kernelspec's kernel; `connection_file`: a
    running kernel (left running, its folder and environment given back); both are prepared through the
    kernel and, when their files are not on this machine, the conversation and small artifacts come
    back through it (demo_kernel.py). `shares_filesystem` False treats the kernel as elsewhere (tests).
    Neither named: this Python's kernel, `confine`d (twnb/confine) when asked, said once when the
    system cannot."""

    kernel_name: str | None = None
    connection_file: str | os.PathLike[str] | None = None
    shares_filesystem: bool | None = None
    confine: bool = False


def run_demo(
    out_dir: str | os.PathLike[str] = "twnb-demo",
    *,
    live: bool = False,
    record: bool = False,
    timeout: int = 600,
    progress: Callable[[str], None] = print,
    notebook: nbformat.NotebookNode | None = None,
    demo: DemoNotebook = QUICKSTART,
    kernel_choice: KernelChoice = KernelChoice(),
) -> DemoResult:
    """Run the quickstart (or `demo`) into `out_dir`, in the kernel `kernel_choice` names; raises
    DemoError with a clear message when it cannot.

    `timeout` is each cell's limit in whole seconds. `record` (live only) records the LLM calls to a
    cassette beside the conversation: that is how the bundled cassette is made from the scripted
    replies (tests/demo/record_quickstart_cassette.py). `notebook` runs another notebook in its place
    (default: the one `demo` builds)."""
    kernel_name, connection_file = kernel_choice.kernel_name, kernel_choice.connection_file
    shares_filesystem, confine = kernel_choice.shares_filesystem, kernel_choice.confine
    out = Path(out_dir).resolve()
    if record and not live:
        raise DemoError("Recording needs --live: offline, the demo replays the bundled cassette.")
    env = kernel_environment(live, demo.cassette)
    if record:
        env["TWNB_RECORD"] = "1"
    out.mkdir(parents=True, exist_ok=True)
    for asset in demo.assets:
        shutil.copyfile(asset, out / asset.name)
    if kernel_name is None and connection_file is None:
        _check_requirements(demo)
    attached = Path(connection_file).resolve() if connection_file is not None else None
    refused: RefusedStartsRecord | None = None
    try:
        kernel_argv = (
            _confined_argv(progress, out, env)
            if confine and kernel_name is None and attached is None
            else None
        )
        # the confined kernel's refused program starts, recorded outside it and read after each cell
        if kernel_argv is not None:
            refused = RefusedStartsRecord()
            kernel_argv = refused.kernel_argv(kernel_argv)
        kernel = DemoKernel.create(kernel_name=kernel_name, connection_file=attached, kernel_argv=kernel_argv)
    except DemoKernelError as error:
        if refused is not None:
            refused.close()
        raise DemoError(str(error)) from error
    refused_notes: list[str] = []
    end: KernelEnd | None = None
    prepare = kernel_name is not None or attached is not None
    progress(
        f"twnb demo: {'live, with your configured model' if live else 'offline, replaying scripted replies'}"
        f" -> {out}"
    )

    nb = notebook if notebook is not None else demo.build()
    code_cells = [i for i, cell in enumerate(nb.cells) if cell.cell_type == "code"]
    started: dict[int, float] = {}

    def on_cell_start(cell: nbformat.NotebookNode, cell_index: int) -> None:
        if cell_index not in code_cells:
            return
        started[cell_index] = time.monotonic()
        if refused is not None:
            refused.read_new()  # what came before this cell: not its code's
        first_line = cell.source.splitlines()[1 if cell.source.startswith("%%") else 0][:70]
        step = code_cells.index(cell_index) + 1
        progress(f"[{step}/{len(code_cells)}] {first_line}")

    def on_cell_executed(cell: nbformat.NotebookNode, cell_index: int, **_: object) -> None:
        if cell_index not in code_cells:
            return
        seconds = time.monotonic() - started.get(cell_index, time.monotonic())
        states = _round_states([cell])
        note = f"Round {states[0]}" if states else "done"
        progress(f"      {note} ({seconds:.1f} s)")
        for line in refused.take_notes() if refused is not None else []:
            refused_notes.append(f"cell {code_cells.index(cell_index) + 1}: {line}")
            progress(f"      {line}")

    def on_notebook_start(**_: object) -> None:
        if prepare:
            kernel.prepare(out, environ_for_kernel(env, _KERNEL_SETTINGS), demo, shares_filesystem)
            if kernel.place is not None and not kernel.place.shares_filesystem:
                progress(f"      the kernel runs elsewhere: {kernel.place.where(kernel.folder)}")

    client = NotebookClient(
        nb,
        km=kernel.km,
        timeout=timeout,
        resources={"metadata": {"path": str(out)}},
        on_notebook_start=on_notebook_start,
        on_cell_start=on_cell_start,
        on_cell_executed=on_cell_executed,
    )
    notebook_path = out / demo.notebook_file
    kernel_log = out / KERNEL_LOG
    # The kernel's own stderr (start-up notices, a crash) goes to a file, not over the progress lines.
    with kernel_log.open("w", encoding="utf-8") as log:
        try:
            if kernel.owned and kernel_name is None:  # this Python's: once more when it lost a port
                kernel.km = start_notebook_kernel(client, kernel_argv, said=progress, env=env, stderr=log)
                pid = getattr(kernel.km.provisioner, "pid", None)
                if kernel_argv is not None and isinstance(pid, int):
                    end = KernelEnd(out, pid)  # what its end quarantines, said once it is shut down
            client.execute(env=env, stderr=log)
        except CellTimeoutError as error:
            raise DemoError(
                f"A cell of the demo notebook took longer than {timeout} s; see {notebook_path}. "
                "Give it more time with --timeout S."
            ) from error
        except CellExecutionError as error:
            raise DemoError(f"A cell of the demo notebook failed; see {notebook_path}.\n{error}") from error
        except DemoKernelError as error:
            raise DemoError(str(error)) from error
        except RuntimeError as error:  # e.g. the kernel died or never started
            raise DemoError(f"The demo's kernel failed: {error}. Its log: {kernel_log}") from error
        finally:
            nbformat.write(nb, notebook_path)
            try:
                if kernel.prepared:
                    kernel.bring_back(out, demo.conversation_file)
            finally:
                kernel.release()
                if refused is not None:
                    refused.close()
                said = [] if end is None else end.lines()
                if end is not None and end.leftover_line is not None:  # processes the warden ended
                    said.insert(0, end.leftover_line)
                for line in said:
                    refused_notes.append(line)
                    progress(line)

    conversation_path = out / demo.conversation_file
    if not live:  # the scripted replies beside the conversation: the notebook replays from them again
        shutil.copyfile(demo.cassette, out / demo.cassette_copy)
    result = DemoResult(
        out_dir=out,
        notebook=notebook_path,
        conversation=conversation_path,
        round_states=_round_states(nb.cells),
        failures=_round_failures(nb.cells),
        artifacts=_artifacts(conversation_path),
        notes=[*kernel.notes, *refused_notes],
    )
    _report(result, progress)
    return result


# The demo's settings, handed to a kernel that was not started with the demo's environment.
_KERNEL_SETTINGS = (
    "TWNB_SESSION_DIR",
    "TWNB_REPLAY",
    "TWNB_RECORD",
    "TWNB_MODEL",
    "TWNB_PLANNER_MODEL",
    "TWNB_CODE_MODEL",
    "OPENAI_BASE_URL",
    "AZURE_OPENAI_ENDPOINT",
    "OPENAI_API_VERSION",
)


def _confined_argv(progress: Callable[[str], None], out: Path, env: dict[str, str]) -> list[str] | None:
    """The confined kernel's command; said once when this system cannot confine, or when a `.env` the
    kernel (in `out`, with `env`) could come to read holds the model's key."""
    reason = unavailable_reason(abi_version())
    if reason is not None:
        progress(f"twnb demo: running unconfined: {reason}; the code can do whatever you can.")
        return None
    notice = dotenv_key_notice(out, env)
    if notice is not None:
        progress(f"twnb demo: confined kernel: {notice}")
    return confined_kernel_argv()


def kernel_environment(live: bool, cassette: Path = QUICKSTART.cassette) -> dict[str, str]:
    """The demo kernel's environment. Offline: the bundled cassette and its scripted model, whatever
    the user exported (a key or base URL is never used). Live: the user's settings, checked first."""
    env = dict(os.environ)
    env.pop("TWNB_RECORD", None)
    env.pop("TWNB_REPLAY", None)
    env["TWNB_SESSION_DIR"] = SESSION_DIR
    if live:
        _check_live_settings(env)
    else:
        env["TWNB_REPLAY"] = str(cassette)
        env["TWNB_MODEL"] = DEMO_MODEL
        for name in ("TWNB_PLANNER_MODEL", "TWNB_CODE_MODEL"):
            env.pop(name, None)
    return env


def _check_requirements(demo: DemoNotebook) -> None:
    """Before a kernel starts: the modules the notebook needs, in this Python (its kernel's)."""

    def missing(module: str) -> bool:
        try:
            return importlib.util.find_spec(module) is None
        except ModuleNotFoundError:  # its parent package is missing
            return True

    absent = [module for module in demo.requires if missing(module)]
    if absent:
        raise DemoError(f"The {demo.name} notebook needs {', '.join(absent)}: {demo.install_hint}")


def _check_live_settings(env: dict[str, str]) -> None:
    """Fail before starting a kernel when no model or key is configured (the message says what to set).

    Settings are resolved where the user runs `twnb demo` (its .env and twnb.yaml included); the kernel
    runs in the demo folder, so what was found is handed to it through its environment, never a file.
    """
    try:
        resolved = resolve_settings(environ=env, workdir=Path.cwd())
        resolved.require_model()
        resolved.require_api_key()
    except SettingsError as error:
        raise DemoError(f"--live needs a configured model: {error}") from error
    settings = resolved.settings
    handed = {
        "TWNB_MODEL": settings.model,
        "TWNB_PLANNER_MODEL": settings.planner_model,
        "TWNB_CODE_MODEL": settings.code_model,
        "OPENAI_BASE_URL": settings.base_url,
        "AZURE_OPENAI_ENDPOINT": settings.azure_endpoint,
        "OPENAI_API_VERSION": settings.api_version,
    }
    env.update({name: value for name, value in handed.items() if value})
    if settings.has_real_api_key and settings.api_key and settings.api_key_env not in env:
        env[settings.api_key_env] = settings.api_key


def _round_payloads(cells: list[nbformat.NotebookNode]) -> list[dict[str, Any]]:
    return [
        output["data"][MIME_TYPE]
        for cell in cells
        for output in cell.get("outputs", [])
        if MIME_TYPE in output.get("data", {})
    ]


def _round_states(cells: list[nbformat.NotebookNode]) -> list[str]:
    return [str(payload.get("state")) for payload in _round_payloads(cells)]


def _round_failures(cells: list[nbformat.NotebookNode]) -> list[str]:
    """Why each Round that did not finish ended, as the Round recorded it (already redacted)."""
    failures = []
    for number, payload in enumerate(_round_payloads(cells), start=1):
        state = str(payload.get("state"))
        if state == "finished":
            continue
        reason = str((payload.get("extra") or {}).get("failure_reason") or "no reason was recorded")
        failures.append(f"Round {number} {state_label(state, reason)}: {' '.join(reason.split())}")
    return failures


def _artifacts(conversation_path: Path) -> list[Path]:
    if not conversation_path.is_file():
        return []

    conversation = load_conversation(conversation_path)
    found: list[Path] = []
    for round_ in conversation.rounds:
        for post in round_.post_list:
            for attachment in post.get_attachment(AttachmentType.artifact_paths):
                for path in attachment.content or []:
                    full = (conversation_path.parent / path).resolve()
                    if full not in found:
                        found.append(full)
    return found


def _report(result: DemoResult, progress: Callable[[str], None]) -> None:
    finished = sum(state == "finished" for state in result.round_states)
    progress(f"Rounds finished: {finished} of {len(result.round_states)}")
    progress(f"Notebook:      {result.notebook}")
    conversation = result.conversation if result.conversation.is_file() else "(not written)"
    progress(f"Conversation:  {conversation}")
    for artifact in result.artifacts:
        progress(f"Artifact:      {artifact}")
    for note in result.notes:
        progress(f"Note:          {note}")
