"""Scoring points judged by code: a case's `eval_code`, run as TaskWeaver runs it.

TaskWeaver writes the snippet after a preamble that loads the chat history and runs it with a fresh
`python` in the agent's working folder: the point is hit when it exits cleanly, missed when it raises
(an `assert` that fails, a file the agent never wrote). Here too: a fresh process of this Python, in
the case's notebook folder (so `open('a.txt')` reads what the agent wrote and `import code_context`
finds a data file), with `chat_history` the virtual user's chat without its last message (the stop
keyword), its messages the classes of chat_messages.py under TaskWeaver's names (`HumanMessage` is
the agent). The history goes through a file outside that folder, so nothing is added beside the
agent's files.

Case files are code you chose to run: `eval_code` runs with your rights, as in TaskWeaver.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from twnb.base import clip
from twnb.evaluation.case_file import ScoringPoint
from twnb.evaluation.chat_messages import ChatMessage, history_to_data
from twnb.evaluation.evaluator import Verdict

__all__ = ["EVAL_CODE_TIMEOUT", "run_eval_code"]

EVAL_CODE_TIMEOUT = 120.0

_PREAMBLE = """\
import json, sys
from twnb.evaluation.chat_messages import (
    AIMessage, AgentMessage, HumanMessage, SystemMessage, VirtualUserMessage, load_history,
)
chat_history = load_history(sys.argv[1])[:-1]  # without the last message: the stop keyword
del json, sys, load_history
"""


def run_eval_code(
    point: ScoringPoint,
    history: Sequence[ChatMessage],
    folder: Path,
    *,
    timeout: float = EVAL_CODE_TIMEOUT,
    redact: Callable[[str], str] = lambda text: text,
) -> Verdict:
    """Run `point.eval_code` in `folder` and turn how it ended into a verdict with its reason."""
    code = point.eval_code or ""
    try:
        compile(code, "<eval_code>", "exec")
    except SyntaxError as error:
        return Verdict(point, None, "", "eval_code", f"eval_code is not valid Python: {error}")

    with tempfile.TemporaryDirectory(prefix="twnb-eval-code-") as scratch:
        history_file = Path(scratch) / "chat_history.json"
        history_file.write_text(json.dumps(history_to_data(history), ensure_ascii=False), encoding="utf-8")
        try:
            finished = subprocess.run(
                [sys.executable, "-c", _PREAMBLE + code, str(history_file)],
                cwd=folder,
                env=_environment(),
                capture_output=True,
                text=True,
                timeout=timeout,
            )
        except subprocess.TimeoutExpired:
            return Verdict(
                point, None, "", "eval_code", f"eval_code ran longer than {timeout:g} s and was stopped"
            )
    if finished.returncode == 0:
        return Verdict(point, True, "eval_code passed", "eval_code")
    return Verdict(point, False, redact(_last_error(finished.stderr, code)), "eval_code")


def _environment() -> dict[str, str]:
    """This environment, with the folder holding twnb first on the path, so the preamble imports the
    same twnb as this process even from a source checkout."""
    env = dict(os.environ)
    package_root = str(Path(__file__).resolve().parents[2])
    env["PYTHONPATH"] = os.pathsep.join(p for p in (package_root, env.get("PYTHONPATH", "")) if p)
    return env


def _last_error(stderr: str, code: str) -> str:
    """The exception line of the traceback (an assert's message is on it); for a bare
    `AssertionError`, the line of eval_code that raised it."""
    lines = [line for line in stderr.strip().splitlines() if line.strip()]
    if not lines:
        return "eval_code failed without a message"
    text = lines[-1].strip()
    frames = re.findall(r'File "<string>", line (\d+)', stderr)
    if text == "AssertionError" and frames:
        number = int(frames[-1]) - _PREAMBLE.count("\n")
        code_lines = code.splitlines()
        if 1 <= number <= len(code_lines):
            text = f"AssertionError at eval_code line {number}: {code_lines[number - 1].strip()}"
    return clip(text, 1_000)
