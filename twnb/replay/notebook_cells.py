"""The cells of an exported notebook: a title, then per Round its `show` cell, Markdown and code.

Everything the LLM wrote (messages, thoughts, text replies) and the request are escaped before they
become Markdown: a notebook is a document other people open, and the text must not turn into HTML,
images that load from elsewhere, or links with a scheme. Code cells hold the code that ran with the
outputs recorded when it ran (nbformat output dicts the executor captured; TaskWeaver's own files,
which have none, get the recorded result text). Each cell says what it is in `metadata.twnb`.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twnb.memory import PromptUtil
from twnb.render import (
    artifact_previews,
    decision_line,
    escape_markdown,
    is_no_error,
    plan_from_round,
    plan_to_dict,
    round_bundle,
    without_decision_words,
)
from twnb.replay.large_outputs import cut_large_outputs, text_of
from twnb.replay.nodes import code_cell, data_output, error_output, markdown_cell, stream
from twnb.replay.ran_code import post_attachment, post_text, ran_code

if TYPE_CHECKING:
    from nbformat import NotebookNode

    from twnb.memory import Conversation, Plan, Post, Round
    from twnb.replay.name_sources import OutsideName

SHOW_COMMAND = "%taskweaver show"
FAILED_TAG = "twnb-failed-attempt"


@dataclass
class CodePiece:
    """One piece of code that ran: the CodeInterpreter's, with what it printed then, or one of the
    user's own cells (`user`; `post_id` empty)."""

    round_id: str
    post_id: str
    code: str
    outputs: list[dict[str, Any]]
    # "outputs": nbformat outputs were captured; "text": only TaskWeaver's result text; "raised": only
    # whether it raised (`error`: what), as a user's cell is recorded
    recorded: str
    failed: bool
    user: bool = False
    error: str | None = None
    # The execution's result text as the Round's own view shows it (next to captured `outputs`): in a
    # notebook Rounds ran in, what a reader sees of the run, so a re-run checks it too.
    shown_result: str | None = None


@dataclass
class RoundCells:
    cells: list[NotebookNode] = field(default_factory=list)
    # cell position in `cells` -> the piece it runs (re-execution compares with `piece.outputs`)
    pieces: dict[int, CodePiece] = field(default_factory=dict)
    cut_files: list[str] = field(default_factory=list)


def title_cell(conversation: Conversation, session_id: str) -> NotebookNode:
    rounds = conversation.rounds
    started = next((_timing(r).get("started_at") for r in rounds if _timing(r).get("started_at")), None)
    models = sorted({m for r in rounds for m in _models(r)})
    facts = [f"session `{_inline(session_id)}`", f"{len(rounds)} Round{'s' if len(rounds) != 1 else ''}"]
    if started:
        facts.append(f"started {_inline(str(started))}")
    if models:
        facts.append("model " + ", ".join(f"`{_inline(m)}`" for m in models))
    text = "\n".join(
        [
            "# twnb conversation",
            "",
            " · ".join(facts),
            "",
            "Each Round starts with a `%taskweaver show ROUND_ID` cell holding the Round as it ended, then "
            "the request, the plan and the messages, and the code that ran with the outputs it had then. "
            "`%taskweaver load` with this notebook's name resumes the conversation in a kernel.",
        ]
    )
    return markdown_cell(text, metadata={"twnb": {"cell": "title"}})


def setup_cell(notebook_name: str) -> NotebookNode:
    """`%load_ext twnb`, so the `show` cells run (the Round from this kernel's session, else as this
    notebook recorded it: recorded_round.py); the load itself is the reader's choice."""
    # The command alone on its line: uncommented, it runs as it is (words after it would be arguments).
    resume = "# Resume this conversation in this kernel (nothing is re-run):"
    source = f"%load_ext twnb\n{resume}\n# %taskweaver load {notebook_name}"
    return code_cell(source, [], {"twnb": {"cell": "setup"}})


def outside_names_cell(names: Sequence[OutsideName]) -> NotebookNode:
    """What the recorded code reads that nothing recorded makes (`OutsideName`s): a re-run needs it
    defined first, so the notebook says so before any Round."""
    lines = ["**Before you run this notebook**", ""]
    lines += [f"- {_markdown(name.sentence())}." for name in names]
    return markdown_cell("\n".join(lines), metadata={"twnb": {"cell": "outside_names"}})


