"""The view of a Round: what every view shows, computed once from the Round's payload.

The payload carries it as `twnb.view` (contract 6's `twnb` object gains one key; `schema_version`
stays 1), so the static views here and the JupyterLab extension draw the same facts instead of each
deriving them from the raw posts: the display state, the plan steps, each code block with its outcome
and the decision a person made on it, every artifact with its link and preview, the answer, the notes
(failure, autosave, cells left unrun, how a replay differed from its recording, what cannot be undone),
the ledger's bars and totals, the user's own cells that ran before the Round (`user_cells`, only when
there were some), and the line of a Round the user undid (`undone`, only then: views grey the Round).
docs/architecture.md has a table of each fact and where each view shows it.

Texts are as users read them (delimiters removed); Markdown texts (plan steps, the answer) stay
Markdown source: each view escapes and renders them its own way (HTML here, JupyterLab's sanitizer in
the extension). A new fact is one key here, with a default a reader of an older view can assume
absent; `VIEW_VERSION` changes only when an existing key changes meaning.

The payload carries the view without the texts that are the record's own as they are (the request,
the answer, each code block's code and result: `stored_view`) and the facts the record gives as they
are (recorded_facts.py), so a saved notebook keeps each once; `view_of` puts them back, as the
extension's view.ts and recorded.ts do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NotRequired, TypedDict

from twnb.memory import Ledger
from twnb.render.decisions import (
    SKIPPED_AFTER_REFUSAL,
    decision_line,
    recorded_words,
    refused_edit,
    unpredicted_lines,
    without_decision_words,
)
from twnb.render.labels import (
    autosave_note,
    failure_text,
    has_code,
    incomplete_reason,
    is_no_error,
    payload_state,
    post_title,
    summary_line,
)
from twnb.render.links import artifact_label, artifact_url
from twnb.render.previews import IMAGE_SUFFIXES
from twnb.render.recorded_facts import leave_to_record, put_back
from twnb.render.replay_note import replay_summary
from twnb.render.text import as_text, clean_text, clip_middle
from twnb.render.timeline import LedgerRowView, ledger_rows, totals_text
from twnb.render.user_cells import UserCellsView, user_cells_view

# 2: the texts that are the record's own as they are are left to it (stored_view); a reader of 1
# would draw them empty. 3: so are the facts the record gives as they are (recorded_facts.py): plan
# steps, post titles, code blocks' files, ledger rows' labels and times, and keys at their defaults; a
# reader of 2 would draw no plan or posts.
VIEW_VERSION = 3
RESULT_LIMIT = 4000  # characters of a code block's result or error in the view; the posts keep all
HELD_BACK_CELLS = "held_back_cells"  # RoundExtra: why the cells queued below the Round did not run


class PlanStepView(TypedDict):
    text: str  # inline Markdown
    state: str  # todo | in_progress | done | abandoned


class RefusedEditView(TypedDict):
    code: str
    refusal: str


class CodeBlockView(TypedDict):
    post_id: str
    code: str
    # ran | failed (raised, timed out) | refused (verification) | skipped (by the user) | not_run
    outcome: str
    # approved | edited | skipped | refused_then_skipped | refused_then_stopped, or None (no step mode)
    decision: str | None
    decision_line: str | None
    result: str  # what a successful run printed or returned, as the LLM was told (clipped)
    error: str  # the traceback, time limit or verification's reasons (clipped)
    refused_edit: RefusedEditView | None
    artifacts: list[str]  # paths, as in `artifacts`


class ArtifactView(TypedDict):
    path: str  # relative to the notebook's folder when inside it
    label: str  # the file name
    url: str | None  # a safe relative link, None when it cannot be linked (hidden or absolute)
    kind: str  # image | file
    preview: int | None  # index into twnb.previews
    omitted: str | None  # why a preview is not shown


class NoteView(TypedDict):
    kind: str  # failure | autosave | held_back_cells | replay
    label: str
    text: str


class LedgerView(TypedDict):
    rows: list[LedgerRowView]
    totals: str


class PostView(TypedDict):
    title: str  # "Planner → User", "(reply cut off)" when it was
    decision: str | None  # the decision line, when a person decided on it
    cut_off: str | None  # why the reply was cut off
    # Only when there are some: the words at the start of the post's message and execution result that
    # record the decision the line above says; views leave them out (decisions.without_decision_words).
    recorded_words: NotRequired[str]


class RoundView(TypedDict):
    version: int
    state: str  # created | running | finished | failed | interrupted
    request: str
    summary: str  # time · tokens · calls · cost
    plan: list[PlanStepView]
    plan_decision: str | None
    code: list[CodeBlockView]
    artifacts: list[ArtifactView]
    answer: str | None  # Markdown
    notes: list[NoteView]
    ledger: LedgerView | None
    posts: list[PostView]  # one per post, in post_list's order
    user_cells: NotRequired[UserCellsView]  # the user's own cells that ran before the Round (user_cells.py)
    # The user undid the Round (`%taskweaver undo`): the one line saying what was undone. Views grey the
    # Round and show this line under its header.
    undone: NotRequired[str]


def round_view(payload: Mapping[str, Any]) -> RoundView:
    """The view of the Round in `payload` (its `to_dict()` keys and the `twnb` object, without `view`)."""
    twnb = payload.get("twnb") or {}
    posts = [p for p in payload.get("post_list") or [] if isinstance(p, Mapping)]
    previews = [p for p in twnb.get("previews") or [] if isinstance(p, Mapping)]
    view: RoundView = {
        "version": VIEW_VERSION,
        "state": payload_state(payload),
        "request": clean_text(payload.get("user_query", "")),
        "summary": summary_line(payload),
        "plan": plan_steps(twnb.get("plan")),
        "plan_decision": next(
            (decision_line(p) for p in posts if p.get("send_from") == "Planner" and decision_line(p)), None
        ),
        "code": [code_block(p) for p in posts if has_code(p)],
        "artifacts": artifacts(posts, previews),
        "answer": answer(posts),
        "notes": notes(payload),
        "ledger": ledger_view(ledger_of(payload)),
        "posts": [post_view(p) for p in posts],
    }
    cells = user_cells_view(payload)
    if cells is not None:  # a key only when the Round recorded some (a reader assumes none without it)
        view["user_cells"] = cells
    undone = undone_line(payload)
    if undone:
        view["undone"] = undone
    return view


def undone_line(payload: Mapping[str, Any]) -> str:
    """The one line of an undone Round ("" for one not undone)."""
    record = (payload.get("extra") or {}).get("undone")
    if not isinstance(record, Mapping):
        return ""
    return clean_text(record.get("line") or "Undone by the user.")


def view_of(payload: Mapping[str, Any]) -> RoundView:
    """The view a payload carries, with the texts it leaves to the record put back (`stored_view`), or
    computed afresh when it carries none of this version (a Round saved by an older twnb, or a payload
    built by hand)."""
    view = (payload.get("twnb") or {}).get("view")
    if isinstance(view, Mapping) and view.get("version") == VIEW_VERSION:
        return with_recorded_texts(view, payload)
    return round_view(payload)


# The texts a view leaves out when they are, as they are, a text of the record beside it: where a
# reader finds each (the extension's view.ts reads the same places). A key that is present, null
# included, is the view's own.
def _recorded_request(payload: Mapping[str, Any]) -> object:
    return payload.get("user_query")


def _recorded_answer(payload: Mapping[str, Any]) -> object:
    posts = [p for p in payload.get("post_list") or [] if isinstance(p, Mapping)]
    answers = [p for p in posts if p.get("send_from") == "Planner" and p.get("send_to") == "User"]
    return answers[-1].get("message") if answers else None


def _recorded_attachment(payload: Mapping[str, Any], post_id: str, kind: str) -> object:
    for post in payload.get("post_list") or []:
        if isinstance(post, Mapping) and str(post.get("id")) == post_id:
            for attachment in post.get("attachment_list") or []:
                if isinstance(attachment, Mapping) and attachment.get("type") == kind:
                    return attachment.get("content")
    return None


_BLOCK_TEXTS = (("code", "reply_content"), ("result", "execution_result"))


def stored_view(view: RoundView, payload: Mapping[str, Any]) -> dict[str, Any]:
    """`view` as the payload carries it: the request, the answer, and each code block's code and result
    are left out where they are the record's own text as it is (the Round's `user_query`, its last
    answer's message, the post's `reply_content` and `execution_result`): a saved notebook keeps each
    once; then the facts recorded_facts.py leaves to the record. `with_recorded_texts` puts all back."""
    stored: dict[str, Any] = dict(view)
    if view["request"] == _recorded_request(payload):
        del stored["request"]
    if view["answer"] is not None and view["answer"] == _recorded_answer(payload):
        del stored["answer"]
    blocks = []
    for block in view["code"]:
        kept: dict[str, Any] = dict(block)
        for key, kind in _BLOCK_TEXTS:
            if kept[key] and kept[key] == _recorded_attachment(payload, block["post_id"], kind):
                del kept[key]
        blocks.append(kept)
    stored["code"] = blocks
    leave_to_record(stored, payload)
    return stored


def with_recorded_texts(view: Mapping[str, Any], payload: Mapping[str, Any]) -> RoundView:
    """A stored view whole again: each text and fact it left to the record read from there."""
    whole: dict[str, Any] = put_back(view, payload)
    if "request" not in whole:
        whole["request"] = str(_recorded_request(payload) or "")
    if "answer" not in whole:
        answer = _recorded_answer(payload)
        whole["answer"] = answer if isinstance(answer, str) and answer else None
    blocks = []
    for block in whole["code"]:
        full = dict(block)
        for key, kind in _BLOCK_TEXTS:
            if key not in full:
                text = _recorded_attachment(payload, str(full.get("post_id", "")), kind)
                full[key] = text if isinstance(text, str) else ""
        blocks.append(full)
    whole["code"] = blocks
    return whole  # type: ignore[return-value]


def plan_steps(plan: object) -> list[PlanStepView]:
    if not isinstance(plan, Mapping):
        return []
    return [
        {"text": " ".join(clean_text(step.get("name", "")).split()), "state": str(step.get("state", "todo"))}
        for step in plan.get("subtasks") or []
        if isinstance(step, Mapping)
    ]


_DECISIONS = (("skipped_by", "skipped"), ("edited_by", "edited"), ("approved_by", "approved"))


def code_block(post: Mapping[str, Any]) -> CodeBlockView:
    """A code post as the main view shows it: the code, what became of it and who decided."""
    extra = post.get("extra") or {}
    shown = without_decision_words(post)
    kinds: dict[str, Any] = {}
    for attachment in shown.get("attachment_list") or []:
        kinds.setdefault(str(attachment.get("type")), attachment.get("content"))
    refused = refused_edit(post)
    line = decision_line(post)
    if refused is not None:
        decision: str | None = (
            "refused_then_skipped" if line == SKIPPED_AFTER_REFUSAL else "refused_then_stopped"
        )
    else:
        decision = next((name for key, name in _DECISIONS if extra.get(key) == "User"), None)
    status = str(kinds.get("execution_status", "")).strip().upper()
    verdict = str(kinds.get("verification", "")).strip()
    error_text = ""
    if extra.get("skipped_by") == "User":
        outcome = "skipped"
    elif status == "SUCCESS":
        outcome = "ran"
    elif status and status != "NONE":  # NONE: never ran (refused, or the Round stopped before it)
        outcome = "failed"
        error_text = as_text(kinds.get("execution_result"))
        code_error = kinds.get("code_error")
        if (
            code_error
            and not is_no_error("code_error", code_error)
            and clean_text(code_error) not in error_text
        ):
            error_text = (error_text + "\n" + as_text(code_error)).strip()
    elif verdict and verdict not in ("CORRECT", "NONE"):
        outcome = "refused"
        error_text = as_text(kinds.get("code_error")) or verdict
    else:
        outcome = "not_run"
    return {
        "post_id": str(post.get("id", "")),
        "code": clean_text(kinds.get("reply_content", "")),
        "outcome": outcome,
        "decision": decision,
        "decision_line": line,
        "result": clip_middle(clean_text(kinds.get("execution_result") or ""), RESULT_LIMIT)
        if outcome == "ran"
        else "",
        "error": clip_middle(clean_text(error_text), RESULT_LIMIT),
        "refused_edit": {"code": clean_text(refused[0]), "refusal": clean_text(refused[1])}
        if refused
        else None,
        "artifacts": _paths(post),
    }


def _paths(post: Mapping[str, Any]) -> list[str]:
    found: list[str] = []
    for attachment in post.get("attachment_list") or []:
        if attachment.get("type") != "artifact_paths":
            continue
        content = attachment.get("content")
        paths = [content] if isinstance(content, str) else list(content or [])
        found += [str(p) for p in paths if str(p).strip() and str(p) not in found]
    return found


def artifacts(posts: list[Mapping[str, Any]], previews: list[Mapping[str, Any]]) -> list[ArtifactView]:
    """Every artifact the Round's posts name, once each, in order; then previews no post names."""
    by_path = {str(p.get("path")): index for index, p in enumerate(previews)}
    paths: list[str] = []
    for post in posts:
        paths += [p for p in _paths(post) if p not in paths]
    paths += [p for p in by_path if p not in paths]
    found: list[ArtifactView] = []
    for path in paths:
        index = by_path.get(path)
        preview = previews[index] if index is not None else {}
        image = str(preview.get("mime", "")).startswith("image/") or _suffix(path) in IMAGE_SUFFIXES
        found.append(
            {
                "path": path,
                "label": artifact_label(path),
                "url": artifact_url(path),
                "kind": "image" if image else "file",
                "preview": index if index is not None and preview.get("data") else None,
                "omitted": str(preview["omitted"]) if preview.get("omitted") else None,
            }
        )
    return found


