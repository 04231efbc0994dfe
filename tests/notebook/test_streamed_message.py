"""A long message streaming into the live Round widget: Markdown chunks, each update sending only the
last one (real ipywidgets; every comm message a widget sends is recorded on its way out)."""

from __future__ import annotations

import json
from typing import Any

import ipywidgets
import pytest
from nb_fake_clock import FakeClock
from support.nb_markdown import rendered

from twnb.memory import MessageDelta, Post, PostCommitted, PostRetry, PostStarted, RoundStarted
from twnb.notebook.round_view import RoundView
from twnb.render.markdown_escape import escape_markdown
from twnb.render.text import clean_text

PARAGRAPH = "The margin in the West region rose while discounts fell; see [the table](t.csv).\n" * 3 + "\n"


@pytest.fixture
def sent(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, dict[str, Any]]]:
    """(model id, message) of every comm message a widget sends, in order."""
    messages: list[tuple[str, dict[str, Any]]] = []
    send = ipywidgets.Widget._send

    def recorded(self: ipywidgets.Widget, msg: dict[str, Any], buffers: Any = None) -> None:
        messages.append((self.model_id, msg))
        send(self, msg, buffers)

    monkeypatch.setattr(ipywidgets.Widget, "_send", recorded)
    return messages


def _view() -> RoundView:
    view = RoundView("Explain the margins.", clock=FakeClock(), rate_hz=1e9)  # every delta flushed
    view.on_event(RoundStarted("round-1", "Explain the margins."))
    view.on_event(PostStarted("post-1", "Planner", "User"))
    return view


def _chunks(view: RoundView) -> tuple[Any, ...]:
    return view._posts["post-1"].message_view.box.children


def _shown(view: RoundView, mime: str = "text/markdown") -> list[str]:
    return [chunk.outputs[0]["data"][mime] for chunk in _chunks(view)]


def _stream(view: RoundView, text: str, step: int) -> None:
    for start in range(0, len(text), step):
        view.on_event(MessageDelta("post-1", text[start : start + step], False))


def test_a_long_message_streams_into_chunks_and_an_update_sends_only_the_last_one(sent):
    view = _view()
    text = PARAGRAPH * 200  # ~49 KB
    for start in range(0, len(text), 20):
        before = len(sent)
        view.on_event(MessageDelta("post-1", text[start : start + 20], False))
        chunks = [chunk.model_id for chunk in _chunks(view)]
        changed = [model for model, msg in sent[before:] if "outputs" in msg.get("state", {})]
        assert set(changed) <= set(chunks[-2:])  # the live chunk, and one just closed
    assert len(_chunks(view)) >= 20
    assert "".join(_shown(view)) == escape_markdown(clean_text(text), links=True)


def test_the_chunks_show_the_message_as_it_renders_whole_fences_and_escaping_included():
    view = _view()
    fence = "```python\n" + "".join(f"total_{n} = sales.sum()\n\n" for n in range(150)) + "```\n"
    text = PARAGRAPH * 20 + fence + "\n<script>alert(1)</script> ![x](http://evil/x.png)\n\n" + PARAGRAPH * 20
    _stream(view, text, 13)
    markdown = _shown(view)
    assert len(markdown) >= 3
    assert sum("```python" in chunk for chunk in markdown) == 1  # the fence is whole in one chunk
    assert "<script>" not in "".join(markdown)
    assert "".join(rendered(chunk) for chunk in markdown) == rendered(
        escape_markdown(clean_text(text), links=True)
    )
    assert "".join(_shown(view, "text/plain")) == clean_text(text)


def test_a_retry_drops_the_chunks_and_the_next_attempt_starts_afresh():
    view = _view()
    _stream(view, "First attempt. " + PARAGRAPH * 40, 50)
    dropped = _chunks(view)
    view.on_event(PostRetry("post-1", "the stream dropped"))
    assert _chunks(view) == ()
    assert all(chunk.comm is None for chunk in dropped)  # closed: no model left in the frontend
    _stream(view, "Second attempt.\n", 5)
    assert _shown(view) == ["Second attempt.\n"]


def test_a_committed_post_whose_text_differs_replaces_the_chunks():
    view = _view()
    _stream(view, PARAGRAPH * 40, 50)
    committed = Post.create("The committed answer.", "Planner", "User")
    committed.id = "post-1"
    view.on_event(PostCommitted(committed))
    assert _shown(view) == ["The committed answer."]


def test_committing_the_streamed_text_sends_none_of_it_again(sent):
    view = _view()
    text = PARAGRAPH * 40
    _stream(view, text, 50)
    committed = Post.create(text, "Planner", "User")
    committed.id = "post-1"
    before = len(sent)
    view.on_event(PostCommitted(committed))
    assert not [msg for _, msg in sent[before:] if "outputs" in msg.get("state", {})]
    assert "".join(_shown(view)) == escape_markdown(clean_text(text), links=True)


def _update_bytes(sent: list[tuple[str, dict[str, Any]]], size: int) -> list[int]:
    """JSON bytes sent per update once a message of `size` characters has streamed in."""
    view = _view()
    view.on_event(MessageDelta("post-1", (PARAGRAPH * (size // len(PARAGRAPH) + 1))[:size], False))
    per_update = []
    for i in range(600):  # words, a line break every 20 and a paragraph break every 100
        before = len(sent)
        view.on_event(
            MessageDelta("post-1", "\n\n" if i % 100 == 99 else "\n" if i % 20 == 19 else "word ", False)
        )
        per_update.append(sum(len(json.dumps(msg)) for _, msg in sent[before:]))
    view.close()
    return per_update


def test_the_message_sent_per_update_stays_small_for_a_400_kb_message(sent):
    small, large = _update_bytes(sent, 4_000), _update_bytes(sent, 400_000)
    assert max(large) < 16_000  # the whole message would be ~800 KB (Markdown and plain text)
    assert sum(large) / len(large) < 1.5 * sum(small) / len(small)
