"""The live Round widget: an Observer that turns the session's events into ipywidgets.

Layout: a header (request, state badge, elapsed time, tokens), the plan as a checklist, one collapsible
section per Post (from -> to, the message as Markdown with raw HTML escaped, its attachments), a
status line, a failure box and a summary. Streaming text goes out through a `Throttle` (about 10
updates a second, the end of every stream always flushed); a `PostRetry` clears that post's text.

LLM text is untrusted: every string that reaches HTML is escaped here, Markdown goes to the
frontend with raw HTML, links and images escaped, and artifact links are percent-encoded relative paths.

Events arrive on the kernel's main thread; `tick()` comes from the heartbeat thread (elapsed time and
held-back text during long code runs), so both take one lock. Every widget shares one Layout (and every
HTML one HTMLStyle): saved widget state holds a model per Layout, which was half of it.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import html
import mimetypes
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from twnb.memory import (
    AttachmentDelta,
    Event,
    MessageDelta,
    PostCommitted,
    PostRetry,
    PostStarted,
    RoundEnded,
    RoundFailed,
    RoundStarted,
    StatusChanged,
    UsageReported,
)
from twnb.notebook.streamed_message import StreamedMessage
from twnb.notebook.theme_colours import AMBER, GREEN, RED
from twnb.notebook.throttle import Throttle
from twnb.render import (
    LINK_STYLE,
    PLANNER_NOTES,
    PREVIEW_CAP_BYTES,
    artifact_label,
    artifact_url,
    attachment_label,
    autosave_note,
    clean_text,
    clip_middle,
    code_html,
    decision_line,
    display_path,
    displayed_images,
    failure_html,
    incomplete_reason,
    is_shown,
    note_html,
    plan_html,
    plan_to_dict,
    post_title,
    preformatted_html,
    sections_kept_open,
    shorten,
    spent_tokens,
    state_badge,
    state_label,
    summary_line,
    timeline_html,
    tokens_label,
    without_decision_words,
)

if TYPE_CHECKING:
    from twnb.memory import Plan, Post, Round

WIDGET_VIEW_MIME = "application/vnd.jupyter.widget-view+json"
WAITING_CLASS = "twnb-waiting"  # on step mode's panel while it waits for a decision
_RESULT_LIMIT = 8000  # characters of one execution result shown in the widget


class RoundView:
    """Observer for one Round; `widget` is what is displayed."""

    def __init__(
        self,
        request: str,
        *,
        base_dir: str | Path | None = None,
        rate_hz: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        # lazy: ipywidgets (~40 modules, ~80 ms): only the notebook layer touches it, when a Round runs
        import ipywidgets as w
        from ipywidgets.widgets.widget_string import HTMLStyle

        self._w = w
        self._lock = threading.RLock()
        self._layout = w.Layout()
        self._html_style = HTMLStyle()
        self._displayed: set[str] = set()  # sha256 of images the Round's code displayed in the cell
        self._clock = clock
        self._started = clock()
        self._duration: float | None = None  # the Round's own time, once it has ended
        self._base_dir = Path(base_dir) if base_dir is not None else None
        self.throttle = Throttle(rate_hz, clock)
        self.deltas_seen = 0
        self.first_delta_at: float | None = None
        self.first_update_at: float | None = None
        self.request = request
        self.state = "running"
        self.tokens_in = 0
        self.tokens_out = 0
        self.tokens_cached = 0
        self.tokens_estimated = False  # some count is twnb's estimate: shown with ~
        self._posts: dict[str, _PostSection] = {}
        self._ended = False  # after finish(): sections fold so the answer and the code stand out
        self._dirty: set[tuple[str, str]] = set()  # (post_id, "message" | attachment id)
        # The Planner restates its plan in every post: each text shows once, in the first post with it.
        self._plan_text_owner: dict[tuple[str, str], str] = {}
        self._held: str | None = None  # the post whose code waits in step mode's panel (shown there)
        self._controls: Any = None  # step mode's approval panel, once added

        self.header = self._html()
        self.plan = self._html()
        self.posts = w.VBox(layout=self._layout)
        self.status = self._html()
        self.failure = self._html()
        self.summary = self._html()  # once the Round has ended: its time and tokens, and the waterfall
        self.widget = w.VBox(
            [self.header, self.plan, self.posts, self.status, self.failure, self.summary],
            layout=w.Layout(border="1px solid #d0d7de", padding="4px 8px"),
        )
        self._render_header()

    # --- Observer --------------------------------------------------------------------------------

    def on_event(self, event: Event) -> None:
        with self._lock:
            match event:
                case MessageDelta():  # the most frequent first: one per streamed piece of text
                    self._message_delta(event)
                case AttachmentDelta():
                    self._attachment_delta(event)
                case RoundStarted():
                    self.request = event.user_query
                    self._render_header()
                case PostStarted():
                    self._section(event.post_id, event.send_from, event.send_to)
                case PostRetry():
                    self._post_retry(event)
                case PostCommitted():
                    self._post_committed(event)
                case StatusChanged():
                    self.status.value = _status_html(event.text)
                case UsageReported():
                    self._usage_reported(event)
                case RoundFailed():
                    self.failure.value = failure_html(state_label("failed", event.reason), event.reason)
                case RoundEnded():
                    self._round_ended(event)
                case _:  # the LLM calls, code runs and plugin calls are the ledger's and the tracer's
                    pass

    def tick(self) -> None:
        """The heartbeat: send text the throttle held back, and the elapsed time."""
        with self._lock:
            if self._dirty and self.throttle.ready():
                self._flush()
            else:
                self._render_header()

    def _message_delta(self, event: MessageDelta) -> None:
        section = self._section(event.post_id)
        section.message_view.append(event.text)
        self._stream(event.post_id, "message", event.is_end)

    def _attachment_delta(self, event: AttachmentDelta) -> None:
        section = self._section(event.post_id)
        kind = event.type.value
        current = section.attachments.get(event.attachment_id)
        section.attachments[event.attachment_id] = (kind, (current[1] if current else "") + event.text)
        self._stream(event.post_id, event.attachment_id, event.is_end)

    def _post_retry(self, event: PostRetry) -> None:
        section = self._section(event.post_id)
        section.clear()
        self._dirty = {key for key in self._dirty if key[0] != event.post_id}
        section.attachments_html.value = ""
        self.status.value = _status_html(f"retrying: {event.reason}")

    def _post_committed(self, event: PostCommitted) -> None:
        post = event.post
        section = self._section(post.id, post.send_from, post.send_to)
        self._displayed.update(displayed_images([post]))
        section.commit(post)
        self._dirty = {key for key in self._dirty if key[0] != post.id}
        self._render_section(section)

    def _usage_reported(self, event: UsageReported) -> None:
        usage = event.usage
        self.tokens_in += int(usage.get("prompt_tokens") or 0)
        self.tokens_out += int(usage.get("completion_tokens") or 0)
        self.tokens_cached += int(usage.get("cached_tokens") or 0)
        self.tokens_estimated = self.tokens_estimated or bool(usage.get("estimated"))
        self._render_header()

    def _round_ended(self, event: RoundEnded) -> None:
        self._flush()
        self.state = state_label(event.state, event.failure_reason)
        if event.failure_reason:
            self.failure.value = failure_html(self.state, event.failure_reason)
        self.status.value = ""
        self._render_header()

    # --- the plan notebook's hook ----------------------------------------------------------------

    def on_plan_change(self, notebook: object, plan: Plan | None) -> None:
        """The checklist follows the session's plan notebook (a plan-change hook, registered while the
        Round runs): every new plan, and the plan as the Round ended it (done, or abandoned steps)."""
        if plan is None:
            return  # the notebook was emptied (reset, load): not while this Round runs
        with self._lock:
            self.plan.value = plan_html(plan_to_dict(plan))

    # --- the end of a Round ----------------------------------------------------------------------

    def finish(self, round: Round, payload: dict[str, Any] | None = None) -> None:
        """Show the final Round: every post as committed, its state, and the time/token summary."""
        with self._lock:
            self._finish(round, payload)

    def _finish(self, round: Round, payload: dict[str, Any] | None) -> None:
        self._flush()
        self._ended = True
        self._displayed.update(displayed_images(round))
        keep_open = sections_kept_open(round.to_dict())
        for post in round.post_list:
            section = self._section(post.id, post.send_from, post.send_to)
            section.commit(post)
            self._render_section(section)
            section.box.selected_index = 0 if post.id in keep_open else None
        reason = (round.extra or {}).get("failure_reason") or ""
        self.state = state_label(round.state, reason)
        if round.state == "failed":
            self.failure.value = failure_html(self.state, reason or "the Round failed")
        unsaved = autosave_note({"extra": round.extra})
        if unsaved:  # the Round went on: said once, where the Round is, not only in a log
            failed = self.failure.value if round.state == "failed" else ""
            self.failure.value = failed + note_html("Not autosaved", unsaved)
        duration = ((round.extra or {}).get("timing") or {}).get("duration_s")
        if isinstance(duration, (int, float)):
            self._duration = float(duration)  # what the summary says, not this view's own clock
        spent = spent_tokens((round.extra or {}).get("usage"), (round.extra or {}).get("ledger"))
        if spent is not None:
            self.tokens_in, self.tokens_out, self.tokens_cached = (
                spent.tokens_in,
                spent.tokens_out,
                spent.cached,
            )
            self.tokens_estimated = spent.estimated
        if payload is not None:
            plan = (payload.get("twnb") or {}).get("plan")
            if plan:
                self.plan.value = plan_html(plan)
            line = summary_line(payload)
            self.summary.value = f"<small>{html.escape(line)}</small>" if line else ""
        self.summary.value += timeline_html((round.extra or {}).get("ledger"))
        self.status.value = ""
        self._render_header()

    def close(self) -> None:
        """Close every widget of this view, layouts and styles included (the cell's output has the
        static Round by then, and a frontend keeps a model per open widget)."""
        with self._lock:
            seen: set[int] = set()
            pending: list[Any] = [self.widget]
            while pending:
                widget = pending.pop()
                if widget is None or id(widget) in seen:
                    continue
                seen.add(id(widget))
                pending += [*getattr(widget, "children", ()), getattr(widget, "layout", None)]
                pending.append(getattr(widget, "style", None))
                widget.close()

    def add_controls(self, widget: Any) -> None:
        """Put `widget` (step mode's approval panel) under the posts, above the status line."""
        with self._lock:
            children = list(self.widget.children)
            children.insert(children.index(self.status), widget)
            self.widget.children = tuple(children)
            self._controls = widget

    @contextlib.contextmanager
    def waiting(self) -> Iterator[None]:
        """While step mode waits for a decision: the post sections above the panel fold (the Planner's
        notes would push the panel below the fold) and the panel carries the `twnb-waiting` class (the
        JupyterLab extension scrolls it into view); both are put back when the decision is made."""
        with self._lock:
            opened = {pid: s.box.selected_index for pid, s in self._posts.items()}
            for section in self._posts.values():
                section.box.selected_index = None
            if self._controls is not None:
                self._controls.add_class(WAITING_CLASS)
        try:
            yield
        finally:
            with self._lock:
                if self._controls is not None:
                    self._controls.remove_class(WAITING_CLASS)
                for post_id, index in opened.items():
                    folded = self._posts.get(post_id)
                    if folded is not None:
                        folded.box.selected_index = index

    def hold_code(self, post_id: str | None) -> None:
        """While `post_id`'s code waits for a decision in step mode's panel, its section says so instead
        of showing the code too; None puts the code back in its section (it ran, or was skipped)."""
        with self._lock:
            released, self._held = self._held, post_id
            for changed in {released, post_id} - {None}:
                section = self._posts.get(str(changed))
                if section is not None:
                    section.attachments_html.value = self._attachments_html(section)

    def mime_bundle(self) -> dict[str, Any]:
        """The widget's view entry, to put beside the Round's static bundle in one display."""
        bundle = self.widget._repr_mimebundle_()
        return {WIDGET_VIEW_MIME: bundle[WIDGET_VIEW_MIME]}

    # --- rendering -------------------------------------------------------------------------------

    def _stream(self, post_id: str, key: str, is_end: bool) -> None:
        self.deltas_seen += 1
        if self.first_delta_at is None:
            self.first_delta_at = self._clock()
        self._dirty.add((post_id, key))
        if is_end:
            self.throttle.force()
            self._flush()
        elif self.throttle.ready():
            self._flush()

    def _flush(self) -> None:
        dirty, self._dirty = self._dirty, set()
        for post_id in sorted({post_id for post_id, _ in dirty}):
            section = self._posts.get(post_id)
            if section is None:
                continue
            if (post_id, "message") in dirty:
                section.message_view.flush()
            if any(key != "message" for pid, key in dirty if pid == post_id):
                section.attachments_html.value = self._attachments_html(section)
        if dirty and self.first_update_at is None:
            self.first_update_at = self._clock()
        self._render_header()

    def _section(self, post_id: str, send_from: str = "", send_to: str = "") -> _PostSection:
        section = self._posts.get(post_id)
        if section is None:
            section = _PostSection(
                self._w, self._layout, self._html_style, post_id, send_from or "?", send_to or "?"
            )
            self._posts[post_id] = section
            self.posts.children = (*self.posts.children, section.box)
        elif send_from and (send_from, send_to) != (section.send_from, section.send_to):
            section.send_from, section.send_to = send_from, send_to
            section.box.titles = (section.title(),)
        return section

    def _render_section(self, section: _PostSection) -> None:
        section.box.titles = (section.title(),)
        section.message_view.flush()
        section.attachments_html.value = self._attachments_html(section)

    def _attachments_html(self, section: _PostSection) -> str:
        # One HTML widget per post, not per attachment: saved widget state costs a model per widget.
        parts = [incomplete_html(section.incomplete)] if section.incomplete else []
        notes = []
        verified = section.verification() == "CORRECT"
        for kind, text in section.attachments.values():
            if not is_shown(kind, text):  # hidden, "no error", or empty (a skip's result under its line)
                continue
            if kind == "verification" and str(text).strip() in ("CORRECT", "NONE"):
                if verified and not section.has("execution_status"):
                    parts.append(f"<div>{_badge('verified')}</div>")  # the status, when it comes, carries it
                continue
            if kind in PLANNER_NOTES:
                key = (kind, clean_text(text).strip())
                if kind in ("init_plan", "plan") and self._plan_text_owner.setdefault(
                    key, section.post_id
                ) != (section.post_id):
                    continue
                notes.append(attachment_html(kind, text))
            elif kind == "artifact_paths":
                parts.append(self._artifacts_html(text))
            elif kind == "execution_status":
                parts.append(attachment_html(kind, text, verified=verified))
            elif kind == "execution_result" and self._ended and section.succeeded():
                # The real outputs are in the cell below; this is the text the LLM was given.
                summary = "result as the LLM was told"
                parts.append(details_html(summary, [attachment_html(kind, text)], open_=False))
            elif section.is_code(kind) and section.post_id == self._held:
                parts.append(f"<div>{_status_html('the code waits for your decision below')}</div>")
            else:
                parts.append(attachment_html(kind, text, code=section.is_code(kind)))
        if notes:
            parts.append(details_html("planner notes", notes, open_=not self._ended))
        return "".join(parts)

    def _artifacts_html(self, text: Any) -> str:
        paths = [text] if isinstance(text, str) else [str(p) for p in text or []]
        paths = [p for line in paths for p in line.splitlines() if p.strip()]
        parts = []
        for path_text in paths:
            path = Path(path_text)
            if not path.is_absolute() and self._base_dir is not None:
                path = self._base_dir / path
            parts.append(artifact_html(display_path(path, self._base_dir), path, self._displayed))
        return "<div>" + "".join(parts) + "</div>"

    def _html(self, value: str = "") -> Any:
        return self._w.HTML(value, layout=self._layout, style=self._html_style)

    def _render_header(self) -> None:
        seconds = self._duration if self._duration is not None else self._clock() - self._started
        # Whole seconds while it runs (the heartbeat ticks each second); tenths once it has ended.
        elapsed = f"{seconds:.0f}" if self.state == "running" else f"{seconds:.1f}"
        request = html.escape(shorten(clean_text(self.request), 200))
        counts = tokens_label(
            self.tokens_in, self.tokens_out, self.tokens_cached, estimated=self.tokens_estimated
        )
        tokens = f" · {counts} tokens" if self.tokens_in or self.tokens_out else ""
        self.header.value = (
            f"<div><b>twnb</b> {state_badge(self.state)} <small>{elapsed} s{tokens}</small>"
            f"<br><span>{request}</span></div>"
        )


class _PostSection:
    """One Post's collapsible section and the text streamed into it so far."""

    def __init__(self, w: Any, layout: Any, style: Any, post_id: str, send_from: str, send_to: str) -> None:
        self.post_id = post_id
        self.send_from = send_from
        self.send_to = send_to
        self.attachments: dict[str, tuple[str, Any]] = {}
        self.incomplete = ""  # why the reply was cut off, for a post kept after a failure
        self.decision: str | None = None  # step mode: what the user decided on this post, once committed
        self.message_view = StreamedMessage(w, layout)  # sends only the message's last chunk per update
        self.attachments_html = w.HTML(layout=layout, style=style)
        self.box = w.Accordion(
            children=[w.VBox([self.message_view.box, self.attachments_html], layout=layout)],
            titles=(self.title(),),
            selected_index=0,
            layout=layout,
        )

    def title(self) -> str:
        extra = {"incomplete": self.incomplete} if self.incomplete else {}
        title = post_title({"send_from": self.send_from, "send_to": self.send_to, "extra": extra})
        # In the title, as the static view has it in the post's summary: seen with the post folded.
        return f"{title} · {self.decision}" if self.decision else title

    def has(self, kind: str) -> bool:
        return any(k == kind for k, _ in self.attachments.values())

    def succeeded(self) -> bool:
        found = [str(text).strip() for k, text in self.attachments.values() if k == "execution_status"]
        return bool(found) and found[-1].upper() == "SUCCESS"

    def verification(self) -> str:
        found = [str(text).strip() for k, text in self.attachments.values() if k == "verification"]
        return found[-1] if found else ""

    def is_code(self, kind: str) -> bool:
        if kind != "reply_content":
            return False
        reply_type = [text for k, text in self.attachments.values() if k == "reply_type"]
        return not reply_type or str(reply_type[-1]).strip() != "text"

    def clear(self) -> None:
        # The next attempt streams new attachment ids: drop the old ones, not just their text.
        self.message_view.clear()
        self.attachments = {}
        self.incomplete = ""

    def commit(self, post: Post) -> None:
        # A decided post is shown as the static view shows it: the decision in one line (the title),
        # the message and result without the record's words for the same decision.
        attachments = [{"id": a.id, "type": a.type.value, "content": a.content} for a in post.attachment_list]
        # The fields the static view reads, without to_dict()'s deep copy of `extra`.
        shown = without_decision_words(
            {"message": post.message, "extra": post.extra, "attachment_list": attachments}
        )
        self.decision = decision_line(shown)
        self.message_view.replace(shown.get("message") or "")
        self.incomplete = str((post.extra or {}).get("incomplete") or "")
        self.attachments = {
            str(attachment["id"]): (str(attachment["type"]), attachment["content"])
            for attachment in shown.get("attachment_list") or []
        }


# --- HTML pieces (every piece of text escaped) ------------------------------------------------------


def attachment_html(kind: str, content: object, *, code: bool = False, verified: bool = False) -> str:
    text = clean_text(content)
    label = html.escape(attachment_label(kind))
    if code:
        return f"<div>{code_html(text)}</div>"
    if kind in (
        "execution_result",
        "code_error",
        "revise_message",
        "init_plan",
        "plan",
        "plan_reasoning",
    ):
        colour = RED if kind == "code_error" else "inherit"
        return (
            f"<div><small>{label}</small>"
            + preformatted_html(clip_middle(text, _RESULT_LIMIT), style=f"color:{colour}")
            + "</div>"
        )
    if kind == "execution_status":
        colour = GREEN if text.strip().upper() == "SUCCESS" else RED
        badge = f" {_badge('verified')}" if verified else ""
        return f'<div><small>{label}:</small> <b style="color:{colour}">{html.escape(text)}</b>{badge}</div>'
    if kind == "verification":  # only INCORRECT gets here: CORRECT is a badge, NONE says nothing
        return f'<div><small>{label}:</small> <b style="color:{RED}">{html.escape(text)}</b></div>'
    return f"<div><small>{label}:</small> <i>{html.escape(text)}</i></div>"


def artifact_html(name: str, path: Path, displayed: set[str] | frozenset[str] = frozenset()) -> str:
    """A link to the artifact and, for a small enough image the code did not display, the image.

    A displayed figure is already in the cell's output: embedding it again would only double the
    saved notebook (widget state keeps every image it shows).
    """
    mime = mimetypes.guess_type(path.name)[0] or ""
    label = html.escape(artifact_label(name))
    url = artifact_url(name)
    link = (
        f'<a href="{html.escape(url)}" target="_blank" style="{LINK_STYLE}">{label}</a>'
        if url
        else f"<code>{label}</code>"
    )
    if mime.startswith("image/") and mime != "image/svg+xml":
        try:
            if path.stat().st_size <= PREVIEW_CAP_BYTES:
                raw = path.read_bytes()
                if hashlib.sha256(raw).hexdigest() in displayed:
                    return f"<div>{link} <small>(shown in the cell's output)</small></div>"
                data = base64.b64encode(raw).decode("ascii")
                return f'<div>{link}<br><img src="data:{mime};base64,{data}" style="max-width:100%"></div>'
        except OSError:
            pass
    return f"<div>{link}</div>"


def details_html(summary: str, parts: list[str], *, open_: bool) -> str:
    """Pieces folded under one line (a plain <details>: no widget, so no model in saved state)."""
    return (
        f"<details{' open' if open_ else ''}><summary><small>{html.escape(summary)}</small></summary>"
        + "".join(parts)
        + "</details>"
    )


def incomplete_html(reason: str) -> str:
    text = incomplete_reason({"extra": {"incomplete": reason}}) or ""
    return (
        f'<div style="color:{AMBER};border-left:3px solid {AMBER};padding-left:6px">'
        f"<b>⚠ {html.escape(text)}</b></div>"
    )


def _badge(text: str) -> str:
    return (
        f'<small style="border:1px solid {GREEN};color:{GREEN};border-radius:8px;padding:0 5px">'
        f"{html.escape(text)}</small>"
    )


def _status_html(text: str) -> str:
    return f"<small><i>{html.escape(text)}</i></small>" if text else ""