def _suffix(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return "." + name.rsplit(".", 1)[-1].lower() if "." in name else ""


def answer(posts: list[Mapping[str, Any]]) -> str | None:
    """The answer the user got: the last post the Planner sent to the User, as Markdown."""
    answers = [p for p in posts if p.get("send_from") == "Planner" and p.get("send_to") == "User"]
    text = clean_text(answers[-1].get("message") or "") if answers else ""
    return text if text.strip() else None


def notes(payload: Mapping[str, Any]) -> list[NoteView]:
    """What a reader must not miss: why the Round did not finish, an autosave that failed, and why the
    cells queued below the Round did not run (interrupted, or stopped or skipped in step mode)."""
    extra = payload.get("extra") or {}
    found: list[NoteView] = []
    state = payload_state(payload)
    if payload.get("state") == "failed":
        reason = clean_text(failure_text(state, extra.get("failure_reason") or "the Round failed"))
        found.append({"kind": "failure", "label": f"Round {state}", "text": reason})
    unsaved = autosave_note(payload)
    if unsaved:
        found.append({"kind": "autosave", "label": "Not autosaved", "text": clean_text(unsaved)})
    held = extra.get(HELD_BACK_CELLS)
    if held:
        found.append({"kind": HELD_BACK_CELLS, "label": "Cells below not run", "text": clean_text(held)})
    unpredicted = [
        line
        for post in payload.get("post_list") or []
        if isinstance(post, Mapping)
        for line in unpredicted_lines(post)
    ]
    if unpredicted:  # risky step mode: where reading the code fell short of what it did
        text = "The runtime guard saw the code do what verification had not predicted: " + "; ".join(
            clean_text(line) for line in unpredicted
        )
        found.append({"kind": "unpredicted", "label": "Not predicted", "text": text})
    replayed = replay_summary(payload)
    if replayed:  # how a replay differed from its recording (the drift lines are in the record)
        found.append({"kind": "replay", "label": "Replay", "text": clean_text(replayed)})
    limits = [clean_text(line) for line in extra.get("undo_limits") or [] if isinstance(line, str)]
    if limits and not extra.get("undone"):  # once undone, its line says what was not undone
        found.append({"kind": "undo_limits", "label": "Cannot be undone", "text": "; ".join(limits)})
    return found


def ledger_of(payload: Mapping[str, Any]) -> Mapping[str, Any] | None:
    """The Round's whole ledger, entries included: the record's `extra.ledger`, else `twnb.ledger`
    (a payload whose record has none)."""
    for ledger in ((payload.get("extra") or {}).get("ledger"), (payload.get("twnb") or {}).get("ledger")):
        if isinstance(ledger, Mapping) and ledger.get("entries"):
            return ledger
    return None


def ledger_view(ledger: object) -> LedgerView | None:
    parsed = (
        ledger
        if isinstance(ledger, Ledger)
        else Ledger.from_dict(ledger if isinstance(ledger, Mapping) else None)
    )
    if not parsed.entries:
        return None
    return {"rows": ledger_rows(parsed), "totals": totals_text(parsed)}


def post_view(post: Mapping[str, Any]) -> PostView:
    view: PostView = {
        "title": post_title(post),
        "decision": decision_line(post),
        "cut_off": incomplete_reason(post),
    }
    words = recorded_words(post)
    if words:
        view["recorded_words"] = words
    return view
