"""One run of one case against one model: its folder, its notebook, its conversation, its verdicts.

1. The run's folder is made afresh (an earlier run of the same case and model is replaced), the case's
   data files are copied into it, and `result.yaml` says "running".
2. A case twnb cannot run (case_settings.py) is recorded as skipped, with why, and nothing starts.
   The case's `pre_command` lines run next, as TaskWeaver runs them (pre_command.py).
3. A fresh kernel runs the notebook: `%load_ext twnb` and the case's settings, then one `%%taskweaver`
   cell per request of the virtual user, until it sends the stop keyword, a Round fails, or the Rounds
   allowed are used up; then `%taskweaver save conversation.yaml`.
4. Each scoring point is judged, by its `eval_code` or by the evaluator; the verdicts are added to the
   notebook as a last Markdown cell and to `result.yaml`.
"""

from __future__ import annotations

import shutil
import threading
import time
import traceback
from collections.abc import Callable
from pathlib import Path

from twnb.base import now_iso
from twnb.confine import dotenv_key_notice
from twnb.evaluation.case_file import EvalCase, ScoringPoint
from twnb.evaluation.case_notebook import CaseNotebook, KernelFailure
from twnb.evaluation.case_result import CaseResult, read_result, write_result
from twnb.evaluation.case_settings import CaseSetup, case_setup, setting_lines
from twnb.evaluation.code_prefix import prefix_setup_lines
from twnb.evaluation.eval_code import run_eval_code
from twnb.evaluation.evaluator import ROLE as EVALUATOR_ROLE
from twnb.evaluation.evaluator import Evaluator, Verdict
from twnb.evaluation.model_access import CONVERSATION_FILE, ModelAccess, ModelAccessError
from twnb.evaluation.model_calls import ModelCaller, Spend
from twnb.evaluation.notebook_text import intro_markdown, verdicts_markdown
from twnb.evaluation.pre_command import run_pre_commands
from twnb.evaluation.run_spec import CaseRun
from twnb.evaluation.virtual_user import ROLE as USER_ROLE
from twnb.evaluation.virtual_user import VirtualUser
from twnb.llm import LLMError

__all__ = ["RunFolderError", "fresh_folder", "run_case"]

DEFAULT_MAX_ROUNDS = 5  # TaskWeaver's virtual_user.max_rounds default
TRACEBACK_FILE = "traceback.txt"


class RunFolderError(RuntimeError):
    """The run's folder holds files twnb eval did not write: they are never deleted."""


class RunStopped(RuntimeError):
    """The evaluation was interrupted (Ctrl-C) while this run went on in a thread of its own."""


Progress = Callable[[CaseRun, str], None]


