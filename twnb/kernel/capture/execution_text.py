"""One execution as text for the LLM: bounded, the head of output, the tail of a traceback.

The full outputs stay in `ExecutionResult.outputs` (nbformat) and on disk; this is only what the
next prompt needs to decide what to do. Secret-looking values are replaced by "[hidden]".
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from twnb.base import clip
from twnb.kernel.capture.secret_screen import redact_secrets
from twnb.kernel.record import ExecutionResult

_HEADLINES = {
    "success": "The execution succeeded.",
    "error": "The execution failed.",
    "timeout": "The execution was stopped: it ran past its time limit.",
    "interrupted": "The execution was interrupted.",
    "kernel_died": "The kernel died during the execution.",
    "refused": "The runtime guard refused what the code did while it ran.",
}


# Where a library frame's file lives (a venv, conda, the system Python) says nothing to the model, costs
# tokens, and differs between machines, which would make a replayed prompt drift from its recording.
_INSTALL_PREFIX = re.compile(r"(?:[A-Za-z]:)?[^\s\"'(]*[/\\](?:site|dist)-packages[/\\]")


def short_library_paths(text: str) -> str:
    """`.../site-packages/pandas/core/base.py` -> `pandas/core/base.py`."""
    return _INSTALL_PREFIX.sub("", text)


def _artifact_link(path: str, relative_to: str | os.PathLike[str] | None) -> str:
    shown = path
    if relative_to is not None:
        try:
            shown = os.path.relpath(path, relative_to)
        except ValueError:
            shown = path
    target = f"<{shown}>" if any(c in shown for c in " ()") else shown
    return f"- [{Path(path).name}]({target})"


def execution_text_for_llm(
    result: ExecutionResult, *, max_chars: int = 4000, relative_to: str | os.PathLike[str] | None = None
) -> str:
    """Bounded text describing `result`; artifacts as Markdown links (relative to `relative_to` if given)."""
    sections: list[str] = [_HEADLINES.get(result.status, f"Execution status: {result.status}.")]
    if result.refusals:
        sections.append("Refused:\n" + "\n".join(f"- {refusal}" for refusal in result.refusals))
    budget = max(200, max_chars)
    if result.result:
        result_text = clip(result.result, budget // 5, keep="ends", what="the result", head_share=0.9)
        sections.append("Result:\n" + result_text)
    if result.stdout:
        sections.append(
            "Output:\n" + clip(result.stdout, budget // 3, keep="ends", what="output", head_share=0.8)
        )
    if result.stderr and result.status == "success":
        sections.append("Warnings (stderr):\n" + clip(result.stderr, budget // 8, keep="ends", what="stderr"))
    if result.error is not None:
        headline = clip(f"{result.error.ename}: {result.error.evalue}", 400, keep="ends", what="the message")
        section = "Error:\n" + headline
        if result.error.traceback:
            # The tail of a traceback says where and why; its head is mostly the caller's frames.
            trace = clip(
                short_library_paths(result.error.traceback),
                budget // 3,
                keep="ends",
                what="traceback",
                head_share=0.15,
            )
            section += "\nTraceback:\n" + trace
        sections.append(section)
    shown = [d for d in result.displays if not d.get("artifact") and d.get("text")]
    if shown:
        # display(df) is how code often shows a table: the LLM needs its text form.
        texts = "\n".join(str(d["text"]) for d in shown)
        texts = clip(texts, budget // 4, keep="ends", what="displayed text", head_share=0.8)
        sections.append("Displayed:\n" + texts)
    if result.artifacts:
        links = [_artifact_link(p, relative_to) for p in result.artifacts[:20]]
        more = len(result.artifacts) - 20
        sections.append("Artifacts:\n" + "\n".join(links) + (f"\n- ... and {more} more" if more > 0 else ""))
    if result.variables:
        parts = []
        for change in result.variables[:30]:
            shape = f" {tuple(change.shape)}" if change.shape else ""
            parts.append(f"{change.name} ({change.kind}, {change.type}{shape})")
        sections.append("Variables: " + ", ".join(parts))
    if result.notes:
        sections.append("Notes:\n" + "\n".join(f"- {n}" for n in result.notes))
    text = redact_secrets("\n\n".join(sections))
    return clip(text, max_chars, keep="ends", what="this summary", head_share=0.6)
