"""What `twnb export` does, without the argument parsing: conversation -> notebook (re-run on
request) or notebook -> conversation. Bad input comes back as one line in `ExportOutcome.error`."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twnb.config import resolve_settings
from twnb.replay.artifacts import visible_folder
from twnb.replay.errors import ReplayError
from twnb.replay.notebook_import import read_notebook
from twnb.session import load_conversation_and_session, redactor_for, rounds_folder, save_conversation_file

if TYPE_CHECKING:
    from nbformat import NotebookNode

    from twnb.config import Redactor, ResolvedSettings
    from twnb.replay.rerun import CellOutcome, RerunReport

_YAML = (".yaml", ".yml")


@dataclass
class ExportRequest:
    source: str
    out: str | None  # None: a notebook re-run as it is goes to NAME.rerun.ipynb beside it
    execute: bool = False
    include_failed: bool = True
    timeout: int = 600
    cwd: str | None = None
    strict_images: bool = False
    kernel_name: str | None = None
    connection_file: str | None = None  # a running kernel to re-run in (left running)
    force: bool = False  # replace an existing OUT (never the input)
    verify: bool = True  # verify the recorded code before it runs again (--no-verify: off)
    confine: bool = True  # a fresh kernel of this Python is a confined kernel (--no-confine: not)


@dataclass
class ExportOutcome:
    path: Path | None = None
    lines: list[str] = field(default_factory=list)  # what to tell the user when it worked
    error: str | None = None  # one line when it did not; nothing was written then
    rerun: RerunReport | None = None


def run_export(request: ExportRequest, progress: Callable[[str], None] = print) -> ExportOutcome:
    source = Path(request.source).expanduser()
    out = Path(request.out).expanduser() if request.out else None
    if not source.exists():
        return ExportOutcome(
            error=f"no such file: {source} (give a conversation YAML, an autosave folder or a notebook)"
        )
    rerun_as_it_is = source.suffix.lower() == ".ipynb" and request.execute
    if out is None and rerun_as_it_is:
        out = rerun_path(source)
    if out is None:
        return ExportOutcome(error=_NO_OUT)
    # A re-run's own earlier output is replaced by the next re-run: running --check twice must work.
    replaceable = request.force or (request.execute and is_rerun_output(out))
    refusal = overwrite_refusal(source, out, force=replaceable)
    if refusal is not None:
        return ExportOutcome(error=refusal)
    try:
        if rerun_as_it_is:
            return _rerun_notebook_as_it_is(request, source, out, progress)
        if source.suffix.lower() == ".ipynb":
            return _notebook_to_conversation(request, source, out)
        return _conversation_to_notebook(request, source, out, progress)
    except FileNotFoundError as error:
        return ExportOutcome(error=_one_line(error))
    except ValueError as error:  # ReplayError, a conversation file's located errors, SettingsError
        text = _one_line(error)
        return ExportOutcome(error=text if text.startswith(str(source)) else f"{source}: {text}")
    except OSError as error:
        return ExportOutcome(error=f"could not write {out}: {error.strerror or error}")


def overwrite_refusal(source: Path, out: Path, *, force: bool) -> str | None:
    """Why `out` may not be written, or None: it is the input (never, whatever `force`), or an existing
    file and `force` was not given."""
    if out.exists() and out.resolve() == source.resolve():
        return f"-o {out} is the input: name another file to write"
    if out.exists() and not force:
        return f"{out} exists: add --force to replace it, or name another file with -o"
    return None


def is_rerun_output(path: Path) -> bool:
    """Whether `path` is a notebook a re-run of twnb's wrote (its metadata holds the re-run's report,
    `metadata.twnb.rerun`): one re-run's output may replace another's without --force."""
    if path.suffix.lower() != ".ipynb" or not path.is_file():
        return False
    try:
        with path.open(encoding="utf-8") as file:
            metadata = json.load(file).get("metadata")
    except (OSError, ValueError, AttributeError):
        return False
    twnb = metadata.get("twnb") if isinstance(metadata, dict) else None
    report = twnb.get("rerun") if isinstance(twnb, dict) else None
    return isinstance(report, dict) and "reproduced" in report and "cells" in report


def _notebook_to_conversation(request: ExportRequest, source: Path, out: Path) -> ExportOutcome:
    if out.suffix.lower() not in _YAML:
        raise ReplayError(
            f"a notebook is read back into a conversation: -o must name a .yaml file, got {out}"
        )
    imported = read_notebook(source)
    redactor = _redactor()
    save_conversation_file(imported.conversation, out, redact=redactor.redact_data)
    rounds = len(imported.conversation.rounds)
    where = "metadata" if imported.source == "metadata" else "Round outputs"
    return ExportOutcome(
        path=out, lines=[f"Wrote {rounds} Round{_s(rounds)} to {out} (from the notebook's {where})."]
    )


_NO_OUT = (
    "-o is needed: CONV.yaml -o OUT.ipynb writes a notebook, NOTEBOOK.ipynb -o CONV.yaml reads one back; "
    "NOTEBOOK.ipynb --check re-runs it as it is (into NAME.rerun.ipynb)"
)


def rerun_path(notebook: Path) -> Path:
    """Where a notebook re-run as it is goes unless -o says otherwise: `NAME.rerun.ipynb` beside it."""
    return notebook.with_name(f"{notebook.stem}.rerun.ipynb")


def _rerun_notebook_as_it_is(
    request: ExportRequest, source: Path, out: Path, progress: Callable[[str], None]
) -> ExportOutcome:
    # lazy: `twnb export NOTEBOOK -o CONV.yaml` loads none of these (bench/bench_export_startup.py):
    # nbformat with its validator (~1.3 s, 250 modules; only a direction that writes a notebook, which
    # write_notebook validates, needs it), twnb.replay.export, twnb.replay.notebook_rerun and
    # twnb.replay.rerun (nbformat, kernels), twnb.confine (~35 ms), twnb.replay.name_sources (~3 ms),
    # recorded_code_check of twnb.session (~120 modules)
    import nbformat

    from twnb.replay.export import write_notebook
    from twnb.replay.name_sources import plugins_called
    from twnb.replay.notebook_rerun import plan_rerun

    if out.suffix.lower() != ".ipynb":
        raise ReplayError(
            f"a notebook is re-run into a notebook: -o must name a .ipynb file, got {out} (to read the "
            "conversation back into a .yaml file, leave out --execute and --check)"
        )
    cwd, attached = _where_to_run(request, source.parent)
    imported = read_notebook(source)  # a notebook without twnb data is refused here, in one line
    plan = plan_rerun(nbformat.read(source, as_version=4), imported.conversation)
    outcome = ExportOutcome(path=out)
    needed = plugins_called(imported.conversation)
    outcome.rerun = _rerun(request, plan.notebook, plan.pieces, cwd, attached, progress, needed)
    write_notebook(plan.notebook, out)
    cells = len(plan.pieces)
    added = (
        f" ({plan.inserted} of them the code the Rounds ran, added after their %%taskweaver cells)"
        if plan.inserted
        else ""
    )
    outcome.lines.append(f"Wrote {out}: {source.name} re-run as it is, {cells} code cell{_s(cells)}{added}.")
    outcome.lines += _rerun_lines(outcome.rerun, out)
    return outcome


def _where_to_run(request: ExportRequest, default: Path) -> tuple[Path, Path | None]:
    """The folder a fresh kernel runs in, and the connection file of a running kernel to use instead."""
    cwd = Path(request.cwd).expanduser() if request.cwd else default
    if request.execute and not cwd.is_dir():
        raise ReplayError(f"--cwd {cwd} is not a folder; give the folder the code should run in")
    attached = Path(request.connection_file).expanduser() if request.connection_file else None
    if attached is not None and not request.execute:
        raise ReplayError("--existing names the kernel to re-run in: add --execute or --check")
    if attached is not None and not attached.is_file():
        raise ReplayError(
            f"no connection file at {attached}; `jupyter --runtime-dir` holds running kernels' files"
        )
    return cwd, attached


def _confined_argv(
    request: ExportRequest, attached: Path | None, progress: Callable[[str], None], cwd: Path
) -> list[str] | None:
    """The confined kernel's command when the re-run starts this Python's kernel (in `cwd`) and may
    confine it; said once when this system cannot, or when a `.env` it could come to read holds the
    model's key."""
    if not request.confine or attached is not None or request.kernel_name:
        return None
    from twnb.confine import abi_version, confined_kernel_argv, dotenv_key_notice, unavailable_reason

    reason = unavailable_reason(abi_version())
    if reason is not None:
        progress(f"Running unconfined: {reason}; the code can do whatever you can.")
        return None
    notice = dotenv_key_notice(cwd, os.environ)
    if notice is not None:
        progress(f"Confined kernel: {notice}")
    return confined_kernel_argv()


