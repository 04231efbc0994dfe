"""Turning what was recorded during a run into an ExecutionResult (shared by both executors)."""

from __future__ import annotations

import dataclasses
import sys
from collections.abc import Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from twnb.kernel.capture.ansi import strip_ansi
from twnb.kernel.capture.capture import OutputRecorder
from twnb.kernel.capture.file_scan import FileChanges
from twnb.kernel.capture.image_artifacts import save_display_image
from twnb.kernel.capture.output_redaction import Redact, redact_error
from twnb.kernel.guard import GuardRefusal
from twnb.kernel.record import ExecutionError, ExecutionResult, ExecutionStatus, VariableChange

DISPLAY_TEXT_CHARS = 2000  # enough for a displayed DataFrame's text form


def traceback_text(stb: list[str]) -> str:
    """Plain traceback text: colour codes and IPython's ruler lines of dashes removed."""
    lines = strip_ansi("\n".join(stb)).splitlines()
    return "\n".join(line for line in lines if line.strip("-") or not line).strip("\n")


def with_refusals(
    status: ExecutionStatus, error: ExecutionError | None, refusals: list[GuardRefusal]
) -> tuple[ExecutionStatus, ExecutionError | None]:
    """The outcome of a run the runtime guard refused something in: "refused", whatever the code made
    of the refusal (it may have caught it and gone on), unless the user interrupted it (which ends the
    Round). The error keeps the traceback the code showed, if any."""
    if not refusals or status == "interrupted":
        return status, error
    message = "; ".join(dict.fromkeys(refusal.message for refusal in refusals))
    return "refused", ExecutionError("RuntimeGuardRefused", message, error.traceback if error else "")


SYS_EXIT_NOTE = "The code called sys.exit(); it stopped there and the kernel keeps running."


def late_refusal_note(refusal: GuardRefusal | str) -> str:
    """A refusal of a thread that generated code started, after that code had ended."""
    return f"A thread that earlier generated code started was refused after that code had ended: {refusal}"


def say_note(note: str, notes: list[str]) -> None:
    """A note the user must see now, not only in the record: in the cell (the executor's stderr, once
    the code's output is no longer recorded) and in the run's notes."""
    sys.stderr.write(f"twnb: {note}\n")
    sys.stderr.flush()
    notes.append(note)


def time_limit_notes(*, handler_restored: bool, unresponsive: bool) -> list[str]:
    """What the time limit's watchdog had to do, in either executor."""
    notes = []
    if handler_restored:
        notes.append(
            "The code replaced the SIGINT handler the time limit and the Interrupt button rely on; "
            "twnb put it back."
        )
    if unresponsive:
        notes.append(
            "The code did not respond to the interrupt at its time limit (a call blocked in C, or "
            "code that ignores interrupts): it ran on until that call returned."
        )
    return notes


def timed_out(limit: float | None, shown: str) -> ExecutionError:
    """The error of a run stopped at its time limit; `shown` is the traceback the code showed."""
    return ExecutionError("TimeoutError", f"The code was stopped after its time limit of {limit:g} s.", shown)


def _redacted_refusal(refusal: GuardRefusal, redact: Redact) -> GuardRefusal:
    """A refusal quotes the code's line and what it tried to run, which may carry a secret."""
    return dataclasses.replace(
        refusal,
        message=redact(refusal.message),
        source=redact(refusal.source),
        subject=redact(refusal.subject),
    )


