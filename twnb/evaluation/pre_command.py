"""A case's `pre_command`: shell commands run before the case, as TaskWeaver's harness runs them.

TaskWeaver's `auto_eval/taskweaver_eval.py` runs each command with the shell (`shell=True`), its error
output merged into its output, one after the other, and goes on with the case whether a command
failed or not; the commands are written for the folder its evaluation runs in (the one holding
`cases/`, from which `app_dir: ../project/` is found: `cd ../scripts`, `--doc_paths ./cases/rag/docs`).
twnb runs them the same way in that folder (the case's own folder when the case has no app_dir that
can be found), before the case's kernel starts. Each command's output goes, whole, into the run's
`pre_command.log`, and a line per command (its exit status and the output's start) into the case's
notes, so the record shows what ran and how it went.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from twnb.base import clip
from twnb.evaluation.case_file import EvalCase

__all__ = ["PRE_COMMAND_LOG", "PreCommandRun", "pre_command_folder", "run_pre_commands"]

PRE_COMMAND_LOG = "pre_command.log"
NOTE_CHARS = 300  # of each command's output, in the case's notes


@dataclass(frozen=True)
class PreCommandRun:
    command: str
    exit_code: int | None  # None: it did not finish in time
    output: str

    def note(self) -> str:
        how = "timed out" if self.exit_code is None else f"exited {self.exit_code}"
        shown = clip(self.output.strip(), NOTE_CHARS, one_line=True) or "no output"
        return f"pre_command `{self.command}` {how}: {shown}"


def pre_command_folder(case: EvalCase) -> Path:
    """Where TaskWeaver would run the case's commands: the folder its app_dir is found from."""
    if case.app_dir:
        for base in (case.folder, case.folder.parent, case.folder.parent.parent):
            if (base / case.app_dir).is_dir():
                return base
    return case.folder


def run_pre_commands(
    case: EvalCase, run_folder: Path, timeout: float, redact: Callable[[str], str]
) -> list[PreCommandRun]:
    """Run the case's commands in order; each one's outcome (a failure does not stop the next, nor the
    case, as in TaskWeaver), with the whole output written, redacted, to `run_folder / PRE_COMMAND_LOG`."""
    where = pre_command_folder(case)
    runs = []
    for command in case.pre_command:
        try:
            finished = subprocess.run(
                command,
                shell=True,  # TaskWeaver's commands are shell lines: `cd ../scripts;python -m ...`
                cwd=where,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                text=True,
                errors="replace",
                timeout=timeout,
            )
            runs.append(PreCommandRun(command, finished.returncode, redact(finished.stdout or "")))
        except subprocess.TimeoutExpired as expired:
            output = expired.output if isinstance(expired.output, str) else ""
            runs.append(PreCommandRun(command, None, redact(output) + f"\n(stopped after {timeout:g} s)"))
    log = [f"# in {where}"]
    for run in runs:
        log += [f"$ {run.command}", run.output.rstrip(), f"# exit status: {run.exit_code}", ""]
    (run_folder / PRE_COMMAND_LOG).write_text("\n".join(log), encoding="utf-8")
    return runs