def _rerun(
    request: ExportRequest,
    nb: NotebookNode,
    pieces: dict[int, Any],
    cwd: Path,
    attached: Path | None,
    progress: Callable[[str], None],
    plugins: list[str],
) -> RerunReport:
    """Run `pieces` of `nb` (verified first) once the plugins the settings describe are bound in the
    kernel (`plugins`: those the code calls, named when still missing), record the report in its
    metadata, and return it."""
    from twnb.replay.rerun import RerunOptions, rerun_notebook

    redactor = _redactor()
    where = (
        f"the running kernel of {attached} (in its own working directory)"
        if attached
        else f"a fresh kernel in {cwd}"
    )
    kernel_argv = _confined_argv(request, attached, progress, cwd)
    if kernel_argv is not None:
        where = f"a fresh confined kernel in {cwd}"
    progress(f"Re-running {len(pieces)} code cell{_s(len(pieces))} in {where}")
    options = RerunOptions(
        timeout=request.timeout,
        strict_images=request.strict_images,
        redact=redactor.redact_data,
        check=_check(request),
        prepare=_plugin_binding(plugins),
        kernel_name=request.kernel_name,
        connection_file=attached,
        kernel_argv=kernel_argv,
    )
    report = rerun_notebook(
        nb,
        pieces,
        cwd=cwd,
        options=options,
        progress=lambda done, total, cell: progress(redactor.redact(_progress_line(done, total, cell))),
    )
    nb.metadata.setdefault("twnb", {})["rerun"] = redactor.redact_data(report.to_dict())
    return report