def save_images(
    recorder: OutputRecorder,
    artifacts_dir: Path,
    execution_id: str,
    artifact_name: str | None = None,
    own_artifacts: Collection[str] | None = None,
) -> tuple[list[dict[str, Any]], list[str], list[str]]:
    """Save display (and result) images; return display summaries, saved paths and notes.

    Files are named `artifact_name.png` (then `-2`, `-3`, ...) when the caller gave a readable name,
    else after the execution id and the display's number. With `own_artifacts` (a replay: the files its
    conversation made so far) a file of that name left by anything else is replaced, not avoided, so
    the names do not depend on what an earlier run left in the folder."""
    summaries: list[dict[str, Any]] = []
    paths: list[str] = []
    notes: list[str] = []
    kept = None if own_artifacts is None else {str(Path(p).resolve()) for p in own_artifacts}

    def replaceable(path: Path) -> bool:
        resolved = str(path.resolve())
        return kept is not None and resolved not in kept and str(path) not in paths and resolved not in paths

    bundles = [o["data"] for o in recorder.displays]
    if recorder.result_data:
        bundles.append(recorder.result_data)
    for index, data in enumerate(bundles, start=1):
        saved: str | None = None
        try:
            stem = artifact_name or f"{execution_id}-display-{index}"
            path = save_display_image(data, artifacts_dir, stem, replaceable if kept is not None else None)
            if path is not None:
                saved = str(path)
                paths.append(saved)
        except (OSError, ValueError) as exc:
            notes.append(f"Display {index} holds an image that could not be saved: {exc}")
        if index <= len(recorder.displays):
            text = data.get("text/plain", "")
            if isinstance(text, list):
                text = "".join(text)
            summaries.append(
                {"mime_types": sorted(data), "text": str(text)[:DISPLAY_TEXT_CHARS], "artifact": saved}
            )
    return summaries, paths, notes


@dataclass(frozen=True)
class ImageFiles:
    """Where a run's display images are saved and how they are named (see `save_images`)."""

    artifacts_dir: Path
    artifact_name: str | None = None
    own_artifacts: Collection[str] | None = None


@dataclass
class RunTrace:
    """What was seen of one run: its outputs, the files it wrote, its variable delta, its duration."""

    execution_id: str
    code: str
    recorder: OutputRecorder
    file_changes: FileChanges
    variables: list[VariableChange]
    duration_s: float


@dataclass
class RunOutcome:
    """What one run came to: its status and error, the notes about it, the guard's refusals and
    sightings."""

    status: ExecutionStatus
    error: ExecutionError | None
    notes: list[str]
    refusals: list[GuardRefusal] = field(default_factory=list)
    sightings: list[dict[str, str]] = field(default_factory=list)


def build_result(
    trace: RunTrace,
    outcome: RunOutcome,
    images: ImageFiles,
    *,
    max_listed_files: int,
    redact: Redact | None = None,
) -> ExecutionResult:
    """The record of one run. `redact` (the session's) is applied to the error, which may quote the
    exception's message; the recorder's outputs were redacted as they came. Saved images are named
    after `images.artifact_name` when given (see `save_images`)."""
    recorder, file_changes, execution_id = trace.recorder, trace.file_changes, trace.execution_id
    error = outcome.error
    refusals = list(outcome.refusals)
    if redact is not None:
        error = redact_error(error, redact)
        refusals = [_redacted_refusal(refusal, redact) for refusal in refusals]
    displays, image_paths, image_notes = save_images(
        recorder, images.artifacts_dir, execution_id, images.artifact_name, images.own_artifacts
    )
    created = [str(p) for p in file_changes.created]
    modified = [str(p) for p in file_changes.modified]
    all_notes = [*outcome.notes, *image_notes, *file_changes.notes]
    listed = len(created) + len(modified)
    if listed > max_listed_files:
        all_notes.append(
            f"The code wrote {listed} files; only the first {max_listed_files} are listed as artifacts."
        )
        created = created[:max_listed_files]
        modified = modified[: max(0, max_listed_files - len(created))]
    for name in ("stdout", "stderr"):
        if recorder.streams[name].truncated:
            all_notes.append(
                f"{name} was {recorder.stream_total(name):,} characters; only its head and tail were kept."
            )
    result_text = recorder.result_data.get("text/plain")
    if isinstance(result_text, list):
        result_text = "".join(result_text)
    return ExecutionResult(
        execution_id=execution_id,
        code=trace.code,
        status=outcome.status,
        stdout=recorder.stream_text("stdout"),
        stderr=recorder.stream_text("stderr"),
        stdout_chars=recorder.stream_total("stdout"),
        stderr_chars=recorder.stream_total("stderr"),
        result=result_text,
        result_data=recorder.result_data,
        error=error,
        displays=displays,
        artifacts=[*image_paths, *created, *modified],
        files_created=created,
        files_modified=modified,
        variables=trace.variables,
        outputs=recorder.outputs(),
        duration_s=trace.duration_s,
        notes=all_notes,
        refusals=refusals,
        sightings=[
            {"kind": s["kind"], "subject": redact(s["subject"]) if redact else s["subject"]}
            for s in outcome.sightings
        ],
    )