def round_cells(
    round: Round,
    number: int,
    *,
    session_id: str,
    out_dir: Path,
    include_failed: bool,
    conversation_id: str | None = None,
    keep: Callable[[str, str], str],
) -> RoundCells:
    """The cells of one Round (its artifact paths already point at the copies beside the notebook):
    the user's own cells that ran before it, then its `show` cell, Markdown and code."""
    result = RoundCells()
    user_cells_before(round, number, result)
    plan = plan_from_round(round)  # derived from the Planner's posts once, for the bundle and the heading
    result.cells.append(
        show_cell(round, session_id=session_id, out_dir=out_dir, conversation_id=conversation_id, plan=plan)
    )
    lines = _round_heading(round, number, plan)
    for post in round.post_list:
        if post.send_from == "User":
            continue  # the request: already the heading
        piece = code_piece(round.id, post)
        if piece is not None and piece.failed and not include_failed:
            continue
        lines += ["", f"**{_inline(post.send_from)} → {_inline(post.send_to)}**"]
        # Step mode: the user's decision in one line, as the Round's own views say it; the message then
        # reads without the record's words for the same decision.
        shown = without_decision_words(post.to_dict())
        decision = decision_line(shown)
        if decision is not None:
            lines += ["", f"*{decision}.*"]
        thought = post_text(post, "thought")
        if thought:
            lines += [
                "",
                "*" + _markdown(thought) + "*" if "\n" not in thought.strip() else _markdown(thought),
            ]
        if piece is not None and round.undone:
            # Taken back by the user: shown, never a code cell a re-run of the notebook would run again.
            lines += ["", _fenced(piece.code), "", "*Undone: this code's effects were taken back.*"]
        elif piece is not None:
            if piece.failed:
                lines += [
                    "",
                    "This attempt failed; it is kept for the record (the next attempt revised it)."
                    if post.send_to == post.send_from
                    else "This attempt failed.",
                ]
            result.cells.append(markdown_cell("\n".join(lines), metadata={"twnb": {"cell": "text"}}))
            cell = _code_cell(piece, keep, result.cut_files)
            result.pieces[len(result.cells)] = piece
            result.cells.append(cell)
            lines = []
        else:
            lines += _not_run(post, decided=decision is not None)
        message = shown.get("message") or ""
        if message.strip() and message != _shown_reply(post):
            lines += ["", _markdown(message, links=post.send_to == "User")]
    if lines:
        result.cells.append(markdown_cell("\n".join(lines).strip("\n"), metadata={"twnb": {"cell": "text"}}))
    return result


def user_cells_before(round: Round, number: int, result: RoundCells) -> None:
    """The user's own cells recorded before the Round, as code cells marked as the user's (metadata
    `twnb.cell` "user"), under a Markdown line saying whose they are. A cell that raised then is tagged
    `raises-exception` (a re-run carries on past it); one too long to record whole is shown, not run."""
    extra = round.extra if isinstance(round.extra, Mapping) else {}
    cells = [
        c
        for c in extra.get("user_cells") or []
        if isinstance(c, Mapping) and isinstance(c.get("source"), str)
    ]
    if not cells:
        return
    omitted = extra.get("user_cells_omitted")
    note = f" ({omitted} earlier ones were not recorded)" if isinstance(omitted, int) and omitted else ""
    heading = f"*Your own cells, run before Round {number}{note}:*"
    result.cells.append(markdown_cell(heading, metadata={"twnb": {"cell": "text", "round_id": round.id}}))
    for recorded in cells:
        count = recorded.get("execution_count")
        error = recorded.get("error") if isinstance(recorded.get("error"), str) else None
        meta: dict[str, Any] = {"cell": "user", "round_id": round.id}
        if isinstance(count, int):
            meta["execution_count"] = count
        if error:
            meta["error"] = error
        if recorded.get("clipped"):
            text = (
                f"Your cell [{count}] was too long to record whole; its start, which a re-run leaves out:"
                if isinstance(count, int)
                else "Your cell was too long to record whole; its start, which a re-run leaves out:"
            )
            meta["clipped"] = True
            result.cells.append(
                markdown_cell(f"{text}\n\n{_fenced(recorded['source'])}", metadata={"twnb": meta})
            )
            continue
        metadata: dict[str, Any] = {"twnb": meta}
        if error:  # nbclient and papermill carry on past a cell tagged raises-exception
            metadata["tags"] = ["raises-exception"]
        result.pieces[len(result.cells)] = CodePiece(
            round.id, "", recorded["source"], [], "raised", failed=bool(error), user=True, error=error
        )
        result.cells.append(code_cell(recorded["source"], [], metadata))


