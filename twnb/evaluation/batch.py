"""`twnb eval`: every case against every model, `--repeat` times, `-j` at a time; then the results.

The output folder holds one folder per model and in it one per case (`<case>.run-2`, ... for the
repeats), each with the case's notebook, conversation YAML, `result.yaml`, data files and kernel log;
and at the top `results.csv`, `report.md` and `report.html`, made from every `result.yaml` found
there. A second run into the same folder (another model, or `--resume` after an interruption) adds to
the table instead of replacing it; a run of the same case and model is replaced unless `--resume`
finds it already scored or skipped.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path

from twnb.base import now_iso
from twnb.confine import abi_version, confined_kernel_argv, unavailable_reason
from twnb.evaluation.case_file import CaseError, EvalCase, case_name, find_cases
from twnb.evaluation.case_result import RESULT_FILE, CaseResult, read_result, write_result
from twnb.evaluation.case_run import DEFAULT_MAX_ROUNDS, RunFolderError, fresh_folder, run_case
from twnb.evaluation.model_access import AGENT_CASSETTE, JUDGE_CASSETTE, ModelAccess, ModelAccessError
from twnb.evaluation.report import RunEntry, report_html, report_markdown
from twnb.evaluation.results_csv import write_results_csv
from twnb.evaluation.run_spec import CaseRun
from twnb.evaluation.score_table import ScoreTable
from twnb.evaluation.server_watch import (
    MAX_CONNECT_FAILURES,
    ONE_AT_A_TIME,
    RunGate,
    could_not_connect,
    stopped_line,
    stream_was_cut,
)
from twnb.llm import CassetteError, load_cassette

__all__ = [
    "EvalError",
    "EvalOptions",
    "EvalOutcome",
    "collect_results",
    "model_folder",
    "run_evaluation",
    "write_result_files",
]

RESULTS_CSV = "results.csv"
REPORT_MD = "report.md"
REPORT_HTML = "report.html"


class EvalError(RuntimeError):
    """The evaluation could not start (bad paths or options, no model); the message says what to do."""


@dataclass
class EvalOptions:
    paths: list[Path]
    out_dir: Path = Path("twnb-eval")
    models: list[str] = field(default_factory=list)  # none: the configured model (or the recorded ones)
    user_model: str | None = None
    evaluator_model: str | None = None
    repeat: int = 1
    jobs: int = 1
    resume: bool = False
    timeout: int = 600
    max_rounds: int = DEFAULT_MAX_ROUNDS
    record: bool = False
    replay: Path | None = None
    confine: bool = True  # each case's kernel confined (twnb/confine) where the system can


@dataclass
class EvalOutcome:
    ran: list[CaseResult]  # this invocation's runs
    resumed: list[CaseResult]  # found already done (--resume)
    all_results: list[CaseResult]  # everything in the output folder, for the table
    table: ScoreTable
    csv: Path
    report_md: Path
    report_html: Path

    @property
    def errors(self) -> list[CaseResult]:
        return [result for result in self.ran if result.status == "error"]

    @property
    def invalid(self) -> list[CaseResult]:
        return [result for result in self.ran if result.status == "invalid"]

    def summary(self) -> str:
        """How many runs of this invocation came to what, every one counted: `5 runs: 3 scored, 1
        skipped, 1 invalid` (and those --resume kept)."""
        counts: dict[str, int] = {}
        for result in self.ran:
            counts[result.status] = counts.get(result.status, 0) + 1
        parts = [f"{counts[s]} {s}" for s in ("scored", "skipped", "error", "invalid") if counts.get(s)]
        if self.resumed:
            parts.append(f"{len(self.resumed)} already done (--resume)")
        total = len(self.ran) + len(self.resumed)
        return f"{total} run{'s' if total != 1 else ''}: " + (", ".join(parts) or "none")


def model_folder(model: str) -> str:
    """A model's folder name: its name with anything but letters, digits, `.`, `_` and `-` as `_`."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("._") or "model"


def _run_folder(case: EvalCase, run: int) -> str:
    return case.name if run == 1 else f"{case.name}.run-{run}"