def run_case(
    spec: CaseRun,
    out_dir: Path,
    access: ModelAccess,
    *,
    timeout: int = 600,
    max_rounds: int = DEFAULT_MAX_ROUNDS,
    progress: Progress = lambda spec, text: None,
    stop: threading.Event | None = None,
    kernel_argv: list[str] | None = None,
    tell_once: Callable[[str], None] = lambda line: None,
) -> CaseResult:
    """Run `spec` into `out_dir / spec.relative` and return (and save) its result. Never raises for
    what goes wrong inside the run: that is the result's status `error` with its failures. `stop`, once
    set (Ctrl-C while runs go on in threads), ends the run before its next cell or scoring point.
    `kernel_argv` starts the case's kernel another way (the confined kernel's launcher). `tell_once`:
    a line about the kernel's start that the whole evaluation says once, however many runs tell it
    (a `.env` the confined kernel could come to read holds the model's key)."""
    started = time.monotonic()
    folder = out_dir / spec.relative
    case = spec.case
    result = CaseResult(
        case=case.name,
        case_path=str(case.path),
        model=spec.model,
        user_model=spec.user_model,
        evaluator_model=spec.evaluator_model,
        run=spec.run,
        max_score=case.max_score,
        started_at=now_iso(),
    )
    fresh_folder(folder)
    setup = case_setup(case, confined=kernel_argv is not None)
    result.notes = list(setup.notes)
    for warning in setup.warnings:
        progress(spec, f"note: {warning}")
    if setup.skip_reasons:
        result.status = "skipped"
        result.skip_reasons = setup.skip_reasons
        result = _finish(folder, result, started, access)
        progress(spec, "skipped: " + "; ".join(result.skip_reasons))
        return result
    write_result(folder, result)
    try:
        for command in run_pre_commands(case, folder, timeout, access.redactor.redact):
            result.notes.append(command.note())
            progress(spec, command.note())
        _copy_data_files(case, folder)
        _converse_and_judge(
            spec,
            folder,
            access,
            setup,
            result,
            timeout,
            max_rounds,
            progress,
            stop or threading.Event(),
            kernel_argv,
            tell_once,
        )
    except RunStopped:
        result.status = "error"
        result.failures.append(f"interrupted (Ctrl-C) after {len(result.turns)} Rounds")
    except (KernelFailure, ModelAccessError, FileNotFoundError) as error:
        result.status = "error"
        result.failures.append(str(error))
    except LLMError as error:
        result.status = "error"
        result.failures.append(f"the virtual user's model failed: {error}")
    except Exception as error:  # a fault of twnb eval itself: this run is lost, not the others
        result.status = "error"
        result.failures.append(
            f"twnb eval failed unexpectedly: {type(error).__name__}: {error} (traceback in {TRACEBACK_FILE})"
        )
        (folder / TRACEBACK_FILE).write_text(access.redactor.redact(traceback.format_exc()), encoding="utf-8")
    result = _finish(folder, result, started, access)
    if result.status == "scored":
        progress(
            spec, f"scored {_number(result.score)} of {_number(result.max_score)} in {result.seconds:.1f} s"
        )
    else:  # one line, however many lines a failure's text has
        progress(spec, f"{result.status}: " + "; ".join(" ".join(f.split()) for f in result.failures))
    return result


def _converse_and_judge(
    spec: CaseRun,
    folder: Path,
    access: ModelAccess,
    setup: CaseSetup,
    result: CaseResult,
    timeout: int,
    max_rounds: int,
    progress: Progress,
    stop: threading.Event,
    kernel_argv: list[str] | None,
    tell_once: Callable[[str], None],
) -> None:
    case = spec.case
    settings = setup.settings
    # The prefix's hook goes in before twnb's own, so twnb's guard does not count its file as the code's.
    prefix = prefix_setup_lines(setup.code_prefix) if setup.code_prefix else []
    env = access.agent_environment(spec.model, spec.relative, confined=kernel_argv is not None)
    # the launcher says it in the kernel's log; the run's record and the terminal (once) say it too
    notice = dotenv_key_notice(folder, env) if kernel_argv is not None else None
    if notice is not None:
        result.notes.append(f"Confined kernel: {notice}")
        tell_once(notice)
    client = access.judge_client(folder, spec.relative)
    user = ModelCaller(client, spec.user_model, USER_ROLE, access.prices)
    judge = ModelCaller(client, spec.evaluator_model, EVALUATOR_ROLE, access.prices)
    virtual_user = VirtualUser(user, case.task_description)

    def said(line: str) -> None:  # about the kernel's start and end: in the notes and on the terminal
        result.notes.append(line)
        progress(spec, line)

    notebook = CaseNotebook(folder, f"{case.name}.ipynb", env, timeout, kernel_argv, said)
    limit = case.max_rounds or max_rounds
    try:
        # Asked before the kernel starts: a server that is down fails the run at once.
        request = virtual_user.first_request()
        result.notebook = notebook.path.name
        with notebook:
            notebook.add_markdown(intro_markdown(spec, settings, result.notes, access.redactor.redact))
            notebook.run_setup("\n".join([*prefix, "%load_ext twnb", *setting_lines(settings)]))
            while not virtual_user.is_done(request):
                _check(stop)
                # The request becomes a cell of a saved notebook: no secret may go there.
                turn = notebook.ask(access.redactor.redact(request))
                result.turns.append(turn)
                # from the record outside the kernel: what the Round's code cannot forge or hide
                result.notes.extend(
                    f"Round {len(result.turns)}: {line}" for line in notebook.refused_starts()
                )
                progress(spec, f"Round {len(result.turns)} {turn.state} ({turn.seconds:.1f} s)")
                if turn.failed:
                    result.failures.append(f"Round {len(result.turns)} {turn.state}: {turn.failure}")
                    virtual_user.agent_failed(turn.failure or turn.state)
                    break
                request = virtual_user.answer(turn.reply_for_user(case.verbose))
                if len(result.turns) >= limit and not virtual_user.is_done(request):
                    result.notes.append(f"the virtual user was stopped after {limit} Rounds (max_rounds)")
                    break
            _save_conversation(notebook, result)
        for line in notebook.end_lines:  # what the confined kernel left, quarantined at its end
            said(line)
        # Scored with the kernel shut down: the agent's files are at rest, and with -j the next
        # case's kernel need not wait for the evaluator.
        result.chat_history = virtual_user.history
        evaluator = Evaluator(judge)
        for point in case.scoring_points:
            _check(stop)
            result.verdicts.append(_judge(point, case.task_description, result, folder, evaluator, access))
        unjudged = [v for v in result.verdicts if v.hit is None]
        for verdict in unjudged:
            result.failures.append(f"not judged: {verdict.point.score_point}: {verdict.error}")
        result.status = "error" if unjudged else "scored"
        notebook.add_markdown(verdicts_markdown(result, access.redactor.redact))
        notebook.write()
    finally:
        result.chat_history = virtual_user.history
        result.user_spend = user.spend
        result.evaluator_spend = judge.spend
        result.agent_spend = _agent_spend(result)