def show_cell(
    round: Round,
    *,
    session_id: str,
    out_dir: Path,
    conversation_id: str | None = None,
    plan: Plan | None = None,
) -> NotebookNode:
    """`%taskweaver show ROUND_ID` with the Round's static bundle as its output (what the cell showed
    when the Round ended: it reads in every viewer without a kernel). `plan`: the Round's, when the
    caller derived it already (`plan_from_round`)."""
    bundle = round_bundle(
        round,
        session_id=session_id,
        conversation_id=conversation_id,
        plan=plan if plan is not None else plan_from_round(round),
        previews=artifact_previews(round, out_dir),
        base_dir=out_dir,
    )
    output = data_output("display_data", bundle, {})
    return code_cell(f"{SHOW_COMMAND} {round.id}", [output], {"twnb": {"cell": "show", "round_id": round.id}})


def code_piece(round_id: str, post: Post) -> CodePiece | None:
    """The code `post` ran with its recorded outputs, or None (no code, a text reply, code that was
    refused or never ran)."""
    ran = ran_code(post)
    if ran is None:
        return None
    result = post_attachment(post, "execution_result")
    extra = result.extra if result is not None and isinstance(result.extra, Mapping) else {}
    recorded = extra.get("outputs")
    if isinstance(recorded, list):
        outputs = [o for o in (clean_output(raw) for raw in recorded) if o is not None]
        kind = "outputs"
    else:
        text = PromptUtil.remove_all_delimiters(str(result.content)) if result is not None else ""
        outputs = [stream("stderr" if ran.failed else "stdout", text)]
        kind = "text"
    shown = str(result.content) if kind == "outputs" and result is not None and result.content else None
    return CodePiece(round_id, post.id, ran.code, outputs, kind, failed=ran.failed, shown_result=shown)


def clean_output(raw: Any) -> Any:
    """A recorded output as a valid nbformat v4 output, or None when it is not one (a conversation
    file is input: a hand-edited or foreign file must not make the notebook invalid)."""
    if not isinstance(raw, Mapping):
        return None
    kind = raw.get("output_type")
    if kind == "stream":
        name = "stderr" if raw.get("name") == "stderr" else "stdout"
        return stream(name, text_of(raw.get("text", "")))
    if kind in ("display_data", "execute_result"):
        data = raw.get("data")
        if not isinstance(data, Mapping):
            return None
        clean = {str(k): _mime_value(k, v) for k, v in data.items()}
        metadata = raw.get("metadata")
        return data_output(
            kind, clean, copy.deepcopy(dict(metadata)) if isinstance(metadata, Mapping) else {}
        )
    if kind == "error":
        traceback = raw.get("traceback")
        lines = [str(x) for x in traceback] if isinstance(traceback, list) else [str(traceback or "")]
        return error_output(str(raw.get("ename", "")), str(raw.get("evalue", "")), lines)
    return None


def _mime_value(mime: str, value: Any) -> Any:
    if isinstance(value, (dict, list)) and mime.endswith("json"):
        return copy.deepcopy(value)
    return text_of(value)