def run_evaluation(options: EvalOptions, progress: Callable[[str], None] = print) -> EvalOutcome:
    """Run the evaluation `options` describe; an EvalError before anything runs when it cannot."""
    if options.repeat < 1 or options.jobs < 1:
        raise EvalError("--repeat and -j take a whole number, 1 or more")
    try:
        cases, broken = find_cases(list(options.paths))
        access = ModelAccess.create(replay_root=options.replay, record=options.record)
    except (CaseError, ModelAccessError) as error:
        raise EvalError(str(error)) from error
    _refuse_duplicate_names(cases, broken)
    models = list(dict.fromkeys(options.models)) or _default_models(access)
    _refuse_shared_folders(models)
    out = options.out_dir.resolve()
    plan = [
        CaseRun(
            case,
            model,
            options.user_model or model,
            options.evaluator_model or model,
            run,
            Path(model_folder(model)) / _run_folder(case, run),
        )
        for model in models
        for case in cases
        for run in range(1, options.repeat + 1)
    ]
    _check_folders(out, plan)
    resumed = [r for spec in plan if options.resume and (r := _done(out / spec.relative)) is not None]
    done_folders = {(r.model, r.case, r.run) for r in resumed}
    to_run = [spec for spec in plan if (spec.model, spec.case.name, spec.run) not in done_folders]
    if to_run:
        try:
            access.check_live()
        except ModelAccessError as error:
            raise EvalError(str(error)) from error
    out.mkdir(parents=True, exist_ok=True)
    ran = [_broken_case(out, model, path, why) for model in models for path, why in broken]
    for result in ran:
        progress(f"{result.model} · {result.case}: invalid: {result.failures[0]}")
    kernel_argv = _confined_argv(progress) if options.confine and to_run else None
    progress(_headline(len(cases), models, options, len(to_run), len(resumed), access, out))
    if len(models) > 1 and not (options.user_model and options.evaluator_model):
        progress(
            "      each model plays its own virtual user and judges itself; give --user-model and "
            "--evaluator-model for one judge of all"
        )
    try:
        ran += _run_all(to_run, out, access, options, progress, kernel_argv)
    except KeyboardInterrupt:
        write_result_files(out)  # what finished is in the table; --resume runs the rest
        raise
    return _write_results(out, ran, resumed)


def _confined_argv(progress: Callable[[str], None]) -> list[str] | None:
    """The confined kernel's command for every case's kernel; None, said once, where this system
    cannot confine one."""
    reason = unavailable_reason(abi_version())
    if reason is not None:
        progress(f"twnb eval: running unconfined: {reason}; the agent's code can do whatever you can.")
        return None
    return confined_kernel_argv()


def _default_models(access: ModelAccess) -> list[str]:
    if access.replay_root is not None:
        recorded = sorted(
            folder
            for folder in access.replay_root.iterdir()
            if folder.is_dir() and any(folder.glob(f"*/{JUDGE_CASSETTE}"))
        )
        if not recorded:
            raise EvalError(
                f"--replay {access.replay_root}: no recorded runs in it (MODEL/CASE/{JUDGE_CASSETTE}); "
                "record some with --record -o DIR"
            )
        return [_recorded_model(folder) for folder in recorded]
    model = access.resolved.settings.model
    if not model:
        raise EvalError(
            "Which model? Give --model NAME (several to compare them), or set TWNB_MODEL or llm.model "
            "in twnb.yaml."
        )
    return [model]


def _recorded_model(folder: Path) -> str:
    """The model a recorded model folder holds (its name may have been made a folder name): the
    model its agent's cassettes recorded, else the folder's name."""
    for path in sorted(folder.glob(f"*/{AGENT_CASSETTE}")):
        try:
            models = [entry.model for entry in load_cassette(path) if entry.model]
        except CassetteError:
            continue
        if models:
            return models[0]
    return folder.name


def _refuse_duplicate_names(cases: list[EvalCase], broken: list[tuple[Path, str]]) -> None:
    seen: dict[str, Path] = {}
    for name, path in [(case.name, case.path) for case in cases] + [(case_name(p), p) for p, _ in broken]:
        if name in seen:
            raise EvalError(
                f"two cases are named {name} ({seen[name]} and {path}); each case's results go in a "
                "folder of its name: rename one"
            )
        seen[name] = path


def _refuse_shared_folders(models: list[str]) -> None:
    folders: dict[str, str] = {}
    for model in models:
        other = folders.setdefault(model_folder(model), model)
        if other != model:
            raise EvalError(
                f"the models {other} and {model} would share the folder {model_folder(model)}: compare them "
                "in two runs with different -o folders"
            )


def _check_folders(out: Path, plan: list[CaseRun]) -> None:
    """Refuse, before anything runs, to write where files twnb eval did not make are in the way."""
    for spec in plan:
        folder = out / spec.relative
        if folder.is_dir() and any(folder.iterdir()) and read_result(folder) is None:
            raise EvalError(
                f"{folder} holds files twnb eval did not write (no {RESULT_FILE}): choose another -o folder"
            )


def _done(folder: Path) -> CaseResult | None:
    result = read_result(folder)
    return result if result is not None and result.status in ("scored", "skipped") else None


def _broken_case(out: Path, model: str, path: Path, why: str) -> CaseResult:
    """A case file that could not be read: an invalid row of its own, so the table shows it."""
    name = case_name(path)
    result = CaseResult(
        case=name, case_path=str(path), model=model, user_model="", evaluator_model="",
        status="invalid", failures=[why], started_at=now_iso(),
    )  # fmt: skip
    folder = out / model_folder(model) / name
    fresh_folder(folder)
    write_result(folder, result)
    return result


