"""A case's notebook, run in a fresh kernel one cell at a time as the virtual user speaks.

The same parts as `twnb demo` and `twnb export --execute`: this interpreter's ipykernel
(`this_python_kernel_manager`), nbclient's `setup_kernel`/`execute_cell`, the kernel's stderr in a
log file. Unlike the demo the notebook is not known in advance: each `%%taskweaver` cell is added
when the virtual user has said what it holds, then run, and its Round read back from its output.
A confined kernel is named a record of the program starts its supervisor refuses (`RefusedStartsRecord`,
outside the kernel's reach), read after each Round: `refused_starts` gives what that Round's code tried.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable
from pathlib import Path
from types import TracebackType
from typing import Any

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import DeadKernelError

from twnb.config import KernelEnd
from twnb.confine import RefusedStartsRecord
from twnb.evaluation.agent_turn import AgentTurn, turn_from_outputs
from twnb.kernel import start_notebook_kernel, this_python_kernel_manager

__all__ = ["CaseNotebook", "KernelFailure"]

KERNEL_LOG = "kernel.log"


class KernelFailure(RuntimeError):
    """The case's kernel could not start, died, or a set-up cell failed; the message says which."""


class CaseNotebook:
    """Use as a context manager: the kernel lives inside the `with` block and the notebook is written
    when it ends, however it ends."""

    def __init__(
        self,
        folder: Path,
        notebook_file: str,
        env: dict[str, str],
        timeout: int,
        kernel_argv: list[str] | None = None,
        said: Callable[[str], None] | None = None,
    ) -> None:
        """`said`: a line about the kernel's start (a lost port, started once more)."""
        self.folder = folder
        self.said = said
        self.kernel_argv = kernel_argv  # None: this Python's ipykernel; else e.g. the confined launcher
        self.path = folder / notebook_file
        self.env = env
        self.timeout = timeout
        self.nb = nbformat.v4.new_notebook()
        self.nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
        self.nb.metadata["language_info"] = {"name": "python"}
        self._stack = contextlib.ExitStack()
        self._client: Any = None
        self._refused_starts: RefusedStartsRecord | None = None
        self._refused_in_round: list[str] = []
        self._end: KernelEnd | None = None  # a confined kernel's session: its end is said after it
        # what that end quarantined or moved aside, and the processes it ended, once `with` ended
        self.end_lines: list[str] = []

    def __enter__(self) -> CaseNotebook:
        argv = self.kernel_argv
        if argv is not None:
            self._refused_starts = self._stack.enter_context(RefusedStartsRecord())
            argv = self._refused_starts.kernel_argv(argv)
        self._client = NotebookClient(
            self.nb,
            km=this_python_kernel_manager(argv),
            timeout=self.timeout,
            allow_errors=True,
            interrupt_on_timeout=True,
            resources={"metadata": {"path": str(self.folder)}},
        )
        # The kernel's own stderr (start-up notices, a crash) goes to a file beside the notebook.
        log = self._stack.enter_context((self.folder / KERNEL_LOG).open("w", encoding="utf-8"))
        try:
            km = start_notebook_kernel(self._client, argv, said=self.said, env=self.env, stderr=log)
            pid = getattr(km.provisioner, "pid", None)
            if argv is not None and isinstance(pid, int):
                self._end = KernelEnd(self.folder, pid)
            # nbclient shuts down only kernels of managers it made: this one ends with the `with` block
            self._stack.enter_context(self._client.setup_kernel(env=self.env, stderr=log, cleanup_kc=True))
        except RuntimeError as error:
            self._stack.close()
            raise KernelFailure(f"the case's kernel did not start: {error}") from error
        return self

    def __exit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        try:
            self._stack.close()
            if self._end is not None:  # shut down: what its warden quarantined or moved aside
                self.end_lines = self._end.lines()
                if self._end.leftover_line is not None:  # and the processes it ended
                    self.end_lines.insert(0, self._end.leftover_line)
        finally:
            self.write()

    def write(self) -> None:
        nbformat.write(self.nb, self.path)

    def add_markdown(self, text: str) -> None:
        self.nb.cells.append(nbformat.v4.new_markdown_cell(text))

    def run_setup(self, source: str) -> None:
        """Run a set-up cell (`%load_ext twnb`, the case's settings); a KernelFailure if it fails."""
        outputs = self._run(source)
        error = next((o for o in outputs if o.get("output_type") == "error"), None)
        if error is not None:
            raise KernelFailure(f"the set-up cell failed: {error.get('ename')}: {error.get('evalue')}")

    def ask(self, request: str) -> AgentTurn:
        """Run one `%%taskweaver` cell holding `request` and read its Round. A cell past the time limit
        is interrupted (nbclient), which ends its Round; the turn then says it ran out of time."""
        started = time.monotonic()
        if self._refused_starts is not None:
            self._refused_starts.read_new()  # the kernel's start and the set-up cells: not this Round's
        outputs = self._run(f"%%taskweaver\n{request}")
        seconds = time.monotonic() - started
        if self._refused_starts is not None:
            self._refused_in_round = self._refused_starts.take_notes()
        turn = turn_from_outputs(request, outputs, seconds)
        if seconds >= self.timeout:
            turn.state = "failed"
            turn.failure = f"the Round took longer than {self.timeout} s and was interrupted"
        return turn

    def refused_starts(self) -> list[str]:
        """The program starts the confined kernel refused while the last Round's code ran, each
        program once, as the line a run's notes give it; none for an unconfined kernel."""
        return list(self._refused_in_round)

    def run_quietly(self, source: str) -> list[Any]:
        """Run a code cell whose outputs the caller reads (e.g. `%taskweaver save`)."""
        return self._run(source)

    def _run(self, source: str) -> list[Any]:
        cell = nbformat.v4.new_code_cell(source)
        self.nb.cells.append(cell)
        try:
            self._client.execute_cell(cell, len(self.nb.cells) - 1)
        except DeadKernelError as error:
            raise KernelFailure(f"the case's kernel died; its log: {self.folder / KERNEL_LOG}") from error
        return list(cell.outputs)
