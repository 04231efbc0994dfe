"""Re-running an exported notebook's code cells in a fresh kernel and comparing with what was recorded.

Only the cells that hold code the CodeInterpreter ran are executed, in order; the `%taskweaver show`
cells keep the Round as it was recorded. The kernel is this interpreter's ipykernel (another kernel by
name on request), started in the conversation's folder so relative paths in the code still resolve, or
a running kernel attached by its connection file: that one runs the cells in its own working directory
and is left running.
A kernel that dies ends the re-run: the cells run so far keep their new outputs, the rest their
recorded ones, and the report says where it stopped.
With verification on (`check`), the cells also run under the runtime guard in that kernel, as
generated code does (twnb.kernel's KernelGuardChannel): what it refuses is named per cell.
In a confined kernel, a cell whose act the operating system refused (its error's first line is the
confined kernel's one-line explanation) is named per cell too, with that line; so is a cell during
which the supervisor outside the kernel recorded a refused program start (twnb.confine's
RefusedStartsRecord), though nothing raised: `os.system` and libc's `system` only return 127.
Code to `prepare` the kernel (binding the plugins the code calls) runs quietly before any cell; the
lines it leaves in `__twnb_prepared` are the report's `notes`.
"""

from __future__ import annotations

import ast
import os
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from nbclient import NotebookClient
from nbclient.exceptions import DeadKernelError
from nbformat import NotebookNode, from_dict

from twnb.config import KernelEnd
from twnb.confine import RefusedStartsRecord
from twnb.kernel import (
    AttachedKernelManager,
    KernelGuardChannel,
    execute_quietly,
    start_notebook_kernel,
    strip_ansi,
    this_python_kernel_manager,
)
from twnb.render import MIME_TYPE
from twnb.replay.compare import Comparison, compare_outputs, compare_raised, compare_shown_result
from twnb.replay.notebook_cells import CodePiece

# How the confined kernel begins the line that explains a refusal (twnb.confine.refusals writes it)
CONFINED_REFUSAL = "Confined kernel: "


@dataclass
class CellOutcome:
    index: int  # the cell's position in the notebook (0-based; people count from 1)
    round_number: int  # 0: a user's cell before no Round
    piece: CodePiece
    comparison: Comparison
    refusal: str | None = None  # why verification would not let it run again (then it did not)
    guard_refusal: str | None = None  # what the runtime guard refused while it ran
    confine_refusal: str | None = None  # what the confined kernel refused while it ran

    @property
    def where(self) -> str:
        """ "Round 2", or for a user's own cell "your cell before Round 2"."""
        if not self.piece.user:
            return f"Round {self.round_number}"
        return f"your cell before Round {self.round_number}" if self.round_number else "your cell"


@dataclass
class RerunReport:
    cells: list[CellOutcome] = field(default_factory=list)
    total: int = 0
    stopped: str | None = None  # why the re-run ended early (the kernel died, could not start)
    notes: list[str] = field(default_factory=list)  # what preparing the kernel said (a missing plugin)
    # what the confined kernel's end quarantined or moved aside (twnb.config's KernelEnd), one line each
    quarantined: list[str] = field(default_factory=list)

    @property
    def reproduced(self) -> int:
        return sum(1 for cell in self.cells if cell.comparison.reproduced)

    @property
    def differing(self) -> list[CellOutcome]:
        return [
            cell
            for cell in self.cells
            if not cell.comparison.reproduced
            and cell.refusal is None
            and cell.guard_refusal is None
            and cell.confine_refusal is None
        ]

    @property
    def refused(self) -> list[CellOutcome]:
        return [cell for cell in self.cells if cell.refusal is not None]

    @property
    def guard_refused(self) -> list[CellOutcome]:
        return [cell for cell in self.cells if cell.guard_refusal is not None]

    @property
    def confine_refused(self) -> list[CellOutcome]:
        return [cell for cell in self.cells if cell.confine_refusal is not None]

    @property
    def ok(self) -> bool:
        """Every cell reproduced, and the kernel left nothing its end had to quarantine or move aside
        (the re-run did what the recording did not show)."""
        return self.stopped is None and self.reproduced == self.total and not self.quarantined

    def summary(self) -> str:
        return f"{self.reproduced} of {self.total} cells reproduced"

    def to_dict(self) -> dict[str, Any]:
        return {
            "reproduced": self.reproduced,
            "cells": self.total,
            "differing": [
                {"cell": c.index + 1, "round": c.round_number, "why": c.comparison.reason}
                for c in self.differing
            ],
            "refused": [
                {"cell": c.index + 1, "round": c.round_number, "why": c.refusal} for c in self.refused
            ],
            "guard_refused": [
                {"cell": c.index + 1, "round": c.round_number, "why": c.guard_refusal}
                for c in self.guard_refused
            ],
            "confine_refused": [
                {"cell": c.index + 1, "round": c.round_number, "why": c.confine_refusal}
                for c in self.confine_refused
            ],
            "stopped": self.stopped,
            "notes": list(self.notes),
            "quarantined": list(self.quarantined),
        }