def _code_cell(piece: CodePiece, keep: Callable[[str, str], str], cut_files: list[str]) -> NotebookNode:
    outputs = copy.deepcopy(piece.outputs)
    cuts = cut_large_outputs(outputs, keep=keep)
    cut_files += [c["file"] for c in cuts]
    meta: dict[str, Any] = {
        "cell": "code",
        "round_id": piece.round_id,
        "post_id": piece.post_id,
        "recorded": piece.recorded,
    }
    if piece.failed:
        meta["failed"] = True
    if cuts:
        meta["cut_outputs"] = cuts
    metadata: dict[str, Any] = {"twnb": meta}
    if piece.failed:  # nbclient and papermill carry on past a cell tagged raises-exception
        metadata["tags"] = [FAILED_TAG, "raises-exception"]
    return code_cell(piece.code, outputs, metadata)


def _round_heading(round: Round, number: int, plan: Plan | None) -> list[str]:
    query = PromptUtil.remove_all_delimiters(round.user_query or "").strip()
    first, _, rest = query.partition("\n")
    lines = [f"## Round {number}: {_markdown(first)}"]
    if rest.strip():
        lines += [""] + ["> " + line for line in _markdown(rest.strip()).split("\n")]
    facts: list[str] = [round.state]
    duration = _timing(round).get("duration_s")
    if isinstance(duration, (int, float)):
        facts.append(f"{duration:.1f} s")
    tokens = (
        (round.extra or {}).get("usage", {}).get("total_tokens") if isinstance(round.extra, Mapping) else None
    )
    if isinstance(tokens, int):
        facts.append(f"{tokens:,} tokens")
    reason = (round.extra or {}).get("failure_reason") if isinstance(round.extra, Mapping) else None
    lines += ["", "*" + " · ".join(facts) + "*"]
    if reason:
        lines += ["", "Ended: " + _markdown(str(reason))]
    undone = round.extra.get("undone") if isinstance(round.extra, Mapping) else None
    if undone:
        lines += ["", "*" + _inline(str(undone.get("line") or "Undone by the user.")) + "*"]
    steps = plan_to_dict(plan)
    if steps and steps.get("subtasks"):
        lines += ["", "**Plan**", ""]
        for step in steps["subtasks"]:
            mark = "x" if step.get("state") == "done" else " "
            note = "" if step.get("state") in ("done", "todo") else f" *({_inline(str(step.get('state')))})*"
            lines.append(f"- [{mark}] {_markdown(str(step.get('name', '')))}{note}")
    return lines


def _not_run(post: Post, *, decided: bool = False) -> list[str]:
    """A CodeInterpreter reply that ran nothing: a text reply, code that was refused, or code the user
    skipped (`decided`: the decision line above already says why)."""
    kind = post_text(post, "reply_type")
    content = post_text(post, "reply_content")
    if not content:
        return []
    if kind == "python":
        error = post_text(post, "code_error")
        if error is not None and is_no_error("code_error", error):
            error = None  # verification's "No error is found." is no reason
        why = error or post_text(post, "execution_result") or "it was not run"
        reason = "" if decided else " (" + _markdown(why.strip().split("\n")[0]) + ")"
        return ["", f"Code that was not run{reason}:", "", _fenced(content)]
    return ["", _markdown(content)]


def _shown_reply(post: Post) -> str | None:
    """A text reply already shown as Markdown (TaskWeaver repeats it as the post's message)."""
    return post_text(post, "reply_content") if post_text(post, "reply_type") == "text" else None


def _fenced(code: str) -> str:
    longest = max((len(run) for run in re.findall(r"`+", code)), default=0)
    marks = "`" * max(3, longest + 1)
    return f"{marks}python\n{code}\n{marks}"


def _markdown(text: str, *, links: bool = False) -> str:
    return escape_markdown(PromptUtil.remove_all_delimiters(text), links=links)


def _inline(text: str) -> str:
    return escape_markdown(" ".join(str(text).split())).replace("`", "&#96;").replace("*", "&#42;")


def _timing(round: Round) -> Mapping[str, Any]:
    timing = (round.extra or {}).get("timing") if isinstance(round.extra, Mapping) else None
    return timing if isinstance(timing, Mapping) else {}


def _models(round: Round) -> list[str]:
    found = []
    for post in round.post_list:
        usage = (post.extra or {}).get("usage") if isinstance(post.extra, Mapping) else None
        if isinstance(usage, Mapping) and isinstance(usage.get("model"), str):
            found.append(usage["model"])
    return found