def _headline(
    cases: int,
    models: list[str],
    options: EvalOptions,
    runs: int,
    resumed: int,
    access: ModelAccess,
    out: Path,
) -> str:
    how = (
        "replaying recorded replies" if not access.live else ("live, recording" if access.record else "live")
    )
    parts = [
        f"twnb eval: {_count(cases, 'case')} x {_count(len(models), 'model')} x "
        f"{_count(options.repeat, 'run')}: {runs} to run",
    ]
    if resumed:
        parts.append(f"{resumed} already done (--resume)")
    parts.append(f"{how}, {options.jobs} at a time -> {out}")
    return ", ".join(parts)


def _count(number: int, what: str) -> str:
    return f"{number} {what}{'s' if number != 1 else ''}"


def _run_all(
    plan: list[CaseRun],
    out: Path,
    access: ModelAccess,
    options: EvalOptions,
    progress: Callable[[str], None],
    kernel_argv: list[str] | None,
) -> list[CaseResult]:
    lock = threading.Lock()
    stop = threading.Event()
    gate = RunGate(options.jobs)
    numbers = {_key(spec): number for number, spec in enumerate(plan, start=1)}
    no_connection: list[str] = []  # the server's URL, once per run in a row that could not connect
    told: list[str] = []  # what a case's kernel start says for the whole evaluation, once

    def say(spec: CaseRun, text: str) -> None:
        with lock:
            progress(f"[{numbers[_key(spec)]}/{len(plan)}] {spec.label}: {text}")

    def tell_once(text: str) -> None:
        with lock:
            if not told:
                told.append(text)
                progress(f"twnb eval: confined kernel: {text}")

    def attempt(spec: CaseRun) -> CaseResult:
        say(spec, "started")
        try:
            return run_case(
                spec,
                out,
                access,
                timeout=options.timeout,
                max_rounds=options.max_rounds,
                progress=say,
                stop=stop,
                kernel_argv=kernel_argv,
                tell_once=tell_once,
            )
        except RunFolderError as error:  # checked before the start; another process got there since
            return CaseResult(
                spec.case.name, str(spec.case.path), spec.model, spec.user_model, spec.evaluator_model,
                spec.run, status="error", failures=[str(error)],
            )  # fmt: skip

    def one(spec: CaseRun) -> CaseResult | None:
        """The run's result; None when it was not started (the server could not be reached)."""
        for _ in range(2):
            with gate.slot() as may_start:
                if not may_start:
                    return None
                side_by_side = gate.limit > 1
                result = attempt(spec)
            if not (side_by_side and stream_was_cut(result)):
                break
            if gate.one_at_a_time():
                with lock:
                    progress(f"twnb eval: {ONE_AT_A_TIME}")
        _watch_connection(result)
        return result

    def _watch_connection(result: CaseResult) -> None:
        url = could_not_connect(result)
        with lock:
            if url is None:
                if result.status != "skipped":  # a skipped run never talked to the server
                    no_connection.clear()
                return
            no_connection.append(url)
            if len(no_connection) >= MAX_CONNECT_FAILURES:
                gate.halt()

    if options.jobs == 1:
        outcomes = [one(spec) for spec in plan]
    else:
        outcomes = []
        pool = ThreadPoolExecutor(max_workers=options.jobs, thread_name_prefix="twnb-eval")
        try:
            futures = [pool.submit(one, spec) for spec in plan]
            outcomes.extend(future.result() for future in as_completed(futures))
        except KeyboardInterrupt:
            # Runs not started are dropped; those running end after the cell they are in.
            stop.set()
            gate.halt()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    results = [result for result in outcomes if result is not None]
    if gate.halted:
        progress(stopped_line(no_connection[-1], len(outcomes) - len(results)))
    order = {_key(spec): i for i, spec in enumerate(plan)}
    return sorted(results, key=lambda r: order.get((r.model, r.case, r.run), len(order)))


def _key(spec: CaseRun) -> tuple[str, str, int]:
    return spec.model, spec.case.name, spec.run


def _write_results(out: Path, ran: list[CaseResult], resumed: list[CaseResult]) -> EvalOutcome:
    entries, csv_path, md, page = write_result_files(out)
    results = [entry.result for entry in entries]
    return EvalOutcome(ran, resumed, results, ScoreTable.of(results), csv_path, md, page)


def write_result_files(out: Path) -> tuple[list[RunEntry], Path, Path, Path]:
    """results.csv, report.md and report.html from every run's result in `out`."""
    entries = collect_results(out)
    csv_path = write_results_csv(out / RESULTS_CSV, [(e.result, e.folder) for e in entries])
    md = out / REPORT_MD
    md.write_text(report_markdown(entries, out_dir=out), encoding="utf-8")
    page = out / REPORT_HTML
    page.write_text(report_html(entries, out_dir=out), encoding="utf-8")
    return entries, csv_path, md, page


def collect_results(out: Path) -> list[RunEntry]:
    """Every run's result in `out` (model folder / run folder / result.yaml), in a stable order."""
    entries = []
    for path in sorted(out.glob(f"*/*/{RESULT_FILE}")):
        result = read_result(path.parent)
        if result is not None:
            entries.append(RunEntry(result, path.parent.relative_to(out).as_posix()))
    return sorted(entries, key=lambda e: (e.result.model, e.result.case, e.result.run))