Progress = Callable[[int, int, CellOutcome], None]


@dataclass(frozen=True)
class RerunOptions:
    """How a notebook is re-run. `timeout`: each cell's limit in seconds; `strict_images`: images
    compare by their bytes, not their dimensions; `redact`: the new outputs pass through it; `check`
    (verification, for code recorded elsewhere): a refusal for a cell that must not run (left as
    recorded, reported as refused); `prepare`: code run quietly first (binding the plugins). The
    kernel: `kernel_name`'s kernelspec, the running kernel of `connection_file` (left running), or
    this Python's, started as `kernel_argv` says (the confined kernel's launcher) when given."""

    timeout: int = 600
    strict_images: bool = False
    redact: Callable[[Any], Any] | None = None
    check: Callable[[str], str | None] | None = None
    prepare: str | None = None
    kernel_name: str | None = None
    connection_file: str | os.PathLike[str] | None = None
    kernel_argv: list[str] | None = None


def rerun_notebook(
    nb: NotebookNode,
    pieces: dict[int, CodePiece],
    *,
    cwd: str | os.PathLike[str],
    options: RerunOptions = RerunOptions(),
    progress: Progress | None = None,
) -> RerunReport:
    """Execute the cells `pieces` names, a fresh kernel started in `cwd` (their outputs are replaced by
    the new ones; each cell's `metadata.twnb.rerun` says whether it reproduced) and report, as `options`
    say."""
    report = RerunReport(total=len(pieces))
    rounds = round_numbers(nb)
    kernel: dict[str, Any]
    record: RefusedStartsRecord | None = None
    kernel_argv: list[str] | None = None
    own = False  # this Python's kernel, started here (once more when the confined launcher lost a port)
    end: KernelEnd | None = None  # the confined kernel's session, whose end is said after its shutdown
    if options.connection_file is not None:
        kernel = {"km": AttachedKernelManager(options.connection_file)}  # never shut down by nbclient
    elif options.kernel_name:
        kernel = {"kernel_name": options.kernel_name}
    else:
        kernel_argv = options.kernel_argv
        if kernel_argv is not None:
            record = RefusedStartsRecord()  # the confined kernel's refused program starts
            kernel_argv = record.kernel_argv(kernel_argv)
        kernel, own = {"km": this_python_kernel_manager(kernel_argv)}, True
    client = NotebookClient(
        nb,
        timeout=options.timeout,
        allow_errors=True,
        interrupt_on_timeout=True,
        resources={"metadata": {"path": str(Path(cwd))}},
        **kernel,
    )
    # The kernel's own stderr (start-up notices, a crash message) is kept off the progress lines; its
    # last line explains a death.
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        guard: KernelGuardChannel | None = None
        try:
            if own:
                km = start_notebook_kernel(client, kernel_argv, said=report.notes.append, stderr=log)
                pid = getattr(km.provisioner, "pid", None)
                if kernel_argv is not None and isinstance(pid, int):
                    end = KernelEnd(cwd, pid)
            # nbclient shuts down only kernels of managers it made: this Python's is ours to end too
            with client.setup_kernel(stderr=log, cleanup_kc=options.connection_file is None):
                guard = _guard(client, options.timeout) if options.check is not None else None
                if options.prepare is not None:
                    report.notes += _prepare(client, options.prepare, options.timeout)
                _run_cells(client, nb, pieces, report, rounds, options, progress, guard, record)
        except DeadKernelError:
            report.stopped = report.stopped or "the kernel died"
        except RuntimeError as error:  # the kernel did not start or not answer in time
            if report.stopped is None:
                report.stopped = f"the kernel could not be used: {' '.join(str(error).split())}"
        finally:
            if guard is not None:
                guard.close()
            if options.connection_file is not None and client.kc is not None:
                client.kc.stop_channels()  # the kernel is not ours: only disconnect
            if record is not None:
                record.close()
        last = _last_line(log)
    if end is not None:  # the kernel is shut down: what its warden quarantined or moved aside
        report.quarantined = end.lines()
        if end.leftover_line is not None:  # and the processes it left running, which the warden ended
            report.notes.append(end.leftover_line)
    if report.stopped and last:
        report.stopped += f" (the kernel's last words: {last})"
    return report