def _conversation_to_notebook(
    request: ExportRequest, source: Path, out: Path, progress: Callable[[str], None]
) -> ExportOutcome:
    from twnb.replay.export import build_notebook, write_notebook
    from twnb.replay.name_sources import plugins_called

    if out.suffix.lower() != ".ipynb":
        raise ReplayError(
            f"a conversation is written as a notebook: -o must name a .ipynb file, got {out} "
            "(to read a notebook back, give the notebook as SOURCE)"
        )
    source_dir = source if source.is_dir() else source.parent
    cwd, attached = _where_to_run(request, source_dir)
    conversation, session_id = load_conversation_and_session(source)
    found = _autosave_found(source, len(conversation.rounds), session_id)
    redactor, folder = _redactor(), _artifacts_folder()
    result = build_notebook(
        conversation,
        out,
        source_dir=source_dir,
        include_failed=request.include_failed,
        redact=redactor.redact_data,
        artifacts_folder=folder,
        artifact_folders=_settings_folders(),
    )
    outcome = ExportOutcome(path=out, lines=[found] if found else [])
    needed = plugins_called(conversation)
    outside = [name for name in result.outside if not (request.execute and name.name in needed)]
    outcome.lines += [f"Before it can re-run: {name.sentence()}." for name in outside]
    if request.execute:  # the plugins are bound in the kernel first, and said there when missing
        outcome.rerun = _rerun(request, result.notebook, result.pieces, cwd, attached, progress, needed)
    write_notebook(result.notebook, out)
    cells = len(result.pieces)
    outcome.lines.append(
        f"Wrote {out}: {result.rounds} Round{_s(result.rounds)}, {cells} code cell{_s(cells)}."
    )
    if result.copied_artifacts:
        outcome.lines.append(
            f"Copied {len(result.copied_artifacts)} artifact{_s(len(result.copied_artifacts))} "
            f"into {out.parent / folder}."
        )
    written = _written_by_rerun(result.missing_artifacts, cwd) if outcome.rerun is not None else {}
    outcome.lines += [
        f"Artifact written by the re-run, found at {written[p]}."
        if p in written
        else f"Artifact not found (its link is left as it was): {p}"
        for p in result.missing_artifacts
    ]
    outcome.lines += [
        f"Artifact outside the conversation's folders, not copied: {p}" for p in result.refused_artifacts
    ]
    if result.cut_outputs:
        outcome.lines.append(
            f"{len(result.cut_outputs)} large output{_s(len(result.cut_outputs))} cut in the "
            f"notebook; the full text is in {out.parent / folder}."
        )
    if outcome.rerun is not None:
        outcome.lines += [redactor.redact(line) for line in _rerun_lines(outcome.rerun, out)]
    return outcome