def _check(stop: threading.Event) -> None:
    if stop.is_set():
        raise RunStopped


def _judge(
    point: ScoringPoint,
    task: str,
    result: CaseResult,
    folder: Path,
    evaluator: Evaluator,
    access: ModelAccess,
) -> Verdict:
    if point.eval_code is not None:
        return run_eval_code(point, result.chat_history, folder, redact=access.redactor.redact)
    return evaluator.judge(task, result.turns, point)


def _save_conversation(notebook: CaseNotebook, result: CaseResult) -> None:
    if not result.turns:
        return
    outputs = notebook.run_quietly(f"%taskweaver save {CONVERSATION_FILE}")
    if (notebook.folder / CONVERSATION_FILE).is_file():
        result.conversation = CONVERSATION_FILE
    else:
        text = " ".join(str(o.get("text") or o.get("evalue") or "") for o in outputs)
        result.failures.append(f"the conversation was not saved: {text.strip() or 'no reason shown'}")


def _agent_spend(result: CaseResult) -> Spend:
    return Spend.total(turn.spend for turn in result.turns)


def _finish(folder: Path, result: CaseResult, started: float, access: ModelAccess) -> CaseResult:
    """The result redacted, saved and returned: reports are made from what was saved."""
    result.seconds = time.monotonic() - started
    saved = _redacted(result, access)
    write_result(folder, saved)
    return saved


def _redacted(result: CaseResult, access: ModelAccess) -> CaseResult:
    """The result as saved: every text through the session's redactor (the chat and the verdicts'
    reasons come from models and from code that ran where the key lives)."""
    data = access.redactor.redact_data(result.to_dict())
    return CaseResult.from_dict(data)


def fresh_folder(folder: Path) -> None:
    """An empty folder for the run; one an earlier run of twnb eval made is emptied, anything else
    in the way is refused."""
    if folder.exists():
        if any(folder.iterdir()) and read_result(folder) is None:
            raise RunFolderError(
                f"{folder} holds files twnb eval did not write (no {folder / 'result.yaml'}): choose "
                "another output folder with -o"
            )
        shutil.rmtree(folder)
    folder.mkdir(parents=True)


def _copy_data_files(case: EvalCase, folder: Path) -> None:
    """Each data file (or folder) from beside the case file to beside the notebook, by its own name,
    as TaskWeaver copies them into the agent's working folder."""
    for name in case.data_files:
        source = case.folder / name
        if not source.exists():
            raise FileNotFoundError(
                f"the data file {name} is not beside the case file ({source}): put it there, or take it out "
                "of the case's data_files"
            )
        target = folder / Path(name).name
        if source.is_dir():
            shutil.copytree(source, target)
        else:
            shutil.copyfile(source, target)


def _number(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value:g}"