def _run_cells(
    client: NotebookClient,
    nb: NotebookNode,
    pieces: dict[int, CodePiece],
    report: RerunReport,
    rounds: dict[str, int],
    options: RerunOptions,
    progress: Progress | None,
    guard: KernelGuardChannel | None = None,
    record: RefusedStartsRecord | None = None,
) -> None:
    timeout, redact, check = options.timeout, options.redact, options.check

    for done, (index, piece) in enumerate(sorted(pieces.items()), start=1):
        cell = nb.cells[index]
        number = rounds.get(piece.round_id, 0)
        refusal = check(cell.source) if check is not None else None
        guard_refusal: str | None = None
        confine_refusal: str | None = None
        started = time.monotonic()
        if refusal is not None:
            comparison = Comparison(False, "not run: verification refused it")
        else:
            guarded = guard is not None and guard.announce(cell.source, refuse=True, timeout=timeout)
            if record is not None:
                record.read_new()  # what came before this cell (the kernel's start, the last cell's end)
            try:
                client.execute_cell(cell, index)
            except DeadKernelError:
                _redact_outputs(cell, redact)
                report.stopped = (
                    f"the kernel died while running cell {index + 1} ({_where(piece, number)}); "
                    "the cells after it were not run"
                )
                comparison = Comparison(False, "the kernel died while it ran")
            else:
                _redact_outputs(cell, redact)  # before comparing: the recorded outputs were redacted too
                guard_refusal = _guard_refusal(guard) if guarded and guard is not None else None
                if guard_refusal is not None:
                    comparison = Comparison(False, "the runtime guard refused what it did")
                elif time.monotonic() - started >= timeout:
                    comparison = Comparison(False, f"stopped after its time limit of {timeout} s")
                else:
                    comparison = _compare(piece, cell.outputs, options.strict_images)
                    if not comparison.reproduced:
                        confine_refusal = _confine_refusal(cell.outputs)
                    started_refusal = _started_refusal(record) if record is not None else None
                    if confine_refusal is None and started_refusal is not None:
                        confine_refusal = started_refusal
                        if comparison.reproduced:  # it printed as recorded, but did not do it
                            comparison = Comparison(False, "the confined kernel refused a program it started")
        _mark(cell, comparison, refusal or guard_refusal or confine_refusal)
        outcome = CellOutcome(index, number, piece, comparison, refusal, guard_refusal, confine_refusal)
        report.cells.append(outcome)
        if progress is not None:
            progress(done, report.total, outcome)
        if report.stopped:
            return


def _guard(client: NotebookClient, timeout: int) -> KernelGuardChannel | None:
    """The runtime guard set up in the re-run's kernel (None when it could not be: the cells then run
    verified only)."""

    # nbclient's client is asynchronous: the guard's quiet requests go through a client of their own.
    if client.kc is None:  # called once the client has started the kernel
        raise RuntimeError("the re-run's kernel has no client to set the runtime guard up through")
    info = client.kc.get_connection_info(session=False)  # ports, key and signature scheme
    guard = KernelGuardChannel.connected(info, timeout=max(60.0, float(timeout)))
    if guard.set_up():
        guard.close()
        return None
    return guard