def _written_by_rerun(missing: list[str], cwd: Path) -> dict[str, Path]:
    """The artifacts missing when the notebook was built that the re-run then wrote (its code ran in
    `cwd`, where a relative path is read): path as recorded -> where it is now."""
    found: dict[str, Path] = {}
    for recorded in missing:
        path = Path(recorded).expanduser()
        where = path if path.is_absolute() else cwd / path
        if where.is_file():
            found[recorded] = where
    return found


def _plugin_binding(needed: list[str]) -> str:
    """Code for the re-run's kernel: bind the plugins the settings of this folder describe (as a
    session does before a Round), leaving what it has to say in `__twnb_prepared`."""
    return (
        "from twnb.session import bind_rerun_plugins as __twnb_bind\n"
        f"__twnb_prepared = __twnb_bind(get_ipython(), workdir={str(Path.cwd())!r}, needed={needed!r})\n"
        "del __twnb_bind\n"
    )


def _rerun_lines(report: RerunReport, out: Path) -> list[str]:
    lines = [*report.notes, report.summary() + "."]
    lines += [f"  differs: cell {c.index + 1} ({c.where}): {c.comparison.reason}" for c in report.differing]
    lines += [
        f"  not run, verification refused it: cell {c.index + 1} ({c.where}): {c.refusal}"
        for c in report.refused
    ]
    lines += [
        f"  stopped, the runtime guard refused what it did: cell {c.index + 1} ({c.where}): {c.guard_refusal}"
        for c in report.guard_refused
    ]
    lines += [
        f"  refused by the confined kernel: cell {c.index + 1} ({c.where}): {c.confine_refusal}"
        for c in report.confine_refused
    ]
    if report.refused:
        lines.append(
            "Refused cells were left as recorded; --no-verify runs them unchecked (only code you trust)."
        )
    elif report.guard_refused:
        lines.append("--no-verify runs them unguarded (only code you trust).")
    if report.stopped:
        lines.append(f"The re-run stopped: {report.stopped}; the notebook so far is in {out}.")
    if report.quarantined:
        lines.append(
            f"The confined kernel left {len(report.quarantined)} thing{_s(len(report.quarantined))} a "
            "later program would obey or load, quarantined at its end (the check fails):"
        )
        lines += [f"  {line}" for line in report.quarantined]
    return lines


def _progress_line(done: int, total: int, cell: CellOutcome) -> str:
    if cell.refusal is not None:
        verdict = "not run (verification refused it)"
    elif cell.guard_refusal is not None:
        verdict = "stopped (the runtime guard refused what it did)"
    elif cell.confine_refusal is not None:
        verdict = "stopped (the confined kernel refused what it did)"
    else:
        verdict = "reproduced" if cell.comparison.reproduced else f"differs ({cell.comparison.reason})"
    return f"[{done}/{total}] {cell.where}, cell {cell.index + 1}: {verdict}"


def _check(request: ExportRequest) -> Callable[[str], str | None] | None:
    """Verification of the recorded code before it runs again, under the current folder's settings."""
    from twnb.session import recorded_code_check

    resolved = _settings()
    return recorded_code_check(resolved.settings if resolved is not None else None, verify=request.verify)


def _settings() -> ResolvedSettings | None:
    """The settings of the current folder, or None when they do not resolve (export needs no model)."""
    try:
        return resolve_settings(workdir=Path.cwd())
    except ValueError:
        return None


def _redactor() -> Redactor:
    return redactor_for(_settings())


def _autosave_found(source: Path, rounds: int, session_id: str | None) -> str | None:
    """What an autosave folder given as SOURCE held (a session's folder is read from its `rounds`)."""
    if not source.is_dir():
        return None

    session = f" of session {session_id}" if session_id else ""
    return f"Read {rounds} autosaved Round{_s(rounds)}{session} from {rounds_folder(source)}."


def _settings_folders() -> list[Path]:
    """The session and artifacts folders the current folder's settings name (artifacts may live there)."""
    resolved = _settings()
    if resolved is None:
        return []
    plain = resolved.settings
    folders = [Path(plain.session_dir).expanduser(), Path(plain.artifacts_dir).expanduser()]
    return [f if f.is_absolute() else Path.cwd() / f for f in folders]


def _artifacts_folder() -> str:
    resolved = _settings()
    return visible_folder(resolved.settings.artifacts_dir if resolved is not None else None)


def _s(count: int) -> str:
    return "" if count == 1 else "s"


def _one_line(error: BaseException) -> str:
    return " ".join(str(error).split())