def _prepare(client: NotebookClient, code: str, timeout: int) -> list[str]:
    """Run `code` quietly in the re-run's kernel before the cells; the lines it left in
    `__twnb_prepared` (or one saying why it failed)."""
    if client.kc is None:
        raise RuntimeError("the re-run's kernel has no client to prepare it through")
    # nbclient's client is asynchronous: the quiet request goes through a blocking client of its own
    channel = KernelGuardChannel.connected(client.kc.get_connection_info(session=False))
    try:
        reply = execute_quietly(
            channel.kc,
            code,
            alive=channel.alive,
            user_expressions={"lines": "__twnb_prepared"},
            timeout=max(60.0, float(timeout)),
        )
    finally:
        channel.close()
    if reply.get("status") != "ok":
        why = reply.get("evalue") or reply.get("ename") or reply.get("status") or "no reply"
        return [f"The plugins could not be bound in the re-run's kernel: {why}."]
    value = (reply.get("user_expressions") or {}).get("lines") or {}
    try:
        lines = ast.literal_eval(value["data"]["text/plain"]) if value.get("status") == "ok" else []
    except (KeyError, ValueError, SyntaxError):
        return []
    return [str(line) for line in lines] if isinstance(lines, list) else []


def _guard_refusal(guard: KernelGuardChannel) -> str | None:
    report = guard.report()
    if report is None or not report.refusals:
        return None
    return "; ".join(refusal.problem for refusal in report.refusals)


def _confine_refusal(outputs: list[NotebookNode]) -> str | None:
    """The confined kernel's line explaining the refusal that ended the cell, if that is how it ended."""
    for output in outputs:
        if output.get("output_type") == "error" and output.get("traceback"):
            first = strip_ansi(str(output["traceback"][0])).strip()
            if first.startswith(CONFINED_REFUSAL):
                return first.removeprefix(CONFINED_REFUSAL)
    return None


def _started_refusal(record: RefusedStartsRecord) -> str | None:
    """The refused program starts recorded while the cell ran, in the words a run's notes give them
    (the report says "refused by the confined kernel" in its own words: the prefix is left off)."""
    notes = record.take_notes()
    return notes[0].removeprefix(CONFINED_REFUSAL) if notes else None


def _compare(piece: CodePiece, outputs: list[NotebookNode], strict_images: bool) -> Comparison:
    if piece.recorded == "raised":
        return compare_raised(piece.error, outputs)
    comparison = compare_outputs(
        piece.outputs, outputs, prose=piece.recorded == "text", strict_images=strict_images
    )
    if comparison.reproduced and piece.shown_result is not None:  # what the Round's view shows of it
        return compare_shown_result(piece.shown_result, outputs)
    return comparison


def _where(piece: CodePiece, number: int) -> str:
    return CellOutcome(0, number, piece, Comparison(True)).where


def _redact_outputs(cell: NotebookNode, redact: Callable[[Any], Any] | None) -> None:
    """The code ran where secrets live: what it printed goes through the conversation's redactor."""
    if redact is not None:
        cell.outputs = [from_dict(output) for output in redact([dict(o) for o in cell.outputs])]


def _last_line(log: IO[str]) -> str:
    log.seek(0)
    lines = [line.strip() for line in log.read()[-4000:].splitlines() if line.strip()]
    lines = [line for line in lines if "without encryption" not in line]
    return lines[-1][:200] if lines else ""


def _mark(cell: NotebookNode, comparison: Comparison, refusal: str | None = None) -> None:
    meta = cell.metadata.setdefault("twnb", {})
    meta["rerun"] = {
        "reproduced": comparison.reproduced,
        **({"why": comparison.reason} if comparison.reason else {}),
        **({"refused": refusal} if refusal else {}),
    }


def round_numbers(nb: NotebookNode) -> dict[str, int]:
    """Round id -> its number, in the order the notebook shows the Rounds (an exported notebook's
    `show` cells, or the Round outputs of a notebook in which Rounds ran)."""
    numbers: dict[str, int] = {}
    for cell in nb.cells:
        meta = cell.metadata.get("twnb") or {}
        ids = [meta.get("round_id")] if meta.get("cell") == "show" else _payload_ids(cell)
        for round_id in ids:
            if isinstance(round_id, str) and round_id not in numbers:
                numbers[round_id] = len(numbers) + 1
    return numbers


def _payload_ids(cell: NotebookNode) -> list[Any]:
    return [
        (output.get("data") or {})[MIME_TYPE].get("id")
        for output in cell.get("outputs") or []
        if isinstance((output.get("data") or {}).get(MIME_TYPE), dict)
    ]
